import AsyncHTTPClient
import CardGatewaySimulation
import Foundation
import NIOCore
import Testing

@Suite("Fault injection over HTTP", .timeLimit(.minutes(1)))
struct FaultTests {
    @Test("status fault answers with the provider's error body and Retry-After, without running the handler")
    func statusFault() async throws {
        let simulator = EchoSimulator()
        try await withSimulator(simulator) { sim in
            sim.faults.inject(FaultRule(action: .status(503, retryAfterSeconds: 2, message: "maintenance")))
            try await withClient { client async throws in
                let faulted = try await send(client, .POST, sim.at("/items"), body: #"{"name":"x"}"#)
                #expect(faulted.status == 503)
                #expect(faulted.header("retry-after") == "2")
                #expect(faulted.header("content-type") == "application/json")
                let error = try faulted.echoError()
                #expect(error.code == 503)
                #expect(error.message == "maintenance")
                #expect(error.type == "echo_error")
                #expect(simulator.items.count == 1, "handler did not run")

                let next = try await send(client, .POST, sim.at("/items"), body: #"{"name":"x"}"#)
                #expect(next.status == 201)
                #expect(next.header("retry-after") == nil)
            }
            #expect(sim.journal.entries().map(\.responseStatus) == [503, 201])
            #expect(sim.faults.pending.isEmpty)
        }
    }

    @Test("status fault without message uses a default message and no Retry-After")
    func statusFaultDefaults() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            sim.faults.inject(FaultRule(action: .status(429, retryAfterSeconds: nil, message: nil)))
            try await withClient { client async throws in
                let faulted = try await send(client, .GET, sim.at("/items"))
                #expect(faulted.status == 429)
                #expect(faulted.header("retry-after") == nil)
                #expect(try faulted.echoError().message == "simulated fault: HTTP 429")
            }
        }
    }

    @Test("delay fault waits, then handles the request normally")
    func delayFault() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            // A real delay on a real socket; generous, so that the check made while it holds the request cannot lose a race.
            sim.faults.inject(FaultRule(action: .delay(milliseconds: 2_000)))
            try await withClient { client async throws in
                let url = sim.at("/items")
                let call = Task { try await send(client, .POST, url, body: #"{"name":"slow"}"#) }
                // Held by the delay: consumed, counted as on its way, not handled yet.
                await sim.faults.delayedAnswersHeld(1)
                #expect(sim.faults.delayedAnswersInProgress == 1)
                #expect(sim.journal.count == 0)
                let delayed = try await call.value
                #expect(delayed.status == 201)
                await sim.faults.delayedAnswersSettled()
                #expect(sim.faults.delayedAnswersInProgress == 0)

                // The rule was for one request: it is used up, and the next request is handled without a fault.
                #expect(sim.faults.pending.isEmpty)
                let next = try await send(client, .GET, sim.at("/items"))
                #expect(next.status == 200)
            }
            #expect(sim.journal.entries().map(\.responseStatus) == [201, 200])
        }
    }

    @Test("shutdown does not wait for a request held by a long delay fault; that request gets a provider 503")
    func shutdownDuringDelay() async throws {
        try await withClient { client async throws in
            let pending = try await withSimulator(EchoSimulator()) { sim in
                // An hour: were shutdown to wait for the request, the suite's time limit would end the test.
                sim.faults.inject(FaultRule(action: .delay(milliseconds: 3_600_000)))
                let url = sim.at("/items")
                let pending = Task { try await send(client, .GET, url) }
                // The delayed request has reached the server and is held there.
                await sim.faults.delayedAnswersHeld(1)
                #expect(sim.faults.pending.isEmpty)
                return pending
            }
            let response = try await pending.value
            #expect(response.status == 503)
            #expect(try response.echoError().message == "simulator is shutting down")
        }
    }

    @Test("dropConnection closes the connection without a response; the client sees an error")
    func dropConnection() async throws {
        let simulator = EchoSimulator()
        try await withSimulator(simulator) { sim in
            sim.faults.inject(FaultRule(method: "POST", action: .dropConnection))
            try await withClient { client async throws in
                // Warm a pooled connection first so the drop happens on a reused keep-alive connection too.
                #expect(try await send(client, .GET, sim.at("/items")).status == 200)
                await #expect(throws: (any Error).self) {
                    _ = try await send(client, .POST, sim.at("/items"), body: #"{"name":"lost"}"#)
                }
                #expect(simulator.items.count == 1, "handler did not run")
                // The server keeps serving new connections.
                #expect(try await send(client, .POST, sim.at("/items"), body: #"{"name":"kept"}"#).status == 201)
            }
            let entries = sim.journal.entries()
            #expect(entries.map(\.responseStatus) == [200, 0, 201])
            #expect(entries[1].bodyText == #"{"name":"lost"}"#)
        }
    }

