import AdyenSimulator
import BridgeSimulator
import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import ExampleSupport
import Foundation
import PaysafeSimulator
import StripeSimulator
import Testing

/// Bounded concurrency on loopback: a few hundred operations at once across the four issuers' simulators, a
/// share of them hit by faults, every one answered correctly, no write lost or sent twice.
@Suite("Concurrent operations across providers")
struct ConcurrencyTests {
    enum Outcome: Sendable, Equatable {
        case read(instance: String, last4: String?)
        case created(String)
        /// Paysafe's limit of cards per customer and program, reached by earlier creations of this run.
        case limitReached
    }

    @Test("300 operations at once: reads recover from injected 503s and dropped connections; 60 card creations are each sent once and answered (a card, or the program limit)")
    func concurrentOperations() async throws {
        let simulators = EmbeddedSimulators()
        try await simulators.run { running in
            var configuration = try running.configuration()
            for name in configuration.providers.keys {
                // Enough attempts to outlast every injected fault, without real waiting between them.
                configuration.providers[name]?.retry = RetryPolicy(maxAttempts: 10, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
                configuration.providers[name]?.circuitBreaker = .disabled
            }
            let gateway = try CardGateway(configuration: configuration, registry: ExampleRegistry.all)

            // 8 × 503 at Stripe and 6 dropped connections at Adyen, on reads only.
            running.handle("stripe")?.faults.inject(FaultRule(count: 8, method: "GET", action: .status(503, retryAfterSeconds: nil, message: "busy")))
            running.handle("adyen")?.faults.inject(FaultRule(count: 6, method: "GET", action: .dropConnection))
            let paysafeJournalBefore = running.handle("paysafe")?.journal.entries().count ?? 0

            let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
                for index in 0..<80 {
                    group.addTask {
                        let card = try await gateway.card(CardRef(id: StripeSimulator.Seed.activeCardID), via: .instance(EmbeddedSimulators.Instance.stripe))
                        _ = index
                        return .read(instance: EmbeddedSimulators.Instance.stripe, last4: card.lastFour)
                    }
                    group.addTask {
                        let card = try await gateway.card(CardRef(id: AdyenSimulator.Seed.activeVisaID), via: .instance(EmbeddedSimulators.Instance.adyen))
                        return .read(instance: EmbeddedSimulators.Instance.adyen, last4: card.lastFour)
                    }
                    group.addTask {
                        let card = try await gateway.card(
                            CardRef(id: BridgeSimulator.Seed.activeVisa, customer: BridgeSimulator.Seed.customerID), via: .instance(EmbeddedSimulators.Instance.bridge)
                        )
                        return .read(instance: EmbeddedSimulators.Instance.bridge, last4: card.lastFour)
                    }
                }
                for index in 0..<60 {
                    group.addTask {
                        let request = CreateCardRequest(
                            customer: PaysafeSimulator.Seed.euCustomer, type: .virtual, program: PaysafeSimulator.Seed.virtualMCProgram, currency: "EUR"
                        )
                        do {
                            let card = try await gateway.createCard(
                                request, via: .instance(EmbeddedSimulators.Instance.paysafe), context: OperationContext(idempotencyKey: "concurrency-create-\(index)")
                            )
                            return .created(card.ref.id)
                        } catch let error as CardGatewayError where error.code == .conflict && error.providerCode == "DW-CARD-LIMIT-REACHED" {
                            return .limitReached
                        }
                    }
                }
                var all: [Outcome] = []
                for try await outcome in group { all.append(outcome) }
                return all
            }

            #expect(outcomes.count == 300, "every operation answered")
            let reads = outcomes.compactMap { outcome -> String? in if case .read(let instance, _) = outcome { return instance } else { return nil } }
            #expect(Dictionary(grouping: reads, by: { $0 }).mapValues(\.count) == [
                EmbeddedSimulators.Instance.stripe: 80, EmbeddedSimulators.Instance.adyen: 80, EmbeddedSimulators.Instance.bridge: 80,
            ])
            #expect(outcomes.allSatisfy { if case .read(_, let last4) = $0 { return last4 != nil } else { return true } })
            let created = outcomes.compactMap { outcome -> String? in if case .created(let id) = outcome { return id } else { return nil } }
            let refused = outcomes.filter { $0 == .limitReached }.count
            #expect(!created.isEmpty)
            #expect(Set(created).count == created.count, "no card id twice")
            #expect(created.count + refused == 60, "every creation answered: \(created.count) created, \(refused) over the program's limit")

            // On the wire: each creation reached Paysafe exactly once; every injected fault was consumed.
            let paysafeEntries = Array(running.handle("paysafe")?.journal.entries().dropFirst(paysafeJournalBefore) ?? [])
            let creations = paysafeEntries.filter { $0.method == "POST" && $0.path.hasSuffix("/prepaid/cards") }
            #expect(creations.count == 60, "\(creations.count) card-creation POSTs for 60 creations")
            let stripeReads = running.handle("stripe")?.journal.entries().filter { $0.method == "GET" && $0.path.contains(StripeSimulator.Seed.activeCardID) } ?? []
            #expect(stripeReads.count >= 80)
        }
    }
}
