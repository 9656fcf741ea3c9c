import CardGateway
import Foundation
import HTTPTypes
import Hummingbird
import OpenAPIRuntime

/// How one ``CardGatewayError`` code is answered over HTTP.
public struct ErrorStatus: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The problem's `title`.
    public var title: String
    /// The problem's `detail`: a fixed sentence, so that nothing a provider said reaches the app.
    public var detail: String

    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - title: the problem's title.
    ///   - detail: the fixed sentence the app gets.
    public init(status: Int, title: String, detail: String) {
        self.status = status
        self.title = title
        self.detail = detail
    }
}

/// The one table that turns ``CardGatewayError`` codes into HTTP statuses.
///
/// Codes the table does not know (the code set can grow) are answered with 500.
public enum ErrorStatusTable: Sendable {
    /// Every row, by code.
    public static let rows: [CardGatewayError.Code: ErrorStatus] = [
        .invalidRequest: ErrorStatus(
            status: 400, title: "Invalid request", detail: "The request was refused as invalid."),
        .authenticationFailed: ErrorStatus(
            status: 502, title: "Provider authentication failed",
            detail: "The server could not authenticate with the card provider."),
        .permissionDenied: ErrorStatus(
            status: 502, title: "Provider permission denied",
            detail: "The card provider does not allow the server this operation."),
        .notFound: ErrorStatus(
            status: 404, title: "Not found", detail: "The card provider does not know this resource."),
        .cardNotEligible: ErrorStatus(
            status: 409, title: "Card not eligible", detail: "The card cannot be used for this operation now."),
        .invalidCardState: ErrorStatus(
            status: 409, title: "Invalid card state", detail: "The card's state does not allow this operation."),
        .scaRequired: ErrorStatus(
            status: 403, title: "Strong customer authentication required",
            detail:
                "Solve the challenge, then repeat the request with X-SCA-Authorization: <eventId>;<walletOperationId>."),
        .declined: ErrorStatus(status: 402, title: "Declined", detail: "The provider declined the request."),
        .conflict: ErrorStatus(
            status: 409, title: "Conflict", detail: "The request conflicts with the current state of the resource."),
        .rateLimited: ErrorStatus(
            status: 429, title: "Too many requests",
            detail: "The card provider is limiting requests; retry after the delay in Retry-After."),
        .providerUnavailable: ErrorStatus(
            status: 503, title: "Provider unavailable", detail: "The card provider is unavailable; retry later."),
        .timeout: ErrorStatus(
            status: 504, title: "Provider timeout", detail: "The card provider did not answer in time."),
        .unsupported: ErrorStatus(
            status: 501, title: "Not supported", detail: "This operation is not available for this card or provider."),
        .invalidConfiguration: ErrorStatus(
            status: 500, title: "Server misconfigured",
            detail: "The server's gateway configuration cannot serve this request."),
        .invalidResponse: ErrorStatus(
            status: 502, title: "Invalid provider response",
            detail: "The card provider answered with something the server could not read."),
        .signatureInvalid: ErrorStatus(
            status: 401, title: "Invalid signature", detail: "The webhook's signature is missing, wrong or stale."),
        .transport: ErrorStatus(
            status: 502, title: "Provider unreachable",
            detail: "The server could not exchange the request with the card provider."),
    ]

    static let unknown = ErrorStatus(
        status: 500, title: "Internal error", detail: "The request failed inside the server.")

    /// The row for `code`; 500 for a code the table does not know.
    public static func row(for code: CardGatewayError.Code) -> ErrorStatus { rows[code] ?? unknown }

    /// The HTTP status for `code`.
    public static func status(for code: CardGatewayError.Code) -> Int { row(for: code).status }
}

/// One field that was wrong, named by its JSON path. Messages are the server's own words, never the value.
struct FieldProblem: Sendable, Encodable, Equatable {
    var field: String
    var message: String
}

/// An error the server raises itself (bad input, unknown card, missing token), answered as an RFC 7807 problem.
struct APIProblem: Error, Sendable {
    var status: HTTPResponse.Status
    /// The last part of the problem `type` URI.
    var type: String
    var title: String
    var detail: String
    /// The ``CardGatewayError`` code that means the same, when there is one.
    var code: CardGatewayError.Code?
    var errors: [FieldProblem] = []
    var headers: HTTPFields = [:]
    /// Set only on refusals that may succeed later (a rate limit): the problem is then retryable, and the same
    /// number of seconds goes into `Retry-After`.
    var retryAfterSeconds: Int? = nil

