import CardGateway
import CardGatewaySimulation
import CardGatewayStripe
import CardGatewayTesting
import Foundation
import HTTPTypes
import StripeSimulator
import Testing

/// The shared contract, run by the Stripe adapter against the Stripe simulator.
@Suite("Stripe contract", .timeLimit(.minutes(5)))
struct StripeContractTests {
    static func subject() -> ContractSubject {
        let simulator = StripeSimulator()
        let credentials = StripeSimulator.Credentials.default
        typealias Seed = StripeSimulator.Seed
        let sdkKey: [ProvisioningInput] = [.issuerSDKKey(apiVersion: "2020-08-27")]
        let webhooks = ContractFixtures.Webhooks(signsTimestamp: true) { variant, now in
            guard let card = simulator.cardObject(Seed.inactiveCardID) else {
                throw CardGatewayError(.invalidConfiguration, "the simulator has no seeded inactive card")
            }
            let signed: (headers: [(String, String)], body: Data)
            switch variant {
            case .valid, .tampered:
                signed = simulator.signedWebhook(
                    type: "issuing_card.updated", object: card, previousAttributes: ["status": "active"], timestamp: now
                )
            case .stale:
                signed = simulator.signedWebhook(
                    type: "issuing_card.updated", object: card, timestamp: now.addingTimeInterval(-301))
            case .wrongSecret:
                signed = simulator.signedWebhook(
                    type: "issuing_card.updated", object: card, timestamp: now, secret: "whsec_notTheEndpointsSecret")
            }
            var headers = HTTPFields()
            for (name, value) in signed.headers {
                if let fieldName = HTTPField.Name(name) { headers[fieldName] = value }
            }
            var body = signed.body
            if variant == .tampered {
                body = Data(
                    String(decoding: body, as: UTF8.self).replacingOccurrences(of: "\"inactive\"", with: "\"active\"")
                        .utf8)
            }
            return WebhookDelivery(headers: headers, body: body)
        }
        let canceledCardStaysCanceled = ContractFixtures.ErrorScenario(
            name: "a canceled card cannot be reactivated", expected: .invalidCardState
        ) { provider, context in
            guard let stripe = provider as? StripeProvider else {
                throw CardGatewayError(.unsupported, "not the Stripe adapter")
            }
            // Unlocking is Stripe's status=active update, the one a reactivation sends.
            _ = try await stripe.changeStatus(
                CardStatusRequest(card: CardRef(id: Seed.canceledCardID), intent: .unlock), context: context)
        }
        let versionRequired = ContractFixtures.ErrorScenario(
            name: "an ephemeral key needs the SDK's API version", expected: .invalidRequest
        ) { provider, context in
            guard let wallets = provider as? any WalletProvisioning else {
                throw CardGatewayError(.unsupported, "no provisioning")
            }
            _ = try await wallets.provision(
                ProvisioningRequest(
                    card: CardRef(id: Seed.activeCardID), wallet: .applePay, input: .issuerSDKKey(apiVersion: "")),
                context: context
            )
        }
        // Card details and PIN (Issuing Elements): the front end's nonce, as Stripe.js makes one, and the offered version.
        // PIN change: the new PIN as the front end encrypted it under Stripe's public key (opaque here).
        let reveal = ContractFixtures.Reveal(
            card: CardRef(id: Seed.activeCardID), missing: CardRef(id: "ic_doesnotexist")
        ) { offer, _ in
            if offer.flow == .encryptedPIN {
                let ciphertext =
                    "eyJhbGciOiJSU0EtT0FFUC0yNTYifQ." + UUID().uuidString.replacingOccurrences(of: "-", with: "")
                return RevealSessionRequest(
                    card: offer.card, purpose: offer.purpose, encryptedPINBlock: Secret(ciphertext))
            }
            let nonce = "ephkn_priv_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            return RevealSessionRequest(
                card: offer.card, purpose: offer.purpose, clientNonce: Secret(nonce), apiVersion: offer.apiVersion)
        }
        // Real-time authorizations: the simulator's issuing_authorization.request, signed with the synchronous endpoint's
        // own secret; the answers checked against Stripe's documented answer (HTTP 200, Stripe-Version, approved,
        // amount only where controllable, metadata of strings).
        let authorizations = ContractFixtures.Authorizations(signsBody: true) { variant, now in
            let secret = variant == .wrongCredentials ? "whsec_notTheAuthorizationEndpoints" : nil
            guard
                let signed = simulator.signedAuthorizationRequest(
                    card: Seed.activeCardID, amount: 700, controllable: true, secret: secret, timestamp: now)
            else { throw CardGatewayError(.invalidConfiguration, "the simulator has no seeded active card") }
            var headers = HTTPFields()
            for (name, value) in signed.headers {
                if let fieldName = HTTPField.Name(name) { headers[fieldName] = value }
            }
            var body = signed.body
            if variant == .tampered {
                body = Data(
                    String(decoding: body, as: UTF8.self).replacingOccurrences(
                        of: #""amount" ?: 700\b"#, with: "\"amount\": 70000", options: .regularExpression
                    ).utf8)
            }
            return WebhookDelivery(headers: headers, body: body)
        } validateAnswer: { answer, decision in
            StripeContractTests.problems(answer, decision)
        }
        var subject = ContractSubject(
            name: "stripe", factory: .stripe,
            credentials: [
                "secretKey": Secret(credentials.testSecretKey), "webhookSecret": Secret(credentials.webhookSecret),
                "authorizationWebhookSecret": Secret(credentials.authorizationWebhookSecret),
            ],
            simulator: simulator,
            fixtures: ContractFixtures(
                lookup: .init(
                    existing: CardRef(id: Seed.activeCardID), expectedStatus: .active, expectedLastFour: "4242",
                    missing: CardRef(id: "ic_doesnotexist")),
                cards: .init(
                    customer: Seed.cardholderID, filterStatus: .inactive,
                    createVirtual: CreateCardRequest(
                        customer: Seed.cardholderID, type: .virtual, program: "", currency: "USD"),
                    lockable: CardRef(id: Seed.activeCardWithoutPrimaryAccountIdentifierID),
                    cancellable: CardRef(id: Seed.missingAgreementCardID)
                ),
                walletTokens: .init(
                    card: CardRef(id: Seed.activeCardID), token: Seed.activeApplePayTokenID,
                    deletable: Seed.activeSamsungPayTokenID),
                provisioning: .init(
                    eligible: CardRef(id: Seed.activeCardID), ineligible: CardRef(id: Seed.inactiveCardID),
                    inputs: [.applePay: sdkKey, .googlePay: sdkKey]),
                webhooks: webhooks,
                extraErrorScenarios: [canceledCardStaysCanceled, versionRequired]
            ),
            sensitiveValues: [
                credentials.webhookSecret, credentials.liveSecretKey, credentials.authorizationWebhookSecret,
            ]
        )
        subject.fixtures.reveal = reveal
        subject.fixtures.authorizations = authorizations
        return subject
    }

    /// What Stripe's real-time authorization page says of the answer: HTTP 200, a `Stripe-Version` header, JSON with a
    /// boolean `approved`, an `amount` (a positive integer) only with an approval, `metadata` of strings, nothing else.
    static func problems(_ answer: AuthorizationAnswer, _ decision: AuthorizationDecision) -> [String] {
        var problems: [String] = []
        if answer.status.code != 200 { problems.append("HTTP \(answer.status.code), not 200") }
        if (answer.headers[HTTPField.Name("Stripe-Version")!] ?? "").isEmpty { problems.append("no Stripe-Version") }
        guard let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] else {
            return problems + ["the body is not a JSON object"]
        }
        let unknown = Set(object.keys).subtracting(["approved", "amount", "metadata"])
        if !unknown.isEmpty { problems.append("members Stripe does not take: \(unknown.sorted())") }
        if (object["approved"] as? Bool) != decision.approved {
            problems.append("approved is not \(decision.approved)")
        }
        if let amount = object["amount"] {
            if !decision.approved { problems.append("an amount with a decline") }
            if (amount as? Int).map({ $0 <= 0 }) ?? true { problems.append("amount is not a positive integer") }
        }
        if let metadata = object["metadata"],
            !((metadata as? [String: Any])?.values.allSatisfy { $0 is String } ?? false)
        {
            problems.append("metadata is not an object of strings")
        }
        return problems
    }

    @Test func contract() async {
        let report = await ContractSuite.run(Self.subject())
        #expect(report.passed, "\(report)")
        #expect(report.failures.isEmpty, "\(report)")
        let lifecycle = report.scenarios.filter { $0.name.hasPrefix("card") || $0.name.hasPrefix("walletToken") }
        let skipped = lifecycle.compactMap { scenario -> String? in
            if case .skipped(let why) = scenario.outcome { return "\(scenario.name): \(why)" }
            return nil
        }
        // Stripe has no activation with printed data, no PIN setting in plain text and no card programs.
        #expect(
            skipped.sorted() == [
                "cardActivation: activate: the adapter does not declare cardActivation",
                "cardPIN: set the PIN: the adapter does not declare cardPIN",
                "cardPrograms: programs: the adapter does not declare cardPrograms",
            ], "\(report)")
        for name in [
            "cardListing: paging visits every card exactly once",
            "cardListing: a limit out of range is refused before sending", "cardListing: filtered by status",
            "cardIssuance: create a virtual card", "cardIssuance: an invalid create is refused before sending",
            "cardLocking: lock then unlock is a round trip",
            "cardCancellation: cancel is final", "walletTokenListing: the card's tokens",
            "walletTokenControl: suspend then resume is a round trip",
            "walletTokenControl: delete is final",
        ] {
            #expect(report.outcome(of: name) == .passed, "\(name): \(report)")
        }
        // Card details and PIN by Issuing Elements, PIN change by an encrypted PIN: each held to the reveal contract.
        for purpose in ["cardDetailsReveal", "pinReveal", "pinChange"] {
            for scenario in [
                "the offer through the gateway names the flow and its inputs",
                "a repeat makes a new session (two sessions, two provider requests)",
            ] {
                #expect(report.outcome(of: "\(purpose): \(scenario)") == .passed, "\(purpose): \(scenario): \(report)")
            }
        }
        for operation in ["list cards", "create card", "lock card", "list wallet tokens", "suspend wallet token"] {
            let cells = report.scenarios.filter { $0.name.hasPrefix("fault matrix: \(operation)") }
            #expect(cells.count > 1 && cells.allSatisfy { $0.outcome == .passed }, "\(operation): \(report)")
        }
    }
}
