import CardGatewaySimulation
import Foundation
import Synchronization

/// A card as the simulator keeps it (no PAN or CVV: the simulator never reveals one).
struct SimulatedMarqetaCard: Sendable {
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
    /// The order cards were created in, for listings.
    var sequence: Int

    /// The card resource.
    func json(createdTime: String) -> [String: Any] {
        [
            "token": token, "user_token": userToken, "card_product_token": cardProductToken, "last_four": lastFour,
            "expiration": expiration, "expiration_time": MarqetaSimulator.expirationTime(expiration), "state": state, "state_reason": stateReason,
            "fulfillment_status": instrumentType == "VIRTUAL_PAN" ? "DIGITALLY_PRESENTED" : "ISSUED", "instrument_type": instrumentType,
            "pin_is_set": false, "expedite": false, "created_time": createdTime, "last_modified_time": createdTime,
        ]
    }
}

/// A digital wallet token as the simulator keeps it.
struct SimulatedWalletToken: Sendable {
    var token: String
    var cardToken: String
    var state: String
    /// `APPLE_PAY`, `ANDROID_PAY`, `SAMSUNG_PAY`.
    var requestor: String
    var created: Date
    var sequence: Int

    func json(createdTime: String) -> [String: Any] {
        [
            "token": token, "card_token": cardToken, "state": state, "state_reason": "", "fulfillment_status": state == "REQUESTED" ? "PROVISION_REQUESTED" : "PROVISIONED",
            "created_time": createdTime, "last_modified_time": createdTime,
            "token_service_provider": [
                "token_requestor_name": requestor, "token_reference_id": "DNITHE" + String(token.suffix(12)), "token_type": "DEVICE_SECURE_ELEMENT",
            ],
            "device": ["type": "MOBILE_PHONE", "name": "Simulated device"],
        ]
    }
}

/// The simulator's mutable state, in the kit's stores.
final class MarqetaSimulatorState: Sendable {
    let cards = SimulatorStore<String, SimulatedMarqetaCard>(MarqetaSimulator.Seed.cards.map { ($0.token, $0) })
    let tokens = SimulatorStore<String, SimulatedWalletToken>(MarqetaSimulator.Seed.walletTokens.map { ($0.token, $0) })
    let ids = DeterministicIDs(seed: 0x3A9E7A)
    /// Digests of the decoded bytes of the last Apple Pay provisioning request (certificates, nonce, signature), so
    /// tests can check the adapter's encoding without the journal holding them (it masks them).
    let lastApplePayDigests = Mutex<[String]>([])
    let clock: SimulationClock

    init(clock: SimulationClock) {
        self.clock = clock
    }

    func reset() {
        cards.reset(to: MarqetaSimulator.Seed.cards.map { ($0.token, $0) })
        tokens.reset(to: MarqetaSimulator.Seed.walletTokens.map { ($0.token, $0) })
        ids.reset()
        lastApplePayDigests.withLock { $0 = [] }
    }
}

/// A refusal in Marqeta's shape, thrown inside handlers.
struct MarqetaSimulatedFailure: Error {
    var response: SimulatedResponse
}
