import AsyncHTTPClient
import CardGateway
import ExampleSupport
import Foundation
import NIOCore
import NIOPosix
import Prometheus
import ProvisioningServerApp
import ServiceLifecycle
import Testing

/// Every answer as an app reads it: over a real socket to the server listening on 127.0.0.1, its bytes exactly as
/// sent. An HTTP client reads `Content-Length` bytes as the body and no more, so the header must count the body that
/// is actually sent, and what it counts must be the whole JSON document.
@Suite("Provisioning server: answers on the wire", .timeLimit(.minutes(5)))
struct ProvisioningServerWireTests {
    @Test("every provisioning answer of every provider in the demo directory is whole JSON of its Content-Length")
    func provisioningAnswers() async throws {
        try await EmbeddedSimulators().run { running in
            let server = try DemoServer.make(running: running)
            try await Self.withLiveServer(server) { port in
                let alice = DemoUsers.aliceToken
                let bob = DemoUsers.bobToken
                let apple = SampleInputs.applePay
                let applePay =
                    #"{"certificates":[\#(apple.certificates.map { "\"\($0.revealedBytes.base64EncodedString())\"" }.joined(separator: ","))],"#
                    + #""nonce":"\#(apple.nonce.revealedBytes.base64EncodedString())","nonceSignature":"\#(apple.nonceSignature.revealedBytes.base64EncodedString())"}"#
                let google = #"{"clientDeviceId":"device-1","clientWalletAccountId":"account-1"}"#

                // Stripe: the issuer SDK's ephemeral key, the provider's JSON byte for byte.
                let key = try await SocketExchange.send(
                    port: port, .post, "/v1/cards/business/provisioning/applePay", token: alice,
                    json: #"{"apiVersion":"2020-08-27"}"#)
                let keyJSON = try key.expectWholeJSON(status: 200)
                #expect(keyJSON["object"]?.stringValue == "ephemeral_key", "\(key.text)")
                #expect(keyJSON["secret"]?.stringValue?.isEmpty == false)
                #expect(keyJSON["id"]?.stringValue?.isEmpty == false)

                // Encrypted payloads: Apple Pay, Google Pay and Samsung Pay, at each provider that makes them.
                let payloads: [(token: String, path: String, body: String, field: String)] = [
                    (alice, "/v1/cards/everyday/provisioning/applePay", applePay, "encryptedPassData"),
                    (alice, "/v1/cards/everyday/provisioning/googlePay", google, "opaquePaymentCard"),
                    (alice, "/v1/cards/crypto/provisioning/applePay", applePay, "encryptedPassData"),
                    (alice, "/v1/cards/crypto/provisioning/googlePay", google, "opaquePaymentCard"),
                    (bob, "/v1/cards/rewards/provisioning/applePay", applePay, "encryptedPassData"),
                    (bob, "/v1/cards/rewards/provisioning/googlePay", google, "opaquePaymentCard"),
                    (
                        bob, "/v1/cards/rewards/provisioning/samsungPay",
                        #"{"deviceId":"device-1","walletUserId":"wallet-user-1"}"#, "extraProvisionPayload"
                    ),
                ]
                for payload in payloads {
                    let answer = try await SocketExchange.send(
                        port: port, .post, payload.path, token: payload.token, json: payload.body)
                    let json = try answer.expectWholeJSON(status: 200, payload.path)
                    #expect(json[payload.field]?.stringValue?.isEmpty == false, "\(payload.path): \(answer.text)")
                }

                // Adyen: the issuer SDK relay, first round and the next one, for both wallets.
                for wallet in [Wallet.applePay, .googlePay] {
                    let path = "/v1/cards/travel/provisioning/\(wallet.rawValue)"
                    let start = try await SocketExchange.send(port: port, .post, path, token: alice, json: "{}")
                    let sdkInput = try #require(
                        Data(base64Encoded: try start.expectWholeJSON(status: 200, path)["sdkInput"]?.stringValue ?? "")
                    )
                    let output = SampleInputs.issuerSDKOutput(wallet: wallet, answering: SensitiveData(sdkInput))
                        .revealedBytes.base64EncodedString()
                    let next = try await SocketExchange.send(
                        port: port, .post, path, token: alice, json: #"{"sdkOutput":"\#(output)"}"#)
                    #expect(
                        try next.expectWholeJSON(status: 200, path)["sdkInput"]?.stringValue?.isEmpty == false,
                        "\(path): \(next.text)")
                }

                // Trust Payments: the SDK session of a stored credential.
                let session = try await SocketExchange.send(
                    port: port, .post, "/v1/credentials/session", token: alice,
                    json:
                        #"{"intent":"store","consent":{"recordedAt":"2026-01-31T12:00:00Z","evidence":"save-card checkbox"},"amount":{"minorUnits":1050,"currency":"GBP"}}"#
                )
                #expect(try session.expectWholeJSON(status: 200)["token"]?.stringValue?.isEmpty == false)
            }
        }
    }

