import CardGatewaySimulation
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A stand-in for Marqeta's Core API (`/v3`) for what the gateway uses: cards (retrieve, list by user, create), card
/// transitions, Apple Pay, Google Pay and Samsung Pay push-provisioning requests, digital wallet tokens (list by
/// card) and their transitions, and signed webhooks. HTTP Basic (application token, access token) is checked on
/// every request; errors are Marqeta's `{"error_code", "error_message"}`. Illegal transitions are refused as
/// Marqeta's state machines refuse them: `TERMINATED` is final for cards and tokens, and `REQUEST_DECLINED` for
/// tokens.
///
/// Seed data and credentials: ``Seed``; the error codes it chooses: ``MarqetaSimulatorErrors``.
public struct MarqetaSimulator: ProviderSimulator {
    /// `"marqeta"`.
    public var kindName: String { "marqeta" }
    /// `"/v3"`, as in Marqeta's base URLs.
    public var basePath: String { "/v3" }
    public var clock: SimulationClock? { simulationClock }
    /// Basic credentials and webhook signatures are masked in the journal.
    public var sensitiveHeaderNames: Set<String> { ["authorization", "x-marqeta-signature"] }
    /// Apple's certificates, nonce and signature are masked in the journal (names as the journal folds them).
    public var sensitiveBodyFields: Set<String> { ["certificates", "nonce", "noncesignature"] }

    public let simulationClock: SimulationClock
    let state: MarqetaSimulatorState

    public init(clock: SimulationClock = SimulationClock()) {
        self.simulationClock = clock
        self.state = MarqetaSimulatorState(clock: clock)
    }

    /// Back to the documented seed.
    public func reset() async { state.reset() }

    /// SHA-256 hex digests of the bytes the last Apple Pay provisioning request carried, Base64-decoded:
    /// certificates in order, then the nonce, then the nonce signature. The journal masks those fields.
    public var lastApplePayDigests: [String] { state.lastApplePayDigests.withLock { $0 } }

    /// A card's current state, or nil.
    public func cardState(_ token: String) -> String? { state.cards.get(token)?.state }
    /// A digital wallet token's current state, or nil.
    public func tokenState(_ token: String) -> String? { state.tokens.get(token)?.state }

    // MARK: Routes

    public func registerRoutes(on router: Router<SimulatorContext>) {
        let base = basePath
        router.get("\(base)/cards/user/:token") { request, context in await self.handle(request, context) { _ in try self.listCards(request, context) } }
        router.get("\(base)/cards/:token") { request, context in await self.handle(request, context) { _ in try self.getCard(context) } }
        router.post("\(base)/cards") { request, context in await self.handle(request, context) { body in try self.createCard(body) } }
        router.post("\(base)/cardtransitions") { request, context in await self.handle(request, context) { body in try self.cardTransition(body) } }
        router.post("\(base)/digitalwalletprovisionrequests/applepay") { request, context in
            await self.handle(request, context) { body in try self.provisionApple(body) }
        }
        router.post("\(base)/digitalwalletprovisionrequests/androidpay") { request, context in
            await self.handle(request, context) { body in try self.provisionPush(body, wallet: "androidpay") }
        }
        router.post("\(base)/digitalwalletprovisionrequests/samsungpay") { request, context in
            await self.handle(request, context) { body in try self.provisionPush(body, wallet: "samsungpay") }
        }
        router.get("\(base)/digitalwallettokens/card/:token") { request, context in
            await self.handle(request, context) { _ in try self.listTokens(request, context) }
        }
        router.post("\(base)/digitalwallettokentransitions") { request, context in
            await self.handle(request, context) { body in try self.tokenTransition(body) }
        }
    }

    /// Marqeta's error body for an injected fault, an unknown route or a handler error.
    public func faultResponse(status: Int, message: String) -> SimulatedResponse {
        errorBody(status, MarqetaSimulatorErrors.genericCode(status), message)
    }

    // MARK: Handling

