import AsyncHTTPClient
import CardGatewaySimulation
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// An item the echo simulator stores.
struct EchoItem: Codable, Sendable, Equatable {
    var id: String
    var name: String
    var createdAt: Date
}

struct EchoFailure: Error {}

/// Lets a test hold a request inside a route handler (to observe an in-flight idempotency key) and release it.
final class HoldGate: Sendable {
    private let entered: AsyncStream<Void>
    private let enteredContinuation: AsyncStream<Void>.Continuation
    private let released: AsyncStream<Void>
    private let releasedContinuation: AsyncStream<Void>.Continuation

    init() {
        (self.entered, self.enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        (self.released, self.releasedContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    /// Called by the handler: announce entry, then wait for release (at most 20 s: a bound for a loaded machine, not a speed check).
    func enter() async {
        self.enteredContinuation.yield()
        _ = try? await withTimeout(seconds: 20) { [released] in
            for await _ in released { return }
        }
    }

    /// Called by the test: wait until a handler entered.
    func waitUntilEntered() async throws {
        try await withTimeout(seconds: 20) { [entered] in
            for await _ in entered { return }
        }
    }

    func release() {
        self.releasedContinuation.yield()
    }
}

struct TimeoutError: Error {}

/// A thread-safe counter.
final class Counter: Sendable {
    private let storage = Mutex(0)

    var value: Int { self.storage.withLock { $0 } }

    func increment() {
        self.storage.withLock { $0 += 1 }
    }
}

/// Runs `operation`, failing with `TimeoutError` after `seconds`.
func withTimeout<T: Sendable>(seconds: Double, _ operation: @escaping @Sendable () async throws -> T) async throws -> T
{
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            throw TimeoutError()
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw TimeoutError() }
        return first
    }
}

/// A small provider simulator used to test the kit: JSON error shape `{"error":{"code":..,"message":..,"type":"echo_error"}}`.
struct EchoSimulator: ProviderSimulator {
    static let epoch = Date(timeIntervalSince1970: 1_893_456_000)  // 2030-01-01T00:00:00Z
    static let seed: [(String, EchoItem)] = [("item_seed", EchoItem(id: "item_seed", name: "Seed", createdAt: epoch))]
    static let idempotencyWindow: TimeInterval = 3600

    let kindName: String
    let basePath: String
    let items = SimulatorStore<String, EchoItem>(EchoSimulator.seed)
    let ids = DeterministicIDs(seed: 7)
    let simulationClock = SimulationClock(fixed: EchoSimulator.epoch)
    let ledger: IdempotencyLedger
    let gate = HoldGate()
    let resets = Counter()

    init(kindName: String = "echo", basePath: String = "/echo/v1") {
        self.kindName = kindName
        self.basePath = basePath
        self.ledger = IdempotencyLedger(window: Self.idempotencyWindow, clock: self.simulationClock)
    }

    var clock: SimulationClock? { self.simulationClock }
    var sensitiveHeaderNames: Set<String> { ["x-echo-secret"] }

    func faultResponse(status: Int, message: String) -> SimulatedResponse {
        .json(status, ["error": ["code": status, "message": message, "type": "echo_error"] as [String: Any]])
    }

    func reset() async {
        self.items.reset(to: Self.seed)
        self.ids.reset()
        self.ledger.reset()
        self.simulationClock.set(Self.epoch)
        self.resets.increment()
    }

    func registerRoutes(on router: Router<SimulatorContext>) {
        router.post("\(self.basePath)/items") { request, context -> SimulatedResponse in
            try await self.createItem(request, context)
        }
        router.get("\(self.basePath)/items") { _, _ -> SimulatedResponse in
            .json(200, encodable: ["data": self.items.all()])
        }
        router.get("\(self.basePath)/items/:id") { _, context -> SimulatedResponse in
            let id = try context.parameters.require("id")
            guard let item = self.items.get(id) else {
                throw HTTPError(.notFound, message: "no such item: \(id)")
            }
            return .json(200, encodable: item)
        }
        router.post("\(self.basePath)/echo") { request, context -> SimulatedResponse in
            // Read the body both ways: from the context and from the request (the kit stored the collected bytes back).
            let fromRequest = try await request.body.collect(upTo: 1 << 20)
            return .json(
                200,
                [
                    "method": request.method.rawValue,
                    "query": request.uri.query ?? "",
                    "bodyText": context.requestBodyText,
                    "bodyFromRequest": String(buffer: fromRequest),
                    "echoHeader": request.headers[HTTPField.Name("x-echo")!] ?? "",
                ]
            )
        }
        router.get("\(self.basePath)/boom") { _, _ -> SimulatedResponse in
            throw EchoFailure()
        }
    }

