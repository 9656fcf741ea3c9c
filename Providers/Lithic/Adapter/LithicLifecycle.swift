@_spi(AdapterSupport) import CardGateway
import Foundation

/// The normalised lifecycle on Lithic: cards listed (`GET /v1/cards`) and created (`POST /v1/cards`), lock
/// (`PAUSED`), unlock (`OPEN`) and cancel (`CLOSED`, final) by `PATCH /v1/cards/{card_token}`, and tokenizations
/// listed (`GET /v1/tokenizations`) and paused, unpaused and deactivated (final). The object is read first, so a
/// change its current state does not allow is ``CardGatewayError/Code/invalidCardState`` before anything is written.
extension LithicProvider {
    // MARK: CardListing

    /// `GET /v1/cards?account_token=&state=&page_size=&starting_after=`: `customer` (optional) is the account token,
    /// `limit` is `page_size` (1–100), the cursor is `starting_after` (the last card token of the previous page).
    /// Lithic pages by cursor only, so `offset` must be 0. One status that is one Lithic state is sent as `state`;
    /// any other status set, and `types`, filter each page here (a filtered page may hold fewer cards than `limit`).
    public func listCards(_ query: CardQuery, context: OperationContext) async throws -> CardPage {
        var problems = ValidationProblems()
        if let customer = query.customer, !customer.isEmpty {
            ProviderIDs.check(
                customer, field: "customer", what: "a Lithic account token", maxLength: LithicAPI.tokenMaxLength,
                into: &problems)
        }
        if let limit = query.limit {
            problems.require(
                LithicAPI.pageSizeRange.contains(limit), "limit",
                "must be from \(LithicAPI.pageSizeRange.lowerBound) to \(LithicAPI.pageSizeRange.upperBound)")
        }
        problems.require(query.offset == 0, "offset", "Lithic pages by cursor: use the page's nextCursor")
        if let cursor = query.cursor {
            ProviderIDs.check(
                cursor, field: "cursor", what: "the cursor of a Lithic card page (a card token)",
                maxLength: LithicAPI.tokenMaxLength, into: &problems)
        }
        try problems.throwIfAny()
        var items: [(name: String, value: String)] = []
        if let customer = query.customer, !customer.isEmpty { items.append(("account_token", customer)) }
        let states = Set(query.statuses.flatMap { LithicMapping.cardStates(for: $0) })
        let sendsState = states.count == 1 && !query.statuses.isEmpty
        if sendsState, let state = states.first { items.append(("state", state)) }
        if let limit = query.limit { items.append(("page_size", String(limit))) }
        if let cursor = query.cursor { items.append(("starting_after", cursor)) }
        let response = try await calls.send(
            ProviderRequest(.get, LithicAPI.cards, query: items, headers: calls.headers(), operation: "list cards"),
            context: context
        )
        let page = try calls.decode(LithicWirePage<LithicWireCard>.self, from: response, what: "card list")
        let all = try (page.data ?? []).map { try map($0, ref: nil) }
        var cards = all
        if !query.statuses.isEmpty { cards = cards.filter { query.statuses.contains($0.status) } }
        if !query.types.isEmpty { cards = cards.filter { query.types.contains($0.type) } }
        let hasMore = (page.hasMore ?? false) && !all.isEmpty
        var result = CardPage(
            cards: cards, total: nil, limit: query.limit, offset: 0, nextCursor: hasMore ? all.last?.id : nil)
        // The last page says so by having no limit (the core's hasMore reads a full page as "maybe more").
        if !hasMore { result.limit = nil }
        return result
    }

    // MARK: CardIssuance

