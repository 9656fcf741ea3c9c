@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import Foundation
import HTTPTypes
import Synchronization

/// One request an adapter sent and the answer it got.
public struct RecordedExchange: Sendable {
    public var request: HTTPRequest
    public var body: Data?
    public var response: TransportResponse
}

/// Passes requests on to `base` and keeps every exchange.
public final class RecordingTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let exchanges = Mutex<[RecordedExchange]>([])

    public init(base: any HTTPTransport) { self.base = base }

    public var recorded: [RecordedExchange] { exchanges.withLock { $0 } }

    public func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        let response = try await base.send(request, body: body, timeout: timeout)
        exchanges.withLock { $0.append(RecordedExchange(request: request, body: body, response: response)) }
        return response
    }
}

/// Answers each request with the answer recorded for its method and path (the query ignored; the last answer
/// when one path was asked several times), in process and without allocating to find it.
///
/// With `echoing`, the value the request carries in that header replaces, in the answer's body, every occurrence
/// of the value the recorded request carried: for a provider that answers with the caller's own request reference
/// and whose adapter checks it (Trust Payments' `requestreference`).
public struct ReplayTransport: HTTPTransport {
    private struct Answer: Sendable {
        var method: HTTPRequest.Method
        var path: String
        var response: TransportResponse
        /// The body split around the echoed value, when the transport echoes one.
        var parts: [Data]?
    }

    private let answers: [Answer]
    private let echoing: HTTPField.Name?

    public init(_ exchanges: [RecordedExchange], echoing: HTTPField.Name? = nil) {
        var answers: [Answer] = []
        for exchange in exchanges {
            let path = String((exchange.request.path ?? "").prefix { $0 != "?" })
            var parts: [Data]?
            if let echoing, let sent = exchange.request.headerFields[echoing], !sent.isEmpty {
                parts = Self.split(exchange.response.body, around: Data(sent.utf8))
            }
            let answer = Answer(method: exchange.request.method, path: path, response: exchange.response, parts: parts)
            if let index = answers.firstIndex(where: { $0.method == answer.method && $0.path == path }) {
                answers[index] = answer
            } else {
                answers.append(answer)
            }
        }
        self.answers = answers
        self.echoing = echoing
    }

    public func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        guard let answer = find(request) else {
            throw TransportError(.other, "no answer was recorded for \(request.method.rawValue) \(request.path ?? "")")
        }
        // The first field of the name, as it was sent (the subscript would join every value of the name into a new
        // string, inside every measured call).
        guard let parts = answer.parts, let echoing,
            let value = request.headerFields.first(where: { $0.name == echoing })?.value
        else {
            return answer.response
        }
        var response = answer.response
        var echoed = Data()
        echoed.reserveCapacity(answer.response.body.count + 64)
        for (index, part) in parts.enumerated() {
            if index > 0 { echoed.append(contentsOf: value.utf8) }
            echoed.append(part)
        }
        response.body = echoed
        return response
    }

    /// The answer recorded for the request's method and path (its query aside). Compared as bytes: this runs inside
    /// every measured call, and the generic `prefix(while:).elementsEqual` it replaced was 3% of a Paysafe card.
    private func find(_ request: HTTPRequest) -> Answer? {
        if answers.count == 1 { return answers[0] }
        var path = request.path ?? ""
        return path.withUTF8 { bytes -> Answer? in
            let end = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
            let sent = UnsafeBufferPointer(rebasing: bytes[..<end])
            for answer in answers where answer.method == request.method {
                var recorded = answer.path
                if recorded.withUTF8({ $0.elementsEqual(sent) }) { return answer }
            }
            return nil
        }
    }

    private static func split(_ body: Data, around value: Data) -> [Data] {
        var parts: [Data] = []
        var start = body.startIndex
        while let range = body[start...].firstRange(of: value) {
            parts.append(body[start..<range.lowerBound])
            start = range.upperBound
        }
        parts.append(body[start...])
        return parts
    }
}

/// A simulator run in a background task on 127.0.0.1 until `stop()`.
public final class SimulatorRun: Sendable {
    public let baseURL: URL
    /// The running simulator's handle: its journal and its fault injector (the load benchmarks delay every answer).
    public let handle: SimulatorHandle
    private let task: Task<Void, any Error>
    private let stopSignal: AsyncStream<Void>.Continuation

    public static func start(_ simulator: any ProviderSimulator) async throws -> SimulatorRun {
        let (stopSignal, stop) = AsyncStream<Void>.makeStream()
        let (ready, readyContinuation) = AsyncStream<SimulatorHandle>.makeStream()
        let task = Task {
            try await withSimulator(simulator, host: "127.0.0.1") { handle in
                readyContinuation.yield(handle)
                readyContinuation.finish()
                for await _ in stopSignal {}
            }
        }
        var iterator = ready.makeAsyncIterator()
        guard let handle = await iterator.next() else {
            stop.finish()
            try await task.value
            throw FixtureFailure(description: "the simulator stopped before it listened")
        }
        return SimulatorRun(handle: handle, task: task, stopSignal: stop)
    }

