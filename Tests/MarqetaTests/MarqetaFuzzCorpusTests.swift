import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayFuzzSupport
import CardGatewaySimulation
import Foundation
import MarqetaFuzz
import MarqetaSimulator
import Testing

/// Records the Marqeta room's seed corpus (`Fuzz/Corpus/marqeta-responses/`, `Fuzz/Corpus/marqeta-webhooks/`) from
/// its simulator on the harnesses' fixed clock. Off unless `CARDGATEWAY_RECORD_FUZZ_CORPUS=1` (``FuzzCorpus`` says
/// how).
@Suite("Marqeta fuzz corpus recorder", .enabled(if: FuzzCorpus.isRecording), .timeLimit(.minutes(5)))
struct MarqetaFuzzCorpusTests {
    @Test func record() async throws {
        let clock = SimulationClock(fixed: FuzzClock.now)
        try await withSimulator(MarqetaSimulator(clock: clock)) { handle in
            try await FuzzCorpus.record(.marqeta, through: AsyncHTTPClientTransport(), baseURL: handle.baseURL)
        }
        let marqeta = MarqetaSimulator(clock: clock)
        typealias MarqetaSeed = MarqetaSimulator.Seed
        try FuzzCorpus.webhook(
            "marqeta", "card-suspended",
            marqeta.signedCardTransitionWebhook(
                card: MarqetaSeed.lockableCard, state: "SUSPENDED", type: "state.suspended"),
            header: "X-Marqeta-Signature")
        try FuzzCorpus.webhook(
            "marqeta", "card-terminated",
            marqeta.signedCardTransitionWebhook(
                card: MarqetaSeed.cancellableCard, state: "TERMINATED", type: "state.terminated"),
            header: "X-Marqeta-Signature")
        try FuzzCorpus.webhook(
            "marqeta", "token-requested",
            marqeta.signedTokenTransitionWebhook(
                token: MarqetaSeed.activeToken, state: "REQUESTED", type: "state.requested"),
            header: "X-Marqeta-Signature")
        try FuzzCorpus.webhook(
            "marqeta", "token-suspended",
            marqeta.signedTokenTransitionWebhook(
                token: MarqetaSeed.suspendedToken, state: "SUSPENDED", type: "state.suspended"),
            header: "X-Marqeta-Signature")
    }
}
