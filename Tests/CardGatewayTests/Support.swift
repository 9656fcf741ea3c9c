import CardGateway
import Foundation

/// A provider that records calls and answers from canned values, for facade and configuration tests.
struct FakeProvider: CardLookup, WalletProvisioning, StoredCredentials, WebhookVerifying {
    let descriptor: ProviderDescriptor

    func card(_ ref: CardRef, context: OperationContext) async throws -> Card {
        if ref.id == "missing" { throw CardGatewayError(.notFound, "no such card") }
        if ref.id == "odd" { throw CocoaError(.featureUnsupported) }
        return Card(ref: ref, status: .active, providerStatus: "ACTIVE", scheme: .visa, lastFour: "4242")
    }

    func offer(for card: CardRef, wallet: Wallet, context: OperationContext) async throws -> ProvisioningOffer {
        ProvisioningOffer(card: card, wallet: wallet, eligible: true, flow: nil, network: .visa)
    }

    func provision(_ request: ProvisioningRequest, context: OperationContext) async throws -> ProvisioningResponse {
        .issuerSDKInput(SensitiveData(Data([1, 2, 3])))
    }

    func confirm(_ confirmation: ProvisioningConfirmation, context: OperationContext) async throws {}

    func clientSession(_ request: ClientSessionRequest, context: OperationContext) async throws -> ClientSession {
        ClientSession(token: Secret("jwt.session.token"), issuedAt: Date(timeIntervalSince1970: 0))
    }

    func verifyResult(_ token: Secret, context: OperationContext) async throws -> StoredCredential {
        StoredCredential(
            reference: "1-2-3", maskedPAN: "411111######1111", brand: "VISA", scheme: .visa,
            created: Date(timeIntervalSince1970: 0))
    }

    func charge(_ request: ChargeRequest, context: OperationContext) async throws -> ChargeResult {
        if request.reference == "odd" { throw CocoaError(.featureUnsupported) }
        return ChargeResult(
            transactionReference: "1-2-4", parentReference: request.reference, status: .authorised,
            amount: request.amount, authCode: nil, providerStatus: "0")
    }

    func verify(_ delivery: WebhookDelivery, now: Date) throws -> [GatewayEvent] {
        throw CardGatewayError.signatureInvalid("bad signature")
    }
}

enum TestFactories {
    static let issuerKind = ProviderKind("alpha")
    static let credentialKind = ProviderKind("beta")

    static var issuer: ProviderFactory {
        let descriptor = ProviderDescriptor(
            kind: issuerKind, capabilities: [.cardLookup, .walletProvisioning, .webhooks],
            provisioningFlows: [.applePay: .issuerSDKRelay, .googlePay: .issuerSDKRelay]
        )
        return ProviderFactory(
            kind: issuerKind, descriptor: descriptor,
            environments: [
                "sandbox": URL(string: "https://sandbox.alpha.example/v1")!,
                "live": URL(string: "https://api.alpha.example/v1")!,
            ],
            credentials: [CredentialSpec("apiKey"), CredentialSpec("webhookSecret", required: false)],
            options: [
                OptionSpec("region", type: .string, allowedValues: ["EU", "US"]), OptionSpec("verbose", type: .bool),
                OptionSpec("retries", type: .integer),
            ]
        ) { _ in FakeProvider(descriptor: descriptor) }
    }

    static var credentials: ProviderFactory {
        let descriptor = ProviderDescriptor(kind: credentialKind, capabilities: [.storedCredentials])
        return ProviderFactory(
            kind: credentialKind, descriptor: descriptor,
            environments: ["sandbox": URL(string: "https://beta.example")!],
            credentials: [CredentialSpec("username"), CredentialSpec("password")],
            options: [OptionSpec("site", type: .string, required: true)]
        ) { _ in FakeProvider(descriptor: descriptor) }
    }

    static var registry: ProviderRegistry { ProviderRegistry([issuer, credentials]) }

    static let environment = [
        "ALPHA_KEY": "alpha-secret-key-123", "BETA_USER": "beta-user", "BETA_PASS": "beta-password-456",
    ]

    static func load(
        _ json: String, environment: [String: String] = TestFactories.environment
    ) throws -> GatewayConfiguration {
        try GatewayConfiguration.load(
            from: Data(json.utf8), registry: registry, secrets: SecretResolver(environment: environment))
    }

    /// The problems a document produces (empty when it loads).
    static func problems(
        _ json: String, environment: [String: String] = TestFactories.environment
    ) -> [ConfigurationProblem] {
        do {
            _ = try load(json, environment: environment)
            return []
        } catch let error as CardGatewayError where error.code == .invalidConfiguration {
            return error.configurationProblems
        } catch {
            return [ConfigurationProblem(path: "?", message: "\(error)")]
        }
    }

    static let validDocument = """
        {
          "providers": {
            "eu-cards": { "kind": "alpha", "environment": "sandbox",
                          "credentials": { "apiKey": "env:ALPHA_KEY" }, "options": { "region": "EU" }, "timeoutSeconds": 5 },
            "us-cards": { "kind": "alpha", "baseURL": "http://127.0.0.1:9999/v1",
                          "credentials": { "apiKey": "literal:us-literal-key-789" } },
            "on-file":  { "kind": "beta", "environment": "sandbox",
                          "credentials": { "username": "env:BETA_USER", "password": "env:BETA_PASS" }, "options": { "site": "test_site1" } }
          },
          "routes": [
            { "when": { "operation": ["clientSession", "verifyResult", "charge"] }, "use": "on-file" },
            { "when": { "program": ["EU-VIRTUAL", "EU-PHYSICAL"] }, "use": "eu-cards" },
            { "when": { "issuer": "us-bank", "bin": ["44000000-44009999", "510510"] }, "use": "us-cards" },
            { "when": { "country": "DE", "currency": "EUR" }, "use": "eu-cards" },
            { "when": {}, "use": "eu-cards" }
          ]
        }
        """
}
