import AdyenSimulator
import BridgeSimulator
import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import Foundation
import LithicSimulator
import Logging
import MarqetaSimulator
import PaysafeSimulator
import StripeSimulator
import TrustPaymentsSimulator

/// The six provider simulators the example programs run in-process, and the gateway configuration that points
/// one instance of each adapter at them.
///
/// ```swift
/// try await EmbeddedSimulators().run { running in
///     let gateway = try running.gateway()
///     let card = try await gateway.card(CardRef(id: "ic_1SimActiveEligible000000"), via: .key(RouteKey(issuer: "stripe-us")))
/// }
/// ```
public struct EmbeddedSimulators: Sendable {
    /// The provider instance names in the built-in configuration.
    public enum Instance: Sendable {
        /// Paysafe card service (kind `paysafe`), routed by `issuer = paysafe-eu` or by a Paysafe program.
        public static let paysafe = "eu-cards"
        /// Adyen Issuing (kind `adyen`), routed by `issuer = adyen-bank`.
        public static let adyen = "adyen-issuing"
        /// Stripe Issuing (kind `stripe`), routed by `issuer = stripe-us`.
        public static let stripe = "us-issuing"
        /// Bridge cards (kind `bridge`), routed by `issuer = bridge`.
        public static let bridge = "bridge-cards"
        /// Trust Payments credentials on file (kind `trustpayments`), routed by operation.
        public static let trustPayments = "cards-on-file"
        /// Marqeta cards (kind `marqeta`), routed by `issuer = marqeta`.
        public static let marqeta = "marqeta-cards"
        /// Lithic cards (kind `lithic`), routed by `issuer = lithic`.
        public static let lithic = "lithic-cards"
    }

    /// The route keys of the built-in configuration.
    public enum Issuer: Sendable {
        public static let paysafe = "paysafe-eu"
        public static let adyen = "adyen-bank"
        public static let stripe = "stripe-us"
        public static let bridge = "bridge"
        public static let marqeta = "marqeta"
        public static let lithic = "lithic"
    }

    public let paysafe: PaysafeSimulator
    public let adyen: AdyenSimulator
    public let stripe: StripeSimulator
    public let bridge: BridgeSimulator
    public let trustPayments: TrustPaymentsSimulator
    public let marqeta: MarqetaSimulator
    public let lithic: LithicSimulator

    /// Fresh simulators holding their documented seed data, each on the real clock.
    public init() {
        self.paysafe = PaysafeSimulator()
        self.adyen = AdyenSimulator()
        self.stripe = StripeSimulator()
        self.bridge = BridgeSimulator()
        self.trustPayments = TrustPaymentsSimulator()
        self.marqeta = MarqetaSimulator()
        self.lithic = LithicSimulator()
    }

    /// All seven, in the order they are started and listed: Paysafe, Adyen, Stripe, Bridge, Trust Payments, Marqeta,
    /// Lithic.
    public var all: [any ProviderSimulator] { [paysafe, adyen, stripe, bridge, trustPayments, marqeta, lithic] }

    /// Runs the six simulators on ephemeral loopback ports for the duration of `body`, then stops them.
    public func run<R: Sendable>(
        host: String = "127.0.0.1", logger: Logger? = nil, _ body: (RunningSimulators) async throws -> R
    ) async throws -> R {
        try await withSimulators(all, host: host, logger: logger) { handles in
            try await body(RunningSimulators(simulators: self, handles: handles))
        }
    }

