import CardGateway
import Foundation

/// One card in one wallet, as Apple's issuer wallet extension needs it for `passEntries()`.
struct WalletExtensionEntry: Sendable {
    var cardId: String
    var displayName: String
    var wallet: Wallet
    var provider: String?
    var eligible: Bool
    var ineligibleReason: IneligibilityReason?
    var flow: ProvisioningFlow?
    var cardholderName: String?
    var lastFour: String?
    var network: CardScheme?
    var primaryAccountIdentifier: String?
    /// The start of the issuer SDK relay, for cards provisioned that way.
    var sdkInput: SensitiveData?
    var error: ItemError?
    /// The card at its provider, to drop the bundle when a webhook says the card changed. Not sent.
    var cardRef: CardRef

    /// The entry as the app gets it; nil for a wallet the document does not name (a directory may list wallets a
    /// newer library knows).
    var wire: Components.Schemas.WalletExtensionEntry? {
        guard let wallet = WireModel.wallet(wallet) else { return nil }
        return .init(
            cardId: cardId, displayName: displayName, wallet: wallet, provider: provider, eligible: eligible,
            ineligibleReason: WireModel.reason(ineligibleReason), flow: WireModel.flow(flow),
            cardholderName: cardholderName,
            lastFour: lastFour, network: WireModel.network(network), primaryAccountIdentifier: primaryAccountIdentifier,
            sdkInput: sdkInput.map(WireModel.base64), error: WireModel.itemError(error)
        )
    }
}

/// A user's bundle: every entry, and when it was built.
struct WalletExtensionSnapshot: Sendable {
    var entries: [WalletExtensionEntry]
    var generatedAt: Date

    var hasErrors: Bool { entries.contains { $0.error != nil } }

    /// Apple's `status()`: whether `passEntries()` / `remotePassEntries()` would have anything to add. The
    /// server cannot tell the phone from a paired watch; the extension filters with `PKPassLibrary`.
    func status(requiresAuthentication: Bool) -> Components.Schemas.WalletExtensionStatus {
        let available = entries.contains { $0.wallet == .applePay && $0.eligible && $0.error == nil }
        return .init(
            passEntriesAvailable: available, remotePassEntriesAvailable: available,
            requiresAuthentication: requiresAuthentication,
            generatedAt: generatedAt
        )
    }
}

/// Per-user wallet-extension bundles with a lifetime. Concurrent requests for the same user share one build,
/// and a webhook that concerns a card drops every bundle that holds it.
actor WalletExtensionCache {
    private struct InFlight {
        var generation: UInt64
        var task: Task<WalletExtensionSnapshot, any Error>
    }

    let ttl: Duration
    let errorTTL: Duration
    let maxUsers: Int
    private var snapshots: [String: WalletExtensionSnapshot] = [:]
    private var inFlight: [String: InFlight] = [:]
    /// Bumped by every invalidation, so a build that started before it is not stored after it.
    private var generation: UInt64 = 0

    init(ttl: Duration, errorTTL: Duration, maxUsers: Int) {
        self.ttl = ttl
        self.errorTTL = errorTTL
        self.maxUsers = maxUsers
    }

    /// When a snapshot stops being served from the cache.
    func expiry(of snapshot: WalletExtensionSnapshot) -> Date {
        snapshot.generatedAt.addingTimeInterval((snapshot.hasErrors ? errorTTL : ttl).timeInterval)
    }

    /// The cached snapshot, fresh or not; never builds one.
    func cached(userID: String) -> WalletExtensionSnapshot? { snapshots[userID] }

    /// A fresh snapshot from the cache, or a new one from `build` (shared with concurrent callers).
    func snapshot(
        userID: String, refresh: Bool, now: Date, build: @escaping @Sendable () async throws -> WalletExtensionSnapshot
    ) async throws -> (snapshot: WalletExtensionSnapshot, cached: Bool) {
        if !refresh, let snapshot = snapshots[userID], now < expiry(of: snapshot) {
            return (snapshot, true)
        }
        if let running = inFlight[userID] {
            return (try await running.task.value, false)
        }
        let started = generation
        let task = Task { try await build() }
        inFlight[userID] = InFlight(generation: started, task: task)
        defer { if inFlight[userID]?.task == task { inFlight[userID] = nil } }
        let snapshot = try await task.value
        if generation == started {
            snapshots[userID] = snapshot
            evictIfNeeded(now: now)
        }
        return (snapshot, false)
    }

    func invalidate(userID: String) {
        generation &+= 1
        snapshots[userID] = nil
    }

    /// Drops every bundle holding the card (by provider card id, and by instance when both sides name one).
    func invalidate(cardID: String, provider: String?) {
        generation &+= 1
        snapshots = snapshots.filter { _, snapshot in
            !snapshot.entries.contains { entry in
                entry.cardRef.id == cardID && (provider == nil || entry.provider == nil || entry.provider == provider)
            }
        }
    }

    private func evictIfNeeded(now: Date) {
        guard snapshots.count > maxUsers else { return }
        snapshots = snapshots.filter { _, snapshot in now < expiry(of: snapshot) }
        while snapshots.count > maxUsers,
            let oldest = snapshots.min(by: { $0.value.generatedAt < $1.value.generatedAt })?.key
        {
            snapshots[oldest] = nil
        }
    }
}

