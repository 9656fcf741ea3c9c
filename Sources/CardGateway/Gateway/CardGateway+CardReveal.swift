import Foundation

// Card details and PIN for the cardholder (docs/CARD_REVEAL.md). Routed like every other operation, by purpose:
// ``GatewayOperation/cardDetailsReveal``, ``GatewayOperation/pinReveal`` and ``GatewayOperation/pinChange``. Neither
// step is ledgered or journaled: a session is never replayed or stored, and asking again makes a new one.
extension CardGateway {
    /// Step one: how the card's provider offers `purpose`, and what the front end must bring to step two.
    public func revealOffer(
        for card: CardRef, purpose: RevealPurpose, via target: RouteTarget,
        context: OperationContext = OperationContext()
    ) async throws -> RevealOffer {
        let (instance, provider) = try capability((any CardReveal).self, target, purpose.operation, context: context)
        guard let flow = instance.descriptor.revealFlows[purpose] else {
            throw CardGatewayError(
                .unsupported, "\(instance.name) (\(instance.kind)) declares no flow for \(purpose)",
                provider: instance.name, providerKind: instance.kind)
        }
        try RevealSessionRequest(card: card, purpose: purpose).problems(in: .secureLink).throwIfAny()
        var offer = try await attributed(instance, purpose.operation) {
            try await provider.revealOffer(for: card, purpose: purpose, context: context)
        }
        guard offer.flow == flow, offer.purpose == purpose else {
            throw CardGatewayError(
                .invalidResponse,
                "\(instance.name) offered \(offer.purpose) by \(offer.flow), but declares \(purpose) by \(flow)",
                provider: instance.name, providerKind: instance.kind)
        }
        offer.provider = instance.name
        return offer
    }

    /// Step two: a session for the front end, made from what it supplied. The request is checked against the flow the
    /// provider declares for the purpose before any provider is asked.
    public func revealSession(
        _ request: RevealSessionRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> RevealSession {
        let (instance, provider) = try capability(
            (any CardReveal).self, target, request.purpose.operation, context: context)
        guard let flow = instance.descriptor.revealFlows[request.purpose] else {
            throw CardGatewayError(
                .unsupported, "\(instance.name) (\(instance.kind)) declares no flow for \(request.purpose)",
                provider: instance.name, providerKind: instance.kind)
        }
        try request.problems(in: flow).throwIfAny()
        var session = try await attributed(instance, request.purpose.operation) {
            try await provider.revealSession(request, context: context)
        }
        session.provider = instance.name
        return session
    }
}