    /// Past the rate limit of the user or of the client address: 429, retryable after the delay, nothing sent on.
    static func rateLimited(retryAfter: Duration, scope: String) -> APIProblem {
        let seconds = ProblemRendering.seconds(retryAfter)
        return APIProblem(
            status: .tooManyRequests, type: "rateLimited", title: "Too many requests",
            detail: "Too many requests from this \(scope); retry after the delay in Retry-After.", code: .rateLimited,
            headers: [.retryAfter: String(seconds)], retryAfterSeconds: seconds
        )
    }

    /// The identity provider's keys cannot be fetched: whether the token is valid is not known now.
    static let authenticationUnavailable = APIProblem(
        status: .serviceUnavailable, type: "authenticationUnavailable", title: "Authentication unavailable",
        detail: "The bearer token cannot be checked now; retry after the delay in Retry-After.", code: nil,
        headers: [.retryAfter: "5"], retryAfterSeconds: 5
    )

    static func invalidRequest(_ detail: String, errors: [FieldProblem] = []) -> APIProblem {
        APIProblem(
            status: .badRequest, type: "invalidRequest", title: "Invalid request", detail: detail,
            code: .invalidRequest, errors: errors)
    }

    static func notFound(_ detail: String) -> APIProblem {
        APIProblem(status: .notFound, type: "notFound", title: "Not found", detail: detail, code: .notFound)
    }

    /// The same answer for an unknown card and for another user's card.
    static let cardNotFound = APIProblem.notFound("No card with this id belongs to the authenticated user.")
    static let tokenNotFound = APIProblem.notFound("The card has no wallet token with this id.")

    static func unauthenticated(invalidToken: Bool) -> APIProblem {
        var challenge = "Bearer realm=\"provisioning-server\""
        if invalidToken { challenge += ", error=\"invalid_token\"" }
        return APIProblem(
            status: .unauthorized, type: "unauthenticated", title: "Authentication required",
            detail: invalidToken
                ? "The bearer token is not valid." : "Send the app user's token as Authorization: Bearer <token>.",
            code: nil, headers: [.wwwAuthenticate: challenge]
        )
    }

    /// A body declared as something other than JSON: 415, naming the header.
    static func unsupportedMediaType() -> APIProblem {
        APIProblem(
            status: .unsupportedMediaType, type: "unsupportedMediaType", title: "Unsupported media type",
            detail: "Send the body as application/json.", code: .invalidRequest,
            errors: [FieldProblem(field: "Content-Type", message: "must be application/json")]
        )
    }

    /// An `Accept` header that excludes the only media type the operation answers with: 406, naming the header.
    static func notAcceptable() -> APIProblem {
        APIProblem(
            status: .notAcceptable, type: "notAcceptable", title: "Not acceptable",
            detail: "The Accept header excludes the media type this operation answers with.", code: .invalidRequest,
            errors: [FieldProblem(field: "Accept", message: "must allow the operation's media type")]
        )
    }

    /// A method the path does not serve: 405, with the methods it does serve in `Allow`.
    static func methodNotAllowed(allowed: [String]) -> APIProblem {
        let list = allowed.joined(separator: ", ")
        return APIProblem(
            status: .methodNotAllowed, type: "methodNotAllowed", title: "Method not allowed",
            detail: "This path serves \(list) only.", code: .invalidRequest, headers: [.allow: list]
        )
    }

    /// A body or parameter the generated code could not decode: 400, naming the field by its JSON path (never the
    /// value; the decoder's own description can quote it, so it is not used).
    static func decoding(_ error: DecodingError) -> APIProblem {
        let path: [any CodingKey]
        let message: String
        switch error {
        case .typeMismatch(_, let context):
            path = context.codingPath
            message =
                context.codingPath.isEmpty ? "holds a parameter or body value of the wrong type" : "has the wrong type"
        case .valueNotFound(_, let context):
            path = context.codingPath
            message = context.codingPath.isEmpty ? "matches none of the shapes this operation accepts" : "is required"
        case .keyNotFound(let key, let context):
            if context.debugDescription.contains("discriminator") {
                // The runtime puts the refused value last in the path; the field is the discriminator's key.
                path = context.codingPath.dropLast() + [key]
                message = "has a value this operation does not accept"
            } else {
                path = context.codingPath + [key]
                message = "is required"
            }
        case .dataCorrupted(let context):
            path = context.codingPath
            if context.debugDescription.hasPrefix("Additional properties") {
                message = "is not a field of this request"
            } else if context.debugDescription == RFC3339DateTranscoder.refusal {
                message = "holds a date-time that is not RFC 3339 (such as 2025-01-31T12:00:00Z)"
            } else {
                message =
                    context.codingPath.isEmpty
                    ? "holds a parameter or body value that openapi.yaml does not allow" : "is not valid here"
            }
        @unknown default:
            path = []
            message = "holds a parameter or body value that openapi.yaml does not allow"
        }
        // Without a path the decoder does not say which parameter or body field it refused.
        let field =
            path.isEmpty && !(message == "matches none of the shapes this operation accepts")
            ? "request" : Self.fieldName(path)
        return invalidRequest("\(field) \(message).", errors: [FieldProblem(field: field, message: message)])
    }

