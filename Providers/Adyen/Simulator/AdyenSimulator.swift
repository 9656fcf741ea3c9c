import CardGatewaySimulation
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// A stand-in for Adyen's Balance Platform Configuration API v2 (`/bcl/v2`), for the calls card push
/// provisioning uses: payment instruments, the network token activation-data exchange, network tokens, and
/// signed `balancePlatform.networkToken.*` webhooks. Responses follow Adyen's OpenAPI field names and types;
/// errors are Adyen's `RestServiceError`.
///
/// Seed data, keys and the error codes this simulator chooses are listed in `Providers/Adyen/README.md` and in
/// ``Seed`` and ``Credentials``.
public struct AdyenSimulator: ProviderSimulator {
    /// A role an API credential may have.
    public enum Role: String, Sendable, CaseIterable {
        /// Read payment instruments.
        case paymentInstruments
        /// "Bank Issuing PaymentInstrument Network Token Activation Data role": both activation-data endpoints.
        case networkTokenActivationData
        /// Read and patch network tokens.
        case networkTokens
        /// "Bank Issuing PAN Reveal Webservice role": `GET /publicKey` and `POST /paymentInstruments/reveal`.
        case panReveal
        /// "Bank Issuing PIN Reveal Webservice role": `POST /pins/reveal`.
        case pinReveal
        /// "Bank Issuing PIN Change Webservice role": `POST /pins/change`.
        case pinChange
    }

    /// The credentials the simulator accepts.
    public struct Credentials: Sendable {
        /// API keys (`X-API-Key`) and their roles.
        public var apiKeys: [String: Set<Role>]
        /// A web-service user for HTTP Basic auth (the OpenAPI's `BasicAuth`), with every role.
        public var webServiceUser: String
        /// The web-service user's password.
        public var webServicePassword: String
        /// The webhook endpoint's HMAC key in hex, as the Customer Area shows it.
        public var hmacKeyHex: String

        /// Credentials with the given keys and roles.
        public init(
            apiKeys: [String: Set<Role>], webServiceUser: String, webServicePassword: String, hmacKeyHex: String
        ) {
            self.apiKeys = apiKeys
            self.webServiceUser = webServiceUser
            self.webServicePassword = webServicePassword
            self.hmacKeyHex = hmacKeyHex
        }

        /// Has every role.
        public static let apiKey = "AQE1simulator-adyen-api-key-with-every-role-0001"
        /// Has every role except the activation-data role: activation data answers 403 `00_403`.
        public static let apiKeyWithoutActivationRole = "AQE1simulator-adyen-api-key-without-activation-data-role-0002"
        /// The default web-service user (HTTP Basic), with every role.
        public static let webServiceUser = "ws_123456@BalancePlatform.SimulatedBalancePlatform"
        /// The default web-service user's password.
        public static let webServicePassword = "simulator-web-service-password"
        /// 32 bytes in hex.
        public static let hmacKeyHex = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"

        /// The two documented keys, the web-service user and the HMAC key above.
        public static let `default` = Credentials(
            apiKeys: [apiKey: Set(Role.allCases), apiKeyWithoutActivationRole: [.paymentInstruments, .networkTokens]],
            webServiceUser: webServiceUser, webServicePassword: webServicePassword, hmacKeyHex: hmacKeyHex
        )
    }

    /// `"adyen"`.
    public var kindName: String { "adyen" }
    /// `"/bcl/v2"`, as in Adyen's base URLs.
    public var basePath: String { "/bcl/v2" }
    /// The simulation clock (token creation dates, webhook timestamps).
    public var clock: SimulationClock? { simulationClock }
    /// The API key, Basic credentials and webhook signatures are masked in the journal.
    public var sensitiveHeaderNames: Set<String> { ["x-api-key", "authorization", "hmacsignature"] }

    /// The clock creation dates and webhook timestamps are taken from.
    public let simulationClock: SimulationClock
    /// The credentials the simulator accepts.
    public let credentials: Credentials
    /// The relayed authorisation webhook's configuration: the Basic credentials it sends and the fallback
    /// (AdyenSimulatorAuthorizations.swift).
    public let relayedAuthorisation: RelayedAuthorisationSettings
    let state: AdyenSimulatorState
    /// The RSA key pairs, PINs and used tokens of card details and PIN (AdyenSimulatorCardReveal.swift).
    let revealState: AdyenSimulatorRevealState

