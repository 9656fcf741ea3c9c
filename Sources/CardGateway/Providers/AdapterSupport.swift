import Foundation

/// What an HTTP status on a provider's error response means for the caller: the normalised code, whether the
/// same request may simply be sent again, and whether the provider may have acted on it.
@_spi(AdapterSupport) public struct HTTPStatusRule: Sendable, Equatable, CustomStringConvertible {
    public var code: CardGatewayError.Code
    public var isRetryable: Bool
    /// Whether the request may have reached the provider and been acted on (a 5xx may come after the work was done;
    /// a 4xx says the request was turned away): ``CardGatewayError/mayHaveReachedProvider`` of the error it makes.
    public var mayHaveReachedProvider: Bool

    public init(_ code: CardGatewayError.Code, retryable: Bool, mayHaveReachedProvider: Bool) {
        self.code = code
        self.isRetryable = retryable
        self.mayHaveReachedProvider = mayHaveReachedProvider
    }

    public var description: String {
        "\(code) (retryable: \(isRetryable), may have reached the provider: \(mayHaveReachedProvider))"
    }
}

/// The one default table from a provider's HTTP status to a normalised error, by the status's HTTP meaning
/// (RFC 9110). Adapters use it for every status their provider documents nothing special for, and extend it
/// only with what is provider-specific, each difference justified where the adapter declares it.
///
/// | status | code | retryable | may have reached the provider |
/// |---|---|---|---|
/// | 400, 422 and other 4xx | invalidRequest | no | no |
/// | 401 | authenticationFailed | no | no |
/// | 403 | permissionDenied | no | no |
/// | 404 | notFound | no | no |
/// | 408 | timeout | yes | yes |
/// | 409 | conflict | no | no |
/// | 429 | rateLimited | yes | no |
/// | 5xx | providerUnavailable | yes | yes |
/// | anything else (1xx, 3xx where JSON was expected) | invalidResponse | no | yes |
///
/// "Retryable" is the status's own verdict; a write the provider cannot de-duplicate is still never repeated
/// blindly (the adapters and the HTTP client see to that).
@_spi(AdapterSupport) public enum HTTPStatusTable: Sendable {
    public static func rule(for status: Int) -> HTTPStatusRule {
        switch status {
        case 401: return HTTPStatusRule(.authenticationFailed, retryable: false, mayHaveReachedProvider: false)
        case 403: return HTTPStatusRule(.permissionDenied, retryable: false, mayHaveReachedProvider: false)
        case 404: return HTTPStatusRule(.notFound, retryable: false, mayHaveReachedProvider: false)
        case 408: return HTTPStatusRule(.timeout, retryable: true, mayHaveReachedProvider: true)
        case 409: return HTTPStatusRule(.conflict, retryable: false, mayHaveReachedProvider: false)
        case 429: return HTTPStatusRule(.rateLimited, retryable: true, mayHaveReachedProvider: false)
        case 400...499: return HTTPStatusRule(.invalidRequest, retryable: false, mayHaveReachedProvider: false)
        case 500...599: return HTTPStatusRule(.providerUnavailable, retryable: true, mayHaveReachedProvider: true)
        default: return HTTPStatusRule(.invalidResponse, retryable: false, mayHaveReachedProvider: true)
        }
    }

    /// The adapter's own rule for `status` when it has one, else the default.
    public static func rule(for status: Int, overrides: [Int: HTTPStatusRule]) -> HTTPStatusRule {
        overrides[status] ?? rule(for: status)
    }
}

extension CardGatewayError {
    /// This error as the answer to `request`: when the request is a write the provider cannot de-duplicate
    /// (``ProviderRequest/Repeatability/never``) and the provider may have acted on it, it is not retryable
    /// whatever the status says, since the outcome is unknown and must be checked before the write is repeated.
    @_spi(AdapterSupport) public func answering(_ request: ProviderRequest) -> CardGatewayError {
        guard request.repeatability == .never, mayHaveReachedProvider, isRetryable else { return self }
        var error = self
        error.isRetryable = false
        error.message += "; the request may have been acted on, so check its outcome before repeating it"
        return error
    }
}

