import CardGatewaySimulation
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import _CryptoExtras

/// A stand-in for Bridge's card API (`/v0`): card accounts, mobile wallet push provisioning, freezes, and signed
/// webhooks, answering in Bridge's own JSON and error shapes.
///
/// Behaviour, as Bridge documents it (and our choices where it does not, marked *choice*):
/// - `Api-Key` on every request; missing → 401 `{"code":"required","location":"header","name":"Api-Key",…}`,
///   unknown → 401 `{"code":"invalid",…}` (the 401 examples' shape).
/// - `Idempotency-Key` required on every POST (missing → 400 in the `Error` shape, `source.location` header) and
///   refused on GET (→ 400). A key is replayed for 24 hours: the same key with the same request returns the first
///   response byte for byte; with a different request → 409 `idempotency_key_conflict` (*choice*: Bridge documents
///   no status for this); after 24 hours → 422 `idempotency_key_expired`. Keys are scoped to the API key. Requests
///   refused with 4xx do not consume their key.
/// - Unknown customer or card account → 404 `{"code":"Invalid","message":"Unknown … id"}` (NotFound example).
/// - Provisioning: `wallet_provider` apple_pay|google_pay; Apple fields decoded per `encoding` (default `hex`,
///   case-insensitive; or strict Base64); each certificate must be exactly one DER-encoded X.509 certificate (parsed with swift-certificates); only
///   active accounts are provisioned (others → 400 `card_account_not_active`, *choice*). Validation errors are 400
///   `{"code":"invalid_parameters","message":…,"source":{"location":"body","key":"a,b"}}`.
/// - Server faults (5xx) use the 500 example's shape `{"errors":[{"code":"unexpected","message":…}]}`.
public struct BridgeSimulator: ProviderSimulator {
    /// The API keys the simulator accepts.
    public struct Credentials: Sendable {
        public var apiKeys: Set<String>

        public init(apiKeys: Set<String>) {
            self.apiKeys = apiKeys
        }

        /// ``BridgeSimulator/Seed/apiKey``.
        public static let `default` = Credentials(apiKeys: [Seed.apiKey])
    }

    /// `"bridge"`.
    public var kindName: String { "bridge" }
    /// `"/v0"`, as in Bridge's base URLs.
    public var basePath: String { "/v0" }
    /// The clock the kit's control path (`POST /__simulator/clock`) moves.
    public var clock: SimulationClock? { simulationClock }
    /// Request fields the journal masks: the nonce, the front end's secret and timestamp, the PIN frame's token (the
    /// ephemeral key travels in `Authorization`, masked by default).
    public var sensitiveBodyFields: Set<String> { ["clientnonce", "clientsecret", "clienttimestamp", "token"] }

    /// Measures idempotency windows and stamps freezes and webhooks.
    public let simulationClock: SimulationClock
    /// The API keys accepted.
    public let credentials: Credentials
    let customers: SimulatorStore<String, BridgeSimulatorCustomer>
    let accounts: SimulatorStore<String, BridgeSimulatorCardAccount>
    let ledger: IdempotencyLedger
    let ids: DeterministicIDs
    let customWebhookKey: _RSA.Signing.PrivateKey?
    /// Card details keys and PIN update URLs (BridgeSimulatorCardReveal.swift).
    let reveal = BridgeSimulatorRevealState()

    /// The key that signs webhooks (the per-process key is generated on first use).
    var webhookKey: _RSA.Signing.PrivateKey { customWebhookKey ?? BridgeSimulatorWebhookKey.shared }

    /// Idempotency keys are replayed for this long (Bridge: 24 hours).
    public static let idempotencyWindow: TimeInterval = 24 * 60 * 60