    /// `POST /v1/cards` `{type, account_token, card_program_token?, memo?}` with an `Idempotency-Key` derived from the
    /// operation's key: the customer is the account token, the program (if any) the card program token, the external
    /// id the memo. Virtual cards only: a physical card needs Lithic's `shipping_address` and `product_id`, which the
    /// core's request does not carry in Lithic's shape. Lithic's create takes no currency (the card has the
    /// program's `cardholder_currency`), no phone, and a PIN only as an encrypted PIN block, so those are refused.
    public func createCard(_ request: CreateCardRequest, context: OperationContext) async throws -> Card {
        var problems = ValidationProblems()
        if request.customer.isEmpty {
            problems.add("customer", "is required: the Lithic account token the card is issued to")
        } else {
            ProviderIDs.check(
                request.customer, field: "customer", what: "a Lithic account token",
                maxLength: LithicAPI.tokenMaxLength, into: &problems)
        }
        if !request.program.isEmpty {
            ProviderIDs.check(
                request.program, field: "program", what: "a Lithic card program token",
                maxLength: LithicAPI.tokenMaxLength, into: &problems)
        }
        problems.require(
            request.type == .virtual, "type",
            "this adapter issues virtual Lithic cards (a physical one needs Lithic's shipping_address)")
        problems.require(
            request.currency.count == 3 && request.currency.allSatisfy { $0.isASCII && $0.isUppercase }, "currency",
            "must be an ISO 4217 code such as USD")
        problems.require(request.pin == nil, "pin", "Lithic takes a PIN only as an encrypted PIN block")
        problems.require(request.mobile == nil, "mobile", "Lithic's card takes no phone number")
        problems.require(request.deliveryAddress == nil, "deliveryAddress", "virtual cards are not shipped")
        if let memo = request.externalID {
            problems.require(!memo.isEmpty && memo.count <= 255, "externalID", "must be 1 to 255 characters")
        }
        try problems.throwIfAny()
        let body = try calls.encode(
            LithicWireCreateCard(
                type: "VIRTUAL", accountToken: request.customer,
                cardProgramToken: request.program.isEmpty ? nil : request.program, memo: request.externalID
            ))
        var fields = calls.headers(json: true)
        fields[LithicAPI.idempotencyKeyHeader] = LithicAPI.idempotencyKey(
            context, scope: "cards:\(request.customer):\(request.program):\(request.externalID ?? "")")
        let response = try await calls.send(
            ProviderRequest(
                .post, LithicAPI.cards, headers: fields, body: body, repeatability: .idempotentByContent,
                operation: "create card"),
            context: context
        )
        let wire = try calls.decode(LithicWireCard.self, from: response, what: "card")
        return try map(wire, ref: CardRef(id: wire.token ?? "", customer: request.customer))
    }

    // MARK: CardStatusControl

    /// Lock: `OPEN` → `PAUSED`; unlock: `PAUSED` → `OPEN`; cancel: any state but `CLOSED` → `CLOSED` ("a final
    /// action that cannot be undone"), with `substatus` from the reason and `comment`. `PATCH /v1/cards/{card_token}`
    /// `{state, substatus?, comment?}` after reading the card: a card already in the asked state is returned without a
    /// write; any other state the intent does not start from is ``CardGatewayError/Code/invalidCardState``. The
    /// `PATCH` is sent once: Lithic documents no idempotency key for it, so a repeat would run the update again (a
    /// call that may have reached Lithic fails with `mayHaveReachedProvider`; read the card to know its state).
    public func changeStatus(_ change: CardStatusRequest, context: OperationContext) async throws -> Card {
        var problems = ValidationProblems()
        ProviderIDs.check(
            change.card.id, field: "card.id", what: "a Lithic card token", maxLength: LithicAPI.tokenMaxLength,
            into: &problems)
        if let comment = change.comment {
            problems.require(comment.count <= 255, "comment", "must be at most 255 characters")
        }
        try problems.throwIfAny()
        let wire = try await fetchCard(change.card.id, context: context)
        let card = try map(wire, ref: change.card)
        let current = card.providerStatus
        let target: String
        let allowed: Set<String>
        switch change.intent {
        case .lock:
            target = LithicAPI.CardState.paused
            allowed = [LithicAPI.CardState.open]
        case .unlock:
            target = LithicAPI.CardState.open
            allowed = [LithicAPI.CardState.paused]
        default:
            target = LithicAPI.CardState.closed
            allowed = Set(LithicAPI.CardState.all).subtracting([LithicAPI.CardState.closed])
        }
        if current == target { return card }
        guard allowed.contains(current) else {
            throw CardGatewayError(
                .invalidCardState,
                "the card is \(SafeText.scrub(current, maxLength: 32)); Lithic cannot \(change.intent) it"
                    + (current == LithicAPI.CardState.closed ? " (CLOSED is final)" : ""),
                provider: http.instance, providerKind: .lithic
            )
        }
        let body = try calls.encode(
            LithicWireUpdateCard(
                state: target, substatus: change.intent == .unlock ? nil : LithicAPI.substatus(change.reason),
                comment: change.comment))
        let response = try await calls.send(
            ProviderRequest(
                .patch, LithicAPI.card(change.card.id), headers: calls.headers(json: true), body: body,
                repeatability: .never, operation: "update card state"),
            context: context
        )
        return try map(try calls.decode(LithicWireCard.self, from: response, what: "card"), ref: change.card)
    }

    // MARK: WalletTokenListing

