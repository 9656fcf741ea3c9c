import Foundation

/// The one place an instance's request chain is composed, in the order ``ProviderMiddleware`` documents (as
/// soto-core's `MiddlewareStack` composes its middlewares). Each built-in step is in its own file under `Steps/`:
///
/// 1. ``IdempotencyStep``: one idempotency key per logical request, the same on every attempt;
/// 2. the adapter's authentication (``ProviderHTTPClient/authentication``);
/// 3. the request middlewares (``ProviderHTTPClient/requestMiddlewares``): once per logical request;
/// 4. ``RetryStep``: the caller's deadline and the instance's timeout per attempt, back-off, `Retry-After`, only
///    what is safe to repeat;
/// 5. the gateway's own attempt steps, when a gateway built the client (``GatewayAttemptSteps``): the circuit
///    breaker, the bulkhead, the attempt's span and metrics;
/// 6. the attempt middlewares (``ProviderHTTPClient/attemptMiddlewares``): once per attempt;
/// 7. ``AttemptLogStep``: one debug line per attempt;
/// 8. ``TransportStep``: the request converted for the transport, sent, and its answer converted back.
enum ProviderChain {
    static func compose(core: ProviderHTTPClient.Core, settings: ProviderHTTPClient.Settings) -> ProviderNext {
        var steps: [any ProviderMiddleware] = [IdempotencyStep(maxLength: settings.idempotencyKeyMaxLength)]
        if let authentication = settings.authentication { steps.append(authentication) }
        steps += settings.requestMiddlewares
        steps.append(RetryStep(rules: RetryRules(core: core, retryAdvice: settings.retryAdvice)))
        if let gatewaySteps = core.gatewaySteps { steps += gatewaySteps.middlewares }
        steps += settings.attemptMiddlewares
        steps.append(AttemptLogStep())
        let transport = TransportStep(core: core)
        return steps.chained { request, context in try await transport.send(request, context: context) }
    }
}

/// The per-attempt steps a ``CardGateway`` adds to every instance, made once per instance: a breaker that is open
/// refuses before the bulkhead is asked for a slot, and neither holds a slot for a call that will not be sent; the
/// telemetry then times and counts what is sent.
struct GatewayAttemptSteps: Sendable {
    let middlewares: [any ProviderMiddleware]

    init(breaker: CircuitBreaker, bulkhead: Bulkhead, observability: GatewayObservability, propagatesTraceContext: Bool)
    {
        middlewares = [
            CircuitBreakerMiddleware(breaker), BulkheadMiddleware(bulkhead),
            AttemptTelemetryMiddleware(observability: observability, propagatesTraceContext: propagatesTraceContext),
        ]
    }
}
