@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OpenAPIRuntime
import Synchronization

/// What the generated handlers need beyond their typed input: the request's headers (for webhooks, idempotency keys
/// and SCA), its id and logger, and the authenticated user. Bound by ``RequestScopeMiddleware`` for the duration of
/// one operation.
struct RequestScope: Sendable {
    var request: HTTPRequest
    var operation: OpenAPISpec.Operation
    var requestID: String
    var logger: Logger
    var user: AppUser?
    var operationTimeout: Duration
    /// Bytes to send instead of the serialised output (the provider's ephemeral key, byte for byte).
    let verbatimBody: VerbatimBody
    /// What a reveal session's handler got to, for the audit line (``CardRevealAudit``).
    var revealAudit = RevealAuditNotes()

    @TaskLocal static var current: RequestScope?

    /// The scope of the running operation; only ``RequestScopeMiddleware`` runs handlers, so its absence is a bug.
    static func required() throws -> RequestScope {
        guard let scope = current else { throw ScopeMissing() }
        return scope
    }

    /// The authenticated user; ``AuthenticationMiddleware`` refuses every operation that needs one before its
    /// handler runs.
    func authenticatedUser() throws -> AppUser {
        guard let user else { throw APIProblem.unauthenticated(invalidToken: false) }
        return user
    }

    struct ScopeMissing: Error {}

    /// The context for the gateway: this request's logger, id and deadline, the caller's idempotency key (scoped to
    /// the user, so two users' keys never collide at a provider) and a solved SCA challenge.
    func operationContext() throws -> OperationContext {
        var context = OperationContext(logger: logger, deadline: .now + operationTimeout, requestID: requestID)
        if let key = request.headerFields[.idempotencyKey] {
            guard Self.isSafeToken(key, maxLength: 255) else {
                throw APIProblem.invalidRequest(
                    "Idempotency-Key must be 1 to 255 characters of letters, digits and -_.:",
                    errors: [FieldProblem(field: "Idempotency-Key", message: "must match ^[A-Za-z0-9_.:-]{1,255}$")]
                )
            }
            let scoped = MessageAuthentication.sha256(Data("\(user?.id ?? "")\n\(key)".utf8))
            context.idempotencyKey = String(ByteEncoding.hex(scoped).prefix(40))
        }
        // The two headers of earlier versions: refused rather than ignored, so that an app still sending them is
        // told what to send instead of being challenged again.
        if request.headerFields[.legacySCAEventID] != nil || request.headerFields[.legacySCAWalletOperationID] != nil {
            throw APIProblem.invalidRequest(
                "Send the solved challenge as one X-SCA-Authorization header: <eventId>;<walletOperationId>.",
                errors: [
                    FieldProblem(
                        field: "X-SCA-Authorization", message: "replaces X-SCA-Event-Id and X-SCA-Wallet-Operation-Id")
                ]
            )
        }
        // An empty value carries no solved challenge: the same as no header.
        if let value = request.headerFields[.scaAuthorization], !value.isEmpty {
            guard let sca = Self.scaAuthorization(value) else {
                throw APIProblem.invalidRequest(
                    "X-SCA-Authorization must be the challenge's eventId and walletOperationId, joined by a semicolon.",
                    errors: [
                        FieldProblem(
                            field: "X-SCA-Authorization", message: "must match \(Self.scaAuthorizationPattern)")
                    ]
                )
            }
            context.sca = sca
        }
        return context
    }

    /// The pattern `openapi.yaml` states for `X-SCA-Authorization`.
    static let scaAuthorizationPattern = "^(?:[A-Za-z0-9_.:-]{1,128};[A-Za-z0-9_.:-]{1,128})?$"

