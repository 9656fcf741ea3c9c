import Foundation

/// The root of every adapter: it says what it is and what it can do. Each capability is a protocol of its own.
public protocol CardProvider: Sendable {
    var descriptor: ProviderDescriptor { get }
}

/// Looks up one card. Every issuer adapter has it.
public protocol CardLookup: CardProvider {
    func card(_ ref: CardRef, context: OperationContext) async throws -> Card
}

/// A Paysafe-style card service.
public protocol CardService: CardLookup {
    func listCards(_ query: CardQuery, context: OperationContext) async throws -> CardPage
    func createCard(_ request: CreateCardRequest, context: OperationContext) async throws -> Card
    func activateCard(_ request: ActivateCardRequest, context: OperationContext) async throws -> Card
    func updateCard(_ request: UpdateCardRequest, context: OperationContext) async throws -> Card
    /// Programs the customer may get a card on.
    func programs(customer: String?, context: OperationContext) async throws -> [CardProgram]
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
