import CardGateway
import CardGatewayPaysafe
import CardGatewayTesting
import Crypto
import Foundation
import HTTPTypes
import PaysafeSimulator
import Testing

/// Paysafe's adapter and simulator through the shared contract suite.
enum PaysafeContract {
    typealias Seed = PaysafeSimulator.Seed
    static let eu = Seed.euCustomer

    static func subject() -> ContractSubject {
        let simulator = PaysafeSimulator()
        let credentials = PaysafeSimulator.Credentials.default
        let apple = ApplePayProvisioningInput(
            certificates: [
                Data((0..<64).map { UInt8(($0 * 5 + 1) & 0xFF) }), Data((0..<64).map { UInt8(($0 * 9 + 2) & 0xFF) }),
            ],
            nonce: Data([0x5E, 0xC2, 0x7A, 0x11, 0x0B, 0x93, 0x44, 0x2D]),
            nonceSignature: Data((0..<32).map { UInt8(($0 * 3 + 7) & 0xFF) })
        )
        var fixtures = ContractFixtures(
            lookup: .init(
                existing: CardRef(id: Seed.activeCardID, customer: eu), expectedStatus: .active,
                expectedLastFour: "7009", missing: CardRef(id: "no-such-card", customer: eu)),
            cards: .init(
                customer: eu, filterStatus: .locked,
                createVirtual: CreateCardRequest(
                    customer: eu, type: .virtual, program: Seed.virtualMCProgram, currency: "EUR", pin: Secret("8246")),
                activation: ActivateCardRequest(
                    card: CardRef(id: Seed.issuedCardID, customer: eu), lastFour: Seed.issuedCardLastFour,
                    cvv: Secret(Seed.issuedCardCVV)),
                lockable: CardRef(id: Seed.activeVisaCardID, customer: eu),
                // No pinChange: "Pin change is an unavailable action for Business APIs" (cardPIN is not declared).
                cancellable: CardRef(id: Seed.digitalCardID, customer: eu)
            ),
            walletTokens: .init(card: CardRef(id: Seed.tokenizedCardID, customer: eu), token: Seed.tokenizedDPANRef),
            provisioning: .init(
                eligible: CardRef(id: Seed.activeCardID, customer: eu),
                ineligible: CardRef(id: Seed.lockedCardID, customer: eu),
                inputs: [
                    .applePay: [.applePay(apple)],
                    .googlePay: [
                        .googlePay(
                            GooglePayProvisioningInput(
                                clientDeviceID: "WNkcsfZPiKfa5PrH3jilkQYT",
                                clientWalletAccountID: "40exmLiWV1iV55ZVstOAiMf7"))
                    ],
                ],
                confirmation: ProvisioningConfirmation(
                    card: CardRef(id: Seed.activeCardID, customer: eu), wallet: .applePay,
                    deviceAccountReference: "DAPLMC0000CONTRACT0001")
            ),
            webhooks: .init(signsTimestamp: false) { variant, _ in
                let signed = simulator.signedWebhook(
                    cardID: Seed.activeCardID, oldStatus: "ACTIVE", newStatus: "LOCKED", eventID: "evt-contract")
                var headers = HTTPFields()
                for (name, value) in signed.headers { headers[HTTPField.Name(name)!] = value }
                switch variant {
                case .valid, .stale:
                    return WebhookDelivery(headers: headers, body: signed.body)
                case .tampered:
                    let body = Data(
                        String(decoding: signed.body, as: UTF8.self).replacingOccurrences(
                            of: "LOCKED", with: "CANCELLED"
                        ).utf8)
                    return WebhookDelivery(headers: headers, body: body)
                case .wrongSecret:
                    // Paysafe's scheme (Base64 HMAC-SHA256 under a Base64-decoded key) with another 256-byte key.
                    let mac = HMAC<SHA256>.authenticationCode(
                        for: signed.body, using: SymmetricKey(data: Data((0..<256).map { UInt8($0 & 0xFF) })))
                    headers[HTTPField.Name("Signature")!] = Data(mac).base64EncodedString()
                    return WebhookDelivery(headers: headers, body: signed.body)
                }
            },
            extraErrorScenarios: [
                .init(name: "activating an active card is invalidCardState", expected: .invalidCardState) {
                    provider, context in
                    _ = try await (provider as! PaysafeProvider).activateCard(
                        ActivateCardRequest(
                            card: CardRef(id: Seed.tokenizedCardID, customer: eu), lastFour: "1212",
                            cvv: Secret(Seed.defaultCVV)), context: context
                    )
                },
                .init(name: "an SCA customer's update is scaRequired", expected: .scaRequired) { provider, context in
                    _ = try await (provider as! PaysafeProvider).updateCard(
                        UpdateCardRequest(
                            card: CardRef(id: Seed.scaActiveCardID, customer: Seed.scaCustomer),
                            change: .status(.locked, reason: nil)), context: context
                    )
                },
                .init(name: "a PIN change is unsupported on the business API", expected: .unsupported) {
                    provider, context in
                    _ = try await (provider as! PaysafeProvider).updateCard(
                        UpdateCardRequest(
                            card: CardRef(id: Seed.activeVisaCardID, customer: eu), change: .pin(Secret("5081"))),
                        context: context
                    )
                },
                .init(name: "a card without its customer is invalidRequest", expected: .invalidRequest) {
                    provider, context in
                    _ = try await (provider as! PaysafeProvider).card(CardRef(id: Seed.activeCardID), context: context)
                },
            ]
        )
        // Card details by a secure-details link (the EU customer needs no SCA): the front end supplies nothing.
        fixtures.reveal = ContractFixtures.Reveal(
            card: CardRef(id: Seed.activeCardID, customer: eu), missing: CardRef(id: "no-such-card", customer: eu)
        ) { offer, _ in
            RevealSessionRequest(card: offer.card, purpose: offer.purpose)
        }
        return ContractSubject(
            name: "paysafe", factory: .paysafe,
            credentials: [
                "clientID": Secret(credentials.clientID), "clientSecret": Secret(credentials.clientSecret),
                "webhookSecret": Secret(credentials.webhookSecret),
            ],
            options: ["brand": .string(credentials.brand), "region": .string("ROW")],
            simulator: simulator, fixtures: fixtures,
            sensitiveValues: [credentials.webhookSecret, "8246", "5081", Seed.issuedCardCVV]
        )
    }
}

@Suite("Paysafe contract", .timeLimit(.minutes(5)))
struct PaysafeContractTests {
    @Test("the Paysafe adapter passes the contract against its simulator")
    func contract() async {
        let report = await ContractSuite.run(PaysafeContract.subject())
        #expect(report.passed, "\(report)")
        #expect(
            report.outcome(of: "webhooks: stale delivery is refused") == .skipped("the provider signs no timestamp"))
        #expect(report.outcome(of: "cardPIN: set the PIN") == .skipped("the adapter does not declare cardPIN"))
        for name in [
            "cardReveal: descriptor", "cardDetailsReveal: the offer through the gateway names the flow and its inputs",
            "cardDetailsReveal: a request missing an input, or with one the flow does not take, is refused before any request",
            "cardDetailsReveal: a repeat makes a new session (two sessions, two provider requests)",
            "cardDetailsReveal: a refused session's error carries none of the front end's values",
        ] {
            #expect(report.outcome(of: name) == .passed, "\(name): \(report)")
        }
    }
}
