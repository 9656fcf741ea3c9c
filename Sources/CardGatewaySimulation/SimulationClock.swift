import Foundation
import Synchronization

/// A settable clock for simulator expiry logic (token lifetimes, idempotency windows, ...).
///
/// A clock is either *running* (the default: system time plus an adjustable offset) or *fixed* (it stands still at a
/// given instant until it is advanced or set). Tests that need reproducible times create it with `fixed:`; example
/// programs use the running default and move it forward with ``advance(by:)`` or `POST /__simulator/clock`.
/// All methods are safe to call from any task.
public final class SimulationClock: Sendable {
    private enum Mode {
        /// System time plus `offset` seconds.
        case running(offset: TimeInterval)
        /// Always `date`.
        case fixed(Date)
    }

    private let mode: Mutex<Mode>

    /// Creates a clock.
    /// - Parameter fixed: If given, the clock stands still at this instant until advanced or set; if `nil` (default)
    ///   it follows system time.
    public init(fixed: Date? = nil) {
        if let fixed {
            self.mode = Mutex(.fixed(fixed))
        } else {
            self.mode = Mutex(.running(offset: 0))
        }
    }

    /// The clock's current time.
    public func now() -> Date {
        self.mode.withLock { mode in
            switch mode {
            case .running(let offset): Date().addingTimeInterval(offset)
            case .fixed(let date): date
            }
        }
    }

    /// Whether the clock stands still (created with `fixed:`).
    public var isFixed: Bool {
        self.mode.withLock { mode in
            if case .fixed = mode { return true }
            return false
        }
    }

    /// Moves the clock forward (or backward, for a negative value) by `seconds`.
    /// - Parameter seconds: Seconds to add.
    public func advance(by seconds: TimeInterval) {
        self.mode.withLock { mode in
            switch mode {
            case .running(let offset): mode = .running(offset: offset + seconds)
            case .fixed(let date): mode = .fixed(date.addingTimeInterval(seconds))
            }
        }
    }

    /// Sets the clock to `date`. A fixed clock stays at `date`; a running clock reads `date` now and keeps running
    /// from there.
    /// - Parameter date: The new current time.
    public func set(_ date: Date) {
        self.mode.withLock { mode in
            switch mode {
            case .running: mode = .running(offset: date.timeIntervalSinceNow)
            case .fixed: mode = .fixed(date)
            }
        }
    }
}
