import CardGateway
import CardGatewayMarqeta
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import MarqetaSimulator
import Testing

/// Marqeta through the shared contract suite, against its simulator.
enum MarqetaContract {
    typealias Seed = MarqetaSimulator.Seed
    typealias Inputs = MarqetaSimulator.TestInputs

    static func subject() -> ContractSubject {
        let simulator = MarqetaSimulator()
        let eligible = CardRef(id: Seed.activeCard)
        let apple = ProvisioningInput.applePay(
            ApplePayProvisioningInput(
                certificates: [Inputs.leafCertificate, Inputs.subordinateCertificate], nonce: Inputs.nonce,
                nonceSignature: Inputs.nonceSignature
            ))
        let google = ProvisioningInput.googlePay(
            GooglePayProvisioningInput(
                clientDeviceID: Inputs.googleDeviceID, clientWalletAccountID: Inputs.googleWalletAccountID))
        let samsung = ProvisioningInput.samsungPay(
            SamsungPayProvisioningInput(deviceID: Inputs.samsungDeviceID, walletUserID: Inputs.samsungWalletUserID))
        let webhooks = ContractFixtures.Webhooks(signsTimestamp: false) { variant, _ in
            let signed: (headers: [(String, String)], body: Data)
            switch variant {
            case .wrongSecret:
                signed = simulator.signedCardTransitionWebhook(
                    card: Seed.lockableCard, state: "SUSPENDED", type: "state.suspended",
                    secret: "another-webhook-secret-0002")
            default:
                signed = simulator.signedCardTransitionWebhook(
                    card: Seed.lockableCard, state: "SUSPENDED", type: "state.suspended")
            }
            var fields = HTTPFields()
            for (name, value) in signed.headers {
                if let fieldName = HTTPField.Name(name) { fields[fieldName] = value }
            }
            var body = signed.body
            if variant == .tampered {
                body = Data(
                    String(decoding: body, as: UTF8.self).replacingOccurrences(of: "SUSPENDED", with: "ACTIVE").utf8)
            }
            return WebhookDelivery(headers: fields, body: body)
        }
        var subject = ContractSubject(
            name: "marqeta", factory: .marqeta,
            credentials: [
                "applicationToken": Secret(Seed.applicationToken), "accessToken": Secret(Seed.accessToken),
                "webhookUsername": Secret(Seed.webhookUsername), "webhookPassword": Secret(Seed.webhookPassword),
                "webhookSecret": Secret(Seed.webhookSecret),
                "authorizationUsername": Secret(Seed.authorizationUsername),
                "authorizationPassword": Secret(Seed.authorizationPassword),
            ],
            options: ["provisioningAppVersion": .string("cardgateway-contract 1.0")],
            simulator: simulator,
            fixtures: ContractFixtures(
                lookup: .init(
                    existing: eligible, expectedStatus: .active, expectedLastFour: "4242",
                    missing: CardRef(id: "card_sim_missing_9999")),
                cards: .init(
                    customer: Seed.userToken, filterStatus: .suspended,
                    createVirtual: CreateCardRequest(
                        customer: Seed.emptyUserToken, type: .virtual, program: Seed.virtualProduct, currency: "USD"),
                    lockable: CardRef(id: Seed.lockableCard), cancellable: CardRef(id: Seed.cancellableCard)
                ),
                walletTokens: .init(
                    card: CardRef(id: Seed.walletCard), token: Seed.activeToken, deletable: Seed.deletableToken),
                provisioning: .init(
                    eligible: eligible, ineligible: CardRef(id: Seed.suspendedCard),
                    inputs: [.applePay: [apple], .googlePay: [google], .samsungPay: [samsung]]
                ),
                webhooks: webhooks,
                extraErrorScenarios: [
                    .init(name: "a terminated card cannot be unlocked", expected: .invalidCardState) {
                        provider, context in
                        _ = try await (provider as? any CardStatusControl)?.changeStatus(
                            CardStatusRequest(card: CardRef(id: Seed.terminatedCard), intent: .unlock), context: context
                        )
                    },
                    .init(name: "a terminated wallet token cannot be resumed", expected: .invalidCardState) {
                        provider, context in
                        _ = try await (provider as? any WalletTokenControl)?.changeWalletToken(
                            WalletTokenRequest(
                                card: CardRef(id: Seed.walletCard), token: Seed.terminatedToken, intent: .resume),
                            context: context
                        )
                    },
                    .init(name: "a token of another card is notFound", expected: .notFound) { provider, context in
                        _ = try await (provider as? any WalletTokenControl)?.changeWalletToken(
                            WalletTokenRequest(
                                card: CardRef(id: Seed.activeCard), token: Seed.activeToken, intent: .suspend),
                            context: context
                        )
                    },
                    .init(name: "provisioning a suspended card is refused by Marqeta", expected: .invalidRequest) {
                        provider, context in
                        _ = try await (provider as? any WalletProvisioning)?.provision(
                            ProvisioningRequest(
                                card: CardRef(id: Seed.suspendedCard), wallet: .googlePay, input: google),
                            context: context
                        )
                    },
                    .init(
                        name: "a Samsung device id longer than 24 characters is refused before sending",
                        expected: .invalidRequest
                    ) { provider, context in
                        let long = ProvisioningInput.samsungPay(
                            SamsungPayProvisioningInput(deviceID: String(repeating: "d", count: 25), walletUserID: "w"))
                        _ = try await (provider as? any WalletProvisioning)?.provision(
                            ProvisioningRequest(card: eligible, wallet: .samsungPay, input: long), context: context)
                    },
                    .init(name: "an issuer SDK input is not an encrypted-payload input", expected: .invalidRequest) {
                        provider, context in
                        _ = try await (provider as? any WalletProvisioning)?.provision(
                            ProvisioningRequest(card: eligible, wallet: .applePay, input: .issuerSDK(output: nil)),
                            context: context
                        )
                    },
                ],
            ),
            sensitiveValues: [
                Seed.webhookSecret, Seed.webhookPassword, "another-webhook-secret-0002", Seed.authorizationPassword,
            ]
        )
        // Card details by a Marqeta.js client access token: the front end supplies nothing.
        subject.fixtures.reveal = ContractFixtures.Reveal(card: eligible, missing: CardRef(id: "card_sim_missing_9999"))
        { offer, _ in
            RevealSessionRequest(card: offer.card, purpose: offer.purpose)
        }
        subject.fixtures.authorizations = authorizations(simulator)
        return subject
    }