    private func handle(_ request: Request, _ context: SimulatorContext, _ body: (Data) throws -> SimulatedResponse) async -> Response {
        do {
            try authorize(request)
            let buffer = try await request.body.collect(upTo: 1 << 20)
            return try body(Data(buffer.readableBytesView)).hummingbirdResponse
        } catch let error as MarqetaSimulatedFailure {
            return error.response.hummingbirdResponse
        } catch {
            return faultResponse(status: 400, message: "The request could not be read.").hummingbirdResponse
        }
    }

    /// HTTP Basic: the application token and the access token, compared in constant time.
    private func authorize(_ request: Request) throws {
        guard let basic = SimulatorHTTP.basicCredentials(request.headers[.authorization]),
            ConstantTime.equals(basic.user.utf8, Seed.applicationToken.utf8), ConstantTime.equals(basic.password.utf8, Seed.accessToken.utf8)
        else {
            throw failure(401, MarqetaSimulatorErrors.unauthorized, "Authentication failed: check the application token and access token")
        }
    }

    // MARK: Cards

    private func getCard(_ context: SimulatorContext) throws -> SimulatedResponse {
        let token = context.parameters.get("token") ?? ""
        guard let card = state.cards.get(token) else { throw failure(404, MarqetaSimulatorErrors.notFound, "Card not found") }
        return .json(200, card.json(createdTime: Self.timestamp(card.created)))
    }

    /// `GET /cards/user/{token}?count=&start_index=`: the user's cards in creation order, `count` 1–100 (default 5).
    private func listCards(_ request: Request, _ context: SimulatorContext) throws -> SimulatedResponse {
        let user = context.parameters.get("token") ?? ""
        guard Seed.users.contains(user) else { throw failure(404, MarqetaSimulatorErrors.notFound, "User not found") }
        let cards = state.cards.all().filter { $0.userToken == user }.sorted { $0.sequence < $1.sequence }
        return try page(request, items: cards.map { $0.json(createdTime: Self.timestamp($0.created)) })
    }

    /// `POST /cards` `{user_token, card_product_token, token?}`: 201 with the card; a virtual product's card is
    /// `ACTIVE` upon issue, a physical one `UNACTIVATED`.
    private func createCard(_ body: Data) throws -> SimulatedResponse {
        let object = try jsonObject(body)
        let user = try string(object, "user_token", max: 36)
        let product = try string(object, "card_product_token", max: 36)
        guard Seed.users.contains(user) else { throw failure(400, MarqetaSimulatorErrors.unknownReference, "User not found: \(user)") }
        guard let type = Seed.cardProducts[product] else { throw failure(400, MarqetaSimulatorErrors.unknownReference, "Card product not found: \(product)") }
        let sequence = state.cards.count + 1
        let token = (object["token"] as? String) ?? "card_sim_new_" + String(format: "%04d", sequence)
        guard (1...36).contains(token.count) else { throw invalid("token must be 1-36 chars") }
        let lastFour = String(format: "%04d", state.ids.nextInt(in: 0...9999))
        let card = SimulatedMarqetaCard(
            token: token, userToken: user, cardProductToken: product, lastFour: lastFour, expiration: "1230", state: type == "VIRTUAL_PAN" ? "ACTIVE" : "UNACTIVATED",
            stateReason: "New card", instrumentType: type, created: simulationClock.now(), sequence: sequence
        )
        guard state.cards.insertIfAbsent(token, card) else { throw failure(409, MarqetaSimulatorErrors.duplicateToken, "Token already associated with a different payload") }
        return .json(201, card.json(createdTime: Self.timestamp(card.created)))
    }