    private func createItem(_ request: Request, _ context: SimulatorContext) async throws -> SimulatedResponse {
        let scope = "POST \(self.basePath)/items"
        let key = request.headers[HTTPField.Name("Idempotency-Key")!]
        if let key {
            switch self.ledger.begin(key: key, scope: scope, fingerprint: context.requestBody) {
            case .proceed:
                break
            case .replay(let first):
                return first.withHeader("Idempotent-Replayed", "true")
            case .conflict:
                return self.faultResponse(status: 409, message: "idempotency key reused with different parameters")
            case .inProgress:
                return self.faultResponse(status: 409, message: "a request with this idempotency key is in progress")
            case .expired:
                return self.faultResponse(status: 422, message: "idempotency key expired")
            }
        }
        let object = try? JSONSerialization.jsonObject(with: context.requestBody) as? [String: Any]
        guard let name = object?["name"] as? String, !name.isEmpty else {
            if let key {
                self.ledger.abandon(key: key, scope: scope)
            }
            throw HTTPError(.badRequest, message: "name is required")
        }
        if name == "hold" {
            await self.gate.enter()
        }
        let item = EchoItem(
            id: self.ids.next(prefix: "item_", length: 12), name: name, createdAt: self.simulationClock.now())
        self.items.put(item.id, item)
        let response = SimulatedResponse.json(201, encodable: item)
        if let key {
            self.ledger.record(key: key, scope: scope, fingerprint: context.requestBody, response: response)
        }
        return response
    }
}

/// A response as the client saw it.
struct WireResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: Data

    var text: String { String(decoding: self.body, as: UTF8.self) }

    func header(_ name: String) -> String? { self.headers.first(name: name) }

    func jsonObject() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: self.body) as? [String: Any] else {
            throw EchoFailure()
        }
        return object
    }

    /// The `error` object of the echo provider's error shape.
    func echoError() throws -> (code: Int, message: String, type: String) {
        let error = try self.jsonObject()["error"] as? [String: Any]
        return (error?["code"] as? Int ?? -1, error?["message"] as? String ?? "", error?["type"] as? String ?? "")
    }
}

/// Runs `body` with a fresh HTTP client that is shut down afterwards.
@discardableResult
func withClient<R: Sendable>(_ body: (HTTPClient) async throws -> R) async throws -> R {
    var configuration = HTTPClient.Configuration()
    configuration.timeout = .init(connect: .seconds(2), read: .seconds(30))
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    do {
        let result = try await body(client)
        try await client.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        throw error
    }
}

/// Sends one request and collects the whole response.
func send(
    _ client: HTTPClient,
    _ method: HTTPMethod,
    _ url: String,
    headers: [(String, String)] = [],
    body: String? = nil
) async throws -> WireResponse {
    var request = HTTPClientRequest(url: url)
    request.method = method
    for (name, value) in headers {
        request.headers.add(name: name, value: value)
    }
    if let body {
        request.body = .bytes(ByteBuffer(string: body))
    }
    let response = try await client.execute(request, timeout: .seconds(30))
    let buffer = try await response.body.collect(upTo: 1 << 20)
    return WireResponse(
        status: Int(response.status.code), headers: response.headers, body: Data(buffer.readableBytesView))
}

extension SimulatorHandle {
    /// `baseURL` + `path` as a string.
    func at(_ path: String) -> String { self.baseURL.absoluteString + path }
    /// `rootURL` + `path` as a string (for the control path).
    func root(_ path: String) -> String { self.rootURL.absoluteString + path }
}

/// What a raw TCP exchange produced.
struct RawExchange: Sendable {
    /// Every byte the server sent before the connection ended.
    var received: Data
    /// The text of `received`.
    var text: String { String(decoding: self.received, as: UTF8.self) }
}

/// Sends `request` verbatim over a new TCP connection and reads until the server closes it (at most 3 s).
func rawExchange(port: Int, _ request: String) async throws -> RawExchange {
    try await withTimeout(seconds: 20) {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: request))
            var received = Data()
            do {
                for try await chunk in inbound {
                    received.append(contentsOf: chunk.readableBytesView)
                }
            } catch {
                // A reset after the data arrived still ends the exchange; keep what was received.
            }
            return RawExchange(received: received)
        }
    }
}

/// Whether the server behind `handle` still answers. A port alone cannot tell: tests run in parallel, and once a
/// server has stopped, the port it had may already belong to another test's server. So the probe is a request with a
/// unique query that this server would journal; the stopped server journals nothing, whoever answers (or refuses).
func stillServes(_ handle: SimulatorHandle) async -> Bool {
    let probe = "probe=\(UUID().uuidString)"
    _ = try? await withClient { client in try await send(client, .GET, handle.at("/items?\(probe)")) }
    return handle.journal.entries().contains { $0.query?.contains(probe) == true }
}
