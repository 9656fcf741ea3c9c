@_spi(AdapterSupport) import CardGateway
import Foundation

/// The normalised lifecycle on Marqeta: a user's cards listed and created, card transitions for lock (`SUSPENDED`),
/// unlock (`ACTIVE`) and cancel (`TERMINATED`, final), and digital wallet token transitions for suspend, resume
/// and delete (`TERMINATED`, final). Every transition is a `POST` naming its object in the body, with
/// `channel: "API"` and a `reason_code`; the object is read first, so a change its current state does not allow is
/// ``CardGatewayError/Code/invalidCardState`` before anything is written.
extension MarqetaProvider {
    // MARK: CardListing

    /// `GET /cards/user/{user_token}?count=&start_index=`: `customer` is the user token, `limit` is `count` (1–100),
    /// `offset` (or the previous page's cursor) is `start_index`. Marqeta's `is_more` decides whether another page
    /// follows; the next page's `start_index` is ``CardPage/nextCursor``. Marqeta's listing takes no state or type
    /// filter, so `statuses` and `types` filter each page here: a filtered page may hold fewer cards than `limit`.
    public func listCards(_ query: CardQuery, context: OperationContext) async throws -> CardPage {
        var problems = ValidationProblems()
        if let customer = query.customer, !customer.isEmpty {
            ProviderIDs.check(
                customer, field: "customer", what: "a Marqeta user token", maxLength: MarqetaAPI.tokenMaxLength,
                into: &problems)
        } else {
            problems.add("customer", "is required: Marqeta lists cards per user token")
        }
        if let limit = query.limit {
            problems.require(
                MarqetaAPI.listCountRange.contains(limit), "limit",
                "must be from \(MarqetaAPI.listCountRange.lowerBound) to \(MarqetaAPI.listCountRange.upperBound)")
        }
        problems.require(query.offset >= 0, "offset", "must not be negative")
        var cursorStart: Int?
        if let cursor = query.cursor {
            if let number = Int(cursor), number >= 0 {
                cursorStart = number
            } else {
                problems.add("cursor", "must be the cursor of a Marqeta card page (a start_index)")
            }
        }
        try problems.throwIfAny()
        let user = query.customer ?? ""
        let start = cursorStart ?? query.offset
        var items: [(name: String, value: String)] = []
        if let limit = query.limit { items.append(("count", String(limit))) }
        items.append(("start_index", String(start)))
        let response = try await calls.send(
            ProviderRequest(
                .get, MarqetaAPI.cardsByUser(user), query: items, headers: calls.headers(), operation: "list cards"),
            context: context
        )
        let page = try calls.decode(MarqetaWirePage<MarqetaWireCard>.self, from: response, what: "card list")
        let all = try (page.data ?? []).map { try map($0, ref: CardRef(id: $0.token ?? "", customer: user)) }
        var cards = all
        if !query.statuses.isEmpty { cards = cards.filter { query.statuses.contains($0.status) } }
        if !query.types.isEmpty { cards = cards.filter { query.types.contains($0.type) } }
        let filtered = !query.statuses.isEmpty || !query.types.isEmpty
        let isMore = (page.isMore ?? false) && !all.isEmpty
        // The next page starts after every record Marqeta returned, filtered out or not, so it travels as the cursor
        // (the start_index); the last page says so by its total (unfiltered) or by having no limit (filtered).
        var result = CardPage(
            cards: cards, total: nil, limit: query.limit, offset: start,
            nextCursor: isMore ? String(start + all.count) : nil)
        if !isMore {
            if filtered { result.limit = nil } else { result.total = start + all.count }
        }
        return result
    }

    // MARK: CardIssuance

