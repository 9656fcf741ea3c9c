import CardGateway
import Foundation
import Logging

extension CardGateway {
    /// A gateway whose requests travel on ``AsyncHTTPClientTransport`` over its shared client (which never
    /// follows redirects): the one-line default for programs that do not wire a transport of their own.
    ///
    /// ```swift
    /// import CardGateway
    /// import CardGatewayAsyncHTTPClient
    ///
    /// let gateway = try CardGateway(configuration: configuration, registry: registry)
    /// ```
    public init(
        configuration: GatewayConfiguration, registry: ProviderRegistry, logger: Logger = OperationContext.noopLogger,
        credentialStore: any CredentialReferenceStore = InMemoryCredentialReferenceStore(),
        now: (@Sendable () -> Date)? = nil,
        clock: GatewayClock = .system,
        middlewares: @Sendable (ProviderInstanceConfiguration) -> InstanceMiddlewares = { _ in .none },
        observability: GatewayObservability = .bootstrapped
    ) throws {
        try self.init(
            configuration: configuration, registry: registry, transport: AsyncHTTPClientTransport(), logger: logger,
            credentialStore: credentialStore, now: now, clock: clock, middlewares: middlewares,
            observability: observability
        )
    }
}
