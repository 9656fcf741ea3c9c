import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import SharedTestSupport
import Testing

@_spi(AdapterSupport) @testable import CardGatewayStripe
@testable import StripeSimulator

/// Runs Providers/Stripe/Simulator/official-client-check.py (Stripe's own Python library, pinned in
/// scripts/official-clients-requirements.txt) against the simulator. See ``OfficialClient`` for when it runs.
@Suite("Stripe official client", .timeLimit(.minutes(5)))
struct StripeOfficialClientTests {
    @Test func stripePythonWorksAgainstTheSimulator() async throws {
        try await OfficialClient.requireAvailable(module: "stripe")
        try await withSimulator(StripeSimulator()) { handle in
            let result = try await OfficialClient.check("Stripe", [handle.baseURL.absoluteString])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("checks passed"))
            #expect(
                handle.journal.entries().contains {
                    $0.header("user-agent")?.contains("Stripe/v1 PythonBindings") == true
                })
        }
    }

    /// stripe-python's own verification (`stripe.WebhookSignature.verify_header`, `stripe.Webhook.construct_event`,
    /// default tolerance 300 s) of a delivery the simulator signed now, and of the same delivery with a changed body;
    /// then the other way: a header stripe-python makes (`WebhookSignature.generate_signature_header`) verified by
    /// the adapter.
    static let webhookCheck = """
        import sys, stripe
        payload = open(sys.argv[1], "rb").read()
        header, secret = sys.argv[2], sys.argv[3]
        stripe.WebhookSignature.verify_header(payload, header, secret, tolerance=300)
        event = stripe.Webhook.construct_event(payload, header, secret, tolerance=300)
        print("verified", event["type"], event["data"]["object"]["id"])
        try:
            stripe.WebhookSignature.verify_header(payload + b" ", header, secret, tolerance=300)
            print("a changed body verified")
        except stripe.SignatureVerificationError:
            print("a changed body refused")
        print("HEADER " + stripe.WebhookSignature.generate_signature_header(payload.decode("utf-8"), secret))
        """

    @Test("stripe-python verifies the simulator's webhook signature, and the adapter verifies stripe-python's")
    func webhookSignaturesAgreeWithStripePython() async throws {
        try await OfficialClient.requireAvailable(module: "stripe")
        let simulator = StripeSimulator()
        let secret = StripeSimulator.Credentials.default.webhookSecret
        let card = try #require(simulator.cardObject(StripeSimulator.Seed.activeCardID))
        let now = Date()
        let delivery = simulator.signedWebhook(
            type: "issuing_card.updated", object: card, previousAttributes: ["status": "inactive"], timestamp: now)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stripe-webhook-\(UUID()).json")
        try delivery.body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let header = try #require(delivery.headers.first { $0.0 == "Stripe-Signature" }?.1)
        let result = try await OfficialClient.run([
            OfficialClient.python, "-c", Self.webhookCheck, file.path, header, secret,
        ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("verified issuing_card.updated \(StripeSimulator.Seed.activeCardID)"))
        #expect(result.output.contains("a changed body refused"))

        // stripe-python's header over the same body, verified by the adapter.
        let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("HEADER ") })
        var fields = HTTPFields()
        fields[StripeAPI.signatureHeader] = String(line.dropFirst("HEADER ".count))
        let provider = try Fixture.provider(
            ScriptedTransport([]),
            configuration: StripeConfiguration(
                secretKey: Secret(StripeSimulator.Credentials.default.testSecretKey), webhookSecret: Secret(secret)))
        let events = try provider.verify(WebhookDelivery(headers: fields, body: delivery.body), now: Date())
        #expect(events.count == 1)
    }
}
