import CardGateway
import CardGatewaySimulation
import CardGatewayStripe
import CardGatewayTesting
import Foundation
import HTTPTypes
import StripeSimulator
import Testing

/// The shared contract, run by the Stripe adapter against the Stripe simulator.
@Suite("Stripe contract")
struct StripeContractTests {
    static func subject() -> ContractSubject {
        let simulator = StripeSimulator()
        let credentials = StripeSimulator.Credentials.default
        typealias Seed = StripeSimulator.Seed
        let sdkKey: [ProvisioningInput] = [.issuerSDKKey(apiVersion: "2020-08-27")]
        let webhooks = ContractFixtures.Webhooks(signsTimestamp: true) { variant, now in
            guard let card = simulator.cardObject(Seed.inactiveCardID) else {
                throw CardGatewayError(.invalidConfiguration, "the simulator has no seeded inactive card")
            }
            let signed: (headers: [(String, String)], body: Data)
            switch variant {
            case .valid, .tampered:
                signed = simulator.signedWebhook(type: "issuing_card.updated", object: card, previousAttributes: ["status": "active"], timestamp: now)
            case .stale:
                signed = simulator.signedWebhook(type: "issuing_card.updated", object: card, timestamp: now.addingTimeInterval(-301))
            case .wrongSecret:
                signed = simulator.signedWebhook(type: "issuing_card.updated", object: card, timestamp: now, secret: "whsec_notTheEndpointsSecret")
            }
            var headers = HTTPFields()
            for (name, value) in signed.headers {
                if let fieldName = HTTPField.Name(name) { headers[fieldName] = value }
            }
            var body = signed.body
            if variant == .tampered { body = Data(String(decoding: body, as: UTF8.self).replacingOccurrences(of: "\"inactive\"", with: "\"active\"").utf8) }
            return WebhookDelivery(headers: headers, body: body)
        }
        let canceledCardStaysCanceled = ContractFixtures.ErrorScenario(name: "a canceled card cannot be reactivated", expected: .invalidCardState) { provider, context in
            guard let stripe = provider as? StripeProvider else { throw CardGatewayError(.unsupported, "not the Stripe adapter") }
            _ = try await stripe.updateCardStatus(card: CardRef(id: Seed.canceledCardID), status: .active, context: context)
        }
        let versionRequired = ContractFixtures.ErrorScenario(name: "an ephemeral key needs the SDK's API version", expected: .invalidRequest) { provider, context in
            guard let wallets = provider as? any WalletProvisioning else { throw CardGatewayError(.unsupported, "no provisioning") }
            _ = try await wallets.provision(
                ProvisioningRequest(card: CardRef(id: Seed.activeCardID), wallet: .applePay, input: .issuerSDKKey(apiVersion: "")), context: context
            )
        }
        return ContractSubject(
            name: "stripe", factory: .stripe,
            credentials: ["secretKey": Secret(credentials.testSecretKey), "webhookSecret": Secret(credentials.webhookSecret)],
            simulator: simulator,
            fixtures: ContractFixtures(
                lookup: .init(existing: CardRef(id: Seed.activeCardID), expectedStatus: .active, expectedLastFour: "4242", missing: CardRef(id: "ic_doesnotexist")),
                provisioning: .init(eligible: CardRef(id: Seed.activeCardID), ineligible: CardRef(id: Seed.inactiveCardID), inputs: [.applePay: sdkKey, .googlePay: sdkKey]),
                webhooks: webhooks,
                extraErrorScenarios: [canceledCardStaysCanceled, versionRequired]
            ),
            sensitiveValues: [credentials.webhookSecret, credentials.liveSecretKey]
        )
    }

    @Test func contract() async {
        let report = await ContractSuite.run(Self.subject())
        #expect(report.passed, "\(report)")
        #expect(report.failures.isEmpty, "\(report)")
    }
}