    /// - Parameters:
    ///   - clock: the clock for idempotency windows, freeze times and webhook timestamps.
    ///   - credentials: the API keys accepted.
    ///   - webhookSigningKey: the RSA key that signs webhooks; by default one 2048-bit key generated once per process.
    public init(
        clock: SimulationClock = SimulationClock(), credentials: Credentials = .default,
        webhookSigningKey: _RSA.Signing.PrivateKey? = nil
    ) {
        self.simulationClock = clock
        self.credentials = credentials
        self.customers = SimulatorStore(Seed.customers.map { ($0.id, $0) })
        self.accounts = SimulatorStore(Seed.cardAccounts.map { ($0.id, $0) })
        self.ledger = IdempotencyLedger(window: Self.idempotencyWindow, clock: clock)
        self.ids = DeterministicIDs(seed: 0xb41d6e)
        self.customWebhookKey = webhookSigningKey
    }

    /// Back to the documented seed: accounts, customers, idempotency keys and generated ids.
    public func reset() async {
        customers.reset(to: Seed.customers.map { ($0.id, $0) })
        accounts.reset(to: Seed.cardAccounts.map { ($0.id, $0) })
        ledger.reset()
        ids.reset()
        reveal.reset()
    }

    /// The card account as the simulator holds it now.
    public func cardAccount(_ id: String) -> BridgeSimulatorCardAccount? { accounts.get(id) }

    /// Puts a card account into the simulator (a new one, or a replacement), e.g. to test a state transition.
    public func put(_ account: BridgeSimulatorCardAccount) { accounts.put(account.id, account) }

    // MARK: Routes

    /// `GET|POST …/card_accounts`, `GET …/card_accounts/{id}` and `POST …/create_mobile_wallet_provisioning_request`,
    /// `…/freeze`, `…/unfreeze`.
    public func registerRoutes(on router: Router<SimulatorContext>) {
        let accountsPath = "/v0/customers/:customerID/card_accounts"
        router.get(RouterPath(accountsPath)) { request, context in
            self.handle(request, context, needsAccount: false) { customer, _ in
                self.listCardAccounts(customer: customer)
            }
        }
        router.post(RouterPath(accountsPath)) { request, context in
            self.handle(request, context, needsAccount: false) { customer, _ in
                self.createCardAccount(customer: customer, body: context.requestBody)
            }
        }
        let account = accountsPath + "/:cardAccountID"
        router.get(RouterPath(account)) { request, context in
            self.handle(request, context) { customer, account in
                self.getCardAccount(customer: customer, account: account)
            }
        }
        router.post(RouterPath(account + "/create_mobile_wallet_provisioning_request")) { request, context in
            self.handle(request, context) { customer, account in
                self.provision(customer: customer, account: account, body: context.requestBody)
            }
        }
        router.post(RouterPath(account + "/freeze")) { request, context in
            self.handle(request, context) { customer, account in
                self.freeze(customer: customer, account: account, body: context.requestBody)
            }
        }
        router.post(RouterPath(account + "/unfreeze")) { request, context in
            self.handle(request, context) { customer, account in
                self.unfreeze(customer: customer, account: account, body: context.requestBody)
            }
        }
        // Card details and PIN (handlers in BridgeSimulatorCardReveal.swift).
        router.post(RouterPath(account + "/ephemeral_keys")) { request, context in
            self.handle(request, context) { _, account in
                self.createEphemeralKey(account: account, body: context.requestBody)
            }
        }
        router.post(RouterPath(account + "/pin")) { request, context in
            self.handle(request, context) { _, account in
                self.createPINLink(account: account, body: context.requestBody, authority: request.head.authority ?? "")
            }
        }
        router.get(RouterPath(Self.cardDetailsPath)) { request, _ in
            self.cardDetails(
                authorization: Self.header(request, "authorization"), query: SimulatorHTTP.queryItems(request.uri.query)
            )
        }
        router.get(RouterPath(Self.pinFramePath)) { request, _ in
            self.openPINFrame(query: SimulatorHTTP.queryItems(request.uri.query))
        }
    }

