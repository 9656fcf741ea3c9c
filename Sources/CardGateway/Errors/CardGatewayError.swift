import Foundation

/// The one error every part of the gateway throws.
///
/// Its `description` is safe to log: it carries the code, the provider instance, the provider's code, the
/// HTTP status, the request id and a message that never contains a body, a header or card data.
public struct CardGatewayError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// A stable, growable code. Compare with the static members; the raw value is stable for metrics and logs.
    ///
    /// Not a ``GrowableName``: its `init(rawValue:)` takes any word and so does its decoding, since a code a newer
    /// version (a server, a ledger row) sends must still be read and passed on, whereas a growable name's
    /// `init?(rawValue:)` refuses a word this version does not know.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let invalidRequest = Code(rawValue: "invalidRequest")
        public static let authenticationFailed = Code(rawValue: "authenticationFailed")
        public static let permissionDenied = Code(rawValue: "permissionDenied")
        public static let notFound = Code(rawValue: "notFound")
        public static let cardNotEligible = Code(rawValue: "cardNotEligible")
        public static let invalidCardState = Code(rawValue: "invalidCardState")
        public static let scaRequired = Code(rawValue: "scaRequired")
        public static let declined = Code(rawValue: "declined")
        public static let conflict = Code(rawValue: "conflict")
        public static let rateLimited = Code(rawValue: "rateLimited")
        public static let providerUnavailable = Code(rawValue: "providerUnavailable")
        public static let timeout = Code(rawValue: "timeout")
        public static let unsupported = Code(rawValue: "unsupported")
        public static let invalidConfiguration = Code(rawValue: "invalidConfiguration")
        public static let invalidResponse = Code(rawValue: "invalidResponse")
        public static let signatureInvalid = Code(rawValue: "signatureInvalid")
        public static let transport = Code(rawValue: "transport")

        public static let all: [Code] = [
            .invalidRequest, .authenticationFailed, .permissionDenied, .notFound, .cardNotEligible, .invalidCardState,
            .scaRequired, .declined, .conflict, .rateLimited, .providerUnavailable, .timeout, .unsupported,
            .invalidConfiguration, .invalidResponse, .signatureInvalid, .transport,
        ]
    }

    /// A field the provider (or our validation) found wrong.
    public struct FieldError: Sendable, Codable, Equatable, CustomStringConvertible {
        public var field: String
        public var message: String
        public init(field: String, message: String) {
            // A field name can come from a provider's answer: it is scrubbed like the message.
            self.field = SafeText.scrub(field, maxLength: 200)
            self.message = SafeText.scrub(message)
        }
        public var description: String { "\(field): \(message)" }
    }

    public var code: Code
    /// The provider instance name from configuration, when a provider was involved.
    public var provider: String?
    public var providerKind: ProviderKind?
    /// The provider's own error code, verbatim.
    public var providerCode: String?
    public var httpStatus: Int?
    /// The provider's request id, for support tickets.
    public var requestID: String?
    /// A human sentence; never contains card data, secrets or bodies.
    public var message: String
    public var isRetryable: Bool
    /// True when the request may have been acted on by the provider (so a blind repeat could act twice).
    public var mayHaveReachedProvider: Bool
    /// How long to wait before repeating, when the provider said (`Retry-After`) or the gateway knows (an open
    /// breaker). Only a retryable error has one: on an error that must not be repeated it reads nil, whatever
    /// was set, so a caller never sees advice to wait and then repeat what must not be repeated.
    public var retryAfter: Duration? {
        get { isRetryable ? suggestedRetryAfter : nil }
        set { suggestedRetryAfter = newValue }
    }
    private var suggestedRetryAfter: Duration?
    public var scaChallenge: SCAChallenge?
    public var fieldErrors: [FieldError]

    public init(
        _ code: Code, _ message: String, provider: String? = nil, providerKind: ProviderKind? = nil,
        providerCode: String? = nil, httpStatus: Int? = nil, requestID: String? = nil, isRetryable: Bool? = nil,
        mayHaveReachedProvider: Bool = false, retryAfter: Duration? = nil, scaChallenge: SCAChallenge? = nil,
        fieldErrors: [FieldError] = []
    ) {
        self.code = code
        self.message = SafeText.scrub(message, maxLength: 2000)
        self.provider = provider
        self.providerKind = providerKind
        self.providerCode = providerCode.map { SafeText.scrub($0, maxLength: 64) }
        self.httpStatus = httpStatus
        self.requestID = requestID.map { SafeText.scrub($0, maxLength: 128) }
        self.isRetryable = isRetryable ?? CardGatewayError.defaultRetryable(code)
        self.mayHaveReachedProvider = mayHaveReachedProvider
        self.suggestedRetryAfter = retryAfter
        self.scaChallenge = scaChallenge
        self.fieldErrors = fieldErrors
    }

    static func defaultRetryable(_ code: Code) -> Bool {
        [.rateLimited, .providerUnavailable, .timeout, .transport].contains(code)
    }

    /// `CardGatewayError(code: …, provider: …, …): message [field: message; …]`.
    public var description: String {
        var fields = ["code: \(code.rawValue)"]
        let labelled: [(String, String?)] = [
            ("provider", provider), ("kind", providerKind?.description), ("providerCode", providerCode),
            ("status", httpStatus.map { String($0) }), ("requestID", requestID),
            ("retryAfter", retryAfter?.description),
        ]
        for case (let label, let value?) in labelled { fields.append("\(label): \(value)") }
        if isRetryable { fields.append("retryable") }
        var text = "CardGatewayError(\(fields.joined(separator: ", "))): \(message)"
        if !fieldErrors.isEmpty {
            text += " [" + fieldErrors.map { "\($0.field): \($0.message)" }.joined(separator: "; ") + "]"
        }
        return text
    }

    public var debugDescription: String { description }

    /// Returns a copy naming the provider instance, unless one is already named.
    public func attributed(to provider: String, kind: ProviderKind) -> CardGatewayError {
        var copy = self
        if copy.provider == nil { copy.provider = provider }
        if copy.providerKind == nil { copy.providerKind = kind }
        return copy
    }
}