    /// The gateway configuration (the JSON document `GatewayConfiguration.load` reads) for simulators listening
    /// at `handles`: one instance per provider with the simulators' own credentials as `literal:` references,
    /// and routes by operation, issuer and program.
    ///
    /// `literal:` secrets are for simulators and tests only; a real configuration names `env:` or `file:`
    /// references instead.
    public func configurationJSON(handles: [SimulatorHandle]) throws -> Data {
        func baseURL(_ kind: String) throws -> String {
            guard let handle = handles.first(where: { $0.kindName == kind }) else {
                throw CardGatewayError(.invalidConfiguration, "no running simulator for \(kind)")
            }
            return handle.baseURL.absoluteString
        }
        func literal(_ value: String) -> String { "literal:" + value }
        let paysafeCredentials = PaysafeSimulator.Credentials.default
        let stripeCredentials = StripeSimulator.Credentials.default
        typealias TP = TrustPaymentsSimulator.Seed
        var providers: [String: Any] = [
            Instance.paysafe: [
                "kind": "paysafe", "environment": "sandbox", "baseURL": try baseURL("paysafe"),
                "description": "Paysafe card service: EEA programmes",
                "credentials": [
                    "clientID": literal(paysafeCredentials.clientID),
                    "clientSecret": literal(paysafeCredentials.clientSecret),
                    "webhookSecret": literal(paysafeCredentials.webhookSecret),
                ],
                "options": ["brand": paysafeCredentials.brand, "region": "ROW"],
            ],
            Instance.adyen: [
                "kind": "adyen", "environment": "sandbox", "baseURL": try baseURL("adyen"),
                "description": "Adyen Issuing on the Balance Platform",
                "credentials": [
                    "apiKey": literal(AdyenSimulator.Credentials.apiKey),
                    "hmacKey": literal(AdyenSimulator.Credentials.hmacKeyHex),
                ],
            ],
            Instance.stripe: [
                "kind": "stripe", "environment": "sandbox", "baseURL": try baseURL("stripe"),
                "description": "Stripe Issuing, test mode",
                "credentials": [
                    "secretKey": literal(stripeCredentials.testSecretKey),
                    "webhookSecret": literal(stripeCredentials.webhookSecret),
                ],
            ],
            Instance.bridge: [
                "kind": "bridge", "environment": "sandbox", "baseURL": try baseURL("bridge"),
                "description": "Bridge cards",
                "credentials": [
                    "apiKey": literal(BridgeSimulator.Seed.apiKey),
                    "webhookPublicKey": literal(bridge.webhookPublicKeyPEM),
                ],
            ],
            Instance.trustPayments: [
                "kind": "trustpayments", "environment": "sandbox", "baseURL": try baseURL("trustpayments"),
                "description": "Trust Payments credentials on file",
                "credentials": [
                    "webservicesUsername": literal(TP.webservicesUsername),
                    "webservicesPassword": literal(TP.webservicesPassword),
                    "jwtUsername": literal(TP.jwtUsername), "jwtSecret": literal(TP.jwtSecret),
                ],
                "options": ["siteReference": TP.siteReference],
            ],
            Instance.marqeta: [
                "kind": "marqeta", "environment": "sandbox", "baseURL": try baseURL("marqeta"),
                "description": "Marqeta cards (Core API)",
                "credentials": [
                    "applicationToken": literal(MarqetaSimulator.Seed.applicationToken),
                    "accessToken": literal(MarqetaSimulator.Seed.accessToken),
                    "webhookUsername": literal(MarqetaSimulator.Seed.webhookUsername),
                    "webhookPassword": literal(MarqetaSimulator.Seed.webhookPassword),
                    "webhookSecret": literal(MarqetaSimulator.Seed.webhookSecret),
                ],
                "options": ["provisioningAppVersion": "cardgateway-examples 1.0", "deviceType": "MOBILE_PHONE"],
            ],
            Instance.lithic: [
                "kind": "lithic", "environment": "sandbox", "baseURL": try baseURL("lithic"),
                "description": "Lithic cards",
                "credentials": [
                    "apiKey": literal(LithicSimulator.Seed.apiKey),
                    "webhookSecret": literal(LithicSimulator.Seed.webhookSecret),
                ],
                "options": ["embedTargetOrigin": "https://cardholder.example"],
            ],
        ]
        // Real-time authorizations (issue 47): the credentials each simulator's network sends, and a budget well
        // inside every provider's deadline, for each adapter that answers them.
        let authorizationCredentials: [(instance: String, kind: String, credentials: [String: String])] = [
            (Instance.stripe, "stripe", ["authorizationWebhookSecret": stripeCredentials.authorizationWebhookSecret]),
            (
                Instance.adyen, "adyen",
                [
                    "authorizationUsername": adyen.relayedAuthorisation.username,
                    "authorizationPassword": adyen.relayedAuthorisation.password,
                ]
            ),
            (
                Instance.marqeta, "marqeta",
                [
                    "authorizationUsername": MarqetaSimulator.Seed.authorizationUsername,
                    "authorizationPassword": MarqetaSimulator.Seed.authorizationPassword,
                ]
            ),
            (Instance.lithic, "lithic", ["asaSecret": LithicSimulator.Seed.asaSecret]),
        ]
        for entry in authorizationCredentials where Self.answersAuthorizations(entry.kind) {
            guard var instance = providers[entry.instance] as? [String: Any],
                var credentials = instance["credentials"] as? [String: String]
            else { continue }
            for (name, value) in entry.credentials { credentials[name] = literal(value) }
            instance["credentials"] = credentials
            instance["authorizations"] = ["standIn": "decline", "budgetMilliseconds": 1000]
            providers[entry.instance] = instance
        }
        typealias PaysafeSeed = PaysafeSimulator.Seed
        let routes: [[String: Any]] = [
            ["when": ["operation": ["clientSession", "verifyResult", "charge"]], "use": Instance.trustPayments],
            ["when": ["issuer": Issuer.paysafe], "use": Instance.paysafe],
            [
                "when": [
                    "program": [
                        PaysafeSeed.virtualMCProgram, PaysafeSeed.physicalMCProgram, PaysafeSeed.physicalVisaProgram,
                    ]
                ],
                "use": Instance.paysafe,
            ],
            ["when": ["issuer": Issuer.adyen], "use": Instance.adyen],
            ["when": ["issuer": Issuer.stripe], "use": Instance.stripe],
            ["when": ["issuer": Issuer.bridge], "use": Instance.bridge],
            ["when": ["issuer": Issuer.marqeta], "use": Instance.marqeta],
            ["when": ["issuer": Issuer.lithic], "use": Instance.lithic],
        ]
        return try JSONSerialization.data(
            withJSONObject: [
                "providers": providers, "routes": routes,
                "authorizationRules": [
                    ["name": "no gambling", "merchantCategories": ["7995"], "reason": "merchantCategoryBlocked"]
                ],
            ],
            options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        )
    }
}

