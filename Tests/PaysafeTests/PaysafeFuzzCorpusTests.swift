import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayFuzzSupport
import CardGatewaySimulation
import Foundation
import PaysafeFuzz
import PaysafeSimulator
import Testing

/// Records the Paysafe room's seed corpus (`Fuzz/Corpus/paysafe-responses/`, `Fuzz/Corpus/paysafe-webhooks/`) from
/// its simulator on the harnesses' fixed clock. Off unless `CARDGATEWAY_RECORD_FUZZ_CORPUS=1` (``FuzzCorpus`` says
/// how).
@Suite("Paysafe fuzz corpus recorder", .enabled(if: FuzzCorpus.isRecording), .timeLimit(.minutes(5)))
struct PaysafeFuzzCorpusTests {
    @Test func record() async throws {
        let clock = SimulationClock(fixed: FuzzClock.now)
        try await withSimulator(PaysafeSimulator(clock: clock)) { handle in
            try await FuzzCorpus.record(.paysafe, through: AsyncHTTPClientTransport(), baseURL: handle.baseURL)
        }
        let paysafe = PaysafeSimulator(clock: clock)
        try FuzzCorpus.webhook(
            "paysafe", "status-locked",
            paysafe.signedWebhook(cardID: PaysafeSimulator.Seed.activeCardID, eventID: "evt-1"), header: "Signature")
        try FuzzCorpus.webhook(
            "paysafe", "status-new",
            paysafe.signedWebhook(
                cardID: PaysafeSimulator.Seed.issuedCardID, customerID: nil, oldStatus: nil, newStatus: "ACTIVE"),
            header: "Signature")
    }
}
