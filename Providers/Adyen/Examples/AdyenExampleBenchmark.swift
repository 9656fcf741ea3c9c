import CardGateway
import CardGatewayAdyen
import CardGatewayExampleKit
import AdyenSimulator

// The benchmark subject, moved from Benchmarks/Benchmarks/ProviderFixtures/ProviderSubjects.swift (issue 46): what
// `adapter/adyen/<operation>`, `gateway/adyen/…`, `e2e/adyen/…` and `load/adyen/…` run.
extension AdyenExampleRoom {
    public static func benchmarkSubject() -> ProviderSubject? {
        typealias Seed = AdyenSimulator.Seed
        typealias Keys = AdyenSimulator.Credentials
        let lookup = CardRef(id: Seed.activeVisaID)
        let cards = CardOperations(
            lookup: lookup, listCustomer: Seed.balanceAccountID,
            create: CreateCardRequest(
                customer: Seed.balanceAccountID, type: .virtual, program: "visadebit", currency: "EUR",
                cardholderName: "Bench Cardholder", issuingCountryCode: "NL"
            ),
            lockable: CardRef(id: Seed.lockableVisaID), cancellable: CardRef(id: Seed.cancellableMastercardID),
            tokensCard: CardRef(id: Seed.walletVisaID), token: Seed.walletActiveTokenID,
            deletableToken: Seed.walletDeletableTokenID,
            offerCard: lookup,
            // The relay's first round (start): what every relay begins with.
            provisioning: [.applePay: .issuerSDK(output: nil), .googlePay: .issuerSDK(output: nil)]
        )
        return ProviderSubject(
            kind: "adyen", factory: .adyen,
            credentials: ["apiKey": Secret(Keys.apiKey), "hmacKey": Secret(Keys.hmacKeyHex)], options: [:],
            simulator: AdyenSimulator(), credentialStore: InMemoryCredentialReferenceStore(),
            operations: cards.operations,
            representative: "card", throughGateway: ProviderSubject.lookupThroughGateway(lookup)
        )
    }
}
