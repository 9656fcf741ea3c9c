@_spi(AdapterSupport) import CardGateway
import CardGatewayTesting
import Crypto
import Foundation
import HTTPTypes
import Logging
import MarqetaSimulator
import SharedTestSupport
import Testing

@_spi(AdapterSupport) @testable import CardGatewayMarqeta

@Suite("Marqeta webhooks", .timeLimit(.minutes(5)))
struct MarqetaWebhookTests {
    let simulator = MarqetaSimulator()

    func provider(
        username: String? = Seed.webhookUsername, password: String? = Seed.webhookPassword,
        secret: String? = Seed.webhookSecret
    ) throws -> MarqetaProvider {
        let http = try ProviderHTTPClient(
            instance: "mq-hooks", kind: .marqeta, baseURL: URL(string: "https://sandbox-api.marqeta.com/v3")!,
            transport: ScriptedTransport([]))
        return try MarqetaProvider(
            http: http, applicationToken: Secret(Seed.applicationToken), accessToken: Secret(Seed.accessToken),
            options: MarqetaFixture.options,
            webhookUsername: username.map(Secret.init), webhookPassword: password.map(Secret.init),
            webhookSecret: secret.map(Secret.init)
        )
    }

    @Test("a card transition under `cards`, with Basic credentials and X-Marqeta-Signature, becomes cardStatusChanged")
    func cardTransition() throws {
        let signed = simulator.signedCardTransitionWebhook(
            card: Seed.lockableCard, state: "SUSPENDED", type: "state.suspended")
        // The simulator sends it under the key Marqeta publishes.
        let body = try JSONValue.parse(signed.body)
        #expect(body.objectValue.map { Array($0.keys) } == ["cards"])
        let delivery = MarqetaFixture.delivery(signed)
        let events = try provider().verify(delivery, now: Date())
        #expect(events.count == 1)
        guard let change = events.first?.event.cardStatusChanged else {
            Issue.record("expected a card status change: \(events)")
            return
        }
        #expect(change.card.id == Seed.lockableCard)
        #expect(change.newStatus == .suspended)
        #expect(change.providerNewStatus == "SUSPENDED")
        #expect(events.first?.providerType == "cardtransition.state.suspended")
        #expect(events.first?.providerKind == .marqeta)
    }

    @Test("a digital wallet token transition becomes walletTokenUpdated; REQUESTED becomes walletTokenCreated")
    func tokenTransition() throws {
        let updated = try provider().verify(
            MarqetaFixture.delivery(
                simulator.signedTokenTransitionWebhook(
                    token: Seed.activeToken, state: "SUSPENDED", type: "state.suspended")), now: Date())
        guard let event = updated.first?.event.walletTokenUpdated else {
            Issue.record("expected a token update: \(updated)")
            return
        }
        #expect(event.token.id == Seed.activeToken)
        #expect(event.token.status == .suspended)
        #expect(event.token.providerStatus == "SUSPENDED")
        // `digital_wallet_token` is a `digital_wallet_token_hash` ({token, card_token}): no wallet is named.
        #expect(event.token.wallet == nil)
        #expect(event.card.id == Seed.walletCard)
        #expect(updated.first?.providerType == "digitalwallettokentransition.state.suspended")
        let created = try provider().verify(
            MarqetaFixture.delivery(
                simulator.signedTokenTransitionWebhook(
                    token: Seed.activeToken, state: "REQUESTED", type: "state.requested")), now: Date())
        guard created.first?.event.walletTokenCreated != nil else {
            Issue.record("expected a token creation: \(created)")
            return
        }
    }

    @Test(
        "refused: tampered body, other secret, wrong Basic password, no signature, not hex; the message names no secret"
    )
    func refusals() throws {
        let provider = try provider()
        let good = simulator.signedCardTransitionWebhook(
            card: Seed.lockableCard, state: "SUSPENDED", type: "state.suspended")
        var tampered = MarqetaFixture.delivery(good)
        tampered.body.append(contentsOf: Array(" ".utf8))
        let otherSecret = MarqetaFixture.delivery(
            simulator.signedCardTransitionWebhook(
                card: Seed.lockableCard, state: "SUSPENDED", type: "state.suspended", secret: "another-secret-0002"))
        let wrongPassword = MarqetaFixture.delivery(
            simulator.signedCardTransitionWebhook(
                card: Seed.lockableCard, state: "SUSPENDED", type: "state.suspended", password: "Wrong-Passw0rd!-0009"))
        var unsigned = MarqetaFixture.delivery(good)
        unsigned.headers[MarqetaAPI.signatureHeader] = nil
        var notHex = MarqetaFixture.delivery(good)
        notHex.headers[MarqetaAPI.signatureHeader] = "zz" + String(repeating: "0", count: 62)
        for delivery in [tampered, otherSecret, wrongPassword, unsigned, notHex] {
            let error = gatewayError { _ = try provider.verify(delivery, now: Date()) }
            #expect(error?.code == .signatureInvalid)
            let text = error.map { String(describing: $0) } ?? ""
            #expect(!text.contains(Seed.webhookSecret))
            #expect(!text.contains(Seed.webhookPassword))
        }
    }

