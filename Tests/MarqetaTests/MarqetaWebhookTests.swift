@_spi(AdapterSupport) import CardGateway
import CardGatewayTesting
import Crypto
import Foundation
import HTTPTypes
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

    @Test("a card transition with Basic credentials and X-Marqeta-Signature becomes cardStatusChanged")
    func cardTransition() throws {
        let delivery = MarqetaFixture.delivery(
            simulator.signedCardTransitionWebhook(card: Seed.lockableCard, state: "SUSPENDED", type: "state.suspended"))
        let events = try provider().verify(delivery, now: Date())
        #expect(events.count == 1)
        guard let change = events.first?.event.cardStatusChanged else {
            Issue.record("expected a card status change: \(events)")
            return
        }
        #expect(change.card.id == Seed.lockableCard)
        #expect(change.newStatus == .suspended)
        #expect(change.providerNewStatus == "SUSPENDED")
        #expect(events.first?.providerType == "cardtransitions.state.suspended")
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
        #expect(event.token.wallet == .applePay)
        #expect(event.card.id == Seed.walletCard)
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

    @Test("a ping or another category gives no events")
    func otherCategories() throws {
        let ping = MarqetaFixture.delivery(
            simulator.signed(body: Data(#"{"pings":[{"token":"marqeta","payload":"healthcheck"}]}"#.utf8)))
        #expect(try provider().verify(ping, now: Date()).isEmpty)
    }
}