    /// - Parameters:
    ///   - clock: the simulation clock (default: the real time, settable through the control path).
    ///   - credentials: the keys and HMAC key the simulator accepts; `.default` documents them.
    ///   - relayedAuthorisation: the relayed authorisation webhook's credentials and fallback; `.default` documents
    ///     them.
    public init(
        clock: SimulationClock = SimulationClock(), credentials: Credentials = .default,
        relayedAuthorisation: RelayedAuthorisationSettings = .default
    ) {
        self.simulationClock = clock
        self.credentials = credentials
        self.relayedAuthorisation = relayedAuthorisation
        self.state = AdyenSimulatorState(clock: clock)
        self.revealState = AdyenSimulatorRevealState(clock: clock)
    }

    /// Back to the documented seed: instruments, tokens, exchanges, idempotency keys and generated ids.
    public func reset() async {
        state.reset()
        revealState.reset()
    }

    // MARK: Routes

    /// Registers `POST /paymentInstruments`, `GET`/`PATCH /paymentInstruments/{id}`, `GET /balanceAccounts/{id}/paymentInstruments`,
    /// `GET`/`POST …/networkTokenActivationData`,
    /// `GET …/networkTokens`, `GET`/`PATCH /networkTokens/{networkTokenId}`, and card details and PIN (`GET /publicKey`,
    /// `POST /paymentInstruments/reveal`, `POST /pins/reveal`, `POST /pins/change`), all below `/bcl/v2`.
    public func registerRoutes(on router: Router<SimulatorContext>) {
        let base = basePath
        router.post("\(base)/paymentInstruments") { request, context in
            await self.handleWithBody(request, context) { body in
                try self.postPaymentInstrument(request, context, body: body)
            }
        }
        router.get("\(base)/paymentInstruments/:id") { request, context in
            await self.handle(request, context) { try self.getPaymentInstrument(request, context) }
        }
        router.patch("\(base)/paymentInstruments/:id") { request, context in
            await self.handleWithBody(request, context) { body in
                try self.patchPaymentInstrument(request, context, body: body)
            }
        }
        router.get("\(base)/balanceAccounts/:id/paymentInstruments") { request, context in
            await self.handle(request, context) { try self.listPaymentInstruments(request, context) }
        }
        router.get("\(base)/paymentInstruments/:id/networkTokenActivationData") { request, context in
            await self.handle(request, context) { try self.getActivationData(request, context) }
        }
        router.post("\(base)/paymentInstruments/:id/networkTokenActivationData") { request, context in
            await self.handleWithBody(request, context) { body in
                try self.postActivationData(request, context, body: body)
            }
        }
        router.get("\(base)/paymentInstruments/:id/networkTokens") { request, context in
            await self.handle(request, context) { try self.listNetworkTokens(request, context) }
        }
        router.get("\(base)/networkTokens/:networkTokenId") { request, context in
            await self.handle(request, context) { try self.getNetworkToken(request, context) }
        }
        router.patch("\(base)/networkTokens/:networkTokenId") { request, context in
            await self.handleWithBody(request, context) { body in
                try self.patchNetworkToken(request, context, body: body)
            }
        }
        registerCardRevealRoutes(on: router)
    }

    /// Adyen's `RestServiceError` for an injected fault, an unknown route or a handler error.
    public func faultResponse(status: Int, message: String) -> SimulatedResponse {
        restError(
            status: status, errorCode: AdyenSimulatorErrors.genericCode(status),
            title: AdyenSimulatorErrors.title(status), detail: message)
    }

    // MARK: Handlers

    private func handle(
        _ request: Request, _ context: SimulatorContext, _ body: () throws -> SimulatedResponse
    ) async -> Response {
        await handleWithBody(request, context) { _ in try body() }
    }

    func handleWithBody(
        _ request: Request, _ context: SimulatorContext, _ body: (Data) throws -> SimulatedResponse
    ) async -> Response {
        do {
            let buffer = try await request.body.collect(upTo: 1 << 20)
            return try body(Data(buffer.readableBytesView)).hummingbirdResponse
        } catch let error as SimulatedFailure {
            return error.response.hummingbirdResponse
        } catch {
            return faultResponse(status: 400, message: "The request could not be read.").hummingbirdResponse
        }
    }

    private func getPaymentInstrument(_ request: Request, _ context: SimulatorContext) throws -> SimulatedResponse {
        try authorize(request, role: .paymentInstruments)
        let instrument = try existingInstrument(context)
        return .json(200, instrument.json)
    }