    @Test("an app's HTTP client reads the Stripe ephemeral key whole")
    func ephemeralKeyThroughHTTPClient() async throws {
        try await EmbeddedSimulators().run { running in
            let server = try DemoServer.make(running: running)
            try await Self.withLiveServer(server) { port in
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/cards/business/provisioning/applePay")
                request.method = .POST
                request.headers.add(name: "Authorization", value: "Bearer \(DemoUsers.aliceToken)")
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: #"{"apiVersion":"2020-08-27"}"#))
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                #expect(response.status.code == 200)
                let body = try await response.body.collect(upTo: 1 << 20)
                #expect(response.headers.first(name: "Content-Length") == String(body.readableBytes))
                let json = try JSONValue.parse(Data(body.readableBytesView))
                #expect(json["object"]?.stringValue == "ephemeral_key")
            }
        }
    }

    @Test(
        "the ephemeral key goes out byte for byte, and other routes, problems and /metrics are framed by their length")
    func otherAnswers() async throws {
        let registry = PrometheusCollectorRegistry()
        let fixture = try Fixture(
            configuration: ProvisioningServer.Configuration(storedCredentialRoute: .instance("cof"), metrics: registry),
            observability: GatewayObservability(metrics: ProvisioningServer.prometheusFactory(registry: registry))
        )
        try await fixture.withLiveServer { port in
            let token = Fixture.aliceToken
            let key = try await SocketExchange.send(
                port: port, .post, "/v1/cards/\(Fixture.keyCard)/provisioning/applePay", token: token,
                json: #"{"apiVersion":"2020-08-27"}"#)
            _ = try key.expectWholeJSON(status: 200)
            #expect(key.text == FakeBackend.ephemeralKeyJSON, "the provider's key is not sent byte for byte")

            let apple = try await SocketExchange.send(
                port: port, .post, "/v1/cards/\(Fixture.payloadCard)/provisioning/googlePay", token: token,
                json: #"{"clientDeviceId":"device-1","clientWalletAccountId":"account-1"}"#
            )
            #expect(try apple.expectWholeJSON(status: 200)["opaquePaymentCard"]?.stringValue?.isEmpty == false)
            let relay = try await SocketExchange.send(
                port: port, .post, "/v1/cards/\(Fixture.relayCard)/provisioning/applePay", token: token, json: "{}")
            #expect(try relay.expectWholeJSON(status: 200)["sdkInput"]?.stringValue?.isEmpty == false)

            let reads: [(path: String, token: String?, status: Int)] = [
                ("/health", nil, 200),
                ("/openapi.json", nil, 200),
                ("/v1/cards", token, 200),
                ("/v1/cards/\(Fixture.payloadCard)", token, 200),
                ("/v1/cards/\(Fixture.payloadCard)/provisioning/offer?wallet=applePay", token, 200),
                ("/v1/wallet-extension", token, 200),
                ("/v1/credentials", token, 200),
                ("/v1/cards/no-such-card", token, 404),
                ("/v1/cards", nil, 401),
                ("/no/such/path", token, 404),
            ]
            for read in reads {
                let answer = try await SocketExchange.send(port: port, .get, read.path, token: read.token, json: nil)
                _ = try answer.expectWholeJSON(status: read.status, read.path)
            }
            // A problem raised in the handler, after the generated code decoded the body: another flow's shape.
            let conflict = try await SocketExchange.send(
                port: port, .post, "/v1/cards/\(Fixture.keyCard)/provisioning/applePay", token: token, json: "{}")
            _ = try conflict.expectWholeJSON(status: 409)

            let yaml = try await SocketExchange.send(
                port: port, .get, "/openapi.yaml", token: nil, json: nil, accept: "application/yaml")
            #expect(yaml.status == 200)
            #expect(
                yaml.contentLength == yaml.body.count,
                "Content-Length \(yaml.contentLength ?? -1), body \(yaml.body.count) bytes")
            #expect(Data(yaml.body) == ProvisioningServer.openAPIYAML, "the document is not served byte for byte")
            // A client that accepts only JSON is told so, in a problem that is framed like every other answer.
            let refused = try await SocketExchange.send(port: port, .get, "/openapi.yaml", token: nil, json: nil)
            #expect(try refused.expectWholeJSON(status: 406)["code"]?.stringValue == "invalidRequest")

            // The metrics' text replaces the content type the document gives; the length still counts the text.
            let metrics = try await SocketExchange.send(
                port: port, .get, "/metrics", token: nil, json: nil, accept: "text/plain")
            #expect(metrics.status == 200)
            #expect(metrics.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
            #expect(
                metrics.contentLength == metrics.body.count,
                "Content-Length \(metrics.contentLength ?? -1), body \(metrics.body.count) bytes")
            #expect(metrics.text.contains("# TYPE cardgateway_operations counter"))
        }
    }

    /// Runs `body` with `server` listening on 127.0.0.1 (a free port); stops it afterwards.
    static func withLiveServer(
        _ server: ProvisioningServer, _ body: @Sendable (_ port: Int) async throws -> Void
    ) async throws {
        try await withLiveProvisioningServer(server, body)
    }
}

