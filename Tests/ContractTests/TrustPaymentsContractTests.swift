import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import CardGatewayTrustPayments
import Foundation
import Testing
import TrustPaymentsSimulator

/// The shared contract, run by the Trust Payments adapter against the Trust Payments simulator.
@Suite("Trust Payments contract", .timeLimit(.minutes(5)))
struct TrustPaymentsContractTests {
    static func subject() -> ContractSubject {
        typealias Seed = TrustPaymentsSimulator.Seed
        // A running clock: the contract's adapter checks response JWTs against the real time.
        let simulator = TrustPaymentsSimulator()
        let gbp = Money(minorUnits: 1050, currency: "GBP")
        let storeSession = ClientSessionRequest(
            intent: .store(consent: CardholderConsent(recordedAt: Date(), evidence: "contract terms v1")), amount: gbp
        )
        let storedCredentials = ContractFixtures.StoredCredentialFixtures(storeSession: storeSession, chargeAmount: gbp)
        { session, _ in
            Secret(
                try await simulator.sdkPayment(
                    sessionJWT: session.token.revealedValue, pan: Seed.Card.visa, expiryDate: Seed.expiryDate,
                    securityCode: "123"))
        }
        // The only call that goes over the wire: a merchant-initiated charge on a seeded stored card.
        let probe: @Sendable (any CardProvider, OperationContext) async throws -> Void = { provider, context in
            guard let credentials = provider as? any StoredCredentials else {
                throw CardGatewayError(.unsupported, "not a stored-credentials adapter")
            }
            _ = try await credentials.charge(
                ChargeRequest(
                    reference: Seed.Transaction.storedVisaAuth, amount: gbp, initiator: .merchant(.unscheduled)),
                context: context
            )
        }
        let declined = ContractFixtures.ErrorScenario(
            name: "a declined merchant-initiated charge is declined", expected: .declined
        ) { provider, context in
            guard let credentials = provider as? any StoredCredentials else {
                throw CardGatewayError(.unsupported, "not a stored-credentials adapter")
            }
            _ = try await credentials.charge(
                ChargeRequest(
                    reference: Seed.Transaction.storedVisaAuth,
                    amount: Money(minorUnits: Seed.Amount.declined, currency: "GBP"), initiator: .merchant(.delayed)),
                context: context
            )
        }
        let reauthorisationNeedsAuth = ContractFixtures.ErrorScenario(
            name: "a re-authorisation on an account check is refused", expected: .invalidRequest
        ) { provider, context in
            guard let credentials = provider as? any StoredCredentials else {
                throw CardGatewayError(.unsupported, "not a stored-credentials adapter")
            }
            _ = try await credentials.charge(
                ChargeRequest(
                    reference: Seed.Transaction.storedVisaAccountCheck, amount: gbp,
                    initiator: .merchant(.reauthorisation)), context: context
            )
        }
        let applePay = ContractFixtures.ErrorScenario(
            name: "Apple Pay stored-credential sessions are unsupported", expected: .unsupported
        ) { provider, context in
            guard let credentials = provider as? any StoredCredentials else {
                throw CardGatewayError(.unsupported, "not a stored-credentials adapter")
            }
            var request = storeSession
            request.paymentMethod = .applePay
            _ = try await credentials.clientSession(request, context: context)
        }
        return ContractSubject(
            name: "trustpayments", factory: .trustpayments,
            credentials: [
                "webservicesUsername": Secret(Seed.webservicesUsername),
                "webservicesPassword": Secret(Seed.webservicesPassword),
                "jwtUsername": Secret(Seed.jwtUsername), "jwtSecret": Secret(Seed.jwtSecret),
            ],
            options: ["siteReference": .string(Seed.siteReference)],
            simulator: simulator,
            fixtures: ContractFixtures(
                storedCredentials: storedCredentials, probe: probe,
                extraErrorScenarios: [declined, reauthorisationNeedsAuth, applePay]),
            sensitiveValues: [Seed.Card.visa, Seed.Card.amex],
            // The seeded transactions the probe and error scenarios charge, as this instance's store would hold them.
            credentialStore: InMemoryCredentialReferenceStore(
                [Seed.Transaction.storedVisaAuth, Seed.Transaction.storedVisaAccountCheck].map {
                    StoredCredential(
                        reference: $0, provider: "contract-trustpayments", maskedPAN: "411111######1111", brand: "VISA",
                        scheme: .visa, created: Date())
                })
        )
    }

    @Test("the Trust Payments adapter passes the shared contract against its simulator")
    func contract() async {
        let report = await ContractSuite.run(Self.subject())
        #expect(report.passed, "\(report)")
        #expect(
            report.outcome(of: "storedCredentials: session, SDK result, verification, merchant-initiated charge")
                == .passed)
        #expect(report.outcome(of: "errors: 401 is authenticationFailed") == .passed)
    }
}
