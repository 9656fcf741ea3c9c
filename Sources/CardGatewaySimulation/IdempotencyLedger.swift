import Foundation
import Synchronization

/// Idempotency-key replay, for simulators whose provider supports idempotent retries.
///
/// A route handler that honours an idempotency key calls ``begin(key:scope:fingerprint:)`` before doing any work:
///
/// ```swift
/// switch ledger.begin(key: key, scope: "POST /v1/payment_intents", fingerprint: context.requestBody) {
/// case .proceed:
///     let response = ... // do the work
///     ledger.record(key: key, scope: "POST /v1/payment_intents", fingerprint: context.requestBody, response: response)
///     return response
/// case .replay(let first): return first.withHeader("Idempotent-Replayed", "true")
/// case .conflict: return ... // provider's "key reused with different parameters" error
/// case .inProgress: return ... // provider's "request with this key still in progress" error (Stripe: 409)
/// case .expired: return ... // provider's "key expired" error (Bridge: 422 after 24 h)
/// }
/// ```
/// If the handler rejects the request without a result worth replaying, it calls ``abandon(key:scope:)`` so the key
/// can be used again. Keys are tracked per `(scope, key)`; the expiry window is measured from the first
/// ``begin(key:scope:fingerprint:)`` on the ``SimulationClock``. Safe to use from any task.
public final class IdempotencyLedger: Sendable {
    /// What a handler must do with a request carrying an idempotency key.
    public enum Outcome: Sendable, Equatable {
        /// First use of the key: process the request, then ``IdempotencyLedger/record(key:scope:fingerprint:response:)``.
        case proceed
        /// The key was used before with the same request: answer with the stored first response.
        case replay(SimulatedResponse)
        /// The key was used before with a different request (different fingerprint).
        case conflict
        /// The key is older than the ledger's window.
        case expired
        /// A request with this key is still being processed.
        case inProgress
    }

    private struct LedgerKey: Hashable {
        var scope: String
        var key: String
    }

    private struct Entry {
        var fingerprint: Data
        var firstUsed: Date
        var response: SimulatedResponse?
    }

    /// Seconds after first use after which a reused key is ``Outcome/expired``; `nil` means keys never expire.
    public let window: TimeInterval?
    /// The clock expiry is measured on.
    public let clock: SimulationClock

    private let entries = Mutex<[LedgerKey: Entry]>([:])

    /// Creates an empty ledger.
    /// - Parameters:
    ///   - window: Seconds after first use after which a reused key is `expired` (Bridge: 24 h); `nil` (default) = never.
    ///   - clock: The clock expiry is measured on.
    public init(window: TimeInterval? = nil, clock: SimulationClock) {
        self.window = window
        self.clock = clock
    }

    /// Checks a key before processing a request.
    ///
    /// - First use: marks the key in flight and returns ``Outcome/proceed``.
    /// - Reused after the window: ``Outcome/expired`` (checked first).
    /// - Still in flight: ``Outcome/inProgress``.
    /// - Different fingerprint: ``Outcome/conflict``.
    /// - Same fingerprint after ``record(key:scope:fingerprint:response:)``: ``Outcome/replay(_:)`` with the first response.
    /// - Parameters:
    ///   - key: The idempotency key from the request.
    ///   - scope: What the key is unique within, e.g. `"POST /v1/ephemeral_keys"` or an account id.
    ///   - fingerprint: Bytes identifying the request (method + path + body, or canonicalised parameters).
    public func begin(key: String, scope: String, fingerprint: Data) -> Outcome {
        let outcome = self.check(key: key, scope: scope, fingerprint: fingerprint)
        // The journal entry of this request says it was a replay, not a second execution.
        if case .replay = outcome { JournalEntry.Marks.current?.markReplayed() }
        return outcome
    }

    private func check(key: String, scope: String, fingerprint: Data) -> Outcome {
        let now = self.clock.now()
        let ledgerKey = LedgerKey(scope: scope, key: key)
        return self.entries.withLock { entries in
            guard let entry = entries[ledgerKey] else {
                entries[ledgerKey] = Entry(fingerprint: fingerprint, firstUsed: now, response: nil)
                return .proceed
            }
            if let window = self.window, now.timeIntervalSince(entry.firstUsed) >= window {
                return .expired
            }
            guard let response = entry.response else {
                return .inProgress
            }
            guard entry.fingerprint == fingerprint else {
                return .conflict
            }
            return .replay(response)
        }
    }

    /// Stores the response of a processed request so later uses of the key replay it. Works also without a preceding
    /// ``begin(key:scope:fingerprint:)`` (then the window starts now).
    /// - Parameters:
    ///   - key: The idempotency key.
    ///   - scope: The scope passed to ``begin(key:scope:fingerprint:)``.
    ///   - fingerprint: The request's fingerprint.
    ///   - response: The response sent for the first request.
    public func record(key: String, scope: String, fingerprint: Data, response: SimulatedResponse) {
        let now = self.clock.now()
        let ledgerKey = LedgerKey(scope: scope, key: key)
        self.entries.withLock { entries in
            let firstUsed = entries[ledgerKey]?.firstUsed ?? now
            entries[ledgerKey] = Entry(fingerprint: fingerprint, firstUsed: firstUsed, response: response)
        }
    }

    /// Forgets a key (typically an in-flight one whose request was rejected before processing), so it can be used again.
    /// - Parameters:
    ///   - key: The idempotency key.
    ///   - scope: The scope passed to ``begin(key:scope:fingerprint:)``.
    public func abandon(key: String, scope: String) {
        _ = self.entries.withLock { $0.removeValue(forKey: LedgerKey(scope: scope, key: key)) }
    }

    /// Forgets every key (call it from ``ProviderSimulator/reset()``).
    public func reset() {
        self.entries.withLock { $0.removeAll() }
    }

    /// Number of keys tracked (in flight or recorded).
    public var count: Int {
        self.entries.withLock { $0.count }
    }
}
