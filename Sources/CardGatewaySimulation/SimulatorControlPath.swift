/// The control path every simulator serves next to its provider routes. No provider uses it; requests to it are never
/// journaled and never faulted. Errors are answered as `{"error":"<message>"}` with status 400 (bad body),
/// 404 (unknown control path, or no clock), 405 (wrong method, with an `Allow` header) or 413 (body over 1 MiB).
///
/// | Request | Body | Answer |
/// |---|---|---|
/// | `POST /__simulator/faults` | a ``FaultRule`` object, or an array of them | 204 |
/// | `GET /__simulator/faults` | – | 200, array of pending ``FaultRule``s with remaining counts |
/// | `DELETE /__simulator/faults` | – | 204, all pending faults removed |
/// | `GET /__simulator/journal[?pathContains=/v1/x]` | – | 200, array of ``JournalEntry``, oldest first |
/// | `DELETE /__simulator/journal` | – | 204 |
/// | `POST /__simulator/reset` | – | 204, after ``ProviderSimulator/reset()``, clearing faults and journal |
/// | `POST /__simulator/clock` | `{"advanceSeconds": 3600}` or `{"now": "2030-01-01T00:00:00Z"}` | 204 (404 if the simulator has no clock) |
/// | `GET /__simulator/clock` | – | 200, `{"now":"2030-01-01T00:00:00.000Z","epochSeconds":1893456000}` |
/// | `GET /__simulator/info` | – | 200, `{"basePath":"/v0","hasClock":true,"journalCount":3,"kind":"bridge","pendingFaults":0}` |
/// | `POST /__simulator/authorizations` | an ``AuthorizationOrder`` | what the provider records of the authorization it sent to the order's URL (``ProviderSimulator/authorize(_:)``); 404 for a simulator without real-time authorization |
///
/// Fault rule JSON: `{"count":1,"pathPrefix":"/v1/x","method":"POST","action":{"type":"status","status":503,"retryAfterSeconds":2}}`
/// (see ``FaultRule`` and ``FaultAction`` for every field). Journal entry JSON: see ``JournalEntry``.
public enum SimulatorControlPath: Sendable {
    /// Prefix of every control route: `/__simulator`.
    public static let prefix = "/__simulator"
    /// `/__simulator/faults`
    public static let faults = prefix + "/faults"
    /// `/__simulator/journal`
    public static let journal = prefix + "/journal"
    /// `/__simulator/reset`
    public static let reset = prefix + "/reset"
    /// `/__simulator/clock`
    public static let clock = prefix + "/clock"
    /// `/__simulator/info`
    public static let info = prefix + "/info"
    /// `/__simulator/authorizations`
    public static let authorizations = prefix + "/authorizations"

    /// Whether `path` (without query) belongs to the control path.
    /// - Parameter path: A request path.
    public static func contains(_ path: String) -> Bool {
        path == prefix || path.hasPrefix(prefix + "/")
    }
}
