import Foundation
import Synchronization

/// An audit trail of what the gateway did for wallets and stored credentials: every offer, provision, confirmation,
/// client session, result verification and charge, with the provider instance, the card, wallet and flow, the
/// outcome code, the latency and the request ids.
///
/// It never holds card data, certificates, nonces, payloads, secrets or JWTs: an entry has no field that could
/// carry them. The in-memory journal is the default; `CardGatewayPostgres` keeps one for every instance.
public protocol ProvisioningJournal: Sendable {
    func append(_ entry: ProvisioningJournalEntry) async throws
    /// The newest entries first, at most `limit`, optionally for one card (or stored-credential reference).
    func entries(card: String?, limit: Int) async throws -> [ProvisioningJournalEntry]
}

/// One operation in the provisioning journal.
public struct ProvisioningJournalEntry: Sendable, Equatable, Codable {
    /// Written for an operation that succeeded.
    public static let succeeded = "ok"

    public var at: Date
    public var operation: GatewayOperation
    /// The provider instance that served it.
    public var instance: String
    /// The card id, or for stored credentials the provider's reference (never a card number).
    public var card: String?
    public var wallet: Wallet?
    public var flow: ProvisioningFlow?
    /// ``succeeded`` or the error's code (``CardGatewayError/Code``'s raw value).
    public var outcome: String
    /// Milliseconds the operation took, store work included.
    public var latencyMilliseconds: Int
    /// The caller's request id.
    public var requestID: String?
    /// The provider's request id, when it gave one.
    public var providerRequestID: String?

    public init(
        at: Date, operation: GatewayOperation, instance: String, card: String? = nil, wallet: Wallet? = nil,
        flow: ProvisioningFlow? = nil,
        outcome: String, latencyMilliseconds: Int, requestID: String? = nil, providerRequestID: String? = nil
    ) {
        self.at = at
        self.operation = operation
        self.instance = instance
        self.card = card.map(Self.identifier)
        self.wallet = wallet
        self.flow = flow
        self.outcome = outcome
        self.latencyMilliseconds = latencyMilliseconds
        self.requestID = requestID.map(Self.identifier)
        self.providerRequestID = providerRequestID.map(Self.identifier)
    }

    /// An id as given, cut to 128 characters, unless it is a card number (13 to 19 digits, spaces or dashes
    /// allowed, passing the Luhn check), which an app may send by mistake where a card id belongs: then
    /// `<redacted>`. (Ids are kept verbatim otherwise, so that they can be looked up.)
    public static func identifier(_ text: String) -> String {
        let digits = text.unicodeScalars.filter { $0 != " " && $0 != "-" }
        if (13...19).contains(digits.count), digits.allSatisfy({ $0.value >= 48 && $0.value <= 57 }) {
            var sum = 0
            for (index, scalar) in digits.reversed().enumerated() {
                var digit = Int(scalar.value) - 48
                if index % 2 == 1 {
                    digit *= 2
                    if digit > 9 { digit -= 9 }
                }
                sum += digit
            }
            if sum % 10 == 0 { return "<redacted>" }
        }
        return String(text.prefix(128))
    }
}

/// Keeps the newest entries in memory (10,000 by default), in a ring: once full, an entry replaces the oldest in place
/// (an append costs the same whatever the capacity; shifting the array down by one cost a copy of all of it).
public final class InMemoryProvisioningJournal: ProvisioningJournal {
    /// The entries, oldest at `oldest` once the ring is full (before that, in order from 0).
    private struct Ring {
        var entries: [ProvisioningJournalEntry] = []
        var oldest = 0
    }

    private let storage = Mutex(Ring())
    public let capacity: Int

    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    public func append(_ entry: ProvisioningJournalEntry) async throws {
        storage.withLock { ring in
            if ring.entries.count < capacity {
                ring.entries.append(entry)
            } else {
                ring.entries[ring.oldest] = entry
                ring.oldest = (ring.oldest + 1) % capacity
            }
        }
    }

    public func entries(card: String?, limit: Int) async throws -> [ProvisioningJournalEntry] {
        storage.withLock { ring in
            let card = card.map(ProvisioningJournalEntry.identifier)
            var found: [ProvisioningJournalEntry] = []
            // Newest first: from the one before `oldest` backwards, wrapping around.
            let count = ring.entries.count
            var step = 0
            while step < count && found.count < limit {
                let entry = ring.entries[(ring.oldest - 1 - step + 2 * count) % count]
                if card == nil || entry.card == card { found.append(entry) }
                step += 1
            }
            return found
        }
    }
}
