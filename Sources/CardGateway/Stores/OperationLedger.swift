import Foundation
import Synchronization

/// Where the gateway records each write it sends under an idempotency key, so that the write reaches the provider
/// at most once, whichever instance of the service a retry lands on.
///
/// The gateway (``CardGateway``) drives it: ``claim(_:)`` before sending, then ``record(_:key:owner:)`` with the
/// outcome, or ``release(key:owner:)`` when the provider provably did nothing. A repeat with the same key gets the
/// recorded outcome; a repeat while the first attempt is in flight waits for it; an attempt whose outcome was never
/// recorded (a crash between sending and recording, a lease that ran out) is ``LedgerState/unknown`` and is never
/// sent again until someone reconciles it (``reconcile(key:to:)``).
///
/// Records hold what identifies the operation (key, operation, provider instance, a SHA-256 fingerprint of its
/// parameters) and a small outcome (a charge's references and status, a card's id): never card data, secrets or
/// provider payloads. The in-memory ledger is the default; `CardGatewayPostgres` shares one across instances.
public protocol OperationLedger: Sendable {
    /// Claims `intent.key` for one attempt, or returns what the ledger already holds for it.
    ///
    /// An existing record past its expiry is replaced by a fresh claim. A `pending` record whose lease has run out
    /// is turned into `unknown` (its owner crashed or stalled after it may have sent the request) and returned so.
    /// A record is kept for the retention **after its lease ends** (it expires at claim + lease + retention), so
    /// neither a claim in flight nor the `unknown` it may turn into can expire and be claimed again, however short
    /// the retention is configured next to the lease.
    func claim(_ intent: LedgerIntent) async throws -> LedgerClaim

    /// Records the outcome of the attempt `owner` claimed. Applies to a `pending` record, and to one that turned
    /// `unknown` because the owner's lease ran out (the owner's late word is better than none).
    func record(_ outcome: LedgerOutcome, key: String, owner: UUID) async throws

    /// Forgets the claim of `owner` on a `pending` record: the provider provably did not act, so the operation may
    /// be sent again.
    func release(key: String, owner: UUID) async throws

    /// The record for `key`, if the ledger holds one that has not expired.
    func record(key: String) async throws -> LedgerRecord?

    /// Settles a record by hand, usually an `unknown` one, after looking at the provider's side (a transaction in
    /// its back office): ``LedgerReconciliation/forget`` lets the operation be sent again.
    func reconcile(key: String, to resolution: LedgerReconciliation) async throws

    /// Deletes the records past their expiry; returns how many.
    @discardableResult
    func purgeExpired() async throws -> Int
}

/// One logical operation the gateway is about to send.
public struct LedgerIntent: Sendable, Equatable {
    /// The caller's idempotency key.
    public var key: String
    public var operation: GatewayOperation
    /// The provider instance the operation is routed to.
    public var instance: String
    /// A hex SHA-256 of the operation's parameters (never the parameters themselves).
    public var fingerprint: String
    /// How long the claim holds before an unfinished attempt counts as `unknown`.
    public var lease: Duration

    public init(key: String, operation: GatewayOperation, instance: String, fingerprint: String, lease: Duration) {
        self.key = key
        self.operation = operation
        self.instance = instance
        self.fingerprint = fingerprint
        self.lease = lease
    }
}

/// What ``OperationLedger/claim(_:)`` answers.
public enum LedgerClaim: Sendable, Equatable {
    /// The caller holds the key and sends the operation; `owner` names its claim.
    case claimed(owner: UUID)
    /// The ledger already holds the key.
    case existing(LedgerRecord)
}

/// Where a recorded operation stands.
public enum LedgerState: String, Sendable, Codable, CaseIterable {
    /// Claimed, and perhaps sent; its outcome is not recorded yet.
    case pending
    case succeeded
    /// The provider answered with a refusal that a repeat would only repeat (a decline).
    case failed
    /// It may or may not have reached the provider; it is never sent again until reconciled.
    case unknown
}

/// An outcome to record.
public enum LedgerOutcome: Sendable, Equatable {
    /// The operation's result, as the small JSON document the gateway replays (never card data).
    case succeeded(Data)
    case failed(RecordedFailure)
    case unknown
}

/// How ``OperationLedger/reconcile(key:to:)`` settles a record.
public enum LedgerReconciliation: Sendable, Equatable {
    case succeeded(Data)
    case failed(RecordedFailure)
    /// Deletes the record: the operation did not happen and may be sent again.
    case forget
}

/// A provider's refusal, kept so that a repeat with the same key gets the same answer.
public struct RecordedFailure: Sendable, Codable, Equatable {
    public var code: CardGatewayError.Code
    /// The error's message, already scrubbed as every error message is.
    public var message: String
    public var providerCode: String?
    public var httpStatus: Int?
    public var requestID: String?

    public init(
        code: CardGatewayError.Code, message: String, providerCode: String? = nil, httpStatus: Int? = nil,
        requestID: String? = nil
    ) {
        self.code = code
        self.message = SafeText.scrub(message, maxLength: 2000)
        self.providerCode = providerCode
        self.httpStatus = httpStatus
        self.requestID = requestID
    }

    public init(_ error: CardGatewayError) {
        self.init(
            code: error.code, message: error.message, providerCode: error.providerCode, httpStatus: error.httpStatus,
            requestID: error.requestID)
    }
}

/// One operation as the ledger holds it.
public struct LedgerRecord: Sendable, Equatable {
    public var key: String
    public var operation: String
    public var instance: String
    public var fingerprint: String
    public var state: LedgerState
    /// The result to replay, for `succeeded`.
    public var outcome: Data?
    /// The refusal to replay, for `failed`.
    public var failure: RecordedFailure?
    public var created: Date
    public var updated: Date
    public var expires: Date

