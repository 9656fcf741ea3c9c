import Foundation

/// What the retry step decides with: the client's fixed settings and the provider's retry advice.
struct RetryRules: Sendable {
    let core: ProviderHTTPClient.Core
    let retryAdvice: @Sendable (ProviderResponse) -> Bool?

    var retry: RetryPolicy { core.retry }

    /// The delay before repeating after `response`, or nil when it must not be repeated.
    func retryDelay(after response: ProviderResponse, request: ProviderRequest, attempt: Int) -> Duration? {
        guard attempt < retry.maxAttempts, request.repeatability != .never else { return nil }
        let advice = retryAdvice(response)
        if advice == false { return nil }
        guard advice == true || retry.retryableStatuses.contains(response.status) else { return nil }
        if let retryAfter = response.retryAfter {
            return retryAfter <= retry.maxRetryAfter ? retryAfter : nil
        }
        return retry.backoff(afterAttempt: attempt, random: core.clock.random())
    }

    /// The back-off after a failure without a response.
    func backoff(afterAttempt attempt: Int) -> Duration {
        retry.backoff(afterAttempt: attempt, random: core.clock.random())
    }

    /// Sleeps for `delay` unless that would pass the caller's deadline; returns whether it slept.
    func wait(_ delay: Duration, context: OperationContext) async throws -> Bool {
        let clock = core.clock
        let wakeUp = clock.now + delay
        if let deadline = context.deadline, wakeUp >= deadline { return false }
        try await clock.sleep(until: wakeUp)
        return true
    }

    func timeoutForAttempt(context: OperationContext, mayHaveReached: Bool) throws -> Duration {
        guard let deadline = context.deadline else { return core.timeout }
        let remaining = deadline - core.clock.now
        guard remaining > .zero else {
            throw CardGatewayError(
                .timeout, "the caller's deadline passed before the provider answered", provider: core.instance,
                providerKind: core.kind,
                mayHaveReachedProvider: mayHaveReached
            )
        }
        return min(core.timeout, remaining)
    }

    /// The error for a request that got no response. It is retryable only when the caller can safely
    /// send it again: never for a write without an idempotency key that may have reached the provider,
    /// whose outcome must be checked first.
    func gatewayError(
        for error: TransportError, request: ProviderRequest, mayHaveReached: Bool, attempts: Int
    ) -> CardGatewayError {
        // A body over the transport's limit is an answer the gateway refuses to read, not a broken connection.
        let code: CardGatewayError.Code =
            error.kind == .timeout ? .timeout : error.kind == .responseTooLarge ? .invalidResponse : .transport
        let tries = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
        let ambiguous = request.repeatability == .never && mayHaveReached
        let message =
            ambiguous
            ? "\(error.message) (\(tries)); the request may have reached the provider, so check its outcome before repeating it"
            : "\(error.message) (\(tries))"
        return CardGatewayError(
            code, message, provider: core.instance, providerKind: core.kind,
            isRetryable: !ambiguous && error.kind != .invalidRequest && error.kind != .responseTooLarge,
            mayHaveReachedProvider: mayHaveReached
        )
    }
}