extension ProvisioningServer {
    /// `GET /v1/wallet-extension[?refresh=true]`: every card and wallet the app offers, in one call.
    func walletExtensionBundle(
        for user: AppUser, refresh: Bool, context: OperationContext
    ) async throws -> Components.Schemas.WalletExtensionBundle {
        var context = context
        context.deadline = .now + configuration.walletExtensionDeadline
        let buildContext = context
        let (snapshot, cached) = try await walletExtensionCache.snapshot(userID: user.id, refresh: refresh, now: now())
        {
            try await self.buildWalletExtension(for: user, context: buildContext)
        }
        return .init(
            entries: snapshot.entries.compactMap(\.wire),
            status: snapshot.status(requiresAuthentication: configuration.walletExtensionRequiresAuthentication),
            generatedAt: snapshot.generatedAt, expiresAt: await walletExtensionCache.expiry(of: snapshot),
            cached: cached
        )
    }

    /// `GET /v1/wallet-extension/status`: answered from the cache only, never from a provider.
    func walletExtensionStatus(for user: AppUser) async -> Components.Schemas.WalletExtensionStatus {
        let requiresAuthentication = configuration.walletExtensionRequiresAuthentication
        guard let snapshot = await walletExtensionCache.cached(userID: user.id) else {
            return .init(
                passEntriesAvailable: false, remotePassEntriesAvailable: false,
                requiresAuthentication: requiresAuthentication)
        }
        return snapshot.status(requiresAuthentication: requiresAuthentication)
    }

    /// Builds a user's bundle: cards fetched a few at a time, each card's wallets in turn.
    func buildWalletExtension(for user: AppUser, context: OperationContext) async throws -> WalletExtensionSnapshot {
        let cards = try await directory.cards(of: user)
        let gateway = self.gateway
        let requestID = context.requestID ?? ""
        let perCard = await boundedConcurrentMap(cards, limit: configuration.walletExtensionConcurrency) {
            card -> [WalletExtensionEntry] in
            var entries: [WalletExtensionEntry] = []
            for wallet in card.wallets {
                entries.append(
                    await Self.walletExtensionEntry(
                        card: card, wallet: wallet, gateway: gateway, context: context, requestID: requestID))
            }
            return entries
        }
        return WalletExtensionSnapshot(entries: perCard.flatMap { $0 }, generatedAt: now())
    }

    static func walletExtensionEntry(
        card: OwnedCard, wallet: Wallet, gateway: CardGateway, context: OperationContext, requestID: String
    ) async -> WalletExtensionEntry {
        var entry = WalletExtensionEntry(
            cardId: card.id, displayName: card.displayName, wallet: wallet, eligible: false, cardRef: card.ref)
        do {
            let offer = try await gateway.provisioningOffer(
                for: card.ref, wallet: wallet, via: card.route, context: context)
            entry.provider = offer.provider
            entry.eligible = offer.eligible
            entry.ineligibleReason = offer.ineligibleReason
            entry.flow = offer.flow
            entry.cardholderName = offer.cardholderName
            entry.lastFour = offer.lastFour
            entry.network = offer.network
            entry.primaryAccountIdentifier = offer.primaryAccountIdentifier
            if offer.eligible, offer.flow == .issuerSDKRelay {
                let start = ProvisioningRequest(card: card.ref, wallet: wallet, input: .issuerSDK(output: nil))
                if let input = try await gateway.provision(start, via: card.route, context: context).issuerSDKInput {
                    entry.sdkInput = input
                }
            }
        } catch {
            entry.eligible = false
            entry.sdkInput = nil
            entry.error = ProblemRendering(error, requestID: requestID).itemError
            if entry.provider == nil {
                entry.provider = (try? gateway.resolve(card.route, operation: .provisioningOffer))?.name
            }
        }
        return entry
    }
}
