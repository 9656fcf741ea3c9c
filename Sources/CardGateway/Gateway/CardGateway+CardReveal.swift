import Foundation

// Card details and PIN for the cardholder (CardDetailsAndPIN.md). Routed like every other operation, by purpose:
// ``GatewayOperation/cardDetailsReveal``, ``GatewayOperation/pinReveal`` and ``GatewayOperation/pinChange``. Neither
// step is ledgered or journaled: a session is never replayed or stored, and asking again makes a new one.
extension CardGateway {
    /// Step one: how the card's provider offers `purpose`, and what the front end must bring to step two.
    public func revealOffer(
        for card: CardRef, purpose: RevealPurpose, via target: RouteTarget,
        context: OperationContext = OperationContext()
    ) async throws -> RevealOffer {
        try await perform(
            purpose.operation, on: (any CardReveal).self, via: target, context: context,
            check: { instance in
                _ = try Self.revealFlow(purpose, of: instance)
                try RevealSessionRequest(card: card, purpose: purpose).problems(in: .secureLink).throwIfAny()
            },
            afterCall: { offer, instance, _ in
                let flow = try Self.revealFlow(purpose, of: instance)
                guard offer.flow == flow, offer.purpose == purpose else {
                    throw CardGatewayError(
                        .invalidResponse,
                        "\(instance.name) offered \(offer.purpose) by \(offer.flow), but declares \(purpose) by \(flow)",
                        provider: instance.name, providerKind: instance.kind)
                }
                return offer
            },
            stamp: { offer, instance in offer.provider = instance.name }
        ) { provider, _ in try await provider.revealOffer(for: card, purpose: purpose, context: context) }
    }

    /// Step two: a session for the front end, made from what it supplied. The request is checked against the flow the
    /// provider declares for the purpose before any provider is asked.
    public func revealSession(
        _ request: RevealSessionRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> RevealSession {
        try await perform(
            request.purpose.operation, on: (any CardReveal).self, via: target, context: context,
            check: { instance in try request.problems(in: Self.revealFlow(request.purpose, of: instance)).throwIfAny()
            },
            stamp: { session, instance in session.provider = instance.name }
        ) { provider, _ in try await provider.revealSession(request, context: context) }
    }

    /// The flow `instance` declares for `purpose`; `unsupported` when it declares none.
    private static func revealFlow(_ purpose: RevealPurpose, of instance: ProviderInstance) throws -> RevealFlow {
        guard let flow = instance.descriptor.revealFlows[purpose] else {
            throw CardGatewayError(
                .unsupported, "\(instance.name) (\(instance.kind)) declares no flow for \(purpose)",
                provider: instance.name, providerKind: instance.kind)
        }
        return flow
    }
}
