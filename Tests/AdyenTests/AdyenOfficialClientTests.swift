import AdyenSimulator
import CardGatewaySimulation
import Foundation
import SharedTestSupport
import Testing

/// Runs Providers/Adyen/Simulator/official-client-check.py (Adyen's own Python library, pinned in
/// scripts/official-clients-requirements.txt) against the simulator: payment instruments, the activation-data
/// exchange played as the SDK would, network tokens, errors and the library's webhook HMAC check.
/// See ``OfficialClient`` for when it runs.
@Suite("Adyen official client", .timeLimit(.minutes(5)))
struct AdyenOfficialClientTests {
    @Test(
        "Adyen's Python library reads instruments, runs the relay, updates tokens and verifies a webhook against the simulator"
    )
    func adyenPythonWorksAgainstTheSimulator() async throws {
        try await OfficialClient.requireAvailable(module: "Adyen")
        let simulator = AdyenSimulator()
        // Every kind of webhook the simulator signs: network tokens, card status (created, updated: what it sends on
        // a lock, unlock or cancel), and Adyen's own published "Card updated" example signed by the simulator.
        var signed = [
            simulator.signedWebhook(
                type: AdyenSimulator.networkTokenCreated, token: AdyenSimulator.Seed.activeApplePayTokenID),
            simulator.signedWebhook(
                type: AdyenSimulator.networkTokenUpdated, token: AdyenSimulator.Seed.activeApplePayTokenID),
            try #require(
                simulator.signedPaymentInstrumentWebhook(
                    type: AdyenSimulator.paymentInstrumentCreated, instrument: AdyenSimulator.Seed.activeVisaID)),
            try #require(
                simulator.signedPaymentInstrumentWebhook(
                    type: AdyenSimulator.paymentInstrumentUpdated, instrument: AdyenSimulator.Seed.suspendedVisaID)),
        ]
        signed.append(
            simulator.signedWebhook(
                body: try AdyenWebhookTests.publishedExample(
                    "post-balancePlatform.paymentInstrument.updated-balancePlatform-paymentInstrument-updated")))
        let webhooks = try signed.map { delivery -> [String: String] in
            let signature = try #require(delivery.headers.first { $0.0.lowercased() == "hmacsignature" }?.1)
            return ["body": String(decoding: delivery.body, as: UTF8.self), "signature": signature]
        }
        let webhook = try JSONSerialization.data(withJSONObject: [
            "hmacKey": AdyenSimulator.Credentials.hmacKeyHex, "webhooks": webhooks,
        ])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "adyen-webhook-\(UUID().uuidString).json")
        try webhook.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await withSimulator(simulator) { handle in
            let result = try await OfficialClient.check("Adyen", [handle.rootURL.absoluteString, file.path])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("checks passed"))
            // The library's own requests reached the simulator: its headers, the exchange's POSTs with their keys.
            let posts = handle.journal.entries(method: "POST", pathContains: "networkTokenActivationData")
            #expect(posts.filter { $0.responseStatus == 200 }.count == 3)
            #expect(posts.contains { $0.header("idempotency-key") == "official-client-round-1" })
            #expect(
                handle.journal.entries().allSatisfy { $0.header("adyen-library-name") == "adyen-python-api-library" })
        }
    }
}
