import CardGatewaySimulation
import Crypto
import Foundation
import Synchronization

/// A card as the simulator keeps it (no PAN or CVV: the simulator never reveals one).
struct MarqetaSimulatorCard: Sendable {
    var token: String
    var userToken: String
    var cardProductToken: String
    var lastFour: String
    /// `MMYY`.
    var expiration: String
    var state: String
    var stateReason: String
    var instrumentType: String
    var created: Date
    /// When the card last changed (its creation, then each transition): `-lastModifiedTime` orders the listings.
    var lastModified: Date
    /// The order cards were created in, to break ties between equal times.
    var sequence: Int

    /// `pan` as Marqeta answers it without `show_pan`: masked, only the last four digits shown (`card_response` requires
    /// it). The six leading characters stand for the BIN; the simulator has no PAN, so it never shows one.
    var maskedPAN: String { "111111______" + lastFour }

    /// `barcode` (`card_response` requires it): 20 digits derived from the card token.
    var barcode: String { MarqetaSimulator.digits(of: "barcode|" + token, count: 20) }

    /// `fulfillment_status` as the simulator keeps it.
    var fulfillmentStatus: String { instrumentType == "VIRTUAL_PAN" ? "DIGITALLY_PRESENTED" : "ISSUED" }

    /// The card resource: every member `card_response` requires, nothing it does not define.
    func json() -> [String: Any] {
        [
            "token": token, "user_token": userToken, "card_product_token": cardProductToken, "last_four": lastFour,
            "pan": maskedPAN,
            "barcode": barcode, "expiration": expiration,
            "expiration_time": MarqetaSimulator.expirationTime(expiration), "state": state,
            "state_reason": stateReason, "fulfillment_status": fulfillmentStatus, "instrument_type": instrumentType,
            "pin_is_set": false,
            "expedite": false, "created_time": SimulatorDateTime.format(created),
            "last_modified_time": SimulatorDateTime.format(lastModified),
        ]
    }
}

/// A digital wallet token as the simulator keeps it.
struct MarqetaSimulatorWalletToken: Sendable {
    var token: String
    var cardToken: String
    var state: String
    /// `APPLE_PAY`, `ANDROID_PAY`, `SAMSUNG_PAY`.
    var requestor: String
    /// `device.type`: `MOBILE_PHONE`, `WATCH`, `TABLET`, ….
    var deviceType: String = "MOBILE_PHONE"
    var created: Date
    var lastModified: Date
    var sequence: Int

    /// `token_service_provider.pan_reference_id` (required by the swagger's `token_service_provider`; 50 char max).
    var panReferenceID: String { "V-" + MarqetaSimulator.digits(of: "pan_reference_id|" + cardToken, count: 20) }

    /// The `digital_wallet_token` resource of the listings, with every member Marqeta's example token shows
    /// (../shared/specs/marqeta-examples/get-digitalwallettokens-card-card_token.response-200.json); the values are
    /// the simulator's own (the IP address is from the documentation range 203.0.113.0/24).
    func json() -> [String: Any] {
        let decision = state == "REQUESTED" ? "DECISION_YELLOW" : "DECISION_GREEN"
        return [
            "token": token, "card_token": cardToken, "state": state, "state_reason": "",
            "fulfillment_status": state == "REQUESTED" ? "DECISION_YELLOW" : "PROVISIONED",
            "issuer_eligibility_decision": "0000",
            "created_time": SimulatorDateTime.format(created),
            "last_modified_time": SimulatorDateTime.format(lastModified),
            "token_service_provider": [
                "token_requestor_name": requestor, "token_reference_id": "DNITHE" + String(token.suffix(12)),
                "pan_reference_id": panReferenceID, "token_requestor_id": requestorID,
                "token_type": "DEVICE_SECURE_ELEMENT", "token_eligibility_decision": decision, "token_score": "01",
            ],
            "device": [
                "type": deviceType, "name": "Simulated device", "device_id": "sim_device_" + String(token.suffix(4)),
                "ip_address": "203.0.113.10", "language_code": "eng", "location": "+37.81/-122.26",
                "phone_number": "15105550100",
            ],
            "address_verification": [
                "name": "Sim Cardholder", "street_address": "180 Grand Ave", "postal_code": "94612",
            ],
            "wallet_provider_profile": [
                "account": ["score": "01"], "device_score": "01", "pan_source": "ON_FILE",
                "risk_assessment": ["score": decision, "version": "0001.00"],
            ],
        ]
    }

    /// `token_service_provider.token_requestor_id`: the 11-digit ids card networks give the three wallets
    /// (the simulator's values).
    var requestorID: String {
        switch requestor {
        case "APPLE_PAY": "40010030273"
        case "ANDROID_PAY": "40010075001"
        default: "40010043095"
        }
    }
}

/// The simulator's mutable state, in the kit's stores.
final class MarqetaSimulatorState: Sendable {
    let cards = SimulatorStore<String, MarqetaSimulatorCard>(MarqetaSimulator.Seed.cards.map { ($0.token, $0) })
    let tokens = SimulatorStore<String, MarqetaSimulatorWalletToken>(
        MarqetaSimulator.Seed.walletTokens.map { ($0.token, $0) })
    let ids = DeterministicIDs(seed: 0x3A9E7A)
    /// Marqeta's idempotency by the body's `token` (core-api/idempotency): the first answer of each `(route, token)`
    /// with the request it answered, replayed to the same payload; another payload is refused with 409.
    let idempotency: IdempotencyLedger
    /// Digests of the decoded bytes of the last Apple Pay provisioning request (certificates, nonce, signature), so
    /// tests can check the adapter's encoding without the journal holding them (it masks them).
    let lastApplePayDigests = Mutex<[String]>([])
    /// Client access tokens for Marqeta.js, by token (MarqetaSimulatorCardReveal.swift).
    let clientAccessTokens = SimulatorStore<String, MarqetaSimulatorClientAccessToken>([])
    /// JIT Funding requests sent so far (MarqetaSimulatorAuthorizations.swift): numbers the transaction tokens.
    let jitSequence = Mutex<Int>(0)
    /// What each JIT Funding request recorded, by transaction token: the control call's answer, JSON.
    let jitOutcomes = SimulatorStore<String, Data>([])
    let clock: SimulationClock

    init(clock: SimulationClock) {
        self.clock = clock
        self.idempotency = IdempotencyLedger(clock: clock)
    }

    func reset() {
        cards.reset(to: MarqetaSimulator.Seed.cards.map { ($0.token, $0) })
        tokens.reset(to: MarqetaSimulator.Seed.walletTokens.map { ($0.token, $0) })
        ids.reset()
        idempotency.reset()
        lastApplePayDigests.withLock { $0 = [] }
        clientAccessTokens.reset(to: [])
        jitSequence.withLock { $0 = 0 }
        jitOutcomes.reset(to: [])
    }
}

extension MarqetaSimulator {
    /// `count` decimal digits derived from `text` (SHA-256), for stable made-up identifiers.
    static func digits(of text: String, count: Int) -> String {
        var out = ""
        var counter = 0
        while out.count < count {
            for byte in SHA256.hash(data: Data("\(counter)|\(text)".utf8)) where out.count < count {
                out.append(Character(String(byte % 10)))
            }
            counter += 1
        }
        return out
    }
}