    /// Every digital wallet tokenization of the card: `GET /v1/tokenizations?card_token=&page_size=100`, page by page
    /// (`starting_after` the last token) until `has_more` is false.
    public func walletTokens(of card: CardRef, context: OperationContext) async throws -> [WalletToken] {
        try await wireTokens(of: card, context: context).compactMap(LithicMapping.walletToken)
    }

    func wireTokens(of card: CardRef, context: OperationContext) async throws -> [LithicWireTokenization] {
        try validate(token: card.id, field: "card.id", what: "a Lithic card token")
        var tokens: [LithicWireTokenization] = []
        var after: String?
        for _ in 0..<LithicAPI.maxTokenizationPages {
            var items: [(name: String, value: String)] = [
                ("card_token", card.id), ("page_size", String(LithicAPI.tokenizationPageSize)),
            ]
            if let after { items.append(("starting_after", after)) }
            let response = try await calls.send(
                ProviderRequest(
                    .get, LithicAPI.tokenizations, query: items, headers: calls.headers(),
                    operation: "list tokenizations"),
                context: context
            )
            let page = try calls.decode(
                LithicWirePage<LithicWireTokenization>.self, from: response, what: "tokenization list")
            let data = page.data ?? []
            tokens += data
            guard page.hasMore == true, let last = data.last?.token else { return tokens }
            after = last
        }
        throw CardGatewayError(
            .invalidResponse,
            "Lithic's tokenization list did not end within \(LithicAPI.maxTokenizationPages) pages",
            provider: http.instance, providerKind: .lithic, mayHaveReachedProvider: true
        )
    }

    // MARK: WalletTokenControl

    /// Suspend: `ACTIVE` → `PAUSED` (`POST /v1/tokenizations/{token}/pause`); resume: `PAUSED` → `ACTIVE`
    /// (`…/unpause`); delete: any status but `DEACTIVATED` → `DEACTIVATED` (`…/deactivate`, "a permanent operation").
    /// The card's tokenizations are listed first: a token of another card is `notFound`, one already in the asked
    /// status is returned without a write, a status the action does not start from is
    /// ``CardGatewayError/Code/invalidCardState``. Lithic answers 200 with no body once the request reached the
    /// network, so the token is read again (`GET /v1/tokenizations/{token}`) and returned as Lithic then reports it.
    /// Sent once (no idempotency key is documented for these actions).
    public func changeWalletToken(_ change: WalletTokenRequest, context: OperationContext) async throws -> WalletToken {
        try validate(token: change.token, field: "token", what: "a Lithic tokenization token")
        let tokens = try await wireTokens(of: change.card, context: context)
        guard let wire = tokens.first(where: { $0.token == change.token }), let token = LithicMapping.walletToken(wire)
        else {
            throw CardGatewayError(
                .notFound,
                "card \(SafeText.scrub(change.card.id, maxLength: 36)) has no tokenization \(SafeText.scrub(change.token, maxLength: 36))",
                provider: http.instance, providerKind: .lithic
            )
        }
        let current = token.providerStatus
        let target: String
        let action: String
        let allowed: Set<String>
        switch change.intent {
        case .suspend:
            (target, action, allowed) = (LithicAPI.TokenStatus.paused, "pause", [LithicAPI.TokenStatus.active])
        case .resume:
            (target, action, allowed) = (LithicAPI.TokenStatus.active, "unpause", [LithicAPI.TokenStatus.paused])
        default:
            target = LithicAPI.TokenStatus.deactivated
            action = "deactivate"
            allowed = [
                LithicAPI.TokenStatus.active, LithicAPI.TokenStatus.paused, LithicAPI.TokenStatus.inactive,
                LithicAPI.TokenStatus.pending2FA, LithicAPI.TokenStatus.pendingActivation,
                LithicAPI.TokenStatus.unknown,
            ]
        }
        if current == target { return token }
        guard allowed.contains(current) else {
            throw CardGatewayError(
                .invalidCardState,
                "the tokenization is \(SafeText.scrub(current, maxLength: 32)); Lithic cannot \(change.intent) it",
                provider: http.instance, providerKind: .lithic
            )
        }
        _ = try await calls.send(
            ProviderRequest(
                .post, LithicAPI.tokenizationAction(change.token, action), headers: calls.headers(),
                repeatability: .never,
                operation: "\(action) tokenization"),
            context: context
        )
        let response = try await calls.send(
            ProviderRequest(
                .get, LithicAPI.tokenization(change.token), headers: calls.headers(), operation: "get tokenization"),
            context: context
        )
        let read = try calls.decode(LithicWireTokenization.self, from: response, what: "tokenization")
        guard let result = LithicMapping.walletToken(read) else {
            throw calls.invalidResponse("Lithic's tokenization answer has no token or status", response)
        }
        return result
    }
}
