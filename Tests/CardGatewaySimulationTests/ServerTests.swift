import AsyncHTTPClient
import CardGatewaySimulation
import Foundation
import Synchronization
import Testing

@Suite("Simulator server", .timeLimit(.minutes(1)))
struct ServerTests {
    @Test("listens on an ephemeral 127.0.0.1 port and builds the base URL from the base path")
    func baseURLAndEphemeralPort() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            #expect(sim.kindName == "echo")
            #expect(sim.port > 0 && sim.port != 8080)
            #expect(sim.host == "127.0.0.1")
            #expect(sim.baseURL.absoluteString == "http://127.0.0.1:\(sim.port)/echo/v1")
            #expect(sim.rootURL.absoluteString == "http://127.0.0.1:\(sim.port)")
            #expect(sim.url("/items").absoluteString == "http://127.0.0.1:\(sim.port)/echo/v1/items")
            try await withClient { client async throws in
                let response = try await send(client, .GET, sim.at("/items/item_seed"))
                #expect(response.status == 200)
                #expect(response.header("content-type") == "application/json")
                let item = try JSONDecoder.iso.decode(EchoItem.self, from: response.body)
                #expect(item == EchoItem(id: "item_seed", name: "Seed", createdAt: EchoSimulator.epoch))
            }
        }
    }

    @Test("two simulators run at once on different ports with separate journals")
    func twoAtOnce() async throws {
        let simulators: [any ProviderSimulator] = [EchoSimulator(), EchoSimulator(kindName: "stripeish", basePath: "")]
        try await withSimulators(simulators) { handles in
            #expect(handles.count == 2)
            #expect(handles[0].kindName == "echo")
            #expect(handles[1].kindName == "stripeish")
            #expect(handles[0].port != handles[1].port)
            #expect(handles[1].baseURL.absoluteString == "http://127.0.0.1:\(handles[1].port)")
            try await withClient { client async throws in
                #expect(try await send(client, .GET, handles[0].at("/items")).status == 200)
                #expect(try await send(client, .GET, handles[1].at("/items")).status == 200)
                #expect(try await send(client, .GET, handles[1].at("/items")).status == 200)
                // The first simulator's routes live under /echo/v1, so /items there is unknown.
                #expect(try await send(client, .GET, handles[0].root("/items")).status == 404)
            }
            #expect(handles[0].journal.count == 2)
            #expect(handles[1].journal.count == 2)
        }
    }

    @Test("five simulators run side by side in one process")
    func fiveAtOnce() async throws {
        let kinds = ["paysafe", "adyen", "stripe", "bridge", "trustpayments"]
        let simulators: [any ProviderSimulator] = kinds.map { EchoSimulator(kindName: $0, basePath: "/\($0)") }
        try await withSimulators(simulators) { handles in
            #expect(handles.map(\.kindName) == kinds)
            #expect(Set(handles.map(\.port)).count == 5)
            try await withClient { client async throws in
                for handle in handles {
                    let response = try await send(
                        client, .POST, handle.at("/items"), body: #"{"name":"\#(handle.kindName)"}"#)
                    #expect(response.status == 201)
                }
            }
            for handle in handles {
                #expect(handle.journal.entries().map(\.path) == ["/\(handle.kindName)/items"])
            }
        }
    }

    @Test("an unknown route answers 404 in the provider's error shape")
    func unknownRoute() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            try await withClient { client async throws in
                let response = try await send(client, .GET, sim.at("/nope"))
                #expect(response.status == 404)
                let error = try response.echoError()
                #expect(error.code == 404)
                #expect(error.message == "no such route (GET: /echo/v1/nope)")
                #expect(error.type == "echo_error")
                // Wrong method on an existing path is unknown too.
                #expect(try await send(client, .DELETE, sim.at("/items")).status == 404)
            }
            #expect(sim.journal.entries().map(\.responseStatus) == [404, 404])
        }
    }

    @Test("HTTPError and other errors thrown by handlers become provider-shaped errors")
    func handlerErrors() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            try await withClient { client async throws in
                let missing = try await send(client, .GET, sim.at("/items/item_missing"))
                #expect(missing.status == 404)
                #expect(try missing.echoError().message == "no such item: item_missing")

                let invalid = try await send(client, .POST, sim.at("/items"), body: "{}")
                #expect(invalid.status == 400)
                #expect(try invalid.echoError().message == "name is required")

                let boom = try await send(client, .GET, sim.at("/boom"))
                #expect(boom.status == 500)
                #expect(try boom.echoError().message == "internal simulator error")
            }
        }
    }

    @Test("handlers can read the collected body from the context and from the request")
    func handlerSeesBody() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            try await withClient { client async throws in
                let response = try await send(
                    client,
                    .POST,
                    sim.at("/echo?a=1&b=two"),
                    headers: [("x-echo", "hello")],
                    body: "amount=1000&currency=EUR"
                )
                #expect(response.status == 200)
                let object = try response.jsonObject()
                #expect(object["bodyText"] as? String == "amount=1000&currency=EUR")
                #expect(object["bodyFromRequest"] as? String == "amount=1000&currency=EUR")
                #expect(object["query"] as? String == "a=1&b=two")
                #expect(object["echoHeader"] as? String == "hello")
                #expect(response.text.hasPrefix(#"{"bodyFromRequest""#), "keys are sorted")
            }
        }
    }

    @Test("bodies over the limit are answered 413 in the provider's shape (control path: over 1 MiB)")
    func bodyTooLarge() async throws {
        let simulator = EchoSimulator()
        try await withSimulator(simulator) { sim in
            try await withClient { client async throws in
                let huge = String(repeating: "a", count: SimulatorContext.maximumBodySize + 1)
                let response = try await send(client, .POST, sim.at("/items"), body: huge)
                #expect(response.status == 413)
                #expect(try response.echoError().message == "request body is too large")
                #expect(simulator.items.count == 1)

                let control = try await send(
                    client, .POST, sim.root("/__simulator/faults"), body: String(repeating: " ", count: 1024 * 1024 + 1)
                )
                #expect(control.status == 413)
                #expect(sim.faults.pending.isEmpty)
                // The connection state is still sane afterwards.
                #expect(try await send(client, .GET, sim.at("/items")).status == 200)
            }
            #expect(sim.journal.entries().map(\.responseStatus) == [413, 200])
            #expect(sim.journal.entries().first?.body.isEmpty == true)
        }
    }

    @Test("starts and stops cleanly many times in one process; the port is closed afterwards")
    func repeatedRuns() async throws {
        let simulator = EchoSimulator()
        try await withClient { client async throws in
            var last: SimulatorHandle?
            for round in 0..<15 {
                last = try await withSimulator(simulator) { sim in
                    let response = try await send(client, .POST, sim.at("/items"), body: #"{"name":"round \#(round)"}"#)
                    #expect(response.status == 201)
                    #expect(sim.journal.count == 1, "every run gets a fresh journal")
                    return sim
                }
            }
            // Simulator state survives runs; the kit does not reset it.
            #expect(simulator.items.count == 16)
            #expect(await stillServes(try #require(last)) == false)
        }
    }

    @Test("an error thrown by the body propagates and the server still shuts down")
    func bodyThrows() async throws {
        struct Marker: Error {}
        let handle = Mutex<SimulatorHandle?>(nil)
        await #expect(throws: Marker.self) {
            try await withSimulator(EchoSimulator()) { sim in
                handle.withLock { $0 = sim }
                throw Marker()
            }
        }
        #expect(await stillServes(try #require(handle.withLock { $0 })) == false)
    }

    @Test("binding a port that is in use fails instead of hanging")
    func portInUse() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            await #expect(throws: (any Error).self) {
                try await withSimulator(EchoSimulator(), port: sim.port) { _ in }
            }
        }
    }

    @Test("withSimulators with no simulators just runs the body")
    func noSimulators() async throws {
        let count = try await withSimulators([]) { handles in handles.count }
        #expect(count == 0)
    }
}

extension JSONDecoder {
    static var iso: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
