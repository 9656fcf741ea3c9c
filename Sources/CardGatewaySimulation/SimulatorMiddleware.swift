import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// Errors the kit throws internally to make Hummingbird close a connection without a (complete) response.
enum SimulatedConnectionFault: Error {
    /// The connection was closed before any response was written.
    case dropped
    /// The response body was cut short on purpose.
    case truncated
}

/// The middleware the kit installs in front of every simulator's routes: control path, body collection, faults,
/// provider-shaped errors and the journal.
struct SimulatorMiddleware: RouterMiddleware {
    typealias Context = SimulatorContext

    let simulator: any ProviderSimulator
    let journal: RequestJournal
    let faults: FaultInjector
    let sensitiveHeaderNames: Set<String>
    let sensitiveBodyFields: Set<String>
    /// Whether clients off loopback may use the control path: `CARDGATEWAY_SIMULATOR_REMOTE_CONTROL=1`.
    let allowsRemoteControl: Bool

    /// The environment variable that opens the control path to clients off loopback.
    static let remoteControlVariable = "CARDGATEWAY_SIMULATOR_REMOTE_CONTROL"

    /// Whether `address` is 127.0.0.0/8, ::1 or a Unix socket (nil: no network peer, as in router tests).
    static func isLoopback(_ address: SocketAddress?) -> Bool {
        guard let address else { return true }
        switch address {
        case .unixDomainSocket: return true
        case .v4: return address.ipAddress?.hasPrefix("127.") ?? false
        case .v6: return address.ipAddress == "::1" || (address.ipAddress?.hasPrefix("::ffff:127.") ?? false)
        }
    }

    init(simulator: any ProviderSimulator, journal: RequestJournal, faults: FaultInjector) {
        self.simulator = simulator
        self.journal = journal
        self.faults = faults
        self.sensitiveHeaderNames = RequestJournal.defaultSensitiveHeaderNames.union(
            simulator.sensitiveHeaderNames.map { $0.lowercased() }
        )
        self.allowsRemoteControl = ProcessInfo.processInfo.environment[Self.remoteControlVariable] == "1"
        self.sensitiveBodyFields = RequestJournal.defaultSensitiveBodyFields.union(
            simulator.sensitiveBodyFields.map(RequestJournal.normalised))
    }