    private init(handle: SimulatorHandle, task: Task<Void, any Error>, stopSignal: AsyncStream<Void>.Continuation) {
        self.baseURL = handle.baseURL
        self.handle = handle
        self.task = task
        self.stopSignal = stopSignal
    }

    public func stop() async {
        stopSignal.finish()
        _ = try? await task.value
    }
}

extension ProviderSubject {
    /// The instance name every benchmark uses.
    public var instanceName: String { "bench-\(kind)" }

    public func instanceConfiguration(baseURL: URL) -> ProviderInstanceConfiguration {
        ProviderInstanceConfiguration(
            name: instanceName, kind: factory.kind, environment: nil, baseURL: baseURL, credentials: credentials,
            options: options
        )
    }

    /// The adapter alone, on a bare `ProviderHTTPClient` (no gateway middlewares) over `transport`.
    public func makeAdapter(baseURL: URL, transport: any HTTPTransport) throws -> any CardProvider {
        let configuration = instanceConfiguration(baseURL: baseURL)
        let http = try ProviderHTTPClient(
            instance: instanceName, kind: factory.kind, baseURL: baseURL, transport: transport,
            timeout: configuration.timeout, retry: configuration.retry
        )
        return try factory.make(
            ProviderSetup(
                configuration: configuration, http: http, logger: OperationContext.noopLogger,
                credentialStore: credentialStore))
    }

    /// A gateway with this provider's instance behind three routes (the last one matches `target`), over
    /// `transport`, with every default (no logger, the bootstrapped metrics and tracer: none).
    public func makeGateway(
        baseURL: URL, transport: any HTTPTransport, configure: (inout ProviderInstanceConfiguration) -> Void = { _ in }
    ) throws -> CardGateway {
        var instance = instanceConfiguration(baseURL: baseURL)
        configure(&instance)
        let configuration = GatewayConfiguration(
            providers: [instanceName: instance],
            routes: [
                Route(when: .init(issuers: ["\(kind)-eu"]), use: instanceName),
                Route(
                    when: .init(bins: [
                        BINRange(low: "44000000", high: "44009999"), BINRange(low: "510510", high: "510510"),
                    ]), use: instanceName),
                Route(when: .init(issuers: [kind]), use: instanceName),
            ]
        )
        return try CardGateway(
            configuration: configuration, registry: registry, transport: transport, credentialStore: credentialStore)
    }

    /// How the gateway benchmarks route: by issuer, to the third route.
    public var target: RouteTarget { .key(RouteKey(issuer: kind)) }

    /// Runs every operation once against the simulator at `baseURL`, each on a fresh adapter, and returns what
    /// each one exchanged, by operation name.
    public func record(baseURL: URL) async throws -> [String: [RecordedExchange]] {
        var tapes: [String: [RecordedExchange]] = [:]
        for operation in operations {
            if let prepare = operation.prepare {
                try await prepare(try makeAdapter(baseURL: baseURL, transport: AsyncHTTPClientTransport()))
            }
            let recorder = RecordingTransport(base: AsyncHTTPClientTransport())
            let adapter = try makeAdapter(baseURL: baseURL, transport: recorder)
            do {
                try await operation.run(adapter, OperationContext())
            } catch {
                throw FixtureFailure(
                    description: "adapter/\(kind)/\(operation.name) failed against the simulator: \(error)")
            }
            tapes[operation.name] = recorder.recorded
        }
        return tapes
    }
}

/// Every provider's adapters over their recorded answers, recorded once per process (the simulators run only
/// while recording).
public actor ReplayFixtures {
    public static let shared = ReplayFixtures()

    public struct Entry: Sendable {
        public var subject: ProviderSubject
        public var tapes: [String: [RecordedExchange]]
        /// One adapter per operation, each over a transport that replays that operation's answers.
        public var adapters: [String: any CardProvider]
        /// A gateway over the representative operation's answers.
        public var gateway: CardGateway
    }

    private var entries: [String: Entry] = [:]

    public func entry(_ kind: String) async throws -> Entry {
        if let entry = entries[kind] { return entry }
        guard let subject = ProviderSubject.named(kind) else {
            throw FixtureFailure(description: "no provider \(kind)")
        }
        let run = try await SimulatorRun.start(subject.simulator)
        let tapes: [String: [RecordedExchange]]
        do {
            tapes = try await subject.record(baseURL: run.baseURL)
        } catch {
            await run.stop()
            throw error
        }
        await run.stop()
        var adapters: [String: any CardProvider] = [:]
        for (name, tape) in tapes {
            adapters[name] = try subject.makeAdapter(
                baseURL: run.baseURL, transport: ReplayTransport(tape, echoing: subject.echoHeader))
        }
        let gateway = try subject.makeGateway(
            baseURL: run.baseURL,
            transport: ReplayTransport(tapes[subject.representative] ?? [], echoing: subject.echoHeader))
        let entry = Entry(subject: subject, tapes: tapes, adapters: adapters, gateway: gateway)
        entries[kind] = entry
        return entry
    }
}
