@_spi(AdapterSupport) import CardGateway
import Foundation

/// Maps Adyen's error responses (`RestServiceError`, RFC 7807) to ``CardGatewayError``.
///
/// The table, by HTTP status (Adyen's `errorCode` is kept verbatim as `providerCode`):
///
/// | status | code | notes |
/// |---|---|---|
/// | 400 | invalidRequest | `invalidFields` → field errors (names and messages, never values) |
/// | 401 | authenticationFailed | wrong or missing API key |
/// | 403 | permissionDenied | the message names the role the endpoint needs (`00_403` or not) |
/// | 404 | notFound | |
/// | 408 | timeout | retryable; may have been acted on |
/// | 409 | conflict | e.g. a request with the same idempotency key still in progress |
/// | 422 | invalidRequest | validation (`invalidFields` → field errors) |
/// | 429 | rateLimited | `Retry-After` kept |
/// | 500–599 | providerUnavailable | retryable; may have been acted on |
/// | other 4xx | invalidRequest | undocumented; status and raw code kept |
/// | anything else (1xx, 3xx) | invalidResponse | not retryable; may have been acted on |
enum AdyenErrors {
    /// Adyen's statuses mean what the core's default table says (``HTTPStatusTable``): the table above is that
    /// table, as Adyen's "HTTP responses" page lists the statuses (docs.adyen.com/development-resources/response-handling).
    static func code(forStatus status: Int) -> CardGatewayError.Code {
        HTTPStatusTable.rule(for: status).code
    }

    /// Whether a request that got this status may have been acted on by Adyen.
    static func mayHaveReachedProvider(status: Int) -> Bool {
        HTTPStatusTable.rule(for: status).mayHaveReachedProvider
    }

    /// The normalised error for a non-success response.
    static func error(
        for response: ProviderResponse, family: AdyenEndpointFamily, instance: String, kind: ProviderKind,
        redacting secrets: [String] = []
    ) -> CardGatewayError {
        /// Provider text, with our own secrets removed should Adyen ever echo one, then scrubbed.
        func safe(_ text: String, _ maxLength: Int) -> String {
            var text = text
            for secret in secrets where secret.count >= 8 {
                text = text.replacingOccurrences(of: secret, with: "<redacted>")
            }
            return SafeText.scrub(text, maxLength: maxLength)
        }
        let body = try? JSONDecoder().decode(AdyenWireRestServiceError.self, from: response.body)
        let status = response.status
        let code = code(forStatus: status)
        let providerCode = body?.errorCode.flatMap { $0.isEmpty ? nil : $0 }
        let requestID =
            body?.requestId.flatMap { $0.isEmpty ? nil : $0 } ?? response.header(AdyenAPI.pspReferenceHeader.rawName)

        var message = summary(for: code, status: status)
        if code == .permissionDenied {
            // Every 403 at these endpoints comes down to a role the credential lacks (`00_403` says so outright).
            message = "the Adyen API credential lacks the \(role(for: family))"
        }
        let providerWords = [body?.title, body?.detail].compactMap { $0 }.filter { !$0.isEmpty }
        if !providerWords.isEmpty {
            message += ": " + providerWords.map { safe($0, 200) }.joined(separator: " — ")
        }
        let fieldErrors = (body?.invalidFields ?? []).compactMap { field -> CardGatewayError.FieldError? in
            guard let name = field.name, !name.isEmpty else { return nil }
            return CardGatewayError.FieldError(field: safe(name, 100), message: safe(field.message ?? "invalid", 300))
        }
        return CardGatewayError(
            code, message, provider: instance, providerKind: kind, providerCode: providerCode, httpStatus: status,
            requestID: requestID, mayHaveReachedProvider: mayHaveReachedProvider(status: status),
            retryAfter: code == .rateLimited || code == .providerUnavailable ? response.retryAfter : nil,
            fieldErrors: fieldErrors
        )
    }

    /// The role a 403 `00_403` means is missing.
    static func role(for family: AdyenEndpointFamily) -> String {
        switch family {
        case .activationData: return AdyenAPI.activationDataRole
        case .networkTokens: return AdyenAPI.networkTokensRole
        case .paymentInstrument: return "role to read payment instruments"
        case .panReveal: return AdyenAPI.panRevealRole
        case .pinReveal: return AdyenAPI.pinRevealRole
        case .pinChange: return AdyenAPI.pinChangeRole
        }
    }

    private static func summary(for code: CardGatewayError.Code, status: Int) -> String {
        switch code {
        case .invalidRequest: return "Adyen refused the request (HTTP \(status))"
        case .authenticationFailed: return "Adyen did not accept the API key"
        case .permissionDenied: return "the Adyen API credential is not allowed to do this"
        case .notFound: return "Adyen does not know this resource"
        case .timeout: return "Adyen timed out processing the request"
        case .conflict: return "Adyen reported a conflict"
        case .rateLimited: return "Adyen is rate limiting requests"
        case .providerUnavailable: return "Adyen failed to process the request (HTTP \(status))"
        default: return "Adyen answered with an unexpected HTTP status \(status)"
        }
    }
}
