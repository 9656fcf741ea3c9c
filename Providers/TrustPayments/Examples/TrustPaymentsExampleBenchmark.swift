import CardGateway
import CardGatewayTrustPayments
import CardGatewayExampleKit
import Foundation
import HTTPTypes
import TrustPaymentsSimulator

// The benchmark subject, moved from Benchmarks/Benchmarks/ProviderFixtures/ProviderSubjects.swift (issue 46): what
// `adapter/trustpayments/<operation>`, `gateway/trustpayments/…`, `e2e/trustpayments/…` and `load/trustpayments/…` run.
extension TrustPaymentsExampleRoom {
    public static func benchmarkSubject() -> ProviderSubject? {
        typealias Seed = TrustPaymentsSimulator.Seed
        let simulator = TrustPaymentsSimulator()
        let gbp = Money(minorUnits: 1050, currency: "GBP")
        let storeSession = ClientSessionRequest(
            intent: .store(consent: CardholderConsent(recordedAt: Date(), evidence: "bench terms v1")), amount: gbp)
        let charge = ChargeRequest(
            reference: Seed.Transaction.storedVisaAuth, amount: gbp, initiator: .merchant(.unscheduled))
        let sdkResult = BenchmarkSlot<Secret>()
        let operations = [
            BenchOperation("client-session") { provider, context in
                _ = try await BenchOperation.cast(provider, (any StoredCredentials).self).clientSession(
                    storeSession, context: context)
            },
            BenchOperation(
                "verify-result",
                prepare: { provider in
                    let session = try await BenchOperation.cast(provider, (any StoredCredentials).self).clientSession(
                        storeSession, context: OperationContext())
                    sdkResult.set(
                        Secret(
                            try await simulator.sdkPayment(
                                sessionJWT: session.token.revealedValue, pan: Seed.Card.visa,
                                expiryDate: Seed.expiryDate, securityCode: "123"
                            )))
                }
            ) { provider, context in
                _ = try await BenchOperation.cast(provider, (any StoredCredentials).self).verifyResult(
                    try sdkResult.get(), context: context)
            },
            BenchOperation("charge") { provider, context in
                _ = try await BenchOperation.cast(provider, (any StoredCredentials).self).charge(
                    charge, context: context)
            },
        ]
        return ProviderSubject(
            kind: "trustpayments", factory: .trustpayments,
            credentials: [
                "webservicesUsername": Secret(Seed.webservicesUsername),
                "webservicesPassword": Secret(Seed.webservicesPassword),
                "jwtUsername": Secret(Seed.jwtUsername), "jwtSecret": Secret(Seed.jwtSecret),
            ],
            options: ["siteReference": .string(Seed.siteReference)],
            simulator: simulator,
            // The seeded transaction the charge uses, as the instance's store would hold it.
            credentialStore: InMemoryCredentialReferenceStore([
                StoredCredential(
                    reference: Seed.Transaction.storedVisaAuth, provider: "bench-trustpayments",
                    maskedPAN: "411111######1111", brand: "VISA", scheme: .visa, created: Date())
            ]),
            operations: operations, representative: "charge",
            throughGateway: { gateway, target, context in
                _ = try await gateway.charge(charge, via: target, context: context)
            },
            // Each charge sends a fresh requestreference, which the answer must repeat.
            echoHeader: HTTPField.Name("REQUESTREFERENCE")
        )
    }
}
