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

    /// Measures idempotency windows and stamps freezes and webhooks.
    public let simulationClock: SimulationClock
    /// The API keys accepted.
    public let credentials: Credentials
    let customers: SimulatorStore<String, SimulatedCustomer>
    let accounts: SimulatorStore<String, SimulatedCardAccount>
    let ledger: IdempotencyLedger
    let ids: DeterministicIDs
    let customWebhookKey: _RSA.Signing.PrivateKey?
    /// Card details keys and PIN update URLs (BridgeSimulatorCardReveal.swift).
    let reveal = BridgeRevealState()

    /// The key that signs webhooks (the per-process key is generated on first use).
    var webhookKey: _RSA.Signing.PrivateKey { customWebhookKey ?? SimulatorWebhookKey.shared }

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
    public func cardAccount(_ id: String) -> SimulatedCardAccount? { accounts.get(id) }

    /// Puts a card account into the simulator (a new one, or a replacement), e.g. to test a state transition.
    public func put(_ account: SimulatedCardAccount) { accounts.put(account.id, account) }

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
        registerCardRevealRoutes(on: router)
    }

    /// Auth, the idempotency-key rules, customer and card look-up, then `work`; successful POST answers are
    /// recorded for replay.
    func handle(
        _ request: Request, _ context: SimulatorContext,
        _ work: (SimulatedCustomer, SimulatedCardAccount) -> SimulatedResponse
    ) -> SimulatedResponse {
        handle(request, context, needsAccount: true) { customer, account in
            guard let account else {
                return BridgeErrors.error(404, code: "Invalid", message: "Unknown card account id")
            }
            return work(customer, account)
        }
    }

    /// The same for routes under a customer only (`needsAccount` false: the account, if any, is not looked up).
    private func handle(
        _ request: Request, _ context: SimulatorContext, needsAccount: Bool,
        _ work: (SimulatedCustomer, SimulatedCardAccount?) -> SimulatedResponse
    ) -> SimulatedResponse {
        guard let apiKey = Self.header(request, "api-key") else {
            return BridgeErrors.authentication(code: "required", message: "Missing Api-Key header")
        }
        guard credentials.apiKeys.contains(apiKey) else {
            return BridgeErrors.authentication(code: "invalid", message: "Invalid Api-Key header")
        }
        let idempotencyKey = Self.header(request, "idempotency-key")
        let isPost = request.method == .post
        if !isPost, idempotencyKey != nil {
            return BridgeErrors.error(
                400, code: "invalid_parameters",
                message: "Idempotency-Key must not be sent with \(request.method.rawValue) requests",
                location: "header", key: "Idempotency-Key")
        }
        if isPost, idempotencyKey?.isEmpty ?? true {
            return BridgeErrors.error(
                400, code: "required", message: "Idempotency-Key header is required for POST requests",
                location: "header", key: "Idempotency-Key")
        }
        let customerID = context.parameters.get("customerID") ?? ""
        let cardID = context.parameters.get("cardAccountID") ?? ""
        guard let customer = customers.get(customerID) else {
            return BridgeErrors.error(404, code: "Invalid", message: "Unknown customer id")
        }
        var account: SimulatedCardAccount?
        if needsAccount {
            guard let found = accounts.get(cardID), found.customerID == customer.id else {
                return BridgeErrors.error(404, code: "Invalid", message: "Unknown card account id")
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
            return BridgeErrors.error(
                409, code: "idempotency_key_conflict",
                message: "This Idempotency-Key was already used with a different request", location: "header",
                key: "Idempotency-Key")
        case .inProgress:
            return BridgeErrors.error(
                409, code: "idempotency_key_in_progress",
                message: "A request with this Idempotency-Key is still being processed", location: "header",
                key: "Idempotency-Key")
        case .expired:
            return BridgeErrors.error(
                422, code: "idempotency_key_expired",
                message: "This Idempotency-Key was first used more than 24 hours ago and cannot be reused",
                location: "header", key: "Idempotency-Key")
        }
    }

    static func header(_ request: Request, _ lowerCasedName: String) -> String? {
        request.headers.first { $0.name.canonicalName == lowerCasedName }?.value
    }

    // MARK: Card accounts

    private func getCardAccount(customer: SimulatedCustomer, account: SimulatedCardAccount) -> SimulatedResponse {
        .json(200, BridgeJSON.cardAccount(account))
    }

    /// `{"count": n, "data": [CardAccount]}`: every account of the customer, in the order they were created.
    private func listCardAccounts(customer: SimulatedCustomer) -> SimulatedResponse {
        let owned = accounts.all().filter { $0.customerID == customer.id }
        return .json(200, ["count": owned.count, "data": owned.map(BridgeJSON.cardAccount)])
    }

    static let cardAccountCurrencies: Set<String> = ["usdc", "usdb"]
    static let cardAccountChains: Set<String> = [
        "arbitrum", "avalanche_c_chain", "base", "ethereum", "optimism", "polygon", "solana", "stellar",
    ]

    /// `PostCardAccountsInput`: `currency` and `chain` required; one card account per customer ("Currently, only
    /// one account can be provisioned per customer"; a second → 400 `card_account_already_exists`, *choice*). The
    /// new account is `active`, named after the customer, answered with 201.
    private func createCardAccount(customer: SimulatedCustomer, body: Data) -> SimulatedResponse {
        var problems = BridgeErrors.Problems()
        guard let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            problems.add("currency,chain", "The request body must be a JSON object with currency and chain")
            return problems.response
        }
        let known: Set<String> = [
            "client_reference_id", "currency", "chain", "crypto_account", "card_design_shortname",
        ]
        for key in json.keys.sorted() where !known.contains(key) {
            problems.add(key, "\(key) is not a known parameter")
        }
        let currency = json["currency"] as? String ?? ""
        let chain = json["chain"] as? String ?? ""
        if !Self.cardAccountCurrencies.contains(currency) { problems.add("currency", "currency must be usdc or usdb") }
        if !Self.cardAccountChains.contains(chain) {
            problems.add("chain", "chain must be one of \(Self.cardAccountChains.sorted().joined(separator: ", "))")
        }
        if let design = json["card_design_shortname"], !(design is String) {
            problems.add("card_design_shortname", "card_design_shortname must be a string")
        }
        guard problems.isEmpty else { return problems.response }
        guard !accounts.all().contains(where: { $0.customerID == customer.id }) else {
            return BridgeErrors.error(
                400, code: "card_account_already_exists",
                message: "Only one card account can be provisioned per customer", location: "path", key: "customerID"
            )
        }
        let id = ids.next(prefix: "ca", length: 30)
        let digits = (0..<7).map { _ in String(ids.nextInt(in: 0...9)) }.joined()
        let pan = Self.luhnCompleted("44325280" + digits)
        let account = SimulatedCardAccount(
            id: id, customerID: customer.id, clientReferenceID: json["client_reference_id"] as? String ?? "",
            status: "active",
            firstName: customer.firstName, lastName: customer.lastName, pan: pan, expiry: "12/30",
            availableBalance: "0.00", currency: currency
        )
        accounts.put(id, account)
        return .json(201, BridgeJSON.cardAccount(account))
    }

    /// `prefix` (15 digits) with its Luhn check digit.
    static func luhnCompleted(_ prefix: String) -> String {
        let digits = prefix.compactMap(\.wholeNumberValue)
        var sum = 0
        for (index, digit) in digits.reversed().enumerated() {
            if index % 2 == 0 {
                let doubled = digit * 2
                sum += doubled > 9 ? doubled - 9 : doubled
            } else {
                sum += digit
            }
        }
        return prefix + String((10 - sum % 10) % 10)
    }

    // MARK: Provisioning

    private func provision(customer: SimulatedCustomer, account: SimulatedCardAccount, body: Data) -> SimulatedResponse
    {
        guard let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            return BridgeErrors.error(
                400, code: "invalid_parameters", message: "The request body must be a JSON object", location: "body",
                key: "wallet_provider")
        }
        var problems = BridgeErrors.Problems()
        let walletProvider = json["wallet_provider"] as? String
        switch walletProvider {
        case "apple_pay":
            guard let apple = json["apple_pay"] as? [String: Any] else {
                problems.add("apple_pay", "apple_pay is required for the apple_pay wallet provider")
                return problems.response
            }
            let encoding = apple["encoding"] as? String ?? "hex"
            // A string enum in the spec: anything present but not "hex" or "base64" (a number included) is refused.
            guard apple["encoding"] == nil || (apple["encoding"] is String && ["hex", "base64"].contains(encoding))
            else {
                problems.add("apple_pay.encoding", "encoding must be hex or base64")
                return problems.response
            }
            func field(_ name: String) -> Data? {
                guard let text = apple[name] as? String, !text.isEmpty else {
                    problems.add("apple_pay.\(name)", "\(name) is required")
                    return nil
                }
                guard let bytes = encoding == "hex" ? ByteEncoding.decodeHex(text) : ByteEncoding.decodeBase64(text),
                    !bytes.isEmpty
                else {
                    problems.add("apple_pay.\(name)", "\(name) is not valid \(encoding)")
                    return nil
                }
                return bytes
            }
            let leaf = field("leaf_cert")
            let subordinate = field("subordinate_cert")
            let nonce = field("nonce")
            let signature = field("nonce_signature")
            if let leaf, !SimulatorCertificates.isCertificate(leaf) {
                problems.add("apple_pay.leaf_cert", "leaf_cert must be exactly one DER-encoded certificate")
            }
            if let subordinate, !SimulatorCertificates.isCertificate(subordinate) {
                problems.add(
                    "apple_pay.subordinate_cert", "subordinate_cert must be exactly one DER-encoded certificate")
            }
            guard problems.isEmpty, let nonce, let signature else { return problems.response }
            if let refusal = refuseUnlessActive(account) { return refusal }
            do {
                let payload = try SimulatorPayloads.apple(account: account, nonce: nonce, nonceSignature: signature)
                return .json(
                    200,
                    [
                        "wallet_provider": "apple_pay",
                        "apple_pay": [
                            "activation_data": payload.activationData.base64EncodedString(),
                            "encrypted_pass_data": payload.encryptedPassData.base64EncodedString(),
                            "ephemeral_public_key": payload.ephemeralPublicKey.base64EncodedString(),
                        ],
                    ])
            } catch {
                return faultResponse(status: 500, message: "An expected error occurred, you may try again later")
            }
        case "google_pay":
            guard let google = json["google_pay"] as? [String: Any] else {
                problems.add("google_pay", "google_pay is required for the google_pay wallet provider")
                return problems.response
            }
            let walletAccount = google["client_wallet_account_id"] as? String ?? ""
            let device = google["client_device_id"] as? String ?? ""
            if walletAccount.isEmpty {
                problems.add("google_pay.client_wallet_account_id", "client_wallet_account_id is required")
            }
            if device.isEmpty { problems.add("google_pay.client_device_id", "client_device_id is required") }
            guard problems.isEmpty else { return problems.response }
            if let refusal = refuseUnlessActive(account) { return refusal }
            do {
                let opaque = try SimulatorPayloads.google(
                    account: account, walletAccountID: walletAccount, deviceID: device)
                return .json(200, ["wallet_provider": "google_pay", "google_pay": ["opaque_payment_card": opaque]])
            } catch {
                return faultResponse(status: 500, message: "An expected error occurred, you may try again later")
            }
        default:
            problems.add("wallet_provider", "wallet_provider must be apple_pay or google_pay")
            return problems.response
        }
    }

    private func refuseUnlessActive(_ account: SimulatedCardAccount) -> SimulatedResponse? {
        guard account.status != "active" else { return nil }
        return BridgeErrors.error(
            400, code: "card_account_not_active",
            message: "The card account is \(account.status); only active card accounts can be provisioned",
            location: "path", key: "cardAccountID"
        )
    }

    // MARK: Freezes

    static let freezeReasons: Set<String> = [
        "lost_or_stolen", "suspicious_activity", "planned_inactivity", "suspected_fraud", "other",
    ]
    static let freezeInitiators: Set<String> = ["developer", "customer"]

    private func freeze(customer: SimulatedCustomer, account: SimulatedCardAccount, body: Data) -> SimulatedResponse {
        var problems = BridgeErrors.Problems()
        guard let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            problems.add("initiator,reason", "The request body must be a JSON object with initiator and reason")
            return problems.response
        }
        let initiator = json["initiator"] as? String ?? ""
        let reason = json["reason"] as? String ?? ""
        if !Self.freezeInitiators.contains(initiator) {
            problems.add("initiator", "initiator must be developer or customer")
        }
        if !Self.freezeReasons.contains(reason) {
            problems.add("reason", "reason must be one of \(Self.freezeReasons.sorted().joined(separator: ", "))")
        }
        let now = simulationClock.now()
        var startingAt = now
        var endingAt: Date?
        if let text = json["starting_at"] as? String {
            if let date = BridgeJSON.parseDate(text) {
                startingAt = date
            } else {
                problems.add("starting_at", "starting_at must be an ISO8601 date-time")
            }
        }
        if let text = json["ending_at"] as? String {
            if let date = BridgeJSON.parseDate(text) {
                endingAt = date
            } else {
                problems.add("ending_at", "ending_at must be an ISO8601 date-time")
            }
        }
        guard problems.isEmpty else { return problems.response }
        guard account.status == "active" || account.status == "frozen" else {
            return BridgeErrors.error(
                400, code: "card_account_not_active",
                message: "The card account is \(account.status) and cannot be frozen", location: "path",
                key: "cardAccountID")
        }
        let freeze = SimulatedCardAccount.Freeze(
            initiator: initiator, reason: reason, reasonDetail: json["reason_detail"] as? String,
            startingAt: startingAt,
            endingAt: endingAt, createdAt: now
        )
        var replaced = false
        accounts.update(account.id) { stored in
            replaced = stored.freezes.contains { $0.initiator == initiator }
            stored.freezes.removeAll { $0.initiator == initiator }
            stored.freezes.append(freeze)
            stored.status = "frozen"
        }
        var object = BridgeJSON.freeze(freeze, cardAccountID: account.id)
        object["status"] = replaced ? "freeze_replaced" : "freeze_created"
        return .json(200, object)
    }

    private func unfreeze(customer: SimulatedCustomer, account: SimulatedCardAccount, body: Data) -> SimulatedResponse {
        var problems = BridgeErrors.Problems()
        let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        let initiator = json?["initiator"] as? String ?? ""
        guard Self.freezeInitiators.contains(initiator) else {
            problems.add("initiator", "initiator must be developer or customer")
            return problems.response
        }
        guard let removed = account.freezes.first(where: { $0.initiator == initiator }) else {
            return BridgeErrors.error(
                400, code: "freeze_not_found", message: "The card account has no freeze placed by \(initiator)",
                location: "body", key: "initiator")
        }
        accounts.update(account.id) { stored in
            stored.freezes.removeAll { $0.initiator == initiator }
            if stored.freezes.isEmpty && stored.status == "frozen" { stored.status = "active" }
        }
        var object = BridgeJSON.freeze(removed, cardAccountID: account.id)
        object["status"] = "freeze_removed"
        return .json(200, object)
    }

    // MARK: Errors

    /// Bridge's error body for `status`: 401 in the 401 examples' shape, 5xx in the 500 example's `errors[]`
    /// shape, anything else in schema `Error`.
    public func faultResponse(status: Int, message: String) -> SimulatedResponse {
        switch status {
        case 401: return BridgeErrors.authentication(code: "invalid", message: message)
        case 500...599: return BridgeErrors.unexpected(status: status, message: message)
        // The spec's only 404 example (NotFoundError) uses code "Invalid", as the simulator's own 404s do.
        case 404: return BridgeErrors.error(404, code: "Invalid", message: message)
        case 429: return BridgeErrors.error(429, code: "rate_limited", message: message)
        default: return BridgeErrors.error(status, code: "invalid_request", message: message)
        }
    }
}

