@_spi(AdapterSupport) import CardGateway
@_spi(AdapterSupport) import CardGatewayTesting
import Foundation
import Testing

@_spi(AdapterSupport) @testable import CardGatewayAdyen
import SharedTestSupport

@Suite("Adyen descriptor, factory and card mapping", .timeLimit(.minutes(5)))
struct AdyenMappingTests {
    @Test(
        "descriptor: card lookup, listing, issuance, locking, cancellation, wallet tokens, provisioning and webhooks; both wallets by the issuer SDK relay"
    )
    func descriptor() {
        let descriptor = AdyenProvider.descriptor
        #expect(descriptor.kind == .adyen)
        #expect(descriptor.kind.name == "adyen")
        #expect(
            descriptor.capabilities == [
                .cardLookup, .cardListing, .cardIssuance, .cardLocking, .cardCancellation, .walletTokenListing,
                .walletTokenControl, .walletProvisioning, .webhooks,
                .cardDetailsReveal, .pinReveal, .pinChange, .authorizations,
            ]
        )
        #expect(descriptor.provisioningFlows == [.applePay: .issuerSDKRelay, .googlePay: .issuerSDKRelay])
        #expect(descriptor.authorizationDeadline == .seconds(2))
        #expect(
            descriptor.revealFlows == [
                .cardDetails: .encryptedSessionKey, .pinReveal: .encryptedSessionKey, .pinChange: .encryptedSessionKey,
            ])
    }

    @Test("factory: environments, credentials and no options")
    func factory() {
        let factory = ProviderFactory.adyen
        #expect(factory.kind == .adyen)
        #expect(factory.environments["sandbox"]?.absoluteString == "https://balanceplatform-api-test.adyen.com/bcl/v2")
        #expect(factory.environments["test"]?.absoluteString == "https://balanceplatform-api-test.adyen.com/bcl/v2")
        #expect(factory.environments["live"]?.absoluteString == "https://balanceplatform-api-live.adyen.com/bcl/v2")
        #expect(factory.environments.count == 3)
        #expect(
            factory.credentials.map(\.name) == ["apiKey", "hmacKey", "authorizationUsername", "authorizationPassword"])
        #expect(factory.credentials.map(\.required) == [true, false, false, false])
        #expect(factory.options.isEmpty)
    }

    @Test("configuration with kind adyen loads and builds the adapter")
    func configurationLoads() throws {
        var registry = ProviderRegistry()
        registry.register(.adyen)
        let json = """
            {"providers": {"adyen-eu": {"kind": "adyen", "environment": "live",
               "credentials": {"apiKey": "literal:\(Fixture.apiKey)", "hmacKey": "literal:\(Fixture.hmacKeyHex)"}}},
             "routes": [{"when": {"issuer": "adyen"}, "use": "adyen-eu"}]}
            """
        let configuration = try GatewayConfiguration.load(
            from: Data(json.utf8), registry: registry, secrets: SecretResolver(environment: [:]))
        #expect(
            configuration.providers["adyen-eu"]?.baseURL.absoluteString
                == "https://balanceplatform-api-live.adyen.com/bcl/v2")
        let gateway = try CardGateway(
            configuration: configuration, registry: registry, transport: ScriptedTransport([]))
        let provider = try #require(gateway.instance(named: "adyen-eu")?.provider as? AdyenProvider)
        #expect(provider.http.idempotencyKeyMaxLength == 64)
    }

    @Test("configuration without apiKey is refused at load")
    func missingAPIKey() {
        var registry = ProviderRegistry()
        registry.register(.adyen)
        let json = """
            {"providers": {"adyen-eu": {"kind": "adyen", "environment": "test", "credentials": {}}}, "routes": []}
            """
        #expect(throws: CardGatewayError.self) {
            _ = try GatewayConfiguration.load(
                from: Data(json.utf8), registry: registry, secrets: SecretResolver(environment: [:]))
        }
    }

    @Test("a non-hex hmacKey and an empty apiKey are invalid configuration, without echoing them")
    func badCredentials() throws {
        let http = try ProviderHTTPClient.testing(
            kind: .adyen, baseURL: Fixture.baseURL, transport: ScriptedTransport([]))
        do {
            _ = try AdyenProvider(http: http, apiKey: Secret(Fixture.apiKey), hmacKey: Secret("not-hex-zz-secretvalue"))
            Issue.record("expected invalidConfiguration")
        } catch let error as CardGatewayError {
            #expect(error.code == .invalidConfiguration)
            #expect(!error.description.contains("secretvalue"))
        }
        #expect(throws: CardGatewayError.self) { _ = try AdyenProvider(http: http, apiKey: Secret("  ")) }
    }

    @Test("card(): GET /paymentInstruments/{id} with X-API-Key, every field mapped")
    func cardRequestAndFields() async throws {
        let transport = ScriptedTransport([
            .json(200, Fixture.instrument(status: "active", formFactor: "physical", month: "03", year: "2028"))
        ])
        let provider = try Fixture.provider(transport)
        let card = try await provider.card(
            CardRef(id: "PI3227C223222B5BPCMFXD2XG", customer: "AH-1"), context: OperationContext())

        let request = try #require(transport.requests.first)
        #expect(transport.requestCount == 1)
        #expect(request.method == "GET")
        #expect(request.path == "/bcl/v2/paymentInstruments/PI3227C223222B5BPCMFXD2XG")
        #expect(request.request.authority == "balanceplatform-api-test.adyen.com")
        #expect(request.request.scheme == "https")
        #expect(request.header("X-API-Key") == Fixture.apiKey)
        #expect(request.header("Idempotency-Key") == nil)
        #expect(request.body == nil)

        #expect(card.ref == CardRef(id: "PI3227C223222B5BPCMFXD2XG", customer: "AH-1"))
        #expect(card.status == .active)
        #expect(card.providerStatus == "active")
        #expect(card.statusReason == nil)
        #expect(card.type == .physical)
        #expect(card.scheme == .mastercard)
        #expect(card.lastFour == "1234")
        #expect(card.expiry == CardExpiry(month: 3, year: 2028))
        #expect(card.bin == "555555")
        #expect(card.cardholderName == "Sam Hopper")
        #expect(card.walletTokens.isEmpty)
    }

    @Test(
        "status mapping with statusReason kept",
        arguments: [
            ("active", CardStatus.active), ("inactive", .inactive), ("suspended", .suspended), ("closed", .cancelled),
            ("requested", .unknown),
        ])
    func statuses(provider status: String, expected: CardStatus) async throws {
        let transport = ScriptedTransport([.json(200, Fixture.instrument(status: status, statusReason: "lost"))])
        let card = try await Fixture.provider(transport).card(CardRef(id: "PI1"), context: OperationContext())
        #expect(card.status == expected)
        #expect(card.providerStatus == status)
        #expect(card.statusReason == "lost")
    }

    @Test("a missing status maps to unknown")
    func missingStatus() async throws {
        let transport = ScriptedTransport([.json(200, Fixture.instrument(status: nil))])
        let card = try await Fixture.provider(transport).card(CardRef(id: "PI1"), context: OperationContext())
        #expect(card.status == .unknown)
        #expect(card.providerStatus == "")
    }

    @Test("brand mapping", arguments: [("visa", CardScheme.visa), ("mc", .mastercard), ("amex", .unknown)])
    func brands(brand: String, expected: CardScheme) async throws {
        let transport = ScriptedTransport([.json(200, Fixture.instrument(brand: brand))])
        #expect(
            try await Fixture.provider(transport).card(CardRef(id: "PI1"), context: OperationContext()).scheme
                == expected)
    }

    @Test(
        "form factor mapping",
        arguments: [("physical", CardType.physical), ("virtual", .virtual), ("unknown", .unknown)])
    func formFactors(formFactor: String, expected: CardType) async throws {
        let transport = ScriptedTransport([.json(200, Fixture.instrument(formFactor: formFactor))])
        #expect(
            try await Fixture.provider(transport).card(CardRef(id: "PI1"), context: OperationContext()).type == expected
        )
    }

    @Test(
        "expiry strings: valid, two-digit year, and malformed values",
        arguments: [
            ("12", "2030", CardExpiry?.some(CardExpiry(month: 12, year: 2030))),
            ("1", "29", CardExpiry(month: 1, year: 2029)),
            ("13", "2030", nil), ("ab", "2030", nil), ("05", "", nil),
        ])
    func expiry(month: String, year: String, expected: CardExpiry?) async throws {
        let transport = ScriptedTransport([.json(200, Fixture.instrument(month: month, year: year))])
        #expect(
            try await Fixture.provider(transport).card(CardRef(id: "PI1"), context: OperationContext()).expiry
                == expected)
    }

    @Test("a payment instrument without card (bankAccount) is not a card: invalidRequest")
    func bankAccount() async throws {
        let transport = ScriptedTransport([.json(200, Fixture.bankAccountInstrument)])
        let error = await gatewayError {
            _ = try await Fixture.provider(transport).card(
                CardRef(id: "PI32272223222B5CTCGQDNQX5"), context: OperationContext())
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("not a card") == true)
        #expect(error?.message.contains("bankAccount") == true)
        #expect(error?.provider == "adyen-eu")
        #expect(error?.description.contains("NL20ADYB2017000035") == false)
    }

    @Test("unknown fields are ignored; a missing id or a non-JSON body is invalidResponse")
    func decoding() async throws {
        let extra = ScriptedTransport([
            .json(
                200,
                "{\"id\": \"PI1\", \"type\": \"card\", \"futureField\": {\"x\": [1,2]}, \"status\": \"active\", \"card\": {\"brand\": \"visa\", \"newThing\": true}}"
            )
        ])
        #expect(try await Fixture.provider(extra).card(CardRef(id: "PI1"), context: OperationContext()).scheme == .visa)

        let missing = ScriptedTransport([.json(200, "{\"type\": \"card\", \"card\": {\"brand\": \"visa\"}}")])
        let missingError = await gatewayError {
            _ = try await Fixture.provider(missing).card(CardRef(id: "PI1"), context: OperationContext())
        }
        #expect(missingError?.code == .invalidResponse)
        #expect(missingError?.message.contains("id is missing") == true)

        let html = ScriptedTransport([
            .response(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>ok</html>".utf8))
        ])
        let htmlError = await gatewayError {
            _ = try await Fixture.provider(html).card(CardRef(id: "PI1"), context: OperationContext())
        }
        #expect(htmlError?.code == .invalidResponse)
    }

    @Test("ids are validated and escaped; nothing is sent for an invalid id")
    func idValidation() async throws {
        let transport = ScriptedTransport([])
        let provider = try Fixture.provider(transport)
        for bad in ["", "PI 1", "PI\n1", "PI/../x?y", "..", "%2e%2e", "PI#1", String(repeating: "P", count: 129)] {
            let error = await gatewayError {
                _ = try await provider.card(CardRef(id: bad), context: OperationContext())
            }
            #expect(error?.code == .invalidRequest)
            #expect(error?.fieldErrors.first?.field == "card.id")
        }
        #expect(transport.requestCount == 0)

        let escaped = ScriptedTransport([.json(200, Fixture.instrument())])
        _ = try await Fixture.provider(escaped).card(CardRef(id: "PI:1[2]"), context: OperationContext())
        #expect(escaped.requests.first?.path == "/bcl/v2/paymentInstruments/PI%3A1%5B2%5D")
    }
}