    @Test(
        "HMAC-SHA1 (40 hex characters) is accepted too; only the checks configured run; none configured is invalidConfiguration"
    )
    func variants() throws {
        let body = simulator.signedCardTransitionWebhook(
            card: Seed.activeCard, state: "ACTIVE", type: "state.activated"
        ).body
        var delivery = MarqetaFixture.delivery(simulator.signed(body: body))
        let sha1 = HMAC<Insecure.SHA1>.authenticationCode(
            for: body, using: SymmetricKey(data: Data(Seed.webhookSecret.utf8))
        ).map { String(format: "%02x", $0) }.joined()
        delivery.headers[MarqetaAPI.signatureHeader] = sha1
        #expect(try provider().verify(delivery, now: Date()).count == 1)

        var basicOnly = MarqetaFixture.delivery(simulator.signed(body: body))
        basicOnly.headers[MarqetaAPI.signatureHeader] = nil
        #expect(try provider(secret: nil).verify(basicOnly, now: Date()).count == 1)
        var signatureOnly = MarqetaFixture.delivery(simulator.signed(body: body))
        signatureOnly.headers[.authorization] = nil
        #expect(try provider(username: nil, password: nil).verify(signatureOnly, now: Date()).count == 1)
        let unconfigured = gatewayError {
            _ = try provider(username: nil, password: nil, secret: nil).verify(signatureOnly, now: Date())
        }
        #expect(unconfigured?.code == .invalidConfiguration)
        let half = gatewayError { _ = try provider(username: "user", password: nil) }
        #expect(half?.code == .invalidConfiguration)
    }

    /// Signs `body` as the simulator's webhook would and verifies it.
    func verify(_ body: String, logger: Logger = OperationContext.noopLogger) throws -> [GatewayEvent] {
        let verifier = MarqetaWebhookVerifier(
            username: Secret(Seed.webhookUsername), password: Secret(Seed.webhookPassword),
            secret: Secret(Seed.webhookSecret), instance: "mq-hooks", logger: logger)
        return try verifier.verify(MarqetaFixture.delivery(simulator.signed(body: Data(body.utf8))))
    }

    @Test("Marqeta's published card transition webhook (its `cards` array) becomes cardStatusChanged")
    func publishedCardTransition() throws {
        // developer-guides/mq-eu-synchronizing-dwts-card-state, "Transitioning cards": the sample as published, up
        // to where the stored copy is cut (Fixtures/README.md).
        let published = try PublishedShape.fixture("webhook-cards-transition-published-partial.json")
        let body = String(decoding: try JSONEncoder().encode(published), as: UTF8.self)
        let events = try verify(body)
        #expect(events.count == 1)
        let change = try #require(events.first?.event.cardStatusChanged)
        #expect(change.card.id == "39bb022d-8e48-446f-9d81-1c6ea4e37a4d")
        #expect(change.card.customer == "12237f64-2a08-4906-9ec1-55f8a97a2084")
        #expect(change.newStatus == .suspended)
        #expect(change.providerNewStatus == "SUSPENDED")
        #expect(events.first?.id == "6f362bd6-0f63-4c7a-9630-004fd7a55308")
        // The sample shows no `type`: the event type is made from the state.
        #expect(events.first?.providerType == "cardtransition.state.suspended")
    }

    @Test("`cardtransitions` (unconfirmed) is read as well, beside `cards` in one delivery")
    func bothCardKeys() throws {
        let events = try verify(
            #"{"cards":[{"token":"ct1","card_token":"c1","state":"ACTIVE","type":"state.activated"}],"cardtransitions":[{"token":"ct2","card_token":"c2","state":"TERMINATED","type":"state.terminated"}]}"#
        )
        #expect(events.compactMap { $0.event.cardStatusChanged?.card.id } == ["c1", "c2"])
        #expect(events.compactMap { $0.event.cardStatusChanged?.newStatus } == [.active, .cancelled])
        #expect(events.map(\.providerType) == ["cardtransition.state.activated", "cardtransition.state.terminated"])
    }

