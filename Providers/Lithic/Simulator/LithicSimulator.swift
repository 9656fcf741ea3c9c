import CardGatewaySimulation
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A stand-in for Lithic's API (`/v1`) for what the gateway uses: cards (get, list, create, update state),
/// tokenizations (list, get, pause, unpause, deactivate), digital wallet provisioning, embed sessions for card
/// details and PIN setting, Standard Webhooks deliveries and Auth Stream Access requests. The API key is checked on
/// every request (the whole `Authorization` header); errors are Lithic's `{"message", "debugging_request_id"}`.
/// `CLOSED` is final for cards and `DEACTIVATED` for tokenizations.
///
/// Seed data and credentials: ``Seed``.
public struct LithicSimulator: ProviderSimulator {
    /// `"lithic"`.
    public var kindName: String { "lithic" }
    /// `""`: Lithic's paths start with `/v1` below the host (`https://sandbox.lithic.com/v1/cards`).
    public var basePath: String { "" }
    public var clock: SimulationClock? { simulationClock }
    /// The API key and webhook signatures are masked in the journal.
    public var sensitiveHeaderNames: Set<String> { ["authorization", "webhook-signature"] }
    /// Apple's certificate, nonce and signature are masked in the journal (names as the journal folds them).
    public var sensitiveBodyFields: Set<String> { ["certificate", "nonce", "noncesignature"] }

    public let simulationClock: SimulationClock
    let state: LithicSimulatorState

    public init(clock: SimulationClock = SimulationClock()) {
        self.simulationClock = clock
        self.state = LithicSimulatorState(clock: clock)
    }

    /// Back to the documented seed.
    public func reset() async { state.reset() }

    /// A card's current state, or nil.
    public func cardState(_ token: String) -> String? { state.cards.get(token)?.state }
    /// A tokenization's current status, or nil.
    public func tokenStatus(_ token: String) -> String? { state.tokens.get(token)?.status }

    // MARK: Routes

    public func registerRoutes(on router: Router<SimulatorContext>) {
        router.get("/v1/cards") { request, context in
            await self.handle(request, context) { _ in try self.listCards(request) }
        }
        router.post("/v1/cards") { request, context in
            await self.handle(request, context) { body in try self.createCard(request, body) }
        }
        router.get("/v1/cards/:card_token") { request, context in
            await self.handle(request, context) { _ in try self.getCard(context) }
        }
        router.patch("/v1/cards/:card_token") { request, context in
            await self.handle(request, context) { body in try self.updateCard(context, body) }
        }
        router.get("/v1/tokenizations") { request, context in
            await self.handle(request, context) { _ in try self.listTokenizations(request) }
        }
        router.get("/v1/tokenizations/:tokenization_token") { request, context in
            await self.handle(request, context) { _ in try self.getTokenization(context) }
        }
        for action in ["pause", "unpause", "deactivate"] {
            router.post("/v1/tokenizations/:tokenization_token/\(action)") { request, context in
                await self.handle(request, context) { _ in try self.tokenizationAction(action, context) }
            }
        }
        router.post("/v1/cards/:card_token/provision") { request, context in
            await self.handle(request, context) { body in try self.provision(context, body) }
        }
        router.post("/v1/cards/:card_token/embed") { request, context in
            await self.handle(request, context) { body in try self.createEmbedSession(context, body) }
        }
        router.get("/v1/embed") { request, _ in
            self.embedFrame(request).hummingbirdResponse
        }
    }

    /// Lithic's error body for an injected fault, an unknown route or a handler error.
    public func faultResponse(status: Int, message: String) -> SimulatedResponse {
        LithicSimulatorErrors.body(status, message)
    }

    // MARK: Handling

    func handle(
        _ request: Request, _ context: SimulatorContext, _ body: (Data) throws -> SimulatedResponse
    ) async -> Response {
        do {
            try authorize(request)
            let buffer = try await request.body.collect(upTo: 1 << 20)
            return try body(Data(buffer.readableBytesView)).hummingbirdResponse
        } catch let error as LithicSimulatorFailure {
            return error.response.hummingbirdResponse
        } catch {
            return faultResponse(status: 400, message: "The request could not be read.").hummingbirdResponse
        }
    }

    /// The API key as the whole `Authorization` header (`ApiKeyAuth`), compared in constant time.
    private func authorize(_ request: Request) throws {
        guard let key = request.headers[.authorization], !key.isEmpty else {
            throw failure(401, LithicSimulatorErrors.missingKey)
        }
        guard ConstantTime.equals(key.utf8, Seed.apiKey.utf8) else {
            throw failure(401, LithicSimulatorErrors.unknownKey)
        }
    }

    // MARK: Cards

    private func getCard(_ context: SimulatorContext) throws -> SimulatedResponse {
        let token = context.parameters.get("card_token") ?? ""
        guard let card = state.cards.get(token) else { throw failure(404, "Card not found.") }
        return .json(200, card.json())
    }

