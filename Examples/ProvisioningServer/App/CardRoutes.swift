import CardGateway
import Foundation
import Hummingbird

// MARK: Wire shapes

/// A wallet token of a card, as the app sees it.
struct WalletTokenView: Encodable, Sendable {
    var id: String
    var wallet: Wallet?
    var status: WalletTokenStatus
    var providerStatus: String
    var deviceAccountReference: String?
    var walletId: String?
    var lastFour: String?
    var network: CardScheme?
    var created: Date?

    init(_ token: WalletToken) {
        id = token.id
        wallet = token.wallet
        status = token.status
        providerStatus = token.providerStatus
        deviceAccountReference = token.deviceAccountReference
        walletId = token.walletID
        lastFour = token.lastFour
        network = token.network
        created = token.created
    }
}

/// A card as the app sees it: the public id, never the provider's id, customer or BIN.
struct CardView: Encodable, Sendable {
    var id: String
    var displayName: String
    /// The provider instance serving the card.
    var provider: String?
    /// The wallets the app offers for this card.
    var wallets: [Wallet]
    var status: CardStatus?
    var providerStatus: String?
    var statusReason: String?
    var type: CardType?
    var network: CardScheme?
    var lastFour: String?
    var expiry: CardExpiry?
    var cardholderName: String?
    var currency: String?
    var program: String?
    var walletTokens: [WalletTokenView]?
    var availableActions: [String]?
    /// Set instead of the card's details when its provider failed.
    var error: ItemError?

    init(owned: OwnedCard, card: Card) {
        id = owned.id
        displayName = owned.displayName
        provider = card.provider
        wallets = owned.wallets
        status = card.status
        providerStatus = card.providerStatus
        statusReason = card.statusReason
        type = card.type
        network = card.scheme
        lastFour = card.lastFour
        expiry = card.expiry
        cardholderName = card.cardholderName
        currency = card.currency
        program = card.program
        walletTokens = card.walletTokens.map(WalletTokenView.init)
        availableActions = card.availableActions.map(\.rawValue)
    }

    init(owned: OwnedCard, provider: String?, error: ItemError) {
        id = owned.id
        displayName = owned.displayName
        self.provider = provider
        wallets = owned.wallets
        self.error = error
    }
}

struct CardListView: Encodable, Sendable {
    var cards: [CardView]
}

/// What the app needs to show "Add to Wallet" and configure the wallet sheet.
struct OfferView: Encodable, Sendable {
    var cardId: String
    var wallet: Wallet
    var provider: String?
    var eligible: Bool
    var ineligibleReason: IneligibilityReason?
    var flow: ProvisioningFlow?
    var cardholderName: String?
    var lastFour: String?
    var network: CardScheme?
    var primaryAccountIdentifier: String?
    var expiry: CardExpiry?
    var existingTokens: [WalletTokenView]

    init(cardID: String, offer: ProvisioningOffer) {
        cardId = cardID
        wallet = offer.wallet
        provider = offer.provider
        eligible = offer.eligible
        ineligibleReason = offer.ineligibleReason
        flow = offer.flow
        cardholderName = offer.cardholderName
        lastFour = offer.lastFour
        network = offer.network
        primaryAccountIdentifier = offer.primaryAccountIdentifier
        expiry = offer.expiry
        existingTokens = offer.existingTokens.map(WalletTokenView.init)
    }

    /// The answer for a wallet the app does not offer for this card (no provider is asked).
    init(cardID: String, notOffered wallet: Wallet) {
        cardId = cardID
        self.wallet = wallet
        eligible = false
        ineligibleReason = IneligibilityReason(code: "walletNotOffered", message: "the app does not offer this card in \(wallet)")
        existingTokens = []
    }
}

// MARK: Handlers

extension ProvisioningServer {
    func listCards(_ scope: RequestScope, _ user: AppUser) async throws -> Response {
        let owned = try await directory.cards(of: user)
        let context = try scope.operationContext(user: user)
        let gateway = self.gateway
        let views = await boundedConcurrentMap(owned, limit: configuration.cardListConcurrency) { card -> CardView in
            do {
                return CardView(owned: card, card: try await gateway.card(card.ref, via: card.route, context: context))
            } catch {
                // One failing provider must not hide the other cards.
                let provider = (try? gateway.resolve(card.route, operation: .card))?.name
                let rendering = ProblemRendering(error, requestID: scope.requestID)
                return CardView(owned: card, provider: provider, error: rendering.itemError)
            }
        }
        return JSONOutput.response(CardListView(cards: views))
    }

    func getCard(_ scope: RequestScope, _ user: AppUser) async throws -> Response {
        let owned = try await ownedCard(scope, user)
        let card = try await gateway.card(owned.ref, via: owned.route, context: try scope.operationContext(user: user))
        return JSONOutput.response(CardView(owned: owned, card: card))
    }

