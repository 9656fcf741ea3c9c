import Foundation
import HTTPTypes

/// The end of the chain: the request as the transport takes it (the base URL's scheme, authority and path, the
/// query, the default headers), sent with the attempt's timeout, and the transport's answer as a
/// ``ProviderResponse``. The conversions are ``TransportConversion``'s pure functions; this step only sends.
struct TransportStep: Sendable {
    let core: ProviderHTTPClient.Core

    func send(_ request: ProviderRequest, context: ProviderCallContext) async throws -> ProviderResponse {
        let httpRequest = try core.makeHTTPRequest(request)
        let result = try await core.transport.send(httpRequest, body: request.body, timeout: context.attemptTimeout)
        return TransportConversion.providerResponse(result)
    }
}
