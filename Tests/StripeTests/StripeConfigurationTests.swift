@_spi(AdapterSupport) import CardGateway
@_spi(AdapterSupport) import CardGatewayTesting
import Foundation
import Testing

@testable import CardGatewayStripe

@Suite("Stripe configuration and factory", .timeLimit(.minutes(5)))
struct StripeConfigurationTests {
    @Test func factoryPublishesKindEnvironmentsCredentialsAndOptions() {
        let factory = ProviderFactory.stripe
        #expect(factory.kind == ProviderKind("stripe"))
        #expect(
            factory.environments == [
                "sandbox": URL(string: "https://api.stripe.com")!, "live": URL(string: "https://api.stripe.com")!,
            ])
        #expect(
            factory.credentials.map(\.name) == [
                "secretKey", "webhookSecret", "previousWebhookSecret", "authorizationWebhookSecret",
            ])
        #expect(factory.credentials.map(\.required) == [true, false, false, false])
        #expect(factory.options.map(\.name) == ["stripeAccount", "apiVersion"])
        #expect(factory.options.allSatisfy { $0.type == .string && !$0.required })
        #expect(
            factory.descriptor.capabilities == [
                .cardLookup, .cardListing, .cardIssuance, .cardLocking, .cardCancellation, .walletTokenListing,
                .walletTokenControl,
                .walletProvisioning, .cardDetailsReveal, .pinReveal, .pinChange, .webhooks, .authorizations,
            ])
        #expect(factory.descriptor.provisioningFlows == [.applePay: .issuerSDKKey, .googlePay: .issuerSDKKey])
        #expect(factory.descriptor.supports(.listCards))
        #expect(!factory.descriptor.supports(.activateCard))
        #expect(!factory.descriptor.supports(.setCardPIN))
        #expect(!factory.descriptor.supports(.programs))
    }

    private func load(_ environment: String, key: String, extra: String = "") throws -> CardGateway {
        var registry = ProviderRegistry()
        registry.register(.stripe)
        let json = """
            {"providers":{"stripe-us":{"kind":"stripe","environment":"\(environment)",
              "credentials":{"secretKey":"env:STRIPE_KEY"\(extra)}}},
             "routes":[{"when":{"issuer":"stripe"},"use":"stripe-us"}]}
            """
        let secrets = SecretResolver(environment: [
            "STRIPE_KEY": key, "STRIPE_WHSEC": "whsec_abc", "BAD_WHSEC": "sk_test_notawebhooksecret",
        ])
        let configuration = try GatewayConfiguration.load(from: Data(json.utf8), registry: registry, secrets: secrets)
        return try CardGateway(configuration: configuration, registry: registry, transport: ScriptedTransport([]))
    }

    @Test func configurationLoadsAMatchingKey() throws {
        let sandbox = try load("sandbox", key: "sk_test_123456789")
        #expect(sandbox.instance(named: "stripe-us")?.descriptor.kind == .stripe)
        let live = try load("live", key: "sk_live_123456789", extra: #","webhookSecret":"env:STRIPE_WHSEC""#)
        #expect(live.instance(named: "stripe-us") != nil)
        _ = try load("live", key: "rk_live_123456789")
    }

    @Test func liveKeyInSandboxIsRefusedWithoutShowingTheKey() {
        let key = "sk_live_SuperSecretLiveKey123"
        var thrown: (any Error)?
        do { _ = try load("sandbox", key: key) } catch { thrown = error }
        let error = thrown as? CardGatewayError
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.fieldErrors.map(\.field) == ["providers.stripe-us.credentials.secretKey"])
        #expect(error.map { !$0.description.contains(key) } == true)
    }

    @Test func testKeyInLiveIsRefused() {
        var thrown: (any Error)?
        do { _ = try load("live", key: "sk_test_123456789") } catch { thrown = error }
        #expect((thrown as? CardGatewayError)?.code == .invalidConfiguration)
        #expect(
            (thrown as? CardGatewayError)?.configurationProblems.contains { $0.message.contains("test-mode key") }
                == true)
    }

    @Test func webhookSecretMustBeAWhsec() {
        var thrown: (any Error)?
        do { _ = try load("sandbox", key: "sk_test_123456789", extra: #","webhookSecret":"env:BAD_WHSEC""#) } catch {
            thrown = error
        }
        let error = thrown as? CardGatewayError
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.fieldErrors.map(\.field) == ["providers.stripe-us.credentials.webhookSecret"])
        #expect(error.map { !$0.description.contains("sk_test_notawebhooksecret") } == true)
    }

    @Test(
        arguments: [
            ("pk_test_123456789", nil, nil, ["credentials.secretKey"]),
            ("whatever", nil, nil, ["credentials.secretKey"]),
            ("sk_test_123456789", "acct_", nil, ["options.stripeAccount"]),
            ("sk_test_123456789", "cus_123", nil, ["options.stripeAccount"]),
            ("sk_test_123456789", nil, "latest", ["options.apiVersion"]),
            ("sk_test_123456789", nil, "2020-13-01", ["options.apiVersion"]),
            ("pk_live_123", "x", "y", ["credentials.secretKey", "options.stripeAccount", "options.apiVersion"]),
        ] as [(String, String?, String?, [String])])
    func problemsNameEveryField(key: String, account: String?, version: String?, fields: [String]) {
        let configuration = StripeConfiguration(secretKey: Secret(key), stripeAccount: account, apiVersion: version)
        #expect(configuration.problems(environment: nil).map(\.field) == fields)
    }

    @Test func validOptionsAndUnknownEnvironmentModes() {
        let configuration = StripeConfiguration(
            secretKey: Secret("sk_live_123456789"), webhookSecret: Secret("whsec_1"),
            previousWebhookSecret: Secret("whsec_0"),
            stripeAccount: "acct_1Abc", apiVersion: "2025-03-31.basil"
        )
        #expect(configuration.problems(environment: nil).isEmpty)
        #expect(configuration.problems(environment: "live").isEmpty)
        #expect(configuration.isLiveMode == true)
        #expect(!configuration.description.contains("sk_live_123456789"))
        #expect(StripeConfiguration(secretKey: Secret("sk_test_x1234567")).isLiveMode == false)
    }

    @Test(arguments: [
        ("2020-08-27", true), ("2026-10-28.endive", true), ("2025-03-31.basil", true), ("2024-06-20", true),
        ("", false), ("2020-8-27", false), ("20-08-27", false), ("2020-08-27.", false), ("2020-00-10", false),
        ("2020-08-32", false), ("2020-08-27 ", false), ("2020-08-27.a b", false), ("2020-08-27; issuing_beta=v2", true),
        ("2024-09-30.acacia; issuing_push_beta=v1;  other_beta=v3", true), ("2020-08-27;", false),
        ("2020-08-27; beta", false),
        ("2020-08-27; beta=v1\r\nX-Injected: 1", false), ("2020-08-27\n", false), ("2020-08-27; =v1", false),
        ("latest", false),
    ])
    func apiVersionShape(version: String, valid: Bool) {
        #expect(StripeAPIVersion.isValid(version) == valid)
    }

    @Test func makeThroughTheFactoryConfiguresTheClient() throws {
        let transport = ScriptedTransport([])
        let http = try ProviderHTTPClient.testing(
            instance: "s", kind: .stripe, baseURL: Fixture.baseURL, transport: transport)
        let setup = ProviderSetup(
            configuration: ProviderInstanceConfiguration(
                name: "s", kind: .stripe, environment: "sandbox", baseURL: Fixture.baseURL,
                credentials: ["secretKey": Secret("sk_test_123456789")], options: ["apiVersion": .string("2024-06-20")]
            ),
            http: http, logger: OperationContext.noopLogger, credentialStore: InMemoryCredentialReferenceStore()
        )
        let provider = try ProviderFactory.stripe.make(setup)
        #expect(provider is StripeProvider)
        #expect(provider.descriptor == StripeProvider.descriptor)
    }
}
