import CardGateway
import CardGatewayBridge
import CardGatewayExampleKit
import BridgeSimulator

// The benchmark subject, moved from Benchmarks/Benchmarks/ProviderFixtures/ProviderSubjects.swift (issue 46): what
// `adapter/bridge/<operation>`, `gateway/bridge/…`, `e2e/bridge/…` and `load/bridge/…` run.
extension BridgeExampleRoom {
    public static func benchmarkSubject() -> ProviderSubject? {
        typealias Seed = BridgeSimulator.Seed
        typealias Inputs = BridgeSimulator.TestInputs
        let simulator = BridgeSimulator()
        let lookup = CardRef(id: Seed.activeVisa, customer: Seed.customerID)
        let apple = ProvisioningInput.applePay(
            ApplePayProvisioningInput(
                certificates: [Inputs.leafCertificate, Inputs.subordinateCertificate], nonce: Inputs.nonce,
                nonceSignature: Inputs.nonceSignature
            ))
        let google = ProvisioningInput.googlePay(
            GooglePayProvisioningInput(
                clientDeviceID: Inputs.googleDeviceID, clientWalletAccountID: Inputs.googleWalletAccountID))
        let cards = CardOperations(
            lookup: lookup, listCustomer: Seed.customerID,
            create: CreateCardRequest(
                customer: Seed.customerWithoutCardID, type: .virtual, program: "", currency: "USDC"),
            lockable: CardRef(id: Seed.activeMastercard, customer: Seed.customerID),
            offerCard: lookup, provisioning: [.applePay: apple, .googlePay: google],
            confirmation: ProvisioningConfirmation(
                card: lookup, wallet: .applePay, deviceAccountReference: "DAR-bench-1")
        )
        return ProviderSubject(
            kind: "bridge", factory: .bridge,
            credentials: ["apiKey": Secret(Seed.apiKey), "webhookPublicKey": Secret(simulator.webhookPublicKeyPEM)],
            options: ["certificateEncoding": .string("base64"), "cardChain": .string("base")],
            simulator: simulator, credentialStore: InMemoryCredentialReferenceStore(), operations: cards.operations,
            representative: "card", throughGateway: ProviderSubject.lookupThroughGateway(lookup)
        )
    }
}