    /// `POST /cardtransitions`: `card_token`, `state` (`ACTIVE`, `SUSPENDED`, `TERMINATED`), `channel` and
    /// `reason_code` checked; `TERMINATED` is final and a card cannot go to the state it is in.
    private func cardTransition(_ body: Data) throws -> SimulatedResponse {
        let object = try jsonObject(body)
        let token = try string(object, "card_token", max: 36)
        let target = try string(object, "state", max: 20)
        let channel = try string(object, "channel", max: 20)
        guard ["ACTIVE", "SUSPENDED", "TERMINATED"].contains(target) else { throw invalid("state must be ACTIVE, SUSPENDED or TERMINATED") }
        guard ["API", "IVR", "FRAUD", "ADMIN", "SYSTEM"].contains(channel) else { throw invalid("channel must be API, IVR, FRAUD, ADMIN or SYSTEM") }
        let reasonCode = object["reason_code"] as? String
        if let reasonCode, !Self.reasonCodes.contains(reasonCode) { throw invalid("reason_code is not a Marqeta reason code") }
        if let reason = object["reason"] as? String, reason.count > 255 { throw invalid("reason must be at most 255 chars") }
        guard let card = state.cards.get(token) else { throw failure(404, MarqetaSimulatorErrors.notFound, "Card not found") }
        guard card.state != "TERMINATED" else {
            throw failure(400, MarqetaSimulatorErrors.illegalCardTransition, "Card is TERMINATED; a terminated card cannot transition")
        }
        guard card.state != target else { throw failure(400, MarqetaSimulatorErrors.illegalCardTransition, "Card is already \(target)") }
        state.cards.update(token) { $0.state = target; $0.stateReason = (object["reason"] as? String) ?? "" }
        let type: String
        switch (card.state, target) {
        case ("SUSPENDED", "ACTIVE"): type = "state.reinstated"
        case (_, "ACTIVE"): type = "state.activated"
        case (_, "SUSPENDED"): type = "state.suspended"
        default: type = "state.terminated"
        }
        let now = Self.timestamp(simulationClock.now())
        var answer: [String: Any] = [
            "token": state.ids.uuid(), "card_token": token, "user_token": card.userToken, "state": target, "type": type, "channel": channel,
            "fulfillment_status": card.instrumentType == "VIRTUAL_PAN" ? "DIGITALLY_PRESENTED" : "ISSUED", "card_product_token": card.cardProductToken,
            "last_four": card.lastFour, "expiration": card.expiration, "expiration_time": Self.expirationTime(card.expiration), "created_time": now,
        ]
        if let reasonCode { answer["reason_code"] = reasonCode }
        if let reason = object["reason"] as? String { answer["reason"] = reason }
        return .json(201, answer)
    }

    // MARK: Provisioning

    /// `POST /digitalwalletprovisionrequests/applepay`: certificates (one or more), nonce and nonce signature, all
    /// standard Base64, for an `ACTIVE` card; answers the three payload parts in Base64, derived from the inputs.
    private func provisionApple(_ body: Data) throws -> SimulatedResponse {
        let object = try jsonObject(body)
        let card = try provisionableCard(object)
        guard let certificates = object["certificates"] as? [String], !certificates.isEmpty else {
            throw invalid("certificates must be an array of one or more Base64 certificates")
        }
        var decoded: [Data] = []
        for certificate in certificates {
            guard let bytes = Self.strictBase64(certificate) else { throw invalid("certificates must be Base64-encoded") }
            decoded.append(bytes)
        }
        guard let nonce = (object["nonce"] as? String).flatMap(Self.strictBase64) else { throw invalid("nonce must be Base64-encoded") }
        guard let signature = (object["nonce_signature"] as? String).flatMap(Self.strictBase64) else { throw invalid("nonce_signature must be Base64-encoded") }
        state.lastApplePayDigests.withLock { $0 = (decoded + [nonce, signature]).map { Self.hex(SHA256.hash(data: $0)) } }
        let seed = Data(card.token.utf8) + nonce + signature
        func part(_ label: String, _ size: Int) -> String {
            var bytes = Data()
            var counter = 0
            while bytes.count < size {
                bytes.append(contentsOf: SHA256.hash(data: Data("\(label)|\(counter)|".utf8) + seed))
                counter += 1
            }
            return bytes.prefix(size).base64EncodedString()
        }
        let now = Self.timestamp(simulationClock.now())
        return .json(201, [
            "created_time": now, "last_modified_time": now, "card_token": card.token,
            "encrypted_pass_data": part("encrypted_pass_data", 96), "activation_data": part("activation_data", 48),
            "ephemeral_public_key": part("ephemeral_public_key", 65),
        ])
    }

