import Foundation
import HTTPTypes

/// Puts one idempotency key on a request that asks for one, and reports it on the response.
struct IdempotencyStep: ProviderMiddleware {
    let maxLength: Int

    func intercept(
        _ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext
    ) async throws -> ProviderResponse {
        guard case .idempotent(let header, let scope) = request.repeatability else {
            return try await next(request, context)
        }
        var request = request
        let key =
            request.headers[header]
            ?? IdempotencyKeys.derive(
                operationKey: context.operation.idempotencyKey, scope: scope, maxLength: maxLength)
        request.headers[header] = key
        var response = try await next(request, context)
        response.idempotencyKey = key
        return response
    }
}