    func offer(_ scope: RequestScope, _ user: AppUser) async throws -> Response {
        let owned = try await ownedCard(scope, user)
        guard let name = scope.query("wallet") else {
            throw APIProblem.invalidRequest("The wallet query parameter is required.", errors: [FieldProblem(field: "wallet", message: "is required")])
        }
        let wallet = try Self.wallet(named: name, field: "wallet")
        guard owned.wallets.contains(wallet) else {
            return JSONOutput.response(OfferView(cardID: owned.id, notOffered: wallet))
        }
        let offer = try await gateway.provisioningOffer(for: owned.ref, wallet: wallet, via: owned.route, context: try scope.operationContext(user: user))
        return JSONOutput.response(OfferView(cardID: owned.id, offer: offer))
    }

    func provision(_ scope: RequestScope, _ user: AppUser) async throws -> Response {
        let owned = try await ownedCard(scope, user)
        let wallet = try Self.wallet(named: scope.parameters.get("wallet") ?? "", field: "wallet")
        try Self.requireOffered(wallet, by: owned)
        let flow = try provisioningFlow(of: owned, wallet: wallet)
        let input = try ProvisioningWire.input(from: try await scope.jsonBody(), flow: flow, wallet: wallet)
        let context = try scope.operationContext(user: user)
        let response = try await gateway.provision(ProvisioningRequest(card: owned.ref, wallet: wallet, input: input), via: owned.route, context: context)
        return ProvisioningWire.response(response)
    }

    func confirm(_ scope: RequestScope, _ user: AppUser) async throws -> Response {
        let owned = try await ownedCard(scope, user)
        let wallet = try Self.wallet(named: scope.parameters.get("wallet") ?? "", field: "wallet")
        try Self.requireOffered(wallet, by: owned)
        var body = try JSONBody(try await scope.jsonBody(), allowed: ["deviceAccountReference", "walletId"])
        let reference = body.string("deviceAccountReference")
        let walletID = body.string("walletId", required: false)
        try body.finish()
        guard let reference else { throw APIProblem.invalidRequest("deviceAccountReference is required.") }
        let confirmation = ProvisioningConfirmation(card: owned.ref, wallet: wallet, deviceAccountReference: reference, walletID: walletID)
        try await gateway.confirmProvisioning(confirmation, via: owned.route, context: try scope.operationContext(user: user))
        await walletExtensionCache.invalidate(userID: user.id)
        return JSONOutput.noContent()
    }

    /// The flow the card's provider instance uses for `wallet`, decided from its descriptor without calling it.
    func provisioningFlow(of card: OwnedCard, wallet: Wallet) throws -> ProvisioningFlow {
        var target = card.route
        if case .key(var key) = target, key.wallet == nil {
            key.wallet = wallet
            target = .key(key)
        }
        let instance = try gateway.resolve(target, operation: .provision)
        guard let flow = instance.descriptor.provisioningFlows[wallet] else {
            throw CardGatewayError(.unsupported, "\(instance.name) does not provision cards to \(wallet)", provider: instance.name, providerKind: instance.kind)
        }
        return flow
    }

    static func wallet(named name: String, field: String) throws -> Wallet {
        guard let wallet = Wallet(parsing: name) else {
            let known = Wallet.allCases.map(\.rawValue).joined(separator: ", ")
            throw APIProblem.invalidRequest("Unknown wallet; expected one of \(known).", errors: [FieldProblem(field: field, message: "must be one of \(known)")])
        }
        return wallet
    }

    static func requireOffered(_ wallet: Wallet, by card: OwnedCard) throws {
        guard card.wallets.contains(wallet) else {
            throw APIProblem(
                status: .conflict, type: "cardNotEligible", title: "Card not eligible",
                detail: "The app does not offer this card in \(wallet).", code: .cardNotEligible
            )
        }
    }
}

/// Maps `items` through `transform`, at most `limit` at a time, keeping the order of `items`.
func boundedConcurrentMap<Item: Sendable, Result: Sendable>(
    _ items: [Item], limit: Int, _ transform: @escaping @Sendable (Item) async -> Result
) async -> [Result] {
    await withTaskGroup(of: (Int, Result).self) { group in
        var results = [Result?](repeating: nil, count: items.count)
        var next = 0
        func startNext() {
            let index = next
            next += 1
            group.addTask { (index, await transform(items[index])) }
        }
        while next < min(max(1, limit), items.count) { startNext() }
        while let (index, result) = await group.next() {
            results[index] = result
            if next < items.count { startNext() }
        }
        return results.compactMap { $0 }
    }
}
