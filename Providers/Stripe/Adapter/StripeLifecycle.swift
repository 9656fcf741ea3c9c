@_spi(AdapterSupport) import CardGateway
import Foundation

/// The normalised card and wallet-token lifecycle on Stripe Issuing. See the README's "Lifecycle" section for
/// the table: lock is `inactive`, unlock `active`, cancel `canceled` (final, with `cancellation_reason` lost or
/// stolen); tokens are suspended, resumed (`active`) and deleted (final).
extension StripeProvider {
    // MARK: CardListing

    /// `GET /v1/issuing/cards` with Stripe's cursor paging: ``CardQuery/customer`` is the cardholder (`ich_…`),
    /// ``CardQuery/cursor`` is `starting_after`, and ``CardPage/nextCursor`` is the last card's id exactly when
    /// Stripe says `has_more`. Stripe filters on one status and one type at most; ``CardQuery/offset`` has no
    /// place (Stripe pages by cursor only) and must stay 0.
    public func listCards(_ query: CardQuery, context: OperationContext) async throws -> CardPage {
        var problems = ValidationProblems()
        problems.require(
            query.offset == 0, "offset",
            "Stripe pages by cursor: pass the previous page's nextCursor as cursor, not an offset")
        if let limit = query.limit {
            problems.require(StripeAPI.listLimitRange.contains(limit), "limit", "must be from 1 to 100")
        }
        var status: CardStatus?
        if query.statuses.count > 1 {
            problems.add("statuses", "Stripe filters on one status at a time")
        } else if let only = query.statuses.first {
            if StripeMapping.stripeCardStatus(only) == nil {
                problems.add("statuses", "Stripe cards are active, inactive or cancelled, not \(only)")
            } else {
                status = only
            }
        }
        var type: CardType?
        if query.types.count > 1 {
            problems.add("types", "Stripe filters on one type at a time")
        } else if let only = query.types.first {
            if StripeMapping.stripeCardType(only) == nil {
                problems.add("types", "must be physical or virtual")
            } else {
                type = only
            }
        }
        if let customer = query.customer { Self.check(id: customer, field: "customer", into: &problems) }
        if let cursor = query.cursor { Self.check(id: cursor, field: "cursor", into: &problems) }
        try problems.throwIfAny()
        let list = try await listCards(
            StripeCardListQuery(
                limit: query.limit, startingAfter: query.cursor, status: status, type: type, cardholder: query.customer),
            context: context
        )
        // No limit on the page: a full last page must not look like one with more after it (hasMore is the cursor's).
        return CardPage(
            cards: list.items, total: nil, limit: nil, offset: 0,
            nextCursor: list.hasMore ? list.nextStartingAfter : nil)
    }

    // MARK: CardIssuance

    /// `POST /v1/issuing/cards` with `cardholder` (the request's customer, `ich_…`), `currency` (lower case) and
    /// `type=virtual`; ``CreateCardRequest/externalID`` goes to `metadata[external_id]`. Stripe creates the card
    /// `inactive` (its default); unlock it to let it authorise.
    ///
    /// Refused before sending, naming the field: a program (Stripe Issuing has none), a physical card (Stripe
    /// needs `shipping[name]`, which the normalised request has no place for), a PIN (Stripe takes only a PIN
    /// encrypted with its own key, `pin[encrypted_number]`), a mobile number (it belongs to the cardholder at
    /// Stripe) and a delivery address (physical cards only).
    public func createCard(_ request: CreateCardRequest, context: OperationContext) async throws -> Card {
        var problems = ValidationProblems()
        if request.customer.isEmpty {
            problems.add("customer", "is required: the Stripe cardholder (ich_…) the card is issued to")
        } else {
            Self.check(id: request.customer, field: "customer", into: &problems)
        }
        let currency = request.currency
        problems.require(
            currency.count == 3 && currency.allSatisfy { $0.isASCII && $0.isLetter }, "currency",
            "must be an ISO 4217 code such as USD, EUR or GBP"
        )
        problems.require(request.program.isEmpty, "program", "Stripe Issuing has no card programs: leave it empty")
        switch request.type {
        case .virtual: break
        case .physical:
            problems.add(
                "type",
                "a physical Stripe card needs shipping[name], which this request cannot carry: issue a virtual card")
        default: problems.add("type", "must be virtual")
        }
        problems.require(
            request.pin == nil, "pin", "Stripe takes a PIN only encrypted with its own key; it cannot be set here")
        problems.require(
            request.mobile == nil, "mobile", "a phone number belongs to the Stripe cardholder, not to the card")
        problems.require(request.deliveryAddress == nil, "deliveryAddress", "only physical cards are shipped")
        if let external = request.externalID {
            problems.require(
                !external.isEmpty && external.count <= 500, "externalID",
                "must be 1 to 500 characters (Stripe's metadata value limit)")
        }
        try problems.throwIfAny()
        var form = StripeForm()
        form.add("cardholder", request.customer)
        form.add("currency", currency.lowercased())
        form.add("type", "virtual")
        if let external = request.externalID { form.add("metadata", object: [("external_id", external)]) }
        let response = try await send(
            .post, StripeAPI.issuingCards, form: form,
            repeatability: .idempotent(
                header: StripeAPI.idempotencyKeyHeader,
                scope: "create_card:\(request.customer):\(currency.lowercased()):\(request.externalID ?? "")"
            ),
            operation: "create card", context: context
        )
        return StripeMapping.card(
            try decode(StripeCardWire.self, response, object: "issuing.card", \.object, what: "issuing card"))
    }

