import CoreMetrics
import Foundation

extension GatewayObservability {
    /// The bulkhead's metrics for one instance: the slots in use (``Names/inFlight``), the calls waiting
    /// (``Names/bulkheadWaiting``) and each attempt's wait for a slot (``Names/bulkheadWait``, by outcome). The
    /// metric objects are made once here and kept, so a call records without looking anything up.
    package static func bulkheadObserver(
        dimensions: [(String, String)], factory: any MetricsFactory
    ) -> Bulkhead.Observer {
        let inFlight = Gauge(label: Names.inFlight, dimensions: dimensions, factory: factory)
        let waiting = Gauge(label: Names.bulkheadWaiting, dimensions: dimensions, factory: factory)
        func timer(_ outcome: Bulkhead.WaitOutcome) -> CoreMetrics.Timer {
            CoreMetrics.Timer(
                label: Names.bulkheadWait, dimensions: dimensions + [(Dimensions.outcome, outcome.rawValue)],
                factory: factory)
        }
        let acquired = timer(.acquired), expired = timer(.expired), full = timer(.full), cancelled = timer(.cancelled)
        inFlight.record(0)
        waiting.record(0)
        return Bulkhead.Observer(
            inFlightChanged: { inFlight.record($0) },
            waitingChanged: { waiting.record($0) },
            waited: { duration, outcome in
                let nanoseconds = duration.nanoseconds
                switch outcome {
                case .acquired: acquired.recordNanoseconds(nanoseconds)
                case .expired: expired.recordNanoseconds(nanoseconds)
                case .full: full.recordNanoseconds(nanoseconds)
                case .cancelled: cancelled.recordNanoseconds(nanoseconds)
                }
            }
        )
    }
}
