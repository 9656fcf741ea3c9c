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

    /// The documented seed data.
    public enum Seed: Sendable {
        /// Jenny Rosen, with email and phone number.
        public static let cardholderID = "ich_1SimJennyRosen000000000"
        /// A cardholder with neither email nor phone number.
        public static let cardholderWithoutContactID = "ich_1SimNoContact0000000000"

        /// Active virtual Visa …4242, exp 08/2030, Apple Pay and Google Pay eligible, with a primary account
        /// identifier and tokens in every status.
        public static let activeCardID = "ic_1SimActiveEligible000000"
        public static let primaryAccountIdentifier = "V-3020110000000000004242"
        /// Active physical MasterCard …4444, exp 11/2031, both wallets eligible, `primary_account_identifier` null.
        public static let activeCardWithoutPrimaryAccountIdentifierID = "ic_1SimActiveNoPAI000000000"
        /// Inactive physical Visa …0005.
        public static let inactiveCardID = "ic_1SimInactive00000000000"
        /// Canceled virtual Visa …0077, `cancellation_reason` lost.
        public static let canceledCardID = "ic_1SimCanceledLost0000000"
        /// Active Visa …1111, both wallets ineligible: missing_agreement.
        public static let missingAgreementCardID = "ic_1SimMissingAgreement000"
        /// Active Visa …2222 of the cardholder without contact, both wallets ineligible: missing_cardholder_contact.
        public static let missingCardholderContactCardID = "ic_1SimMissingContact00000"
        /// Active MasterCard …3333 (eur), Apple Pay ineligible: unsupported_region; Google Pay eligible.
        public static let unsupportedRegionCardID = "ic_1SimUnsupportedRegion00"
        /// Active Visa …9995 whose writes (ephemeral keys, updates) fail inside Stripe with 500 api_error; the
        /// failure is saved under the idempotency key and replayed.
        public static let internalErrorCardID = "ic_1SimInternalError000000"

        /// Tokens of ``activeCardID``.
        public static let activeApplePayTokenID = "intok_1SimApplePayActive000"
        public static let suspendedGooglePayTokenID = "intok_1SimGooglePaySuspend0"
        public static let deletedApplePayTokenID = "intok_1SimApplePayDeleted00"
        public static let requestedGooglePayTokenID = "intok_1SimGooglePayRequest0"
        public static let activeSamsungPayTokenID = "intok_1SimSamsungPayActive0"
        /// Active Google Pay token of ``unsupportedRegionCardID``.
        public static let unsupportedRegionGooglePayTokenID = "intok_1SimRegionGoogleActiv"

        /// The only connected account accepted in `Stripe-Account`.
        public static let connectedAccountID = "acct_1SimConnected00000000"
        /// The version answered when a request sends no `Stripe-Version`.
        public static let accountAPIVersion = "2024-06-20"
        /// Ephemeral keys live this long.
        public static let ephemeralKeyLifetime: TimeInterval = 3600
    }

    public let credentials: Credentials
    let simulationClock: SimulationClock
    let cards: SimulatorStore<String, SimCard>
    let cardholders: SimulatorStore<String, SimCardholder>
    let tokens: SimulatorStore<String, SimToken>
    let ephemeralKeys: SimulatorStore<String, SimEphemeralKey>
    /// Real-time authorizations the simulated network asked about (StripeSimulatorAuthorizations.swift).
    let authorizations: SimulatorStore<String, SimAuthorization>
    let ledger: IdempotencyLedger
    let ids: DeterministicIDs
    let requestIDs: DeterministicIDs

    /// - Parameters:
    ///   - clock: the clock for creation times, key expiry and the 24 h `network_data` window.
    ///   - credentials: the accepted keys and the webhook secret.
    public init(clock: SimulationClock = SimulationClock(), credentials: Credentials = .default) {
        self.credentials = credentials
        self.simulationClock = clock
        self.cards = SimulatorStore(SimSeed.cards())
        self.cardholders = SimulatorStore(SimSeed.cardholders())
        self.tokens = SimulatorStore(SimSeed.tokens())
        self.ephemeralKeys = SimulatorStore()
        self.authorizations = SimulatorStore()
        self.ledger = IdempotencyLedger(window: nil, clock: clock)
        self.ids = DeterministicIDs(seed: 0x5714_19E5)
        self.requestIDs = DeterministicIDs(seed: 0x4E9_1D5)
    }

    public var kindName: String { "stripe" }
    public var basePath: String { "" }
    public var clock: SimulationClock? { simulationClock }

    public func reset() async {
        cards.reset(to: SimSeed.cards())
        cardholders.reset(to: SimSeed.cardholders())
        tokens.reset(to: SimSeed.tokens())
        ephemeralKeys.reset(to: [])
        authorizations.reset(to: [])
        ledger.reset()
        ids.reset()
        requestIDs.reset()
    }

    /// Stripe's error body for a fault: 5xx as `api_error`, 429 as `rate_limit`, 402 as `card_error`, the rest as
    /// `invalid_request_error`; with a `Request-Id`.
    public func faultResponse(status: Int, message: String) -> SimulatedResponse {
        let error: StripeSimError
        switch status {
        case 402:
            error = StripeSimError(
                status: status, type: "card_error", code: "card_declined", message: message, param: nil)
        case 404 where message.hasPrefix("no such route"):
            // Stripe names the method and path it did not recognise: "Unrecognized request URL (GET: /v1/…)".
            let call = message.dropFirst("no such route".count).trimmingCharacters(in: .whitespaces)
            error = .invalid(
                "Unrecognized request URL \(call). Check the path and method against Stripe's API reference.",
                status: 404)
        case 429:
            error = StripeSimError(
                status: status, type: "invalid_request_error", code: "rate_limit", message: message, param: nil)
        case 500...: error = StripeSimError(status: status, type: "api_error", code: nil, message: message, param: nil)
        default:
            error = StripeSimError(
                status: status, type: "invalid_request_error", code: nil, message: message, param: nil)
        }
        return jsonResponse(error.status, error.json).withHeader(
            "Request-Id", requestIDs.next(prefix: "req_", length: 14))
    }

    // MARK: Webhooks

    /// A webhook delivery as Stripe would send it: an `event` wrapping `object` (with `previous_attributes` for
    /// updates) and a `Stripe-Signature: t=…,v1=…` header signed with ``Credentials/webhookSecret`` (or `secret`).
    ///
    /// - Parameters:
    ///   - type: the event type, e.g. `issuing_card.updated` or `issuing_token.created`.
    ///   - object: the event's object; see ``cardObject(_:livemode:)`` and ``tokenObject(_:livemode:)``.
    ///   - timestamp: the signing time; the clock's now by default.
    ///   - secret: another secret to sign with (to test rolled or wrong secrets).
    public func signedWebhook(
        type: String, object: StripeSimJSON, previousAttributes: StripeSimJSON? = nil, timestamp: Date? = nil,
        secret: String? = nil
    ) -> (headers: [(String, String)], body: Data) {
        let now = simulationClock.now()
        var data: [(String, StripeSimJSON)] = [("object", object)]
        if let previousAttributes { data.append(("previous_attributes", previousAttributes)) }
        let event: StripeSimJSON = .object([
            ("id", .string(ids.next(prefix: "evt_", length: 24))),
            ("object", "event"),
            ("api_version", .string(Seed.accountAPIVersion)),
            ("created", .int(Int64(now.timeIntervalSince1970))),
            ("data", .object(data)),
            ("livemode", object["livemode"] ?? false),
            ("pending_webhooks", 1),
            ("request", ["id": nil, "idempotency_key": nil]),
            ("type", .string(type)),
        ])
        let body = event.data
        let t = Int64((timestamp ?? now).timeIntervalSince1970)
        var message = Data("\(t).".utf8)
        message.append(body)
        let key = SymmetricKey(data: Data((secret ?? credentials.webhookSecret).utf8))
        let signature = ByteEncoding.hex(HMAC<SHA256>.authenticationCode(for: message, using: key))
        return (
            headers: [
                ("Stripe-Signature", "t=\(t),v1=\(signature)"), ("Content-Type", "application/json; charset=utf-8"),
            ], body: body
        )
    }

    /// The card as Stripe renders it (`issuing.card`), nil when there is no such card.
    public func cardObject(_ id: String, livemode: Bool = false) -> StripeSimJSON? {
        cards.get(id).map { render(card: $0, livemode: livemode) }
    }

    /// The token as Stripe renders it (`issuing.token`), nil when there is no such token.
    public func tokenObject(_ id: String, livemode: Bool = false) -> StripeSimJSON? {
        tokens.get(id).map { render(token: $0, livemode: livemode, expand: []) }
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
        let call = StripeSimCall(
            method: method, path: request.uri.path, id: context.parameters.get("id"), headers: headers,
            params: StripeParams(params)
        )
        return handle(call, route: route)
    }

    func jsonResponse(_ status: Int, _ json: StripeSimJSON) -> SimulatedResponse {
        SimulatedResponse(status: status, headers: [("Content-Type", "application/json")], body: json.data)
    }
}
