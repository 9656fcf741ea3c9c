import AdyenSimulator
import BridgeSimulator
import CardGateway
import CardGatewaySimulation
import ExampleSupport
import Foundation
import MarqetaSimulator
import StripeSimulator
import Testing

/// `cardgateway card reveal …`, run in-process against the embedded simulators: the JSON each command prints, and the
/// refusal of bad input before any request is sent.
@Suite("cardgateway card reveal", .timeLimit(.minutes(5)))
struct CardRevealCLITests {
    typealias Issuer = EmbeddedSimulators.Issuer

    @Test("offer: the flow, what the front end must bring, Adyen's public key, Stripe's API version")
    func offer() async throws {
        try await withSimulatorConfiguration { path, running in
            let adyen = await runCLI([
                "card", "reveal", "offer", AdyenSimulator.Seed.activeVisaID, "--purpose", "pin", "--config", path,
                "--issuer", Issuer.adyen,
            ])
            #expect(adyen.exitCode == 0, "\(adyen.stderr)")
            let json = try adyen.json()
            #expect(json["purpose"] == .string("pinReveal"))
            #expect(json["flow"] == .string("encryptedSessionKey"))
            #expect(json["requires"] == .array([.string("encryptedKey")]))
            #expect(json["provider"] == .string(EmbeddedSimulators.Instance.adyen))
            #expect(json["publicKey"]?["value"]?.stringValue?.isEmpty == false)
            #expect(json["publicKey"]?["format"]?.stringValue != nil)
            #expect(json["mayRequireSCA"] == .bool(false))
            #expect(
                try #require(running.handle("adyen")).journal.entries(method: "GET", pathContains: "/publicKey").count
                    == 1)

            let change = try await runCLI([
                "card", "reveal", "offer", AdyenSimulator.Seed.activeVisaID, "--purpose", "change-pin", "--config",
                path, "--issuer", Issuer.adyen,
            ]).json()
            #expect(
                change["requires"]
                    == .array([.string("encryptedKey"), .string("encryptedPINBlock"), .string("pinToken")]))

