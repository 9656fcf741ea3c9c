@_spi(AdapterSupport) import CardGateway
import Foundation

/// The card status changes a customer may request through the update call.
///
/// **Inferred, not confirmed.** Paysafe's "Update prepaid card" table lost its check marks in the copy we
/// have; only "DIGITAL → ACTIVE (By PIN & CHIP)" survived. The rows below are the project's reading of it,
/// consistent with the status descriptions (LOCKED is reversible by UNLOCK, CANCELLED is irreversible, DIGITAL
/// is a not-yet-activated physical card). Paysafe stays the authority: a change it refuses is mapped from its
/// error. This is the only place the table lives; correct it here.
///
/// | from \ to | ACTIVE | CANCELLED | LOCKED |
/// |-----------|--------|-----------|--------|
/// | ACTIVE    | –      | yes       | yes    |
/// | LOCKED    | yes    | yes       | –      |
/// | DIGITAL   | yes (by PIN & CHIP) | yes | yes |
///
/// Activation (ISSUED or DIGITAL → ACTIVE with last four and CVV) is a separate call, not an update.
public enum PaysafeCardTransitions: Sendable {
    /// Paysafe status words: from → the statuses it may be changed to.
    public static let allowed: [String: Set<String>] = [
        "ACTIVE": ["LOCKED", "CANCELLED"],
        "LOCKED": ["ACTIVE", "CANCELLED"],
        "DIGITAL": ["ACTIVE", "CANCELLED", "LOCKED"],
    ]

    /// Whether a card in Paysafe status `from` may be updated to Paysafe status `to`.
    public static func isAllowed(from: String, to: String) -> Bool {
        allowed[from.uppercased()]?.contains(to.uppercased()) ?? false
    }

    /// The statuses activation starts from. [C]
    public static let activatableStatuses: Set<String> = ["ISSUED", "DIGITAL"]

    /// The Paysafe status word an update to `status` sends, or nil when no update can reach it.
    public static func targetStatus(for status: CardStatus) -> String? {
        switch status {
        case .active: return "ACTIVE"
        case .locked: return "LOCKED"
        case .cancelled: return "CANCELLED"
        default: return nil
        }
    }
}

/// Listing, issuance, activation, updates and status changes: the card service's calls, each checked against
/// ``PaysafeCardTransitions`` where a status changes.
extension PaysafeProvider {
    public func listCards(_ query: CardQuery, context: OperationContext) async throws -> CardPage {
        var problems = ValidationProblems()
        PaysafeValidation.query(query, into: &problems)
        try problems.throwIfAny()
        let customer = query.customer ?? ""

        var items: [(name: String, value: String)] = []
        let types = Set(query.types)
        if types.count == 1, let type = types.first, let word = PaysafeMapping.providerCardType(type) {
            items.append(("cardType", word))
        }
        if !query.statuses.isEmpty {
            var words: [String] = []
            for status in query.statuses {
                for word in PaysafeMapping.providerStatuses(for: status) ?? [] where !words.contains(word) {
                    words.append(word)
                }
            }
            items.append(("status", words.joined(separator: ",")))
        }
        if let limit = query.limit { items.append(("limit", String(limit))) }
        items.append(("offset", String(query.offset)))
        let includes =
            (query.includeWalletTokens ? ["TOKENIZATIONS"] : [])
            + (query.includeAvailableActions ? ["AVAILABLE_ACTIONS"] : [])
        if !includes.isEmpty { items.append(("include", includes.joined(separator: ","))) }

        let response = try await perform(
            PaysafeCall(.get, PaysafeAPI.cards(customer: customer), query: items, operation: "list cards"),
            context: context
        )
        let list = try calls.decode(PaysafeWireCardList.self, from: response, what: "card list")
        return CardPage(
            cards: list.cards.map { PaysafeMapping.card($0, customer: customer) },
            total: list.meta?.numberOfRecords?.value,
            limit: list.meta?.limit?.value ?? query.limit,
            offset: query.offset,
            page: list.meta?.page?.value
        )
    }

    public func createCard(_ request: CreateCardRequest, context: OperationContext) async throws -> Card {
        var problems = ValidationProblems()
        PaysafeValidation.create(request, region: configuration.region, into: &problems)
        try problems.throwIfAny()
        let wire = PaysafeWireCardRequest(
            programName: request.program, currency: request.currency, mobile: request.mobile,
            cardPin: request.pin?.revealedValue,
            externalId: request.externalID, userAgent: request.userAgent ?? configuration.userAgent,
            deliveryAddress: request.deliveryAddress.map {
                .init(
                    address1: $0.address1, address2: $0.address2, address3: $0.address3, city: $0.city,
                    countryCode: $0.countryCode, state: $0.state, postalCode: $0.postalCode)
            },
            termsAndConditionsAccepted: request.termsAndConditionsAccepted,
            eDisclosureAccepted: request.eDisclosureAccepted
        )
        let response = try await perform(
            PaysafeCall(
                .post, PaysafeAPI.cards(customer: request.customer), body: try encode(wire), operation: "create a card",
                signing: .createCard),
            context: context
        )
        return PaysafeMapping.card(
            try calls.decode(PaysafeWireCard.self, from: response, what: "created card"), customer: request.customer)
    }