    // MARK: CardStatusControl

    /// Lock is `status=inactive`, unlock `status=active`, cancel `status=canceled` with `cancellation_reason` lost
    /// or stolen when the reason is one of those (Stripe's reason is optional, so other reasons are not sent).
    /// Stripe refuses any status change of a canceled card; that, like any other refused transition, is
    /// ``CardGatewayError/Code/invalidCardState``.
    public func changeStatus(_ change: CardStatusRequest, context: OperationContext) async throws -> Card {
        let status: CardStatus
        var reason: String?
        switch change.intent {
        case .lock: status = .inactive
        case .unlock: status = .active
        default:
            status = .cancelled
            reason = StripeMapping.cancellationReason(change.reason)
        }
        do {
            return try await updateCardStatus(card: change.card, status: status, reason: reason, context: context)
        } catch let error as CardGatewayError where error.code == .invalidRequest && error.httpStatus == 400 {
            // Stripe's reference does not name the error code of reactivating a canceled card: whatever 400 it
            // answers, a card found canceled makes it the normalised invalidCardState.
            guard let current = try? await card(change.card, context: context), current.status == .cancelled else {
                throw error
            }
            throw CardGatewayError(
                .invalidCardState, "the card is canceled at Stripe, which is final: it cannot be \(change.intent)ed",
                provider: error.provider, providerKind: .stripe, providerCode: error.providerCode,
                httpStatus: error.httpStatus, requestID: error.requestID
            )
        }
    }

    // MARK: WalletTokenListing

    /// `GET /v1/issuing/tokens?card=…`, every page (100 tokens each, at most ``StripeAPI/maxTokenPages`` pages),
    /// deleted tokens included, newest first as Stripe lists them.
    public func walletTokens(of card: CardRef, context: OperationContext) async throws -> [WalletToken] {
        try Self.validate(cardID: card.id)
        var tokens: [WalletToken] = []
        var cursor: String?
        for _ in 0..<StripeAPI.maxTokenPages {
            let page = try await listTokens(
                card: card, limit: StripeAPI.listLimitRange.upperBound, startingAfter: cursor, context: context)
            tokens += page.items.map(\.token)
            guard page.hasMore, let next = page.nextStartingAfter else { return tokens }
            cursor = next
        }
        throw CardGatewayError(
            .invalidResponse,
            "Stripe listed more than \(StripeAPI.maxTokenPages * StripeAPI.listLimitRange.upperBound) tokens for one card",
            provider: http.instance, providerKind: .stripe
        )
    }

    // MARK: WalletTokenControl

    /// Reads the token (`GET /v1/issuing/tokens/{id}`) to check it belongs to the request's card (another card's
    /// token is `notFound`) and that its state allows the change (a deleted token stays deleted; a suspend or
    /// resume of a token not yet activated is refused too), then `POST /v1/issuing/tokens/{id}` with `status`
    /// suspended, active or deleted. Stripe's token has no reason field, so the request's reason is not sent.
    public func changeWalletToken(_ change: WalletTokenRequest, context: OperationContext) async throws -> WalletToken {
        var problems = ValidationProblems()
        Self.check(cardID: change.card.id, field: "card.id", into: &problems)
        Self.check(id: change.token, field: "token", into: &problems)
        try problems.throwIfAny()
        let current = try await token(id: change.token, context: context)
        guard current.card.id == change.card.id else {
            throw CardGatewayError(
                .notFound, "card \(change.card.id) has no wallet token \(change.token)", provider: http.instance,
                providerKind: .stripe)
        }
        let target = change.intent.resultingStatus
        if let refusal = StripeMapping.tokenTransitionRefusal(from: current.token.providerStatus, to: target) {
            throw CardGatewayError(
                .invalidCardState, refusal, provider: http.instance, providerKind: .stripe,
                providerCode: current.token.providerStatus)
        }
        return try await updateToken(id: change.token, status: target, context: context).token
    }

    // MARK: Stripe's own card and token calls, beneath the normalised ones above (internal: the neutral API above is
    // the adapter's API; the room's tests call them through `@testable import`)