    /// Gateway JIT Funding requests as the simulator sends them (Basic credentials, no body signature); a partial
    /// approval is offered (`pos.partial_approval_capable`), so the suite checks one too.
    static func authorizations(_ simulator: MarqetaSimulator) -> ContractFixtures.Authorizations {
        ContractFixtures.Authorizations(signsBody: false) { variant, _ in
            let order = AuthorizationOrder(
                url: "http://127.0.0.1:1/unused", card: Seed.activeCard, amount: 2_500, currency: "EUR",
                merchant: .init(name: "Contract Bakery", categoryCode: "5462", country: "FR", city: "Lyon"),
                amountAdjustable: true)
            let password = variant == .wrongCredentials ? "Another-JIT-Passw0rd!-0002" : Seed.authorizationPassword
            guard let message = simulator.jitFundingRequest(order, password: password) else {
                throw CardGatewayError(.notFound, "the simulator has no card \(order.card)")
            }
            var fields = HTTPFields()
            for (name, value) in message.headers {
                if let fieldName = HTTPField.Name(name) { fields[fieldName] = value }
            }
            return WebhookDelivery(headers: fields, body: message.body)
        } validateAnswer: { answer, decision in
            var problems: [String] = []
            let expected = decision.approved ? 200 : 402
            if answer.status.code != expected { problems.append("status \(answer.status.code), not \(expected)") }
            let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
            guard let jit = object?["jit_funding"] as? [String: Any], object?.count == 1 else {
                return problems + ["the body is not {\"jit_funding\": {…}}"]
            }
            for member in ["token", "method", "user_token"] where (jit[member] as? String)?.isEmpty ?? true {
                problems.append("jit_funding.\(member) is missing")
            }
            if !(jit["amount"] is NSNumber) { problems.append("jit_funding.amount is not a number") }
            if !decision.approved, jit["decline_reason"] == nil { problems.append("a decline names no decline_reason") }
            return problems
        }
    }
}

@Suite("Marqeta contract", .timeLimit(.minutes(5)))
struct MarqetaContractTests {
    @Test func contract() async {
        let report = await ContractSuite.run(MarqetaContract.subject())
        #expect(report.passed, "\(report)")
        let skipped = report.scenarios.compactMap { scenario -> String? in
            if case .skipped = scenario.outcome { return scenario.name }
            return nil
        }
        // Skipped: what Marqeta's API does not offer as the core models it (activation with printed data, PIN
        // setting, programs), staleness (Marqeta signs no timestamp) and a tampered JIT Funding body (Marqeta signs
        // none: its requests carry Basic credentials only).
        #expect(
            skipped.sorted() == [
                "authorizations: a tampered delivery is refused", "cardActivation: activate", "cardPIN: set the PIN",
                "cardPrograms: programs",
                "webhooks: stale delivery is refused",
            ], "\(report)")
        for name in [
            "cardIssuance: create a virtual card", "cardIssuance: an invalid create is refused before sending",
            "cardListing: paging visits every card exactly once",
            "cardListing: a limit out of range is refused before sending", "cardListing: filtered by status",
            "cardCancellation: cancel is final", "cardLocking: lock then unlock is a round trip",
            "walletTokenListing: the card's tokens",
            "walletTokenControl: suspend then resume is a round trip", "walletTokenControl: delete is final",
            "provisioning: applePay provision by encryptedPayload",
            "provisioning: googlePay provision by encryptedPayload",
            "provisioning: samsungPay provision by encryptedPayload",
            "provisioning: samsungPay offer for an ineligible card",
            "webhooks: tampered delivery is refused", "webhooks: wrongSecret delivery is refused",
            "cardReveal: descriptor", "cardDetailsReveal: the offer through the gateway names the flow and its inputs",
            "cardDetailsReveal: a request missing an input, or with one the flow does not take, is refused before any request",
            "cardDetailsReveal: a repeat makes a new session (two sessions, two provider requests)",
            "cardDetailsReveal: a refused session's error carries none of the front end's values",
            "authorizations: the descriptor gives the provider's deadline",
            "authorizations: a request is read and normalised",
            "authorizations: a wrongCredentials delivery is refused",
        ] {
            #expect(report.outcome(of: name) == .passed, "\(name): \(report)")
        }
        for operation in [
            "card lookup", "list cards", "create card", "applePay provision", "googlePay provision",
            "samsungPay provision",
        ] {
            let cells = report.scenarios.filter { $0.name.hasPrefix("fault matrix: \(operation)") }
            #expect(cells.count > 1 && cells.allSatisfy { $0.outcome == .passed }, "\(operation): \(report)")
        }
        #expect(report.passedCount >= 30, "\(report)")
    }
}
