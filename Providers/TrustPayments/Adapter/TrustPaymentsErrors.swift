@_spi(AdapterSupport) import CardGateway
import Foundation

/// The one table from Trust Payments `errorcode`s (and HTTP statuses) to normalised errors.
///
/// Codes and their names come from the facts file (official docs) and the official Python client's
/// `data/errormessages.json`. Each row says why it maps where it does.
enum TrustPaymentsErrors: Sendable {
    /// One row: the normalised code, whether repeating can help, and what the caller should know.
    struct Row: Sendable, Equatable {
        /// The normalised code.
        var code: CardGatewayError.Code
        /// Whether a later attempt may succeed.
        var isRetryable: Bool
        /// Our own words for the error (the provider's message is appended, scrubbed).
        var message: String
    }

    /// `errorcode` → row. `0` (Ok) is not an error and is not here.
    static let rows: [String: Row] = [
        // Our request named a field the gateway refused; `errordata` names the fields.
        "30000": Row(
            code: .invalidRequest, isRetryable: false,
            message: "Trust Payments refused a field of the request (invalid field)"),
        // The configured `siteReference` does not exist: a configuration mistake, not a bad request.
        "30001": Row(
            code: .invalidConfiguration, isRetryable: false,
            message: "Trust Payments does not know the configured site reference (unknown site)"),
        // The Webservices user exists but may not use this site: a permission, fixed in MyST.
        "30006": Row(
            code: .permissionDenied, isRetryable: false,
            message: "the Webservices user may not use the configured site reference (invalid sitereference for alias)"),
        // The envelope carried a version the gateway does not speak: our bug, a bad request.
        "30007": Row(
            code: .invalidRequest, isRetryable: false,
            message: "Trust Payments refused the interface version (invalid version number)"),
        // The body was not JSON the gateway could read: a bad request.
        "10205": Row(
            code: .invalidRequest, isRetryable: false,
            message: "Trust Payments could not parse the request (malformed JSON)"),
        // The parent reference does not exist at the gateway: the named thing is not there.
        "20004": Row(
            code: .notFound, isRetryable: false,
            message: "Trust Payments has no parent transaction with this reference (missing parent)"),
        // The parent exists but cannot be used: it failed, did not store the card (credentialsonfile 1), or is
        // an ACCOUNTCHECK where a re-authorisation needs an AUTH.
        "20033": Row(
            code: .invalidRequest, isRetryable: false,
            message:
                "Trust Payments cannot use this parent transaction (invalid parent: it must be a successful transaction that stored the card, and an AUTH for a re-authorisation)"
        ),
        // Trust Payments documents 60010, 60034 and 99999 alike: a problem while processing, final status not
        // known. The payment may have been taken, so none is retryable: look the transaction up (MyST or a
        // TRANSACTIONQUERY) before charging again.
        "60010": Row(
            code: .providerUnavailable, isRetryable: false,
            message:
                "the bank's system failed (bank system error); the outcome is uncertain, so check the transaction in MyST before charging again"
        ),
        // "Unauthenticated" is about the cardholder (3-D Secure), not our credentials: a decline.
        "60022": Row(
            code: .declined, isRetryable: false,
            message: "the cardholder was not authenticated by 3-D Secure (unauthenticated)"),
        // The request as a whole was refused: a bad request.
        "60025": Row(
            code: .invalidRequest, isRetryable: false, message: "Trust Payments refused the request (invalid request)"),
        // The site is suspended at Trust Payments: nothing this request can change.
        "60023": Row(code: .permissionDenied, isRetryable: false, message: "the Trust Payments site is suspended"),
        "60034": Row(
            code: .providerUnavailable, isRetryable: false,
            message:
                "Trust Payments needs to investigate the transaction by hand (manual investigation required); the outcome is uncertain, so check it in MyST before charging again"
        ),
        // The merchant-side system failed at the gateway: like 60010, the final status is not known.
        "60038": Row(
            code: .providerUnavailable, isRetryable: false,
            message:
                "Trust Payments reported a merchant system error; the outcome is uncertain, so check the transaction in MyST before charging again"
        ),
        // Refusals by the gateway's own rules, not by the issuer: the same card and amount will be refused again.
        "30002": Row(
            code: .declined, isRetryable: false, message: "the card is on a block list at Trust Payments (banned card)"),
        "60036": Row(
            code: .declined, isRetryable: false,
            message: "Trust Payments' fraud screening refused the payment (max fraud score exceeded)"),
        "60042": Row(code: .declined, isRetryable: false, message: "the payment was declined for insufficient funds"),
        "60043": Row(
            code: .declined, isRetryable: false,
            message: "the card scheme's rules do not allow this payment (scheme restrictions)"),
        "60044": Row(
            code: .declined, isRetryable: false,
            message: "the payment failed Trust Payments' screening (failed screening)"),
        "60045": Row(
            code: .declined, isRetryable: false,
            message: "restrictions on the account do not allow this payment (restrictions)"),
        // Held for a person to review: not approved now, and its outcome comes later.
        "60500": Row(
            code: .providerUnavailable, isRetryable: false,
            message:
                "Trust Payments holds the payment for risk review (risk referral); check its outcome in MyST before charging again"
        ),
        // The gateway could not tell what the issuer decided: the payment may have been taken.
        "70001": Row(
            code: .providerUnavailable, isRetryable: false,
            message:
                "the issuer's answer was uncertain (uncertain result); the payment may have been taken, so check the transaction in MyST before charging again"
        ),
        // Queued, not refused: the outcome arrives later and must be looked up, never charged twice.
        "79000": Row(
            code: .providerUnavailable, isRetryable: false,
            message:
                "Trust Payments queued the request (request is queued); check the transaction's status later before charging again"
        ),
        // The record was locked for a moment and nothing was done: a later attempt may succeed.
        "79001": Row(
            code: .providerUnavailable, isRetryable: true,
            message: "the record is temporarily locked at Trust Payments; try again later"),
        // The gateway asks for the request to be repeated.
        "88000": Row(
            code: .providerUnavailable, isRetryable: true,
            message: "Trust Payments asks for the request to be repeated (generic retry)"),
        "70000": Row(code: .declined, isRetryable: false, message: "the issuer declined the payment (decline)"),
        // A soft decline asks for strong customer authentication: a customer-initiated payment with 3-D Secure
        // may succeed where this one did not.
        "71000": Row(
            code: .declined, isRetryable: false,
            message:
                "the issuer declined the payment softly (soft decline); authenticating the cardholder with 3-D Secure in a customer-initiated payment may help"
        ),
        "72000": Row(code: .declined, isRetryable: false, message: "the issuer asks to be contacted (refer to issuer)"),
        // 50000 is "Socket receive error": a request was sent and no answer came back, so what happened is not
        // known. The JavaScript library reports it too ("Timeout"), where the docs advise asking the customer to
        // try again; that is the customer's fresh attempt, not a repeat of this one, and for a merchant-initiated
        // charge the transaction must be looked up first.
        "50000": Row(
            code: .providerUnavailable, isRetryable: false,
            message:
                "the request met a communication error (socket receive error or timeout) and its outcome is uncertain; check the transaction in MyST before charging again, or ask the customer to start a new payment"
        ),
        // The gateway does not know what happened: the payment may or may not have been taken, so it is not
        // repeated blindly.
        "99999": Row(
            code: .providerUnavailable, isRetryable: false,
            message:
                "Trust Payments reported an unknown error; the outcome is uncertain, so check the transaction before repeating it"
        ),
    ]

