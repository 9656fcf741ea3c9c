import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import Testing

/// The contract suite proven on the reference adapter: it passes on a correct adapter and names the scenario
/// that fails on each deliberately broken one.
@Suite("Contract suite on the reference adapter", .timeLimit(.minutes(5)))
struct ContractSuiteTests {
    static func subject(defects: ReferenceProvider.Defects = []) -> ContractSubject {
        let fixtures = ContractFixtures(
            lookup: .init(
                existing: CardRef(id: ReferenceSimulator.activeCard), expectedStatus: .active, expectedLastFour: "4242",
                missing: CardRef(id: "card-nope")),
            cards: .init(
                customer: ReferenceSimulator.customer, filterStatus: .locked,
                createVirtual: CreateCardRequest(
                    customer: ReferenceSimulator.customer, type: .virtual, program: "REF-VIRTUAL-EUR", currency: "EUR"),
                activation: ActivateCardRequest(
                    card: CardRef(id: ReferenceSimulator.issuedCard), lastFour: "5151",
                    cvv: Secret(ReferenceSimulator.issuedCVV)),
                lockable: CardRef(id: ReferenceSimulator.activeCard),
                cancellable: CardRef(id: ReferenceSimulator.spareCard)
            ),
            provisioning: .init(
                eligible: CardRef(id: ReferenceSimulator.activeCard),
                ineligible: CardRef(id: ReferenceSimulator.lockedCard),
                inputs: [
                    .applePay: [.issuerSDK(output: nil), .issuerSDK(output: SensitiveData(Data("sdk-output-1".utf8)))],
                    .googlePay: [.issuerSDK(output: nil)],
                ]
            ),
            webhooks: .init(signsTimestamp: true) { variant, now in
                let signed: (header: String, body: Data)
                switch variant {
                case .valid: signed = ReferenceSimulator.signedWebhook(timestamp: now)
                case .tampered: signed = ReferenceSimulator.signedWebhook(timestamp: now, tamper: true)
                case .stale: signed = ReferenceSimulator.signedWebhook(timestamp: now.addingTimeInterval(-3600))
                case .wrongSecret: signed = ReferenceSimulator.signedWebhook(secret: "someone-else", timestamp: now)
                }
                return WebhookDelivery(
                    headers: [HTTPField.Name("X-Reference-Signature")!: signed.header], body: signed.body)
            }
        )
        return ContractSubject(
            name: "reference", factory: ReferenceProvider.factory(defects: defects),
            credentials: [
                "apiKey": Secret(ReferenceSimulator.apiKey), "webhookSecret": Secret(ReferenceSimulator.webhookSecret),
            ],
            simulator: ReferenceSimulator(), fixtures: fixtures,
            sensitiveValues: [ReferenceSimulator.issuedCVV + "-never-logged"]
        )
    }

    @Test("a correct adapter passes every scenario")
    func referencePasses() async {
        let report = await ContractSuite.run(Self.subject())
        #expect(report.passed, "\(report)")
        #expect(report.passedCount >= 25, "\(report)")
    }

    @Test("an adapter that logs its API key fails the redaction check")
    func leakDetected() async {
        let report = await ContractSuite.run(Self.subject(defects: .logsSecret))
        #expect(!report.passed)
        #expect(report.failures.contains { $0.hasPrefix("redaction") }, "\(report)")
    }

    @Test("an adapter that logs a 3-digit CVV next to its name fails the redaction check")
    func shortCVVLeakDetected() async {
        let report = await ContractSuite.run(Self.subject(defects: .logsCVV))
        #expect(!report.passed)
        #expect(report.failures.contains { $0.hasPrefix("redaction") && $0.contains("cvv") }, "\(report)")
    }

    @Test("an adapter that flattens errors fails the error scenarios")
    func flattenedErrorsDetected() async {
        let report = await ContractSuite.run(Self.subject(defects: .flattensErrors))
        let failed = Set(
            report.failures.map {
                String($0.prefix(while: { $0 != ":" })) + ":" + $0.dropFirst(8).prefix(while: { $0 != ":" })
            })
        #expect(!report.passed)
        #expect(report.failures.contains { $0.contains("401 is authenticationFailed") }, "\(failed)")
        #expect(report.failures.contains { $0.contains("missing card is notFound") })
        #expect(report.failures.contains { $0.contains("cancel is final") })
    }

    @Test("an adapter that trusts any webhook fails the signature scenarios")
    func trustingWebhooksDetected() async {
        let report = await ContractSuite.run(Self.subject(defects: .trustsWebhooks))
        #expect(report.failures.contains { $0.contains("tampered delivery is refused") }, "\(report)")
        #expect(report.failures.contains { $0.contains("wrongSecret delivery is refused") })
    }

    @Test("an adapter that sends invalid requests fails the validation scenario")
    func missingValidationDetected() async {
        let report = await ContractSuite.run(Self.subject(defects: .skipsValidation))
        #expect(report.failures.contains { $0.contains("invalid create is refused before sending") }, "\(report)")
    }

    @Test("a declared capability without fixtures fails the run unless it is waived with a reason")
    func missingFixturesFail() async {
        var bare = Self.subject()
        bare.fixtures.cards = nil
        bare.fixtures.webhooks = nil
        let report = await ContractSuite.run(bare)
        #expect(!report.passed, "an adapter must not pass scenarios it never ran")
        #expect(report.failures.contains { $0.hasPrefix("cardLocking") }, "\(report)")
        #expect(report.failures.contains { $0.hasPrefix("cardListing") }, "\(report)")
        #expect(report.failures.contains { $0.hasPrefix("webhooks") }, "\(report)")

        var waived = bare
        waived.fixtures.waived = Dictionary(
            uniqueKeysWithValues: Capability.cardService.map { ($0, "tested elsewhere") })
        waived.fixtures.waived[.webhooks] = "no webhook endpoint in this deployment"
        let waivedReport = await ContractSuite.run(waived)
        #expect(waivedReport.passed, "\(waivedReport)")
        #expect(waivedReport.outcome(of: "webhooks") == .skipped("waived: no webhook endpoint in this deployment"))
    }
}
