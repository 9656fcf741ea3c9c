import Foundation

// Cards: reading, listing, issuing, activating, locking, unlocking, cancelling, PINs and programs.
extension CardGateway {
    public func card(
        _ ref: CardRef, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> Card {
        try await perform(.card, on: (any CardLookup).self, via: target, context: context, stamp: Self.stampCard) {
            provider, _ in try await provider.card(ref, context: context)
        }
    }

    public func listCards(
        _ query: CardQuery, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> CardPage {
        try await perform(
            .listCards, on: (any CardListing).self, via: target, context: context,
            check: { _ in try CardGateway.check(query).throwIfAny() },
            stamp: { page, instance in
                for index in page.cards.indices { page.cards[index].provider = instance.name }
            }
        ) { provider, _ in try await provider.listCards(query, context: context) }
    }

    /// The largest page ``listCards(_:via:context:)`` asks for; providers cap it lower where they must.
    public static let listLimitRange = 1...100

    static func check(_ query: CardQuery) -> ValidationProblems {
        var problems = ValidationProblems()
        if let limit = query.limit {
            problems.require(
                listLimitRange.contains(limit), "limit",
                "must be from \(listLimitRange.lowerBound) to \(listLimitRange.upperBound)")
        }
        problems.require(query.offset >= 0, "offset", "must not be negative")
        if let cursor = query.cursor {
            problems.require(Self.isPlainToken(cursor), "cursor", "must be 1 to 255 printable ASCII characters")
        }
        return problems
    }

    static func isPlainToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    public func createCard(
        _ request: CreateCardRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> Card {
        try await perform(
            .createCard, on: (any CardIssuance).self, via: target, context: context,
            ledger: { instance, provider in
                cardRecord(
                    { LedgerFingerprint.createCard(request, instance: instance.name) }, instance: instance,
                    provider: provider, context: context)
            },
            stamp: Self.stampCard
        ) { provider, _ in try await provider.createCard(request, context: context) }
    }

    public func activateCard(
        _ request: ActivateCardRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> Card {
        try await perform(
            .activateCard, on: (any CardActivation).self, via: target, context: context,
            ledger: { instance, provider in
                cardRecord(
                    { LedgerFingerprint.activateCard(request, instance: instance.name) }, instance: instance,
                    provider: provider, context: context)
            },
            stamp: Self.stampCard
        ) { provider, _ in try await provider.activateCard(request, context: context) }
    }

    /// Locks, unlocks or cancels a card, routed as ``GatewayOperation/lockCard``, ``GatewayOperation/unlockCard`` or
    /// ``GatewayOperation/cancelCard``. A change the card's state does not allow is `invalidCardState` for every
    /// provider; see <doc:CardLifecycle> for what each provider sends and the status that results.
    public func changeCardStatus(
        _ change: CardStatusRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> Card {
        try await perform(
            change.intent.operation, on: (any CardStatusControl).self, via: target, context: context,
            ledger: { instance, provider in
                cardRecord(
                    { LedgerFingerprint.statusChange(change, instance: instance.name) }, instance: instance,
                    provider: provider, context: context)
            },
            stamp: Self.stampCard
        ) { provider, _ in try await provider.changeStatus(change, context: context) }
    }

    public func lockCard(
        _ card: CardRef, reason: CardStatusReason? = nil, via target: RouteTarget,
        context: OperationContext = OperationContext()
    ) async throws -> Card {
        try await changeCardStatus(
            CardStatusRequest(card: card, intent: .lock, reason: reason), via: target, context: context)
    }

    public func unlockCard(
        _ card: CardRef, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> Card {
        try await changeCardStatus(CardStatusRequest(card: card, intent: .unlock), via: target, context: context)
    }

    public func cancelCard(
        _ card: CardRef, reason: CardStatusReason? = nil, via target: RouteTarget,
        context: OperationContext = OperationContext()
    ) async throws -> Card {
        try await changeCardStatus(
            CardStatusRequest(card: card, intent: .cancel, reason: reason), via: target, context: context)
    }

    public func setCardPIN(
        _ request: SetCardPINRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> Card {
        try await perform(
            .setCardPIN, on: (any CardPINManagement).self, via: target, context: context,
            ledger: { instance, provider in
                cardRecord(
                    { LedgerFingerprint.setPIN(request, instance: instance.name) }, instance: instance,
                    provider: provider, context: context)
            },
            stamp: Self.stampCard
        ) { provider, _ in try await provider.setPIN(request, context: context) }
    }

    public func programs(
        customer: String?, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> [CardProgram] {
        try await perform(.programs, on: (any CardPrograms).self, via: target, context: context) { provider, _ in
            try await provider.programs(customer: customer, context: context)
        }
    }
}