    /// The normalised error for a response element whose `errorcode` is not `0`.
    static func error(
        for element: ResponseElement, instance: String, requestID: String?, httpStatus: Int?
    ) -> CardGatewayError {
        let providerCode = element.errorCode ?? "missing"
        let fieldErrors = element.errorData.map {
            CardGatewayError.FieldError(field: $0, message: "refused by Trust Payments")
        }
        let row = rows[providerCode] ?? fallbackRow(for: providerCode)
        var message = row.message
        if let providerMessage = element.errorMessage, !providerMessage.isEmpty {
            message += " — Trust Payments: \(SafeText.scrub(providerMessage, maxLength: 200))"
        }
        return CardGatewayError(
            row.code, message, provider: instance, providerKind: .trustpayments, providerCode: providerCode,
            httpStatus: httpStatus, requestID: requestID, isRetryable: row.isRetryable, mayHaveReachedProvider: true,
            fieldErrors: fieldErrors
        )
    }

    /// For an `errorcode` the table does not list: the code's documented family decides, and the raw code is kept
    /// (2xxxx parent and request rules, 3xxxx and 1xxxx fields and format, 6xxxx processing, 7xxxx issuer
    /// outcomes). Anything else is treated as the gateway failing without a known outcome.
    static func fallbackRow(for code: String) -> Row {
        let family = code.first
        let text =
            "Trust Payments returned error code \(SafeText.scrub(code, maxLength: 16)), which this adapter does not know"
        switch family {
        case "1", "2", "3": return Row(code: .invalidRequest, isRetryable: false, message: text)
        case "7": return Row(code: .declined, isRetryable: false, message: text)
        default: return Row(code: .providerUnavailable, isRetryable: false, message: text)
        }
    }

