@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// The default transport against a real server on 127.0.0.1 that fails on purpose.
@Suite("AsyncHTTPClient transport on loopback", .timeLimit(.minutes(5)))
struct LoopbackTransportTests {
    /// Counts requests and fails the first `failures` of them with 503 and `Retry-After: retryAfter`.
    final class FlakyCounter: Sendable {
        let failures: Int
        let retryAfter: String
        let seen = Mutex<[(key: String?, body: String)]>([])
        init(failures: Int, retryAfter: String) {
            self.failures = failures
            self.retryAfter = retryAfter
        }
    }

    func withServer(
        failures: Int = 0, retryAfter: String = "0", _ body: @Sendable (Int, FlakyCounter) async throws -> Void
    ) async throws {
        let counter = FlakyCounter(failures: failures, retryAfter: retryAfter)
        let router = Router()
        router.post("/v1/echo") { request, context -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 16)
            let text = String(buffer: bytes)
            let attempt = counter.seen.withLock { seen in
                seen.append((request.headers[HTTPField.Name("Idempotency-Key")!], text))
                return seen.count
            }
            if attempt <= counter.failures {
                return Response(
                    status: .serviceUnavailable,
                    headers: [.retryAfter: counter.retryAfter, .contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: "{\"error\":\"busy\"}")))
            }
            let reply =
                "{\"method\":\"\(request.method.rawValue)\",\"body\":\(text.isEmpty ? "null" : text),\"ua\":\"\(request.headers[.userAgent] ?? "")\"}"
            return Response(
                status: .created,
                headers: [.contentType: "application/json", HTTPField.Name("Request-Id")!: "req_\(attempt)"],
                body: .init(byteBuffer: ByteBuffer(string: reply)))
        }
        router.post("/v1/moved") { request, _ -> Response in
            // Points at the echo route on this same server, so a followed redirect would be counted there.
            let authority = request.head.authority ?? "127.0.0.1"
            return Response(status: .temporaryRedirect, headers: [.location: "http://\(authority)/v1/echo"])
        }
        router.get("/v1/slow") { _, _ -> String in
            try await Task.sleep(for: .seconds(3))
            return "late"
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body(try #require(client.port), counter)
        }
    }

    @Test("requests and responses cross intact: method, headers, body, status")
    func roundTrip() async throws {
        try await withServer { port, _ in
            let client = try ProviderHTTPClient(
                instance: "loop", kind: "alpha", baseURL: URL(string: "http://127.0.0.1:\(port)/v1")!,
                transport: AsyncHTTPClientTransport())
            let response = try await client.send(
                ProviderRequest(
                    .post, "/echo", headers: [.contentType: "application/json"], body: Data("{\"a\":1}".utf8),
                    operation: "echo"), context: OperationContext())
            #expect(response.status == 201)
            #expect(response.header("Request-Id") == "req_1")
            let json = try JSONValue.parse(response.body)
            #expect(json["method"] == .string("POST"))
            #expect(json["body"]?["a"] == .number(1))
            #expect(json["ua"] == .string("CardGateway/1.0"))
        }
    }

    @Test("an idempotent write that meets 503s is repeated with the same key and the same body")
    func retriesOnLoopback() async throws {
        try await withServer(failures: 2) { port, counter in
            let clock = ManualClock(advancesOnSleep: true)
            let client = try ProviderHTTPClient(
                instance: "loop", kind: "alpha", baseURL: URL(string: "http://127.0.0.1:\(port)/v1")!,
                transport: AsyncHTTPClientTransport(),
                retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5), maxDelay: .milliseconds(10)),
                clock: clock.gatewayClock()
            )
            let request = ProviderRequest(
                .post, "/echo", body: Data("{\"n\":7}".utf8),
                repeatability: .idempotent(header: HTTPField.Name("Idempotency-Key")!, scope: "echo"), operation: "echo"
            )
            let response = try await client.send(request, context: OperationContext())
            #expect(response.status == 201)
            #expect(response.attempts == 3)
            #expect(clock.sleeps == [.zero, .zero], "the server's Retry-After: 0, not the back-off")
            let seen = counter.seen.withLock { $0 }
            #expect(seen.count == 3)
            #expect(Set(seen.map(\.key)).count == 1)
            #expect(seen.allSatisfy { $0.body == "{\"n\":7}" })
        }
    }

    @Test("the server's Retry-After sets the delay before the repeat, with the same key and body")
    func retryAfterOnLoopback() async throws {
        try await withServer(failures: 1, retryAfter: "1") { port, counter in
            // A virtual clock: the back-off is recorded, not slept.
            let clock = ManualClock(advancesOnSleep: true)
            let client = try ProviderHTTPClient(
                instance: "loop", kind: "alpha", baseURL: URL(string: "http://127.0.0.1:\(port)/v1")!,
                transport: AsyncHTTPClientTransport(),
                retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5), maxDelay: .milliseconds(10)),
                clock: clock.gatewayClock()
            )
            let request = ProviderRequest(
                .post, "/echo", body: Data("{\"n\":8}".utf8),
                repeatability: .idempotent(header: HTTPField.Name("Idempotency-Key")!, scope: "echo"), operation: "echo"
            )
            let response = try await client.send(request, context: OperationContext())
            #expect(response.status == 201)
            #expect(clock.sleeps == [.seconds(1)], "the delay is the server's Retry-After, not the backoff")
            let seen = counter.seen.withLock { $0 }
            #expect(seen.count == 2)
            #expect(Set(seen.map(\.key)).count == 1)
        }
    }

    @Test("a redirect is never followed: credentials and body stay with the configured host")
    func redirectNotFollowed() async throws {
        try await withServer { port, counter in
            let client = try ProviderHTTPClient(
                instance: "loop", kind: "alpha", baseURL: URL(string: "http://127.0.0.1:\(port)/v1")!,
                transport: AsyncHTTPClientTransport())
            let request = ProviderRequest(
                .post, "/moved", headers: [HTTPField.Name("X-API-Key")!: "key-that-must-not-travel"],
                body: Data("{\"pan\":1}".utf8), operation: "moved")
            let response = try await client.send(request, context: OperationContext())
            #expect(response.status == 307)
            #expect(counter.seen.withLock { $0.isEmpty }, "the redirect target was called")
        }
    }

    @Test("a write without a key is sent once even when the server answers 503")
    func writeOnceOnLoopback() async throws {
        try await withServer(failures: 1) { port, counter in
            let client = try ProviderHTTPClient(
                instance: "loop", kind: "alpha", baseURL: URL(string: "http://127.0.0.1:\(port)/v1")!,
                transport: AsyncHTTPClientTransport())
            let response = try await client.send(
                ProviderRequest(.post, "/echo", body: Data("{}".utf8), operation: "charge"), context: OperationContext()
            )
            #expect(response.status == 503)
            #expect(counter.seen.withLock { $0.count } == 1)
        }
    }

    @Test("a response slower than the timeout is a timeout that may have reached the server")
    func timeout() async throws {
        try await withServer { port, _ in
            let client = try ProviderHTTPClient(
                instance: "loop", kind: "alpha", baseURL: URL(string: "http://127.0.0.1:\(port)/v1")!,
                transport: AsyncHTTPClientTransport(),
                timeout: .milliseconds(500), retry: .none
            )
            do {
                _ = try await client.send(
                    ProviderRequest(.get, "/slow", operation: "slow"), context: OperationContext())
                Issue.record("expected a timeout")
            } catch let error as CardGatewayError {
                #expect(error.code == .timeout)
                #expect(error.mayHaveReachedProvider)
                #expect(error.isRetryable)
            }
        }
    }

    @Test("a refused connection never left: classified as connectFailed")
    func connectionRefused() async throws {
        // Find a free port by binding and closing a server.
        let portBox = Mutex(0)
        try await withServer { port, _ in portBox.withLock { $0 = port } }
        let closedPort = portBox.withLock { $0 }
        let transport = AsyncHTTPClientTransport()
        let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(closedPort)", path: "/v1/x")
        do {
            _ = try await transport.send(request, body: nil, timeout: .milliseconds(500))
            Issue.record("expected a connection failure")
        } catch let error as TransportError {
            #expect(!error.mayHaveReachedProvider, "\(error)")
        }
    }
}