    /// `<eventId>;<walletOperationId>`, each 1 to 128 letters, digits and `-_.:`; nil for anything else.
    static func scaAuthorization(_ value: String) -> SCAAuthorization? {
        let parts = value.split(separator: ";", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let eventID = String(parts[0])
        let walletOperationID = String(parts[1])
        guard isSafeToken(eventID, maxLength: 128), isSafeToken(walletOperationID, maxLength: 128) else { return nil }
        return SCAAuthorization(eventID: eventID, walletOperationID: walletOperationID)
    }

    /// The caller's `X-Request-ID` when it is a short plain token, else a new one.
    static func requestID(from fields: HTTPFields) -> String {
        if let given = fields[.requestID], isSafeToken(given, maxLength: 64) { return given }
        return UUID().uuidString.lowercased()
    }

    /// 1 to `maxLength` characters of letters, digits and `-_.:`.
    static func isSafeToken(_ text: String, maxLength: Int) -> Bool {
        !text.isEmpty && text.utf8.count <= maxLength
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: ":")
            }
    }
}

/// A per-request slot for a body that must go out exactly as it was made (a provider's JSON, byte for byte), and
/// for a media type with parameters that the document's `content` key does not carry (Prometheus' text version).
/// Also for header fields the handler's output cannot carry (a provider's real-time authorization answer: its own
/// headers, whatever its status).
final class VerbatimBody: Sendable {
    private let state = Mutex<(bytes: Data?, contentType: String?, headers: HTTPFields)>((nil, nil, [:]))

    func set(_ data: Data) { state.withLock { $0.bytes = data } }
    func set(contentType: String) { state.withLock { $0.contentType = contentType } }
    /// Fields set on the response as given (each replacing a field of the same name).
    func set(headers: HTTPFields) { state.withLock { $0.headers = headers } }
    var value: Data? { state.withLock { $0.bytes } }
    var contentType: String? { state.withLock { $0.contentType } }
    var headers: HTTPFields { state.withLock { $0.headers } }
}

extension HTTPField.Name {
    static let requestID = HTTPField.Name("X-Request-ID")!
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    /// A solved SCA challenge: `<eventId>;<walletOperationId>`.
    static let scaAuthorization = HTTPField.Name("X-SCA-Authorization")!
    static let legacySCAEventID = HTTPField.Name("X-SCA-Event-Id")!
    static let legacySCAWalletOperationID = HTTPField.Name("X-SCA-Wallet-Operation-Id")!
    static let allow = HTTPField.Name("Allow")!
}

