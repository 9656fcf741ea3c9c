import AdyenSimulator
import CardGateway
import CardGatewayAdyen
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import Testing

/// The shared contract, run by the Adyen adapter against the Adyen simulator.
@Suite("Adyen contract", .timeLimit(.minutes(5)))
struct AdyenContractTests {
    static func subject() -> ContractSubject {
        let simulator = AdyenSimulator()
        typealias Seed = AdyenSimulator.Seed
        typealias Keys = AdyenSimulator.Credentials
        // The same provider, but signing with another endpoint's HMAC key.
        var otherKeys = Keys.default
        otherKeys.hmacKeyHex = "00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF"
        let otherEndpoint = AdyenSimulator(credentials: otherKeys)

        // The relay: start, then the SDK's output twice (the simulator completes after 2 POSTs).
        func relay(_ marker: String) -> [ProvisioningInput] {
            [
                .issuerSDK(output: nil),
                .issuerSDK(output: SensitiveData(Data([0xfb, 0xef, 0x01]) + Data("contract \(marker) round 1".utf8))),
                .issuerSDK(output: SensitiveData(Data([0xfb, 0xef, 0x02]) + Data("contract \(marker) round 2".utf8))),
            ]
        }

        let webhooks = ContractFixtures.Webhooks(signsTimestamp: false) { variant, _ in
            let signer = variant == .wrongSecret ? otherEndpoint : simulator
            let signed = signer.signedWebhook(
                type: AdyenSimulator.networkTokenUpdated, token: Seed.activeApplePayTokenID)
            var headers = HTTPFields()
            for (name, value) in signed.headers {
                if let fieldName = HTTPField.Name(name) { headers[fieldName] = value }
            }
            var body = signed.body
            if variant == .tampered {
                body = Data(
                    String(decoding: body, as: UTF8.self).replacingOccurrences(of: "\"approved\"", with: "\"declined\"")
                        .utf8)
            }
            return WebhookDelivery(headers: headers, body: body)
        }

        let closedCardActivation = ContractFixtures.ErrorScenario(
            name: "activation data for a closed card is refused", expected: .invalidRequest
        ) { provider, context in
            guard let wallets = provider as? any WalletProvisioning else {
                throw CardGatewayError(.unsupported, "no provisioning")
            }
            _ = try await wallets.provision(
                ProvisioningRequest(
                    card: CardRef(id: Seed.closedMastercardID), wallet: .applePay, input: .issuerSDK(output: nil)),
                context: context)
        }
        let closedTokenIsFinal = ContractFixtures.ErrorScenario(
            name: "a closed network token cannot be reactivated", expected: .invalidRequest
        ) { provider, context in
            guard let adyen = provider as? AdyenProvider else {
                throw CardGatewayError(.unsupported, "not the Adyen adapter")
            }
            try await adyen.updateNetworkToken(id: Seed.closedGooglePayTokenID, status: .active, context: context)
        }
        let bankAccount = ContractFixtures.ErrorScenario(
            name: "a bank account payment instrument is not a card", expected: .invalidRequest
        ) { provider, context in
            guard let lookup = provider as? any CardLookup else { throw CardGatewayError(.unsupported, "no lookup") }
            _ = try await lookup.card(CardRef(id: Seed.bankAccountID), context: context)
        }
        let wrongFlow = ContractFixtures.ErrorScenario(
            name: "Apple certificates are not an issuer SDK relay input", expected: .unsupported
        ) { provider, context in
            guard let wallets = provider as? any WalletProvisioning else {
                throw CardGatewayError(.unsupported, "no provisioning")
            }
            let input = ApplePayProvisioningInput(
                certificates: [Data([1, 2, 3])], nonce: Data([4]), nonceSignature: Data([5]))
            _ = try await wallets.provision(
                ProvisioningRequest(card: CardRef(id: Seed.activeVisaID), wallet: .applePay, input: .applePay(input)),
                context: context)
        }

        // Card details and PIN: the front end's side is the simulated app (an AES key encrypted with the offered
        // public key; for a change, a new PIN block under a fresh token).
        let reveal = ContractFixtures.Reveal(
            card: CardRef(id: Seed.activeMastercardID), missing: CardRef(id: "PI0000000000000000000NONE")
        ) { offer, _ in
            let app = try AdyenSimulatorApp.session(publicKeyPEM: offer.publicKey?.value ?? "")
            guard offer.purpose == .pinChange else {
                return RevealSessionRequest(
                    card: offer.card, purpose: offer.purpose, encryptedKey: Secret(app.encryptedKey))
            }
            let block = try AdyenSimulatorApp.pinChange(pin: "1357", key: app.key)
            return RevealSessionRequest(
                card: offer.card, purpose: .pinChange, encryptedKey: Secret(app.encryptedKey),
                encryptedPINBlock: Secret(block.encryptedPinBlock),
                pinToken: Secret(block.token)
            )
        }

        var subject = ContractSubject(
            name: "adyen", factory: .adyen,
            credentials: [
                "apiKey": Secret(Keys.apiKey), "hmacKey": Secret(Keys.hmacKeyHex),
                "authorizationUsername": Secret(AdyenSimulator.RelayedAuthorisationSettings.username),
                "authorizationPassword": Secret(AdyenSimulator.RelayedAuthorisationSettings.password),
            ],
            simulator: simulator,
            fixtures: ContractFixtures(
                lookup: .init(
                    existing: CardRef(id: Seed.activeVisaID), expectedStatus: .active, expectedLastFour: "4321",
                    missing: CardRef(id: "PI0000000000000000000NONE")),
                // The customer is the balance account; its listing also holds a business account, which is skipped.
                cards: .init(
                    customer: Seed.balanceAccountID, filterStatus: .suspended,
                    createVirtual: CreateCardRequest(
                        customer: Seed.balanceAccountID, type: .virtual, program: "visadebit", currency: "EUR",
                        cardholderName: "Contract Cardholder",
                        issuingCountryCode: "NL"
                    ),
                    lockable: CardRef(id: Seed.lockableVisaID), cancellable: CardRef(id: Seed.cancellableMastercardID)
                ),
                walletTokens: .init(
                    card: CardRef(id: Seed.walletVisaID), token: Seed.walletActiveTokenID,
                    deletable: Seed.walletDeletableTokenID),
                provisioning: .init(
                    eligible: CardRef(id: Seed.activeVisaID), ineligible: CardRef(id: Seed.suspendedVisaID),
                    inputs: [.applePay: relay("applePay"), .googlePay: relay("googlePay")],
                    // The simulated SDK binds each output to the sdkInput before it: a stale blob would be refused.
                    answer: { planned, previous in
                        guard let marker = planned.issuerSDKOutput, let sdkInput = previous?.issuerSDKInput else {
                            return planned
                        }
                        return .issuerSDK(
                            output: SensitiveData(
                                AdyenSimulator.sdkOutput(answering: sdkInput.revealedBytes, extra: marker.revealedBytes)
                            ))
                    }
                ),
                webhooks: webhooks,
                extraErrorScenarios: [closedCardActivation, closedTokenIsFinal, bankAccount, wrongFlow]
            ),
            sensitiveValues: [
                Keys.apiKeyWithoutActivationRole, Keys.webServicePassword, otherKeys.hmacKeyHex,
                AdyenSimulator.RelayedAuthorisationSettings.password,
            ]
        )
        subject.fixtures.reveal = reveal
        // Relayed authorisation: the simulator's message for a seeded card, with the Basic credentials Adyen sends
        // (the seed's; another pair for the wrong-credentials variant). Adyen signs no body, so no tampered variant.
        typealias Relayed = AdyenSimulator.RelayedAuthorisationSettings
        subject.fixtures.authorizations = ContractFixtures.Authorizations(signsBody: false) { variant, _ in
            let order = AuthorizationOrder(
                url: "http://127.0.0.1:1/authorizations/adyen", card: Seed.activeVisaID, amount: 1_250,
                currency: "EUR",
                merchant: .init(name: "Corner Shop", categoryCode: "5411", country: "NL", city: "Amsterdam"))
            guard let body = simulator.relayedAuthorisationMessage(for: order) else {
                throw CardGatewayError(.invalidRequest, "the simulator made no relayed authorisation")
            }
            let password = variant == .wrongCredentials ? "not-the-password" : Relayed.password
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.authorization] = "Basic " + Data("\(Relayed.username):\(password)".utf8).base64EncodedString()
            return WebhookDelivery(headers: headers, body: body)
        } validateAnswer: { answer, decision in
            // RelayedAuthorisationResponse: HTTP 200, authorisationDecision.status Authorised | Refused, a string
            // refusalReason only when refused, no other member.
            var problems: [String] = []
            if answer.status != .ok { problems.append("status \(answer.status.code), not 200") }
            guard let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any],
                let inner = object["authorisationDecision"] as? [String: Any]
            else { return problems + ["no authorisationDecision object"] }
            if Set(object.keys) != ["authorisationDecision"] { problems.append("members \(object.keys.sorted())") }
            let status = inner["status"] as? String
            if status != (decision.approved ? "Authorised" : "Refused") {
                problems.append("status \(status ?? "none")")
            }
            let expected: Set<String> = decision.approved ? ["status"] : ["status", "refusalReason"]
            if Set(inner.keys) != expected { problems.append("decision members \(inner.keys.sorted())") }
            return problems
        }
        return subject
    }

    @Test func contract() async {
        let report = await ContractSuite.run(Self.subject())
        #expect(report.passed, "\(report)")
        #expect(report.failures.isEmpty, "\(report)")
        // Skipped: staleness (Adyen signs no timestamp), a tampered relayed authorisation (HTTP Basic covers no body) and the card capabilities the adapter does not declare:
        // activation (Adyen checks no printed card data), PIN (Adyen takes only an encrypted PIN block) and
        // programs (no listing).
        let skipped = report.scenarios.filter { if case .skipped = $0.outcome { return true } else { return false } }
            .map(\.name)
        #expect(
            skipped.sorted() == [
                "authorizations: a tampered delivery is refused", "cardActivation: activate", "cardPIN: set the PIN",
                "cardPrograms: programs",
                "webhooks: stale delivery is refused",
            ],
            "\(report)"
        )
        for name in [
            "cardIssuance: create a virtual card", "cardIssuance: an invalid create is refused before sending",
            "cardListing: paging visits every card exactly once",
            "cardListing: a limit out of range is refused before sending", "cardListing: filtered by status",
            "cardLocking: lock then unlock is a round trip", "cardCancellation: cancel is final",
            "walletTokenListing: the card's tokens",
            "walletTokenControl: suspend then resume is a round trip", "walletTokenControl: delete is final",
        ] {
            #expect(report.outcome(of: name) == .passed, "\(name): \(report)")
        }
        for capability in ["cardDetailsReveal", "pinReveal", "pinChange"] {
            for check in [
                "the offer through the gateway names the flow and its inputs",
                "a request missing an input, or with one the flow does not take, is refused before any request",
                "a repeat makes a new session (two sessions, two provider requests)",
                "a refused session's error carries none of the front end's values",
            ] {
                #expect(report.outcome(of: "\(capability): \(check)") == .passed, "\(capability): \(check): \(report)")
            }
        }
        #expect(report.outcome(of: "cardReveal: descriptor") == .passed, "\(report)")
        #expect(report.passedCount >= 20, "\(report)")
    }
}
