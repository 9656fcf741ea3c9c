@_spi(AdapterSupport) import CardGateway
import Foundation

/// Marqeta's error answers (`{"error_code": "...", "error_message": "..."}`) as ``CardGatewayError``s.
///
/// Marqeta's error codes are "based on HTTP response codes: the first three digits specify the HTTP response code,
/// and the last three digits represent the error" (Core API "Errors" page). The table is by HTTP status, refined by
/// `error_code` where the code says more than the status; the raw `error_code` is always kept as `providerCode`.
///
/// | status | error_code | code | retryable | may have been acted on |
/// |---|---|---|---|---|
/// | 400 | ``MarqetaAPI/invalidTransitionCodes`` | invalidCardState | no | no |
/// | 400 | any other | invalidRequest | no | no |
/// | 401 | any | authenticationFailed | no | no |
/// | 403 | any | permissionDenied | no | no |
/// | 404 | any | notFound | no | no |
/// | 409 | any | conflict | no | no |
/// | 412 | any | invalidRequest (a precondition Marqeta checks, such as a card product setting) | no | no |
/// | 422 | ``MarqetaAPI/walletTokenStateCodes`` (422003, 422004) | invalidCardState | no | no |
/// | 422 | any other | invalidRequest | no | no |
/// | 429 | any | rateLimited (`Retry-After` kept) | yes | no |
/// | 500–599 | any | providerUnavailable | yes | yes |
/// | other 4xx | any | invalidRequest | no | no |
/// | anything else | any | invalidResponse | no | yes |
enum MarqetaErrors {
    /// The table above, without the body.
    static func rule(status: Int, errorCode: String?) -> HTTPStatusRule {
        if status == 400, let errorCode, MarqetaAPI.invalidTransitionCodes.contains(errorCode) {
            return HTTPStatusRule(.invalidCardState, retryable: false, mayHaveReachedProvider: false)
        }
        if status == 422, let errorCode, MarqetaAPI.walletTokenStateCodes.contains(errorCode) {
            return HTTPStatusRule(.invalidCardState, retryable: false, mayHaveReachedProvider: false)
        }
        return HTTPStatusTable.rule(for: status)
    }

    /// The normalised error for a non-success response. Marqeta's `error_message` is kept, scrubbed and with the
    /// instance's own secrets removed should it ever echo one.
    static func error(
        for response: ProviderResponse, instance: String, redacting secrets: [String] = []
    ) -> CardGatewayError {
        let body = try? JSONDecoder().decode(MarqetaWireError.self, from: response.body)
        let providerCode = body?.errorCode.flatMap { $0.isEmpty ? nil : $0 }
        let rule = rule(status: response.status, errorCode: providerCode)
        var message = summary(rule.code, status: response.status)
        if var text = body?.errorMessage, !text.isEmpty {
            for secret in secrets where secret.count >= 8 {
                text = text.replacingOccurrences(of: secret, with: "<redacted>")
            }
            message += ": " + SafeText.scrub(text, maxLength: 300)
        }
        return CardGatewayError(
            rule.code, message, provider: instance, providerKind: .marqeta, providerCode: providerCode,
            httpStatus: response.status,
            requestID: requestID(response), isRetryable: rule.isRetryable,
            mayHaveReachedProvider: rule.mayHaveReachedProvider,
            retryAfter: rule.isRetryable ? response.retryAfter : nil
        )
    }

    /// Marqeta's troubleshooting id, when the answer carries one (`req-sys-id` echoed). *Unverified* that Marqeta
    /// echoes it; nil otherwise.
    static func requestID(_ response: ProviderResponse) -> String? {
        response.header("req-sys-id")
    }

    private static func summary(_ code: CardGatewayError.Code, status: Int) -> String {
        switch code {
        case .invalidCardState: return "Marqeta does not allow this transition from the current state"
        case .invalidRequest: return "Marqeta refused the request (HTTP \(status))"
        case .authenticationFailed: return "Marqeta did not accept the application token and access token"
        case .permissionDenied: return "the Marqeta credentials are not allowed to do this"
        case .notFound: return "Marqeta does not know this resource"
        case .conflict: return "Marqeta reported a conflict"
        case .rateLimited: return "Marqeta is rate limiting requests"
        case .timeout: return "Marqeta timed out processing the request"
        case .providerUnavailable: return "Marqeta failed to process the request (HTTP \(status))"
        default: return "Marqeta answered with an unexpected HTTP status \(status)"
        }
    }
}
