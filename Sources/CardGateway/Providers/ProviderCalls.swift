import Foundation
import HTTPTypes

/// The plumbing every adapter's calls share, written once: send a `ProviderRequest` through the instance's
/// client and turn a non-success answer into the provider's error, the JSON headers of a request, the one encoder
/// of request bodies, and the decoding of an answer, whose failure is `invalidResponse` with the status and the
/// provider's request id and never the body.
///
/// What differs per provider stays in its room and is handed in: its name in messages, whether every request says
/// `Accept: application/json`, where its request id is (a header, the error body), and its error table. The
/// authentication is the client's middleware (`ProviderHTTPClient/authenticated(by:)`), not this type's.
///
/// ```swift
/// calls = ProviderCalls(
///     http.authenticated(by: HeaderAuthentication.apiKey(.authorization, apiKey)), provider: "Lithic",
///     kind: .lithic, acceptsJSON: true, requestID: LithicErrors.requestID,
///     errors: { response, request in LithicErrors.error(for: response, instance: instance).answering(request) })
/// let response = try await calls.send(
///     ProviderRequest(.get, LithicAPI.card(token), headers: calls.headers(), operation: "get card"), context: context)
/// let card = try calls.decode(LithicWireCard.self, from: response, what: "card")
/// ```
@_spi(AdapterSupport) public struct ProviderCalls: Sendable {
    /// The error a provider's non-success answer to a request becomes: the room's error table.
    public typealias ErrorTable =
        @Sendable (_ response: ProviderResponse, _ request: ProviderRequest) ->
        CardGatewayError

    /// The instance's client, with the adapter's authentication.
    public let http: ProviderHTTPClient
    /// The provider's name in messages ("Adyen's card answer could not be read: …").
    public let provider: String
    public let kind: ProviderKind
    /// Whether every request says `Accept: application/json` (`headers(json:)`).
    public let acceptsJSON: Bool
    private let readRequestID: @Sendable (ProviderResponse) -> String?
    private let errorTable: ErrorTable?

    /// - Parameters:
    ///   - http: the instance's client, with the adapter's authentication.
    ///   - provider: the provider's name in messages.
    ///   - kind: the provider kind errors carry.
    ///   - acceptsJSON: whether `headers(json:)` adds `Accept: application/json` to every request.
    ///   - requestID: the provider's id for an exchange, read from its header or body; nil when it has none.
    ///   - errors: the error table `send(_:context:)` uses for a non-success answer; nil when the adapter names a
    ///     table with each call (`send(_:context:errors:)`), and then `send(_:context:)` uses
    ///     `HTTPStatusTable`'s rule for the status.
    public init(
        _ http: ProviderHTTPClient, provider: String, kind: ProviderKind, acceptsJSON: Bool = false,
        requestID: @escaping @Sendable (ProviderResponse) -> String?, errors: ErrorTable?
    ) {
        self.http = http
        self.provider = provider
        self.kind = kind
        self.acceptsJSON = acceptsJSON
        self.readRequestID = requestID
        self.errorTable = errors
    }

    /// The instance's name, for errors.
    public var instance: String { http.instance }

    /// Sends `request` and returns a 2xx answer; any other answer is thrown as the error table makes it.
    public func send(_ request: ProviderRequest, context: OperationContext) async throws -> ProviderResponse {
        try await send(request, context: context, errors: errorTable ?? statusError)
    }

    /// Sends `request` and returns a 2xx answer; any other answer is thrown as `errors` makes it (an adapter whose
    /// error table needs what only the call knows: the role an Adyen endpoint needs).
    public func send(
        _ request: ProviderRequest, context: OperationContext, errors: ErrorTable
    ) async throws -> ProviderResponse {
        let response = try await http.send(request, context: context)
        guard response.isSuccess else { throw errors(response, request) }
        return response
    }

    /// The error a non-success `response` to `request` becomes, by the adapter's table.
    public func error(for response: ProviderResponse, answering request: ProviderRequest) -> CardGatewayError {
        (errorTable ?? statusError)(response, request)
    }

    /// The provider's id for this exchange, as the adapter reads it.
    public func requestID(of response: ProviderResponse) -> String? { readRequestID(response) }

    /// The headers of a request: `Content-Type: application/json` when it has a JSON body, and
    /// `Accept: application/json` when the provider's requests all say so.
    public func headers(json: Bool = false) -> HTTPFields {
        var fields = HTTPFields()
        if acceptsJSON { fields[.accept] = "application/json" }
        if json { fields[.contentType] = "application/json" }
        return fields
    }

    /// The one encoder of request bodies: keys sorted, slashes unescaped.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// `value` as a JSON request body, by `encoder`.
    public func encode(_ value: some Encodable) throws -> Data {
        try Self.encoder.encode(value)
    }

    /// The answer's body as `T`, or `invalidResponse` ("Lithic's card answer could not be read: token is missing")
    /// with the status and the provider's request id, never the body (it may hold card data).
    public func decode<T: Decodable>(_ type: T.Type = T.self, from response: ProviderResponse, what: String) throws -> T
    {
        try response.decode(
            type, provider: provider, what: what, instance: instance, kind: kind, requestID: readRequestID(response))
    }

    /// `invalidResponse` for an answer that decoded but does not say what it must, with the status and the
    /// provider's request id. `message` is the adapter's own words, never the provider's text.
    public func invalidResponse(_ message: String, _ response: ProviderResponse) -> CardGatewayError {
        CardGatewayError(
            .invalidResponse, message, provider: instance, providerKind: kind, httpStatus: response.status,
            requestID: readRequestID(response), mayHaveReachedProvider: true
        )
    }

    /// `HTTPStatusTable`'s rule for the status, for an adapter that names its table with each call.
    private var statusError: ErrorTable {
        { [provider, instance, kind, readRequestID] response, request in
            let rule = HTTPStatusTable.rule(for: response.status)
            return CardGatewayError(
                rule.code, "\(provider) answered HTTP \(response.status)", provider: instance, providerKind: kind,
                httpStatus: response.status, requestID: readRequestID(response), isRetryable: rule.isRetryable,
                mayHaveReachedProvider: rule.mayHaveReachedProvider,
                retryAfter: rule.isRetryable ? response.retryAfter : nil
            ).answering(request)
        }
    }
}