    /// `GET /v1/cards?account_token=&state=&page_size=&starting_after=&ending_before=`: the program's cards in
    /// creation order, `page_size` 1–100 (50 by default); answers `{data, has_more}`.
    private func listCards(_ request: Request) throws -> SimulatedResponse {
        let query = SimulatorHTTP.queryItems(request.uri.query)
        func parameter(_ name: String) -> String? { query.first { $0.name == name }?.value }
        var cards = state.cards.all().sorted { $0.sequence < $1.sequence }
        if let account = parameter("account_token") {
            guard Self.isUUID(account) else { throw invalid("account_token must be a UUID") }
            cards = cards.filter { $0.accountToken == account }
        }
        if let wanted = parameter("state") {
            guard Self.cardStates.contains(wanted) else {
                throw invalid("state must be one of \(Self.cardStates.joined(separator: ", "))")
            }
            cards = cards.filter { $0.state == wanted }
        }
        return try page(query, items: cards.map { ($0.token, $0.json()) })
    }

    /// `POST /v1/cards`: `type` required (the document's enumeration), `account_token` and `card_program_token`
    /// (UUIDs of the seed), `memo`, `state` (`OPEN` or `PAUSED`, `OPEN` by default). A virtual card is `OPEN` at
    /// once, a physical one `PENDING_FULFILLMENT`. `Idempotency-Key` (a UUID) replays the first answer to the same
    /// body and refuses another body with 422 (*unconfirmed*: the document names the header only).
    private func createCard(_ request: Request, _ body: Data) throws -> SimulatedResponse {
        let object = try jsonObject(body)
        guard let type = object["type"] as? String, Self.cardTypes.contains(type) else {
            throw invalid("type must be one of \(Self.cardTypes.joined(separator: ", "))")
        }
        let account = object["account_token"] as? String ?? Seed.accountToken
        guard Self.isUUID(account), Seed.accounts.contains(account) else {
            throw invalid("account_token does not name an account of this program")
        }
        let program = object["card_program_token"] as? String ?? Seed.cardProgram
        guard program == Seed.cardProgram else { throw invalid("card_program_token does not name a card program") }
        let initial = object["state"] as? String ?? "OPEN"
        guard ["OPEN", "PAUSED"].contains(initial) else { throw invalid("state must be OPEN or PAUSED") }
        if let memo = object["memo"], !(memo is String) { throw invalid("memo must be a string") }
        let work: () throws -> SimulatedResponse = {
            let sequence = state.cards.count + 1
            let token = state.ids.uuid()
            let card = LithicSimulatorCard(
                token: token, accountToken: account, cardProgramToken: program,
                state: type == "PHYSICAL" ? "PENDING_FULFILLMENT" : initial, substatus: nil,
                lastFour: String(format: "%04d", state.ids.nextInt(in: 0...9999)), type: type, expMonth: "11",
                expYear: "2030", memo: object["memo"] as? String ?? "", created: simulationClock.now(),
                sequence: sequence)
            state.cards.put(token, card)
            return .json(200, card.json())
        }
        guard let key = request.headers[HTTPField.Name("Idempotency-Key")!] else { return try work() }
        guard Self.isUUID(key) else { throw invalid("Idempotency-Key must be a UUID") }
        let fingerprint = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        switch state.idempotency.begin(key: key, scope: "POST /v1/cards", fingerprint: fingerprint) {
        case .proceed:
            do {
                let response = try work()
                state.idempotency.record(
                    key: key, scope: "POST /v1/cards", fingerprint: fingerprint, response: response)
                return response
            } catch {
                state.idempotency.abandon(key: key, scope: "POST /v1/cards")
                throw error
            }
        case .replay(let first):
            return first
        case .conflict, .expired, .inProgress:
            throw failure(422, "Idempotency-Key was already used with another request.")
        }
    }

    /// `PATCH /v1/cards/{card_token}`: `state` (`CLOSED`, `OPEN`, `PAUSED`), `substatus` (the document's
    /// enumeration), `comment`, `memo`. A `CLOSED` card cannot change ("Closing a card cannot be undone"; the status
    /// and message of the refusal are *unconfirmed*: 400).
    private func updateCard(_ context: SimulatorContext, _ body: Data) throws -> SimulatedResponse {
        let token = context.parameters.get("card_token") ?? ""
        let object = try jsonObject(body)
        let target = object["state"] as? String
        if let target, !["CLOSED", "OPEN", "PAUSED"].contains(target) {
            throw invalid("state must be CLOSED, OPEN or PAUSED")
        }
        if let substatus = object["substatus"] as? String, !Self.substatuses.contains(substatus) {
            throw invalid("substatus must be one of \(Self.substatuses.joined(separator: ", "))")
        }
        guard let card = state.cards.get(token) else { throw failure(404, "Card not found.") }
        guard card.state != "CLOSED" || target == nil || target == "CLOSED" else {
            throw invalid("Card is CLOSED; a closed card cannot be reopened.")
        }
        let updated =
            state.cards.update(token) {
                if let target { $0.state = target }
                if let substatus = object["substatus"] as? String { $0.substatus = substatus }
                if target == "OPEN" { $0.substatus = nil }
                if let comment = object["comment"] as? String { $0.comment = comment }
                if let memo = object["memo"] as? String { $0.memo = memo }
            } ?? card
        return .json(200, updated.json())
    }