    /// `GET /balanceAccounts/{id}/paymentInstruments?offset=&limit=&status=`: the account's instruments in
    /// creation order, `limit` 1–100 (default 10), `hasNext` / `hasPrevious`.
    private func listPaymentInstruments(_ request: Request, _ context: SimulatorContext) throws -> SimulatedResponse {
        try authorize(request, role: .paymentInstruments)
        let account = context.parameters.get("id") ?? ""
        let all = state.instruments.all().filter { $0.balanceAccountID == account }
        guard !all.isEmpty || state.balanceAccounts.contains(account) else {
            throw failure(404, AdyenSimulatorErrors.notFound, "Not found", "Balance account not found.")
        }
        let items = SimulatorHTTP.queryItems(request.uri.query)
        func parameter(_ name: String) -> String? { items.first { $0.name == name }?.value }
        var invalid: [(String, String, String)] = []
        func integer(_ name: String, default value: Int, range: ClosedRange<Int>) -> Int {
            guard let text = parameter(name) else { return value }
            guard let number = Int(text), range.contains(number) else {
                invalid.append(
                    (
                        name, String(text.prefix(20)),
                        "must be an integer from \(range.lowerBound) to \(range.upperBound)"
                    ))
                return value
            }
            return number
        }
        let limit = integer("limit", default: 10, range: 1...100)
        let offset = integer("offset", default: 0, range: 0...Int(Int32.max))
        let status = parameter("status")
        if let status, !AdyenSimulator.instrumentStatuses.contains(status) {
            invalid.append(("status", String(status.prefix(20)), "must be one of active, inactive, suspended, closed"))
        }
        guard invalid.isEmpty else {
            throw failure(
                422, AdyenSimulatorErrors.invalidQuery, "Invalid query parameter", "A query parameter is not valid.",
                invalidFields: invalid)
        }
        let matching = all.filter { status == nil || $0.status == status }
        let page = Array(matching.dropFirst(offset).prefix(limit))
        return .json(
            200,
            [
                "paymentInstruments": page.map(\.json),
                "hasNext": offset + page.count < matching.count,
                "hasPrevious": offset > 0 && !matching.isEmpty,
            ])
    }

    /// `PATCH /paymentInstruments/{id}` with `status`, `statusReason`, `statusComment` (the status fields of
    /// `PaymentInstrumentUpdateRequest`; its other fields are refused by this simulator). `closed` is final;
    /// `other` needs a `statusComment`. Answers the whole instrument (`UpdatePaymentInstrument`).
    private func patchPaymentInstrument(
        _ request: Request, _ context: SimulatorContext, body: Data
    ) throws -> SimulatedResponse {
        try authorize(request, role: .paymentInstruments)
        return try idempotent(request, body: body) { try updatePaymentInstrument(context, body: body) }
    }

    private func updatePaymentInstrument(_ context: SimulatorContext, body: Data) throws -> SimulatedResponse {
        let instrument = try existingInstrument(context)
        let object = try jsonObject(body)
        var invalid: [(String, String, String)] = []
        for key in object.keys.sorted() where !["status", "statusReason", "statusComment"].contains(key) {
            invalid.append((key, "", "is not supported by the simulator (only status, statusReason, statusComment)"))
        }
        let status = object["status"]
        if let status, !((status as? String).map { AdyenSimulator.instrumentStatuses.contains($0) } ?? false) {
            invalid.append(
                (
                    "status", String(String(describing: status).prefix(40)),
                    "must be one of active, inactive, suspended, closed"
                ))
        }
        let reason = object["statusReason"]
        if let reason, !((reason as? String).map { AdyenSimulator.instrumentStatusReasons.contains($0) } ?? false) {
            invalid.append(
                (
                    "statusReason", String(String(describing: reason).prefix(40)),
                    "must be one of \(AdyenSimulator.instrumentStatusReasons.joined(separator: ", "))"
                ))
        }
        let comment = object["statusComment"]
        if let comment, !(comment is String) {
            invalid.append(("statusComment", "", "must be a string"))
        }
        if (reason as? String) == "other", ((comment as? String) ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
            invalid.append(("statusComment", "", "is required when statusReason is other"))
        }
        guard invalid.isEmpty else {
            throw failure(
                422, AdyenSimulatorErrors.invalidInstrumentUpdate, "Invalid payment instrument",
                "The request has invalid fields.", invalidFields: invalid)
        }
        guard instrument.status != "closed" else {
            throw failure(
                422, AdyenSimulatorErrors.instrumentClosed, "Invalid payment instrument status",
                "The payment instrument is closed; the closed status is final."
            )
        }
        let updated = state.instruments.update(instrument.id) { stored in
            if let status = status as? String, status != stored.status {
                stored.status = status
                // A status change without a reason clears the previous one (a reactivated card has none).
                stored.statusReason = nil
                stored.statusComment = nil
            }
            if let reason = reason as? String { stored.statusReason = reason }
            if let comment = comment as? String { stored.statusComment = comment }
        }
        // Adyen sends `balancePlatform.paymentInstrument.updated` "when you successfully update a payment instrument".
        send(paymentInstrumentWebhook(type: Self.paymentInstrumentUpdated, instrument: updated ?? instrument))
        return .json(200, (updated ?? instrument).json)
    }