/// One HTTP/1.1 request over a plain TCP connection to 127.0.0.1 with `Connection: close`, read until the server
/// closes: the answer's bytes exactly as the server sent them, whatever its `Content-Length` says.
enum SocketExchange {
    struct Answer: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        /// Every byte after the head.
        var body: [UInt8]

        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
        var contentLength: Int? { header("Content-Length").flatMap { Int($0) } }
        var text: String { String(decoding: body, as: UTF8.self) }

        /// Checks the status, that `Content-Length` counts exactly the bytes sent, and that those bytes (what a
        /// client reads) are one JSON document; returns it.
        func expectWholeJSON(
            status expected: Int, _ what: String = "", sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> JSONValue {
            #expect(status == expected, "\(what): \(text)", sourceLocation: sourceLocation)
            let length = try #require(contentLength, "\(what): no Content-Length", sourceLocation: sourceLocation)
            #expect(
                length == body.count, "\(what): Content-Length \(length), but \(body.count) bytes sent",
                sourceLocation: sourceLocation)
            let type = header("Content-Type") ?? ""
            #expect(
                type.hasPrefix("application/json") || type == "application/problem+json", "\(what): \(type)",
                sourceLocation: sourceLocation)
            return try JSONValue.parse(Data(body.prefix(length)))
        }
    }

    enum Failure: Error { case noHead, badStatusLine }

    static func send(
        port: Int, _ method: HTTPMethodName, _ path: String, token: String?, json: String?,
        accept: String = "application/json"
    ) async throws -> Answer {
        var head =
            "\(method.rawValue) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nAccept: \(accept)\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        let body = Array((json ?? "").utf8)
        if json != nil { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        let request = Array((head + "\r\n").utf8) + body

        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let received: [UInt8] = try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: request))
            var bytes: [UInt8] = []
            for try await chunk in inbound { bytes += chunk.readableBytesView }
            return bytes
        }
        return try parse(received)
    }

    static func parse(_ bytes: [UInt8]) throws -> Answer {
        let separator = Array("\r\n\r\n".utf8)
        guard
            let end = (0...max(0, bytes.count - separator.count)).first(where: {
                Array(bytes[$0..<min(bytes.count, $0 + 4)]) == separator
            })
        else {
            throw Failure.noHead
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure.badStatusLine }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Answer(status: status, headers: headers, body: Array(bytes[(end + separator.count)...]))
    }

    enum HTTPMethodName: String, Sendable { case get = "GET", post = "POST" }
}
