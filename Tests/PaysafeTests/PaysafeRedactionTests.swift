import CardGateway
import CardGatewayPaysafe
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import PaysafeSimulator
import Testing

@Suite("Paysafe redaction", .timeLimit(.minutes(5)))
struct PaysafeRedactionTests {
    /// The first access token a fresh simulator issues (its ids are deterministic), taken from a second fresh
    /// simulator so the test knows the value the adapter will hold.
    static func firstAccessToken() async throws -> String {
        try await withSimulator(PaysafeSimulator()) { handle in try await RawHTTP(handle: handle).accessToken() }
    }

    @Test("a full flow at trace level leaks no secret, card data, certificate, nonce or payload into logs or errors")
    func noLeaks() async throws {
        let accessToken = try await Self.firstAccessToken()
        let capture = LogCapture()
        let logger = capture.logger(level: .trace)
        var errorDescriptions: [String] = []
        var payloadNeedles: [String] = []

        let leaf = Data((0..<48).map { UInt8(($0 * 11 + 5) & 0xFF) })
        let subordinate = Data((0..<48).map { UInt8(($0 * 13 + 7) & 0xFF) })
        let nonce = Data([0xC0, 0xFF, 0xEE, 0x15, 0x60, 0x0D])
        let nonceSignature = Data((0..<24).map { UInt8(($0 * 17 + 3) & 0xFF) })
        let credentials = PaysafeSimulator.Credentials.default

        try await SimulatorHarness.run(logger: logger) { sim in
            let context = OperationContext(logger: logger, requestID: "req-redaction")
            func attempt(_ body: () async throws -> Void) async {
                do { try await body() } catch { errorDescriptions.append("\(error)") }
            }
            let eu = Seed.euCustomer
            await attempt {
                _ = try await sim.provider.createCard(
                    CreateCardRequest(
                        customer: eu, type: .virtual, program: Seed.virtualMCProgram, currency: "EUR",
                        pin: Secret("8531")), context: context)
            }
            await attempt {
                _ = try await sim.provider.createCard(
                    CreateCardRequest(
                        customer: eu, type: .virtual, program: Seed.virtualMCProgram, currency: "EUR",
                        pin: Secret("85319")), context: context)
            }
            await attempt {
                _ = try await sim.provider.activateCard(
                    ActivateCardRequest(
                        card: CardRef(id: Seed.digitalCardID, customer: eu), lastFour: Seed.digitalCardLastFour,
                        cvv: Secret("7391")), context: context)
            }
            await attempt {
                _ = try await sim.provider.activateCard(
                    ActivateCardRequest(
                        card: CardRef(id: Seed.digitalCardID, customer: eu), lastFour: Seed.digitalCardLastFour,
                        cvv: Secret("739")), context: context)
            }
            await attempt {
                let input = ApplePayProvisioningInput(
                    certificates: [leaf, subordinate], nonce: nonce, nonceSignature: nonceSignature)
                let response = try await sim.provider.provision(
                    ProvisioningRequest(
                        card: CardRef(id: Seed.activeCardID, customer: eu), wallet: .applePay, input: .applePay(input)),
                    context: context)
                if let payload = response.applePay {
                    payloadNeedles += [payload.encryptedPassData, payload.ephemeralPublicKey, payload.activationData]
                        .map { $0.revealedBytes.base64EncodedString() }
                    errorDescriptions.append("\(response)")
                }
            }
            await attempt {
                let response = try await sim.provider.provision(
                    ProvisioningRequest(
                        card: CardRef(id: Seed.activeCardID, customer: eu), wallet: .googlePay,
                        input: .googlePay(.init(clientDeviceID: "dev-1", clientWalletAccountID: "acct-1"))),
                    context: context
                )
                if let payload = response.googlePay {
                    payloadNeedles.append(String(decoding: payload.opaquePaymentCard.revealedBytes, as: UTF8.self))
                    errorDescriptions.append("\(response)")
                }
            }
            await attempt {
                _ = try await sim.provider.updateCard(
                    UpdateCardRequest(
                        card: CardRef(id: Seed.activeCardID, customer: eu), change: .status(.locked, reason: nil)),
                    context: context)
            }
            let scaRef = CardRef(id: Seed.scaActiveCardID, customer: Seed.scaCustomer)
            var challenge: SCAChallenge?
            await attempt {
                do { _ = try await sim.provider.secureDetailsAccess(for: scaRef, context: context) } catch let error
                    as CardGatewayError
                {
                    challenge = error.scaChallenge
                    throw error
                }
            }
            let solved = try #require(challenge)
            _ = try await sim.provider.submitSCAAttempt(
                eventID: solved.eventID, walletOperationID: solved.walletOperationID, method: "OTP", channel: "SMS",
                context: context)
            let access = try await sim.provider.secureDetailsAccess(
                for: scaRef, context: OperationContext(logger: logger, sca: solved.authorization))
            payloadNeedles.append(access.url.revealedValue)
            errorDescriptions.append("\(access)")
            await attempt {
                _ = try sim.provider.verify(
                    WebhookDelivery(headers: [HTTPField.Name("Signature")!: "00"], body: Data("{}".utf8)), now: Date())
            }
            sim.simulatorClock.advance(by: 1000)
            await attempt {
                _ = try await sim.provider.card(CardRef(id: "missing-card", customer: eu), context: context)
            }
        }

        #expect(!capture.all.isEmpty, "the flow logged at trace level")
        let scaHeader = Data(#"{"scaDetails":{"eventId":"x"}}"#.utf8).base64EncodedString()
        let needles =
            [
                credentials.clientSecret, credentials.webhookSecret, accessToken,
                Data("\(credentials.clientID):\(credentials.clientSecret)".utf8).base64EncodedString(),
                Self.hex(leaf), Self.hex(subordinate), Self.hex(nonce), Self.hex(nonceSignature),
                leaf.base64EncodedString(), nonce.base64EncodedString(), nonceSignature.base64EncodedString(),
                "8531", "85319", "7391", "\"cvv\"", "cvv=", "6402", "secureDetailsToken", scaHeader,
            ] + payloadNeedles
        #expect(capture.leaks(of: needles).isEmpty, "leaked into logs: \(capture.leaks(of: needles))")
        let errorText = errorDescriptions.joined(separator: "\n")
        #expect(!errorDescriptions.isEmpty)
        #expect(
            needles.filter { errorText.contains($0) }.isEmpty,
            "leaked into errors: \(needles.filter { errorText.contains($0) })")
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }
}
