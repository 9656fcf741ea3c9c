import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import LithicSimulator
import SharedTestSupport
import Testing

@_spi(AdapterSupport) @testable import CardGatewayLithic

/// Runs Providers/Lithic/Simulator/official-client-check.py (Lithic's own Python library, pinned in
/// scripts/official-clients-requirements.txt) against the simulator, and checks webhook signatures both ways with the
/// library's verifier (`client.webhooks.unwrap`, which calls `standardwebhooks`). See ``OfficialClient`` for when it
/// runs.
@Suite("Lithic official client", .timeLimit(.minutes(5)))
struct LithicOfficialClientTests {
    @Test func lithicPythonWorksAgainstTheSimulator() async throws {
        try await OfficialClient.requireAvailable(module: "lithic")
        try await withSimulator(LithicSimulator()) { handle in
            let result = try await OfficialClient.check("Lithic", [handle.baseURL.absoluteString])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("checks passed"))
            #expect(handle.journal.entries().contains { $0.header("user-agent")?.contains("Lithic/Python") == true })
            #expect(handle.journal.entries().contains { $0.path == "/v1/cards/\(Seed.activeCard)/provision" })
        }
    }

    /// The library's `webhooks.unwrap` (Standard Webhooks, 5-minute tolerance) on a delivery the simulator signed now,
    /// and on the same delivery with a changed body; then a signature `standardwebhooks` makes, for the adapter.
    static let webhookCheck = """
        import sys, time, lithic
        from standardwebhooks import Webhook
        from datetime import datetime, timezone
        payload = open(sys.argv[1], "rb").read().decode("utf-8")
        headers = {"webhook-id": sys.argv[2], "webhook-timestamp": sys.argv[3], "webhook-signature": sys.argv[4]}
        secret = sys.argv[5]
        client = lithic.Lithic(api_key="unused", webhook_secret=secret)
        event = client.webhooks.unwrap(payload, headers)
        print("verified", event["event_type"], event["card_token"])
        try:
            client.webhooks.unwrap(payload + " ", headers)
            print("a changed body verified")
        except Exception:
            print("a changed body refused")
        now = int(time.time())
        signature = Webhook(secret).sign("msg_official_client", datetime.fromtimestamp(now, tz=timezone.utc), payload)
        print("SIGNED %d %s" % (now, signature))
        """

    @Test("lithic's webhooks.unwrap verifies the simulator's signature, and the adapter verifies standardwebhooks'")
    func webhookSignaturesAgreeWithTheLibrary() async throws {
        try await OfficialClient.requireAvailable(module: "lithic")
        let simulator = LithicSimulator()
        let signed = simulator.signedCardUpdated(card: Seed.lockableCard, state: "PAUSED", previous: "OPEN", at: Date())
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lithic-webhook-\(UUID()).json")
        try signed.body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        func header(_ name: String) -> String { signed.headers.first { $0.0 == name }?.1 ?? "" }
        let result = try await OfficialClient.run([
            OfficialClient.python, "-c", Self.webhookCheck, file.path, header("webhook-id"),
            header("webhook-timestamp"), header("webhook-signature"), Seed.webhookSecret,
        ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("verified card.updated \(Seed.lockableCard)"))
        #expect(result.output.contains("a changed body refused"))
        let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("SIGNED ") })
        let parts = line.split(separator: " ")
        try #require(parts.count == 3)
        var fields = HTTPFields()
        fields[LithicStandardWebhook.idHeader] = "msg_official_client"
        fields[LithicStandardWebhook.timestampHeader] = String(parts[1])
        fields[LithicStandardWebhook.signatureHeader] = String(parts[2])
        let (provider, _) = try LithicFixture.scripted([])
        let events = try provider.verify(WebhookDelivery(headers: fields, body: signed.body), now: Date())
        #expect(events.first?.id == "msg_official_client")
        #expect(events.first?.event.cardStatusChanged?.newStatus == .locked)
    }
}
