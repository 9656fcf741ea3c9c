import CardGatewaySimulation
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// A faithful stand-in for the parts of Stripe's API that Issuing push provisioning uses: issuing cards and
/// cardholders, issuing tokens, ephemeral keys (with their one-hour lifetime on the ``SimulationClock`` and
/// revocation) and the push-provisioning details the mobile SDK fetches with them.
///
/// It speaks Stripe's wire format: `Authorization: Bearer sk_…` (or Basic with the key as user name),
/// form-encoded bodies with nested keys, pretty-printed JSON answers with Stripe's `object` names and id prefixes,
/// cursor-paged lists, Stripe's error shape, a `Request-Id` on every response, `livemode` from the key, and
/// idempotency as Stripe documents it (the first result for a key, a 500 included, is replayed with
/// `Idempotent-Replayed: true`; other parameters with the same key are an `idempotency_error`; keys are scoped per
/// API key). Stripe's official client libraries work against it with their base URL pointed at it.
///
/// State is shared by test and live keys; only `livemode` differs. The seed is documented in ``Seed`` and the
/// provider's README.
public struct StripeSimulator: ProviderSimulator {
    /// The keys the simulator accepts and the secret it signs webhooks with.
    public struct Credentials: Sendable, Equatable {
        /// Accepted as a test-mode secret key (`livemode: false`).
        public var testSecretKey: String
        /// Accepted as a live-mode secret key (`livemode: true`).
        public var liveSecretKey: String
        /// The webhook endpoint's signing secret.
        public var webhookSecret: String
        /// The signing secret of the synchronous endpoint that receives `issuing_authorization.request` (real-time
        /// authorizations): the integrator's `authorizationWebhookSecret`.
        public var authorizationWebhookSecret: String

        public init(
            testSecretKey: String, liveSecretKey: String, webhookSecret: String,
            authorizationWebhookSecret: String = Credentials.defaultAuthorizationWebhookSecret
        ) {
            self.testSecretKey = testSecretKey
            self.liveSecretKey = liveSecretKey
            self.webhookSecret = webhookSecret
            self.authorizationWebhookSecret = authorizationWebhookSecret
        }

        /// The seed's ``authorizationWebhookSecret``.
        public static let defaultAuthorizationWebhookSecret = "whsec_CardGatewaySimulatorAuthorizations00"

        public static let `default` = Credentials(
            testSecretKey: "sk_test_CardGatewaySimulator000000000000",
            liveSecretKey: "sk_live_CardGatewaySimulator000000000000",
            webhookSecret: "whsec_CardGatewaySimulatorSigningSecret00"
        )
    }

    public let credentials: Credentials
    let simulationClock: SimulationClock
    let cards: SimulatorStore<String, StripeSimulatorCard>
    let cardholders: SimulatorStore<String, StripeSimulatorCardholder>
    let tokens: SimulatorStore<String, StripeSimulatorToken>
    let ephemeralKeys: SimulatorStore<String, StripeSimulatorEphemeralKey>
    /// Real-time authorizations the simulated network asked about (StripeSimulatorAuthorizations.swift).
    let authorizations: SimulatorStore<String, StripeSimulatorAuthorization>
    let ledger: IdempotencyLedger
    let ids: DeterministicIDs
    let requestIDs: DeterministicIDs

    /// - Parameters:
    ///   - clock: the clock for creation times, key expiry and the 24 h `network_data` window.
    ///   - credentials: the accepted keys and the webhook secret.
    public init(clock: SimulationClock = SimulationClock(), credentials: Credentials = .default) {
        self.credentials = credentials
        self.simulationClock = clock
        self.cards = SimulatorStore(StripeSimulatorSeedData.cards())
        self.cardholders = SimulatorStore(StripeSimulatorSeedData.cardholders())
        self.tokens = SimulatorStore(StripeSimulatorSeedData.tokens())
        self.ephemeralKeys = SimulatorStore()
        self.authorizations = SimulatorStore()
        self.ledger = IdempotencyLedger(window: nil, clock: clock)
        self.ids = DeterministicIDs(seed: 0x5714_19E5)
        self.requestIDs = DeterministicIDs(seed: 0x4E9_1D5)
    }

    public var kindName: String { "stripe" }
    public var basePath: String { "" }
    public var clock: SimulationClock? { simulationClock }
    /// Request fields the journal masks: the Issuing Elements nonce (in the key request's form and the read's query) and
    /// a PIN change's `pin[encrypted_number]`.
    public var sensitiveBodyFields: Set<String> { ["nonce", "encryptednumber"] }

    public func reset() async {
        cards.reset(to: StripeSimulatorSeedData.cards())
        cardholders.reset(to: StripeSimulatorSeedData.cardholders())
        tokens.reset(to: StripeSimulatorSeedData.tokens())
        ephemeralKeys.reset(to: [])
        authorizations.reset(to: [])
        ledger.reset()
        ids.reset()
        requestIDs.reset()
    }

    // MARK: Routes

    enum Route: Sendable {
        case createEphemeralKey, deleteEphemeralKey
        case listCards, createCard, retrieveCard, updateCard, pushProvisioningDetails
        case listCardholders, retrieveCardholder
        case listTokens, retrieveToken, updateToken
    }

    public func registerRoutes(on router: Router<SimulatorContext>) {
        router.post("/v1/ephemeral_keys") { request, context in
            await self.respond(request, context, .createEphemeralKey)
        }
        router.delete("/v1/ephemeral_keys/:id") { request, context in
            await self.respond(request, context, .deleteEphemeralKey)
        }
        router.get("/v1/issuing/cards") { request, context in await self.respond(request, context, .listCards) }
        router.post("/v1/issuing/cards") { request, context in await self.respond(request, context, .createCard) }
        router.get("/v1/issuing/cards/:id") { request, context in await self.respond(request, context, .retrieveCard) }
        router.post("/v1/issuing/cards/:id") { request, context in await self.respond(request, context, .updateCard) }
        router.get("/v1/issuing/cards/:id/push_provisioning_details") { request, context in
            await self.respond(request, context, .pushProvisioningDetails)
        }
        router.get("/v1/issuing/cardholders") { request, context in
            await self.respond(request, context, .listCardholders)
        }
        router.get("/v1/issuing/cardholders/:id") { request, context in
            await self.respond(request, context, .retrieveCardholder)
        }
        router.get("/v1/issuing/tokens") { request, context in await self.respond(request, context, .listTokens) }
        router.get("/v1/issuing/tokens/:id") { request, context in await self.respond(request, context, .retrieveToken)
        }
        router.post("/v1/issuing/tokens/:id") { request, context in await self.respond(request, context, .updateToken) }
    }

    private func respond(_ request: Request, _ context: SimulatorContext, _ route: Route) async -> SimulatedResponse {
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        let method = request.method.rawValue
        let params =
            method == "POST"
            ? SimulatorHTTP.formFields(context.requestBody) : SimulatorHTTP.queryItems(request.uri.query)
        let call = StripeSimulatorCall(
            method: method, path: request.uri.path, id: context.parameters.get("id"), headers: headers,
            params: StripeSimulatorParams(params)
        )
        return handle(call, route: route)
    }

    func jsonResponse(_ status: Int, _ json: StripeSimulatorJSON) -> SimulatedResponse {
        SimulatedResponse(status: status, headers: [("Content-Type", "application/json")], body: json.data)
    }
}
