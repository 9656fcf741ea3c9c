import CardGateway
import CardGatewayAsyncHTTPClient
import Foundation
import HTTPTypes
import ProvisioningServerApp
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Clients that do what an app never does, against the server listening on 127.0.0.1: connections that send
/// nothing, bodies shorter than their Content-Length or sent a byte at a time, more connections than allowed, a
/// flood from one user beside a well-behaved one, oversized heads and bodies, and strict-input refusals. Deadlines
/// are small (0.5 s) so that the suite is quick; assertions are on outcomes, with generous upper bounds, never on
/// how fast something happened.
@Suite("Provisioning server: hostile clients", .serialized, .timeLimit(.minutes(5)))
struct ProvisioningServerHostileClientTests {
    /// Small deadlines, rate limits off unless a test sets them.
    static func configuration(
        readTimeout: Duration? = .milliseconds(500), idleTimeout: Duration? = .milliseconds(500),
        maxConnections: Int? = 64,
        maxHeaderBytes: Int = 16 * 1024, rateLimitPerUser: Int = 0, rateLimitPerAddress: Int = 0
    ) -> ProvisioningServer.Configuration {
        ProvisioningServer.Configuration(
            storedCredentialRoute: .instance("cof"), requestReadTimeout: readTimeout, idleTimeout: idleTimeout,
            maxConnections: maxConnections,
            maxHeaderBytes: maxHeaderBytes, rateLimitPerUser: rateLimitPerUser, rateLimitPerAddress: rateLimitPerAddress
        )
    }

    static let applePath = "/v1/cards/\(Fixture.payloadCard)/provisioning/applePay"

    @Test("a connection that sends nothing is closed after the idle timeout")
    func idleConnectionClosed() async throws {
        let fixture = try Fixture(configuration: Self.configuration())
        try await fixture.withLiveServer { port in
            let connection = try RawConnection(port: port)
            defer { connection.close() }
            let outcome = await connection.readUntilClosed(within: .seconds(15))
            #expect(outcome.closed, "the server kept an idle connection open")
            #expect(outcome.bytes.isEmpty)
        }
    }

    @Test(
        "a connection that sends nothing is closed at the read deadline counted from its opening, whatever the idle timeout"
    )
    func silentConnectionClosedAtReadDeadline() async throws {
        // Idle timeout 60 s: only the read deadline (0.5 s from the accept) can close the connection within 15 s.
        let fixture = try Fixture(configuration: Self.configuration(idleTimeout: .seconds(60)))
        try await fixture.withLiveServer { port in
            let silent = try RawConnection(port: port)
            defer { silent.close() }
            let outcome = await silent.readUntilClosed(within: .seconds(15))
            #expect(outcome.closed, "a connection that sent nothing outlived the read deadline")
            #expect(outcome.bytes.isEmpty)

            // A connection that sends its request in time is served as before.
            let user = try RawConnection(port: port)
            defer { user.close() }
            try user.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            #expect(await user.readUntilClosed(within: .seconds(15)).text.hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test(
        "600 silent connections from the user's own address at a 512-connection limit: the user is served, the oldest silent ones are closed"
    )
    func silentConnectionsGiveWay() async throws {
        // Deadlines of 60 s, so that only the connection limit closes anything during the test.
        let fixture = try Fixture(
            configuration: Self.configuration(readTimeout: .seconds(60), idleTimeout: .seconds(60), maxConnections: 512)
        )
        try await fixture.withLiveServer { port in
            var silent: [RawConnection] = []
            defer { for connection in silent { connection.close() } }
            for _ in 0..<600 { silent.append(try RawConnection(port: port)) }

            let user = try RawConnection(port: port)
            defer { user.close() }
            try user.send(
                "GET /v1/cards HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Fixture.aliceToken)\r\nConnection: close\r\n\r\n"
            )
            let answer = await user.readUntilClosed(within: .seconds(30))
            #expect(
                answer.text.hasPrefix("HTTP/1.1 200"),
                "the user was not served: \(answer.text.prefix(40)), closed: \(answer.closed)")
            #expect(fixture.backend.totalCalls > 0, "the user's request did not reach the provider")

            // 600 silent + the user for 512 places: at least 89 silent connections gave way, the oldest first.
            let pushedOut = 600 + 1 - 512
            var closed = Set<Int>()
            let deadline = ContinuousClock.now + .seconds(15)
            repeat {
                for (index, connection) in silent.enumerated() where !closed.contains(index) && connection.peerClosed()
                { closed.insert(index) }
                if closed.count >= pushedOut { break }
                try await Task.sleep(for: .milliseconds(50))
            } while ContinuousClock.now < deadline
            #expect(closed.count >= pushedOut, "\(closed.count) silent connections were closed")
            #expect(closed.count < 600 - 100, "newer silent connections were closed too: \(closed.count)")
            #expect(closed.contains(0), "the oldest silent connection kept its place")
            #expect(!closed.contains(599), "the newest silent connection was closed before older ones")
        }
    }

