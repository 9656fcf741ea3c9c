import CardGateway
import CardGatewayPaysafe
import CardGatewayExampleKit
import Foundation
import PaysafeSimulator

// The benchmark subject, moved from Benchmarks/Benchmarks/ProviderFixtures/ProviderSubjects.swift (issue 46): what
// `adapter/paysafe/<operation>`, `gateway/paysafe/…`, `e2e/paysafe/…` and `load/paysafe/…` run.
extension PaysafeExampleRoom {
    public static func benchmarkSubject() -> ProviderSubject? {
        typealias Seed = PaysafeSimulator.Seed
        let eu = Seed.euCustomer
        let credentials = PaysafeSimulator.Credentials.default
        let apple = ApplePayProvisioningInput(
            certificates: [
                Data((0..<64).map { UInt8(($0 * 5 + 1) & 0xFF) }), Data((0..<64).map { UInt8(($0 * 9 + 2) & 0xFF) }),
            ],
            nonce: Data([0x5E, 0xC2, 0x7A, 0x11, 0x0B, 0x93, 0x44, 0x2D]),
            nonceSignature: Data((0..<32).map { UInt8(($0 * 3 + 7) & 0xFF) })
        )
        let lookup = CardRef(id: Seed.activeCardID, customer: eu)
        let cards = CardOperations(
            lookup: lookup, listCustomer: eu,
            create: CreateCardRequest(
                customer: eu, type: .virtual, program: Seed.virtualMCProgram, currency: "EUR", pin: Secret("8246")),
            activation: ActivateCardRequest(
                card: CardRef(id: Seed.issuedCardID, customer: eu), lastFour: Seed.issuedCardLastFour,
                cvv: Secret(Seed.issuedCardCVV)),
            lockable: CardRef(id: Seed.activeVisaCardID, customer: eu),
            cancellable: CardRef(id: Seed.digitalCardID, customer: eu),
            programsCustomer: eu,
            tokensCard: CardRef(id: Seed.tokenizedCardID, customer: eu),
            offerCard: lookup,
            provisioning: [
                .applePay: .applePay(apple),
                .googlePay: .googlePay(
                    GooglePayProvisioningInput(
                        clientDeviceID: "WNkcsfZPiKfa5PrH3jilkQYT", clientWalletAccountID: "40exmLiWV1iV55ZVstOAiMf7")),
            ],
            confirmation: ProvisioningConfirmation(
                card: lookup, wallet: .applePay, deviceAccountReference: "DAPLMC0000CONTRACT0001")
        )
        return ProviderSubject(
            kind: "paysafe", factory: .paysafe,
            credentials: [
                "clientID": Secret(credentials.clientID), "clientSecret": Secret(credentials.clientSecret),
                "webhookSecret": Secret(credentials.webhookSecret),
            ],
            options: ["brand": .string(credentials.brand), "region": .string("ROW")],
            simulator: PaysafeSimulator(), credentialStore: InMemoryCredentialReferenceStore(),
            operations: cards.operations,
            representative: "card", throughGateway: ProviderSubject.lookupThroughGateway(lookup)
        )
    }
}
