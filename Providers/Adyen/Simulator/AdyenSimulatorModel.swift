import CardGatewaySimulation
import Crypto
import Foundation
import Synchronization

/// A payment instrument as the simulator keeps it.
struct AdyenSimulatorInstrument: Sendable {
    var id: String
    /// `card` or `bankAccount`.
    var type: String
    var status: String
    var statusReason: String?
    var statusComment: String? = nil
    var description: String?
    var card: AdyenSimulatorCard?
    var iban: String?
    var balanceAccountID: String = AdyenSimulator.Seed.balanceAccountID
    /// ISO 3166-1 alpha-2; the seed's instruments are issued in the Netherlands.
    var issuingCountryCode: String = "NL"

    /// The OpenAPI `PaymentInstrument`.
    var json: [String: Any] {
        var object: [String: Any] = [
            "id": id,
            "balanceAccountId": balanceAccountID,
            "issuingCountryCode": issuingCountryCode,
            "type": type,
            "status": status,
        ]
        if let statusReason { object["statusReason"] = statusReason }
        if let statusComment { object["statusComment"] = statusComment }
        if let description { object["description"] = description }
        if let card {
            object["paymentInstrumentGroupId"] = AdyenSimulator.Seed.paymentInstrumentGroupID
            object["card"] = card.json
        }
        if let iban { object["bankAccount"] = ["type": "iban", "iban": iban] }
        return object
    }
}

/// The OpenAPI `Card` of a payment instrument (no PAN or CVC: Adyen masks them outside single-use cards).
struct AdyenSimulatorCard: Sendable {
    var brand: String
    var brandVariant: String
    var cardholderName: String
    var formFactor: String
    var bin: String
    var lastFour: String
    var expiryMonth: String
    var expiryYear: String

    var json: [String: Any] {
        [
            "brand": brand, "brandVariant": brandVariant, "cardholderName": cardholderName, "formFactor": formFactor,
            "bin": bin, "lastFour": lastFour, "expiration": ["month": expiryMonth, "year": expiryYear],
            // Masked, as Adyen's published GET example shows it (`************3548`); the full number is only ever
            // revealed by a separate call the gateway does not make.
            "number": String(repeating: "*", count: 12) + lastFour,
            "threeDSecure": "fullySupported", "usage": "multiUse",
        ]
    }
}

/// A network token as the simulator keeps it.
struct AdyenSimulatorNetworkToken: Sendable {
    var id: String
    var paymentInstrumentID: String
    /// `active`, `inactive`, `suspended`, `closed`.
    var status: String
    /// `wallet`, `cof`, or a wallet name (`applePay`, `googlePay`) as Adyen's docs table shows it.
    var type: String
    var brandVariant: String
    var tokenLastFour: String
    var creationDate: Date
    var tokenRequestorName: String?
    var deviceOS: String?

    /// The OpenAPI `NetworkToken`.
    var json: [String: Any] {
        var object: [String: Any] = [
            "id": id, "paymentInstrumentId": paymentInstrumentID, "status": status, "type": type,
            "brandVariant": brandVariant,
            "tokenLastFour": tokenLastFour,
            "creationDate": SimulatorDateTime.format(creationDate, timeZone: AdyenSimulator.timeZone),
        ]
        if let deviceOS { object["device"] = ["formFactor": "mobile_phone", "osName": deviceOS] }
        if let tokenRequestorName {
            object["tokenRequestor"] = [
                "id": tokenRequestorName == "Google Pay" ? "50110030273" : "40010030273", "name": tokenRequestorName,
            ]
        }
        return object
    }

    /// The wallet name for webhooks (`wallet.type`), when the token belongs to one.
    var walletType: String? {
        if type == "applePay" || type == "googlePay" { return type }
        switch tokenRequestorName {
        case "Apple Pay": return "applePay"
        case "Google Pay": return "googlePay"
        default: return nil
        }
    }
}

/// One instrument's activation-data exchange: started by a GET, advanced by each POST.
struct AdyenSimulatorExchange: Sendable {
    /// Counts GETs of this instrument's activation data since the last reset (each starts a new session).
    var session: Int
    /// POSTs answered in this session.
    var round: Int
    /// Set once the exchange completed; a further POST needs a new GET.
    var completed: Bool
    /// The `sdkInput` answered last: the next `sdkOutput` must answer exactly this one
    /// (``AdyenSimulator/sdkOutput(answering:extra:)``), so a stale or replayed-elsewhere blob is refused.
    var lastInput: Data
}

extension AdyenSimulator {
    /// What the simulated provisioning SDK answers to `sdkInput`: the first
    /// ``Seed/sdkOutputDigestLength`` bytes of its SHA-256, then `extra` (e.g. ``Seed/googlePayMarker``). The
    /// simulator accepts a POSTed `sdkOutput` only when it answers the `sdkInput` the session handed out last,
    /// as a real SDK's output is bound to the input it was given: an adapter that re-sent an old blob, or sent one
    /// round's output twice, fails.
    public static func sdkOutput(answering sdkInput: Data, extra: Data = Data()) -> Data {
        Data(SHA256.hash(data: sdkInput).prefix(Seed.sdkOutputDigestLength)) + extra
    }