    @Test("malformedBody answers with a body that is not JSON but claims to be")
    func malformedBody() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            sim.faults.inject(FaultRule(action: .malformedBody(status: 200)))
            try await withClient { client async throws in
                let response = try await send(client, .GET, sim.at("/items"))
                #expect(response.status == 200)
                #expect(response.header("content-type") == "application/json")
                #expect(!response.body.isEmpty)
                #expect(throws: (any Error).self) {
                    _ = try JSONSerialization.jsonObject(with: response.body)
                }
            }
        }
    }

    @Test("truncatedBody sends fewer bytes than content-length and closes; the client sees an error")
    func truncatedBody() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            sim.faults.inject(FaultRule(action: .truncatedBody(status: 200)))
            try await withClient { client async throws in
                var request = HTTPClientRequest(url: sim.at("/items"))
                request.method = .GET
                let response = try await client.execute(request, timeout: .seconds(30))
                #expect(response.status.code == 200)
                #expect(response.headers.first(name: "content-type") == "application/json")
                let declared = Int(response.headers.first(name: "content-length") ?? "") ?? 0
                #expect(declared > 1)
                await #expect(throws: (any Error).self) {
                    _ = try await response.body.collect(upTo: 1 << 20)
                }
                #expect(try await send(client, .GET, sim.at("/items")).status == 200)
            }
            #expect(sim.journal.entries().map(\.responseStatus) == [200, 200])
        }
    }

    @Test("count, pathPrefix and method select which requests are faulted")
    func matching() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            sim.faults.inject(
                FaultRule(
                    count: 2, pathPrefix: "/echo/v1/items", method: "post",
                    action: .status(502, retryAfterSeconds: nil, message: nil)))
            try await withClient { client async throws in
                // Different method, different path: not faulted.
                #expect(try await send(client, .GET, sim.at("/items")).status == 200)
                #expect(try await send(client, .POST, sim.at("/echo"), body: "x").status == 200)
                #expect(sim.faults.pending.first?.count == 2)
                // Two matching requests are faulted, the third is not.
                #expect(try await send(client, .POST, sim.at("/items"), body: #"{"name":"a"}"#).status == 502)
                #expect(sim.faults.pending.first?.count == 1)
                #expect(try await send(client, .POST, sim.at("/items?x=1"), body: #"{"name":"b"}"#).status == 502)
                #expect(sim.faults.pending.isEmpty)
                #expect(try await send(client, .POST, sim.at("/items"), body: #"{"name":"c"}"#).status == 201)
            }
        }
    }

    @Test("rules are consumed in injection order; clear removes pending rules")
    func order() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            sim.faults.inject(FaultRule(action: .status(500, retryAfterSeconds: nil, message: "first")))
            sim.faults.inject(FaultRule(action: .status(502, retryAfterSeconds: nil, message: "second")))
            sim.faults.inject(FaultRule(count: 0, action: .dropConnection))
            #expect(sim.faults.pending.count == 2, "a rule with count 0 is ignored")
            try await withClient { client async throws in
                let first = try await send(client, .GET, sim.at("/items"))
                #expect(first.status == 500)
                #expect(try first.echoError().message == "first")
                let second = try await send(client, .GET, sim.at("/items"))
                #expect(second.status == 502)
                #expect(try second.echoError().message == "second")
                #expect(try await send(client, .GET, sim.at("/items")).status == 200)

                sim.faults.inject(FaultRule(count: 5, action: .status(500, retryAfterSeconds: nil, message: nil)))
                sim.faults.clear()
                #expect(sim.faults.pending.isEmpty)
                #expect(try await send(client, .GET, sim.at("/items")).status == 200)
            }
        }
    }

    @Test("faults apply to unknown routes too")
    func faultOnUnknownRoute() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            sim.faults.inject(
                FaultRule(pathPrefix: "/nowhere", action: .status(503, retryAfterSeconds: 1, message: nil)))
            try await withClient { client async throws in
                #expect(try await send(client, .GET, sim.root("/nowhere")).status == 503)
                #expect(try await send(client, .GET, sim.root("/nowhere")).status == 404)
            }
        }
    }

    @Test("on the wire: a dropped connection sends no byte; a truncated body sends less than content-length")
    func rawWire() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            let request = "GET /echo/v1/items HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

            sim.faults.inject(FaultRule(action: .dropConnection))
            let dropped = try await rawExchange(port: sim.port, request)
            #expect(dropped.received.isEmpty)

            sim.faults.inject(FaultRule(action: .truncatedBody(status: 502)))
            let truncated = try await rawExchange(port: sim.port, request)
            let parts = truncated.text.components(separatedBy: "\r\n\r\n")
            #expect(parts.count == 2)
            #expect(parts[0].hasPrefix("HTTP/1.1 502"))
            let lengthLine = parts[0].split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            let declared = Int(lengthLine?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
            let sent = parts.count == 2 ? parts[1].utf8.count : -1
            #expect(sent > 0)
            #expect(declared > sent)
            #expect(!parts[0].lowercased().contains("transfer-encoding"))

            // A normal exchange on the same server is complete.
            let normal = try await rawExchange(
                port: sim.port, "GET /echo/v1/items HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(normal.text.hasPrefix("HTTP/1.1 200 OK"))
            #expect(normal.text.hasSuffix("}"))
        }
    }
}