            let stripe = await runCLI([
                "card", "reveal", "offer", StripeSimulator.Seed.activeCardID, "--purpose", "details", "--config", path,
                "--issuer", Issuer.stripe,
            ])
            #expect(stripe.exitCode == 0, "\(stripe.stderr)")
            let stripeJSON = try stripe.json()
            #expect(stripeJSON["flow"] == .string("clientNonce"))
            #expect(stripeJSON["requires"] == .array([.string("clientNonce")]))
            #expect(stripeJSON["apiVersion"]?.stringValue?.isEmpty == false)
        }
    }

    @Test("details, pin and change-pin print the session's material for the front end; the app reads the card with it")
    func sessions() async throws {
        try await withSimulatorConfiguration { path, running in
            // Adyen: the test is the app, with its own AES key encrypted with the offer's public key.
            let offer = try await runCLI([
                "card", "reveal", "offer", AdyenSimulator.Seed.activeVisaID, "--purpose", "pin", "--config", path,
                "--issuer", Issuer.adyen,
            ]).json()
            let app = try AdyenSimulatorApp.session(
                publicKeyPEM: try #require(offer["publicKey"]?["value"]?.stringValue))
            let pin = await runCLI([
                "card", "reveal", "pin", AdyenSimulator.Seed.activeVisaID, "--encrypted-key", app.encryptedKey,
                "--config", path, "--issuer", Issuer.adyen,
            ])
            #expect(pin.exitCode == 0, "\(pin.stderr)")
            let session = try pin.json()
            #expect(session["purpose"] == .string("pinReveal"))
            #expect(session["flow"] == .string("encryptedSessionKey"))
            #expect(session["kind"] == .string("encryptedPINBlock"))
            let block = try #require(session["encryptedPINBlock"]?.stringValue.flatMap(ByteEncoding.decodeHex))
            let token = try #require(session["pinToken"]?.stringValue)
            #expect(
                try AdyenSimulatorPINBlock.decipher(block, token: token, key: app.key)
                    == AdyenSimulator.Seed.initialPIN(of: AdyenSimulator.Seed.activeVisaID))
            let request = try #require(
                running.handle("adyen")?.journal.entries(method: "POST", pathContains: "/pins/reveal").last)
            #expect(!request.bodyText.contains(app.encryptedKey), "the journal masks the encrypted key")

            // Stripe: the nonce the front end made, the key bound to it.
            let nonce = "ephkn_pub_cliTest" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
            let details = await runCLI([
                "card", "reveal", "details", StripeSimulator.Seed.activeCardID, "--nonce", nonce, "--config", path,
                "--issuer", Issuer.stripe,
            ])
            #expect(details.exitCode == 0, "\(details.stderr)")
            let key = try details.json()
            #expect(key["kind"] == .string("ephemeralKey"))
            #expect(key["ephemeralKeySecret"]?.stringValue?.hasPrefix("ek_") == true)
            #expect(key["ephemeralKeyID"]?.stringValue?.isEmpty == false)
            #expect(key["expires"]?.stringValue != nil)
            #expect(
                try #require(running.handle("stripe")).journal.entries(
                    method: "POST", pathContains: "/v1/ephemeral_keys"
                ).count == 1)

            // Marqeta: a client access token for Marqeta.js, nothing to supply.
            let marqeta = await runCLI([
                "card", "reveal", "details", MarqetaSimulator.Seed.activeCard, "--config", path, "--issuer",
                Issuer.marqeta,
            ])
            #expect(marqeta.exitCode == 0, "\(marqeta.stderr)")
            #expect(try marqeta.json()["kind"] == .string("clientAccessToken"))
            #expect(try marqeta.json()["clientAccessToken"]?.stringValue?.isEmpty == false)

            // Bridge: the PIN frame's single-use link.
            let bridge = await runCLI([
                "card", "reveal", "change-pin", BridgeSimulator.Seed.activeVisa, "--customer",
                BridgeSimulator.Seed.customerID, "--config", path, "--issuer", Issuer.bridge,
            ])
            #expect(bridge.exitCode == 0, "\(bridge.stderr)")
            #expect(try bridge.json()["kind"] == .string("secureLink"))
            #expect(try bridge.json()["secureLink"]?.stringValue?.hasPrefix("http") == true)
            CLITests.expectNoSecrets(details)
        }
    }

    @Test("missing, extra or unknown input: exit 64 naming the flag, and no request sent")
    func refusals() async throws {
        try await withSimulatorConfiguration { path, running in
            let adyenJournal = try #require(running.handle("adyen")).journal
            let stripeJournal = try #require(running.handle("stripe")).journal
            let adyenBefore = adyenJournal.count
            let stripeBefore = stripeJournal.count

            let noKey = await runCLI([
                "card", "reveal", "pin", AdyenSimulator.Seed.activeVisaID, "--config", path, "--issuer", Issuer.adyen,
            ])
            #expect(noKey.exitCode == 64)
            #expect(noKey.stderr.contains("--encrypted-key"), "\(noKey.stderr)")
            #expect(try noKey.error()?["code"] == .string("invalidRequest"))

            let partialChange = await runCLI([
                "card", "reveal", "change-pin", AdyenSimulator.Seed.activeVisaID, "--encrypted-key", "ABCD", "--config",
                path, "--issuer", Issuer.adyen,
            ])
            #expect(partialChange.exitCode == 64)
            #expect(
                partialChange.stderr.contains("--encrypted-pin-block") && partialChange.stderr.contains("--token"),
                "\(partialChange.stderr)")

            let wrongInput = await runCLI([
                "card", "reveal", "details", AdyenSimulator.Seed.activeVisaID, "--nonce", "n1", "--config", path,
                "--issuer", Issuer.adyen,
            ])
            #expect(wrongInput.exitCode == 64)
            #expect(
                wrongInput.stderr.contains("--nonce") && wrongInput.stderr.contains("--encrypted-key"),
                "\(wrongInput.stderr)")

            let noNonce = await runCLI([
                "card", "reveal", "details", StripeSimulator.Seed.activeCardID, "--config", path, "--issuer",
                Issuer.stripe,
            ])
            #expect(noNonce.exitCode == 64)
            #expect(noNonce.stderr.contains("--nonce"), "\(noNonce.stderr)")

            let emptyNonce = await runCLI([
                "card", "reveal", "details", StripeSimulator.Seed.activeCardID, "--nonce", "", "--config", path,
                "--issuer", Issuer.stripe,
            ])
            #expect(emptyNonce.exitCode == 64)

            let badPurpose = await runCLI([
                "card", "reveal", "offer", AdyenSimulator.Seed.activeVisaID, "--purpose", "showpan", "--config", path,
                "--issuer", Issuer.adyen,
            ])
            #expect(badPurpose.exitCode == 64)
            #expect(badPurpose.stderr.contains("--purpose"), "\(badPurpose.stderr)")

            // A purpose the provider does not declare: the gateway's unsupported, exit 2.
            let notOffered = await runCLI([
                "card", "reveal", "pin", MarqetaSimulator.Seed.activeCard, "--config", path, "--issuer", Issuer.marqeta,
            ])
            #expect(notOffered.exitCode == 2)
            #expect(try notOffered.error()?["code"] == .string("unsupported"))

            #expect(adyenJournal.count == adyenBefore, "\(adyenJournal.entries().suffix(3).map(\.path))")
            #expect(stripeJournal.count == stripeBefore)
            #expect(try #require(running.handle("marqeta")).journal.entries(pathContains: "clientaccesstoken").isEmpty)
        }
    }
}
