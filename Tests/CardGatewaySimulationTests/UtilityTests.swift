import CardGatewaySimulation
import Foundation
import Testing

@Suite("Kit utilities", .timeLimit(.minutes(5)))
struct UtilityTests {
    @Test("a fixed clock stands still until advanced or set")
    func fixedClock() {
        let clock = SimulationClock(fixed: EchoSimulator.epoch)
        #expect(clock.isFixed)
        #expect(clock.now() == EchoSimulator.epoch)
        #expect(clock.now() == EchoSimulator.epoch)
        clock.advance(by: 86_400)
        #expect(clock.now() == EchoSimulator.epoch.addingTimeInterval(86_400))
        clock.advance(by: -400)
        #expect(clock.now() == EchoSimulator.epoch.addingTimeInterval(86_000))
        let target = Date(timeIntervalSince1970: 42)
        clock.set(target)
        #expect(clock.now() == target)
    }

    @Test("a running clock follows system time plus offset")
    func runningClock() {
        let clock = SimulationClock()
        #expect(!clock.isFixed)
        #expect(abs(clock.now().timeIntervalSinceNow) < 1)
        clock.advance(by: 3600)
        #expect(abs(clock.now().timeIntervalSinceNow - 3600) < 1)
        clock.set(EchoSimulator.epoch)
        #expect(abs(clock.now().timeIntervalSince(EchoSimulator.epoch)) < 1)
        let first = clock.now()
        #expect(clock.now() >= first)
    }