    /// `consent.recordedAt`, `certificates[1]`; `body` for the whole body.
    static func fieldName(_ path: [any CodingKey]) -> String {
        var name = ""
        for key in path {
            if let index = key.intValue {
                name += "[\(index)]"
            } else {
                let safe = SafeText.scrub(key.stringValue, maxLength: 64)
                name += name.isEmpty ? safe : ".\(safe)"
            }
        }
        return name.isEmpty ? "body" : name
    }

    /// The card's provider does not offer the operation at all: a fact about this card, answered 409 (the client
    /// can do nothing to make it work), before anything is sent.
    static func notOfferedForCard(_ operation: GatewayOperation) -> APIProblem {
        APIProblem(
            status: .conflict, type: "unsupported", title: "Not available for this card",
            detail: "The card's provider does not offer \(operation.rawValue).", code: .unsupported
        )
    }

    static func unsupported(_ detail: String) -> APIProblem {
        APIProblem(
            status: .notImplemented, type: "unsupported", title: "Not supported", detail: detail, code: .unsupported)
    }
}

/// The RFC 7807 body (`application/problem+json`).
struct ProblemBody: Encodable, Sendable {
    struct Challenge: Encodable, Sendable {
        struct Verification: Encodable, Sendable {
            var method: String
            var channel: String?
            var target: String?
        }

        var eventId: String
        var walletOperationId: String
        var mode: String
        var verifications: [Verification]
        var created: Date?
        var expires: Date?

        init(_ challenge: SCAChallenge) {
            eventId = challenge.eventID
            walletOperationId = challenge.walletOperationID
            mode = challenge.mode
            verifications = challenge.verifications.map {
                Verification(method: $0.method, channel: $0.channel, target: $0.target)
            }
            created = challenge.created
            expires = challenge.expires
        }
    }

    var type: String
    var title: String
    var status: Int
    var detail: String
    var code: String?
    /// The provider instance involved, for gateway errors.
    var provider: String?
    /// Whether repeating the same request later may succeed.
    var retryable: Bool?
    /// Whether the request may have reached the provider: when true and `retryable` is false, check the outcome
    /// (e.g. read the card) before repeating it.
    var mayHaveReachedProvider: Bool?
    /// Seconds to wait before repeating, as in `Retry-After`; only on retryable problems.
    var retryAfterSeconds: Int?
    /// The provider's own id of its answer (its request-id header), for the provider's support.
    var providerRequestId: String?
    var errors: [FieldProblem]?
    var challenge: Challenge?
    var requestId: String?

    static func typeURI(_ name: String) -> String { "urn:cardgateway:problem:\(name)" }
}

/// A short error attached to one item of a list (a card whose provider failed), shaped like a problem.
struct ItemError: Encodable, Sendable {
    var type: String
    var title: String
    var status: Int
    var code: String?
    var retryable: Bool?
}

/// Turns any error into the problem the app gets, and the safe facts the access log records.
struct ProblemRendering: Sendable {
    var status: HTTPResponse.Status
    var body: ProblemBody
    var headers: HTTPFields
    /// For the access log: a code, never a message.
    var logCode: String
    var provider: String?

    /// The problem's type without its URI prefix (`wrongRevealFlow`, `rateLimited`), for the audit trail's reason.
    var reason: String {
        let prefix = ProblemBody.typeURI("")
        return body.type.hasPrefix(prefix) ? String(body.type.dropFirst(prefix.count)) : logCode
    }

