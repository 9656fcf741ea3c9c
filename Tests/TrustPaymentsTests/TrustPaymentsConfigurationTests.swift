@_spi(AdapterSupport) import CardGateway
@_spi(AdapterSupport) import CardGatewayTesting
import CardGatewayTrustPayments
import Foundation
import Testing

@Suite("Trust Payments configuration", .timeLimit(.minutes(5)))
struct ConfigurationTests {
    @Test("the factory publishes the documented kind, environments, credentials and options")
    func factory() {
        let factory = ProviderFactory.trustpayments
        #expect(factory.kind == .trustpayments)
        #expect(factory.kind.name == "trustpayments")
        #expect(factory.descriptor.capabilities == [.storedCredentials])
        #expect(factory.descriptor.provisioningFlows.isEmpty)
        #expect(factory.environments["sandbox"]?.absoluteString == "https://webservices.securetrading.net")
        #expect(factory.environments["live"]?.absoluteString == "https://webservices.securetrading.net")
        #expect(factory.environments["sandbox-us"]?.absoluteString == "https://webservices.securetrading.us")
        #expect(factory.environments["live-us"]?.absoluteString == "https://webservices.securetrading.us")
        #expect(factory.environments.count == 4)
        #expect(
            factory.credentials.map(\.name) == [
                "webservicesUsername", "webservicesPassword", "jwtUsername", "jwtSecret",
            ])
        let allRequired = factory.credentials.allSatisfy { $0.required }
        #expect(allRequired)
        #expect(factory.options.map(\.name) == ["siteReference", "jwtMaxAgeSeconds"])
        #expect(factory.options.first { $0.name == "siteReference" }?.required == true)
        #expect(factory.options.first { $0.name == "jwtMaxAgeSeconds" }?.type == .integer)
        #expect(factory.options.first { $0.name == "jwtMaxAgeSeconds" }?.required == false)
    }

    static let document = """
        {
          "providers": {
            "tp-eu": {
              "kind": "trustpayments", "environment": "sandbox-us",
              "credentials": {
                "webservicesUsername": "literal:ws@merchant.test", "webservicesPassword": "literal:pw",
                "jwtUsername": "literal:jwt.user", "jwtSecret": "literal:secret"
              },
              "options": { "siteReference": "test_site12345", "jwtMaxAgeSeconds": 300 }
            }
          },
          "routes": [ { "when": { "operation": ["clientSession", "verifyResult", "charge"] }, "use": "tp-eu" } ]
        }
        """

    @Test("a configuration document loads and builds the adapter")
    func loads() throws {
        var registry = ProviderRegistry()
        registry.register(.trustpayments)
        let configuration = try GatewayConfiguration.load(from: Data(Self.document.utf8), registry: registry)
        let instance = try #require(configuration.providers["tp-eu"])
        #expect(instance.baseURL.absoluteString == "https://webservices.securetrading.us")
        let gateway = try CardGateway(
            configuration: configuration, registry: registry, transport: ScriptedTransport([]))
        let provider = try #require(gateway.instance(named: "tp-eu")?.provider as? TrustPaymentsProvider)
        #expect(provider.siteReference == "test_site12345")
        #expect(provider.jwtMaxAge == 300)
    }

    @Test("missing site reference, missing credentials and a bad max age are reported with their paths")
    func problems() throws {
        var registry = ProviderRegistry()
        registry.register(.trustpayments)
        let bad = """
            {"providers": {"tp": {"kind": "trustpayments", "environment": "sandbox",
              "credentials": {"webservicesUsername": "literal:ws"},
              "options": {"jwtMaxAgeSeconds": "soon"}}}, "routes": []}
            """
        do {
            _ = try GatewayConfiguration.load(from: Data(bad.utf8), registry: registry)
            Issue.record("expected a configuration error")
        } catch let error as CardGatewayError {
            #expect(error.code == .invalidConfiguration)
            let paths = Set(error.configurationProblems.map(\.path))
            #expect(
                paths.isSuperset(of: [
                    "providers.tp.credentials.webservicesPassword", "providers.tp.credentials.jwtUsername",
                    "providers.tp.credentials.jwtSecret",
                    "providers.tp.options.siteReference", "providers.tp.options.jwtMaxAgeSeconds",
                ]))
        }
    }

    @Test("building directly refuses a missing credential, a missing site or a non-positive max age")
    func directBuild() throws {
        let http = try ProviderHTTPClient.testing(
            kind: .trustpayments, baseURL: Fixture.baseURL, transport: ScriptedTransport([]))
        var missingSecret = Fixture.configuration()
        missingSecret.credentials.removeValue(forKey: "jwtSecret")
        var noSite = Fixture.configuration()
        noSite.options.removeValue(forKey: "siteReference")
        let zeroAge = Fixture.configuration(options: ["jwtMaxAgeSeconds": .number(0)])
        for configuration in [missingSecret, noSite, zeroAge] {
            let setup = ProviderSetup(
                configuration: configuration, http: http, logger: OperationContext.noopLogger,
                credentialStore: InMemoryCredentialReferenceStore())
            #expect(throws: CardGatewayError.self) { _ = try TrustPaymentsProvider(setup: setup) }
            do { _ = try TrustPaymentsProvider(setup: setup) } catch let error as CardGatewayError {
                #expect(error.code == .invalidConfiguration)
                #expect(!error.description.contains(Fixture.jwtSecret))
            }
        }
    }

    @Test("through the gateway, verification stores the credential with the instance and the customer")
    func gatewayVerify() async throws {
        var registry = ProviderRegistry()
        registry.register(.trustpayments)
        let configuration = try GatewayConfiguration.load(from: Data(Self.document.utf8), registry: registry)
        let store = InMemoryCredentialReferenceStore()
        let gateway = try CardGateway(
            configuration: configuration, registry: registry, transport: ScriptedTransport([]), credentialStore: store,
            now: { Fixture.now })
        let token = try IndependentJWT.response(
            elements: [IndependentJWT.accountCheck(reference: "7-7-7")], aud: "jwt.user", secret: "secret")
        let credential = try await gateway.verifyResult(Secret(token), customer: "cus_42", via: .instance("tp-eu"))
        #expect(credential.provider == "tp-eu")
        #expect(credential.customer == "cus_42")
        #expect(try await store.credentials(customer: "cus_42").map(\.reference) == ["7-7-7"])

        let session = try await gateway.clientSession(
            ClientSessionRequest(
                intent: .reuse(reference: "7-7-7"), amount: Money(minorUnits: 500, currency: "USD"), customer: "cus_42"),
            via: .instance("tp-eu")
        )
        #expect(session.securityCodeLength == 3)
    }
}
