import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayFuzzSupport
import CardGatewaySimulation
import Foundation
import AdyenFuzz
import AdyenSimulator
import Testing

/// Records the Adyen room's seed corpus (`Fuzz/Corpus/adyen-responses/`, `Fuzz/Corpus/adyen-webhooks/`) from its
/// simulator on the harnesses' fixed clock. Off unless `CARDGATEWAY_RECORD_FUZZ_CORPUS=1` (``FuzzCorpus`` says how).
@Suite("Adyen fuzz corpus recorder", .enabled(if: FuzzCorpus.isRecording), .timeLimit(.minutes(5)))
struct AdyenFuzzCorpusTests {
    @Test func record() async throws {
        let clock = SimulationClock(fixed: FuzzClock.now)
        try await withSimulator(AdyenSimulator(clock: clock)) { handle in
            try await FuzzCorpus.record(.adyen, through: AsyncHTTPClientTransport(), baseURL: handle.baseURL)
        }
        let adyen = AdyenSimulator(clock: clock)
        try FuzzCorpus.webhook(
            "adyen", "token-created",
            adyen.signedWebhook(
                type: "balancePlatform.networkToken.created", token: AdyenSimulator.Seed.activeApplePayTokenID),
            header: "HmacSignature")
        try FuzzCorpus.webhook(
            "adyen", "token-updated",
            adyen.signedWebhook(
                type: "balancePlatform.networkToken.updated", token: AdyenSimulator.Seed.inactiveGooglePayTokenID,
                decision: "declined"), header: "HmacSignature")
    }
}
