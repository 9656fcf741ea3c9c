import CardGateway
import CardGatewayPaysafe
import CardGatewayTesting
import Crypto
import Foundation
import HTTPTypes
import Testing

@Suite("Paysafe webhooks and configuration", .timeLimit(.minutes(5)))
struct PaysafeWebhookTests {
    static let body = Data(
        #"{"id":"evt-100","cardId":"f16ba382-eb42-481a-b08f-c57bdc9aae24","customerId":"cust-eu-1","oldStatus":"ACTIVE","newStatus":"LOCKED"}"#
            .utf8)

    static func hmac(_ body: Data, key: String = Fixture.webhookSecret) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(key.utf8))))
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    static func delivery(_ body: Data = body, signature: String?) -> WebhookDelivery {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let signature { headers[HTTPField.Name("Signature")!] = signature }
        return WebhookDelivery(headers: headers, body: body)
    }

    static func provider(webhookSecret: String? = Fixture.webhookSecret) throws -> PaysafeProvider {
        try Harness.make(webhookSecret: webhookSecret) { _ in nil }.provider
    }

    @Test("a valid signature (lower-case hex) gives a cardStatusChanged event")
    func valid() throws {
        let events = try Self.provider().verify(Self.delivery(signature: Self.hex(Self.hmac(Self.body))), now: Date())
        #expect(events.count == 1)
        let event = try #require(events.first)
        #expect(event.id == "evt-100")
        #expect(event.providerKind == .paysafe)
        #expect(event.occurredAt == nil)
        #expect(
            event.event
                == .cardStatusChanged(
                    CardStatusChange(
                        card: CardRef(id: Fixture.cardID, customer: Fixture.customer), oldStatus: .active,
                        newStatus: .locked,
                        providerOldStatus: "ACTIVE", providerNewStatus: "LOCKED"
                    )))
    }

    @Test("upper-case hex and Base64 of the same HMAC are accepted")
    func otherEncodings() throws {
        let provider = try Self.provider()
        #expect(
            try provider.verify(Self.delivery(signature: Self.hex(Self.hmac(Self.body)).uppercased()), now: Date())
                .count == 1)
        #expect(
            try provider.verify(Self.delivery(signature: Self.hmac(Self.body).base64EncodedString()), now: Date()).count
                == 1)
    }

    @Test("a tampered body is refused")
    func tampered() throws {
        let signature = Self.hex(Self.hmac(Self.body))
        let tampered = Data(
            String(decoding: Self.body, as: UTF8.self).replacingOccurrences(of: "LOCKED", with: "ACTIVE").utf8)
        let error = try #require(throws: CardGatewayError.self) {
            try Self.provider().verify(Self.delivery(tampered, signature: signature), now: Date())
        }
        #expect(error.code == .signatureInvalid)
    }

    @Test("a signature made with another secret is refused")
    func wrongSecret() throws {
        let error = try #require(throws: CardGatewayError.self) {
            try Self.provider().verify(
                Self.delivery(signature: Self.hex(Self.hmac(Self.body, key: "another-secret"))), now: Date())
        }
        #expect(error.code == .signatureInvalid)
    }

    @Test(
        "a missing, empty or malformed Signature header is refused",
        arguments: [nil, "", "zz", "sha256=abc", String(repeating: "g", count: 64)])
    func missingHeader(_ signature: String?) throws {
        let error = try #require(throws: CardGatewayError.self) {
            try Self.provider().verify(Self.delivery(signature: signature), now: Date())
        }
        #expect(error.code == .signatureInvalid)
    }

    @Test("without a webhook secret, webhooks are a configuration error")
    func noSecret() throws {
        let error = try #require(throws: CardGatewayError.self) {
            try Self.provider(webhookSecret: nil).verify(
                Self.delivery(signature: Self.hex(Self.hmac(Self.body))), now: Date())
        }
        #expect(error.code == .invalidConfiguration)
    }

    @Test("a signed body missing newStatus is an invalid response")
    func signedButIncomplete() throws {
        let body = Data(#"{"id":"evt-1","cardId":"c"}"#.utf8)
        let error = try #require(throws: CardGatewayError.self) {
            try Self.provider().verify(Self.delivery(body, signature: Self.hex(Self.hmac(body))), now: Date())
        }
        #expect(error.code == .invalidResponse)
        #expect(error.message.contains("newStatus"))
    }

    @Test("the secret never appears in errors")
    func secretNotInErrors() throws {
        let error = try #require(throws: CardGatewayError.self) {
            try Self.provider().verify(Self.delivery(signature: "00"), now: Date())
        }
        #expect(!error.description.contains(Fixture.webhookSecret))
    }

    // MARK: Configuration

    static let configJSON = #"""
        {"providers":{"ps":{"kind":"paysafe","environment":"sandbox",
          "credentials":{"clientID":"literal:cid","clientSecret":"literal:csecret","webhookSecret":"literal:wsecret"},
          "options":{"brand":"acme","region":"US","userAgent":"MyApp/2"}}},"routes":[]}
        """#

    @Test("the factory: environments, credentials, options and the descriptor")
    func factory() throws {
        let factory = ProviderFactory.paysafe
        #expect(factory.kind == .paysafe)
        #expect(factory.environments["sandbox"]?.absoluteString == "https://sandbox.paysafe.com")
        #expect(factory.environments["live"]?.absoluteString == "https://api.paysafe.com")
        #expect(factory.credentials.map(\.name) == ["clientID", "clientSecret", "webhookSecret"])
        #expect(factory.credentials.map(\.required) == [true, true, false])
        #expect(factory.options.map(\.name) == ["brand", "region", "userAgent"])
        #expect(factory.options.first { $0.name == "region" }?.allowedValues == ["ROW", "US"])
        #expect(
            factory.descriptor.capabilities
                == Capability.cardService.union([
                    .cardLookup, .walletTokenListing, .walletProvisioning, .webhooks, .cardDetailsReveal,
                ]))
        #expect(factory.descriptor.revealFlows == [.cardDetails: .secureLink])
        #expect(factory.descriptor.provisioningFlows == [.applePay: .encryptedPayload, .googlePay: .encryptedPayload])
    }

    @Test("loading configuration builds a Paysafe adapter with its options")
    func loadConfiguration() throws {
        var registry = ProviderRegistry()
        registry.register(.paysafe)
        let configuration = try GatewayConfiguration.load(from: Data(Self.configJSON.utf8), registry: registry)
        let gateway = try CardGateway(
            configuration: configuration, registry: registry, transport: ScriptedTransport([]))
        let provider = try #require(gateway.instance(named: "ps")?.provider as? PaysafeProvider)
        #expect(provider.configuration.brand == "acme")
        #expect(provider.configuration.region == .us)
        #expect(provider.configuration.userAgent == "MyApp/2")
        #expect(provider.configuration.clientID.revealedValue == "cid")
        #expect(provider.configuration.webhookSecret?.revealedValue == "wsecret")
        #expect(!provider.configuration.description.contains("wsecret"))
    }

    @Test("a missing brand is reported with its path")
    func missingBrand() throws {
        var registry = ProviderRegistry()
        registry.register(.paysafe)
        let json = Self.configJSON.replacingOccurrences(of: #""brand":"acme","#, with: "")
        let error = try #require(throws: CardGatewayError.self) {
            try GatewayConfiguration.load(from: Data(json.utf8), registry: registry)
        }
        #expect(error.configurationProblems.contains { $0.path.contains("providers.ps.options") })
    }

    @Test("the default region is ROW and the default userAgent CardGateway")
    func defaults() throws {
        var registry = ProviderRegistry()
        registry.register(.paysafe)
        let json = Self.configJSON.replacingOccurrences(of: #","region":"US","userAgent":"MyApp/2""#, with: "")
        let configuration = try GatewayConfiguration.load(from: Data(json.utf8), registry: registry)
        let gateway = try CardGateway(
            configuration: configuration, registry: registry, transport: ScriptedTransport([]))
        let provider = try #require(gateway.instance(named: "ps")?.provider as? PaysafeProvider)
        #expect(provider.configuration.region == .row)
        #expect(provider.configuration.userAgent == "CardGateway")
    }
}
