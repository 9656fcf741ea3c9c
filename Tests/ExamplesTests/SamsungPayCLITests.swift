import CardGateway
import ExampleSupport
import Foundation
import PaysafeSimulator
import Testing

/// `cardgateway provision samsung-pay`: the same options as `google-pay`, sent as the Samsung Pay wallet.
@Suite("cardgateway provision samsung-pay", .timeLimit(.minutes(5)))
struct SamsungPayCLITests {
    @Test(
        "parses like google-pay; a provider without Samsung Pay refuses it as unsupported, and its offer says walletNotSupported"
    )
    func unsupportedProvider() async throws {
        try await withSimulatorConfiguration { path, running in
            let before = running.handle("paysafe")?.journal.entries(method: "POST").count ?? 0
            let refused = await runCLI([
                "provision", "samsung-pay", "--config", path, "--issuer", "paysafe-eu", "--customer",
                PaysafeSimulator.Seed.euCustomer,
                "--device-id", "samsung-device-1", "--wallet-account-id", "samsung-account-1",
                PaysafeSimulator.Seed.activeCardID,
            ])
            #expect(refused.exitCode == 2, "\(refused.stdout) \(refused.stderr)")
            let error = try refused.error()
            #expect(error?["code"]?.stringValue == "unsupported")
            #expect((running.handle("paysafe")?.journal.entries(method: "POST").count ?? 0) == before)
            let offer = await runCLI([
                "provision", "offer", "--config", path, "--issuer", "paysafe-eu", "--customer",
                PaysafeSimulator.Seed.euCustomer, "--wallet", "samsung-pay",
                PaysafeSimulator.Seed.activeCardID,
            ])
            #expect(offer.exitCode == 0, "\(offer.stderr)")
            let answer = try offer.json()
            #expect(answer["eligible"] == .bool(false))
            #expect(answer["ineligibleReason"]?["code"]?.stringValue == "walletNotSupported")
            let missing = await runCLI([
                "provision", "samsung-pay", "--config", path, "--issuer", "paysafe-eu", "--device-id", "d",
                PaysafeSimulator.Seed.activeCardID,
            ])
            #expect(missing.exitCode != 0)
        }
    }
}