    /// `POST /paymentInstruments` (`PaymentInstrumentInfo`) for `type` `card` only: `balanceAccountId`,
    /// `issuingCountryCode` (two capital letters) and `card` with `brand` (`visa` or `mc`), `brandVariant`,
    /// `cardholderName` (1–26 characters) and `formFactor` (`virtual` or `physical`) are required; `status` may be
    /// `active`, `inactive` or `suspended`, and is `active` when absent except for a physical card, which starts
    /// `inactive` (the spec's "exceptions for cards based on the formFactor"). Missing or invalid fields are a 422
    /// naming them; an unknown balance account is a 404. Answers the new instrument (`PaymentInstrument`).
    private func postPaymentInstrument(
        _ request: Request, _ context: SimulatorContext, body: Data
    ) throws -> SimulatedResponse {
        try authorize(request, role: .paymentInstruments)
        return try idempotent(request, body: body) { try createPaymentInstrument(body: body) }
    }

    private func createPaymentInstrument(body: Data) throws -> SimulatedResponse {
        let object = try jsonObject(body)
        var invalid: [(String, String, String)] = []
        func text(_ value: Any?) -> String? { value as? String }
        func shown(_ value: Any?) -> String { value.map { String(String(describing: $0).prefix(40)) } ?? "" }
        let type = object["type"]
        if type == nil {
            invalid.append(("type", "", "is required"))
        } else if text(type) != "card" {
            invalid.append(("type", shown(type), "must be card (the simulator issues no bank accounts)"))
        }
        let account = text(object["balanceAccountId"]) ?? ""
        if account.isEmpty { invalid.append(("balanceAccountId", shown(object["balanceAccountId"]), "is required")) }
        let country = text(object["issuingCountryCode"]) ?? ""
        if country.count != 2 || !country.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) }) {
            invalid.append(
                ("issuingCountryCode", shown(object["issuingCountryCode"]), "must be an ISO 3166-1 alpha-2 code"))
        }
        let status = object["status"]
        if let status, !["active", "inactive", "suspended"].contains(text(status) ?? "") {
            invalid.append(("status", shown(status), "must be one of active, inactive, suspended"))
        }
        let card = object["card"] as? [String: Any]
        if card == nil { invalid.append(("card", "", "is required when type is card")) }
        let brand = text(card?["brand"]) ?? ""
        let variant = text(card?["brandVariant"]) ?? ""
        let name = text(card?["cardholderName"]) ?? ""
        let formFactor = text(card?["formFactor"]) ?? ""
        if let card {
            if !["visa", "mc"].contains(brand) {
                invalid.append(("card.brand", shown(card["brand"]), "must be visa or mc"))
            }
            if variant.isEmpty { invalid.append(("card.brandVariant", shown(card["brandVariant"]), "is required")) }
            if name.trimmingCharacters(in: .whitespaces).isEmpty || name.count > 26 {
                invalid.append(("card.cardholderName", "", "is required, at most 26 characters"))
            }
            if !["virtual", "physical"].contains(formFactor) {
                invalid.append(("card.formFactor", shown(card["formFactor"]), "must be virtual or physical"))
            }
        }
        guard invalid.isEmpty else {
            throw failure(
                422, AdyenSimulatorErrors.invalidInstrumentCreate, "Invalid payment instrument",
                "The request has invalid fields.", invalidFields: invalid)
        }
        guard state.balanceAccounts.contains(account) else {
            throw failure(404, AdyenSimulatorErrors.unknownBalanceAccount, "Not found", "Balance account not found.")
        }
        let number = state.instruments.all().count + 1
        let id = "PI3227" + state.ids.next(prefix: "", length: 19).uppercased()
        let expiry = Calendar(identifier: .gregorian).dateComponents(
            in: TimeZone(identifier: "UTC")!, from: state.clock.now())
        let instrument = SimulatedInstrument(
            id: id, type: "card", status: text(status) ?? (formFactor == "physical" ? "inactive" : "active"),
            statusReason: nil, description: nil,
            card: SimulatedCard(
                brand: brand, brandVariant: variant, cardholderName: name, formFactor: formFactor,
                bin: brand == "visa" ? "491761" : "555544",
                lastFour: String(format: "%04d", 6000 + number % 4000),
                expiryMonth: String(format: "%02d", expiry.month ?? 1),
                expiryYear: String((expiry.year ?? 2026) + 3)
            ),
            iban: nil, balanceAccountID: account, issuingCountryCode: country
        )
        state.instruments.put(id, instrument)
        // Adyen sends `balancePlatform.paymentInstrument.created` "when you successfully create a payment instrument".
        send(paymentInstrumentWebhook(type: Self.paymentInstrumentCreated, instrument: instrument))
        return .json(200, instrument.json)
    }

    private func getActivationData(_ request: Request, _ context: SimulatorContext) throws -> SimulatedResponse {
        try authorize(request, role: .networkTokenActivationData)
        let instrument = try provisionableInstrument(context)
        let input = state.startExchange(instrument.id) { session in
            sdkInput(instrument: instrument.id, session: session, round: 0, output: Data())
        }
        return .json(200, ["sdkInput": input.base64EncodedString()])
    }

    private func postActivationData(
        _ request: Request, _ context: SimulatorContext, body: Data
    ) throws -> SimulatedResponse {
        try authorize(request, role: .networkTokenActivationData)
        return try idempotent(request, body: body) { try activationStep(context, body: body) }
    }

    /// Runs `action` under the request's `Idempotency-Key`, when it has one: the first answer is kept (2xx or a
    /// refusal after work was done) and replayed for the same key and request; the same key with a different
    /// request is a 422, a key still in progress a 409. Keys are scoped to the company account (every simulated
    /// credential belongs to the same one). Adyen documents the header for POST; the simulator honours it on its
    /// PATCH routes too (see the README's unverified facts).
    private func idempotent(
        _ request: Request, body: Data, _ action: () throws -> SimulatedResponse
    ) throws -> SimulatedResponse {
        guard let key = request.headers[HTTPField.Name("Idempotency-Key")!] else {
            return try action()
        }
        guard !key.isEmpty, key.count <= 64 else {
            throw failure(
                422, AdyenSimulatorErrors.invalidIdempotencyKey, "Invalid Idempotency-Key",
                "The Idempotency-Key must have 1 to 64 characters.")
        }
        let scope = "company"
        let fingerprint = Data("\(request.method.rawValue) \(request.uri.path)\n".utf8) + body
        switch state.ledger.begin(key: key, scope: scope, fingerprint: fingerprint) {
        case .replay(let first):
            return first
        case .conflict, .expired:
            throw failure(
                422, AdyenSimulatorErrors.idempotencyConflict, "Idempotency key reused",
                "The Idempotency-Key was already used with a different request.", key: key
            )
        case .inProgress:
            throw failure(
                409, AdyenSimulatorErrors.idempotencyConflict, "Request in progress",
                "A request with this Idempotency-Key is still being processed.", key: key)
        case .proceed:
            do {
                let response = try action().withHeader("Idempotency-Key", key)
                state.ledger.record(key: key, scope: scope, fingerprint: fingerprint, response: response)
                return response
            } catch let error as SimulatedFailure {
                // Refused before any work was done: nothing to replay, the key may be used again.
                state.ledger.abandon(key: key, scope: scope)
                throw SimulatedFailure(response: error.response.withHeader("Idempotency-Key", key))
            }
        }
    }

    /// One POST of the exchange.
    private func activationStep(_ context: SimulatorContext, body: Data) throws -> SimulatedResponse {
        let instrument = try provisionableInstrument(context)
        let object = try jsonObject(body)
        guard let value = object["sdkOutput"] else {
            throw failure(
                422, AdyenSimulatorErrors.missingField, "Invalid sdkOutput", "The sdkOutput is required.",
                invalidFields: [("sdkOutput", "", "is required")]
            )
        }
        guard let text = value as? String, let output = ByteEncoding.decodeBase64(text), !output.isEmpty else {
            throw failure(
                422, AdyenSimulatorErrors.invalidSDKOutput, "Invalid sdkOutput",
                "The sdkOutput is not valid Base64 data from the provisioning SDK.",
                invalidFields: [("sdkOutput", String(String(describing: value).prefix(40)), "must be standard Base64")]
            )
        }
        let step = state.advanceExchange(instrument.id, output: output) { session, round in
            sdkInput(instrument: instrument.id, session: session, round: round, output: output)
        }
        switch step {
        case .notStarted:
            throw failure(
                422, AdyenSimulatorErrors.noExchange, "Network token provisioning not started",
                "Get the network token activation data for this payment instrument before posting sdkOutput."
            )
        case .stale:
            throw failure(
                422, AdyenSimulatorErrors.staleSDKOutput, "Invalid sdkOutput",
                "The sdkOutput does not answer the latest sdkInput of this provisioning session.",
                invalidFields: [("sdkOutput", "", "must answer the latest sdkInput")]
            )
        case .advanced(let exchange):
            if exchange.completed {
                let wallet =
                    String(decoding: output, as: UTF8.self).contains(Seed.googlePayMarker) ? "Google Pay" : "Apple Pay"
                _ = state.createToken(on: instrument, requestor: wallet)
            }
            return .json(200, ["sdkInput": exchange.lastInput.base64EncodedString()])
        }
    }

    private func listNetworkTokens(_ request: Request, _ context: SimulatorContext) throws -> SimulatedResponse {
        try authorize(request, role: .networkTokens)
        let instrument = try existingInstrument(context)
        let tokens = state.tokens.all().filter { $0.paymentInstrumentID == instrument.id }
        return .json(200, ["networkTokens": tokens.map(\.json)])
    }

    private func getNetworkToken(_ request: Request, _ context: SimulatorContext) throws -> SimulatedResponse {
        try authorize(request, role: .networkTokens)
        let token = try existingToken(context)
        return .json(200, ["token": token.json])
    }

    private func patchNetworkToken(
        _ request: Request, _ context: SimulatorContext, body: Data
    ) throws -> SimulatedResponse {
        try authorize(request, role: .networkTokens)
        return try idempotent(request, body: body) { try updateNetworkToken(context, body: body) }
    }

    private func updateNetworkToken(_ context: SimulatorContext, body: Data) throws -> SimulatedResponse {
        let token = try existingToken(context)
        // PATCH /networkTokens/{id} lists no 400 in the spec: a body that is not an object is a 422 there.
        let object = try jsonObject(body, status: 422)
        let allowed = ["active", "suspended", "closed"]
        guard let status = object["status"] as? String, allowed.contains(status) else {
            let given = object["status"].map { String(String(describing: $0).prefix(40)) } ?? ""
            throw failure(
                422, AdyenSimulatorErrors.invalidTokenStatus, "Invalid network token status",
                "The status must be active, suspended or closed.",
                invalidFields: [("status", given, "must be one of active, suspended, closed")]
            )
        }
        guard token.status != "closed" else {
            throw failure(
                422, AdyenSimulatorErrors.tokenClosed, "Invalid network token status",
                "The network token is closed; the closed status is final.")
        }
        state.tokens.update(token.id) { $0.status = status }
        return SimulatedResponse(status: 202)
    }

    // MARK: Helpers

    /// Checks `X-API-Key` (or Basic auth) and the role; throws Adyen's 401 or 403.
    func authorize(_ request: Request, role: Role) throws {
        let roles: Set<Role>
        if let key = request.headers[HTTPField.Name("X-API-Key")!] {
            guard let found = credentials.apiKeys.first(where: { ConstantTime.equals($0.key.utf8, key.utf8) }) else {
                throw unauthorized()
            }
            roles = found.value
        } else if let basic = SimulatorHTTP.basicCredentials(request.headers[.authorization]) {
            guard ConstantTime.equals(basic.user.utf8, credentials.webServiceUser.utf8),
                ConstantTime.equals(basic.password.utf8, credentials.webServicePassword.utf8)
            else {
                throw unauthorized()
            }
            roles = Set(Role.allCases)
        } else {
            throw unauthorized()
        }
        guard roles.contains(role) else {
            throw failure(403, "00_403", "Forbidden", "Not the right permission to access this service.")
        }
    }

    private func unauthorized() -> SimulatedFailure {
        failure(401, "00_401", "Unauthorized", "Not authorized to access this service.")
    }

    func existingInstrument(_ context: SimulatorContext) throws -> SimulatedInstrument {
        let id = context.parameters.get("id") ?? ""
        guard let instrument = state.instruments.get(id) else {
            throw failure(404, AdyenSimulatorErrors.notFound, "Not found", "Payment instrument not found.")
        }
        return instrument
    }

    /// An existing, active card instrument; otherwise Adyen-style 422s.
    private func provisionableInstrument(_ context: SimulatorContext) throws -> SimulatedInstrument {
        let instrument = try existingInstrument(context)
        guard instrument.card != nil else {
            throw failure(
                422, AdyenSimulatorErrors.notACard, "Invalid payment instrument",
                "The payment instrument is not a card.")
        }
        guard instrument.status == "active" else {
            throw failure(
                422, AdyenSimulatorErrors.instrumentNotActive, "Invalid payment instrument",
                "Network tokens can only be provisioned for active payment instruments; this one is \(instrument.status)."
            )
        }
        return instrument
    }

    private func existingToken(_ context: SimulatorContext) throws -> SimulatedNetworkToken {
        let id = context.parameters.get("networkTokenId") ?? ""
        guard let token = state.tokens.get(id) else {
            throw failure(404, AdyenSimulatorErrors.notFound, "Not found", "Network token not found.")
        }
        return token
    }

    func jsonObject(_ body: Data, status: Int = 400) throws -> [String: Any] {
        guard !body.isEmpty, let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            let code = status == 422 ? AdyenSimulatorErrors.bodyNotAnObject : AdyenSimulatorErrors.genericCode(400)
            throw failure(status, code, AdyenSimulatorErrors.title(status), "The request body is not a JSON object.")
        }
        return object
    }

    func failure(
        _ status: Int, _ errorCode: String, _ title: String, _ detail: String,
        invalidFields: [(String, String, String)] = [], key: String? = nil
    ) -> SimulatedFailure {
        var response = restError(
            status: status, errorCode: errorCode, title: title, detail: detail, invalidFields: invalidFields)
        if let key { response = response.withHeader("Idempotency-Key", key) }
        return SimulatedFailure(response: response)
    }

    /// A `RestServiceError` body.
    func restError(
        status: Int, errorCode: String, title: String, detail: String, invalidFields: [(String, String, String)] = []
    ) -> SimulatedResponse {
        var object: [String: Any] = [
            "type": AdyenSimulatorErrors.typeURI(status), "title": title, "status": status, "detail": detail,
            "errorCode": errorCode,
            "requestId": state.ids.next(prefix: "", length: 16).uppercased(),
        ]
        if !invalidFields.isEmpty {
            object["invalidFields"] = invalidFields.map { ["name": $0.0, "value": $0.1, "message": $0.2] }
        }
        return .json(status, object)
    }

    /// What the simulated provisioning SDK answers to `sdkInput`: the first
    /// ``Seed/sdkOutputDigestLength`` bytes of its SHA-256, then `extra` (e.g. ``Seed/googlePayMarker``). The
    /// simulator accepts a POSTed `sdkOutput` only when it answers the `sdkInput` the session handed out last,
    /// as a real SDK's output is bound to the input it was given: an adapter that re-sent an old blob, or sent one
    /// round's output twice, fails.
    public static func sdkOutput(answering sdkInput: Data, extra: Data = Data()) -> Data {
        Data(SHA256.hash(data: sdkInput).prefix(Seed.sdkOutputDigestLength)) + extra
    }

    /// Whether `output` answers `sdkInput` (see ``sdkOutput(answering:extra:)``).
    static func answers(_ output: Data, _ sdkInput: Data) -> Bool {
        let expected = Data(SHA256.hash(data: sdkInput).prefix(Seed.sdkOutputDigestLength))
        return output.count >= expected.count && output.prefix(expected.count) == expected
    }

    /// The opaque `sdkInput` bytes: distinct for every instrument, session and round, and dependent on the
    /// `sdkOutput` they answer. Not meaningful to any real SDK.
    func sdkInput(instrument: String, session: Int, round: Int, output: Data) -> Data {
        var bytes = Data("adyen-simulator sdkInput \(instrument) session \(session) round \(round) ".utf8)
        bytes.append(contentsOf: [0xfb, 0xef, 0xbe, 0xff, 0x00, 0x3e, 0x3f])
        bytes.append(contentsOf: SHA256.hash(data: output).prefix(12))
        return bytes
    }

    /// `PaymentInstrument.status` words.
    static let instrumentStatuses = ["active", "inactive", "suspended", "closed"]
    /// `PaymentInstrumentUpdateRequest.statusReason` words.
    static let instrumentStatusReasons = [
        "accountClosure", "damaged", "endOfLife", "expired", "lost", "other", "stolen", "suspectedFraud",
        "transactionRule",
    ]

    /// ISO 8601 with the Amsterdam winter offset, as Adyen's examples show (`2021-01-01T01:00:00+01:00`).
    /// Written through the format style, not a new `DateFormatter` a call (a webhook per status change, a date per
    /// listed token).
    static func timestamp(_ date: Date) -> String {
        date.formatted(timestampStyle)
    }

    static let timestampStyle = Date.ISO8601FormatStyle(
        timeZoneSeparator: .colon, timeZone: TimeZone(secondsFromGMT: 3600) ?? .gmt)
}

