import CardGatewaySimulation
import Crypto
import Foundation
import Synchronization

/// A card as the simulator keeps it (no PAN or CVV: the simulator answers as Lithic does to an API key without PCI
/// access, without `pan` and `cvv`).
struct LithicSimulatorCard: Sendable {
    var token: String
    var accountToken: String
    var cardProgramToken: String
    var state: String
    var substatus: String?
    var comment: String?
    var lastFour: String
    var type: String
    var expMonth: String
    var expYear: String
    var memo: String
    var created: Date
    var sequence: Int

    /// `non_pci_card_response`: every required member, and the optional ones the document's examples show.
    func json() -> [String: Any] {
        var object: [String: Any] = [
            "token": token, "account_token": accountToken, "card_program_token": cardProgramToken,
            "cardholder_currency": "USD", "created": SimulatorDateTime.format(created), "exp_month": expMonth,
            "exp_year": expYear, "funding": NSNull(), "hostname": "", "last_four": lastFour, "memo": memo,
            "pin_status": "NOT_SET", "spend_limit": 0, "spend_limit_duration": "TRANSACTION", "state": state,
            "type": type, "replacement_for": NSNull(), "pending_commands": [String](),
        ]
        // `substatus` is `[string, null]` with an enumeration that lists no null: the card example omits it.
        if let substatus { object["substatus"] = substatus }
        if let comment { object["comment"] = comment }
        return object
    }
}

/// A tokenization as the simulator keeps it.
struct LithicSimulatorTokenization: Sendable {
    var token: String
    var cardToken: String
    var accountToken: String
    var status: String
    /// `APPLE_PAY`, `GOOGLE_PAY`, `SAMSUNG_PAY`.
    var requestor: String
    var created: Date
    var updated: Date
    var sequence: Int

    /// `tokenization`: every required member (`dpan` null: the simulator shows no device PAN). Its times as the
    /// document's examples write them: UTC, microseconds, no zone (`2023-08-28T15:57:14.578051`).
    func json() -> [String: Any] {
        [
            "token": token, "card_token": cardToken, "account_token": accountToken, "status": status,
            "token_requestor_name": requestor,
            "token_unique_reference": "DM4MMC" + LithicSimulator.hexDigest("tur|" + token, count: 40),
            "tokenization_channel": "DIGITAL_WALLET", "dpan": NSNull(),
            "device_id": LithicSimulator.hexDigest("device|" + token, count: 24),
            "created_at": SimulatorDateTime.formatWithoutZone(created, fraction: .microseconds),
            "updated_at": SimulatorDateTime.formatWithoutZone(updated, fraction: .microseconds),
            "events": [[String: Any]](),
        ]
    }
}

/// The simulator's mutable state, in the kit's stores.
final class LithicSimulatorState: Sendable {
    let cards = SimulatorStore<String, LithicSimulatorCard>(LithicSimulator.Seed.cards.map { ($0.token, $0) })
    let tokens = SimulatorStore<String, LithicSimulatorTokenization>(
        LithicSimulator.Seed.tokenizations.map { ($0.token, $0) })
    let ids = DeterministicIDs(seed: 0x11741C)
    /// `Idempotency-Key` of `POST /v1/cards`: the first answer of each key, replayed to the same body.
    let idempotency: IdempotencyLedger
    /// Digests of the decoded bytes of the last Apple Pay provisioning request (certificate, nonce, signature).
    let lastApplePayDigests = Mutex<[String]>([])
    /// Embed sessions by session value (LithicSimulatorCardReveal.swift).
    let sessions = SimulatorStore<String, LithicSimulatorEmbedSession>([])
    /// What each ASA request recorded, by transaction token (LithicSimulatorAuthorizations.swift).
    let asaOutcomes = SimulatorStore<String, Data>([])
    let asaSequence = Mutex<Int>(0)
    let clock: SimulationClock

    init(clock: SimulationClock) {
        self.clock = clock
        self.idempotency = IdempotencyLedger(clock: clock)
    }

    func reset() {
        cards.reset(to: LithicSimulator.Seed.cards.map { ($0.token, $0) })
        tokens.reset(to: LithicSimulator.Seed.tokenizations.map { ($0.token, $0) })
        ids.reset()
        idempotency.reset()
        lastApplePayDigests.withLock { $0 = [] }
        sessions.reset(to: [])
        asaOutcomes.reset(to: [])
        asaSequence.withLock { $0 = 0 }
    }
}

/// An embed session as the simulator keeps it: single-use, short-lived.
struct LithicSimulatorEmbedSession: Sendable {
    var cardToken: String
    var type: String
    var targetOrigin: String
    var expires: Date
    var used: Bool = false
}

extension LithicSimulator {
    /// `count` lower-case hex digits derived from `text` (SHA-256), for stable made-up identifiers.
    static func hexDigest(_ text: String, count: Int) -> String {
        var out = ""
        var counter = 0
        while out.count < count {
            out += ByteEncoding.hex(SHA256.hash(data: Data("\(counter)|\(text)".utf8)))
            counter += 1
        }
        return String(out.prefix(count))
    }

}