    public init(
        key: String, operation: String, instance: String, fingerprint: String, state: LedgerState, outcome: Data? = nil,
        failure: RecordedFailure? = nil, created: Date, updated: Date, expires: Date
    ) {
        self.key = key
        self.operation = operation
        self.instance = instance
        self.fingerprint = fingerprint
        self.state = state
        self.outcome = outcome
        self.failure = failure
        self.created = created
        self.updated = updated
        self.expires = expires
    }
}

/// How long a claim holds, and how long the gateway waits for another instance's attempt. (How long records are
/// kept is the ledger's own setting: ``LedgerPolicy/defaultRetention`` unless configured.)
public struct LedgerPolicy: Sendable, Equatable {
    /// 24 hours, as Stripe keeps idempotency keys.
    public static let defaultRetention: Duration = .seconds(24 * 3600)

    /// How long a claim holds before an unfinished attempt counts as `unknown`. Nil (the default) computes it per
    /// instance: its timeout × its attempts + 10 s, and at least 60 s.
    public var lease: Duration?
    /// How long a repeat waits for an attempt in flight elsewhere before giving up (retryably), unless the
    /// caller's deadline is sooner.
    public var maximumWait: Duration

    public init(lease: Duration? = nil, maximumWait: Duration = .seconds(30)) {
        self.lease = lease
        self.maximumWait = maximumWait
    }

    public static let `default` = LedgerPolicy()
}

/// Keeps the ledger in memory: at-most-once within one process. Several instances of a service need a shared one
/// (`PostgresOperationLedger` in `CardGatewayPostgres`).
public final class InMemoryOperationLedger: OperationLedger {
    private struct Entry {
        var record: LedgerRecord
        var owner: UUID
        var leaseUntil: Date
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let retention: Duration
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - retention: how long records are kept after their claim's lease ends; 24 hours by default.
    ///   - now: the wall clock leases and expiry are measured on (the system's by default).
    public init(retention: Duration = LedgerPolicy.defaultRetention, now: @escaping @Sendable () -> Date = { Date() }) {
        self.retention = retention
        self.now = now
    }

    /// A ledger whose leases and expiry run on `clock` (its ``GatewayClock/date``): a test's manual clock makes a
    /// lease run out when the test advances it. ``CardGateway``'s default ledger is made so, on the gateway's clock.
    public convenience init(retention: Duration = LedgerPolicy.defaultRetention, clock: GatewayClock) {
        self.init(retention: retention, now: { clock.date })
    }

    public func claim(_ intent: LedgerIntent) async throws -> LedgerClaim {
        let now = now()
        return entries.withLock { entries in
            if var entry = entries[intent.key], entry.record.expires > now {
                if entry.record.state == .pending && entry.leaseUntil <= now {
                    entry.record.state = .unknown
                    entry.record.updated = now
                    entries[intent.key] = entry
                }
                return .existing(entry.record)
            }
            let owner = UUID()
            let record = LedgerRecord(
                key: intent.key, operation: intent.operation.rawValue, instance: intent.instance,
                fingerprint: intent.fingerprint,
                state: .pending, created: now, updated: now,
                expires: now.addingTimeInterval((intent.lease + retention).timeInterval)
            )
            entries[intent.key] = Entry(
                record: record, owner: owner, leaseUntil: now.addingTimeInterval(intent.lease.timeInterval))
            return .claimed(owner: owner)
        }
    }

    public func record(_ outcome: LedgerOutcome, key: String, owner: UUID) async throws {
        let now = now()
        entries.withLock { entries in
            guard var entry = entries[key], entry.owner == owner,
                entry.record.state == .pending || entry.record.state == .unknown
            else { return }
            entry.record.apply(outcome)
            entry.record.updated = now
            entries[key] = entry
        }
    }

    public func release(key: String, owner: UUID) async throws {
        entries.withLock { entries in
            guard let entry = entries[key], entry.owner == owner, entry.record.state == .pending else { return }
            entries[key] = nil
        }
    }

    public func record(key: String) async throws -> LedgerRecord? {
        let now = now()
        return entries.withLock { entries in
            guard let entry = entries[key], entry.record.expires > now else { return nil }
            return entry.record
        }
    }

    public func reconcile(key: String, to resolution: LedgerReconciliation) async throws {
        let now = now()
        entries.withLock { entries in
            guard var entry = entries[key] else { return }
            switch resolution {
            case .forget: entries[key] = nil
            case .succeeded(let data):
                entry.record.apply(.succeeded(data))
                entry.record.updated = now
                entries[key] = entry
            case .failed(let failure):
                entry.record.apply(.failed(failure))
                entry.record.updated = now
                entries[key] = entry
            }
        }
    }

    @discardableResult
    public func purgeExpired() async throws -> Int {
        let now = now()
        return entries.withLock { entries in
            let expired = entries.filter { $0.value.record.expires <= now }.map(\.key)
            for key in expired { entries[key] = nil }
            return expired.count
        }
    }
}

extension LedgerRecord {
    /// Sets state, outcome and failure from `outcome`.
    public mutating func apply(_ outcome: LedgerOutcome) {
        switch outcome {
        case .succeeded(let data):
            state = .succeeded
            self.outcome = data
            failure = nil
        case .failed(let recorded):
            state = .failed
            self.outcome = nil
            failure = recorded
        case .unknown:
            state = .unknown
            self.outcome = nil
            failure = nil
        }
    }
}