    // MARK: Tokenizations

    /// `GET /v1/tokenizations?card_token=&page_size=&starting_after=&tokenization_channel=`: digital wallet
    /// tokenizations unless the channel says otherwise (the simulator has no merchant ones), in creation order.
    private func listTokenizations(_ request: Request) throws -> SimulatedResponse {
        let query = SimulatorHTTP.queryItems(request.uri.query)
        var tokens = state.tokens.all().sorted { $0.sequence < $1.sequence }
        if let card = query.first(where: { $0.name == "card_token" })?.value {
            guard Self.isUUID(card) else { throw invalid("card_token must be a UUID") }
            tokens = tokens.filter { $0.cardToken == card }
        }
        if let channel = query.first(where: { $0.name == "tokenization_channel" })?.value,
            !["DIGITAL_WALLET", "MERCHANT", "ALL"].contains(channel)
        {
            throw invalid("tokenization_channel must be DIGITAL_WALLET, MERCHANT or ALL")
        }
        return try page(query, items: tokens.map { ($0.token, $0.json()) })
    }

    private func getTokenization(_ context: SimulatorContext) throws -> SimulatedResponse {
        let token = context.parameters.get("tokenization_token") ?? ""
        guard let stored = state.tokens.get(token) else { throw failure(404, "Tokenization not found.") }
        return .json(200, stored.json())
    }

    /// `POST /v1/tokenizations/{token}/pause` (only `ACTIVE`), `/unpause` (only `PAUSED`), `/deactivate` (any but
    /// `DEACTIVATED`): 200 with an empty body; a status the action does not take is 409 (the document's `Conflict`).
    /// The simulator plays the network too, so the status changes at once (Lithic: "When the card network pauses the
    /// tokenization, the state will be updated").
    private func tokenizationAction(_ action: String, _ context: SimulatorContext) throws -> SimulatedResponse {
        let token = context.parameters.get("tokenization_token") ?? ""
        guard let stored = state.tokens.get(token) else { throw failure(404, "Tokenization not found.") }
        let target: String
        switch action {
        case "pause":
            guard stored.status == "ACTIVE" else { throw failure(409, "Only ACTIVE tokenizations can be paused.") }
            target = "PAUSED"
        case "unpause":
            guard stored.status == "PAUSED" else { throw failure(409, "Only PAUSED tokenizations can be unpaused.") }
            target = "ACTIVE"
        default:
            guard stored.status != "DEACTIVATED" else { throw failure(409, "The tokenization is already deactivated.") }
            target = "DEACTIVATED"
        }
        let now = simulationClock.now()
        state.tokens.update(token) {
            $0.status = target
            $0.updated = now
        }
        return SimulatedResponse(status: 200)
    }

    // MARK: Helpers

    /// Lithic's cursor paging: `page_size` 1–100 (50 by default), `starting_after` / `ending_before` a token of the
    /// listing → `{data, has_more}`.
    private func page(
        _ query: [(name: String, value: String)], items: [(token: String, json: [String: Any])]
    ) throws -> SimulatedResponse {
        func parameter(_ name: String) -> String? { query.first { $0.name == name }?.value }
        var size = 50
        if let text = parameter("page_size") {
            guard let number = Int(text), (1...100).contains(number) else {
                throw invalid("page_size must be from 1 to 100")
            }
            size = number
        }
        var window = items[...]
        if let after = parameter("starting_after") {
            guard let index = items.firstIndex(where: { $0.token == after }) else {
                throw invalid("starting_after does not name an item of this listing")
            }
            window = items[(index + 1)...]
        } else if let before = parameter("ending_before") {
            guard let index = items.firstIndex(where: { $0.token == before }) else {
                throw invalid("ending_before does not name an item of this listing")
            }
            window = items[..<index].suffix(size)[...]
        }
        let slice = Array(window.prefix(size))
        return .json(200, ["data": slice.map(\.json), "has_more": window.count > slice.count])
    }

    func jsonObject(_ body: Data) throws -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            throw invalid("The request body must be a JSON object.")
        }
        return object
    }

    func invalid(_ message: String) -> LithicSimulatorFailure { failure(400, message) }

    func failure(_ status: Int, _ message: String) -> LithicSimulatorFailure {
        LithicSimulatorFailure(response: LithicSimulatorErrors.body(status, message))
    }

    static func isUUID(_ text: String) -> Bool { UUID(uuidString: text) != nil }

    /// The document's enumerations.
    static let cardStates = ["CLOSED", "OPEN", "PAUSED", "PENDING_ACTIVATION", "PENDING_FULFILLMENT"]
    static let cardTypes = ["MERCHANT_LOCKED", "PHYSICAL", "SINGLE_USE", "VIRTUAL", "UNLOCKED", "DIGITAL_WALLET"]
    static let substatuses = [
        "LOST", "COMPROMISED", "DAMAGED", "END_USER_REQUEST", "ISSUER_REQUEST", "NOT_ACTIVE", "SUSPICIOUS_ACTIVITY",
        "INTERNAL_REVIEW", "EXPIRED", "UNDELIVERABLE", "OTHER",
    ]
}
