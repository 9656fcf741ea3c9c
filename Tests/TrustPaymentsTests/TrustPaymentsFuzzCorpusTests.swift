import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayFuzzSupport
import CardGatewaySimulation
import CardGatewayTrustPayments
import Foundation
import TrustPaymentsFuzz
import TrustPaymentsSimulator
import Testing

/// Records the Trust Payments room's seed corpus (`Fuzz/Corpus/trustpayments-responses/`,
/// `Fuzz/Corpus/trustpayments-results/`) from its simulator on the harnesses' fixed clock: the charges' answers, and
/// result JWTs from a client session the simulated SDK paid. Off unless `CARDGATEWAY_RECORD_FUZZ_CORPUS=1`
/// (``FuzzCorpus`` says how). The two charges get a random `requestreference` whatever the recorder does: keep the
/// committed files of those unless the simulator's answer changed shape.
@Suite("Trust Payments fuzz corpus recorder", .enabled(if: FuzzCorpus.isRecording), .timeLimit(.minutes(5)))
struct TrustPaymentsFuzzCorpusTests {
    @Test func record() async throws {
        let clock = SimulationClock(fixed: FuzzClock.now)
        try await withSimulator(TrustPaymentsSimulator(clock: clock)) { handle in
            try await FuzzCorpus.record(.trustPayments, through: AsyncHTTPClientTransport(), baseURL: handle.baseURL)
        }
        // A Trust Payments result: a client session from the adapter, paid by the simulated SDK.
        let trustPayments = TrustPaymentsSimulator(clock: clock)
        try await withSimulator(trustPayments) { handle in
            let provider = try #require(
                try ResponseHarness.trustPayments.makeProvider(
                    transport: AsyncHTTPClientTransport(), baseURL: handle.baseURL) as? TrustPaymentsProvider)
            let session = try await provider.clientSession(
                ClientSessionRequest(
                    intent: .store(consent: CardholderConsent(recordedAt: FuzzClock.now, evidence: "fuzz terms v1")),
                    amount: Money(minorUnits: 1050, currency: "GBP")),
                context: OperationContext()
            )
            for (name, pan) in [("visa", "4111111111111111"), ("declined", "4000000000000002")] {
                guard
                    let token = try? await trustPayments.sdkPayment(
                        sessionJWT: session.token.revealedValue, pan: pan, expiryDate: "12/2034", securityCode: "123")
                else { continue }
                let parts = token.split(separator: ".")
                guard parts.count == 3, let claims = Self.base64URLDecode(String(parts[1])) else { continue }
                try FuzzCorpus.write(
                    TrustPaymentsResultHarness.seed(claims: claims), target: "trustpayments-results",
                    name: "result-\(name)")
                try FuzzCorpus.write(
                    Data([1]) + Data(token.utf8), target: "trustpayments-results", name: "result-\(name)-raw")
            }
        }
    }

    static func base64URLDecode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