/// Checks on the ids callers pass, which adapters put into provider URL paths.
@_spi(AdapterSupport) public enum ProviderIDs: Sendable {
    /// Whether a UTF-8 byte of an id is allowed: printable ASCII other than the characters that never appear in a
    /// provider's ids and that change what a URL means (path and query delimiters, the escape character and the
    /// backslash some servers read as a slash). Every byte of a scalar outside ASCII is 0x80 or above, so such a
    /// scalar is refused as a whole, as it was when the scalars were checked.
    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "%"):
            return false
        default: return byte > 0x20 && byte < 0x7f
        }
    }

    /// Adds a problem to `problems` unless `id` is a plausible provider id: 1 to `maxLength` UTF-8 bytes of
    /// printable ASCII without spaces, `/`, `\`, `?`, `#` or `%`, and not a dot segment ("." or ".."). Every
    /// provider's ids (Stripe's `ic_…`, Adyen's `PI…`, Bridge's and Paysafe's UUIDs, Trust Payments'
    /// `2-9-4617572`) fit; anything else is refused before a request is built, so no id can walk to another
    /// resource's path however a proxy normalises it.
    ///
    /// - Parameters:
    ///   - id: the id to check; nil or empty is reported as required.
    ///   - field: the field path the problem is reported under ("card.id").
    ///   - what: how the message names the id ("a Stripe id"); the message never repeats the id itself.
    ///   - maxLength: the longest id accepted, in UTF-8 bytes.
    ///   - problems: where a problem is added.
    public static func check(
        _ id: String?, field: String, what: String, maxLength: Int = 255, into problems: inout ValidationProblems
    ) {
        guard let id, !id.isEmpty else {
            problems.add(field, "is required")
            return
        }
        if id.utf8.count > maxLength {
            problems.add(field, "is too long for \(what) (at most \(maxLength) characters)")
        } else if URLEncoding.isDotSegment(id) || !id.utf8.allSatisfy(isAllowed) {
            problems.add(field, "is not \(what): printable ASCII without spaces, /, \\, ?, # or %, and not . or ..")
        }
    }

    /// Whether `id` passes ``check(_:field:what:maxLength:into:)``.
    public static func isValid(_ id: String, maxLength: Int = 255) -> Bool {
        var problems = ValidationProblems()
        check(id, field: "id", what: "an id", maxLength: maxLength, into: &problems)
        return problems.errors.isEmpty
    }
}

extension ProviderResponse {
    /// The decoder of ``decode(_:provider:what:instance:kind:requestID:)``: a default `JSONDecoder`, shared, as it
    /// keeps no state between calls.
    static let sharedDecoder = JSONDecoder()

    /// Decodes the body as `T` with a default-configured `JSONDecoder`, or throws
    /// `invalidResponse` — "Adyen's card answer could not be read: id is missing" — carrying the status and the
    /// provider's request id, never the body (it may hold card data).
    ///
    /// - Parameters:
    ///   - type: the type the body decodes to.
    ///   - provider: the provider's name for the message ("Adyen").
    ///   - what: what the body should be ("card", "ephemeral key").
    ///   - instance: the instance that answered, for the error.
    ///   - kind: the provider kind, for the error.
    ///   - requestID: the provider's id for this exchange, read from its header or body by the adapter; evaluated only
    ///     when the body cannot be read.
    @_spi(AdapterSupport) public func decode<T: Decodable>(
        _ type: T.Type, provider: String, what: String, instance: String, kind: ProviderKind,
        requestID: @autoclosure () -> String?
    ) throws -> T {
        do {
            return try Self.sharedDecoder.decode(type, from: body)
        } catch {
            throw decodingFailure(
                error, provider: provider, what: what, instance: instance, kind: kind, requestID: requestID())
        }
    }

    /// Decodes the body as `T` with `decoder` (an adapter's own, with its date or key strategies), or throws
    /// `invalidResponse` as ``decode(_:provider:what:instance:kind:requestID:)`` does.
    ///
    /// - Parameters:
    ///   - type: the type the body decodes to.
    ///   - decoder: the decoder to use.
    ///   - provider: the provider's name for the message ("Adyen").
    ///   - what: what the body should be ("card", "ephemeral key").
    ///   - instance: the instance that answered, for the error.
    ///   - kind: the provider kind, for the error.
    ///   - requestID: the provider's id for this exchange, read from its header or body by the adapter; evaluated only
    ///     when the body cannot be read.
    @_spi(AdapterSupport) public func decode<T: Decodable>(
        _ type: T.Type, using decoder: JSONDecoder, provider: String, what: String, instance: String,
        kind: ProviderKind,
        requestID: @autoclosure () -> String?
    ) throws -> T {
        do {
            return try decoder.decode(type, from: body)
        } catch {
            throw decodingFailure(
                error, provider: provider, what: what, instance: instance, kind: kind, requestID: requestID())
        }
    }

    private func decodingFailure(
        _ error: any Error, provider: String, what: String, instance: String, kind: ProviderKind, requestID: String?
    ) -> CardGatewayError {
        CardGatewayError(
            .invalidResponse, "\(provider)'s \(what) answer could not be read: \(DecodingProblem.describe(error))",
            provider: instance, providerKind: kind, httpStatus: status, requestID: requestID,
            mayHaveReachedProvider: true
        )
    }
}

/// What went wrong decoding a provider's JSON, by field path only: a value is never quoted, since it may be
/// card data.
@_spi(AdapterSupport) public enum DecodingProblem: Sendable {
    /// "card.expiry is missing", "[0].status has the wrong type", "it is not JSON".
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "it is not JSON" }
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return text.isEmpty ? "the body" : SafeText.scrub(text, maxLength: 120)
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])) is missing"
        case .valueNotFound(_, let context): return "\(path(context.codingPath)) is null"
        case .typeMismatch(_, let context): return "\(path(context.codingPath)) has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "it is not JSON" : "\(path(context.codingPath)) is not valid"
        @unknown default: return "it does not match the documented shape"
        }
    }
}
