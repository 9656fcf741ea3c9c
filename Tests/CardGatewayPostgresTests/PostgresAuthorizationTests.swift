import AdyenSimulator
import CardGateway
import CardGatewayPostgres
import CardGatewaySimulation
import ExampleSupport
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// Real-time authorizations decided once across instances: two gateways, each with its own PostgreSQL pool as two
/// instances of a service have, share the operation ledger, so a provider's repeated delivery gets the first answer
/// wherever it lands, and the integrator's decider is asked once.
@Suite(
    "Authorizations decided once across instances on PostgreSQL",
    .enabled(if: TestDatabase.enabled, TestDatabase.skipReason),
    .timeLimit(.minutes(5)))
struct PostgresAuthorizationTests {
    /// Counts its calls and declines for insufficient funds.
    final class CountingDecider: AuthorizationDecider {
        private let calls = Mutex(0)
        var count: Int { calls.withLock { $0 } }
        func decide(_ request: AuthorizationRequest) async throws -> AuthorizationDecision {
            calls.withLock { $0 += 1 }
            return .decline(.insufficientFunds)
        }
    }

    @Test("an Adyen relayed authorisation delivered to two instances: one decision, the same answer byte for byte")
    func decidedOnce() async throws {
        let configuration = try TestDatabase.configuration()
        let simulators = EmbeddedSimulators()
        try await simulators.run { running in
            try await PostgresStores.withStores(configuration) { first in
                try await PostgresStores.withStores(configuration) { second in
                    let gateways = try [first, second].map { stores in
                        try CardGateway(configuration: try running.configuration(), registry: ExampleRegistry.all)
                            .using(ledger: stores.operationLedger)
                    }
                    let card = try #require(SimulatedAuthorizations.defaultCard("adyen"))
                    let order = AuthorizationOrder(
                        url: "http://127.0.0.1:9/unused", card: card, amount: 1_250, currency: "EUR",
                        merchant: .init(name: "Corner Shop", categoryCode: "5411", country: "NL", city: "Amsterdam"))
                    let body = try #require(simulators.adyen.relayedAuthorisationMessage(for: order))
                    let settings = simulators.adyen.relayedAuthorisation
                    var headers = HTTPFields()
                    headers[.authorization] =
                        "Basic " + Data("\(settings.username):\(settings.password)".utf8).base64EncodedString()
                    headers[.contentType] = "application/json"
                    let delivery = WebhookDelivery(headers: headers, body: body)
                    let decider = CountingDecider()
                    let instance = EmbeddedSimulators.Instance.adyen
                    let answered = try await gateways[0].respondToAuthorization(
                        delivery, instance: instance, decider: decider)
                    let repeated = try await gateways[1].respondToAuthorization(
                        delivery, instance: instance, decider: decider)
                    #expect(decider.count == 1, "the second instance replays the first's decision")
                    #expect(answered.decidedBy == .decider && !answered.replayed)
                    #expect(repeated.replayed && repeated.decision == answered.decision)
                    #expect(repeated.answer.body == answered.answer.body)
                    #expect(answered.decision.reason == .insufficientFunds)
                }
            }
        }
    }
}