extension CardGatewayError {
    public static func invalidRequest(_ message: String, field: String? = nil) -> CardGatewayError {
        CardGatewayError(
            .invalidRequest, message, fieldErrors: field.map { [FieldError(field: $0, message: message)] } ?? [])
    }

    /// A request that failed validation, with every problem found.
    public static func invalidRequest(_ fieldErrors: [FieldError]) -> CardGatewayError {
        let message =
            fieldErrors.count == 1
            ? fieldErrors[0].description
            : "\(fieldErrors.count) problems: " + fieldErrors.map(\.description).joined(separator: "; ")
        return CardGatewayError(.invalidRequest, message, fieldErrors: fieldErrors)
    }

    public static func unsupported(_ message: String) -> CardGatewayError {
        CardGatewayError(.unsupported, message)
    }

    public static func invalidResponse(
        _ message: String, httpStatus: Int? = nil, requestID: String? = nil
    ) -> CardGatewayError {
        CardGatewayError(
            .invalidResponse, message, httpStatus: httpStatus, requestID: requestID, mayHaveReachedProvider: true)
    }

    public static func signatureInvalid(_ message: String) -> CardGatewayError {
        CardGatewayError(.signatureInvalid, message)
    }
}

/// Collects validation problems so that a request is refused with all of them at once.
@_spi(AdapterSupport) public struct ValidationProblems: Sendable {
    public private(set) var errors: [CardGatewayError.FieldError] = []
    public init() {}

    public mutating func add(_ field: String, _ message: String) {
        errors.append(.init(field: field, message: message))
    }

    /// Adds the problem when the condition is false.
    public mutating func require(_ condition: Bool, _ field: String, _ message: @autoclosure () -> String) {
        if !condition { add(field, message()) }
    }

    /// Throws ``CardGatewayError`` `invalidRequest` listing every problem, if there are any.
    public func throwIfAny() throws {
        if !errors.isEmpty { throw CardGatewayError.invalidRequest(errors) }
    }
}
