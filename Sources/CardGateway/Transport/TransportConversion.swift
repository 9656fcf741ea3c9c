import Foundation
import HTTPTypes

/// The conversions between the chain's values and the transport's, as pure functions (values in, a value out, no
/// I/O), so that what goes on the wire is tested without a socket (TransportConversionTests). The transport's own
/// conversions (to and from AsyncHTTPClient's types) are `AsyncHTTPClientTransport`'s `convertRequest` and
/// `convertResponse`, pure in the same way.
enum TransportConversion {
    /// `request` as the transport sends it: the path below `endpoint`'s base path, the query, the adapter's headers
    /// with `Accept: application/json` and `User-Agent: CardGateway/1.0` unless it set them. Header values are
    /// copied as they are (the transport needs the credentials); nothing is logged.
    ///
    /// Throws `invalidConfiguration` when the base URL has no scheme or host (`endpoint` is nil), and `invalidRequest`
    /// when the path has a dot segment. Neither message carries the path, the query or a header.
    static func httpRequest(
        _ request: ProviderRequest, endpoint: ProviderHTTPClient.Endpoint?, instance: String, kind: ProviderKind
    ) throws -> HTTPRequest {
        guard let endpoint else {
            throw CardGatewayError(
                .invalidConfiguration, "the base URL of \(instance) is not valid", provider: instance)
        }
        // An id of "." or ".." would become a dot segment, which a server or proxy that normalises paths turns
        // into another resource's path. No adapter's request may carry one, however its ids were checked.
        if URLEncoding.hasDotSegment(request.path) {
            throw CardGatewayError(
                .invalidRequest, "the request path has a dot segment (an id of \".\" or \"..\"); nothing was sent",
                provider: instance, providerKind: kind)
        }
        var path: String
        if endpoint.basePath.isEmpty && request.path.hasPrefix("/") {
            path = request.path
        } else {
            path = endpoint.basePath + (request.path.hasPrefix("/") ? request.path : "/" + request.path)
        }
        if !request.query.isEmpty { path += "?" + URLEncoding.query(request.query) }
        var fields = request.headers
        // Room for the two defaults at the copy a first change makes anyway, rather than a second growth to add them.
        fields.reserveCapacity(request.headers.count + 2)
        fields.appendIfAbsent(.accept, "application/json")
        fields.appendIfAbsent(.userAgent, "CardGateway/1.0")
        return HTTPRequest(
            method: request.method, scheme: endpoint.scheme, authority: endpoint.authority, path: path,
            headerFields: fields)
    }

    /// The transport's answer as the chain's: status, headers and body as they came (one attempt; the retry step
    /// counts the attempts).
    static func providerResponse(_ response: TransportResponse) -> ProviderResponse {
        ProviderResponse(
            status: response.response.status.code, headers: response.response.headerFields, body: response.body)
    }
}

extension ProviderHTTPClient {
    /// A base URL split once into the scheme, the authority and the path the requests go below.
    struct Endpoint: Sendable {
        var scheme: String
        var authority: String
        /// The base URL's percent-encoded path without trailing slashes ("" for a bare host).
        var basePath: String

        init?(_ baseURL: URL) {
            guard let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false),
                let host = components.host,
                let scheme = components.scheme
            else { return nil }
            var basePath = components.percentEncodedPath
            while basePath.hasSuffix("/") { basePath.removeLast() }
            let formattedHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            self.scheme = scheme
            self.authority = components.port.map { "\(formattedHost):\($0)" } ?? formattedHost
            self.basePath = basePath
        }
    }
}
