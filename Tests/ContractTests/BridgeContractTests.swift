import BridgeSimulator
import CardGateway
import CardGatewayBridge
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import Testing

/// Bridge through the shared contract suite, against its simulator.
enum BridgeContract {
    typealias Seed = BridgeSimulator.Seed
    typealias Inputs = BridgeSimulator.TestInputs

    static func subject(encoding: String) -> ContractSubject {
        let simulator = BridgeSimulator()
        let eligible = CardRef(id: Seed.activeVisa, customer: Seed.customerID)
        let apple = ProvisioningInput.applePay(
            ApplePayProvisioningInput(
                certificates: [Inputs.leafCertificate, Inputs.subordinateCertificate], nonce: Inputs.nonce,
                nonceSignature: Inputs.nonceSignature
            ))
        let google = ProvisioningInput.googlePay(
            GooglePayProvisioningInput(
                clientDeviceID: Inputs.googleDeviceID, clientWalletAccountID: Inputs.googleWalletAccountID))
        let webhooks = ContractFixtures.Webhooks(signsTimestamp: true) { variant, now in
            guard
                let signed = try simulator.signedCardAccountWebhook(
                    cardAccountID: Seed.activeVisa, previousStatus: "frozen", at: now)
            else {
                throw CardGatewayError.invalidRequest("the seeded card account is missing")
            }
            var delivery = signed
            switch variant {
            case .valid: break
            case .tampered: delivery.body.append(contentsOf: Array(" ".utf8))
            case .stale:
                if let old = try simulator.signedCardAccountWebhook(
                    cardAccountID: Seed.activeVisa, previousStatus: "frozen", at: now.addingTimeInterval(-11 * 60))
                {
                    delivery = old
                }
            case .wrongSecret: delivery = try simulator.forgedWebhook(body: signed.body, at: now)
            }
            var fields = HTTPFields()
            for (name, value) in delivery.headers {
                if let fieldName = HTTPField.Name(name) { fields[fieldName] = value }
            }
            return WebhookDelivery(headers: fields, body: delivery.body)
        }
        // Card details (a nonce derived as Bridge's guide does) and PIN change (no input).
        let reveal = ContractFixtures.Reveal(
            card: eligible, missing: CardRef(id: "ca00000000000000000000000000dead", customer: Seed.customerID)
        ) { offer, _ in
            guard offer.purpose == .cardDetails else {
                return RevealSessionRequest(card: offer.card, purpose: offer.purpose)
            }
            let nonce = BridgeSimulator.clientNonce(
                secret: UUID().uuidString, timestamp: Int64(Date().timeIntervalSince1970 * 1000))
            return RevealSessionRequest(card: offer.card, purpose: .cardDetails, clientNonce: Secret(nonce))
        }
        var subject = ContractSubject(
            name: "bridge-\(encoding)", factory: .bridge,
            credentials: ["apiKey": Secret(Seed.apiKey), "webhookPublicKey": Secret(simulator.webhookPublicKeyPEM)],
            options: ["certificateEncoding": .string(encoding), "cardChain": .string("base")],
            simulator: simulator,
            fixtures: ContractFixtures(
                lookup: .init(
                    existing: eligible, expectedStatus: .active, expectedLastFour: "1269",
                    missing: CardRef(id: "ca00000000000000000000000000dead", customer: Seed.customerID)),
                cards: .init(
                    customer: Seed.customerID, filterStatus: .pending,
                    createVirtual: CreateCardRequest(
                        customer: Seed.customerWithoutCardID, type: .virtual, program: "", currency: "USDC"),
                    lockable: CardRef(id: Seed.activeMastercard, customer: Seed.customerID)
                ),
                provisioning: .init(
                    eligible: eligible, ineligible: CardRef(id: Seed.pendingVisa, customer: Seed.customerID),
                    inputs: [.applePay: [apple], .googlePay: [google]],
                    confirmation: ProvisioningConfirmation(
                        card: eligible, wallet: .applePay, deviceAccountReference: "DAR-contract-1")
                ),
                webhooks: webhooks,
                extraErrorScenarios: [
                    .init(name: "a card without its customer is refused before sending", expected: .invalidRequest) {
                        provider, context in
                        _ = try await (provider as? any CardLookup)?.card(
                            CardRef(id: Seed.activeVisa), context: context)
                    },
                    .init(name: "provisioning a frozen card is refused by Bridge", expected: .invalidRequest) {
                        provider, context in
                        _ = try await (provider as? any WalletProvisioning)?.provision(
                            ProvisioningRequest(
                                card: CardRef(id: Seed.frozenByDeveloper, customer: Seed.customerID),
                                wallet: .googlePay, input: google), context: context
                        )
                    },
                    .init(name: "three certificates are refused before sending", expected: .invalidRequest) {
                        provider, context in
                        let chain = [
                            Inputs.leafCertificate, Inputs.subordinateCertificate, Inputs.subordinateCertificate,
                        ]
                        _ = try await (provider as? any WalletProvisioning)?.provision(
                            ProvisioningRequest(
                                card: eligible, wallet: .applePay,
                                input: .applePay(
                                    ApplePayProvisioningInput(
                                        certificates: chain, nonce: Inputs.nonce, nonceSignature: Inputs.nonceSignature
                                    ))),
                            context: context
                        )
                    },
                ]
            ),
            sensitiveValues: Seed.cardAccounts.map(\.pan) + [Seed.opaquePaymentCardSecret, Seed.activationSecret]
        )
        subject.fixtures.reveal = reveal
        return subject
    }
}