/// The outermost middleware of every generated operation: binds the ``RequestScope``, turns every error (a problem
/// the server raised, a gateway error, a request the generated code could not decode) into an
/// `application/problem+json` answer, sets `X-Request-ID` and `Cache-Control`, and writes one access-log line
/// (method, route template, status, duration, user id, error code; never a body, token or card data), and, for a
/// card details or PIN session, its audit line (``CardRevealAudit``), refusals before the handler included.
struct RequestScopeMiddleware: ServerMiddleware {
    let spec: OpenAPISpec
    let logger: Logger
    let operationTimeout: Duration
    let audit: CardRevealAudit

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let started = ContinuousClock.now
        let requestID = RequestScope.requestID(from: request.headerFields)
        let pathParameters = metadata.pathParameters
        var requestLogger = logger
        requestLogger[metadataKey: "request.id"] = .string(requestID)
        let operation =
            spec.operation(id: operationID)
            ?? OpenAPISpec.Operation(
                id: operationID, method: request.method.rawValue, path: request.path ?? "", requiresAuthentication: true
            )
        let scope = RequestScope(
            request: request, operation: operation, requestID: requestID, logger: requestLogger, user: nil,
            operationTimeout: operationTimeout, verbatimBody: VerbatimBody()
        )
        var response: HTTPResponse
        var responseBody: HTTPBody?
        var failure: ProblemRendering?
        let user = UserSlot()
        do {
            (response, responseBody) = try await UserSlot.$current.withValue(user) {
                try await RequestScope.$current.withValue(scope) {
                    try await next(request, body, metadata)
                }
            }
            if let verbatim = scope.verbatimBody.value { responseBody = HTTPBody(verbatim) }
            if let contentType = scope.verbatimBody.contentType { response.headerFields[.contentType] = contentType }
            let verbatimHeaders = scope.verbatimBody.headers
            for name in Set(verbatimHeaders.map(\.name)) {
                response.headerFields[fields: name] = verbatimHeaders[fields: name]
            }
        } catch {
            let rendering = ProblemRendering(Self.cause(of: error), requestID: requestID)
            failure = rendering
            (response, responseBody) = rendering.openAPIResponse()
        }
        Self.frame(&response, body: responseBody)
        response.headerFields[.requestID] = requestID
        if operation.requiresAuthentication {
            // Payloads, keys and tokens must not be kept by intermediaries or the app's URL cache.
            response.headerFields[.cacheControl] = "no-store"
        }
        let level: Logger.Level = response.status.code >= 500 ? .warning : .info
        // The line's metadata is built only when the line is written.
        if requestLogger.logLevel <= level {
            var metadata: Logger.Metadata = [
                "http.method": .string(operation.method),
                "http.route": .string(operation.path),
                "http.status": .stringConvertible(response.status.code),
                "duration_ms": .stringConvertible((ContinuousClock.now - started).milliseconds),
            ]
            if let userID = user.value { metadata["user.id"] = .string(userID) }
            if let failure {
                metadata["error.code"] = .string(failure.logCode)
                if let provider = failure.provider { metadata["provider"] = .string(provider) }
            }
            requestLogger.log(level: level, "request", metadata: metadata)
        }
        if operationID == CardRevealAudit.operationID {
            audit.record(
                requestID: requestID, userID: user.value,
                cardID: pathParameters["cardId"].map(String.init),
                purpose: pathParameters["purpose"].map(String.init), status: Int(response.status.code),
                failure: failure, notes: scope.revealAudit.value
            )
        }
        return (response, responseBody)
    }

    /// The error a handler or middleware raised, or what the generated code could not decode, without the runtime's
    /// wrapper (whose description carries the request and must never reach a log or a client).
    static func cause(of error: any Error) -> any Error {
        guard let serverError = error as? ServerError else { return error }
        let underlying = serverError.underlyingError
        switch underlying {
        case is APIProblem, is CardGatewayError, is CancellationError, is any HTTPResponseError:
            return underlying
        case let decoding as DecodingError:
            return APIProblem.decoding(decoding)
        default:
            switch serverError.httpStatus {
            case .unsupportedMediaType: return APIProblem.unsupportedMediaType()
            case .badRequest:
                return APIProblem.invalidRequest("The request's parameters or body do not match the API description.")
            case .notAcceptable: return APIProblem.notAcceptable()
            default: return underlying
            }
        }
    }

    /// Makes `Content-Length` describe the body that is actually sent. The generated code sets it from the body
    /// it encoded; a body replaced afterwards (the provider's ephemeral key byte for byte, a problem) would
    /// otherwise go out under the old length, and Hummingbird keeps a length header it is given, so a client
    /// would read a cut or overlong body. A body of unknown length goes out without the header (chunked).
    static func frame(_ response: inout HTTPResponse, body: HTTPBody?) {
        guard let body else {
            response.headerFields[.contentLength] = nil
            return
        }
        switch body.length {
        case .known(let length): response.headerFields[.contentLength] = String(length)
        case .unknown: response.headerFields[.contentLength] = nil
        }
    }
}

/// Where ``AuthenticationMiddleware`` leaves the user id for the access log of ``RequestScopeMiddleware``.
final class UserSlot: Sendable {
    private let id = Mutex<String?>(nil)
    @TaskLocal static var current: UserSlot?

    func set(_ value: String) { id.withLock { $0 = value } }
    var value: String? { id.withLock { $0 } }
}

/// The request context of the server's routes: Hummingbird's, with the client's address (for the per-address rate
/// limit; nil in router tests without a connection).
public struct ProvisioningRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The address the connection came from (a proxy's, behind a reverse proxy).
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}