/// A refusal in Adyen's shape, thrown inside handlers.
struct SimulatedFailure: Error {
    var response: SimulatedResponse
}

/// The simulator's mutable state, kept in the kit's stores.
final class AdyenSimulatorState: Sendable {
    let instruments = SimulatorStore<String, SimulatedInstrument>(AdyenSimulator.Seed.instruments)
    let tokens = SimulatorStore<String, SimulatedNetworkToken>(AdyenSimulator.Seed.tokens)
    let exchanges = SimulatorStore<String, SimulatedExchange>()
    /// The balance accounts that exist (the listing answers 404 for any other).
    let balanceAccounts: Set<String> = [
        AdyenSimulator.Seed.balanceAccountID, AdyenSimulator.Seed.emptyBalanceAccountID,
    ]
    let ids = DeterministicIDs(seed: 0xAD1E)
    let clock: SimulationClock
    private let ledgerBox: Mutex<IdempotencyLedger>
    /// The webhooks sent, oldest first (``AdyenSimulator/sentWebhooks()``).
    let outbox = Mutex<[AdyenSimulator.SentWebhook]>([])
    /// The relayed authorisations sent and what became of each, oldest first
    /// (``AdyenSimulator/relayedAuthorisations()``).
    let relayed = Mutex<[AdyenSimulator.RelayedAuthorisationRecord]>([])

