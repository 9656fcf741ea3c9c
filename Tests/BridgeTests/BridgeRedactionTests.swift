import BridgeSimulator
import CardGateway
import CardGatewayBridge
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import Testing
import SharedTestSupport

@Suite("Bridge redaction", .timeLimit(.minutes(5)))
struct BridgeRedactionTests {
    typealias Seed = BridgeSimulator.Seed

    /// Every form in which a secret or card datum could leak.
    static func encodings(_ data: Data) -> [String] {
        [
            data.base64EncodedString(), ByteEncoding.hex(data), ByteEncoding.hex(data).uppercased(),
            ByteEncoding.base64URL(data),
        ]
    }

    @Test func noSecretOrCardDataInLogsOrErrors() async throws {
        let capture = LogCapture()
        let logger = capture.logger(level: .trace)
        let needles = try await BridgeLive.run(logger: logger) { handle, provider, simulator -> [String] in
            var needles: [String] = [Seed.apiKey, BridgeFixtures.googleDeviceID, BridgeFixtures.googleWalletAccountID]
            needles += Seed.cardAccounts.map(\.pan)
            for data in [
                BridgeFixtures.leafCertificate, BridgeFixtures.subordinateCertificate, BridgeFixtures.nonce,
                BridgeFixtures.nonceSignature,
            ] {
                needles += Self.encodings(data)
            }
            var described: [String] = []
            let context = OperationContext(logger: logger, requestID: "req-redaction")

            // Successful flows, both encodings on the wire.
            let apple = try await provider.provision(BridgeLive.appleRequest(), context: context)
            described += [String(describing: apple), String(reflecting: apple), "\(BridgeLive.appleRequest())"]
            let payload = try BridgeLive.applePayload(apple)
            for data in [payload.activationData, payload.encryptedPassData, payload.ephemeralPublicKey].map(
                \.revealedBytes)
            {
                needles += Self.encodings(data)
            }
            let google = try await provider.provision(
                ProvisioningRequest(
                    card: BridgeLive.ref(Seed.activeVisa), wallet: .googlePay, input: BridgeFixtures.googleInput),
                context: context
            )
            described += [String(describing: google), String(reflecting: google)]
            if let opc = google.googlePay {
                needles.append(String(decoding: opc.opaquePaymentCard.revealedBytes, as: UTF8.self))
            }
            _ = try await provider.card(BridgeLive.ref(Seed.activeVisa), context: context)
            _ = try await provider.freeze(
                card: BridgeLive.ref(Seed.activeMastercard), reason: .lostOrStolen, context: context)

            // Failures: a refused card, a retried fault, a bad key, a bad webhook.
            var errors: [CardGatewayError?] = []
            errors.append(
                await gatewayError {
                    _ = try await provider.provision(BridgeLive.appleRequest(Seed.pendingVisa), context: context)
                })
            handle.faults.inject(
                FaultRule(
                    count: 3, pathPrefix: "/v0/",
                    action: .status(500, retryAfterSeconds: nil, message: "leaf \(needles[4]) failed")))
            errors.append(
                await gatewayError { _ = try await provider.provision(BridgeLive.appleRequest(), context: context) })
            errors.append(
                await gatewayError {
                    _ = try await provider.provision(
                        ProvisioningRequest(
                            card: BridgeLive.ref(Seed.activeVisa), wallet: .applePay,
                            input: .applePay(
                                ApplePayProvisioningInput(
                                    certificates: [BridgeFixtures.leafCertificate], nonce: BridgeFixtures.nonce,
                                    nonceSignature: BridgeFixtures.nonceSignature
                                ))),
                        context: context
                    )
                })
            let delivery = try #require(try simulator.signedCardAccountWebhook(cardAccountID: Seed.activeMastercard))
            let signatureHeader = try #require(delivery.headers.first { $0.0 == "X-Webhook-Signature" }?.1)
            needles.append(String(signatureHeader.split(separator: "=", maxSplits: 2).last ?? ""))
            var fields = HTTPFields()
            fields[HTTPField.Name("X-Webhook-Signature")!] = signatureHeader
            var tampered = delivery.body
            tampered.append(0x20)
            errors.append(
                gatewayError {
                    _ = try provider.verify(
                        WebhookDelivery(headers: fields, body: tampered), now: simulator.simulationClock.now())
                })
            #expect(errors.count == 4)
            for error in errors {
                let error = try #require(error)
                described += [error.description, String(reflecting: error), error.message]
            }
            described.append(String(describing: provider))
            let leaked = needles.filter { needle in described.contains { $0.contains(needle) } }
            #expect(leaked.isEmpty, "leaked into descriptions: \(leaked.count) value(s)")
            return needles
        }
        #expect(!capture.all.isEmpty, "the flow logged something to check")
        #expect(capture.leaks(of: needles).isEmpty, "leaked into logs: \(capture.leaks(of: needles).count) value(s)")
    }
}
