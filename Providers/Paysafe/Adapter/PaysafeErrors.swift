@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// Paysafe error responses → ``CardGatewayError``, in one table.
///
/// Paysafe answers errors as `{"error":{"code","message","details","fieldErrors":[{"field","error"}]}}` with a
/// string code. A status ≥ 500 always maps to `providerUnavailable` (retryable). Otherwise the provider code is
/// looked up first, then the HTTP status; an undocumented code maps by its status and is kept verbatim in
/// `providerCode`. A 401 carrying an SCA challenge never reaches this table (see ``PaysafeSCA``).
///
/// | HTTP | Paysafe code | normalised | source |
/// |------|--------------|------------|--------|
/// | any 4xx | 5269 (ID in the URL not found) | notFound | [C] |
/// | any 4xx | 5068 (field errors) | invalidRequest + field errors | Paysafe REST common errors [U for wallets] |
/// | any 4xx | 5023 (request not parseable) | invalidRequest | Paysafe REST common errors [U for wallets] |
/// | any 4xx | 5279 (credentials invalid) | authenticationFailed | Paysafe REST common errors [U for wallets] |
/// | any 4xx | 5275 (credentials expired; 401) | authenticationFailed, after the token was renewed once | [C] |
/// | any 4xx | 5270 (no permission for the data) | permissionDenied | Paysafe REST common errors [U for wallets] |
/// | any 4xx | 1200 (call rate exceeded) | rateLimited | Paysafe REST common errors [U for wallets] |
/// | 400 | other | invalidRequest | [C] |
/// | 401 | other (no SCA challenge) | authenticationFailed | [C] |
/// | 403 | other | permissionDenied | |
/// | 404 | other | notFound | |
/// | 405 | other | unsupported (the path or method is wrong: see ``PaysafeAPI``) | |
/// | 409 | other | conflict | |
/// | 422 | other | invalidRequest | |
/// | 429 | other | rateLimited, with `Retry-After` | [C] |
/// | 5xx | any | providerUnavailable, retryable, may have reached Paysafe | |
/// | other 4xx | other | invalidRequest | |
enum PaysafeErrors: Sendable {
    /// One row of the table keyed by Paysafe's code.
    struct CodeRule: Sendable, Equatable {
        var providerCode: String
        var code: CardGatewayError.Code
        var meaning: String
    }

    /// Rows keyed by Paysafe code; they win over the status rows for any 4xx status. Only codes from Paysafe's
    /// documents: Paysafe publishes no code for a card state that forbids an operation, so none is guessed (the adapter
    /// reads the card first and refuses such a change with `invalidCardState` itself; the simulator's `DW-CARD-*` codes
    /// are its own and map by their HTTP status).
    static let codeRules: [CodeRule] = [
        CodeRule(providerCode: "5269", code: .notFound, meaning: "the id in the URL does not exist"),
        CodeRule(providerCode: "5068", code: .invalidRequest, meaning: "field errors"),
        CodeRule(providerCode: "5023", code: .invalidRequest, meaning: "the request is not parseable"),
        CodeRule(providerCode: "5279", code: .authenticationFailed, meaning: "the credentials are invalid"),
        CodeRule(providerCode: "5275", code: .authenticationFailed, meaning: "the credentials have expired"),
        CodeRule(providerCode: "5270", code: .permissionDenied, meaning: "the credentials may not access this data"),
        CodeRule(providerCode: "1200", code: .rateLimited, meaning: "the call rate limit was exceeded"),
    ]

    /// The normalised code for an HTTP status when no code row matched: the core's default table
    /// (``HTTPStatusTable``) with one difference. The methods of Paysafe's card update and tokenization
    /// completion are unconfirmed (`PATCH`, marked [U] in the provider facts; Paysafe may take `PUT`), so a 405
    /// says this adapter's request is one Paysafe does not offer, which the caller cannot fix: `unsupported`.
    static func code(forStatus status: Int) -> CardGatewayError.Code {
        HTTPStatusTable.rule(for: status, overrides: statusOverrides).code
    }

    static let statusOverrides: [Int: HTTPStatusRule] = [
        405: HTTPStatusRule(.unsupported, retryable: false, mayHaveReachedProvider: false)
    ]

    /// The normalised code for a Paysafe error response.
    static func code(status: Int, providerCode: String?) -> CardGatewayError.Code {
        if status >= 500 { return .providerUnavailable }
        if let providerCode,
            let rule = codeRules.first(where: { $0.providerCode.caseInsensitiveCompare(providerCode) == .orderedSame })
        {
            return rule.code
        }
        return code(forStatus: status)
    }

    /// The error for a non-success response to `operation` ("get card", "tokenize").
    static func error(for response: ProviderResponse, operation: String, instance: String) -> CardGatewayError {
        let envelope = try? JSONDecoder().decode(PaysafeWireErrorEnvelope.self, from: response.body)
        let body = envelope?.error
        let providerCode = body?.code?.value ?? response.headers[PaysafeAPI.applicationStatusCodeHeader]
        let code = code(status: response.status, providerCode: providerCode)

        var message = "Paysafe refused to \(operation) (HTTP \(response.status)"
        if let providerCode { message += ", code \(SafeText.scrub(providerCode, maxLength: 64))" }
        message += ")"
        let providerWords = ([body?.message] + (body?.details ?? []).map(Optional.some)).compactMap { $0 }.filter {
            !$0.isEmpty
        }
        if !providerWords.isEmpty {
            message += ": " + SafeText.scrub(providerWords.joined(separator: "; "), maxLength: 400)
        } else if code == .unsupported {
            message += ": the path or method may be wrong (see PaysafeAPI)"
        }

        let fieldErrors = (body?.fieldErrors ?? []).map { item in
            CardGatewayError.FieldError(
                field: SafeText.scrub(item.field ?? "", maxLength: 120), message: item.error ?? "")
        }
        let retryAfter = [429, 503].contains(response.status) || code == .rateLimited ? response.retryAfter : nil
        return CardGatewayError(
            code, message, provider: instance, providerKind: .paysafe, providerCode: providerCode,
            httpStatus: response.status,
            requestID: requestID(response.headers), mayHaveReachedProvider: response.status >= 500,
            retryAfter: retryAfter,
            fieldErrors: fieldErrors
        )
    }

    static func requestID(_ headers: HTTPFields) -> String? {
        for name in PaysafeAPI.requestIDHeaders {
            if let value = headers[name], !value.isEmpty { return value }
        }
        return nil
    }
}
