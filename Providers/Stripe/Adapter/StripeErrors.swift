@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// Stripe's errors (`{"error":{"type","code","message","param","decline_code","doc_url","request_log_url"}}`
/// with an HTTP status) into ``CardGatewayError``. One table: ``rule(status:type:code:)``.
enum StripeErrors {
    /// How one error maps.
    struct Rule: Equatable, Sendable {
        var code: CardGatewayError.Code
        /// nil leaves the default for the code (rate limits and outages retryable, the rest not).
        var retryable: Bool?
        /// Whether Stripe may have acted on the request.
        var mayHaveActed: Bool
    }

    /// The table. Specific Stripe codes and types first, then the HTTP status as Stripe documents it
    /// (400/404 invalid, 401 auth, 402 card, 403 permission, 409 retryable conflict, 429 rate limit, 5xx).
    static func rule(status: Int, type: String?, code: String?) -> Rule {
        switch code {
        case "resource_missing":
            return Rule(code: .notFound, retryable: false, mayHaveActed: false)
        case "idempotency_key_in_use":
            // Another request with the same key is still running: repeat later with the same key.
            return Rule(code: .conflict, retryable: true, mayHaveActed: true)
        case "lock_timeout":
            // The object is being changed by another request; Stripe advises repeating.
            return Rule(code: .conflict, retryable: true, mayHaveActed: false)
        case "rate_limit":
            // Older API versions answer rate limits as 400 rate_limit (stripe-python treats them as 429).
            return Rule(code: .rateLimited, retryable: true, mayHaveActed: false)
        case "status_transition_invalid", "card_canceled", "card_inactive":
            return Rule(code: .invalidCardState, retryable: false, mayHaveActed: false)
        case "api_key_expired", "platform_api_key_expired", "secret_key_required":
            return Rule(code: .authenticationFailed, retryable: false, mayHaveActed: false)
        default:
            break
        }
        switch type {
        case "idempotency_error":
            // The key was used with other parameters (or another endpoint or key): never repeat as is.
            return Rule(code: .conflict, retryable: false, mayHaveActed: false)
        case "card_error":
            return Rule(code: .declined, retryable: false, mayHaveActed: false)
        case "api_error" where status >= 500 || status < 400:
            return Rule(code: .providerUnavailable, retryable: true, mayHaveActed: true)
        default:
            break
        }
        let statusRule = HTTPStatusTable.rule(for: status, overrides: statusOverrides)
        return Rule(
            code: statusRule.code, retryable: statusRule.isRetryable, mayHaveActed: statusRule.mayHaveReachedProvider)
    }

    /// Where Stripe's documented statuses differ from the core's default table (stripe.com/docs/api/errors,
    /// "HTTP status code summary"): 402 is "Request Failed — the parameters were valid but the request failed",
    /// which Stripe uses for card errors; 409 is "the request conflicts with another request (perhaps due to
    /// using the same idempotent key)", which Stripe's own clients repeat.
    static let statusOverrides: [Int: HTTPStatusRule] = [
        402: HTTPStatusRule(.declined, retryable: false, mayHaveReachedProvider: false),
        409: HTTPStatusRule(.conflict, retryable: true, mayHaveReachedProvider: true),
    ]

    /// The error for a non-2xx `response`.
    static func error(for response: ProviderResponse, instance: String) -> CardGatewayError {
        let body = try? StripeJSON.decoder().decode(StripeErrorWire.self, from: response.body).error
        let rule = rule(status: response.status, type: body?.type, code: body?.code)
        var retryable = rule.retryable
        if let advice = shouldRetry(response) { retryable = advice }
        let providerCode: String? = {
            if rule.code == .declined, let decline = body?.declineCode, !decline.isEmpty { return decline }
            return body?.code ?? body?.type
        }()
        var message = "Stripe answered \(response.status)"
        if let type = body?.type { message += " \(type)" }
        if let code = body?.code { message += " (\(code))" }
        if let text = body?.message, !text.isEmpty { message += ": " + SafeText.scrub(text) }
        var fieldErrors: [CardGatewayError.FieldError] = []
        if let param = body?.param, !param.isEmpty {
            fieldErrors.append(
                .init(field: param, message: body?.message.map { SafeText.scrub($0) } ?? "rejected by Stripe"))
        }
        return CardGatewayError(
            rule.code, message, provider: instance, providerKind: .stripe, providerCode: providerCode,
            httpStatus: response.status, requestID: requestID(response, body: body), isRetryable: retryable,
            mayHaveReachedProvider: rule.mayHaveActed, retryAfter: response.retryAfter, fieldErrors: fieldErrors
        )
    }

    private static let shouldRetryName = HTTPField.Name(StripeAPI.shouldRetryHeader)!

    /// `Stripe-Should-Retry`, when Stripe sent it.
    static func shouldRetry(_ response: ProviderResponse) -> Bool? {
        switch response.headers[shouldRetryName]?.lowercased() {
        case "true": return true
        case "false": return false
        default: return nil
        }
    }

    /// The `Request-Id` header, or the `req_…` id in the body's `request_log_url`.
    static func requestID(_ response: ProviderResponse, body: StripeErrorWire.Body? = nil) -> String? {
        if let header = response.header(StripeAPI.requestIDHeader), !header.isEmpty { return header }
        guard let url = body?.requestLogUrl, let range = url.range(of: "req_") else { return nil }
        let id = url[range.lowerBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return id.count > 4 ? String(id) : nil
    }
}
