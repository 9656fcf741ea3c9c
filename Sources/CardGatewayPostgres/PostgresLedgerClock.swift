import CardGateway
import Synchronization

/// The clock of the operation ledger's leases and record expiry: the database's `now()`, so that instances whose
/// clocks disagree still agree on when a lease ends or a record expires.
///
/// Tests move it forward with ``advance(by:)`` instead of sleeping past a lease or a retention: the ledger's statements
/// then read `now()` plus the offset. Every ``PostgresStores`` built from the same ``PostgresStoreConfiguration``
/// value shares its clock, so two "instances" of a test see the same time. A service never advances it.
public final class PostgresLedgerClock: Sendable {
    private let offset = Mutex<Duration>(.zero)
    private let following: (@Sendable () -> Duration)?

    /// The database's `now()`, unshifted (what a service uses).
    public init() {
        following = nil
    }

    /// The database's `now()` shifted by how far `clock` has moved since this call: give it a test's manual clock
    /// (the one its gateway runs on) and the ledger's leases run out when the test advances that clock.
    public init(following clock: GatewayClock) {
        let anchor = clock.now
        following = { clock.now - anchor }
    }

    /// Moves the ledger's time forward (or back, with a negative duration) by `duration`.
    public func advance(by duration: Duration) {
        offset.withLock { $0 += duration }
    }

    /// How far the ledger's time is from the database's `now()`: zero unless advanced.
    public var advanced: Duration { offset.withLock { $0 } + (following?() ?? .zero) }

    /// The SQL for "now": `now()`, or `now()` plus the offset as an interval literal (a number this type formats, never
    /// caller text).
    var sql: String {
        let offset = advanced
        guard offset != .zero else { return "now()" }
        return "(now() + interval '\(offset.microseconds) microseconds')"
    }
}