extension EmbeddedSimulators {
    /// Whether the example registry's adapter of `kind` answers real-time authorizations.
    public static func answersAuthorizations(_ kind: String) -> Bool {
        ExampleRegistry.all.factory(for: ProviderKind(kind))?.descriptor.capabilities.contains(.authorizations) == true
    }
}

/// The embedded simulators while they listen: their handles, and the gateway configured for them.
public struct RunningSimulators: Sendable {
    public let simulators: EmbeddedSimulators
    /// In the order of ``EmbeddedSimulators/all``.
    public let handles: [SimulatorHandle]

    public init(simulators: EmbeddedSimulators, handles: [SimulatorHandle]) {
        self.simulators = simulators
        self.handles = handles
    }

    /// The running simulator of a provider kind (`"paysafe"`, `"adyen"`, `"stripe"`, `"bridge"`, `"trustpayments"`, `"marqeta"`, `"lithic"`).
    public func handle(_ kind: String) -> SimulatorHandle? { handles.first { $0.kindName == kind } }

    /// ``EmbeddedSimulators/configurationJSON(handles:)`` for these handles.
    public func configurationJSON() throws -> Data { try simulators.configurationJSON(handles: handles) }

    /// The configuration, loaded and validated the way any configuration file is.
    public func configuration() throws -> GatewayConfiguration {
        try GatewayConfiguration.load(from: try configurationJSON(), registry: ExampleRegistry.all)
    }

    /// A gateway over the six simulators.
    public func gateway(
        transport: any HTTPTransport = AsyncHTTPClientTransport(), logger: Logger = OperationContext.noopLogger,
        credentialStore: any CredentialReferenceStore = InMemoryCredentialReferenceStore(),
        observability: GatewayObservability = .bootstrapped
    ) throws -> CardGateway {
        try CardGateway(
            configuration: try configuration(), registry: ExampleRegistry.all, transport: transport, logger: logger,
            credentialStore: credentialStore,
            observability: observability
        )
    }
}
