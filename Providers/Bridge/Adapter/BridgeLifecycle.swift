@_spi(AdapterSupport) import CardGateway
import Foundation

/// The normalised card lifecycle on Bridge: a customer's card accounts listed and created, locked by a
/// developer freeze and unlocked by lifting it. Bridge has no cancellation, activation, PIN setting or
/// wallet-token resource (see the README's "Lifecycle" section).
extension BridgeProvider {
    // MARK: Listing

    /// A customer's cards, normalised: `GET /customers/{customerID}/card_accounts`. Bridge answers every card account of the customer at once
    /// (`count`, `data`) and takes no paging or filter parameters, so the adapter pages by offset over that one
    /// answer: ``CardPage/total`` is the number of accounts that pass the status filter, and each page re-reads
    /// the list. Bridge's card account names no card type, so a type filter is refused; a cursor too (no cursor
    /// paging). `limit`: 1–100 (our bound; Bridge has none).
    ///
    /// Not ``CardListing`` (yet): the contract suite's listing scenario requires a request carrying `limit=1`,
    /// which Bridge's list does not take.
    public func listCards(_ query: CardQuery, context: OperationContext) async throws -> CardPage {
        var problems = ValidationProblems()
        if let customer = query.customer, !customer.isEmpty {
            ProviderIDs.check(
                customer, field: "customer", what: "a Bridge customer id", maxLength: BridgeAPI.idMaxLength,
                into: &problems)
        } else {
            problems.add("customer", "is required: Bridge lists card accounts per customer")
        }
        if let limit = query.limit {
            problems.require(BridgeAPI.listLimitRange.contains(limit), "limit", "must be from 1 to 100")
        }
        problems.require(query.offset >= 0, "offset", "must not be negative")
        problems.require(query.cursor == nil, "cursor", "Bridge does not page by cursor: use offset")
        problems.require(query.types.isEmpty, "types", "Bridge's card accounts name no card type to filter on")
        try problems.throwIfAny()
        let customer = query.customer ?? ""
        let response = try await calls.send(
            ProviderRequest(
                .get, BridgeAPI.cardAccounts(customer: customer), headers: calls.headers(),
                operation: "list card accounts"),
            context: context
        )
        let list: BridgeCardAccountList = try calls.decode(from: response, what: "card account list")
        let requestID = BridgeErrors.requestID(response)
        var cards = try list.data.map {
            try BridgeMapping.card(
                $0, requested: CardRef(id: $0.id ?? "", customer: customer), httpStatus: response.status,
                requestID: requestID)
        }
        if !query.statuses.isEmpty { cards = cards.filter { query.statuses.contains($0.status) } }
        let start = min(query.offset, cards.count)
        let end = query.limit.map { min(start + $0, cards.count) } ?? cards.count
        return CardPage(cards: Array(cards[start..<end]), total: cards.count, limit: query.limit, offset: query.offset)
    }

    // MARK: CardIssuance

    /// `POST /customers/{customerID}/card_accounts` (201) with `currency` (`usdc` or `usdb`, lower case), `chain`
    /// (the instance's `cardChain` option), `client_reference_id` (the request's externalID) and
    /// `card_design_shortname` (the request's program, when given). The card account's card is virtual (Bridge's
    /// API orders no physical card), so the new card reports type virtual. Refused before sending: a physical
    /// type, a PIN, a mobile number and a delivery address (Bridge's create takes none of them).
    public func createCard(_ request: CreateCardRequest, context: OperationContext) async throws -> Card {
        var problems = ValidationProblems()
        if request.customer.isEmpty {
            problems.add("customer", "is required: the Bridge customer the card account is provisioned for")
        } else {
            ProviderIDs.check(
                request.customer, field: "customer", what: "a Bridge customer id", maxLength: BridgeAPI.idMaxLength,
                into: &problems)
        }
        let currency = request.currency.lowercased()
        problems.require(
            BridgeAPI.cardAccountCurrencies.contains(currency), "currency", "Bridge card accounts hold usdc or usdb")
        problems.require(request.type == .virtual, "type", "Bridge's card account API issues virtual cards only")
        if !request.program.isEmpty {
            ProviderIDs.check(
                request.program, field: "program", what: "a Bridge card design shortname", maxLength: 64,
                into: &problems)
        }
        if let external = request.externalID {
            problems.require(!external.isEmpty && external.count <= 256, "externalID", "must be 1 to 256 characters")
        }
        problems.require(
            request.pin == nil, "pin", "Bridge sets no PIN at creation (it hands the cardholder a PIN-update URL)")
        problems.require(request.mobile == nil, "mobile", "Bridge's card account takes no phone number")
        problems.require(request.deliveryAddress == nil, "deliveryAddress", "Bridge's card account API ships no card")
        try problems.throwIfAny()
        guard let chain = cardChain else {
            throw CardGatewayError(
                .invalidConfiguration,
                "providers.\(http.instance).options.cardChain is not set, so Bridge card accounts cannot be created",
                provider: http.instance, providerKind: .bridge
            )
        }
        let body = try calls.encode(
            BridgeCardAccountInput(
                currency: currency, chain: chain, clientReferenceID: request.externalID,
                cardDesignShortname: request.program.isEmpty ? nil : request.program
            ))
        let digest = ByteEncoding.hex(MessageAuthentication.sha256(body).prefix(12))
        let response = try await calls.send(
            ProviderRequest(
                .post, BridgeAPI.cardAccounts(customer: request.customer), headers: calls.headers(json: true),
                body: body,
                repeatability: .idempotent(
                    header: BridgeAPI.idempotencyKeyHeader, scope: "create_card_account:\(request.customer)|\(digest)"),
                operation: "create card account"
            ),
            context: context
        )
        let account: BridgeCardAccount = try calls.decode(from: response, what: "card account")
        var card = try BridgeMapping.card(
            account, requested: CardRef(id: account.id ?? "", customer: request.customer), httpStatus: response.status,
            requestID: BridgeErrors.requestID(response)
        )
        card.type = .virtual
        return card
    }