    /// Whether `output` answers `sdkInput` (see ``sdkOutput(answering:extra:)``).
    static func answers(_ output: Data, _ sdkInput: Data) -> Bool {
        let expected = Data(SHA256.hash(data: sdkInput).prefix(Seed.sdkOutputDigestLength))
        return output.count >= expected.count && output.prefix(expected.count) == expected
    }

    /// The opaque `sdkInput` bytes: distinct for every instrument, session and round, and dependent on the
    /// `sdkOutput` they answer. Not meaningful to any real SDK.
    func sdkInput(instrument: String, session: Int, round: Int, output: Data) -> Data {
        var bytes = Data("adyen-simulator sdkInput \(instrument) session \(session) round \(round) ".utf8)
        bytes.append(contentsOf: [0xfb, 0xef, 0xbe, 0xff, 0x00, 0x3e, 0x3f])
        bytes.append(contentsOf: SHA256.hash(data: output).prefix(12))
        return bytes
    }
}

/// The simulator's mutable state, kept in the kit's stores.
final class AdyenSimulatorState: Sendable {
    let instruments = SimulatorStore<String, AdyenSimulatorInstrument>(AdyenSimulator.Seed.instruments)
    let tokens = SimulatorStore<String, AdyenSimulatorNetworkToken>(AdyenSimulator.Seed.tokens)
    let exchanges = SimulatorStore<String, AdyenSimulatorExchange>()
    /// The balance accounts that exist (the listing answers 404 for any other).
    let balanceAccounts: Set<String> = [
        AdyenSimulator.Seed.balanceAccountID, AdyenSimulator.Seed.emptyBalanceAccountID,
    ]
    let ids = DeterministicIDs(seed: 0xAD1E)
    let clock: SimulationClock
    let ledgerBox: Mutex<IdempotencyLedger>
    /// The webhooks sent, oldest first (``AdyenSimulator/sentWebhooks()``).
    let outbox = Mutex<[AdyenSimulator.SentWebhook]>([])
    /// The relayed authorisations sent and what became of each, oldest first
    /// (``AdyenSimulator/relayedAuthorisations()``).
    let relayed = Mutex<[AdyenSimulator.RelayedAuthorisationRecord]>([])

    init(clock: SimulationClock) {
        self.clock = clock
        self.ledgerBox = Mutex(IdempotencyLedger(clock: clock))
    }

    /// Keys are kept for the simulator's lifetime (Adyen keeps them at least 31 days).
    var ledger: IdempotencyLedger { ledgerBox.withLock { $0 } }

    func reset() {
        instruments.reset(to: AdyenSimulator.Seed.instruments)
        tokens.reset(to: AdyenSimulator.Seed.tokens)
        exchanges.reset(to: [])
        ids.reset()
        ledgerBox.withLock { $0 = IdempotencyLedger(clock: clock) }
        outbox.withLock { $0 = [] }
        relayed.withLock { $0 = [] }
    }

    /// A GET of the activation data: starts a new session (replacing any unfinished one) and returns its first
    /// `sdkInput`, made by `input` from the session number.
    func startExchange(_ instrument: String, input: (Int) -> Data) -> Data {
        let previous = exchanges.get(instrument)?.session ?? 0
        let first = input(previous + 1)
        exchanges.put(
            instrument, AdyenSimulatorExchange(session: previous + 1, round: 0, completed: false, lastInput: first))
        return first
    }

    enum ExchangeStep {
        /// No exchange in progress (no GET first, or already completed).
        case notStarted
        /// The output does not answer the session's latest `sdkInput`.
        case stale
        /// The exchange after this round; `lastInput` is the `sdkInput` to answer with.
        case advanced(AdyenSimulatorExchange)
    }

    /// A POST of `output`: advances the exchange when `output` answers its latest `sdkInput`, and records the
    /// next one, made by `input` from the session and round.
    func advanceExchange(_ instrument: String, output: Data, input: (Int, Int) -> Data) -> ExchangeStep {
        var step = ExchangeStep.notStarted
        exchanges.update(instrument) { exchange in
            guard !exchange.completed else { return }
            guard AdyenSimulator.answers(output, exchange.lastInput) else {
                step = .stale
                return
            }
            exchange.round += 1
            exchange.completed = exchange.round >= AdyenSimulator.Seed.roundTripsToComplete
            exchange.lastInput = input(exchange.session, exchange.round)
            step = .advanced(exchange)
        }
        return step
    }

    /// The network token a completed exchange creates.
    func createToken(on instrument: AdyenSimulatorInstrument, requestor: String) -> AdyenSimulatorNetworkToken {
        let number = tokens.all().count + 1
        let id = "NWTK" + String(repeating: "0", count: max(0, 26 - String(number).count - 2)) + "77" + String(number)
        let token = AdyenSimulatorNetworkToken(
            id: id, paymentInstrumentID: instrument.id, status: "active", type: "wallet",
            brandVariant: instrument.card?.brandVariant ?? "",
            tokenLastFour: String(String(format: "%04d", 7700 + number).suffix(4)), creationDate: clock.now(),
            tokenRequestorName: requestor,
            deviceOS: requestor == "Google Pay" ? "android" : "ios"
        )
        tokens.put(id, token)
        return token
    }
}
