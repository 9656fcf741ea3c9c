import Foundation

// Wallets: the tokens a card has in mobile wallets, and provisioning a card to one.
extension CardGateway {
    // MARK: Wallet tokens

    /// Every token the card's provider holds for it in mobile wallets.
    public func walletTokens(
        of card: CardRef, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> [WalletToken] {
        try await perform(.listWalletTokens, on: (any WalletTokenListing).self, via: target, context: context) {
            provider, _ in try await provider.walletTokens(of: card, context: context)
        }
    }

    /// Suspends, resumes or deletes one wallet token, routed as ``GatewayOperation/suspendWalletToken``,
    /// ``GatewayOperation/resumeWalletToken`` or ``GatewayOperation/deleteWalletToken``.
    public func changeWalletToken(
        _ change: WalletTokenRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> WalletToken {
        try await perform(
            change.intent.operation, on: (any WalletTokenControl).self, via: target, context: context,
            ledger: { instance, _ in
                valueRecord { LedgerFingerprint.walletTokenChange(change, instance: instance.name) }
            }
        ) { provider, _ in try await provider.changeWalletToken(change, context: context) }
    }

    // MARK: Wallet provisioning

    public func provisioningOffer(
        for card: CardRef, wallet: Wallet, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> ProvisioningOffer {
        try await perform(
            .provisioningOffer, on: (any WalletProvisioning).self, via: withWallet(target, wallet), context: context,
            journal: JournalEntry(card: card.id, wallet: wallet)
        ) { provider, instance in
            try await offer(for: card, wallet: wallet, instance: instance, provider: provider, context: context)
        }
    }

    /// The provider's offer, or, for a wallet the instance does not provision to, an ineligible offer made from the
    /// card.
    private func offer(
        for card: CardRef, wallet: Wallet, instance: ProviderInstance, provider: any WalletProvisioning,
        context: OperationContext
    ) async throws -> ProvisioningOffer {
        guard let flow = instance.descriptor.provisioningFlows[wallet] else {
            let card = try await provider.card(card, context: context)
            return ProvisioningOffer(
                card: card.ref, provider: instance.name, wallet: wallet, eligible: false,
                ineligibleReason: .walletNotSupported(wallet),
                flow: nil, cardholderName: card.cardholderName, lastFour: card.lastFour, network: card.scheme,
                expiry: card.expiry,
                existingTokens: card.walletTokens
            )
        }
        var offer = try await provider.offer(for: card, wallet: wallet, context: context)
        offer.provider = instance.name
        if offer.flow == nil { offer.flow = flow }
        return offer
    }

    public func provision(
        _ request: ProvisioningRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> ProvisioningResponse {
        try await perform(
            .provision, on: (any WalletProvisioning).self, via: withWallet(target, request.wallet), context: context,
            check: { instance in
                guard let flow = instance.descriptor.provisioningFlows[request.wallet] else {
                    throw CardGatewayError(
                        .unsupported,
                        "\(instance.name) (\(instance.kind)) does not provision cards to \(request.wallet)",
                        provider: instance.name, providerKind: instance.kind)
                }
                guard flow == request.input.flow else {
                    throw CardGatewayError.invalidRequest(
                        "\(instance.name) provisions \(request.wallet) by the \(flow) flow, but the request carries \(request.input.flow) input",
                        field: "input")
                }
                // A malformed chain, an empty nonce or an id with a control character is refused before any provider
                // is asked.
                try ProvisioningInputChecks.problems(in: request).throwIfAny()
            },
            journal: JournalEntry(card: request.card.id, wallet: request.wallet)
        ) { provider, _ in try await provider.provision(request, context: context) }
    }

    public func confirmProvisioning(
        _ confirmation: ProvisioningConfirmation, via target: RouteTarget,
        context: OperationContext = OperationContext()
    ) async throws {
        try await perform(
            .confirmProvisioning, on: (any WalletProvisioning).self, via: withWallet(target, confirmation.wallet),
            context: context,
            journal: JournalEntry(card: confirmation.card.id, wallet: confirmation.wallet),
            ledger: { instance, _ in
                LedgerRecord(
                    fingerprint: { LedgerFingerprint.confirmProvisioning(confirmation, instance: instance.name) },
                    encode: { _ in Data("{}".utf8) }, replay: { _ in })
            }
        ) { provider, _ in try await provider.confirm(confirmation, context: context) }
    }

    private func withWallet(_ target: RouteTarget, _ wallet: Wallet) -> RouteTarget {
        guard case .key(var key) = target else { return target }
        if key.wallet == nil { key.wallet = wallet }
        return .key(key)
    }
}
