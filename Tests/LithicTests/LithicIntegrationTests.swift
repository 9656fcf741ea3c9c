import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import LithicSimulator
import SharedTestSupport
import Testing

@_spi(AdapterSupport) @testable import CardGatewayLithic

/// The adapter against its simulator through a ``CardGateway`` built from JSON configuration, as an application
/// runs it: the factory, credentials by reference, options and routing.
@Suite("Lithic through the gateway", .timeLimit(.minutes(5)))
struct LithicIntegrationTests {
    @Test("configuration → gateway → simulator: lookup, listing, lock, provisioning, webhooks")
    func throughTheGateway() async throws {
        let simulator = LithicSimulator()
        try await withSimulator(simulator) { handle in
            let json = """
                {"providers":{"lithic-sim":{"kind":"lithic","baseURL":"\(handle.baseURL.absoluteString)",
                  "credentials":{"apiKey":"env:LITHIC_KEY","webhookSecret":"env:LITHIC_WEBHOOK","asaSecret":"env:LITHIC_ASA"},
                  "options":{"embedTargetOrigin":"https://cardholder.example"}}},
                 "routes":[{"when":{"issuer":"lithic"},"use":"lithic-sim"}]}
                """
            let registry = ProviderRegistry([.lithic])
            let secrets = SecretResolver(environment: [
                "LITHIC_KEY": Seed.apiKey, "LITHIC_WEBHOOK": Seed.webhookSecret, "LITHIC_ASA": Seed.asaSecret,
            ])
            let configuration = try GatewayConfiguration.load(
                from: Data(json.utf8), registry: registry, secrets: secrets)
            let gateway = try CardGateway(configuration: configuration, registry: registry)
            let target = RouteTarget.key(RouteKey(issuer: "lithic"))
            let card = try await gateway.card(CardRef(id: Seed.activeCard), via: target)
            #expect(
                card.status == .active && card.lastFour == "4242" && card.expiry == CardExpiry(month: 8, year: 2030))
            #expect(card.provider == "lithic-sim")
            let offer = try await gateway.provisioningOffer(
                for: CardRef(id: Seed.activeCard), wallet: .googlePay, via: target)
            #expect(offer.eligible && offer.provider == "lithic-sim")
            let locked = try await gateway.changeCardStatus(
                CardStatusRequest(card: CardRef(id: Seed.lockableCard), intent: .lock), via: target)
            #expect(locked.status == .locked)
            #expect(handle.journal.entries().allSatisfy { $0.header("authorization") != Seed.apiKey })
            let bad = """
                {"providers":{"x":{"kind":"lithic","baseURL":"\(handle.baseURL.absoluteString)",
                  "credentials":{"apiKey":"literal:k"},"options":{"embedTargetOrigin":"http://insecure.example/path"}}},
                 "routes":[]}
                """
            #expect(throws: (any Error).self) {
                _ = try GatewayConfiguration.load(from: Data(bad.utf8), registry: registry, secrets: secrets)
            }
        }
    }
}
