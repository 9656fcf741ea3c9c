@_spi(AdapterSupport) import CardGateway
@_spi(AdapterSupport) import CardGatewayTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Retries, idempotency keys and deadlines", .timeLimit(.minutes(5)))
struct ProviderHTTPClientTests {
    let kind = ProviderKind("alpha")
    let base = URL(string: "https://api.alpha.example/v2")!

    func client(
        _ transport: ScriptedTransport, sleeps: SleepRecorder, retry: RetryPolicy? = nil
    ) throws -> ProviderHTTPClient {
        if let retry {
            return try .testing(kind: kind, baseURL: base, transport: transport, retry: retry, sleeps: sleeps)
        }
        return try .testing(kind: kind, baseURL: base, transport: transport, sleeps: sleeps)
    }

    @Test("URLs join the base path, the escaped path and the escaped query")
    func urls() async throws {
        let transport = ScriptedTransport([.json(200, "{}")])
        let client = try client(transport, sleeps: SleepRecorder())
        let path = "/cards/\(URLEncoding.pathSegment("a/b c"))"
        _ = try await client.send(
            ProviderRequest(.get, path, query: [("status", "ACTIVE,LOCKED"), ("q", "a&b=c")], operation: "list"),
            context: OperationContext())
        let request = try #require(transport.requests.first)
        #expect(request.request.scheme == "https")
        #expect(request.request.authority == "api.alpha.example")
        #expect(request.path == "/v2/cards/a%2Fb%20c?status=ACTIVE%2CLOCKED&q=a%26b%3Dc")
        #expect(request.header("Accept") == "application/json")
    }

    @Test(
        "a caller's logger gets the provider, kind, operation and request id on every line of the request; the no-op logger gets nothing"
    )
    func requestMetadata() async throws {
        let transport = ScriptedTransport([.json(200, "{}"), .json(200, "{}")])
        let capture = LogCapture()
        let context = OperationContext(logger: capture.logger(level: .debug), requestID: "req-77")
        _ = try await client(transport, sleeps: SleepRecorder()).send(
            ProviderRequest(.get, "/cards/c1", operation: "get card"), context: context)
        let line = try #require(capture.all.first { $0.message == "provider attempt" })
        #expect(line.metadata["cardgateway.provider"] == "test")
        #expect(line.metadata["cardgateway.provider.kind"] == "alpha")
        #expect(line.metadata["cardgateway.operation"] == "get card")
        #expect(line.metadata["request.id"] == "req-77")
        // Without a logger the request still goes out, and nothing is captured anywhere.
        capture.clear()
        _ = try await client(transport, sleeps: SleepRecorder()).send(
            ProviderRequest(.get, "/cards/c2", operation: "get card"), context: OperationContext())
        #expect(transport.requestCount == 2)
        #expect(capture.all.isEmpty)
    }