    /// `GET /v1/issuing/cards` with cursor paging and Stripe's filters.
    func listCards(
        _ query: StripeCardListQuery = StripeCardListQuery(), context: OperationContext
    ) async throws -> StripeList<Card> {
        var problems = ValidationProblems()
        var items: [(name: String, value: String)] = []
        if let limit = query.limit {
            problems.require(StripeAPI.listLimitRange.contains(limit), "limit", "must be from 1 to 100")
            items.append(("limit", String(limit)))
        }
        if let after = query.startingAfter {
            Self.check(id: after, field: "startingAfter", into: &problems)
            items.append(("starting_after", after))
        }
        if let before = query.endingBefore {
            Self.check(id: before, field: "endingBefore", into: &problems)
            items.append(("ending_before", before))
        }
        problems.require(
            query.startingAfter == nil || query.endingBefore == nil, "endingBefore",
            "cannot be combined with startingAfter")
        if let status = query.status {
            if let value = StripeMapping.stripeCardStatus(status) {
                items.append(("status", value))
            } else {
                problems.add("status", "Stripe cards are active, inactive or cancelled, not \(status)")
            }
        }
        if let type = query.type {
            if let value = StripeMapping.stripeCardType(type) {
                items.append(("type", value))
            } else {
                problems.add("type", "must be physical or virtual")
            }
        }
        if let cardholder = query.cardholder {
            Self.check(id: cardholder, field: "cardholder", into: &problems)
            items.append(("cardholder", cardholder))
        }
        try problems.throwIfAny()
        let response = try await send(
            .get, StripeAPI.issuingCards, query: items, operation: "list cards", context: context)
        let list = try decode(
            StripeListWire<StripeCardWire>.self, response, object: "list", \.object, what: "card list")
        let cards = list.data.map(StripeMapping.card)
        let hasMore = list.hasMore ?? false
        // Paging backwards (ending_before), has_more speaks of items before this page: the cursor to follow is
        // the first item's id, as ending_before. Paging forwards, it is the last item's id, as starting_after.
        if query.endingBefore != nil {
            return StripeList(
                items: cards, hasMore: hasMore, nextStartingAfter: nil,
                previousEndingBefore: hasMore ? cards.first?.id : nil)
        }
        return StripeList(
            items: cards, hasMore: hasMore, nextStartingAfter: hasMore ? cards.last?.id : nil,
            previousEndingBefore: query.startingAfter != nil ? cards.first?.id : nil
        )
    }

    /// Activates, deactivates or cancels a card: `POST /v1/issuing/cards/{id}` with `status` active, inactive or
    /// canceled (final at Stripe), and for a cancellation an optional `cancellation_reason` lost or stolen.
    func updateCardStatus(
        card ref: CardRef, status: CardStatus, reason: String? = nil, context: OperationContext
    ) async throws -> Card {
        var problems = ValidationProblems()
        Self.check(cardID: ref.id, field: "card.id", into: &problems)
        let stripeStatus = StripeMapping.stripeCardStatus(status)
        if stripeStatus == nil {
            problems.add("status", "Stripe cards can be set active, inactive or cancelled, not \(status)")
        }
        if let reason {
            if status != .cancelled {
                problems.add("reason", "a reason is only sent with a cancellation")
            } else if !StripeAPI.settableCancellationReasons.contains(reason) {
                problems.add("reason", "must be lost or stolen")
            }
        }
        try problems.throwIfAny()
        var form = StripeForm()
        form.add("status", stripeStatus ?? "")
        if let reason { form.add("cancellation_reason", reason) }
        let response = try await send(
            .post, StripeAPI.issuingCard(ref.id), form: form,
            repeatability: .idempotent(
                header: StripeAPI.idempotencyKeyHeader,
                scope: "card_status:\(ref.id):\(stripeStatus ?? ""):\(reason ?? "")"),
            operation: "update card status", context: context
        )
        return StripeMapping.card(
            try decode(StripeCardWire.self, response, object: "issuing.card", \.object, what: "issuing card"))
    }

    // MARK: Tokens

