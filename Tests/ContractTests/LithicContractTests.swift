import CardGateway
import CardGatewayLithic
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import LithicSimulator
import Testing

/// Lithic through the shared contract suite, against its simulator.
enum LithicContract {
    typealias Seed = LithicSimulator.Seed

    static func subject() -> ContractSubject {
        let simulator = LithicSimulator()
        let eligible = CardRef(id: Seed.activeCard)
        typealias Inputs = LithicSimulator.Seed.TestInputs
        let apple = ProvisioningInput.applePay(
            ApplePayProvisioningInput(
                certificates: [Inputs.leafCertificate, Inputs.subordinateCertificate], nonce: Inputs.nonce,
                nonceSignature: Inputs.nonceSignature))
        let google = ProvisioningInput.googlePay(
            GooglePayProvisioningInput(
                clientDeviceID: Inputs.googleDeviceID, clientWalletAccountID: Inputs.googleWalletAccountID))
        let samsung = ProvisioningInput.samsungPay(
            SamsungPayProvisioningInput(deviceID: Inputs.samsungDeviceID, walletUserID: Inputs.samsungWalletUserID))
        let webhooks = ContractFixtures.Webhooks(signsTimestamp: true) { variant, now in
            let signed: LithicSimulator.SignedDelivery
            switch variant {
            case .wrongSecret:
                signed = simulator.signedCardUpdated(
                    card: Seed.lockableCard, state: "PAUSED", previous: "OPEN",
                    secret: "whsec_" + Data(repeating: 7, count: 32).base64EncodedString(), at: now)
            case .stale:
                signed = simulator.signedCardUpdated(
                    card: Seed.lockableCard, state: "PAUSED", previous: "OPEN", at: now.addingTimeInterval(-400))
            default:
                signed = simulator.signedCardUpdated(
                    card: Seed.lockableCard, state: "PAUSED", previous: "OPEN", at: now)
            }
            var delivery = delivery(signed)
            if variant == .tampered {
                delivery.body = Data(
                    String(decoding: delivery.body, as: UTF8.self).replacingOccurrences(of: "PAUSED", with: "CLOSED")
                        .utf8)
            }
            return delivery
        }
        var subject = ContractSubject(
            name: "lithic", factory: .lithic,
            credentials: [
                "apiKey": Secret(Seed.apiKey), "webhookSecret": Secret(Seed.webhookSecret),
                "asaSecret": Secret(Seed.asaSecret),
            ],
            options: ["embedTargetOrigin": .string("https://cardholder.example")],
            simulator: simulator,
            fixtures: ContractFixtures(
                lookup: .init(
                    existing: eligible, expectedStatus: .active, expectedLastFour: "4242",
                    missing: CardRef(id: Seed.missingCard)),
                cards: .init(
                    customer: Seed.accountToken, filterStatus: .locked,
                    createVirtual: CreateCardRequest(
                        customer: Seed.emptyAccountToken, type: .virtual, program: Seed.cardProgram, currency: "USD"),
                    lockable: CardRef(id: Seed.lockableCard), cancellable: CardRef(id: Seed.cancellableCard)
                ),
                walletTokens: .init(
                    card: CardRef(id: Seed.walletCard), token: Seed.activeToken, deletable: Seed.deletableToken),
                provisioning: .init(
                    eligible: eligible, ineligible: CardRef(id: Seed.pausedCard),
                    inputs: [.applePay: [apple], .googlePay: [google], .samsungPay: [samsung]]),
                webhooks: webhooks,
                extraErrorScenarios: [
                    .init(name: "a closed card cannot be unlocked", expected: .invalidCardState) { provider, context in
                        _ = try await (provider as? any CardStatusControl)?.changeStatus(
                            CardStatusRequest(card: CardRef(id: Seed.closedCard), intent: .unlock), context: context)
                    },
                    .init(name: "a deactivated tokenization cannot be resumed", expected: .invalidCardState) {
                        provider, context in
                        _ = try await (provider as? any WalletTokenControl)?.changeWalletToken(
                            WalletTokenRequest(
                                card: CardRef(id: Seed.walletCard), token: Seed.deactivatedToken, intent: .resume),
                            context: context)
                    },
                    .init(name: "a token of another card is notFound", expected: .notFound) { provider, context in
                        _ = try await (provider as? any WalletTokenControl)?.changeWalletToken(
                            WalletTokenRequest(card: eligible, token: Seed.activeToken, intent: .suspend),
                            context: context)
                    },
                    .init(name: "provisioning a paused card is refused by Lithic", expected: .invalidRequest) {
                        provider, context in
                        _ = try await (provider as? any WalletProvisioning)?.provision(
                            ProvisioningRequest(card: CardRef(id: Seed.pausedCard), wallet: .googlePay, input: google),
                            context: context)
                    },
                    .init(name: "an issuer SDK input is not an encrypted-payload input", expected: .invalidRequest) {
                        provider, context in
                        _ = try await (provider as? any WalletProvisioning)?.provision(
                            ProvisioningRequest(card: eligible, wallet: .applePay, input: .issuerSDK(output: nil)),
                            context: context)
                    },
                ]
            ),
            sensitiveValues: [Seed.apiKey, Seed.webhookSecret, Seed.asaSecret]
        )
        // Card details and PIN setting by embed sessions: the front end supplies nothing.
        subject.fixtures.reveal = ContractFixtures.Reveal(card: eligible, missing: CardRef(id: Seed.missingCard)) {
            offer, _ in
            RevealSessionRequest(card: offer.card, purpose: offer.purpose)
        }
        subject.fixtures.authorizations = authorizations(simulator)
        return subject
    }

