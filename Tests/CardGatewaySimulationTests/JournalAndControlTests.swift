import AsyncHTTPClient
import CardGatewaySimulation
import Foundation
import Hummingbird
import Testing

@Suite("Journal and control path", .timeLimit(.minutes(1)))
struct JournalAndControlTests {
    @Test("journal records method, path, query, masked headers, body and status")
    func journalContents() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            try await withClient { client async throws in
                let response = try await send(
                    client,
                    .POST,
                    sim.at("/echo?expand=a&b=1"),
                    headers: [
                        ("Authorization", "Bearer sk_test_secret"),
                        ("X-Api-Key", "key_secret"),
                        ("Cookie", "session=secret"),
                        ("Stripe-Signature", "t=1,v1=abc"),
                        ("X-Echo-Secret", "provider_secret"),
                        ("X-Visible", "yes"),
                        ("X-Multi", "one"),
                        ("X-Multi", "two"),
                    ],
                    body: "card[number]=4242424242424242&card[cvc]=123&amount=1000"
                )
                #expect(response.status == 200)
                _ = try await send(client, .GET, sim.at("/items/item_seed"))
            }
            let entries = sim.journal.entries()
            #expect(entries.count == 2)
            let entry = try #require(entries.first)
            #expect(entry.method == "POST")
            #expect(entry.path == "/echo/v1/echo")
            #expect(entry.query == "expand=a&b=1")
            // Card data is masked as the library's logs mask it; the other fields stay byte for byte.
            #expect(entry.bodyText == "card[number]=%3Cmasked%3E&card[cvc]=%3Cmasked%3E&amount=1000")
            #expect(!entry.bodyText.contains("4242"))
            #expect(entry.responseStatus == 200)
            #expect(entry.timestamp == EchoSimulator.epoch, "timestamps come from the simulator's clock")
            for name in ["authorization", "x-api-key", "cookie", "stripe-signature", "x-echo-secret"] {
                #expect(entry.headers[name] == "<masked>", "\(name) must be masked")
            }
            #expect(entry.header("X-VISIBLE") == "yes")
            #expect(entry.header("x-multi") == "one, two")
            #expect(!entry.headers.values.contains { $0.contains("secret") })
            #expect(entries[1].query == nil)
            #expect(sim.journal.last?.path == "/echo/v1/items/item_seed")
            #expect(sim.journal.entries(pathContains: "/items").count == 1)
            #expect(sim.journal.entries(method: "post").count == 1)
            sim.journal.clear()
            #expect(sim.journal.entries().isEmpty)
            #expect(sim.journal.last == nil)
        }
    }

    @Test("journal bodies mask card numbers, security codes and PINs at any depth, and keep everything else")
    func journalMasksCardData() throws {
        let json =
            #"{"lastFourDigits":"7009","cvv":"567","card":{"pan":4111111111111111,"expirydate":"12/30","cardPin" : "1234"},"#
            + #""request":[{"securitycode":"123","Security_Code":"9876","note":"pin"}],"encryptedCardNumber":"adyenjs_0_1_25$abc\"def"}"#
        let masked = String(decoding: RequestJournal.maskedBody(Data(json.utf8)), as: UTF8.self)
        #expect(
            masked
                == #"{"lastFourDigits":"7009","cvv":"<masked>","card":{"pan":"<masked>","expirydate":"12/30","cardPin" : "<masked>"},"#
                + #""request":[{"securitycode":"<masked>","Security_Code":"<masked>","note":"pin"}],"encryptedCardNumber":"<masked>"}"#
        )
        let parsed = try JSONSerialization.jsonObject(with: Data(masked.utf8)) as? [String: Any]
        #expect(parsed?["lastFourDigits"] as? String == "7009", "the masked body is still JSON")
        #expect(
            String(decoding: RequestJournal.maskedBody(Data("pin=1234&status=ACTIVE".utf8)), as: UTF8.self)
                == "pin=%3Cmasked%3E&status=ACTIVE")
        #expect(RequestJournal.maskedBody(Data("not a form or JSON".utf8)) == Data("not a form or JSON".utf8))
        #expect(RequestJournal.maskedBody(Data()) == Data())
    }

    @Test("journal keeps at most its capacity, dropping the oldest")
    func journalCapacity() {
        let journal = RequestJournal(capacity: 3)
        for index in 0..<5 {
            journal.record(
                JournalEntry(
                    method: "GET", path: "/\(index)", query: nil, headers: [:], body: Data(), responseStatus: 200,
                    timestamp: Date())
            )
        }
        #expect(journal.entries().map(\.path) == ["/2", "/3", "/4"])
    }

    @Test("control path: faults can be injected, listed and cleared over HTTP")
    func controlFaults() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            try await withClient { client async throws in
                let rule =
                    #"{"count":2,"pathPrefix":"/echo/v1/items","method":"GET","action":{"type":"status","status":503,"retryAfterSeconds":2}}"#
                let injected = try await send(client, .POST, sim.root("/__simulator/faults"), body: rule)
                #expect(injected.status == 204)
                #expect(
                    sim.faults.pending == [
                        FaultRule(
                            count: 2, pathPrefix: "/echo/v1/items", method: "GET",
                            action: .status(503, retryAfterSeconds: 2, message: nil))
                    ])

                // Control requests are neither faulted nor journaled.
                let listed = try await send(client, .GET, sim.root("/__simulator/faults"))
                #expect(listed.status == 200)
                #expect(try JSONDecoder().decode([FaultRule].self, from: listed.body) == sim.faults.pending)

                let faulted = try await send(client, .GET, sim.at("/items"))
                #expect(faulted.status == 503)
                #expect(faulted.header("retry-after") == "2")

                let array =
                    #"[{"action":{"type":"delay","milliseconds":1}},{"action":{"type":"dropConnection"},"count":3}]"#
                #expect(try await send(client, .POST, sim.root("/__simulator/faults"), body: array).status == 204)
                #expect(sim.faults.pending.count == 3)

                #expect(try await send(client, .DELETE, sim.root("/__simulator/faults")).status == 204)
                #expect(sim.faults.pending.isEmpty)

                let bad = try await send(
                    client, .POST, sim.root("/__simulator/faults"), body: #"{"action":{"type":"explode"}}"#)
                #expect(bad.status == 400)
                let message = try bad.jsonObject()["error"] as? String ?? ""
                #expect(message.contains("unknown fault type"))
                #expect(try await send(client, .POST, sim.root("/__simulator/faults"), body: "not json").status == 400)
                #expect(
                    try await send(
                        client, .POST, sim.root("/__simulator/faults"),
                        body: #"{"count":0,"action":{"type":"dropConnection"}}"#
                    ).status == 400)
                #expect(sim.faults.pending.isEmpty)
            }
            #expect(sim.journal.entries().map(\.path) == ["/echo/v1/items"])
        }
    }

    @Test("control path: journal can be read and cleared over HTTP")
    func controlJournal() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            try await withClient { client async throws in
                _ = try await send(
                    client, .POST, sim.at("/items"), headers: [("Authorization", "Basic dTpw")], body: #"{"name":"J"}"#)
                _ = try await send(client, .GET, sim.at("/items?limit=1"))

                let listed = try await send(client, .GET, sim.root("/__simulator/journal"))
                #expect(listed.status == 200)
                let entries = try JSONDecoder().decode([JournalEntry].self, from: listed.body)
                #expect(entries == sim.journal.entries())
                #expect(entries.count == 2)

                let raw = try #require(try JSONSerialization.jsonObject(with: listed.body) as? [[String: Any]])
                #expect(raw[0]["body"] as? String == Data(#"{"name":"J"}"#.utf8).base64EncodedString())
                #expect(raw[0]["bodyText"] as? String == #"{"name":"J"}"#)
                #expect(raw[0]["method"] as? String == "POST")
                #expect(raw[0]["responseStatus"] as? Int == 201)
                #expect((raw[0]["headers"] as? [String: String])?["authorization"] == "<masked>")
                #expect(raw[0]["timestamp"] as? String == "2030-01-01T00:00:00.000Z")
                #expect(raw[0]["query"] == nil)
                #expect(raw[1]["query"] as? String == "limit=1")

                let filtered = try await send(client, .GET, sim.root("/__simulator/journal?pathContains=%2Fitems"))
                #expect(try JSONDecoder().decode([JournalEntry].self, from: filtered.body).count == 2)
                let none = try await send(client, .GET, sim.root("/__simulator/journal?pathContains=/nothing"))
                #expect(try JSONDecoder().decode([JournalEntry].self, from: none.body).isEmpty)

                #expect(try await send(client, .DELETE, sim.root("/__simulator/journal")).status == 204)
                #expect(sim.journal.entries().isEmpty)
            }
        }
    }

    @Test("control path: reset restores the seed and clears faults and journal")
    func controlReset() async throws {
        let simulator = EchoSimulator()
        try await withSimulator(simulator) { sim in
            try await withClient { client async throws in
                #expect(try await send(client, .POST, sim.at("/items"), body: #"{"name":"extra"}"#).status == 201)
                #expect(simulator.items.count == 2)
                sim.faults.inject(FaultRule(action: .dropConnection))
                #expect(try await send(client, .POST, sim.root("/__simulator/reset")).status == 204)
                #expect(simulator.items.count == 1)
                #expect(sim.faults.pending.isEmpty)
                #expect(sim.journal.entries().isEmpty)
                #expect(simulator.resets.value == 1)
                #expect(try await send(client, .GET, sim.root("/__simulator/reset")).status == 405)
            }
        }
    }

    @Test("control path: clock can be advanced, set and read over HTTP")
    func controlClock() async throws {
        let simulator = EchoSimulator()
        try await withSimulator(simulator) { sim in
            try await withClient { client async throws in
                #expect(
                    try await send(client, .POST, sim.root("/__simulator/clock"), body: #"{"advanceSeconds": 90}"#)
                        .status == 204)
                #expect(simulator.simulationClock.now() == EchoSimulator.epoch.addingTimeInterval(90))

                let read = try await send(client, .GET, sim.root("/__simulator/clock"))
                #expect(read.status == 200)
                #expect(try read.jsonObject()["now"] as? String == "2030-01-01T00:01:30.000Z")

                #expect(
                    try await send(
                        client, .POST, sim.root("/__simulator/clock"), body: #"{"now":"2031-06-01T12:00:00Z"}"#
                    ).status == 204)
                let expected = try Date.ISO8601FormatStyle().parse("2031-06-01T12:00:00Z")
                #expect(simulator.simulationClock.now() == expected)

                #expect(try await send(client, .POST, sim.root("/__simulator/clock"), body: #"{}"#).status == 400)
                #expect(
                    try await send(client, .POST, sim.root("/__simulator/clock"), body: #"{"advanceSeconds":"soon"}"#)
                        .status == 400)
                #expect(
                    try await send(client, .POST, sim.root("/__simulator/clock"), body: #"{"now":"yesterday"}"#).status
                        == 400)
            }
        }
    }

    @Test("control path: clock answers 404 for a simulator without a clock; unknown paths 404; wrong methods 405")
    func controlErrors() async throws {
        try await withSimulator(ClocklessSimulator()) { sim in
            try await withClient { client async throws in
                let clock = try await send(
                    client, .POST, sim.root("/__simulator/clock"), body: #"{"advanceSeconds":1}"#)
                #expect(clock.status == 404)
                #expect((try clock.jsonObject()["error"] as? String)?.contains("no settable clock") == true)
                #expect(try await send(client, .GET, sim.root("/__simulator/nothing")).status == 404)
                let wrong = try await send(client, .PUT, sim.root("/__simulator/journal"))
                #expect(wrong.status == 405)
                #expect(wrong.header("allow") == "GET, DELETE")
                let info = try await send(client, .GET, sim.root("/__simulator/info"))
                #expect(info.status == 200)
                #expect(try info.jsonObject()["kind"] as? String == "clockless")
                #expect(try info.jsonObject()["hasClock"] as? Bool == false)
                // The simulator's own routes and default 404 still work.
                #expect(try await send(client, .GET, sim.at("/ping")).text == "pong")
                #expect(
                    try await send(client, .GET, sim.at("/missing")).text == "error 404: no such route (GET: /missing)")
            }
            #expect(sim.journal.entries().map(\.path) == ["/ping", "/missing"])
        }
    }
}

/// A minimal simulator relying on every protocol default (no clock, no extra sensitive headers, no-op reset).
struct ClocklessSimulator: ProviderSimulator {
    var kindName: String { "clockless" }
    var basePath: String { "" }

    func registerRoutes(on router: Router<SimulatorContext>) {
        router.get("/ping") { _, _ in SimulatedResponse.text(200, "pong") }
    }

    func faultResponse(status: Int, message: String) -> SimulatedResponse {
        .text(status, "error \(status): \(message)")
    }
}