    init(_ error: any Error, requestID: String) {
        var headers: HTTPFields = [:]
        switch error {
        case let problem as APIProblem:
            status = problem.status
            // The server's own refusals: nothing reached a provider, and the same request will be refused again, but
            // for a rate limit (retryable after the delay that Retry-After gives).
            body = ProblemBody(
                type: ProblemBody.typeURI(problem.type), title: problem.title, status: problem.status.code,
                detail: problem.detail,
                code: problem.code?.rawValue ?? problem.type, retryable: problem.retryAfterSeconds != nil,
                mayHaveReachedProvider: false,
                retryAfterSeconds: problem.retryAfterSeconds, errors: problem.errors.isEmpty ? nil : problem.errors,
                requestId: requestID
            )
            headers = problem.headers
            logCode = problem.code?.rawValue ?? problem.type
        case let gatewayError as CardGatewayError:
            let row = ErrorStatusTable.row(for: gatewayError.code)
            status = HTTPResponse.Status(code: row.status)
            var body = ProblemBody(
                type: ProblemBody.typeURI(gatewayError.code.rawValue), title: row.title, status: row.status,
                detail: row.detail,
                code: gatewayError.code.rawValue, provider: gatewayError.provider, retryable: gatewayError.isRetryable,
                mayHaveReachedProvider: gatewayError.mayHaveReachedProvider, providerRequestId: gatewayError.requestID,
                requestId: requestID
            )
            if !gatewayError.fieldErrors.isEmpty {
                // Field names only: the provider's messages stay out of the app's hands.
                body.errors = gatewayError.fieldErrors.map {
                    FieldProblem(field: SafeText.scrub($0.field, maxLength: 100), message: "refused")
                }
            }
            if gatewayError.code == .signatureInvalid {
                // A webhook's signature is how its sender authenticates; RFC 9110 wants a challenge on every 401.
                headers[.wwwAuthenticate] = "Signature realm=\"webhooks\""
            }
            if gatewayError.code == .scaRequired, let challenge = gatewayError.scaChallenge {
                body.challenge = ProblemBody.Challenge(challenge)
            }
            // Retry-After only where the body says the request may be repeated, so header and body never disagree.
            if gatewayError.isRetryable,
                gatewayError.code == .rateLimited
                    || (gatewayError.code == .providerUnavailable && gatewayError.retryAfter != nil)
            {
                let seconds = Self.seconds(gatewayError.retryAfter ?? .seconds(1))
                headers[.retryAfter] = String(seconds)
                body.retryAfterSeconds = seconds
            }
            self.body = body
            logCode = gatewayError.code.rawValue
            provider = gatewayError.provider
        case let httpError as any HTTPResponseError:
            status = httpError.status
            let tooLarge = httpError.status == .contentTooLarge
            body = ProblemBody(
                type: ProblemBody.typeURI(tooLarge ? "contentTooLarge" : "http\(httpError.status.code)"),
                title: httpError.status.reasonPhrase, status: httpError.status.code,
                detail: tooLarge
                    ? "The request body is larger than the server accepts." : "The request cannot be served.",
                code: httpError.status == .notFound
                    ? CardGatewayError.Code.notFound.rawValue
                    : (httpError.status.code < 500 ? CardGatewayError.Code.invalidRequest.rawValue : "internal"),
                retryable: false, mayHaveReachedProvider: false, requestId: requestID
            )
            logCode = "http\(httpError.status.code)"
        case is CancellationError:
            status = .serviceUnavailable
            body = ProblemBody(
                type: ProblemBody.typeURI("cancelled"), title: "Cancelled", status: 503,
                detail: "The request was cancelled.", code: "cancelled",
                retryable: false, mayHaveReachedProvider: true, requestId: requestID
            )
            logCode = "cancelled"
        default:
            let row = ErrorStatusTable.unknown
            status = HTTPResponse.Status(code: row.status)
            // Whether a provider was reached is unknown: say it may have been, so that the app checks before repeating.
            body = ProblemBody(
                type: ProblemBody.typeURI("internal"), title: row.title, status: row.status, detail: row.detail,
                code: "internal",
                retryable: false, mayHaveReachedProvider: true, requestId: requestID
            )
            logCode = "internal(\(type(of: error)))"
        }
        self.headers = headers
    }

    /// A whole number of seconds, rounded up, at least 1.
    static func seconds(_ duration: Duration) -> Int {
        max(1, Int(duration.timeInterval.rounded(.up)))
    }

    /// The short form used inside lists.
    var itemError: ItemError {
        ItemError(type: body.type, title: body.title, status: body.status, code: body.code, retryable: body.retryable)
    }

    func response() -> Response {
        var response = JSONOutput.response(body, status: status, contentType: "application/problem+json")
        response.headers.append(contentsOf: headers)
        return response
    }

    /// The same answer for the generated routing.
    func openAPIResponse() -> (HTTPResponse, HTTPBody?) {
        var fields = headers
        fields[.contentType] = "application/problem+json"
        let data = (try? JSONOutput.encoder().encode(body)) ?? Data()
        return (HTTPResponse(status: status, headerFields: fields), HTTPBody(data))
    }
}