    /// `POST …/androidpay` (`wallet_account_id`, `device_id`) and `POST …/samsungpay` (`wallet_user_id`,
    /// `device_id` 1–24 chars): `push_tokenize_request_data` with an opaque payment card made from the inputs.
    private func provisionPush(_ body: Data, wallet: String) throws -> SimulatedResponse {
        let object = try jsonObject(body)
        let card = try provisionableCard(object)
        let accountField = wallet == "samsungpay" ? "wallet_user_id" : "wallet_account_id"
        let account = try string(object, accountField, max: 100)
        let device = try string(object, "device_id", max: wallet == "samsungpay" ? 24 : 100)
        var opaque = Data("\(wallet)|\(card.token)|".utf8)
        opaque.append(contentsOf: SHA256.hash(data: Data("\(account)|\(device)".utf8)))
        opaque.append(contentsOf: [0xc0, 0xff, 0xee, 0x00, 0x01])
        let now = Self.timestamp(simulationClock.now())
        return .json(201, [
            "created_time": now, "last_modified_time": now, "card_token": card.token,
            "push_tokenize_request_data": [
                "display_name": "Marqeta Sim Card", "last_digits": card.lastFour, "network": "VISA", "token_service_provider": "TOKEN_PROVIDER_VISA",
                "opaque_payment_card": opaque.base64EncodedString(),
                "user_address": ["name": "Sim Cardholder", "address1": "180 Grand Ave", "city": "Oakland", "state": "CA", "postal_code": "94612", "country": "US"],
            ] as [String: Any],
        ])
    }

    /// The card of a provisioning request: `card_token`, `device_type` and `provisioning_app_version` checked; the
    /// card must exist and be `ACTIVE`.
    private func provisionableCard(_ object: [String: Any]) throws -> SimulatedMarqetaCard {
        let token = try string(object, "card_token", max: 36)
        let device = try string(object, "device_type", max: 20)
        guard ["MOBILE_PHONE", "WATCH", "TABLET"].contains(device) else { throw invalid("device_type must be MOBILE_PHONE, WATCH or TABLET") }
        _ = try string(object, "provisioning_app_version", max: 50)
        guard let card = state.cards.get(token) else { throw failure(404, MarqetaSimulatorErrors.notFound, "Card not found") }
        guard card.state == "ACTIVE" else { throw failure(400, MarqetaSimulatorErrors.cardNotActive, "Card is \(card.state); only ACTIVE cards can be provisioned") }
        return card
    }

    // MARK: Digital wallet tokens

    private func listTokens(_ request: Request, _ context: SimulatorContext) throws -> SimulatedResponse {
        let card = context.parameters.get("token") ?? ""
        guard state.cards.get(card) != nil else { throw failure(404, MarqetaSimulatorErrors.notFound, "Card not found") }
        let tokens = state.tokens.all().filter { $0.cardToken == card }.sorted { $0.sequence < $1.sequence }
        return try page(request, items: tokens.map { $0.json(createdTime: Self.timestamp($0.created)) })
    }

    /// `POST /digitalwallettokentransitions`: `digital_wallet_token.token` (and `card_token`, if given, must be the
    /// token's card), `state` `ACTIVE`, `SUSPENDED` or `TERMINATED`; `TERMINATED` and `REQUEST_DECLINED` are final.
    private func tokenTransition(_ body: Data) throws -> SimulatedResponse {
        let object = try jsonObject(body)
        guard let reference = object["digital_wallet_token"] as? [String: Any] else { throw invalid("digital_wallet_token is required") }
        let token = try string(reference, "token", max: 36)
        let target = try string(object, "state", max: 20)
        guard ["ACTIVE", "SUSPENDED", "TERMINATED"].contains(target) else { throw invalid("state must be ACTIVE, SUSPENDED or TERMINATED") }
        if let channel = object["channel"] as? String, !["TOKEN_SERVICE_PROVIDER", "TOKEN_SERVICE_PROVIDER_API", "DIGITAL_WALLET", "API", "IVR", "FRAUD", "ADMIN", "SYSTEM"].contains(channel) {
            throw invalid("channel is not a Marqeta channel")
        }
        if let reasonCode = object["reason_code"] as? String, !Self.reasonCodes.contains(reasonCode) { throw invalid("reason_code is not a Marqeta reason code") }
        guard let stored = state.tokens.get(token) else { throw failure(404, MarqetaSimulatorErrors.notFound, "Digital wallet token not found") }
        if let card = reference["card_token"] as? String, card != stored.cardToken {
            throw failure(404, MarqetaSimulatorErrors.notFound, "Digital wallet token not found for this card")
        }
        guard stored.state != "TERMINATED", stored.state != "REQUEST_DECLINED" else {
            throw failure(400, MarqetaSimulatorErrors.illegalTokenTransition, "Digital wallet token is \(stored.state); it cannot transition")
        }
        guard stored.state != target else { throw failure(400, MarqetaSimulatorErrors.illegalTokenTransition, "Digital wallet token is already \(target)") }
        let updated = state.tokens.update(token) { $0.state = target } ?? stored
        let type: String
        switch target {
        case "ACTIVE": type = stored.state == "SUSPENDED" ? "state.reinstated" : "state.activated"
        case "SUSPENDED": type = "state.suspended"
        default: type = "state.terminated"
        }
        let now = Self.timestamp(simulationClock.now())
        return .json(201, [
            "token": state.ids.uuid(), "state": target, "type": type, "channel": object["channel"] as? String ?? "API", "created_time": now,
            "fulfillment_status": "PROVISIONED", "reason_code": object["reason_code"] as? String ?? "01",
            "digital_wallet_token": updated.json(createdTime: Self.timestamp(updated.created)),
        ])
    }