/// `Authorization: Bearer <token>` for every operation the document does not mark `security: []`: the
/// ``Authenticator`` turns the token into a user (401 when missing, malformed or unknown), bound into the
/// ``RequestScope`` for the handler; then the user's rate limit is spent (429 past it). Runs before the request body
/// is decoded.
struct AuthenticationMiddleware: ServerMiddleware {
    let authenticator: any Authenticator
    let userRateLimiter: RateLimiter?

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard var scope = RequestScope.current else { throw RequestScope.ScopeMissing() }
        guard scope.operation.requiresAuthentication else { return try await next(request, body, metadata) }
        let user = try await authenticate(request.headerFields)
        scope.user = user
        UserSlot.current?.set(user.id)
        if let userRateLimiter,
            let wait = userRateLimiter.spend(user.id, cost: Self.cost(of: operationID, path: request.path))
        {
            throw APIProblem.rateLimited(retryAfter: wait, scope: "user")
        }
        return try await RequestScope.$current.withValue(scope) { try await next(request, body, metadata) }
    }

    func authenticate(_ fields: HTTPFields) async throws -> AppUser {
        guard let header = fields[.authorization] else { throw APIProblem.unauthenticated(invalidToken: false) }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIProblem.unauthenticated(invalidToken: false)
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, token.utf8.count <= 4096, let user = try await authenticator.user(forBearerToken: token)
        else {
            throw APIProblem.unauthenticated(invalidToken: true)
        }
        return user
    }

    /// What one call spends of the user's bucket: a quarter for reads served without a provider call (the cached
    /// wallet-extension bundle, its status, the credential list), one for everything that calls a provider.
    static func cost(of operationID: String, path: String?) -> Double {
        switch operationID {
        case "walletExtension":
            let refresh =
                path.flatMap { URLComponents(string: $0)?.queryItems }?.contains {
                    $0.name == "refresh" && $0.value == "true"
                } ?? false
            return refresh ? 1 : 0.25
        case "walletExtensionStatus", "listCredentials":
            return 0.25
        default:
            return 1
        }
    }
}

/// The outermost Hummingbird middleware: bounds every request body (413 past the limit, read before any handler),
/// and answers what the generated routing does not: 405 with `Allow` for a method a known path does not serve,
/// 404 for an unknown path, both as problems.
struct RoutingProblemMiddleware: RouterMiddleware {
    typealias Context = ProvisioningRequestContext
    let spec: OpenAPISpec
    let logger: Logger
    let maxRequestBodyBytes: Int
    let maxWebhookBodyBytes: Int
    /// Requests a minute to `/v1` per client address; nil: no limit.
    let addressRateLimiter: RateLimiter?
    /// For the audit line of a card details or PIN session refused here (the address's limit, a body too large).
    let audit: CardRevealAudit

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var request = request
        do {
            // The client address's allowance first, before the body is read or the token checked.
            if let addressRateLimiter, request.uri.path.hasPrefix("/v1/"),
                let address = context.remoteAddress?.ipAddress,
                let wait = addressRateLimiter.spend(address)
            {
                throw APIProblem.rateLimited(retryAfter: wait, scope: "client address")
            }
            // A provider's webhooks and real-time authorization requests share the webhook limit.
            let fromProvider =
                request.uri.path.hasPrefix("/webhooks/") || request.uri.path.hasPrefix("/authorizations/")
            let limit = fromProvider ? maxWebhookBodyBytes : maxRequestBodyBytes
            // A declared length past the limit is refused before a byte of the body is read.
            if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > limit {
                throw HTTPError(.contentTooLarge)
            }
            _ = try await request.collectBody(upTo: limit)
            return try await next(request, context)
        } catch {
            var cause: any Error = error
            if let httpError = error as? HTTPError, httpError.status == .notFound,
                let allowed = spec.allowedMethods(forPath: request.uri.path), !allowed.contains(request.method.rawValue)
            {
                cause = APIProblem.methodNotAllowed(allowed: allowed)
            }
            let requestID = RequestScope.requestID(from: request.headers)
            let rendering = ProblemRendering(cause, requestID: requestID)
            var response = rendering.response()
            response.headers[.requestID] = requestID
            logger.info(
                "request",
                metadata: [
                    "http.method": .string(request.method.rawValue), "http.route": "unmatched",
                    "http.status": .stringConvertible(response.status.code), "request.id": .string(requestID),
                    "error.code": .string(rendering.logCode),
                ])
            if let target = CardRevealAudit.target(method: request.method.rawValue, path: request.uri.path) {
                audit.record(
                    requestID: requestID, userID: nil, cardID: target.cardID, purpose: target.purpose,
                    status: Int(response.status.code), failure: rendering, notes: RevealAuditNotes.Value())
            }
            return response
        }
    }
}

