import Foundation
import Logging

/// Repeats what is safe to repeat, honours `Retry-After` and the caller's deadline, and turns a failure
/// without a response into ``CardGatewayError``.
struct RetryStep: ProviderMiddleware {
    let rules: RetryRules

    func intercept(
        _ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext
    ) async throws -> ProviderResponse {
        let logger = context.logger
        let retry = rules.retry
        var attempt = 0
        var mayHaveReached = false
        while true {
            attempt += 1
            var attemptContext = context
            attemptContext.attempt = attempt
            attemptContext.attemptTimeout = try rules.timeoutForAttempt(
                context: context.operation, mayHaveReached: mayHaveReached)
            do {
                var response = try await next(request, attemptContext)
                response.attempts = attempt
                guard let delay = rules.retryDelay(after: response, request: request, attempt: attempt) else {
                    return response
                }
                guard try await rules.wait(delay, context: context.operation) else { return response }
                logger.notice(
                    "retrying provider request",
                    metadata: [
                        "http.status": .stringConvertible(response.status), "attempt": .stringConvertible(attempt),
                        "delay.ms": .stringConvertible(delay.milliseconds),
                    ])
            } catch let error as TransportError {
                // A caller that gave up is told so, not shown a transport failure.
                if Task.isCancelled { throw CancellationError() }
                mayHaveReached = mayHaveReached || error.mayHaveReachedProvider
                let repeatable = request.repeatability != .never || !error.mayHaveReachedProvider
                if attempt < retry.maxAttempts && repeatable && error.kind != .invalidRequest
                    && error.kind != .responseTooLarge
                {
                    let delay = rules.backoff(afterAttempt: attempt)
                    if try await rules.wait(delay, context: context.operation) {
                        logger.notice(
                            "retrying provider request",
                            metadata: [
                                "error.kind": .string(error.kind.rawValue), "attempt": .stringConvertible(attempt),
                            ])
                        continue
                    }
                }
                throw rules.gatewayError(
                    for: error, request: request, mayHaveReached: mayHaveReached, attempts: attempt)
            } catch var error as CardGatewayError {
                // A middleware's own verdict (an open breaker, a full bulkhead): passed on, with what earlier
                // attempts may have done.
                error.mayHaveReachedProvider = error.mayHaveReachedProvider || mayHaveReached
                if mayHaveReached && request.repeatability == .never { error.isRetryable = false }
                throw error
            }
        }
    }
}
