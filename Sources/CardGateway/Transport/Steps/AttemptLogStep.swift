import Foundation
import Logging

/// One debug line per attempt, once it ended: "provider attempt" with the method, the path (ids escaped, no
/// query), the attempt number, the status or the transport failure's kind, and the duration. Never a body or a
/// header value.
struct AttemptLogStep: ProviderMiddleware {
    func intercept(
        _ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext
    ) async throws -> ProviderResponse {
        let logger = context.logger
        // The line is debug: below that level nothing is built (the check `logger.debug` makes anyway, made first).
        guard logger.logLevel <= .debug else { return try await next(request, context) }
        let started = ContinuousClock.now
        var metadata: Logger.Metadata = [
            "http.request.method": .string(request.method.rawValue), "url.path": .string(request.path),
            "attempt": .stringConvertible(context.attempt),
        ]
        do {
            let response = try await next(request, context)
            metadata["http.response.status_code"] = .stringConvertible(response.status)
            metadata["duration.ms"] = .stringConvertible((ContinuousClock.now - started).milliseconds)
            logger.debug("provider attempt", metadata: metadata)
            return response
        } catch let error as TransportError {
            metadata["error.type"] = .string(error.kind.rawValue)
            metadata["duration.ms"] = .stringConvertible((ContinuousClock.now - started).milliseconds)
            logger.debug("provider attempt", metadata: metadata)
            throw error
        }
    }
}
