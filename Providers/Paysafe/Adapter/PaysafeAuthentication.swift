import CardGateway
import Foundation
import HTTPTypes

/// Paysafe's OAuth on every business call: the bearer token from the shared ``PaysafeTokenCache``; after a 401
/// that is not an SCA challenge, the token is replaced once and the call repeated. An SCA 401 is passed on
/// untouched: it asks the cardholder to authenticate, not for a new token.
struct PaysafeAuthentication: ProviderMiddleware {
    let tokens: PaysafeTokenCache

    func intercept(
        _ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext
    ) async throws -> ProviderResponse {
        var token = try await tokens.token(context: context.operation)
        let response = try await next(Self.bearer(request, token), context)
        guard response.status == 401, !Self.isSCAChallenge(response) else { return response }
        context.logger.debug("Paysafe refused the access token; replacing it once")
        token = try await tokens.replacing(token, context: context.operation)
        return try await next(Self.bearer(request, token), context)
    }

    private static func bearer(_ request: ProviderRequest, _ token: Secret) -> ProviderRequest {
        var request = request
        request.headers[.authorization] = "Bearer \(token.revealedValue)"
        return request
    }

    /// The challenge comes in `WWW-Authenticate` (user-facing API) or as the event object in the body (business
    /// API). A challenge that cannot be read is still SCA: the adapter reports it rather than a token problem.
    private static func isSCAChallenge(_ response: ProviderResponse) -> Bool {
        do {
            if try PaysafeSCA.challenge(in: response) != nil { return true }
        } catch {
            return true
        }
        return PaysafeSCA.challenge(inBody: response.body) != nil
    }
}
