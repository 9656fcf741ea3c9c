import CardGateway
import Foundation

/// One OAuth access token.
struct PaysafeAccessToken: Sendable {
    var value: Secret
    /// When the adapter stops using it (Paysafe's expiry less the refresh margin).
    var refreshAt: Date
}

/// Keeps the OAuth token and makes sure concurrent callers share one token request.
///
/// A caller gets the cached token while it is fresh; otherwise the first caller starts one token request and
/// every caller arriving meanwhile awaits that same request. After a 401 that is not an SCA challenge, a caller
/// asks for a replacement of the token it used: if another caller already replaced it, the new one is
/// returned without a second request.
actor PaysafeTokenCache {
    /// Issues a token within the context of the caller that asked first (its deadline, logger and request id).
    typealias Fetch = @Sendable (OperationContext) async throws -> PaysafeAccessToken

    private let fetch: Fetch
    private let now: @Sendable () -> Date
    private var current: PaysafeAccessToken?
    private var inFlight: Task<PaysafeAccessToken, any Error>?

    init(now: @escaping @Sendable () -> Date, fetch: @escaping Fetch) {
        self.now = now
        self.fetch = fetch
    }

    /// A fresh token, from the cache or from one shared token request.
    func token(context: OperationContext = OperationContext()) async throws -> Secret {
        if let current, current.refreshAt > now() { return current.value }
        return try await refreshed(context).value
    }

    /// A token other than `rejected` (which Paysafe just refused with a plain 401).
    func replacing(_ rejected: Secret, context: OperationContext = OperationContext()) async throws -> Secret {
        if let current, current.value != rejected, current.refreshAt > now() { return current.value }
        if current?.value == rejected { current = nil }
        return try await refreshed(context).value
    }

    /// Drops the cached token (for tests and credential rotation).
    func invalidate() {
        current = nil
    }

    private func refreshed(_ context: OperationContext) async throws -> PaysafeAccessToken {
        if let inFlight { return try await inFlight.value }
        let fetch = self.fetch
        // Only what bounds and labels the request is passed on; the caller's SCA and idempotency key are not.
        let tokenContext = OperationContext(
            logger: context.logger, deadline: context.deadline, requestID: context.requestID)
        let task = Task { try await fetch(tokenContext) }
        inFlight = task
        do {
            let token = try await task.value
            current = token
            inFlight = nil
            return token
        } catch {
            inFlight = nil
            throw error
        }
    }
}