    func handle(
        _ request: Request,
        context: SimulatorContext,
        next: (Request, SimulatorContext) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        if SimulatorControlPath.contains(path) {
            // The control path rewrites state and reads the journal: loopback clients only, unless the environment
            // says otherwise (a simulator bound to another address for a test network).
            guard self.allowsRemoteControl || Self.isLoopback(context.channel.remoteAddress) else {
                return Response(
                    status: .forbidden, headers: [.contentType: "application/json"],
                    body: ResponseBody(
                        byteBuffer: ByteBuffer(string: #"{"error":"the control path answers loopback clients only"}"#))
                )
            }
            return try await ControlPlane(simulator: self.simulator, journal: self.journal, faults: self.faults)
                .respond(to: request)
        }
        // A route matched exactly when Hummingbird has set the endpoint path before running the middleware chain.
        let routeExists = context.endpointPath != nil
        let timestamp = self.simulator.clock?.now() ?? Date()

        var request = request
        var context = context
        do {
            context.requestBody = Data(buffer: try await request.collectBody(upTo: SimulatorContext.maximumBodySize))
        } catch is NIOTooManyBytesError {
            let response = self.simulator.faultResponse(status: 413, message: "request body is too large")
                .hummingbirdResponse
            self.record(request, body: Data(), status: 413, handling: .rejected, at: timestamp)
            return response
        }

        let response: Response
        let marks = JournalEntry.Marks()
        var handling = JournalEntry.Handling.faulted
        let fault = self.faults.consume(method: request.method.rawValue, path: path)
        // A delayed answer counts as on its way until it is journaled (or the request ends otherwise), so that a test
        // can wait for it with `FaultInjector.delayedAnswersSettled()`.
        defer { if case .delay = fault { self.faults.delayedAnswerEnded() } }
        switch fault {
        case nil:
            response = try await JournalEntry.Marks.$current.withValue(marks) {
                try await self.route(request, context: context, routeExists: routeExists, next: next)
            }
            handling = marks.handling
        case .delay(let milliseconds):
            do {
                // A graceful shutdown ends the wait instead of holding the server up.
                try await cancelWhenGracefulShutdown {
                    try await Task.sleep(for: .milliseconds(milliseconds))
                }
                response = try await JournalEntry.Marks.$current.withValue(marks) {
                    try await self.route(request, context: context, routeExists: routeExists, next: next)
                }
                handling = marks.handling
            } catch is CancellationError where Task.isShuttingDownGracefully && !Task.isCancelled {
                var simulated = self.simulator.faultResponse(status: 503, message: "simulator is shutting down")
                simulated.status = 503
                response = simulated.withHeader("Connection", "close").hummingbirdResponse
            }
        case .status(let status, let retryAfterSeconds, let message):
            var simulated = self.simulator.faultResponse(
                status: status, message: message ?? "simulated fault: HTTP \(status)")
            simulated.status = status
            if let retryAfterSeconds {
                simulated = simulated.withHeader("Retry-After", String(retryAfterSeconds))
            }
            response = simulated.hummingbirdResponse
        case .malformedBody(let status):
            response =
                SimulatedResponse(
                    status: status,
                    headers: [("content-type", "application/json")],
                    body: Data(#"{"error": "simulated malformed body", "detail": <not json>"#.utf8)
                ).hummingbirdResponse
        case .truncatedBody(let status):
            response = self.truncatedResponse(status: status, channel: context.channel)
        case .wrongContentType(let status):
            response =
                SimulatedResponse(
                    status: status,
                    headers: [("content-type", "text/html; charset=utf-8")],
                    body: Data(
                        "<html><head><title>Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>\n".utf8)
                ).hummingbirdResponse
        case .oversizedBody(let status, let bytes):
            let wrapper = Data(#"{"padding":""}"#.utf8)
            var body = Data(capacity: max(bytes, wrapper.count))
            body.append(contentsOf: #"{"padding":""#.utf8)
            body.append(Data(repeating: UInt8(ascii: "x"), count: max(0, bytes - wrapper.count)))
            body.append(contentsOf: #""}"#.utf8)
            response =
                SimulatedResponse(status: status, headers: [("content-type", "application/json")], body: body)
                .hummingbirdResponse
        case .dropConnection:
            self.record(request, body: context.requestBody, status: 0, handling: .faulted, at: timestamp)
            try? await context.channel.close()
            throw SimulatedConnectionFault.dropped
        }
        self.record(request, body: context.requestBody, status: response.status.code, handling: handling, at: timestamp)
        return response
    }

    /// Runs the route (or answers an unknown route), turning thrown errors into the provider's error shape.
    private func route(
        _ request: Request,
        context: SimulatorContext,
        routeExists: Bool,
        next: (Request, SimulatorContext) async throws -> Response
    ) async throws -> Response {
        guard routeExists else {
            // Method and path (never the query) in the message, as providers name what they did not recognise.
            return self.simulator.faultResponse(
                status: 404, message: "no such route (\(request.method.rawValue): \(request.uri.path))"
            ).hummingbirdResponse
        }
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            var simulated = self.simulator.faultResponse(
                status: error.status.code,
                message: error.body ?? error.status.reasonPhrase
            )
            simulated.status = error.status.code
            var response = simulated.hummingbirdResponse
            for field in error.headers where !response.headers.contains(field.name) {
                response.headers.append(field)
            }
            return response
        } catch let error as any HTTPResponseError {
            return try error.response(from: request, context: context)
        } catch let error as CancellationError {
            throw error
        } catch {
            return self.simulator.faultResponse(status: 500, message: "internal simulator error").hummingbirdResponse
        }
    }

    /// A response whose `content-length` promises more bytes than are sent; the connection closes after the first half.
    /// Half the body a Content-Length promises, then the connection closed: the client sees the body end early at
    /// once, whatever its timeout (an open connection would leave it waiting for the rest until its deadline).
    private func truncatedResponse(status: Int, channel: any Channel) -> Response {
        var full = self.simulator.faultResponse(status: status, message: "simulated truncated response").body
        if full.count < 2 {
            full = Data(#"{"error":"simulated truncated response"}"#.utf8)
        }
        let sent = ByteBuffer(bytes: full.prefix(full.count / 2))
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.contentLength] = String(full.count)
        return Response(
            status: HTTPResponse.Status(code: status),
            headers: headers,
            body: ResponseBody { writer in
                try await writer.write(sent)
                try? await channel.close()
                throw SimulatedConnectionFault.truncated
            }
        )
    }

    private func record(
        _ request: Request, body: Data, status: Int, handling: JournalEntry.Handling, at timestamp: Date
    ) {
        self.journal.record(
            JournalEntry(
                method: request.method.rawValue,
                path: RequestJournal.maskedPath(request.uri.path),
                query: request.uri.query.map {
                    RequestJournal.maskedQuery($0, sensitiveFields: self.sensitiveBodyFields)
                },
                headers: RequestJournal.maskedHeaders(request.headers, sensitiveNames: self.sensitiveHeaderNames),
                body: RequestJournal.maskedBody(body, sensitiveFields: self.sensitiveBodyFields),
                responseStatus: status,
                timestamp: timestamp,
                handling: handling
            )
        )
    }
}
