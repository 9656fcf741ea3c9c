@_spi(AdapterSupport) import CardGateway
import CardGatewayTesting
import Foundation
import Testing

@_spi(AdapterSupport) @testable import CardGatewayStripe
import SharedTestSupport

@Suite("Stripe redaction", .timeLimit(.minutes(5)))
struct StripeRedactionTests {
    @Test func secretsNeverReachLogsOrErrors() async throws {
        let capture = LogCapture()
        let logger = capture.logger(level: .trace)
        let transport = ScriptedTransport([
            .stripe(200, Fixture.card()), .stripe(200, Fixture.list([Fixture.token()])),
            .stripe(500, Fixture.error(type: "api_error", message: "failed for \(Fixture.ephemeralSecret)")),
            .stripe(200, Fixture.ephemeralKey()),
            .stripe(
                401,
                Fixture.error(type: "invalid_request_error", message: "Invalid API Key provided: \(Fixture.secretKey)")),
        ])
        let http = try ProviderHTTPClient(
            instance: "stripe-test", kind: .stripe, baseURL: Fixture.baseURL, transport: transport, logger: logger,
            clock: ManualClock(advancesOnSleep: true).gatewayClock()
        )
        let provider = try StripeProvider(
            configuration: StripeConfiguration(
                secretKey: Secret(Fixture.secretKey), webhookSecret: Secret(Fixture.webhookSecret)),
            http: http, environment: "sandbox", logger: logger
        )
        let context = OperationContext(logger: logger)
        let offer = try await provider.offer(for: Fixture.cardRef, wallet: .applePay, context: context)
        let response = try await provider.provision(
            ProvisioningRequest(
                card: Fixture.cardRef, wallet: .applePay, input: .issuerSDKKey(apiVersion: "2020-08-27")),
            context: context
        )
        let authError = await gatewayError { _ = try await provider.card(Fixture.cardRef, context: context) }
        let webhookError = gatewayError {
            var headers = WebhookDelivery(headers: [:], body: Data()).headers
            headers[StripeAPI.signatureHeader] = "t=1,v1=\(Fixture.webhookSecret)"
            _ = try provider.verify(WebhookDelivery(headers: headers, body: Data("{}".utf8)), now: Date())
        }

        let texts = [
            capture.text, "\(response)", String(describing: response), "\(offer)", authError?.description ?? "",
            webhookError?.description ?? "", "\(provider)", String(reflecting: response),
        ]
        let needles = [Fixture.secretKey, Fixture.ephemeralSecret, Fixture.webhookSecret, "Bearer "]
        for text in texts {
            for needle in needles {
                #expect(!text.contains(needle), "leaked \(needle.prefix(8))…")
            }
        }
        #expect(capture.leaks(of: needles).isEmpty)
        #expect(!capture.all.isEmpty)
        #expect(authError?.code == .authenticationFailed)
        #expect(capture.text.contains("ephkey_1G4V6eEEs6YsaMZ2P1diLWdj"))
    }
}
