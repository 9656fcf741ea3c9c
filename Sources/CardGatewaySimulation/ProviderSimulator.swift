import Foundation
import Hummingbird

/// What every provider simulator implements.
///
/// A simulator speaks one payment provider's wire format. The kit (``withSimulator(_:host:port:logger:_:)``,
/// ``withSimulators(_:host:logger:_:)``, ``SimulatorService``) runs it on its own HTTP server and installs, in front of
/// the simulator's routes, the control path (`/__simulator/...`), body collection, fault injection and the request
/// journal. Simulators must not depend on the gateway's adapter code.
///
/// Route handlers may throw Hummingbird's `HTTPError`; the kit turns it into ``faultResponse(status:message:)`` with the
/// error's status and message, so every error the simulator emits has the provider's own shape. Any other error thrown
/// by a handler becomes a 500 in that shape.
public protocol ProviderSimulator: Sendable {
    /// Provider kind name: `"paysafe"`, `"adyen"`, `"stripe"`, `"bridge"` or `"trustpayments"`.
    var kindName: String { get }

    /// Path prefix of the provider's documented base URL: `""` for Stripe, `"/bcl/v2"` for Adyen, `"/v0"` for Bridge.
    ///
    /// ``SimulatorHandle/baseURL`` is `http://<host>:<port>` followed by this prefix. It must be empty or start with `/`
    /// and must not end with `/`.
    var basePath: String { get }

    /// Registers the provider's routes on `router`, using full paths that include ``basePath``.
    ///
    /// Called once per server start, after the kit has installed its middleware.
    /// - Parameter router: The router of the simulator's server.
    func registerRoutes(on router: Router<SimulatorContext>)

    /// The provider's own error response for an injected fault, an unknown route (status 404, message
    /// `"no such route (METHOD: /path)"`) or an `HTTPError` thrown by a route handler.
    /// - Parameters:
    ///   - status: HTTP status code of the error.
    ///   - message: Human-readable description to place in the provider's error body.
    func faultResponse(status: Int, message: String) -> SimulatedResponse

    /// Extra request header names (lower-case) whose values the journal must mask, beyond
    /// ``RequestJournal/defaultSensitiveHeaderNames``. Default: none.
    var sensitiveHeaderNames: Set<String> { get }

    /// Extra request body field names whose values the journal must mask, beyond
    /// ``RequestJournal/defaultSensitiveBodyFields`` (card numbers, security codes, PINs, certificate chains); they
    /// apply to the query too. Default: none.
    var sensitiveBodyFields: Set<String> { get }

    /// The settable clock the simulator uses for expiry logic, if any. When present, `POST /__simulator/clock`
    /// advances or sets it and journal timestamps are taken from it. Default: `nil`.
    var clock: SimulationClock? { get }

    /// Returns all simulator state to the documented seed. Called by `POST /__simulator/reset`. Default: does nothing.
    func reset() async

    /// Plays the card network for one real-time authorization (`POST /__simulator/authorizations`): builds the
    /// provider's message for `order`, signs or authenticates it as the provider does, sends it with
    /// ``SimulatedNetwork/send(_:headers:to:deadline:client:)`` under the provider's deadline, records the outcome as
    /// the provider records it, and answers that record in the provider's shape. Default: nil, for a provider with no
    /// real-time authorization (the control path answers 404).
    func authorize(_ order: AuthorizationOrder) async -> SimulatedResponse?
}

extension ProviderSimulator {
    /// No extra sensitive headers.
    public var sensitiveHeaderNames: Set<String> { [] }

    /// No extra sensitive body fields.
    public var sensitiveBodyFields: Set<String> { [] }

    /// No settable clock.
    public var clock: SimulationClock? { nil }

    /// Stateless simulators have nothing to reset.
    public func reset() async {}

    /// No real-time authorization.
    public func authorize(_ order: AuthorizationOrder) async -> SimulatedResponse? { nil }
}
