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
        let signed = simulator.signedWebhook(
            type: AdyenSimulator.networkTokenUpdated, token: AdyenSimulator.Seed.activeApplePayTokenID)
        let signature = try #require(signed.headers.first { $0.0.lowercased() == "hmacsignature" }?.1)
        let webhook = try JSONSerialization.data(withJSONObject: [
            "body": String(decoding: signed.body, as: UTF8.self), "signature": signature,
            "hmacKey": AdyenSimulator.Credentials.hmacKeyHex,
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