    @Test("a body that is not a JSON object of arrays is invalidResponse, and names no value")
    func malformedBodies() throws {
        for body in [
            "[]", #""cards""#, "not json", #"{"cards":{"token":"ct1"}}"#, #"{"pings":"healthcheck"}"#,
            #"{"cards":[{"card_token":7}]}"#,
        ] {
            let error = gatewayError { _ = try verify(body) }
            #expect(error?.code == .invalidResponse, "\(body): \(String(describing: error))")
            #expect(!(error?.message.contains("healthcheck") ?? true))
        }
    }

    @Test("an object without card_token or state is skipped with a warning; the others still give events")
    func incompleteObjects() throws {
        let capture = LogCapture()
        let events = try verify(
            #"{"cards":[{"token":"ct_incomplete","state":"ACTIVE"},{"token":"ct2","card_token":"c2","state":"SUSPENDED"}],"digitalwallettokentransitions":[{"token":"dwtt_nocard","state":"ACTIVE","digital_wallet_token":{"token":"dwt1"}}]}"#,
            logger: capture.logger(label: "mq.hooks"))
        #expect(events.compactMap { $0.event.cardStatusChanged?.card.id } == ["c2"])
        let warning = capture.all.first { $0.level == .warning }
        #expect(warning != nil, "skipped objects are logged")
        let skipped = warning.map { "\($0.metadata)" } ?? ""
        #expect(skipped.contains("ct_incomplete") && skipped.contains("dwtt_nocard"))
    }

    /// The guide's computation, outside our code: `OpenSSL::HMAC.hexdigest(digest, secret, http_raw_request_body)`
    /// (developer-guides/signature-verification), done by Python's `hmac` over the raw body's bytes.
    static func guideSignature(_ body: Data, secret: String, digest: String) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mq-webhook-\(UUID().uuidString)")
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script =
            "import hmac, hashlib, sys; print(hmac.new(sys.argv[1].encode(), open(sys.argv[2], 'rb').read(), getattr(hashlib, sys.argv[3])).hexdigest())"
        let result = try await OfficialClient.run(
            [OfficialClient.python, "-c", script, secret, file.path, digest], timeout: .seconds(30))
        #expect(result.status == 0, "\(result.output)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "X-Marqeta-Signature as Marqeta's guide computes it: the simulator's matches, and the adapter takes the guide's"
    )
    func signatureAsTheGuideComputesIt() async throws {
        let signed = simulator.signedCardTransitionWebhook(
            card: Seed.lockableCard, state: "SUSPENDED", type: "state.suspended")
        let header = signed.headers.first { $0.0 == "X-Marqeta-Signature" }?.1
        let sha256 = try await Self.guideSignature(signed.body, secret: Seed.webhookSecret, digest: "sha256")
        #expect(sha256.count == 64)
        #expect(header == sha256)
        // A webhook configured with HMAC-SHA1: the guide's SHA-1 signature verifies too.
        let sha1 = try await Self.guideSignature(signed.body, secret: Seed.webhookSecret, digest: "sha1")
        var delivery = MarqetaFixture.delivery(signed)
        delivery.headers[MarqetaAPI.signatureHeader] = sha1
        #expect(try provider().verify(delivery, now: Date()).count == 1)
    }

    @Test("a ping or another category gives no events, and the categories are logged (names only)")
    func otherCategories() throws {
        // Marqeta's ping body (developer-guides/signature-verification: `pings[0]`, token `marqeta`, payload
        // `healthcheck`; swagger `webhook_ping_model`).
        let capture = LogCapture()
        #expect(
            try verify(
                #"{"pings":[{"token":"marqeta","payload":"healthcheck"}]}"#, logger: capture.logger(label: "mq.hooks")
            ).isEmpty)
        #expect(try verify(#"{"transactions":[{"token":"t1","type":"authorization"}]}"#).isEmpty)
        let line = capture.all.first { $0.message.contains("does not read") }
        #expect(line?.level == .info)
        #expect(line.map { "\($0.metadata)" }?.contains("pings") == true)
        #expect(capture.leaks(of: ["healthcheck"]).isEmpty)
        // A known key with an empty array is not an unknown category: nothing is logged at info.
        let quiet = LogCapture()
        #expect(try verify(#"{"cards":[]}"#, logger: quiet.logger(label: "mq.hooks")).isEmpty)
        #expect(!quiet.all.contains { $0.message.contains("does not read") })
    }
}