    init(clock: SimulationClock) {
        self.clock = clock
        self.ledgerBox = Mutex(IdempotencyLedger(clock: clock))
    }

    /// Keys are kept for the simulator's lifetime (Adyen keeps them at least 31 days).
    var ledger: IdempotencyLedger { ledgerBox.withLock { $0 } }

    func reset() {
        instruments.reset(to: AdyenSimulator.Seed.instruments)
        tokens.reset(to: AdyenSimulator.Seed.tokens)
        exchanges.reset(to: [])
        ids.reset()
        ledgerBox.withLock { $0 = IdempotencyLedger(clock: clock) }
        outbox.withLock { $0 = [] }
        relayed.withLock { $0 = [] }
    }

    /// A GET of the activation data: starts a new session (replacing any unfinished one) and returns its first
    /// `sdkInput`, made by `input` from the session number.
    func startExchange(_ instrument: String, input: (Int) -> Data) -> Data {
        let previous = exchanges.get(instrument)?.session ?? 0
        let first = input(previous + 1)
        exchanges.put(
            instrument, SimulatedExchange(session: previous + 1, round: 0, completed: false, lastInput: first))
        return first
    }

    enum ExchangeStep {
        /// No exchange in progress (no GET first, or already completed).
        case notStarted
        /// The output does not answer the session's latest `sdkInput`.
        case stale
        /// The exchange after this round; `lastInput` is the `sdkInput` to answer with.
        case advanced(SimulatedExchange)
    }

