import Foundation
import HTTPTypes

/// The end of the chain: the request as the transport takes it (the base URL's scheme, authority and path, the
/// query, the default headers), sent with the attempt's timeout, and the transport's answer as a
/// ``ProviderResponse``.
struct TransportStep: Sendable {
    let core: ProviderHTTPClient.Core

    func send(_ request: ProviderRequest, context: ProviderCallContext) async throws -> ProviderResponse {
        let httpRequest = try core.makeHTTPRequest(request, headers: request.headers)
        let result = try await core.transport.send(httpRequest, body: request.body, timeout: context.attemptTimeout)
        return ProviderResponse(
            status: result.response.status.code, headers: result.response.headerFields, body: result.body)
    }
}
