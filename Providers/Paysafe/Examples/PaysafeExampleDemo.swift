import CardGateway
import CardGatewayExampleKit
import Foundation
import PaysafeSimulator

extension PaysafeExampleRoom {
    public func demo(_ steps: DemoSteps, _ recorder: inout DemoRecorder) async {
        await steps.paysafe(&recorder)
    }
}

extension DemoSteps {
    // MARK: Paysafe: card service, encrypted payloads, confirm

    func paysafe(_ recorder: inout DemoRecorder) async {
        typealias Seed = PaysafeSimulator.Seed
        let via = RouteTarget.key(RouteKey(issuer: Issuer.paysafe))
        let customer = Seed.euCustomer
        let name = Instance.paysafe

        await recorder.step("card service: list a customer's cards", name) {
            let page = try await gateway.listCards(CardQuery(customer: customer, limit: 50), via: via)
            try expect(!page.cards.isEmpty, "the seeded customer has no cards")
            let statuses = Dictionary(grouping: page.cards, by: \.status).map { "\($0.value.count) \($0.key.rawValue)" }
                .sorted()
            return "\(page.cards.count) cards of \(customer): \(statuses.joined(separator: ", "))"
        }
        await recorder.step("card service: card programs", name) {
            let programs = try await gateway.programs(customer: customer, via: via)
            try expect(!programs.isEmpty, "no programs")
            return programs.map(\.name).joined(separator: ", ")
        }
        await recorder.step("card service: create a virtual card (routed by program)", name) {
            let request = CreateCardRequest(
                customer: customer, type: .virtual, program: Seed.virtualMCProgram, currency: "EUR")
            let card = try await gateway.createCard(request, via: .key(RouteKey(program: Seed.virtualMCProgram)))
            try expect(card.type == .virtual, "created a \(card.type.rawValue) card")
            return
                "\(card.ref.id): \(card.status.rawValue) virtual \(card.scheme.rawValue) ending \(card.lastFour ?? "?")"
        }
        await recorder.step("card service: create a physical card", name) {
            let request = CreateCardRequest(
                customer: customer, type: .physical, program: Seed.physicalMCProgram, currency: "EUR",
                deliveryAddress: DeliveryAddress(
                    address1: "Tsarigradsko Shose 73", city: "Sofia", countryCode: "BG", state: nil, postalCode: "1000")
            )
            let card = try await gateway.createCard(request, via: .key(RouteKey(program: Seed.physicalMCProgram)))
            try expect(card.type == .physical, "created a \(card.type.rawValue) card")
            return "\(card.ref.id): \(card.status.rawValue) physical card, to be activated on arrival"
        }
        await recorder.step("card service: activate a physical card", name) {
            // The cardholder types the last four digits and the CVV printed on the card.
            let request = ActivateCardRequest(
                card: CardRef(id: Seed.issuedCardID, customer: customer), lastFour: Seed.issuedCardLastFour,
                cvv: Secret(Seed.issuedCardCVV))
            let card = try await gateway.activateCard(request, via: via)
            try expect(card.status == .active, "the card is \(card.status.rawValue) after activation")
            return "\(card.ref.id) is active"
        }
        await lifecycle(
            &recorder, name: name, via: via, lockable: CardRef(id: Seed.activeVisaCardID, customer: customer),
            token: (card: CardRef(id: Seed.tokenizedCardID, customer: customer), id: Seed.tokenizedDPANRef)
        )
        let eligible = CardRef(id: Seed.activeCardID, customer: customer)
        await offerAndProvision(
            &recorder, name: name, via: via, card: eligible,
            inputs: walletInputs)
        await recorder.step("Apple Pay: offer for a locked card", name) {
            let offer = try await gateway.provisioningOffer(
                for: CardRef(id: Seed.lockedCardID, customer: customer), wallet: .applePay, via: via)
            try expect(!offer.eligible, "a locked card was offered")
            return "not offered: \(offer.ineligibleReason?.code ?? "no reason given")"
        }
        await confirm(&recorder, name: name, via: via, card: eligible, reference: "DAPLMC0000DEMO000000000000000001")
    }
}