    /// The error for a `settlestatus` that is not a success: 3 (cancelled) is a decline.
    static func cancelledError(instance: String, requestID: String?) -> CardGatewayError {
        CardGatewayError(
            .declined, "Trust Payments cancelled the transaction (settlestatus 3)", provider: instance,
            providerKind: .trustpayments, providerCode: "settlestatus 3", requestID: requestID, isRetryable: false,
            mayHaveReachedProvider: true
        )
    }

    /// The error for a non-200 HTTP answer. The code is the core's default table's (``HTTPStatusTable``): the
    /// Webservices API documents no body for HTTP errors, so the status means what HTTP says (401 is the gateway
    /// refusing the Webservices credentials, the Python client's code 6). The one difference is below: only a
    /// 429 is retryable and says the request was not processed; every other status leaves the outcome open.
    static func httpError(status: Int, instance: String, retryAfter: Duration?) -> CardGatewayError {
        let code = HTTPStatusTable.rule(for: status).code
        let message: String
        switch code {
        case .authenticationFailed:
            message = "Trust Payments refused the Webservices username or password (HTTP 401)"
        case .permissionDenied:
            message = "Trust Payments refused access (HTTP 403)"
        case .notFound:
            // By its HTTP meaning; in practice the base URL points at something other than the Webservices API.
            message = "Trust Payments answered not found (HTTP 404); check that the base URL is the Webservices host"
        case .rateLimited:
            message = "Trust Payments is limiting requests (HTTP 429)"
        case .providerUnavailable, .timeout:
            // A charge is the only Webservices call, and a 5xx or 408 says nothing about whether it was processed.
            message =
                "Trust Payments failed (HTTP \(status)); the payment may have been taken, so check the transaction in MyST before charging again"
        case .invalidResponse:
            message = "Trust Payments answered with an unexpected HTTP status \(status)"
        default:
            message = "Trust Payments refused the request (HTTP \(status))"
        }
        return CardGatewayError(
            code, message, provider: instance, providerKind: .trustpayments, providerCode: "http \(status)",
            // Only a rate limit says the request was turned away unprocessed; anything else leaves the
            // charge's outcome open, and a charge must never be sent twice blindly.
            httpStatus: status, isRetryable: status == 429, mayHaveReachedProvider: status != 429,
            retryAfter: retryAfter
        )
    }
}

extension TrustPaymentsProvider {
    // MARK: Shared checks

    /// Checks every element: the first with an `errorcode` other than 0, or with `settlestatus` 3, decides.
    func checkEveryElement(_ elements: [ResponseElement], requestID: String?, httpStatus: Int?) throws {
        for element in elements {
            guard let code = element.errorCode else {
                throw invalidResponse(
                    "a response element has no errorcode", requestID: requestID, httpStatus: httpStatus)
            }
            if code != "0" {
                throw TrustPaymentsErrors.error(
                    for: element, instance: setup.instance, requestID: requestID, httpStatus: httpStatus)
            }
            if element.settleStatus == TrustPaymentsAPI.SettleStatus.cancelled {
                throw TrustPaymentsErrors.cancelledError(instance: setup.instance, requestID: requestID)
            }
        }
    }
    func unsupported(_ message: String) -> CardGatewayError {
        CardGatewayError(
            .unsupported, message, provider: setup.instance, providerKind: .trustpayments,
            fieldErrors: [.init(field: "paymentMethod", message: "not supported for stored credentials")])
    }

    func signatureInvalid(_ reason: String) -> CardGatewayError {
        CardGatewayError(
            .signatureInvalid, "the Trust Payments response JWT was refused: \(reason)", provider: setup.instance,
            providerKind: .trustpayments)
    }

    func invalidResponse(_ message: String, requestID: String?, httpStatus: Int? = nil) -> CardGatewayError {
        CardGatewayError(
            .invalidResponse, message, provider: setup.instance, providerKind: .trustpayments, httpStatus: httpStatus,
            requestID: requestID, mayHaveReachedProvider: true
        )
    }
}
