import CardGateway
import CardGatewayStripe
import CardGatewayExampleKit
import StripeSimulator

// The benchmark subject, moved from Benchmarks/Benchmarks/ProviderFixtures/ProviderSubjects.swift (issue 46): what
// `adapter/stripe/<operation>`, `gateway/stripe/…`, `e2e/stripe/…` and `load/stripe/…` run.
extension StripeExampleRoom {
    public static func benchmarkSubject() -> ProviderSubject? {
        typealias Seed = StripeSimulator.Seed
        let credentials = StripeSimulator.Credentials.default
        let lookup = CardRef(id: Seed.activeCardID)
        let sdkKey = ProvisioningInput.issuerSDKKey(apiVersion: "2020-08-27")
        let cards = CardOperations(
            lookup: lookup, listCustomer: Seed.cardholderID,
            create: CreateCardRequest(customer: Seed.cardholderID, type: .virtual, program: "", currency: "USD"),
            lockable: CardRef(id: Seed.activeCardWithoutPrimaryAccountIdentifierID),
            cancellable: CardRef(id: Seed.missingAgreementCardID),
            tokensCard: lookup, token: Seed.activeApplePayTokenID, deletableToken: Seed.activeSamsungPayTokenID,
            offerCard: lookup, provisioning: [.applePay: sdkKey, .googlePay: sdkKey]
        )
        return ProviderSubject(
            kind: "stripe", factory: .stripe,
            credentials: [
                "secretKey": Secret(credentials.testSecretKey), "webhookSecret": Secret(credentials.webhookSecret),
            ], options: [:],
            simulator: StripeSimulator(), credentialStore: InMemoryCredentialReferenceStore(),
            operations: cards.operations,
            representative: "card", throughGateway: ProviderSubject.lookupThroughGateway(lookup)
        )
    }
}