    @Test("a body shorter than its Content-Length ends in a closed connection, and no handler runs")
    func shortBodyClosed() async throws {
        let fixture = try Fixture(configuration: Self.configuration(idleTimeout: .seconds(30)))
        try await fixture.withLiveServer { port in
            let connection = try RawConnection(port: port)
            defer { connection.close() }
            try connection.send(
                "POST \(Self.applePath) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Fixture.aliceToken)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 400\r\n\r\n{\"certificates\":["
            )
            let outcome = await connection.readUntilClosed(within: .seconds(15))
            #expect(outcome.closed, "the connection stayed open past the read deadline")
            #expect(!outcome.text.hasPrefix("HTTP/1.1 2"), "a short body was answered as a success")
            #expect(fixture.backend.totalCalls == 0, "a provider call ran for a request whose body never arrived")
        }
    }

    @Test("a body sent a byte at a time is cut off at the read deadline")
    func slowBodyClosed() async throws {
        let fixture = try Fixture(configuration: Self.configuration(idleTimeout: .seconds(30)))
        try await fixture.withLiveServer { port in
            let connection = try RawConnection(port: port)
            defer { connection.close() }
            let body = #"{"clientDeviceId":"device-1","clientWalletAccountId":"account-1"}"#
            try connection.send(
                "POST /v1/cards/\(Fixture.payloadCard)/provisioning/googlePay HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer \(Fixture.aliceToken)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            )
            // 200 ms a byte: the whole body would take 13 s, far past the 0.5 s deadline.
            var sent = 0
            for byte in body.utf8 {
                guard (try? connection.send(bytes: [byte])) != nil else { break }
                sent += 1
                if await connection.readUntilClosed(within: .milliseconds(200)).closed { break }
            }
            #expect(sent < body.utf8.count, "the whole slow body was accepted")
            let outcome = await connection.readUntilClosed(within: .seconds(15))
            #expect(outcome.closed)
            #expect(fixture.backend.totalCalls == 0)
        }
    }

    @Test("past the maximum, a new connection is closed at once; once others close, connections are served again")
    func connectionLimit() async throws {
        let fixture = try Fixture(
            configuration: Self.configuration(readTimeout: .seconds(30), idleTimeout: .seconds(30), maxConnections: 2))
        try await fixture.withLiveServer { port in
            let first = try RawConnection(port: port)
            let second = try RawConnection(port: port)
            // Both are accepted and served (a request each, kept alive).
            for connection in [first, second] {
                try connection.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                let answer = await connection.readUntil(contains: "\"status\":\"ok\"", within: .seconds(15))
                #expect(answer.hasPrefix("HTTP/1.1 200"))
            }
            let third = try RawConnection(port: port)
            defer { third.close() }
            try? third.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let refused = await third.readUntilClosed(within: .seconds(15))
            #expect(refused.closed, "a connection past the maximum was kept open")
            #expect(!refused.text.contains("200 OK"), "a connection past the maximum was served")

            first.close()
            second.close()
            // The places are given back when the server sees the closes; a new connection is then served.
            var served = false
            for _ in 0..<50 where !served {
                let again = try RawConnection(port: port)
                try? again.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                served = await again.readUntilClosed(within: .seconds(5)).text.hasPrefix("HTTP/1.1 200")
                again.close()
                if !served { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(served, "connections were not served again after the others closed")
        }
    }

    @Test("a flood from one user gets 429 with Retry-After while another user is still served")
    func userFlood() async throws {
        let fixture = try Fixture(configuration: Self.configuration(rateLimitPerUser: 5))
        try await fixture.withClient { client in
            var statuses: [Int] = []
            for _ in 0..<8 { statuses.append(try await client.send(.get, "/v1/cards").status) }
            #expect(statuses.prefix(5).allSatisfy { $0 == 200 }, "\(statuses)")
            #expect(statuses.suffix(3).allSatisfy { $0 == 429 }, "\(statuses)")
            let callsBefore = fixture.backend.totalCalls

            let limited = try await client.send(.get, "/v1/cards/\(Fixture.payloadCard)")
            #expect(limited.status == 429)
            let problem = try limited.problem()
            #expect(problem["code"]?.stringValue == "rateLimited")
            #expect(problem["retryable"] == .bool(true))
            #expect(problem["mayHaveReachedProvider"] == .bool(false))
            let retryAfter = try #require(limited.header("Retry-After").flatMap { Int($0) })
            #expect(retryAfter >= 1 && retryAfter <= 60)
            #expect(problem["retryAfterSeconds"]?.intValue == retryAfter, "the body and Retry-After disagree")
            #expect(fixture.backend.totalCalls == callsBefore, "a refused call reached the provider")

            // Bob is not affected by Alice's flood.
            #expect(try await client.send(.get, "/v1/cards", token: Fixture.bobToken).status == 200)
            #expect(try await client.send(.get, "/v1/cards/\(Fixture.bobCard)", token: Fixture.bobToken).status == 200)
        }
    }

    @Test("cheap reads cost a quarter of a provider call")
    func cheapReadsCostLess() async throws {
        let fixture = try Fixture(configuration: Self.configuration(rateLimitPerUser: 2))
        try await fixture.withClient { client in
            // 2 calls a minute = 8 status reads; the ninth is refused.
            var statuses: [Int] = []
            for _ in 0..<9 { statuses.append(try await client.send(.get, "/v1/wallet-extension/status").status) }
            #expect(statuses == Array(repeating: 200, count: 8) + [429], "\(statuses)")
        }
    }

    @Test("a flood from one address gets 429 before its tokens are even checked")
    func addressFlood() async throws {
        let fixture = try Fixture(configuration: Self.configuration(rateLimitPerAddress: 3))
        try await fixture.withLiveServer { port in
            let transport = AsyncHTTPClientTransport()
            var statuses: [Int] = []
            var lastHeaders = HTTPFields()
            for _ in 0..<5 {
                var request = HTTPRequest(
                    method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: "/v1/cards")
                request.headerFields[.authorization] = "Bearer not-a-token-guess-0000"
                let response = try await transport.send(request, body: nil, timeout: .seconds(10))
                statuses.append(response.response.status.code)
                lastHeaders = response.response.headerFields
            }
            #expect(statuses == [401, 401, 401, 429, 429], "\(statuses)")
            #expect(lastHeaders[.retryAfter] != nil)
            // /health is not limited.
            let health = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: "/health")
            #expect(try await transport.send(health, body: nil, timeout: .seconds(10)).response.status.code == 200)
        }
    }

    @Test("a head larger than the limit is refused, and no handler runs")
    func oversizedHead() async throws {
        let fixture = try Fixture(configuration: Self.configuration(idleTimeout: .seconds(30), maxHeaderBytes: 2048))
        try await fixture.withLiveServer { port in
            let connection = try RawConnection(port: port)
            defer { connection.close() }
            let padding = String(repeating: "a", count: 8 * 1024)
            try? connection.send(
                "GET /v1/cards HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Fixture.aliceToken)\r\nX-Padding: \(padding)\r\n\r\n"
            )
            let outcome = await connection.readUntilClosed(within: .seconds(15))
            #expect(outcome.closed || outcome.text.hasPrefix("HTTP/1.1 4"), "an oversized head was kept waiting")
            #expect(!outcome.text.hasPrefix("HTTP/1.1 2"), "an oversized head was served")
            #expect(fixture.backend.totalCalls == 0)
        }
    }

    @Test("a body declared larger than the limit is refused with 413 before it is read")
    func oversizedBody() async throws {
        let fixture = try Fixture(configuration: Self.configuration(idleTimeout: .seconds(30)))
        try await fixture.withLiveServer { port in
            let connection = try RawConnection(port: port)
            defer { connection.close() }
            try connection.send(
                "POST \(Self.applePath) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Fixture.aliceToken)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 10485760\r\n\r\n{"
            )
            let answer = await connection.readUntil(contains: "\r\n\r\n", within: .seconds(15))
            #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer.prefix(40))")
            #expect(fixture.backend.totalCalls == 0)
        }
    }

    @Test(
        "strict input over the wire: duplicate keys, CR/LF in ids, non-DER certificates are 400 with a field, nothing sent"
    )
    func strictInput() async throws {
        let fixture = try Fixture(configuration: Self.configuration(idleTimeout: .seconds(30)))
        try await fixture.withLiveServer { port in
            let transport = AsyncHTTPClientTransport()
            func post(
                _ path: String, _ json: String
            ) async throws -> (status: Int, body: JSONValue, headers: HTTPFields) {
                var request = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:\(port)", path: path)
                request.headerFields[.authorization] = "Bearer \(Fixture.aliceToken)"
                request.headerFields[.contentType] = "application/json"
                let response = try await transport.send(request, body: Data(json.utf8), timeout: .seconds(10))
                return (
                    response.response.status.code, try JSONValue.parse(response.body), response.response.headerFields
                )
            }
            let google = "/v1/cards/\(Fixture.payloadCard)/provisioning/googlePay"
            let duplicate = try await post(
                google, #"{"clientDeviceId":"a","clientDeviceId":"b","clientWalletAccountId":"c"}"#)
            #expect(duplicate.status == 400)
            #expect(firstErrorField(duplicate.body) == "clientDeviceId")
            #expect(duplicate.headers[.retryAfter] == nil, "Retry-After on a refusal that is not retryable")
            #expect(duplicate.body["retryable"] == .bool(false))

            let crlf = try await post(google, #"{"clientDeviceId":"dev\r\nX: y","clientWalletAccountId":"account-1"}"#)
            #expect(crlf.status == 400)
            #expect(firstErrorField(crlf.body) != nil)

            let helloWorld = Data("hello world".utf8).base64EncodedString()
            let nonDER = try await post(
                Self.applePath,
                #"{"certificates":["\#(helloWorld)","\#(helloWorld)"],"nonce":"AAECAw==","nonceSignature":"AAECAw=="}"#
            )
            #expect(nonDER.status == 400)
            #expect(
                firstErrorField(nonDER.body)?.contains("certificates[0]") == true, "\(String(describing: nonDER.body))")
            #expect(fixture.backend.totalCalls == 0, "a refused request reached a provider")
        }
    }
}

/// The `field` of a problem's first field error.
func firstErrorField(_ problem: JSONValue) -> String? {
    guard case .array(let errors)? = problem["errors"], let first = errors.first else { return nil }
    return first["field"]?.stringValue
}

#if canImport(Glibc)
    private func closeDescriptor(_ fd: Int32) { _ = Glibc.close(fd) }
    private func sendBytes(_ fd: Int32, _ pointer: UnsafeRawPointer?, _ count: Int) -> Int {
        Glibc.send(fd, pointer, count, Int32(MSG_NOSIGNAL))
    }
    private let streamSocket = Int32(SOCK_STREAM.rawValue)
#else
    private func closeDescriptor(_ fd: Int32) { _ = Darwin.close(fd) }
    private func sendBytes(_ fd: Int32, _ pointer: UnsafeRawPointer?, _ count: Int) -> Int {
        Darwin.send(fd, pointer, count, 0)
    }
    private let streamSocket = SOCK_STREAM
#endif

/// A plain TCP connection to 127.0.0.1, non-blocking, read by polling (never blocking a thread of the cooperative pool
/// that the server's handlers also run on).
final class RawConnection: Sendable {
    let descriptor: Int32

    init(port: Int) throws {
        let fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { throw RawConnectionError.socket }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            closeDescriptor(fd)
            throw RawConnectionError.connect
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        descriptor = fd
    }

    func send(_ text: String) throws { try send(bytes: Array(text.utf8)) }

    func send(bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { sendBytes(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK { continue }
                throw RawConnectionError.send
            }
            offset += written
        }
    }

    /// What arrives until the peer closes (or resets) the connection, or `within` passes.
    func readUntilClosed(within limit: Duration) async -> (bytes: [UInt8], closed: Bool, text: String) {
        var bytes: [UInt8] = []
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            switch readAvailable(into: &bytes) {
            case .closed: return (bytes, true, String(decoding: bytes, as: UTF8.self))
            case .data: continue
            case .nothing: try? await Task.sleep(for: .milliseconds(20))
            }
        }
        return (bytes, false, String(decoding: bytes, as: UTF8.self))
    }

    /// What arrives until it contains `marker`, the peer closes, or `within` passes.
    func readUntil(contains marker: String, within limit: Duration) async -> String {
        var bytes: [UInt8] = []
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let outcome = readAvailable(into: &bytes)
            let text = String(decoding: bytes, as: UTF8.self)
            if text.contains(marker) { return text }
            switch outcome {
            case .closed: return text
            case .data: continue
            case .nothing: try? await Task.sleep(for: .milliseconds(20))
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether the peer has closed (or reset) the connection, looking once without waiting (bytes that arrived are
    /// dropped).
    func peerClosed() -> Bool {
        var bytes: [UInt8] = []
        return readAvailable(into: &bytes) == .closed
    }

    private enum ReadOutcome { case data, nothing, closed }

    private func readAvailable(into bytes: inout [UInt8]) -> ReadOutcome {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            bytes += buffer[0..<count]
            return .data
        }
        if count == 0 { return .closed }
        return errno == EAGAIN || errno == EWOULDBLOCK ? .nothing : .closed
    }

    func close() {
        closeDescriptor(descriptor)
    }
}

enum RawConnectionError: Error { case socket, connect, send }