    /// A POST of `output`: advances the exchange when `output` answers its latest `sdkInput`, and records the
    /// next one, made by `input` from the session and round.
    func advanceExchange(_ instrument: String, output: Data, input: (Int, Int) -> Data) -> ExchangeStep {
        var step = ExchangeStep.notStarted
        exchanges.update(instrument) { exchange in
            guard !exchange.completed else { return }
            guard AdyenSimulator.answers(output, exchange.lastInput) else {
                step = .stale
                return
            }
            exchange.round += 1
            exchange.completed = exchange.round >= AdyenSimulator.Seed.roundTripsToComplete
            exchange.lastInput = input(exchange.session, exchange.round)
            step = .advanced(exchange)
        }
        return step
    }

    /// The network token a completed exchange creates.
    func createToken(on instrument: SimulatedInstrument, requestor: String) -> SimulatedNetworkToken {
        let number = tokens.all().count + 1
        let id = "NWTK" + String(repeating: "0", count: max(0, 26 - String(number).count - 2)) + "77" + String(number)
        let token = SimulatedNetworkToken(
            id: id, paymentInstrumentID: instrument.id, status: "active", type: "wallet",
            brandVariant: instrument.card?.brandVariant ?? "",
            tokenLastFour: String(String(format: "%04d", 7700 + number).suffix(4)), creationDate: clock.now(),
            tokenRequestorName: requestor,
            deviceOS: requestor == "Google Pay" ? "android" : "ios"
        )
        tokens.put(id, token)
        return token
    }
}