    /// `POST /cards` with `user_token` (the request's customer) and `card_product_token` (its program). The card
    /// product decides whether the card is virtual or physical; Marqeta's create takes no currency, PIN, phone or
    /// address (a card product's fulfilment holds the shipping), so those are refused before sending, and the
    /// currency is only checked to be ISO 4217. The card's `token` is Marqeta's idempotency token
    /// (``MarqetaAPI/idempotencyToken(_:scope:)``), so the request is retried like any idempotent write and a repeat
    /// answers the card the first one made.
    public func createCard(_ request: CreateCardRequest, context: OperationContext) async throws -> Card {
        var problems = ValidationProblems()
        if request.customer.isEmpty {
            problems.add("customer", "is required: the Marqeta user token the card is issued to")
        } else {
            ProviderIDs.check(
                request.customer, field: "customer", what: "a Marqeta user token", maxLength: MarqetaAPI.tokenMaxLength,
                into: &problems)
        }
        if request.program.isEmpty {
            problems.add("program", "is required: the Marqeta card product token")
        } else {
            ProviderIDs.check(
                request.program, field: "program", what: "a Marqeta card product token",
                maxLength: MarqetaAPI.tokenMaxLength, into: &problems)
        }
        problems.require(
            request.currency.count == 3 && request.currency.allSatisfy { $0.isASCII && $0.isUppercase }, "currency",
            "must be an ISO 4217 code such as USD")
        problems.require(request.pin == nil, "pin", "Marqeta sets a PIN through /pins, not at creation")
        problems.require(request.mobile == nil, "mobile", "Marqeta's card takes no phone number")
        problems.require(
            request.deliveryAddress == nil, "deliveryAddress",
            "Marqeta ships cards by the card product's fulfilment settings")
        try problems.throwIfAny()
        let body = try calls.encode(
            MarqetaWireCreateCard(
                token: MarqetaAPI.idempotencyToken(context, scope: "cards"), userToken: request.customer,
                cardProductToken: request.program
            ))
        let response = try await calls.send(
            ProviderRequest(
                .post, MarqetaAPI.cards, headers: calls.headers(json: true), body: body,
                repeatability: .idempotentByContent,
                operation: "create card"),
            context: context
        )
        let wire = try calls.decode(MarqetaWireCard.self, from: response, what: "card")
        return try map(wire, ref: CardRef(id: wire.token ?? "", customer: request.customer))
    }

    // MARK: CardStatusControl

    /// Lock: `ACTIVE` → `SUSPENDED`; unlock: `SUSPENDED` → `ACTIVE`; cancel: any state but `TERMINATED` →
    /// `TERMINATED` (final). `POST /cardtransitions` `{token, card_token, state, channel: "API", reason_code, reason}`
    /// (`token` is Marqeta's idempotency token) after
    /// reading the card: a card already in the asked state is returned as it is, without a write; any other state
    /// the intent does not start from is ``CardGatewayError/Code/invalidCardState``, and so is Marqeta's own refusal
    /// of a transition.
    public func changeStatus(_ change: CardStatusRequest, context: OperationContext) async throws -> Card {
        var problems = ValidationProblems()
        ProviderIDs.check(
            change.card.id, field: "card.id", what: "a Marqeta card token", maxLength: MarqetaAPI.tokenMaxLength,
            into: &problems)
        if let comment = change.comment {
            problems.require(comment.count <= MarqetaAPI.reasonMaxLength, "comment", "must be at most 255 characters")
        }
        try problems.throwIfAny()
        let wire = try await fetchCard(change.card.id, context: context)
        var card = try map(wire, ref: change.card)
        let current = card.providerStatus
        let target: String
        let allowed: Set<String>
        switch change.intent {
        case .lock:
            target = MarqetaAPI.CardState.suspended
            allowed = [MarqetaAPI.CardState.active]
        case .unlock:
            target = MarqetaAPI.CardState.active
            allowed = [MarqetaAPI.CardState.suspended]
        default:
            target = MarqetaAPI.CardState.terminated
            allowed = [
                MarqetaAPI.CardState.active, MarqetaAPI.CardState.suspended, MarqetaAPI.CardState.unactivated,
                MarqetaAPI.CardState.limited,
            ]
        }
        if current == target { return card }
        guard allowed.contains(current) else {
            throw CardGatewayError(
                .invalidCardState,
                "the card is \(SafeText.scrub(current, maxLength: 32)); Marqeta cannot \(change.intent) it"
                    + (current == MarqetaAPI.CardState.terminated ? " (TERMINATED is final)" : ""),
                provider: http.instance, providerKind: .marqeta
            )
        }
        let body = try calls.encode(
            MarqetaWireCardTransitionRequest(
                token: MarqetaAPI.idempotencyToken(context, scope: "cardtransitions"), cardToken: change.card.id,
                state: target, channel: MarqetaAPI.apiChannel,
                reasonCode: MarqetaAPI.reasonCode(change.intent == .unlock ? nil : change.reason),
                reason: change.comment
            ))
        let response = try await calls.send(
            ProviderRequest(
                .post, MarqetaAPI.cardTransitions, headers: calls.headers(json: true), body: body,
                repeatability: .idempotentByContent, operation: "card transition"
            ),
            context: context
        )
        let transition = try calls.decode(MarqetaWireCardTransition.self, from: response, what: "card transition")
        let state = transition.state ?? target
        card.providerStatus = state
        card.status = MarqetaMapping.cardStatus(state)
        card.statusReason = nil
        return card
    }

    // MARK: WalletTokenListing

