import Foundation

/// `Duration` in the units the package's callers need: `Date` arithmetic, log lines, metrics, SQL intervals and
/// timeouts. The one copy for the core, the simulation kit, the stores and the examples (package access: not API).
package extension Duration {
    /// Seconds as a `TimeInterval`.
    var timeInterval: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// Whole milliseconds, truncated toward zero.
    var milliseconds: Int64 { components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000 }

    /// Whole microseconds, truncated toward zero.
    var microseconds: Int64 { components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000 }

    /// Whole nanoseconds, truncated toward zero.
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}
