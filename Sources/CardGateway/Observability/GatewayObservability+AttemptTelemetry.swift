extension GatewayObservability {
    /// The per-attempt middleware a ``CardGateway`` puts on every instance's `ProviderHTTPClient`: a client span
    /// per HTTP attempt (OpenTelemetry's HTTP client conventions, named after the adapter's operation, never the
    /// path) and the attempt metrics listed in docs/OBSERVABILITY.md.
    ///
    /// The gateway adds it for you. Use it when you build a `ProviderHTTPClient` without a gateway and still want
    /// its telemetry: the contract suite does, to record every attempt span of a run and scan them for secrets.
    ///
    /// ```swift
    /// let http = try ProviderHTTPClient(instance: "issuing", kind: .stripe, baseURL: url, transport: transport,
    ///                                   attemptMiddlewares: [GatewayObservability(tracer: tracer).attemptTelemetry()])
    /// ```
    /// - Parameter propagatingTraceContext: whether each attempt's trace context is injected into the request's
    ///   headers (an instance's `propagateTraceContext`; off by default, because providers do not need our trace ids).
    public func attemptTelemetry(propagatingTraceContext: Bool = false) -> any ProviderMiddleware {
        AttemptTelemetryMiddleware(observability: self, propagatesTraceContext: propagatingTraceContext)
    }
}