    /// Every digital wallet token of the card, in every state: `GET /digitalwallettokens/card/{card_token}`, page by
    /// page (`count`, `start_index`) until `is_more` is false.
    public func walletTokens(of card: CardRef, context: OperationContext) async throws -> [WalletToken] {
        try await wireTokens(of: card, context: context).compactMap(MarqetaMapping.walletToken)
    }

    func wireTokens(of card: CardRef, context: OperationContext) async throws -> [MarqetaWireWalletToken] {
        try validate(token: card.id, field: "card.id", what: "a Marqeta card token")
        var tokens: [MarqetaWireWalletToken] = []
        var start = 0
        for _ in 0..<MarqetaAPI.maxWalletTokenPages {
            let response = try await calls.send(
                ProviderRequest(
                    .get, MarqetaAPI.walletTokensByCard(card.id),
                    query: [("count", String(MarqetaAPI.walletTokenPageSize)), ("start_index", String(start))],
                    headers: calls.headers(), operation: "list digital wallet tokens"
                ),
                context: context
            )
            let page = try calls.decode(
                MarqetaWirePage<MarqetaWireWalletToken>.self, from: response, what: "digital wallet token list")
            let data = page.data ?? []
            tokens += data
            guard page.isMore == true, !data.isEmpty else { return tokens }
            start += data.count
        }
        throw CardGatewayError(
            .invalidResponse,
            "Marqeta's digital wallet token list did not end within \(MarqetaAPI.maxWalletTokenPages) pages",
            provider: http.instance, providerKind: .marqeta, mayHaveReachedProvider: true
        )
    }

    // MARK: WalletTokenControl

    /// Suspend: `ACTIVE` → `SUSPENDED`; resume: `SUSPENDED` → `ACTIVE`; delete: `REQUESTED`, `ACTIVE` or
    /// `SUSPENDED` → `TERMINATED` (final). `POST /digitalwallettokentransitions`
    /// `{token, digital_wallet_token: {token, card_token}, channel: "API", state, reason_code}` (the first `token` is
    /// Marqeta's idempotency token), after listing the card's
    /// tokens: a token of another card is `notFound`; one already in the asked state is returned without a write;
    /// `TERMINATED` and `REQUEST_DECLINED` tokens cannot change (``CardGatewayError/Code/invalidCardState``).
    public func changeWalletToken(_ change: WalletTokenRequest, context: OperationContext) async throws -> WalletToken {
        try validate(token: change.token, field: "token", what: "a Marqeta digital wallet token")
        let tokens = try await wireTokens(of: change.card, context: context)
        guard let wire = tokens.first(where: { $0.token == change.token }), let token = MarqetaMapping.walletToken(wire)
        else {
            throw CardGatewayError(
                .notFound,
                "card \(SafeText.scrub(change.card.id, maxLength: 36)) has no digital wallet token \(SafeText.scrub(change.token, maxLength: 36))",
                provider: http.instance, providerKind: .marqeta
            )
        }
        let current = token.providerStatus
        let target: String
        let allowed: Set<String>
        switch change.intent {
        case .suspend:
            target = MarqetaAPI.TokenState.suspended
            allowed = [MarqetaAPI.TokenState.active]
        case .resume:
            target = MarqetaAPI.TokenState.active
            allowed = [MarqetaAPI.TokenState.suspended]
        default:
            target = MarqetaAPI.TokenState.terminated
            allowed = [MarqetaAPI.TokenState.requested, MarqetaAPI.TokenState.active, MarqetaAPI.TokenState.suspended]
        }
        if current == target { return token }
        guard allowed.contains(current) else {
            throw CardGatewayError(
                .invalidCardState,
                "the digital wallet token is \(SafeText.scrub(current, maxLength: 32)); Marqeta cannot \(change.intent) it",
                provider: http.instance, providerKind: .marqeta
            )
        }
        let body = try calls.encode(
            MarqetaWireWalletTokenTransitionRequest(
                token: MarqetaAPI.idempotencyToken(context, scope: "digitalwallettokentransitions"),
                digitalWalletToken: .init(token: change.token, cardToken: change.card.id),
                channel: MarqetaAPI.apiChannel, state: target,
                reasonCode: MarqetaAPI.reasonCode(change.intent == .resume ? nil : change.reason)
            ))
        let response = try await calls.send(
            ProviderRequest(
                .post, MarqetaAPI.walletTokenTransitions, headers: calls.headers(json: true), body: body,
                repeatability: .idempotentByContent,
                operation: "digital wallet token transition"
            ),
            context: context
        )
        let transition = try calls.decode(
            MarqetaWireWalletTokenTransition.self, from: response, what: "digital wallet token transition")
        let state = transition.state ?? transition.digitalWalletToken?.state ?? target
        var result = token
        result.providerStatus = state
        result.status = MarqetaMapping.tokenStatus(state)
        return result
    }
}
