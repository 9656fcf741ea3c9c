import Foundation

/// The root of every adapter: it says what it is and what it can do. Each capability is a protocol of its own.
public protocol CardProvider: Sendable {
    var descriptor: ProviderDescriptor { get }
}

/// Looks up one card. Every issuer adapter has it.
public protocol CardLookup: CardProvider {
    func card(_ ref: CardRef, context: OperationContext) async throws -> Card
}

/// Lists a customer's cards, page by page (``CardQuery/next(after:)`` gives the next page's query).
public protocol CardListing: CardProvider {
    func listCards(_ query: CardQuery, context: OperationContext) async throws -> CardPage
}

/// Issues a new card.
public protocol CardIssuance: CardLookup {
    func createCard(_ request: CreateCardRequest, context: OperationContext) async throws -> Card
}

/// Activates a physical card with the data printed on it.
public protocol CardActivation: CardLookup {
    func activateCard(_ request: ActivateCardRequest, context: OperationContext) async throws -> Card
}

/// Locks, unlocks and cancels cards. The descriptor says which intents the provider has: ``Capability/cardLocking``
/// (lock and unlock) and ``Capability/cardCancellation`` (cancel). A change the card's current state does not
/// allow throws ``CardGatewayError/Code/invalidCardState`` whatever the provider's own answer.
public protocol CardStatusControl: CardLookup {
    func changeStatus(_ change: CardStatusRequest, context: OperationContext) async throws -> Card
}

/// Sets a card's PIN.
public protocol CardPINManagement: CardLookup {
    func setPIN(_ request: SetCardPINRequest, context: OperationContext) async throws -> Card
}

/// The card programs a customer may get a card on.
public protocol CardPrograms: CardProvider {
    /// Programs the customer may get a card on.
    func programs(customer: String?, context: OperationContext) async throws -> [CardProgram]
}

/// A Paysafe-style card service: every card-management capability but lookup's.
public typealias CardService = CardListing & CardIssuance & CardActivation & CardStatusControl & CardPINManagement
    & CardPrograms

/// Lists a card's tokens in mobile wallets.
public protocol WalletTokenListing: CardLookup {
    /// Every token the provider holds for the card, deleted ones included, oldest first where the provider says.
    func walletTokens(of card: CardRef, context: OperationContext) async throws -> [WalletToken]
}

/// Suspends, resumes and deletes wallet tokens. A change the token's state does not allow (resuming a
/// deleted token) throws ``CardGatewayError/Code/invalidCardState``.
public protocol WalletTokenControl: CardLookup {
    func changeWalletToken(_ change: WalletTokenRequest, context: OperationContext) async throws -> WalletToken
}

/// Adds cards to mobile wallets.
public protocol WalletProvisioning: CardLookup {
    /// Whether the card can be added to the wallet, by which flow, and what the wallet sheet needs.
    func offer(for card: CardRef, wallet: Wallet, context: OperationContext) async throws -> ProvisioningOffer
    /// One provisioning round trip.
    func provision(_ request: ProvisioningRequest, context: OperationContext) async throws -> ProvisioningResponse
    /// Tells the provider the wallet reported success. Providers with nothing to record do nothing.
    func confirm(_ confirmation: ProvisioningConfirmation, context: OperationContext) async throws
}

/// Shows a card's details or PIN to the cardholder, or lets them change the PIN, without the backend seeing the
/// clear data (<doc:CardDetailsAndPIN>). The descriptor says which purposes, by which flow (``ProviderDescriptor/revealFlows``),
/// and the capabilities ``Capability/cardDetailsReveal``, ``Capability/pinReveal`` and ``Capability/pinChange``.
/// A session is never stored or replayed: each call makes a new one.
public protocol CardReveal: CardLookup {
    /// How the card offers `purpose` and what the front end must bring. Asks the provider only what the offer needs
    /// (a public key, whether the card exists and is in a state that allows it).
    func revealOffer(for card: CardRef, purpose: RevealPurpose, context: OperationContext) async throws -> RevealOffer
    /// A session for the front end, from what it supplied.
    func revealSession(_ request: RevealSessionRequest, context: OperationContext) async throws -> RevealSession
}

/// Cards kept on file: SDK sessions, result verification and charges.
public protocol StoredCredentials: CardProvider {
    func clientSession(_ request: ClientSessionRequest, context: OperationContext) async throws -> ClientSession
    /// Verifies the result the SDK produced (signature first) and turns it into a stored credential, or throws
    /// a normalised decline or error.
    func verifyResult(_ token: Secret, context: OperationContext) async throws -> StoredCredential
    func charge(_ request: ChargeRequest, context: OperationContext) async throws -> ChargeResult
}

/// Verifies webhooks and turns them into normalised events.
public protocol WebhookVerifying: CardProvider {
    /// Throws ``CardGatewayError`` `signatureInvalid` unless the delivery is authentic and fresh at `now`.
    func verify(_ delivery: WebhookDelivery, now: Date) throws -> [GatewayEvent]
}

/// Answers the provider's real-time authorization requests (``Capability/authorizations``): reads and authenticates
/// the provider's message, and writes a decision in the provider's wire. The gateway does the rest (the budget, the
/// rules, the decider, the stand-in, the ledger): see `CardGateway.respondToAuthorization`. The descriptor's
/// ``ProviderDescriptor/authorizationDeadline`` is the provider's published deadline for an answer.
public protocol AuthorizationResponding: CardProvider {
    /// Authenticates the delivery (a signature, or HTTP Basic credentials) and reads it. Throws
    /// ``CardGatewayError/Code/signatureInvalid`` unless it is authentic and fresh at `now` (the gateway answers 401
    /// and asks no decider), ``CardGatewayError/Code/invalidRequest`` for an authentic message it cannot read.
    func authorization(from delivery: WebhookDelivery, now: Date) throws -> ProviderAuthorization

    /// The provider's answer for `decision`. Never fails for a decision that has no
    /// ``AuthorizationDecision/problem(answering:)``: the gateway checks that first.
    func answer(
        _ decision: AuthorizationDecision, to authorization: ProviderAuthorization
    ) throws
        -> AuthorizationAnswer
}
