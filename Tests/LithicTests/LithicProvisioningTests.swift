import CardGateway
import CardGatewaySimulation
import Crypto
import Foundation
import LithicSimulator
import SharedTestSupport
import Testing

@_spi(AdapterSupport) @testable import CardGatewayLithic

/// Push provisioning on the wire: one `POST /v1/cards/{card_token}/provision` per wallet, the document's field names,
/// and the three answers' shapes.
@Suite("Lithic provisioning", .timeLimit(.minutes(5)))
struct LithicProvisioningTests {
    typealias Inputs = LithicSimulator.Seed.TestInputs

    @Test("Apple Pay: digital_wallet, the leaf certificate, nonce and signature in Base64; the payload decoded")
    func applePay() async throws {
        try await LithicFixture.withHarness { h in
            let input = ApplePayProvisioningInput(
                certificates: [Inputs.leafCertificate, Inputs.subordinateCertificate], nonce: Inputs.nonce,
                nonceSignature: Inputs.nonceSignature)
            let response = try await h.provider.provision(
                ProvisioningRequest(card: CardRef(id: Seed.activeCard), wallet: .applePay, input: .applePay(input)),
                context: h.context)
            let payload = try #require(response.applePay)
            #expect(payload.activationData.count == 48 && payload.encryptedPassData.count == 96)
            #expect(payload.ephemeralPublicKey.count == 65)
            let entry = try #require(h.handle.journal.entries().last)
            #expect(entry.method == "POST" && entry.path == "/v1/cards/\(Seed.activeCard)/provision")
            #expect(h.json(entry)?["digital_wallet"]?.stringValue == "APPLE_PAY")
            let digests = [Inputs.leafCertificate, Inputs.nonce, Inputs.nonceSignature].map {
                SHA256.hash(data: $0).map { String(format: "%02x", $0) }.joined()
            }
            #expect(h.simulator.lastApplePayDigests == digests)
            #expect(!entry.bodyText.contains(Inputs.nonce.base64EncodedString()))
        }
    }

    @Test("Google Pay and Samsung Pay: client_device_id and client_wallet_account_id; the Base64 payload as it is")
    func googleAndSamsung() async throws {
        try await LithicFixture.withHarness { h in
            let google = try await h.provider.provision(
                ProvisioningRequest(
                    card: CardRef(id: Seed.activeCard), wallet: .googlePay,
                    input: .googlePay(
                        GooglePayProvisioningInput(
                            clientDeviceID: Inputs.googleDeviceID, clientWalletAccountID: Inputs.googleWalletAccountID))
                ),
                context: h.context)
            let opaque = try #require(google.googlePay?.opaquePaymentCard)
            let decoded = try #require(Data(base64Encoded: String(decoding: opaque.revealedBytes, as: UTF8.self)))
            #expect(
                (try JSONSerialization.jsonObject(with: decoded) as? [String: Any])?["wallet"] as? String
                    == "GOOGLE_PAY")
            let googleEntry = try #require(h.handle.journal.entries().last)
            let googleBody = try #require(h.json(googleEntry))
            #expect(googleBody["digital_wallet"]?.stringValue == "GOOGLE_PAY")
            #expect(googleBody["client_device_id"]?.stringValue == Inputs.googleDeviceID)
            #expect(googleBody["client_wallet_account_id"]?.stringValue == Inputs.googleWalletAccountID)
            let samsung = try await h.provider.provision(
                ProvisioningRequest(
                    card: CardRef(id: Seed.activeCard), wallet: .samsungPay,
                    input: .samsungPay(
                        SamsungPayProvisioningInput(
                            deviceID: Inputs.samsungDeviceID, walletUserID: Inputs.samsungWalletUserID))),
                context: h.context)
            #expect(samsung.samsungPay?.extraProvisionPayload.isEmpty == false)
            let samsungEntry = try #require(h.handle.journal.entries().last)
            let samsungBody = try #require(h.json(samsungEntry))
            #expect(samsungBody["digital_wallet"]?.stringValue == "SAMSUNG_PAY")
            #expect(samsungBody["client_wallet_account_id"]?.stringValue == Inputs.samsungWalletUserID)
        }
    }

    @Test("the offer: OPEN is eligible with its tokenizations; PAUSED is not; a paused card's provisioning is refused")
    func offers() async throws {
        try await LithicFixture.withHarness { h in
            let offer = try await h.provider.offer(
                for: CardRef(id: Seed.activeCard), wallet: .applePay, context: h.context)
            #expect(offer.eligible && offer.flow == .encryptedPayload && offer.lastFour == "4242")
            #expect(offer.existingTokens.map(\.id) == [Seed.activeCardToken])
            let paused = try await h.provider.offer(
                for: CardRef(id: Seed.pausedCard), wallet: .googlePay, context: h.context)
            #expect(!paused.eligible)
            let error = await gatewayError {
                _ = try await h.provider.provision(
                    ProvisioningRequest(
                        card: CardRef(id: Seed.pausedCard), wallet: .googlePay,
                        input: .googlePay(GooglePayProvisioningInput(clientDeviceID: "d", clientWalletAccountID: "w"))),
                    context: h.context)
            }
            #expect(error?.code == .invalidRequest && error?.httpStatus == 422)
        }
    }

    @Test("an answer without the wallet's payload shape is invalidResponse")
    func wrongShape() async throws {
        let (provider, _) = try LithicFixture.scripted([.json(200, #"{"provisioning_payload":"eyJhIjoxfQ=="}"#)])
        let error = await gatewayError {
            _ = try await provider.provision(
                ProvisioningRequest(
                    card: CardRef(id: Seed.activeCard), wallet: .applePay,
                    input: .applePay(
                        ApplePayProvisioningInput(
                            certificates: [Inputs.leafCertificate], nonce: Inputs.nonce,
                            nonceSignature: Inputs.nonceSignature))),
                context: OperationContext())
        }
        #expect(error?.code == .invalidResponse)
    }
}
