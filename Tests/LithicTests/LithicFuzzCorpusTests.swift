import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayFuzzSupport
import CardGatewaySimulation
import Foundation
import LithicFuzz
import LithicSimulator
import Testing

/// Records the Lithic room's seed corpus (`Fuzz/Corpus/lithic-responses/`, `Fuzz/Corpus/lithic-webhooks/`) from its
/// simulator on the harnesses' fixed clock: its responses, and its webhooks signed by the harness and as the
/// simulator signed them (a raw seed keeps the simulator's `webhook-id`, which the harness's fixed one replaces, so it
/// reaches the refusal path). Off unless `CARDGATEWAY_RECORD_FUZZ_CORPUS=1` (``FuzzCorpus`` says how).
@Suite("Lithic fuzz corpus recorder", .enabled(if: FuzzCorpus.isRecording), .timeLimit(.minutes(5)))
struct LithicFuzzCorpusTests {
    @Test func record() async throws {
        let clock = SimulationClock(fixed: FuzzClock.now)
        try await withSimulator(LithicSimulator(clock: clock)) { handle in
            try await FuzzCorpus.record(.lithic, through: AsyncHTTPClientTransport(), baseURL: handle.baseURL)
        }
        let lithic = LithicSimulator(clock: clock)
        typealias LithicSeed = LithicSimulator.Seed
        let deliveries: [(String, LithicSimulator.SignedDelivery)] = [
            ("card-paused", lithic.signedCardUpdated(card: LithicSeed.lockableCard, state: "PAUSED", previous: "OPEN")),
            (
                "card-closed",
                lithic.signedCardUpdated(card: LithicSeed.cancellableCard, state: "CLOSED", previous: "OPEN")
            ),
            (
                "tokenization-paused",
                lithic.signedTokenizationUpdated(token: LithicSeed.activeToken, status: "PAUSED")
            ),
            (
                "digital-wallet-tokenization-deactivated",
                lithic.signedTokenizationUpdated(
                    token: LithicSeed.deletableToken, status: "DEACTIVATED", deprecated: true)
            ),
        ]
        for (name, signed) in deliveries {
            try FuzzCorpus.webhook(
                "lithic", name, (headers: signed.headers, body: signed.body), header: "webhook-signature")
        }
    }
}