    static func delivery(_ signed: LithicSimulator.SignedDelivery) -> WebhookDelivery {
        var fields = HTTPFields()
        for (name, value) in signed.headers {
            if let fieldName = HTTPField.Name(name) { fields[fieldName] = value }
        }
        return WebhookDelivery(headers: fields, body: signed.body)
    }

    /// ASA requests as the simulator sends them (signed like webhooks with the ASA secret); a partial approval is
    /// offered (`pos.terminal.partial_approval_capable`), so the suite checks one too. Answers are checked against the
    /// document's `asa-response`.
    static func authorizations(_ simulator: LithicSimulator) -> ContractFixtures.Authorizations {
        ContractFixtures.Authorizations(signsBody: true) { variant, now in
            let order = AuthorizationOrder(
                url: "http://127.0.0.1:1/unused", card: Seed.activeCard, amount: 2_500, currency: "USD",
                merchant: .init(name: "Contract Bakery", categoryCode: "5462", country: "FR", city: "Lyon"),
                amountAdjustable: true)
            let secret =
                variant == .wrongCredentials
                ? "whsec_" + Data(repeating: 9, count: 32).base64EncodedString() : Seed.asaSecret
            guard let request = simulator.asaRequest(order, secret: secret, at: now) else {
                throw CardGatewayError(.notFound, "the simulator has no card \(order.card)")
            }
            var delivery = delivery((request.headers, request.body))
            if variant == .tampered {
                delivery.body = Data(
                    String(decoding: delivery.body, as: UTF8.self).replacingOccurrences(of: "2500", with: "2499").utf8)
            }
            return delivery
        } validateAnswer: { answer, decision in
            var problems: [String] = []
            if answer.status.code != 200 { problems.append("status \(answer.status.code), not 200") }
            let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
            guard let object, let result = object["result"] as? String else {
                return problems + ["the body has no result"]
            }
            if !LithicSimulator.asaResults.contains(result) {
                problems.append("result \(result) is not asa-response's")
            }
            if decision.approved != (result == "APPROVED") { problems.append("result \(result) for \(decision)") }
            if (object["token"] as? String)?.isEmpty ?? true { problems.append("no token") }
            if let amount = decision.amount, (object["approved_amount"] as? Int64) != amount.minorUnits {
                problems.append("approved_amount is not \(amount.minorUnits)")
            }
            return problems
        }
    }
}

@Suite("Lithic contract", .timeLimit(.minutes(5)))
struct LithicContractTests {
    @Test func contract() async {
        let report = await ContractSuite.run(LithicContract.subject())
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.passed, "\(report)")
        for name in [
            "cardIssuance: create a virtual card", "cardIssuance: an invalid create is refused before sending",
            "cardListing: paging visits every card exactly once",
            "cardListing: a limit out of range is refused before sending", "cardListing: filtered by status",
            "cardCancellation: cancel is final", "cardLocking: lock then unlock is a round trip",
            "walletTokenListing: the card's tokens",
            "walletTokenControl: suspend then resume is a round trip", "walletTokenControl: delete is final",
        ] {
            #expect(report.outcome(of: name) == .passed, "\(name): \(report)")
        }
        for name in [
            "provisioning: applePay provision by encryptedPayload",
            "provisioning: googlePay provision by encryptedPayload",
            "provisioning: samsungPay provision by encryptedPayload",
            "webhooks: tampered delivery is refused", "webhooks: wrongSecret delivery is refused",
            "webhooks: stale delivery is refused",
            "authorizations: the descriptor gives the provider's deadline",
            "authorizations: a request is read and normalised",
            "authorizations: a wrongCredentials delivery is refused", "authorizations: a tampered delivery is refused",
        ] {
            #expect(report.outcome(of: name) == .passed, "\(name): \(report)")
        }
        for operation in ["card lookup", "list cards", "create card"] {
            let cells = report.scenarios.filter { $0.name.hasPrefix("fault matrix: \(operation)") }
            #expect(cells.count > 1 && cells.allSatisfy { $0.outcome == .passed }, "\(operation): \(report)")
        }
    }
}
