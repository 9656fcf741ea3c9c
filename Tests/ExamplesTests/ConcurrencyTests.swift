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
import TrustPaymentsSimulator

/// Bounded concurrency on loopback: a few hundred operations at once across the four issuers' simulators, a
/// share of them hit by faults, every one answered correctly, no write lost or sent twice.
@Suite("Concurrent operations across providers", .timeLimit(.minutes(5)))
struct ConcurrencyTests {
    enum Outcome: Sendable, Equatable {
        case read(instance: String, last4: String?)
        case created(String)
        /// Paysafe's limit of cards per customer and program, reached by earlier creations of this run.
        case limitReached
        /// A Trust Payments charge under an idempotency key, and the transaction it made.
        case charged(key: String, transaction: String)
    }

    @Test(
        "340 operations at once: reads recover from injected 503s and dropped connections; 60 card creations are each sent once and answered (a card, or the program limit); 40 Trust Payments charges under 30 keys make 30 charges"
    )
    func concurrentOperations() async throws {
        let simulators = EmbeddedSimulators()
        try await simulators.run { running in
            var configuration = try running.configuration()
            for name in configuration.providers.keys {
                // Enough attempts to outlast every injected fault, without real waiting between them.
                configuration.providers[name]?.retry = RetryPolicy(
                    maxAttempts: 10, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
                configuration.providers[name]?.circuitBreaker = .disabled
            }
            let gateway = try CardGateway(configuration: configuration, registry: ExampleRegistry.all)

            // 8 × 503 at Stripe and 6 dropped connections at Adyen, on reads only.
            running.handle("stripe")?.faults.inject(
                FaultRule(count: 8, method: "GET", action: .status(503, retryAfterSeconds: nil, message: "busy")))
            running.handle("adyen")?.faults.inject(FaultRule(count: 6, method: "GET", action: .dropConnection))
            let paysafeJournalBefore = running.handle("paysafe")?.journal.entries().count ?? 0

            // A card kept on file at Trust Payments, to charge many times at once.
            let tpRoute = RouteTarget.instance(EmbeddedSimulators.Instance.trustPayments)
            let amount = Money(minorUnits: 1050, currency: "GBP")
            let consent = CardholderConsent(recordedAt: Date(), evidence: "concurrency test")
            let session = try await gateway.clientSession(
                ClientSessionRequest(intent: .store(consent: consent), amount: amount), via: tpRoute)
            let sdkResult = try await running.simulators.trustPayments.sdkPayment(
                sessionJWT: session.token.revealedValue, pan: TrustPaymentsSimulator.Seed.Card.visa,
                expiryDate: TrustPaymentsSimulator.Seed.expiryDate,
                securityCode: "123"
            )
            let stored = try await gateway.verifyResult(
                Secret(sdkResult), customer: "concurrency-customer", via: tpRoute)
            let tpJournalBefore = running.handle("trustpayments")?.journal.entries().count ?? 0

            let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
                for index in 0..<80 {
                    group.addTask {
                        let card = try await gateway.card(
                            CardRef(id: StripeSimulator.Seed.activeCardID),
                            via: .instance(EmbeddedSimulators.Instance.stripe))
                        _ = index
                        return .read(instance: EmbeddedSimulators.Instance.stripe, last4: card.lastFour)
                    }
                    group.addTask {
                        let card = try await gateway.card(
                            CardRef(id: AdyenSimulator.Seed.activeVisaID),
                            via: .instance(EmbeddedSimulators.Instance.adyen))
                        return .read(instance: EmbeddedSimulators.Instance.adyen, last4: card.lastFour)
                    }
                    group.addTask {
                        let card = try await gateway.card(
                            CardRef(id: BridgeSimulator.Seed.activeVisa, customer: BridgeSimulator.Seed.customerID),
                            via: .instance(EmbeddedSimulators.Instance.bridge)
                        )
                        return .read(instance: EmbeddedSimulators.Instance.bridge, last4: card.lastFour)
                    }
                }
                for index in 0..<60 {
                    group.addTask {
                        let request = CreateCardRequest(
                            customer: PaysafeSimulator.Seed.euCustomer, type: .virtual,
                            program: PaysafeSimulator.Seed.virtualMCProgram, currency: "EUR"
                        )
                        do {
                            let card = try await gateway.createCard(
                                request, via: .instance(EmbeddedSimulators.Instance.paysafe),
                                context: OperationContext(idempotencyKey: "concurrency-create-\(index)")
                            )
                            return .created(card.ref.id)
                        } catch let error as CardGatewayError
                            where error.code == .conflict && error.providerCode == "DW-CARD-LIMIT-REACHED"
                        {
                            return .limitReached
                        }
                    }
                }
                // 40 charges under 30 keys: keys 0–9 are each sent twice at once (a client retrying while the first
                // is in flight); the ledger lets one of each pair reach Trust Payments.
                for index in 0..<40 {
                    let key = "concurrency-charge-\(index % 30)"
                    group.addTask {
                        let result = try await gateway.charge(
                            ChargeRequest(
                                reference: stored.reference, amount: amount, initiator: .merchant(.unscheduled)),
                            via: tpRoute,
                            context: OperationContext(idempotencyKey: key)
                        )
                        return .charged(key: key, transaction: result.transactionReference)
                    }
                }
                var all: [Outcome] = []
                for try await outcome in group { all.append(outcome) }
                return all
            }

            #expect(outcomes.count == 340, "every operation answered")
            let charges = outcomes.compactMap { outcome -> (String, String)? in
                if case .charged(let key, let transaction) = outcome { return (key, transaction) } else { return nil }
            }
            #expect(charges.count == 40)
            let transactionsByKey = Dictionary(grouping: charges, by: \.0).mapValues { Set($0.map(\.1)) }
            #expect(transactionsByKey.count == 30)
            #expect(
                transactionsByKey.values.allSatisfy { $0.count == 1 },
                "both callers of one key see the same transaction")
            #expect(Set(charges.map(\.1)).count == 30, "30 transactions for 30 keys")
            let tpPosts = (running.handle("trustpayments")?.journal.entries().dropFirst(tpJournalBefore) ?? []).filter {
                $0.method == "POST"
            }
            #expect(tpPosts.count == 30, "\(tpPosts.count) charges reached Trust Payments for 30 keys")
            let reads = outcomes.compactMap { outcome -> String? in
                if case .read(let instance, _) = outcome { return instance } else { return nil }
            }
            #expect(
                Dictionary(grouping: reads, by: { $0 }).mapValues(\.count) == [
                    EmbeddedSimulators.Instance.stripe: 80, EmbeddedSimulators.Instance.adyen: 80,
                    EmbeddedSimulators.Instance.bridge: 80,
                ])
            #expect(
                outcomes.allSatisfy { if case .read(_, let last4) = $0 { return last4 != nil } else { return true } })
            let created = outcomes.compactMap { outcome -> String? in
                if case .created(let id) = outcome { return id } else { return nil }
            }
            let refused = outcomes.filter { $0 == .limitReached }.count
            #expect(!created.isEmpty)
            #expect(Set(created).count == created.count, "no card id twice")
            #expect(
                created.count + refused == 60,
                "every creation answered: \(created.count) created, \(refused) over the program's limit")

            // On the wire: each creation reached Paysafe exactly once; every injected fault was consumed.
            let paysafeEntries = Array(
                running.handle("paysafe")?.journal.entries().dropFirst(paysafeJournalBefore) ?? [])
            let creations = paysafeEntries.filter { $0.method == "POST" && $0.path.hasSuffix("/prepaid/cards") }
            #expect(creations.count == 60, "\(creations.count) card-creation POSTs for 60 creations")
            let stripeReads =
                running.handle("stripe")?.journal.entries().filter {
                    $0.method == "GET" && $0.path.contains(StripeSimulator.Seed.activeCardID)
                } ?? []
            #expect(stripeReads.count >= 80)
        }
    }
}
