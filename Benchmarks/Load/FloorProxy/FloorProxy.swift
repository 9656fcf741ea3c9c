import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOPosix

// The Swift stack's floor for a forwarded call (issue 49): one Hummingbird route that sends every GET on to an
// upstream with AsyncHTTPClient and answers with what came back. No authentication, routing table, JSON or
// middleware: what is left is what any Swift server forwarding a call pays (two connections, HTTP parsing both
// ways, the hops between NIO's event loops and the Swift concurrency pool). Run by scripts/cost-benchmark beside
// nginx and provisioning-server; by hand:
//
//     swift build -c release --package-path Benchmarks --product FloorProxy
//     Benchmarks/.build/release/FloorProxy --upstream http://127.0.0.1:8081 --port 0
//
// It prints `listening on http://127.0.0.1:<port>` once it accepts connections. It forwards the path and query
// and the Authorization header, and answers the upstream's status, Content-Type and body. The upstream client has
// AsyncHTTPClientTransport's settings (`HTTPClient.shared`'s, redirects off, a pool of 1,024 connections per host),
// so that the pool, like the server's, never limits the calls in flight. It lives in Load/, not Benchmarks/:
// package-benchmark runs every executable under Benchmarks/ as a benchmark.
//
// For the authorization benchmark (issue 47, scripts/authorization-benchmark) it also answers
// `POST /authorizations/{stripe|adyen|marqeta}` with that provider's approval as a fixed JSON body, reading nothing: the
// Swift stack's floor for answering the network, side by side with the provisioning server's decision.

struct Options {
    var upstream = ""
    var host = "127.0.0.1"
    var port = 8090
    /// Where Swift concurrency runs the route: Swift's own pool (the stack's default) or NIO's event loops
    /// (`--tasks-on event-loops`, what provisioning-server does by default).
    var tasksOnEventLoops = false

    init(_ arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--upstream": upstream = iterator.next() ?? ""
            case "--host": host = iterator.next() ?? host
            case "--tasks-on":
                switch iterator.next() {
                case "event-loops": tasksOnEventLoops = true
                case "swift-pool": tasksOnEventLoops = false
                default: throw UsageError(description: "--tasks-on takes event-loops or swift-pool")
                }
            case "--port":
                guard let value = iterator.next().flatMap(Int.init), (0...65535).contains(value) else {
                    throw UsageError(description: "--port needs a number from 0 to 65535")
                }
                port = value
            default: throw UsageError(description: "unknown argument \(argument)")
            }
        }
        while upstream.hasSuffix("/") { upstream.removeLast() }
        guard upstream.isEmpty || upstream.hasPrefix("http://") || upstream.hasPrefix("https://") else {
            throw UsageError(
                description:
                    "usage: FloorProxy [--upstream http://HOST:PORT] [--port N] [--host ADDRESS] [--tasks-on event-loops|swift-pool]"
            )
        }
    }
}

struct UsageError: Error, CustomStringConvertible {
    var description: String
}

/// A line on standard output at once (not buffered until exit), for the script that waits for it.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}

if options.tasksOnEventLoops {
    // Sound as SwiftNIO requires: once, from top-level code (the main thread), before any task is started.
    NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
}

var clientConfiguration = HTTPClient.Configuration.singletonConfiguration
clientConfiguration.redirectConfiguration = .disallow
clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 1_024
let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration)
let upstream = options.upstream

/// Each provider's approval, as the bare route answers it: Stripe's `{"approved": true}` with its required
/// `Stripe-Version`, Adyen's `Authorised` decision, Marqeta's `jit_funding` echo.
let fixedApprovals: [String: (body: String, headers: HTTPFields)] = [
    "stripe": (
        #"{"approved":true}"#, [.contentType: "application/json", HTTPField.Name("Stripe-Version")!: "2024-06-20"]
    ),
    "adyen": (#"{"authorisationDecision":{"status":"Authorised"}}"#, [.contentType: "application/json"]),
    "marqeta": (
        #"{"jit_funding":{"token":"jit-bench","method":"pgfs.authorization","user_token":"user-bench","amount":12.5}}"#,
        [.contentType: "application/json"]
    ),
]

let router = Router()
router.post("/authorizations/{kind}") { _, context -> Response in
    guard let approval = context.parameters.get("kind").flatMap({ fixedApprovals[$0] }) else {
        return Response(status: .notFound)
    }
    return Response(
        status: .ok, headers: approval.headers, body: ResponseBody(byteBuffer: ByteBuffer(string: approval.body)))
}
router.get("**") { request, _ -> Response in
    guard !upstream.isEmpty else { return Response(status: .notFound) }
    var outgoing = HTTPClientRequest(url: upstream + request.uri.description)
    if let authorization = request.headers[.authorization] {
        outgoing.headers.add(name: "Authorization", value: authorization)
    }
    let answer = try await client.execute(outgoing, timeout: .seconds(30))
    let body = try await answer.body.collect(upTo: 8 * 1024 * 1024)
    var headers = HTTPFields()
    if let contentType = answer.headers.first(name: "Content-Type") {
        headers[.contentType] = contentType
    }
    return Response(
        status: HTTPResponse.Status(code: Int(answer.status.code)), headers: headers,
        body: ResponseBody(byteBuffer: body))
}

var logger = Logger(label: "FloorProxy")
logger.logLevel = .warning
let app = Application(
    router: router,
    // The provisioning server's listen backlog (4,096), so that a burst of connections is not what differs.
    configuration: ApplicationConfiguration(address: .hostname(options.host, port: options.port), backlog: 4_096),
    onServerRunning: { channel in
        say("listening on http://\(options.host):\(channel.localAddress?.port ?? options.port)")
    },
    logger: logger
)
do {
    try await app.runService()
} catch {
    FileHandle.standardError.write(Data("FloorProxy: \(error)\n".utf8))
}
_ = try? await client.shutdown().get()
