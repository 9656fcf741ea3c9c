import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayFuzzSupport
import CardGatewaySimulation
import Foundation
import BridgeFuzz
import BridgeSimulator
import Testing

/// Records the Bridge room's seed corpus (`Fuzz/Corpus/bridge-responses/`, `Fuzz/Corpus/bridge-webhooks/`) from its
/// simulator on the harnesses' fixed clock; the webhooks are signed with the harness's fixed RSA key. Off unless
/// `CARDGATEWAY_RECORD_FUZZ_CORPUS=1` (``FuzzCorpus`` says how).
@Suite("Bridge fuzz corpus recorder", .enabled(if: FuzzCorpus.isRecording), .timeLimit(.minutes(5)))
struct BridgeFuzzCorpusTests {
    @Test func record() async throws {
        let clock = SimulationClock(fixed: FuzzClock.now)
        try await withSimulator(BridgeSimulator(clock: clock)) { handle in
            try await FuzzCorpus.record(.bridge, through: AsyncHTTPClientTransport(), baseURL: handle.baseURL)
        }
        let bridge = BridgeSimulator(clock: clock, webhookSigningKey: FuzzKeys.bridgeWebhookPrivateKey)
        if let signed = try bridge.signedCardAccountWebhook(
            cardAccountID: BridgeSimulator.Seed.frozenByCustomer, previousStatus: "active")
        {
            try FuzzCorpus.webhook("bridge", "card-frozen", signed, header: "X-Webhook-Signature")
        }
        if let signed = try bridge.signedCardAccountWebhook(
            cardAccountID: BridgeSimulator.Seed.activeVisa, type: "card_account.created")
        {
            try FuzzCorpus.webhook("bridge", "card-created", signed, header: "X-Webhook-Signature")
        }
    }
}