    @Test(
        "a path with a dot segment is refused before anything is sent",
        arguments: ["/cards/..", "/cards/./x", "/cards/%2E%2E/x", "/cards/%2e"])
    func dotSegments(path: String) async throws {
        let transport = ScriptedTransport([.json(200, "{}")])
        await #expect(throws: CardGatewayError.self) {
            _ = try await client(transport, sleeps: SleepRecorder()).send(
                ProviderRequest(.get, path, operation: "read"), context: OperationContext())
        }
        #expect(transport.requestCount == 0)
        // A dot inside an id is fine.
        _ = try await client(transport, sleeps: SleepRecorder()).send(
            ProviderRequest(.get, "/cards/\(URLEncoding.pathSegment("a..b"))", operation: "read"),
            context: OperationContext())
        #expect(transport.requestCount == 1)
    }

    @Test("a read is repeated after a 503 with full-jitter backoff")
    func readRetried() async throws {
        let transport = ScriptedTransport([.json(503, "{}"), .json(503, "{}"), .json(200, "{\"ok\":true}")])
        let sleeps = SleepRecorder()
        let response = try await client(transport, sleeps: sleeps).send(
            ProviderRequest(.get, "/x", operation: "read"), context: OperationContext())
        #expect(response.status == 200)
        #expect(response.attempts == 3)
        #expect(transport.requestCount == 3)
        // random() is 0.5 in the testing client: half of base × 2^(n-1).
        #expect(sleeps.recorded == [.microseconds(500), .milliseconds(1)])
    }

    @Test("Retry-After is honoured, in seconds or as a date; one past the limit ends the retries")
    func retryAfter() async throws {
        let transport = ScriptedTransport([.json(429, "{}", headers: ["Retry-After": "2"]), .json(200, "{}")])
        let sleeps = SleepRecorder()
        let response = try await client(transport, sleeps: sleeps).send(
            ProviderRequest(.get, "/x", operation: "read"), context: OperationContext())
        #expect(response.status == 200)
        #expect(sleeps.recorded == [.seconds(2)])

        let tooLong = ScriptedTransport([.json(429, "{}", headers: ["Retry-After": "3600"]), .json(200, "{}")])
        let noSleeps = SleepRecorder()
        let limited = try await client(tooLong, sleeps: noSleeps).send(
            ProviderRequest(.get, "/x", operation: "read"), context: OperationContext())
        #expect(limited.status == 429)
        #expect(limited.retryAfter == .seconds(3600))
        #expect(tooLong.requestCount == 1)
        #expect(noSleeps.recorded.isEmpty)

        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryPolicy.parseRetryAfter("Tue, 14 Nov 2023 22:13:30 GMT", now: now) == .seconds(10))
        #expect(RetryPolicy.parseRetryAfter("soon") == nil)
    }

    @Test(
        "a Retry-After date is read in RFC 9110's three forms, in GMT, and refused otherwise",
        arguments: [
            ("Tue, 14 Nov 2023 22:13:30 GMT", Duration.seconds(10)), ("Tuesday, 14-Nov-23 22:13:30 GMT", .seconds(10)),
            ("Tue Nov 14 22:13:30 2023", .seconds(10)), ("Tue, 14 Nov 2023 22:13:30 UTC", nil),
            ("Tue, 14 Nov 2023 22:13:30 GMT trailing", nil), ("Tue, 31 Feb 2023 22:13:30 GMT", nil),
            ("Tue, 14 Nov 2023 24:13:30 GMT", nil), ("2023-11-14T22:13:30Z", nil),
        ] as [(String, Duration?)])
    func retryAfterDates(value: String, expected: Duration?) {
        #expect(RetryPolicy.parseRetryAfter(value, now: Date(timeIntervalSince1970: 1_700_000_000)) == expected)
    }

    @Test(
        "absurd Retry-After values are refused or clamped, never a crash",
        arguments: [
            ("1e20", nil), ("-5", nil), ("1.5", nil), ("", nil), ("inf", nil), ("NaN", nil),
            ("99999999999999999999999999", Duration.seconds(86_400)), ("000000000000000007", .seconds(7)),
            ("86401", .seconds(86_400)), ("0", .zero), ("Fri, 31 Dec 9999 23:59:59 GMT", .seconds(86_400)),
            ("Thu, 01 Jan 1970 00:00:00 GMT", .zero),
        ] as [(String, Duration?)])
    func absurdRetryAfter(value: String, expected: Duration?) {
        #expect(RetryPolicy.parseRetryAfter(value, now: Date(timeIntervalSince1970: 1_700_000_000)) == expected)
    }

    @Test("a huge Retry-After ends the retries instead of trapping")
    func hugeRetryAfterEndsRetries() async throws {
        let transport = ScriptedTransport([.json(503, "{}", headers: ["Retry-After": "1e20"]), .json(200, "{}")])
        let sleeps = SleepRecorder()
        // Not a delta-seconds value: the ordinary backoff applies and the read is repeated.
        let response = try await client(transport, sleeps: sleeps).send(
            ProviderRequest(.get, "/x", operation: "read"), context: OperationContext())
        #expect(response.status == 200)
        #expect(transport.requestCount == 2)

        let clamped = ScriptedTransport([
            .json(503, "{}", headers: ["Retry-After": String(repeating: "9", count: 40)]), .json(200, "{}"),
        ])
        let none = SleepRecorder()
        let limited = try await client(clamped, sleeps: none).send(
            ProviderRequest(.get, "/x", operation: "read"), context: OperationContext())
        #expect(limited.status == 503)
        #expect(limited.retryAfter == .seconds(86_400))
        #expect(clamped.requestCount == 1)
        #expect(none.recorded.isEmpty)
    }

    @Test("a write without an idempotency key is never repeated after it may have arrived")
    func writeNotRepeated() async throws {
        let transport = ScriptedTransport([.json(503, "{}"), .json(200, "{}")])
        let response = try await client(transport, sleeps: SleepRecorder()).send(
            ProviderRequest(.post, "/charge", body: Data("{}".utf8), operation: "charge"), context: OperationContext())
        #expect(response.status == 503)
        #expect(transport.requestCount == 1)

        let timedOut = ScriptedTransport([.failure(TransportError(.timeout, "slow")), .json(200, "{}")])
        await #expect(throws: CardGatewayError.self) {
            _ = try await client(timedOut, sleeps: SleepRecorder()).send(
                ProviderRequest(.post, "/charge", operation: "charge"), context: OperationContext())
        }
        #expect(timedOut.requestCount == 1)
        do {
            _ = try await client(
                ScriptedTransport([.failure(TransportError(.connectionClosed, "reset"))]), sleeps: SleepRecorder()
            )
            .send(ProviderRequest(.post, "/charge", operation: "charge"), context: OperationContext())
        } catch let error as CardGatewayError {
            #expect(error.code == .transport)
            #expect(error.mayHaveReachedProvider)
            #expect(!error.isRetryable, "a charge that may have arrived must be checked, not repeated")
            #expect(error.message.contains("check its outcome"))
            #expect(error.provider == "test")
        }
        do {
            _ = try await client(
                ScriptedTransport([], fallback: .failure(TransportError(.timeout, "slow"))), sleeps: SleepRecorder()
            )
            .send(ProviderRequest(.get, "/charge/1", operation: "read"), context: OperationContext())
        } catch let error as CardGatewayError {
            #expect(error.code == .timeout)
            #expect(error.isRetryable, "a read may always be repeated")
        }
    }

    @Test("a request that provably never left is repeated, even a write")
    func neverLeftIsRepeated() async throws {
        let transport = ScriptedTransport([.failure(TransportError(.connectFailed, "refused")), .json(201, "{}")])
        let response = try await client(transport, sleeps: SleepRecorder()).send(
            ProviderRequest(.post, "/charge", operation: "charge"), context: OperationContext())
        #expect(response.status == 201)
        #expect(transport.requestCount == 2)

        let refused = ScriptedTransport(
            [.failure(TransportError(.connectFailed, "refused"))],
            fallback: .failure(TransportError(.connectFailed, "refused")))
        do {
            _ = try await client(refused, sleeps: SleepRecorder()).send(
                ProviderRequest(.post, "/charge", operation: "charge"), context: OperationContext())
            Issue.record("expected an error")
        } catch let error as CardGatewayError {
            #expect(error.code == .transport)
            #expect(!error.mayHaveReachedProvider)
            #expect(error.isRetryable)
            #expect(refused.requestCount == 3)
        }
    }

    @Test("an idempotent write keeps one key across its retries; keys derive from the operation key and scope")
    func idempotencyKeys() async throws {
        let header = HTTPField.Name("Idempotency-Key")!
        let transport = ScriptedTransport([.json(500, "{}"), .json(502, "{}"), .json(200, "{}")])
        let request = ProviderRequest(
            .post, "/tokens", body: Data("a=b".utf8), repeatability: .idempotent(header: header, scope: "tokenize"),
            operation: "tokenize")
        let response = try await client(transport, sleeps: SleepRecorder()).send(
            request, context: OperationContext(idempotencyKey: "order-42"))
        let keys = transport.requests.map { $0.header("Idempotency-Key") }
        #expect(keys.count == 3)
        #expect(Set(keys).count == 1)
        #expect(response.idempotencyKey == keys.first!)
        #expect(keys.first!! == IdempotencyKeys.derive(operationKey: "order-42", scope: "tokenize"))
        #expect(
            IdempotencyKeys.derive(operationKey: "order-42", scope: "tokenize")
                != IdempotencyKeys.derive(operationKey: "order-42", scope: "confirm"))
        #expect(IdempotencyKeys.derive(operationKey: "order-42", scope: "x", maxLength: 32).count == 32)
        // Without an operation key each logical request gets a fresh key.
        #expect(
            IdempotencyKeys.derive(operationKey: nil, scope: "x")
                != IdempotencyKeys.derive(operationKey: nil, scope: "x"))
    }

    @Test("the provider's retry advice overrides the status rule")
    func retryAdvice() async throws {
        var client = try client(ScriptedTransport([]), sleeps: SleepRecorder())
        client.retryAdvice = { response in response.header("Stripe-Should-Retry").map { $0 == "true" } }
        let header = HTTPField.Name("Idempotency-Key")!
        let noRetry = ScriptedTransport([.json(503, "{}", headers: ["Stripe-Should-Retry": "false"]), .json(200, "{}")])
        var copy = try ProviderHTTPClient.testing(kind: kind, baseURL: base, transport: noRetry)
        copy.retryAdvice = client.retryAdvice
        #expect(
            try await copy.send(ProviderRequest(.get, "/x", operation: "read"), context: OperationContext()).status
                == 503)
        #expect(noRetry.requestCount == 1)

        let retry = ScriptedTransport([.json(400, "{}", headers: ["Stripe-Should-Retry": "true"]), .json(200, "{}")])
        var second = try ProviderHTTPClient.testing(kind: kind, baseURL: base, transport: retry)
        second.retryAdvice = client.retryAdvice
        let request = ProviderRequest(
            .post, "/x", repeatability: .idempotent(header: header, scope: "s"), operation: "write")
        #expect(try await second.send(request, context: OperationContext()).status == 200)
        #expect(retry.requestCount == 2)
    }

    @Test("the caller's deadline bounds each attempt and stops retries, on the client's clock")
    func deadlines() async throws {
        let clock = ManualClock(advancesOnSleep: true)
        func client(_ transport: ScriptedTransport) throws -> ProviderHTTPClient {
            try ProviderHTTPClient(
                instance: "test", kind: kind, baseURL: base, transport: transport, timeout: .seconds(5),
                retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(800), maxDelay: .seconds(4)),
                clock: clock.gatewayClock()
            )
        }
        let transport = ScriptedTransport([.json(200, "{}")])
        let past = OperationContext(deadline: clock.now - .seconds(1))
        do {
            _ = try await client(transport).send(ProviderRequest(.get, "/x", operation: "read"), context: past)
            Issue.record("expected a timeout")
        } catch let error as CardGatewayError {
            #expect(error.code == .timeout)
            #expect(transport.requestCount == 0)
        }
        let slow = ScriptedTransport([.json(503, "{}", headers: ["Retry-After": "5"]), .json(200, "{}")])
        let response = try await client(slow).send(
            ProviderRequest(.get, "/x", operation: "read"), context: OperationContext(deadline: clock.now + .seconds(2))
        )
        #expect(response.status == 503, "a Retry-After past the deadline is not waited for")
        #expect(slow.requestCount == 1)
        #expect(clock.sleeps.isEmpty)

        // Each attempt gets what is left of the deadline on the client's clock: 1 s, then 1 s less the back-off.
        let short = ScriptedTransport([.json(503, "{}"), .json(200, "{}")])
        let answered = try await client(short).send(
            ProviderRequest(.get, "/x", operation: "read"), context: OperationContext(deadline: clock.now + .seconds(1))
        )
        #expect(answered.status == 200)
        #expect(clock.sleeps == [.milliseconds(400)], "full jitter at 0.5 of the 800 ms base")
        #expect(short.requests.map(\.timeout) == [.seconds(1), .milliseconds(600)])
    }

    @Test("a setting changed after the client was made is the one its requests use (the chain is never stale)")
    func settingsChangeTheChain() async throws {
        let transport = ScriptedTransport([.json(200, "{}"), .json(200, "{}"), .json(200, "{}")])
        let header = HTTPField.Name("Idempotency-Key")!
        let request = ProviderRequest(
            .post, "/x", repeatability: .idempotent(header: header, scope: "s"), operation: "write")
        var client = try client(transport, sleeps: SleepRecorder())
        _ = try await client.send(request, context: OperationContext(idempotencyKey: "op"))
        client.idempotencyKeyMaxLength = 20
        client.requestMiddlewares = [try StaticHeadersMiddleware([(name: "X-Added", value: "1")])]
        _ = try await client.send(request, context: OperationContext(idempotencyKey: "op"))
        let copy = client.unauthenticated
        client.requestMiddlewares = []
        _ = try await copy.send(request, context: OperationContext(idempotencyKey: "op"))
        #expect(transport.requests.map { $0.header("Idempotency-Key")?.count } == [64, 20, 20])
        #expect(
            transport.requests.map { $0.header("X-Added") } == [nil, "1", "1"],
            "a copy keeps the settings it was made with")
        #expect(client.idempotencyKeyMaxLength == 20)
        #expect(client.requestMiddlewares.isEmpty)
    }

    @Test("backoff stays within full-jitter bounds")
    func backoffBounds() {
        let policy = RetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        #expect(policy.backoff(afterAttempt: 1, random: 1) == .milliseconds(100))
        #expect(policy.backoff(afterAttempt: 3, random: 1) == .milliseconds(400))
        #expect(policy.backoff(afterAttempt: 10, random: 1) == .seconds(1))
        #expect(policy.backoff(afterAttempt: 3, random: 0) == .zero)
    }

    @Test("plain http to anything but loopback is refused when the client is made")
    func httpRefused() throws {
        #expect(throws: CardGatewayError.self) {
            _ = try ProviderHTTPClient(
                instance: "x", kind: kind, baseURL: URL(string: "http://api.alpha.example")!,
                transport: ScriptedTransport([]))
        }
        #expect(throws: CardGatewayError.self) {
            _ = try ProviderHTTPClient(
                instance: "x", kind: kind, baseURL: URL(string: "http://10.0.0.1:8080")!,
                transport: ScriptedTransport([]))
        }
        _ = try ProviderHTTPClient(
            instance: "x", kind: kind, baseURL: URL(string: "http://127.0.0.1:8080/v1")!,
            transport: ScriptedTransport([]))
        #expect(EndpointPolicy.isLoopback("127.3.4.5"))
        #expect(!EndpointPolicy.isLoopback("128.0.0.1"))
        #expect(!EndpointPolicy.isLoopback("localhost.example.com"))
    }
}
