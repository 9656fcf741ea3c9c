import AsyncHTTPClient
import CardGatewaySimulation
import Foundation
import Testing

@Suite("Idempotency ledger", .timeLimit(.minutes(1)))
struct IdempotencyTests {
    @Test("proceed, replay, conflict, in progress, expired and abandon")
    func outcomes() {
        let clock = SimulationClock(fixed: EchoSimulator.epoch)
        let ledger = IdempotencyLedger(window: 60, clock: clock)
        let body = Data("amount=1".utf8)
        let response = SimulatedResponse.json(201, ["id": "x"])

        #expect(ledger.begin(key: "k1", scope: "POST /a", fingerprint: body) == .proceed)
        #expect(ledger.begin(key: "k1", scope: "POST /a", fingerprint: body) == .inProgress)
        ledger.record(key: "k1", scope: "POST /a", fingerprint: body, response: response)
        #expect(ledger.begin(key: "k1", scope: "POST /a", fingerprint: body) == .replay(response))
        #expect(ledger.begin(key: "k1", scope: "POST /a", fingerprint: Data("amount=2".utf8)) == .conflict)
        // Scopes are independent.
        #expect(ledger.begin(key: "k1", scope: "POST /b", fingerprint: body) == .proceed)
        ledger.abandon(key: "k1", scope: "POST /b")
        #expect(ledger.begin(key: "k1", scope: "POST /b", fingerprint: Data()) == .proceed)

        clock.advance(by: 59)
        #expect(ledger.begin(key: "k1", scope: "POST /a", fingerprint: body) == .replay(response))
        clock.advance(by: 1)
        #expect(ledger.begin(key: "k1", scope: "POST /a", fingerprint: body) == .expired)

        #expect(ledger.count == 2)
        ledger.reset()
        #expect(ledger.count == 0)
        #expect(ledger.begin(key: "k1", scope: "POST /a", fingerprint: body) == .proceed)
    }

    @Test("without a window keys never expire")
    func noWindow() {
        let clock = SimulationClock(fixed: EchoSimulator.epoch)
        let ledger = IdempotencyLedger(clock: clock)
        let response = SimulatedResponse(status: 200)
        ledger.record(key: "k", scope: "s", fingerprint: Data([1]), response: response)
        clock.advance(by: 10 * 365 * 86_400)
        #expect(ledger.begin(key: "k", scope: "s", fingerprint: Data([1])) == .replay(response))
    }

    @Test("over HTTP: replay returns the first response, conflict, expiry via the control clock")
    func overHTTP() async throws {
        let simulator = EchoSimulator()
        try await withSimulator(simulator) { sim in
            try await withClient { client async throws in
                let key = [("Idempotency-Key", "key-1")]
                let first = try await send(client, .POST, sim.at("/items"), headers: key, body: #"{"name":"A"}"#)
                #expect(first.status == 201)
                let replay = try await send(client, .POST, sim.at("/items"), headers: key, body: #"{"name":"A"}"#)
                #expect(replay.status == 201)
                #expect(replay.body == first.body)
                #expect(replay.header("idempotent-replayed") == "true")
                #expect(simulator.items.count == 2, "replay did not create another item")

                let conflict = try await send(client, .POST, sim.at("/items"), headers: key, body: #"{"name":"B"}"#)
                #expect(conflict.status == 409)
                #expect(try conflict.echoError().message == "idempotency key reused with different parameters")

                // A rejected request releases its key.
                let rejected = try await send(
                    client, .POST, sim.at("/items"), headers: [("Idempotency-Key", "key-2")], body: "{}")
                #expect(rejected.status == 400)
                let retried = try await send(
                    client, .POST, sim.at("/items"), headers: [("Idempotency-Key", "key-2")], body: #"{"name":"C"}"#)
                #expect(retried.status == 201)

                let advance = #"{"advanceSeconds": \#(Int(EchoSimulator.idempotencyWindow) + 1)}"#
                #expect(try await send(client, .POST, sim.root("/__simulator/clock"), body: advance).status == 204)
                let expired = try await send(client, .POST, sim.at("/items"), headers: key, body: #"{"name":"A"}"#)
                #expect(expired.status == 422)
                #expect(try expired.echoError().message == "idempotency key expired")
            }
        }
    }

    @Test("over HTTP: a second request with a key still in flight gets inProgress")
    func inProgressOverHTTP() async throws {
        let simulator = EchoSimulator()
        try await withSimulator(simulator) { sim in
            try await withClient { client async throws in
                let key = [("Idempotency-Key", "held")]
                let url = sim.at("/items")
                async let held = send(client, .POST, url, headers: key, body: #"{"name":"hold"}"#)
                try await simulator.gate.waitUntilEntered()
                let concurrent = try await send(client, .POST, url, headers: key, body: #"{"name":"hold"}"#)
                #expect(concurrent.status == 409)
                #expect(try concurrent.echoError().message == "a request with this idempotency key is in progress")
                simulator.gate.release()
                let first = try await held
                #expect(first.status == 201)
                let replay = try await send(client, .POST, url, headers: key, body: #"{"name":"hold"}"#)
                #expect(replay.body == first.body)
            }
        }
    }
}