    // MARK: Helpers

    /// Marqeta's paging: `count` (1–100, default 5) and `start_index` (default 0) → `count`, `start_index`,
    /// `end_index`, `is_more`, `data`.
    private func page(_ request: Request, items: [[String: Any]]) throws -> SimulatedResponse {
        let query = SimulatorHTTP.queryItems(request.uri.query)
        func parameter(_ name: String) -> String? { query.first { $0.name == name }?.value }
        var count = 5
        var start = 0
        if let text = parameter("count") {
            guard let number = Int(text), (1...100).contains(number) else { throw invalid("count must be from 1 to 100") }
            count = number
        }
        if let text = parameter("start_index") {
            guard let number = Int(text), number >= 0 else { throw invalid("start_index must not be negative") }
            start = number
        }
        let slice = Array(items.dropFirst(start).prefix(count))
        return .json(200, [
            "count": slice.count, "start_index": start, "end_index": slice.isEmpty ? start : start + slice.count - 1,
            "is_more": start + slice.count < items.count, "data": slice,
        ])
    }

    private func jsonObject(_ body: Data) throws -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { throw invalid("The request body must be a JSON object") }
        return object
    }

    private func string(_ object: [String: Any], _ field: String, max: Int) throws -> String {
        guard let value = object[field] as? String, (1...max).contains(value.count) else { throw invalid("\(field) is required (1-\(max) chars)") }
        return value
    }

    private func invalid(_ message: String) -> MarqetaSimulatedFailure {
        failure(400, MarqetaSimulatorErrors.invalidField, message)
    }

    func failure(_ status: Int, _ code: String, _ message: String) -> MarqetaSimulatedFailure {
        MarqetaSimulatedFailure(response: errorBody(status, code, message))
    }

    func errorBody(_ status: Int, _ code: String, _ message: String) -> SimulatedResponse {
        .json(status, ["error_code": code, "error_message": message])
    }

    /// Marqeta's transition `reason_code`s.
    static let reasonCodes: Set<String> = Set((0...32).map { String(format: "%02d", $0) } + ["86"])

    /// Standard Base64 with padding, nothing else.
    static func strictBase64(_ text: String) -> Data? {
        guard !text.isEmpty, text.count % 4 == 0,
            text.utf8.allSatisfy({ ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 43 || $0 == 47 || $0 == 61 })
        else { return nil }
        return Data(base64Encoded: text)
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String { digest.map { String(format: "%02x", $0) }.joined() }

    /// `2025-01-01T00:00:00Z`.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }

    /// The end of the expiry month of `MMYY`, as `expiration_time`.
    static func expirationTime(_ expiration: String) -> String {
        guard expiration.count == 4, let month = Int(expiration.prefix(2)), let year = Int(expiration.suffix(2)) else { return "" }
        return String(format: "20%02d-%02d-28T23:59:59Z", year, month)
    }
}