    @Test("deterministic ids repeat per seed, differ across seeds and have the documented shape")
    func deterministicIDs() throws {
        let a = DeterministicIDs(seed: 42)
        let b = DeterministicIDs(seed: 42)
        let c = DeterministicIDs(seed: 43)
        let fromA = (0..<20).map { _ in a.next(prefix: "pi_") }
        let fromB = (0..<20).map { _ in b.next(prefix: "pi_") }
        #expect(fromA == fromB)
        #expect(Set(fromA).count == 20)
        #expect(c.next(prefix: "pi_") != fromA[0])
        for id in fromA {
            #expect(id.hasPrefix("pi_"))
            #expect(id.count == 3 + 24)
            #expect(id.dropFirst(3).allSatisfy { $0.isASCII && ($0.isNumber || $0.isLowercase) })
        }
        #expect(a.next(prefix: "", length: 5).count == 5)
        #expect(a.next(prefix: "x", length: 0) == "x")

        let uuid = a.uuid()
        let pattern = try Regex("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        #expect(uuid.wholeMatch(of: pattern) != nil)
        #expect(UUID(uuidString: uuid) != nil)

        a.reset()
        #expect(a.next(prefix: "pi_") == fromA[0])
        let n = a.nextInt(in: 10...12)
        #expect((10...12).contains(n))
        #expect(DeterministicIDs().uuid() == DeterministicIDs(seed: 1).uuid())
    }

    @Test("store keeps insertion order and updates atomically")
    func store() async throws {
        struct Failure: Error {}
        let store = SimulatorStore<String, Int>([("a", 1), ("b", 2)])
        store.put("c", 3)
        store.put("a", 10)
        #expect(store.all() == [10, 2, 3])
        #expect(store.entries().map(\.key) == ["a", "b", "c"])
        #expect(store.get("b") == 2)
        #expect(store.get("z") == nil)
        #expect(store.update("z") { $0 += 1 } == nil)
        #expect(store.update("b") { $0 += 5 } == 7)
        #expect(throws: Failure.self) {
            try store.update("b") { value in
                value = 100
                throw Failure()
            }
        }
        #expect(store.get("b") == 7, "a throwing transform leaves the value unchanged")
        #expect(!store.insertIfAbsent("a", 0))
        #expect(store.insertIfAbsent("d", 4))
        #expect(store.remove("a") == 10)
        #expect(store.remove("a") == nil)
        #expect(store.all() == [7, 3, 4])
        #expect(store.filter { $0 > 3 } == [7, 4])
        #expect(store.count == 3)

        store.reset(to: [("x", 0)])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask { store.update("x") { $0 += 1 } }
            }
        }
        #expect(store.get("x") == 200)
        #expect(store.all() == [200])
    }

    @Test("form fields: percent-decoding, plus as space, order and duplicates kept")
    func formFields() {
        let body = Data(
            "amount=1000&currency=EUR&metadata%5Bnote%5D=hello+world%21&tag=a&tag=b&flag&=empty&&bad=%ZZ%4".utf8)
        let fields = SimulatorHTTP.formFields(body)
        #expect(fields.map(\.name) == ["amount", "currency", "metadata[note]", "tag", "tag", "flag", "", "bad"])
        #expect(fields.map(\.value) == ["1000", "EUR", "hello world!", "a", "b", "", "empty", "%ZZ%4"])
        #expect(SimulatorHTTP.formFields(Data()).isEmpty)
        #expect(SimulatorHTTP.formFields(Data("name=J%C3%BCrgen".utf8)).first?.value == "Jürgen")

        let encoded = SimulatorHTTP.formEncode([("card[number]", "4242 4242"), ("note", "a&b=c+d/é")])
        #expect(encoded == "card%5Bnumber%5D=4242+4242&note=a%26b%3Dc%2Bd%2F%C3%A9")
        let decoded = SimulatorHTTP.formFields(Data(encoded.utf8))
        #expect(decoded.map(\.name) == ["card[number]", "note"])
        #expect(decoded.map(\.value) == ["4242 4242", "a&b=c+d/é"])
    }

    @Test("query items parse with or without a leading question mark")
    func queryItems() {
        let items = SimulatorHTTP.queryItems("?limit=10&starting_after=pi_1&expand[]=customer&expand[]=card")
        #expect(items.map(\.name) == ["limit", "starting_after", "expand[]", "expand[]"])
        #expect(items.map(\.value) == ["10", "pi_1", "customer", "card"])
        #expect(SimulatorHTTP.queryItems("q=a%20b+c").first?.value == "a b c")
        #expect(SimulatorHTTP.queryItems(nil).isEmpty)
        #expect(SimulatorHTTP.queryItems("").isEmpty)
    }

    @Test("basic credentials and bearer tokens")
    func authorization() {
        let header = "Basic " + Data("merchant:pa:ss".utf8).base64EncodedString()
        let credentials = SimulatorHTTP.basicCredentials(header)
        #expect(credentials?.user == "merchant")
        #expect(credentials?.password == "pa:ss")
        #expect(SimulatorHTTP.basicCredentials("basic " + Data("u:".utf8).base64EncodedString())?.password == "")
        #expect(SimulatorHTTP.basicCredentials(nil) == nil)
        #expect(SimulatorHTTP.basicCredentials("Bearer abc") == nil)
        #expect(SimulatorHTTP.basicCredentials("Basic !!!") == nil)
        #expect(SimulatorHTTP.basicCredentials("Basic " + Data("nocolon".utf8).base64EncodedString()) == nil)

        // RFC 7617 section 2's example, both ways.
        #expect(
            SimulatorHTTP.basicAuthorization(user: "Aladdin", password: "open sesame")
                == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(SimulatorHTTP.basicCredentials("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")?.password == "open sesame")
        let written = SimulatorHTTP.basicAuthorization(user: "merchant", password: "pa:ss")
        #expect(written == header)
        #expect(SimulatorHTTP.basicCredentialsMatch(written, user: "merchant", password: "pa:ss"))
        #expect(!SimulatorHTTP.basicCredentialsMatch(written, user: "merchant", password: "pa:sS"))
        #expect(!SimulatorHTTP.basicCredentialsMatch(written, user: "merchanT", password: "pa:ss"))
        #expect(!SimulatorHTTP.basicCredentialsMatch(written, user: "merchant", password: "pa"))
        #expect(!SimulatorHTTP.basicCredentialsMatch(nil, user: "merchant", password: "pa:ss"))
        #expect(!SimulatorHTTP.basicCredentialsMatch("Bearer merchant:pa:ss", user: "merchant", password: "pa:ss"))

        #expect(SimulatorHTTP.bearerToken("Bearer sk_test_123") == "sk_test_123")
        #expect(SimulatorHTTP.bearerToken("bearer   tok  ") == "tok")
        #expect(SimulatorHTTP.bearerToken("Bearer ") == nil)
        #expect(SimulatorHTTP.bearerToken("Basic abc") == nil)
        #expect(SimulatorHTTP.bearerToken(nil) == nil)
    }

    @Test("dates: each provider's published form written, RFC 3339 read")
    func dates() throws {
        let instant = Date(timeIntervalSince1970: 1_706_745_599)  // 2024-01-31T23:59:59Z
        #expect(SimulatorDateTime.format(instant) == "2024-01-31T23:59:59Z")
        #expect(SimulatorDateTime.format(instant.addingTimeInterval(0.123_4)) == "2024-01-31T23:59:59Z")
        #expect(
            SimulatorDateTime.format(instant.addingTimeInterval(0.123_4), fraction: .milliseconds)
                == "2024-01-31T23:59:59.123Z")
        #expect(SimulatorDateTime.format(instant, fraction: .milliseconds) == "2024-01-31T23:59:59.000Z")
        #expect(
            SimulatorDateTime.format(instant.addingTimeInterval(0.578_051), fraction: .microseconds)
                == "2024-01-31T23:59:59.578051Z")
        #expect(
            SimulatorDateTime.format(instant.addingTimeInterval(0.999_999_6), fraction: .microseconds)
                == "2024-01-31T23:59:59.999999Z")
        // Adyen's examples: `2021-01-01T01:00:00+01:00` is midnight UTC, written at Amsterdam's winter offset.
        let amsterdam = try #require(TimeZone(secondsFromGMT: 3600))
        let midnight = Date(timeIntervalSince1970: 1_609_459_200)
        #expect(SimulatorDateTime.format(midnight, timeZone: amsterdam) == "2021-01-01T01:00:00+01:00")
        #expect(
            SimulatorDateTime.format(midnight.addingTimeInterval(0.25), fraction: .microseconds, timeZone: amsterdam)
                == "2021-01-01T01:00:00.250000+01:00")
        // Lithic's tokenization examples (`2023-08-28T15:57:14.578051`) and Trust Payments' timestamps.
        let lithic = try #require(SimulatorDateTime.parse("2023-08-28T15:57:14Z")).addingTimeInterval(0.578_051)
        #expect(SimulatorDateTime.formatWithoutZone(lithic, fraction: .microseconds) == "2023-08-28T15:57:14.578051")
        #expect(SimulatorDateTime.formatWithoutZone(instant, separator: " ") == "2024-01-31 23:59:59")
        #expect(SimulatorDateTime.fullDate(instant) == "2024-01-31")
        #expect(SimulatorDateTime.fullDate(instant.addingTimeInterval(1)) == "2024-02-01")

        #expect(SimulatorDateTime.parse("2024-01-31T23:59:59Z") == instant)
        #expect(SimulatorDateTime.parse("2024-01-31t23:59:59z") == instant)
        #expect(SimulatorDateTime.parse("2024-02-01T00:59:59+01:00") == instant)
        #expect(SimulatorDateTime.parse("2024-01-31T23:59:59.000Z") == instant)
        let micro = try #require(SimulatorDateTime.parse("2024-01-31T23:59:59.578051Z"))
        #expect(abs(micro.timeIntervalSince(instant) - 0.578_051) < 0.000_002)
        for text in ["2024-01-31", "2024-01-31T23:59:59", "2024-01-31 23:59:59Z", "2024-01-31T23:59:59Z ", "", "soon"] {
            #expect(SimulatorDateTime.parse(text) == nil, "\(text)")
        }
        // Every written form with a zone reads back.
        for fraction in [SimulatorDateTime.Fraction.none, .milliseconds, .microseconds] {
            #expect(SimulatorDateTime.parse(SimulatorDateTime.format(instant, fraction: fraction)) == instant)
            #expect(
                SimulatorDateTime.parse(SimulatorDateTime.format(instant, fraction: fraction, timeZone: amsterdam))
                    == instant)
        }
    }

    @Test("simulated responses: JSON with sorted keys, headers, conversion")
    func simulatedResponse() throws {
        let response = SimulatedResponse.json(402, ["z": 1, "a": ["y": true, "b": "c/d"]] as [String: Any])
        #expect(response.status == 402)
        #expect(response.bodyText == #"{"a":{"b":"c/d","y":true},"z":1}"#)
        #expect(response.header("Content-Type") == "application/json")

        let invalid = SimulatedResponse.json(200, Date())
        #expect(invalid.status == 500)

        struct Payload: Encodable { var when: Date; var amount: Int }
        let encoded = SimulatedResponse.json(200, encodable: Payload(when: EchoSimulator.epoch, amount: 5))
        #expect(encoded.bodyText == #"{"amount":5,"when":"2030-01-01T00:00:00Z"}"#)

        let withHeaders = response.withHeader("X-Request-Id", "1").withHeader("x-request-id", "2")
        #expect(withHeaders.headers.filter { $0.name.lowercased() == "x-request-id" }.count == 1)
        #expect(withHeaders.header("X-REQUEST-ID") == "2")
        #expect(withHeaders != response)
        #expect(response == SimulatedResponse.json(402, ["a": ["b": "c/d", "y": true], "z": 1] as [String: Any]))

        let converted = withHeaders.hummingbirdResponse
        #expect(converted.status.code == 402)
        #expect(converted.headers[.contentType] == "application/json")
        #expect(converted.headers[.contentLength] == String(response.body.count))
        #expect(SimulatedResponse(status: 42).hummingbirdResponse.status.code == 500)
    }

    @Test("fault rules decode from and encode to the documented hand-written JSON")
    func faultRuleJSON() throws {
        let decoder = JSONDecoder()
        let rule = try decoder.decode(
            FaultRule.self,
            from: Data(
                #"{"count":1,"pathPrefix":"/v1/x","action":{"type":"status","status":503,"retryAfterSeconds":2}}"#.utf8)
        )
        #expect(
            rule == FaultRule(count: 1, pathPrefix: "/v1/x", action: .status(503, retryAfterSeconds: 2, message: nil)))
        let minimal = try decoder.decode(FaultRule.self, from: Data(#"{"action":{"type":"dropConnection"}}"#.utf8))
        #expect(minimal == FaultRule(action: .dropConnection))

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let cases: [(FaultRule, String)] = [
            (
                FaultRule(
                    count: 2, pathPrefix: "/v1/x", method: "POST",
                    action: .status(429, retryAfterSeconds: 3, message: "slow down")),
                #"{"action":{"message":"slow down","retryAfterSeconds":3,"status":429,"type":"status"},"count":2,"method":"POST","pathPrefix":"/v1/x"}"#
            ),
            (
                FaultRule(action: .delay(milliseconds: 250)),
                #"{"action":{"milliseconds":250,"type":"delay"},"count":1}"#
            ),
            (FaultRule(action: .dropConnection), #"{"action":{"type":"dropConnection"},"count":1}"#),
            (
                FaultRule(action: .malformedBody(status: 200)),
                #"{"action":{"status":200,"type":"malformedBody"},"count":1}"#
            ),
            (
                FaultRule(action: .truncatedBody(status: 201)),
                #"{"action":{"status":201,"type":"truncatedBody"},"count":1}"#
            ),
        ]
        for (rule, json) in cases {
            #expect(String(decoding: try encoder.encode(rule), as: UTF8.self) == json)
            #expect(try decoder.decode(FaultRule.self, from: Data(json.utf8)) == rule)
        }

        let invalid = [
            #"{"count":0,"action":{"type":"dropConnection"}}"#,
            #"{"action":{"type":"status","status":99}}"#,
            #"{"action":{"type":"status"}}"#,
            #"{"action":{"type":"delay","milliseconds":-1}}"#,
            #"{"action":{"type":"teleport"}}"#,
            #"{"count":1}"#,
        ]
        for json in invalid {
            #expect(throws: (any Error).self, "\(json) must be rejected") {
                _ = try decoder.decode(FaultRule.self, from: Data(json.utf8))
            }
        }
    }

    @Test("fault injector consumes the first matching rule")
    func injector() {
        let faults = FaultInjector()
        faults.inject(FaultRule(pathPrefix: "/a", action: .dropConnection))
        faults.inject(FaultRule(count: 2, method: "GET", action: .delay(milliseconds: 1)))
        #expect(faults.consume(method: "POST", path: "/b") == nil)
        #expect(faults.consume(method: "GET", path: "/a/1") == .dropConnection)
        #expect(faults.consume(method: "get", path: "/a/1") == .delay(milliseconds: 1))
        #expect(faults.pending == [FaultRule(count: 1, method: "GET", action: .delay(milliseconds: 1))])
        #expect(faults.consume(method: "GET", path: "/") == .delay(milliseconds: 1))
        #expect(faults.consume(method: "GET", path: "/") == nil)
        #expect(faults.pending.isEmpty)
    }

    @Test("journal entries round-trip through JSON")
    func journalEntryJSON() throws {
        let entry = JournalEntry(
            method: "POST",
            path: "/v1/x",
            query: "a=1",
            headers: ["authorization": "<masked>"],
            body: Data([0xFF, 0x00, 0x41]),
            responseStatus: 201,
            timestamp: Date(timeIntervalSince1970: 1_700_000_000.25)
        )
        let data = try JSONEncoder().encode(entry)
        #expect(try JSONDecoder().decode(JournalEntry.self, from: data) == entry)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["body"] as? String == "/wBB")
        #expect(object["timestamp"] as? String == "2023-11-14T22:13:20.250Z")
    }
}