/// RFC 3339 date-times as the document's `format: date-time` allows them (either case of `T` and `Z`, offsets,
/// any number of fractional digits) in; whole seconds in UTC (`2025-01-31T12:00:00Z`) out. Both through the core's
/// `InternetDateTime`.
struct RFC3339DateTranscoder: DateTranscoder {
    static let refusal = "not an RFC 3339 date-time"

    func encode(_ date: Date) throws -> String { InternetDateTime.format(date) }

    func decode(_ text: String) throws -> Date {
        guard let date = InternetDateTime.parse(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: Self.refusal))
        }
        return date
    }
}

/// Runs after authentication, before the generated decoding. No schema in the document allows `null`, but the
/// generated decoding reads a `null` optional field as absent: a JSON body holding `null` anywhere is refused here
/// with 400, naming the field. So is a body that gives one key twice in an object (the decoding would keep the
/// last). The body was bounded by ``RoutingProblemMiddleware`` before it got here.
struct NullFieldMiddleware: ServerMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let operation = RequestScope.current?.operation else { throw RequestScope.ScopeMissing() }
        return try await next(request, try await refusingNulls(body, of: operation), metadata)
    }

    /// `body`, read whole, unless it holds a `null`.
    func refusingNulls(_ body: HTTPBody?, of operation: OpenAPISpec.Operation) async throws -> HTTPBody? {
        guard operation.hasJSONBody, let body else { return body }
        let data = try await Data(collecting: body, upTo: .max)
        // A key given twice would be read as its last value; which one the app meant is not known, so refuse it.
        if let key = DuplicateKeys.first(in: data) {
            throw APIProblem.invalidRequest(
                "The body gives the key \(key) more than once.",
                errors: [FieldProblem(field: key, message: "is given more than once")]
            )
        }
        if let value = try? JSONValue.parse(data), let path = Self.nullPath(in: value) {
            throw APIProblem.invalidRequest(
                "\(path) must not be null; leave it out instead.",
                errors: [FieldProblem(field: path, message: "must not be null")])
        }
        return HTTPBody(data)
    }

    /// The JSON path of the first `null` in `value`, if any.
    static func nullPath(in value: JSONValue, path: String = "") -> String? {
        switch value {
        case .null:
            return path.isEmpty ? "body" : path
        case .object(let members):
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                let name = SafeText.scrub(key, maxLength: 64)
                if let found = Self.nullPath(in: member, path: path.isEmpty ? name : "\(path).\(name)") { return found }
            }
            return nil
        case .array(let items):
            for (index, item) in items.enumerated() {
                if let found = Self.nullPath(in: item, path: "\(path)[\(index)]") { return found }
            }
            return nil
        default:
            return nil
        }
    }
}

/// Finds a key given twice in one JSON object, which Foundation's decoding accepts (the last one wins).
enum DuplicateKeys {
    /// The first key that an object of `data` repeats, scrubbed for a message; nil when there is none or when `data`
    /// is not JSON (the decoding reports that).
    static func first(in data: Data) -> String? {
        enum Frame { case object(keys: Set<String>, expectingKey: Bool), array }
        var stack: [Frame] = []
        let bytes = [UInt8](data)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                guard stack.count < 512 else { return nil }
                stack.append(.object(keys: [], expectingKey: true))
            case UInt8(ascii: "["):
                guard stack.count < 512 else { return nil }
                stack.append(.array)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard !stack.isEmpty else { return nil }
                stack.removeLast()
            case UInt8(ascii: ","):
                if case .object(let keys, _)? = stack.last {
                    stack[stack.count - 1] = .object(keys: keys, expectingKey: true)
                }
            case UInt8(ascii: "\""):
                // The string's end: the next quote not escaped by a backslash.
                var end = index + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard end < bytes.count else { return nil }
                if case .object(var keys, true)? = stack.last {
                    // Compare keys as decoded, so that "a" and "\u0061" are the same key.
                    guard let key = try? JSONDecoder().decode(String.self, from: Data(bytes[index...end])) else {
                        return nil
                    }
                    if !keys.insert(key).inserted { return SafeText.scrub(key, maxLength: 64) }
                    stack[stack.count - 1] = .object(keys: keys, expectingKey: false)
                }
                index = end
            default:
                break
            }
            index += 1
        }
        return nil
    }
}
