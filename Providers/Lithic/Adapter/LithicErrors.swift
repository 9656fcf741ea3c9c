@_spi(AdapterSupport) import CardGateway
import Foundation

/// Lithic's error answers (`error`: `{"message", "debugging_request_id"}`, the document's `components/responses`) as
/// ``CardGatewayError``s. Lithic documents no error codes, only statuses and messages, so the table is by status:
///
/// | status | code | retryable | may have been acted on |
/// |---|---|---|---|
/// | 400 | invalidRequest | no | no |
/// | 401 | authenticationFailed ("Invalid or missing API key", and "Insufficient privileges", which Lithic also answers 401) | no | no |
/// | 403 | permissionDenied | no | no |
/// | 404 | notFound | no | no |
/// | 409 | invalidCardState ("a conflict with the current state of the target resource": a tokenization not in the state the action needs) | no | no |
/// | 422 | invalidRequest (Unprocessable entity) | no | no |
/// | 429 | rateLimited (`Retry-After` kept) | yes | no |
/// | 500–599 | providerUnavailable | yes | yes |
/// | other 4xx | invalidRequest | no | no |
/// | anything else | invalidResponse | no | yes |
enum LithicErrors {
    /// The table above.
    static func rule(status: Int) -> HTTPStatusRule {
        if status == 409 { return HTTPStatusRule(.invalidCardState, retryable: false, mayHaveReachedProvider: false) }
        return HTTPStatusTable.rule(for: status)
    }

    /// The normalised error for a non-success response. Lithic's `message` is kept, scrubbed and with the instance's
    /// own secrets removed should it ever echo one; `debugging_request_id` is the request id.
    static func error(
        for response: ProviderResponse, instance: String, redacting secrets: [String] = []
    ) -> CardGatewayError {
        let body = try? JSONDecoder().decode(LithicWireError.self, from: response.body)
        let rule = rule(status: response.status)
        var message = summary(rule.code, status: response.status)
        if var text = body?.message, !text.isEmpty {
            for secret in secrets where secret.count >= 8 {
                text = text.replacingOccurrences(of: secret, with: "<redacted>")
            }
            message += ": " + SafeText.scrub(text, maxLength: 300)
        }
        return CardGatewayError(
            rule.code, message, provider: instance, providerKind: .lithic, httpStatus: response.status,
            requestID: body?.debuggingRequestID.map { SafeText.scrub($0, maxLength: 64) },
            isRetryable: rule.isRetryable, mayHaveReachedProvider: rule.mayHaveReachedProvider,
            retryAfter: rule.isRetryable ? response.retryAfter : nil
        )
    }

    /// `debugging_request_id` of an error body, for errors made elsewhere (an answer Lithic sent that cannot be read).
    static func requestID(_ response: ProviderResponse) -> String? {
        (try? JSONDecoder().decode(LithicWireError.self, from: response.body))?.debuggingRequestID
    }

    private static func summary(_ code: CardGatewayError.Code, status: Int) -> String {
        switch code {
        case .invalidCardState: return "Lithic refused the change in the resource's current state"
        case .invalidRequest: return "Lithic refused the request (HTTP \(status))"
        case .authenticationFailed: return "Lithic did not accept the API key"
        case .permissionDenied: return "the Lithic API key is not allowed to do this"
        case .notFound: return "Lithic does not know this resource"
        case .conflict: return "Lithic reported a conflict"
        case .rateLimited: return "Lithic is rate limiting requests"
        case .timeout: return "Lithic timed out processing the request"
        case .providerUnavailable: return "Lithic failed to process the request (HTTP \(status))"
        default: return "Lithic answered with an unexpected HTTP status \(status)"
        }
    }
}