    /// Auth, the idempotency-key rules, customer and card look-up, then `work`; successful POST answers are
    /// recorded for replay.
    func handle(
        _ request: Request, _ context: SimulatorContext,
        _ work: (BridgeSimulatorCustomer, BridgeSimulatorCardAccount) -> SimulatedResponse
    ) -> SimulatedResponse {
        handle(request, context, needsAccount: true) { customer, account in
            guard let account else {
                return BridgeSimulatorErrors.error(404, code: "Invalid", message: "Unknown card account id")
            }
            return work(customer, account)
        }
    }

    /// The same for routes under a customer only (`needsAccount` false: the account, if any, is not looked up).
    private func handle(
        _ request: Request, _ context: SimulatorContext, needsAccount: Bool,
        _ work: (BridgeSimulatorCustomer, BridgeSimulatorCardAccount?) -> SimulatedResponse
    ) -> SimulatedResponse {
        guard let apiKey = Self.header(request, "api-key") else {
            return BridgeSimulatorErrors.authentication(code: "required", message: "Missing Api-Key header")
        }
        guard credentials.apiKeys.contains(where: { ConstantTime.equals($0.utf8, apiKey.utf8) }) else {
            return BridgeSimulatorErrors.authentication(code: "invalid", message: "Invalid Api-Key header")
        }
        let idempotencyKey = Self.header(request, "idempotency-key")
        let isPost = request.method == .post
        if !isPost, idempotencyKey != nil {
            return BridgeSimulatorErrors.error(
                400, code: "invalid_parameters",
                message: "Idempotency-Key must not be sent with \(request.method.rawValue) requests",
                location: "header", key: "Idempotency-Key")
        }
        if isPost, idempotencyKey?.isEmpty ?? true {
            return BridgeSimulatorErrors.error(
                400, code: "required", message: "Idempotency-Key header is required for POST requests",
                location: "header", key: "Idempotency-Key")
        }
        let customerID = context.parameters.get("customerID") ?? ""
        let cardID = context.parameters.get("cardAccountID") ?? ""
        guard let customer = customers.get(customerID) else {
            return BridgeSimulatorErrors.error(404, code: "Invalid", message: "Unknown customer id")
        }
        var account: BridgeSimulatorCardAccount?
        if needsAccount {
            guard let found = accounts.get(cardID), found.customerID == customer.id else {
                return BridgeSimulatorErrors.error(404, code: "Invalid", message: "Unknown card account id")
            }
            account = found
        }
        guard isPost, let key = idempotencyKey else { return work(customer, account) }

        var fingerprint = Data("\(request.method.rawValue) \(request.uri.path)\n".utf8)
        fingerprint.append(context.requestBody)
        let scope = "api-key:\(apiKey)"
        switch ledger.begin(key: key, scope: scope, fingerprint: fingerprint) {
        case .proceed:
            let response = work(customer, account)
            if (200..<300).contains(response.status) {
                ledger.record(key: key, scope: scope, fingerprint: fingerprint, response: response)
            } else {
                ledger.abandon(key: key, scope: scope)
            }
            return response
        case .replay(let first):
            return first
        case .conflict:
            return BridgeSimulatorErrors.error(
                409, code: "idempotency_key_conflict",
                message: "This Idempotency-Key was already used with a different request", location: "header",
                key: "Idempotency-Key")
        case .inProgress:
            return BridgeSimulatorErrors.error(
                409, code: "idempotency_key_in_progress",
                message: "A request with this Idempotency-Key is still being processed", location: "header",
                key: "Idempotency-Key")
        case .expired:
            return BridgeSimulatorErrors.error(
                422, code: "idempotency_key_expired",
                message: "This Idempotency-Key was first used more than 24 hours ago and cannot be reused",
                location: "header", key: "Idempotency-Key")
        }
    }

    static func header(_ request: Request, _ lowerCasedName: String) -> String? {
        request.headers.first { $0.name.canonicalName == lowerCasedName }?.value
    }

}