@Suite("Bridge contract", .timeLimit(.minutes(5)))
struct BridgeContractTests {
    @Test(arguments: ["base64", "hex"])
    func contract(encoding: String) async {
        let report = await ContractSuite.run(BridgeContract.subject(encoding: encoding))
        #expect(report.passed, "\(report)")
        let skipped = report.scenarios.compactMap { scenario -> String? in
            if case .skipped(let why) = scenario.outcome { return "\(scenario.name): \(why)" }
            return nil
        }
        // Bridge has no cancellation, activation, PIN setting, programs or wallet-token resource. Listing is not
        // declared: Bridge's list takes no limit, and the listing scenario requires one on the wire (README).
        #expect(
            skipped.sorted() == [
                "cardActivation: activate: the adapter does not declare cardActivation",
                "cardCancellation: cancel is final: the adapter does not declare cardCancellation",
                "cardPIN: set the PIN: the adapter does not declare cardPIN",
                "cardPrograms: programs: the adapter does not declare cardPrograms",
                "walletTokenControl: delete is final: the adapter does not declare walletTokenControl",
                "walletTokenControl: suspend then resume is a round trip: the adapter does not declare walletTokenControl",
                "walletTokenListing: the card's tokens: the adapter does not declare walletTokenListing",
            ], "\(report)")
        for name in [
            "cardIssuance: create a virtual card", "cardIssuance: an invalid create is refused before sending",
            "cardLocking: lock then unlock is a round trip",
        ] {
            #expect(report.outcome(of: name) == .passed, "\(name): \(report)")
        }
        for operation in ["create card", "lock card"] {
            let cells = report.scenarios.filter { $0.name.hasPrefix("fault matrix: \(operation)") }
            #expect(cells.count > 1 && cells.allSatisfy { $0.outcome == .passed }, "\(operation): \(report)")
        }
        #expect(report.passedCount >= 20, "\(report)")
        // Card details (client nonce) and PIN change (secure frame) held to the reveal contract.
        for purpose in ["cardDetailsReveal", "pinChange"] {
            for scenario in [
                "the offer through the gateway names the flow and its inputs",
                "a repeat makes a new session (two sessions, two provider requests)",
            ] {
                #expect(report.outcome(of: "\(purpose): \(scenario)") == .passed, "\(purpose): \(scenario): \(report)")
            }
        }
        #expect(report.outcome(of: "webhooks: stale delivery is refused") == .passed)
        #expect(report.outcome(of: "provisioning: applePay provision by encryptedPayload") == .passed)
        #expect(report.outcome(of: "provisioning: googlePay provision by encryptedPayload") == .passed)
    }
}