    // MARK: CardStatusControl

    /// Lock: a developer freeze (`POST …/freeze` `{"initiator":"developer","reason":…,"reason_detail":comment}`)
    /// on an active or frozen account; the account turns `frozen` (``CardStatus/suspended``). Unlock: lifting
    /// the developer freeze (`POST …/unfreeze` `{"initiator":"developer"}`) when it is the only one; the account
    /// turns `active`. The account is read first (a pending or inactive account cannot be locked; one without a
    /// developer freeze, or held by the customer's or Bridge's own freeze too, cannot be unlocked:
    /// ``CardGatewayError/Code/invalidCardState`` before anything is written); the card returned is that account
    /// with the freeze placed or lifted, as Bridge's freeze answer carries the freeze only.
    /// Bridge has no cancellation: `cancel` is ``CardGatewayError/Code/unsupported``.
    public func changeStatus(_ change: CardStatusRequest, context: OperationContext) async throws -> Card {
        guard change.intent == .lock || change.intent == .unlock else {
            throw CardGatewayError(
                .unsupported, "Bridge cannot cancel a card account; lock it instead", provider: http.instance,
                providerKind: .bridge)
        }
        var problems = ValidationProblems()
        _ = collect(change.card, into: &problems)
        if let comment = change.comment {
            problems.require(comment.count <= 512, "comment", "must be at most 512 characters")
        }
        try problems.throwIfAny()
        let (read, ref, response) = try await fetchAccount(change.card, context: context)
        var account = read
        let status = account.status ?? ""
        let freezes = account.freezes ?? []
        let developer = BridgeFreezeInitiator.developer.rawValue
        do {
            if change.intent == .lock {
                guard status == "active" || status == "frozen" else {
                    throw invalidState(
                        "the card account is \(SafeText.scrub(status, maxLength: 32)); only active or frozen accounts can be frozen"
                    )
                }
                let placed = try await freeze(
                    card: ref, reason: BridgeMapping.freezeReason(change.reason), initiator: .developer,
                    reasonDetail: change.comment, context: context
                )
                // One freeze per initiator: the new one replaces the developer's earlier freeze, if any.
                account.freezes =
                    freezes.filter { $0.initiator != developer } + [
                        BridgeCardFreeze(
                            cardAccountID: ref.id, initiator: developer, reason: placed.reason,
                            reasonDetail: placed.reasonDetail,
                            startingAt: nil, endingAt: nil, createdAt: nil, status: nil
                        )
                    ]
                account.status = "frozen"
            } else {
                guard status == "frozen", freezes.contains(where: { $0.initiator == developer }) else {
                    throw invalidState("the card account has no freeze placed by the developer to lift")
                }
                let others = Set(freezes.map { $0.initiator ?? "" }).subtracting([developer])
                guard others.isEmpty else {
                    throw invalidState(
                        "the card account also has a freeze by \(others.sorted().map { SafeText.scrub($0, maxLength: 16) }.joined(separator: ", ")), which the developer cannot lift"
                    )
                }
                _ = try await unfreeze(card: ref, initiator: .developer, context: context)
                account.freezes = []
                account.status = "active"
            }
        } catch let error as CardGatewayError
            where error.code == .invalidRequest && BridgeAPI.invalidStateCodes.contains(error.providerCode ?? "")
        {
            throw CardGatewayError(
                .invalidCardState, error.message, provider: error.provider, providerKind: .bridge,
                providerCode: error.providerCode,
                httpStatus: error.httpStatus, requestID: error.requestID
            )
        }
        // The account as the write left it (Bridge's freeze answers carry the freeze, not the account): the last
        // request of a lock or unlock is its write.
        return try BridgeMapping.card(
            account, requested: ref, httpStatus: response.status, requestID: BridgeErrors.requestID(response))
    }

    // MARK: Helpers

    private func fetchAccount(
        _ ref: CardRef, context: OperationContext
    ) async throws -> (BridgeCardAccount, CardRef, ProviderResponse) {
        let (customer, id) = try validated(ref)
        let response = try await calls.send(
            ProviderRequest(
                .get, BridgeAPI.cardAccount(customer: customer, card: id), headers: calls.headers(),
                operation: "get card account"),
            context: context
        )
        let account: BridgeCardAccount = try calls.decode(from: response, what: "card account")
        return (account, CardRef(id: id, customer: customer), response)
    }

    private func invalidState(_ message: String) -> CardGatewayError {
        CardGatewayError(.invalidCardState, message, provider: http.instance, providerKind: .bridge)
    }
}
