import CardGateway
import CardGatewayTesting
import Foundation
import SharedTestSupport
import Testing

@testable import CardGatewayMarqeta

@Suite("Marqeta redaction", .timeLimit(.minutes(5)))
struct MarqetaRedactionTests {
    @Test("tokens, webhook secrets, Apple data and payloads never reach logs, descriptions or errors")
    func nothingLeaks() async throws {
        try await MarqetaFixture.withHarness { h in
            let apple = ApplePayProvisioningInput(
                certificates: [Inputs.leafCertificate, Inputs.subordinateCertificate], nonce: Inputs.nonce,
                nonceSignature: Inputs.nonceSignature)
            let appleResponse = try await h.provider.provision(
                ProvisioningRequest(card: CardRef(id: Seed.activeCard), wallet: .applePay, input: .applePay(apple)),
                context: h.context)
            let googleResponse = try await h.provider.provision(
                ProvisioningRequest(
                    card: CardRef(id: Seed.activeCard), wallet: .samsungPay,
                    input: .samsungPay(
                        SamsungPayProvisioningInput(
                            deviceID: Inputs.samsungDeviceID, walletUserID: Inputs.samsungWalletUserID))
                ),
                context: h.context
            )
            let refused = await gatewayError {
                _ = try await h.provider.provision(
                    ProvisioningRequest(
                        card: CardRef(id: Seed.suspendedCard), wallet: .applePay, input: .applePay(apple)),
                    context: h.context)
            }
            guard let applePayload = appleResponse.applePay, let pushPayload = googleResponse.samsungPay else {
                Issue.record("unexpected responses")
                return
            }
            var needles = [
                Seed.accessToken, Seed.applicationToken, Seed.webhookSecret, Seed.webhookPassword,
                MarqetaHarness.expectedAuthorization,
                Data("\(Seed.applicationToken):\(Seed.accessToken)".utf8).base64EncodedString(),
            ]
            for bytes in [
                Inputs.leafCertificate, Inputs.subordinateCertificate, Inputs.nonce, Inputs.nonceSignature,
                applePayload.encryptedPassData.revealedBytes,
                applePayload.activationData.revealedBytes, applePayload.ephemeralPublicKey.revealedBytes,
            ] {
                needles.append(bytes.base64EncodedString())
            }
            needles.append(String(decoding: pushPayload.extraProvisionPayload.revealedBytes, as: UTF8.self))
            let texts = [
                h.capture.text, "\(appleResponse)", String(reflecting: appleResponse), "\(googleResponse)",
                "\(h.provider)", refused?.description ?? "",
                String(reflecting: apple),
            ]
            for text in texts {
                for needle in needles { #expect(!text.contains(needle), "leaked \(needle.prefix(6))…") }
            }
            #expect(h.capture.leaks(of: needles).isEmpty)
            #expect(!h.capture.all.isEmpty)
            // The journal masks the Basic header, the nonce and its signature, and the certificate chain (the shared
            // kit's table masks a `certificates` array whole).
            for entry in h.handle.journal.entries() {
                #expect(entry.header("authorization") == nil || entry.header("authorization") == "<masked>")
                for needle in needles { #expect(!entry.bodyText.contains(needle)) }
            }
        }
    }
}