/// Bridge's three error shapes.
enum BridgeErrors {
    /// Schema `Error`.
    static func error(
        _ status: Int, code: String, message: String, location: String? = nil, key: String? = nil
    ) -> SimulatedResponse {
        var body: [String: Any] = ["code": code, "message": message]
        if let location, let key { body["source"] = ["location": location, "key": key] }
        return .json(status, body)
    }

    /// The 401 examples: `location` and `name` at the top level.
    static func authentication(code: String, message: String) -> SimulatedResponse {
        .json(401, ["code": code, "location": "header", "name": "Api-Key", "message": message])
    }

    /// The 500 example: `{"errors":[{"code":"unexpected","message":…}]}`.
    static func unexpected(status: Int, message: String) -> SimulatedResponse {
        .json(status, ["errors": [["code": "unexpected", "message": message]]])
    }

    /// Body validation problems, answered together as one 400 whose `source.key` lists every field.
    struct Problems {
        var keys: [String] = []
        var messages: [String] = []
        var isEmpty: Bool { keys.isEmpty }

        mutating func add(_ key: String, _ message: String) {
            keys.append(key)
            messages.append(message)
        }

        var response: SimulatedResponse {
            BridgeErrors.error(
                400, code: "invalid_parameters", message: messages.joined(separator: "; "), location: "body",
                key: keys.joined(separator: ","))
        }
    }
}
