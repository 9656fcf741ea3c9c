import BridgeSimulator
import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayBridge
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import Logging
import SharedTestSupport
import Testing

/// The session step on its own (a client may skip the offer), a call that may have reached Bridge, and the nonce in
/// errors and logs.
@Suite("Bridge reveal sessions", .timeLimit(.minutes(5)))
struct BridgeRevealSessionTests {
    typealias Seed = BridgeSimulator.Seed

    static func posts(_ world: BridgeRevealWorld, _ suffix: String) -> [JournalEntry] {
        world.handle.journal.entries(method: "POST", pathContains: "/card_accounts/").filter {
            $0.path.hasSuffix(suffix)
        }
    }

    @Test("the session step refuses a pending or inactive account before asking Bridge for a key or a PIN frame")
    func sessionChecksTheAccount() async throws {
        try await BridgeRevealWorld.run { world in
            for card in [Seed.pendingVisa, Seed.inactiveMastercard] {
                let key = await gatewayError {
                    _ = try await world.session(card, nonce: BridgeRevealWorld.FrontEndNonce().nonce)
                }
                #expect(key?.code == .invalidCardState, "\(card)")
                #expect(key?.mayHaveReachedProvider == false)
                let pin = await gatewayError { _ = try await world.pinSession(card) }
                #expect(pin?.code == .invalidCardState, "\(card)")
            }
            #expect(Self.posts(world, "/ephemeral_keys").isEmpty)
            #expect(Self.posts(world, "/pin").isEmpty)
            #expect(world.handle.journal.entries(method: "GET", pathContains: "/card_accounts/").count == 4)
            // A frozen account is served.
            _ = try await world.session(Seed.frozenByCustomer, nonce: BridgeRevealWorld.FrontEndNonce().nonce)
            #expect(Self.posts(world, "/ephemeral_keys").count == 1)
        }
    }

    @Test(
        "a key request dropped after Bridge read it is repeated under the same Idempotency-Key, which Bridge answers with the original response"
    )
    func droppedKeyRequestIsRepeatedUnderTheSameKey() async throws {
        try await BridgeRevealWorld.run { world in
            world.handle.faults.inject(
                FaultRule(count: 1, pathPrefix: "/v0/customers/", method: "POST", action: .dropConnection))
            let front = BridgeRevealWorld.FrontEndNonce()
            let session = try await world.session(Seed.activeVisa, nonce: front.nonce)
            let posts = Self.posts(world, "/ephemeral_keys")
            #expect(posts.count == 2)
            #expect(posts.first?.handling == .faulted)
            let keys = posts.compactMap { $0.header("idempotency-key") }
            #expect(keys.count == 2 && Set(keys).count == 1, "the repeat carries the first attempt's key")
            // The key works once for the front end.
            let key = try #require(session.material.ephemeralKeySecret?.revealedValue)
            let read = try await world.read(key: key, secret: front.secret, timestamp: front.timestamp)
            #expect(read.status == 200)
        }
    }

    @Test("Bridge's idempotence: the same Idempotency-Key gets the original ephemeral key back, a new key a new one")
    func repeatedKeyReplaysTheOriginal() async throws {
        try await BridgeRevealWorld.run { world in
            let path =
                "/v0/customers/\(Seed.customerID)/card_accounts/\(Seed.activeVisa)/ephemeral_keys"
            let body = Data(#"{"client_nonce":"\#(BridgeRevealWorld.FrontEndNonce().nonce.revealedValue)"}"#.utf8)
            func post(_ key: String) async throws -> String? {
                var fields = HTTPFields()
                fields[HTTPField.Name("Api-Key")!] = Seed.apiKey
                fields[HTTPField.Name("Idempotency-Key")!] = key
                fields[.contentType] = "application/json"
                let request = HTTPRequest(
                    method: .post, scheme: "http", authority: "127.0.0.1:\(world.handle.port)", path: path,
                    headerFields: fields)
                let response = try await AsyncHTTPClientTransport().send(request, body: body, timeout: .seconds(30))
                #expect(response.response.status.code == 200 || response.response.status.code == 201)
                return try JSONValue.parse(response.body)["ephemeral_key"]?.stringValue
            }
            let first = try #require(try await post("reveal-attempt-1"))
            let repeated = try await post("reveal-attempt-1")
            #expect(repeated == first)
            let other = try await post("reveal-attempt-2")
            #expect(other != nil && other != first)
        }
    }

    @Test("a client nonce Bridge's error echoes reaches neither the error nor the logs")
    func nonceNeverInErrorsOrLogs() async throws {
        let capture = LogCapture()
        let logger = capture.logger(level: .trace)
        // Short nonces, which no general rule for opaque words would catch.
        let nonces = ["nonce-a1b2c3", "n0nce"]
        try await BridgeRevealWorld.run(logger: logger) { world in
            let context = OperationContext(logger: logger, requestID: "req-nonce")
            for nonce in nonces {
                world.handle.faults.inject(
                    FaultRule(
                        count: 1, pathPrefix: "/v0/customers/", method: "POST",
                        action: .status(400, retryAfterSeconds: nil, message: "client_nonce \(nonce) is not valid")))
                let error = try #require(
                    await gatewayError {
                        _ = try await world.session(Seed.activeVisa, nonce: Secret(nonce), context: context)
                    })
                #expect(error.code == .invalidRequest)
                let texts = [
                    error.description, String(reflecting: error), error.message,
                    error.fieldErrors.map(\.description).joined(),
                ]
                #expect(!texts.joined(separator: "\n").contains(nonce), "leaked into the error")
            }
        }
        #expect(!capture.all.isEmpty, "the flow logged something to check")
        #expect(nonces.allSatisfy { !capture.text.contains($0) }, "leaked into logs")
    }
}
