import AsyncHTTPClient
import CardGatewaySimulation
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@Suite("SimulatorService", .timeLimit(.minutes(1)))
struct ServiceTests {
    /// Collects the handles `onReady` delivers.
    final class ReadyBox: Sendable {
        let stream: AsyncStream<[SimulatorHandle]>
        let continuation: AsyncStream<[SimulatorHandle]>.Continuation
        let calls = Mutex(0)

        init() {
            (self.stream, self.continuation) = AsyncStream.makeStream(of: [SimulatorHandle].self)
        }

        func deliver(_ handles: [SimulatorHandle]) {
            self.calls.withLock { $0 += 1 }
            self.continuation.yield(handles)
        }

        func next() async throws -> [SimulatorHandle] {
            // a bound, not a speed check: a loaded CI machine may start servers slowly
            try await withTimeout(seconds: 30) { [stream] in
                for await handles in stream { return handles }
                throw TimeoutError()
            }
        }
    }

    static let quietLogger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test("runs in a ServiceGroup, reports readiness once, stops on graceful shutdown")
    func gracefulShutdownInGroup() async throws {
        let box = ReadyBox()
        let service = SimulatorService(simulators: [EchoSimulator(), ClocklessSimulator()]) { handles in
            box.deliver(handles)
        }
        let group = ServiceGroup(services: [service], logger: Self.quietLogger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let handles = try await box.next()
            #expect(handles.map(\.kindName) == ["echo", "clockless"])
            #expect(handles[0].port != handles[1].port)
            try await withClient { client async throws in
                #expect(try await send(client, .GET, handles[0].at("/items")).status == 200)
                #expect(try await send(client, .GET, handles[1].at("/ping")).text == "pong")
            }
            #expect(handles[0].journal.count == 1)
            // Shutdown completes rather than hanging (the suite's time limit is the bound).
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            #expect(await stillServes(handles[0]) == false)
            #expect(await stillServes(handles[1]) == false)
        }
        #expect(box.calls.withLock { $0 } == 1)
    }

    @Test("run() returns when its task is cancelled")
    func cancellation() async throws {
        let box = ReadyBox()
        let service = SimulatorService(simulators: [EchoSimulator()]) { handles in box.deliver(handles) }
        let task = Task { try await service.run() }
        let handles = try await box.next()
        try await withClient { client async throws in
            #expect(try await send(client, .GET, handles[0].at("/items")).status == 200)
        }
        task.cancel()
        _ = try await withTimeout(seconds: 5) { await task.result }
        #expect(await stillServes(handles[0]) == false)
    }

    @Test("firstPort assigns consecutive ports in array order")
    func firstPort() async throws {
        var attempts = 0
        var verified = false
        while !verified && attempts < 5 {
            attempts += 1
            // Find a port that was free a moment ago.
            let base = try await withSimulator(ClocklessSimulator()) { $0.port }
            guard base < 65_000 else { continue }
            let box = ReadyBox()
            let service = SimulatorService(simulators: [ClocklessSimulator(), EchoSimulator()], firstPort: base) {
                handles in
                box.deliver(handles)
            }
            let task = Task { try await service.run() }
            let handles: [SimulatorHandle]
            do {
                handles = try await box.next()
            } catch {
                // The neighbouring port was taken by someone else; try another base.
                task.cancel()
                _ = await task.result
                continue
            }
            #expect(handles.map(\.port) == [base, base + 1])
            #expect(handles[1].baseURL.absoluteString == "http://127.0.0.1:\(base + 1)/echo/v1")
            try await withClient { client async throws in
                #expect(try await send(client, .GET, "http://127.0.0.1:\(base)/ping").text == "pong")
            }
            task.cancel()
            _ = try await withTimeout(seconds: 5) { await task.result }
            verified = true
        }
        #expect(verified)
    }

    @Test("a port already in use makes run() throw")
    func portInUse() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            let service = SimulatorService(simulators: [EchoSimulator()], firstPort: sim.port) { _ in }
            await #expect(throws: (any Error).self) {
                try await withTimeout(seconds: 5) { try await service.run() }
            }
        }
    }
}