    /// `GET /v1/issuing/tokens?card=…` with cursor paging.
    func listTokens(
        card ref: CardRef, status: WalletTokenStatus? = nil, limit: Int? = nil, startingAfter: String? = nil,
        context: OperationContext
    ) async throws -> StripeList<StripeIssuingToken> {
        var problems = ValidationProblems()
        Self.check(cardID: ref.id, field: "card.id", into: &problems)
        var items: [(name: String, value: String)] = [("card", ref.id)]
        if let status {
            if status == .unknown {
                problems.add("status", "must be requested, active, suspended or deleted")
            } else {
                items.append(("status", status.rawValue))
            }
        }
        if let limit {
            problems.require(StripeAPI.listLimitRange.contains(limit), "limit", "must be from 1 to 100")
            items.append(("limit", String(limit)))
        }
        if let startingAfter {
            Self.check(id: startingAfter, field: "startingAfter", into: &problems)
            items.append(("starting_after", startingAfter))
        }
        try problems.throwIfAny()
        let response = try await send(
            .get, StripeAPI.issuingTokens, query: items, operation: "list tokens", context: context)
        let list = try decode(
            StripeListWire<StripeTokenWire>.self, response, object: "list", \.object, what: "token list")
        let tokens = list.data.map(Self.issuingToken)
        let hasMore = list.hasMore ?? false
        return StripeList(items: tokens, hasMore: hasMore, nextStartingAfter: hasMore ? tokens.last?.id : nil)
    }

    /// `GET /v1/issuing/tokens/{id}`.
    func token(id: String, context: OperationContext) async throws -> StripeIssuingToken {
        var problems = ValidationProblems()
        Self.check(id: id, field: "id", into: &problems)
        try problems.throwIfAny()
        let response = try await send(.get, StripeAPI.issuingToken(id), operation: "get token", context: context)
        return Self.issuingToken(
            try decode(StripeTokenWire.self, response, object: "issuing.token", \.object, what: "issuing token"))
    }

    /// Activates, suspends or deletes (final) a token: `POST /v1/issuing/tokens/{id}` with `status`.
    func updateToken(
        id: String, status: WalletTokenStatus, context: OperationContext
    ) async throws -> StripeIssuingToken {
        var problems = ValidationProblems()
        Self.check(id: id, field: "id", into: &problems)
        let value = StripeMapping.stripeTokenStatus(status)
        if value == nil { problems.add("status", "a token can be set active, suspended or deleted, not \(status)") }
        try problems.throwIfAny()
        var form = StripeForm()
        form.add("status", value ?? "")
        let response = try await send(
            .post, StripeAPI.issuingToken(id), form: form,
            repeatability: .idempotent(
                header: StripeAPI.idempotencyKeyHeader, scope: "token_status:\(id):\(value ?? "")"),
            operation: "update token", context: context
        )
        return Self.issuingToken(
            try decode(StripeTokenWire.self, response, object: "issuing.token", \.object, what: "issuing token"))
    }
}

/// Which Issuing cards to list (`GET /v1/issuing/cards`), and which page.
struct StripeCardListQuery: Sendable, Equatable {
    /// 1…100; nil lets Stripe choose (10).
    var limit: Int?
    /// The last card id of the previous page.
    var startingAfter: String?
    /// The first card id of the next page, to page backwards.
    var endingBefore: String?
    /// active, inactive or cancelled.
    var status: CardStatus?
    /// physical or virtual.
    var type: CardType?
    /// A cardholder id (`ich_…`).
    var cardholder: String?

    init(
        limit: Int? = nil, startingAfter: String? = nil, endingBefore: String? = nil, status: CardStatus? = nil,
        type: CardType? = nil, cardholder: String? = nil
    ) {
        self.limit = limit
        self.startingAfter = startingAfter
        self.endingBefore = endingBefore
        self.status = status
        self.type = type
        self.cardholder = cardholder
    }
}

/// One page of a Stripe list, with its cursor.
struct StripeList<Item: Sendable>: Sendable {
    var items: [Item]
    /// Stripe's `has_more`.
    var hasMore: Bool
    /// The id to pass as `startingAfter` for the next page (the last item's id), nil when there is no next page
    /// or when this page was read backwards.
    var nextStartingAfter: String?
    /// The id to pass as `endingBefore` for the page before this one (the first item's id): after a backward read
    /// with more items before it, or after a forward read that started after a cursor. Nil otherwise.
    var previousEndingBefore: String?

    init(items: [Item], hasMore: Bool, nextStartingAfter: String?, previousEndingBefore: String? = nil) {
        self.items = items
        self.hasMore = hasMore
        self.nextStartingAfter = nextStartingAfter
        self.previousEndingBefore = previousEndingBefore
    }
}

extension StripeList: Equatable where Item: Equatable {}

/// An Issuing token (`issuing.token`): a card's token in a wallet, with the card it belongs to.
struct StripeIssuingToken: Sendable, Equatable {
    var card: CardRef
    var token: WalletToken
    /// Stripe's `device_fingerprint`, when it has one.
    var deviceFingerprint: String?
    /// When the network last updated the token.
    var networkUpdatedAt: Date?

    init(card: CardRef, token: WalletToken, deviceFingerprint: String? = nil, networkUpdatedAt: Date? = nil) {
        self.card = card
        self.token = token
        self.deviceFingerprint = deviceFingerprint
        self.networkUpdatedAt = networkUpdatedAt
    }

    var id: String { token.id }
}
