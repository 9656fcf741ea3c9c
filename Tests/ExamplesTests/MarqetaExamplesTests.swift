import CardGateway
import CardGatewaySimulation
import ExampleSupport
import Foundation
import MarqetaSimulator
import Testing

/// Marqeta cards through the example programs like any other provider's: the CLI provisions one to Samsung Pay,
/// Google Pay and Apple Pay against the embedded simulator, and the lifecycle commands reach its transitions.
@Suite("Marqeta in the examples", .timeLimit(.minutes(5)))
struct MarqetaExamplesTests {
    typealias Seed = MarqetaSimulator.Seed
    typealias Inputs = MarqetaSimulator.TestInputs

    @Test(
        "cardgateway provision samsung-pay routes issuer marqeta to POST /v3/digitalwalletprovisionrequests/samsungpay")
    func samsungPayThroughTheCLI() async throws {
        try await withSimulatorConfiguration { path, running in
            let offer = await runCLI([
                "provision", "offer", "--config", path, "--issuer", "marqeta", "--wallet", "samsung-pay",
                Seed.activeCard,
            ])
            #expect(offer.exitCode == 0, "\(offer.stderr)")
            #expect(try offer.json()["eligible"] == .bool(true))
            #expect(try offer.json()["flow"]?.stringValue == "encryptedPayload")

            let samsung = await runCLI([
                "provision", "samsung-pay", "--config", path, "--issuer", "marqeta", "--device-id",
                Inputs.samsungDeviceID,
                "--wallet-user-id", Inputs.samsungWalletUserID, "--device-type", "watch", "--app-version",
                "bank-app 3.0", Seed.activeCard,
            ])
            #expect(samsung.exitCode == 0, "\(samsung.stderr)")
            // What Samsung's SDK needs, printed: the extra provision payload (Base64 of Marqeta's bytes), network, card type
            // and token service provider.
            let printed = try samsung.json()
            #expect(printed["type"]?.stringValue == "samsungPay")
            #expect(printed["extraProvisionPayload"]?.stringValue.flatMap { Data(base64Encoded: $0) }?.isEmpty == false)
            #expect(printed["cardType"]?.stringValue?.isEmpty == false)
            #expect(printed["tokenProvider"]?.stringValue?.isEmpty == false)
            #expect(printed["network"] != nil)
            #expect(printed["opaquePaymentCard"] == nil)
            let journal = try #require(running.handle("marqeta")?.journal)
            let post = try #require(journal.entries(method: "POST", pathContains: "samsungpay").last)
            #expect(post.path == "/v3/digitalwalletprovisionrequests/samsungpay")
            let body = try JSONValue.parse(post.body)
            #expect(body["card_token"]?.stringValue == Seed.activeCard)
            #expect(body["device_id"]?.stringValue == Inputs.samsungDeviceID)
            #expect(body["wallet_user_id"]?.stringValue == Inputs.samsungWalletUserID)
            #expect(body["provisioning_app_version"]?.stringValue == "bank-app 3.0")
            #expect(body["device_type"]?.stringValue == "WATCH")
            #expect(post.header("authorization") == JournalEntry.maskedValue)

            let google = await runCLI([
                "provision", "google-pay", "--config", path, "--issuer", "marqeta", "--device-id",
                Inputs.googleDeviceID,
                "--wallet-account-id", Inputs.googleWalletAccountID, Seed.activeCard,
            ])
            #expect(google.exitCode == 0, "\(google.stderr)")
            #expect(journal.entries(method: "POST", pathContains: "androidpay").count == 1)

            let refused = await runCLI([
                "provision", "samsung-pay", "--config", path, "--issuer", "marqeta", "--device-id",
                Inputs.samsungDeviceID,
                "--wallet-account-id", Inputs.samsungWalletUserID, Seed.suspendedCard,
            ])
            #expect(refused.exitCode == 2)
            #expect(try refused.error()?["code"]?.stringValue == "invalidRequest")
        }
    }

    @Test("card get and the configuration check know the Marqeta instance")
    func cardAndConfiguration() async throws {
        try await withSimulatorConfiguration { path, _ in
            let check = await runCLI(["config", "check", "--config", path])
            #expect(check.exitCode == 0, "\(check.stdout)")
            let card = await runCLI(["card", "get", "--config", path, "--issuer", "marqeta", Seed.activeCard])
            #expect(card.exitCode == 0, "\(card.stderr)")
            let json = try card.json()
            #expect(json["lastFour"]?.stringValue == "4242")
            #expect(json["status"]?.stringValue == "active")
        }
    }
}
