import CardGateway

// The demo's card details and PIN steps (CardDetailsAndPIN.md): for every purpose each provider offers, the backend's
// two steps through the gateway (offer, session), then the app's side on the simulator, the way the provider's
// front-end library or SDK does it (each room's `revealAppSide`).

extension DemoSteps {
    /// Every purpose each provider instance declares, on a seeded card.
    func cardReveal(_ recorder: inout DemoRecorder) async {
        let plans = simulators.rooms.compactMap {
            room -> (room: any ExampleRoom, instance: String, via: RouteTarget, card: CardRef)? in
            let type = type(of: room)
            return type.revealCard.map { (room, type.instance, type.via, $0) }
        }
        for plan in plans {
            let descriptor = gateway.instance(named: plan.instance)?.descriptor
            let flows = descriptor?.revealFlows ?? [:]
            guard !flows.isEmpty else {
                recorder.skip(
                    "card reveal", plan.instance,
                    because: "\(descriptor?.kind.name ?? plan.instance) shows no card details or PIN to the front end")
                continue
            }
            for purpose in RevealPurpose.allCases where flows[purpose] != nil {
                await recorder.step("card reveal: \(purpose.title)", plan.instance) {
                    let offer = try await gateway.revealOffer(for: plan.card, purpose: purpose, via: plan.via)
                    let shown = try await plan.room.revealAppSide(offer, via: plan.via, steps: self)
                    return "by \(offer.flow): \(shown)"
                }
            }
        }
    }
}