    /// Activates a physical card (ISSUED or DIGITAL) with its last four digits and CVV. The card is fetched
    /// first: one in any other status is refused with `invalidCardState` and the CVV is never sent.
    public func activateCard(_ request: ActivateCardRequest, context: OperationContext) async throws -> Card {
        var problems = ValidationProblems()
        PaysafeValidation.activate(request, into: &problems)
        try problems.throwIfAny()
        let customer = request.card.customer ?? ""
        let current = try await fetchCard(request.card, context: context, primary: false)
        guard PaysafeCardTransitions.activatableStatuses.contains(current.providerStatus.uppercased()) else {
            throw CardGatewayError(
                .invalidCardState,
                "a Paysafe card in status \(SafeText.scrub(current.providerStatus, maxLength: 40)) cannot be activated; only ISSUED and DIGITAL cards can",
                provider: http.instance, providerKind: .paysafe
            )
        }
        let wire = PaysafeWireActivationRequest(
            lastFourDigits: request.lastFour, cvv: request.cvv.revealedValue,
            userAgent: request.userAgent ?? configuration.userAgent)
        let response = try await perform(
            PaysafeCall(
                .post, PaysafeAPI.activate(customer: customer, card: request.card.id), body: try encode(wire),
                operation: "activate a card", signing: .activateCard),
            context: context
        )
        return try await cardFromWriteResponse(response, ref: request.card, what: "activated card", context: context)
    }

    /// Changes a card's status (checked against ``PaysafeCardTransitions`` after fetching the card). A PIN change is
    /// refused with `unsupported` before any request: "Pin change is an unavailable action for Business APIs"
    /// (Paysafe's business update page). The body carries the required `userAgent` (≤ 1,000 characters, user-facing
    /// `CardUpdateRequest`): the cardholder's (``UpdateCardRequest/userAgent``), or the instance's
    /// ``PaysafeOptions/userAgent`` when the request names none. Paysafe may require SCA: the error then
    /// carries the challenge.
    public func updateCard(_ request: UpdateCardRequest, context: OperationContext) async throws -> Card {
        let status: CardStatus
        let reason: String?
        switch request.change {
        case .pin:
            throw CardGatewayError(
                .unsupported,
                "Paysafe's business API offers no PIN change (\"Pin change is an unavailable action for Business APIs\")",
                provider: http.instance, providerKind: .paysafe
            )
        case .status(let target, let text):
            status = target
            reason = text
        }
        var problems = ValidationProblems()
        PaysafeValidation.update(request, into: &problems)
        try problems.throwIfAny()
        let customer = request.card.customer ?? ""
        guard let target = PaysafeCardTransitions.targetStatus(for: status) else {
            throw CardGatewayError(
                .invalidCardState,
                "a Paysafe card cannot be changed to \(status) by an update; only active, locked and cancelled can be requested",
                provider: http.instance, providerKind: .paysafe
            )
        }
        let current = try await fetchCard(request.card, context: context, primary: false)
        guard PaysafeCardTransitions.isAllowed(from: current.providerStatus, to: target) else {
            throw CardGatewayError(
                .invalidCardState,
                "a Paysafe card in status \(SafeText.scrub(current.providerStatus, maxLength: 40)) cannot be changed to \(target)",
                provider: http.instance, providerKind: .paysafe
            )
        }
        let wire = PaysafeWireUpdateRequest(
            status: target, statusReason: reason, userAgent: request.userAgent ?? configuration.userAgent)
        let response = try await perform(
            PaysafeCall(
                PaysafeAPI.updateCardMethod, PaysafeAPI.card(customer: customer, card: request.card.id),
                body: try encode(wire), operation: "update a card", signing: .updateCard),
            context: context
        )
        return try await cardFromWriteResponse(response, ref: request.card, what: "updated card", context: context)
    }

    /// Lock (LOCKED), unlock (ACTIVE) and cancel (CANCELLED) through the update call, checked against
    /// ``PaysafeCardTransitions``. The comment, or else the reason's name, is sent as `statusReason`.
    public func changeStatus(_ change: CardStatusRequest, context: OperationContext) async throws -> Card {
        let status: CardStatus =
            switch change.intent {
            case .lock: .locked
            case .unlock: .active
            default: .cancelled
            }
        var update = UpdateCardRequest(
            card: change.card, change: .status(status, reason: change.comment ?? change.reason?.rawValue))
        update.userAgent = change.userAgent
        return try await updateCard(update, context: context)
    }

    /// The card's tokenizations, as the card read with `include=TOKENIZATIONS` gives them.
    public func walletTokens(of card: CardRef, context: OperationContext) async throws -> [WalletToken] {
        try await self.card(card, context: context).walletTokens
    }

    public func programs(customer: String?, context: OperationContext) async throws -> [CardProgram] {
        var problems = ValidationProblems()
        PaysafeValidation.customer(customer, field: "customer", into: &problems)
        try problems.throwIfAny()
        let response = try await perform(
            PaysafeCall(.get, PaysafeAPI.programs(customer: customer ?? ""), operation: "list programs"),
            context: context
        )
        return try calls.decode(PaysafeWirePrograms.self, from: response, what: "programs").programs.map(
            PaysafeMapping.program)
    }
}
