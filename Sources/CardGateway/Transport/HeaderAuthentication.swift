import Foundation
import HTTPTypes

/// Authentication by fixed secret headers: an API key header, a bearer token or HTTP Basic. Adapters give it to
/// their client with ``ProviderHTTPClient/authenticated(by:)``; a request that sets the header itself (a
/// per-request credential) keeps its own.
///
/// The values are ``Secret``s: revealed only into the outgoing header, never into a description or a log.
@_spi(AdapterSupport) public struct HeaderAuthentication: ProviderMiddleware, CustomStringConvertible {
    private let fields: [(name: HTTPField.Name, value: Secret)]

    public init(_ fields: [(name: HTTPField.Name, value: Secret)]) {
        self.fields = fields
    }

    /// `name: key`, as Adyen's `X-API-Key` and Bridge's `Api-Key`.
    public static func apiKey(_ name: HTTPField.Name, _ key: Secret) -> HeaderAuthentication {
        HeaderAuthentication([(name, key)])
    }

    /// `Authorization: Bearer token`.
    public static func bearer(_ token: Secret) -> HeaderAuthentication {
        HeaderAuthentication([(.authorization, Secret("Bearer " + token.revealedValue))])
    }

    /// `Authorization: Basic base64(username:password)`.
    public static func basic(username: Secret, password: Secret) -> HeaderAuthentication {
        HeaderAuthentication([
            (.authorization, Secret(basicValue(username: username.revealedValue, password: password.revealedValue)))
        ])
    }

    /// The `Authorization` value HTTP Basic sends, `Basic base64(username:password)` (RFC 7617): what a webhook
    /// receiver or a simulator compares an incoming header with (through `ConstantTime.equals`). It holds the
    /// password: never log it.
    public static func basicValue(username: String, password: String) -> String {
        ByteEncoding.basicAuthorization(user: username, password: password)
    }

    public func intercept(
        _ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext
    ) async throws -> ProviderResponse {
        var request = request
        for (name, value) in fields { request.headers.appendIfAbsent(name, value.revealedValue) }
        return try await next(request, context)
    }

    public var description: String { "HeaderAuthentication(\(fields.map(\.name.rawName).joined(separator: ", ")))" }
}
