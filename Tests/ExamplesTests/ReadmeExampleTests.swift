import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayStripe
import CardGatewayTrustPayments
import Foundation
import Logging
import StripeSimulator
import Testing

/// The README's library example, run against the Stripe simulator: if the README's code stops compiling or
/// working, this fails.
@Suite("README library example", .timeLimit(.minutes(5)))
struct ReadmeExampleTests {
    struct NotEligible: Error { var code: String? }

    @Test("register, load the configuration file, offer, provision an ephemeral key with the app's request id")
    func libraryExample() async throws {
        try await withSimulator(StripeSimulator()) { handle in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "cardgateway-readme-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try Data("\(StripeSimulator.Credentials.default.testSecretKey)\n".utf8).write(
                to: directory.appendingPathComponent("stripe-key"))
            let file = directory.appendingPathComponent("gateway.json")
            try Data(
                """
                {"providers": {"us-issuing": {"kind": "stripe", "environment": "sandbox", "baseURL": "\(handle.baseURL.absoluteString)",
                                              "credentials": {"secretKey": "file:stripe-key"}}},
                 "routes": [{"when": {"issuer": "stripe-us"}, "use": "us-issuing"}]}
                """.utf8
            ).write(to: file)
            let appRequestID = "app-request-7c1e"

            // As in the README:
            var registry = ProviderRegistry()
            registry.register(.stripe)
            registry.register(.trustpayments)
            let configuration = try GatewayConfiguration.load(contentsOf: file, registry: registry)
            let gateway = try CardGateway(
                configuration: configuration, registry: registry, logger: Logger(label: "wallets"))

            let card = CardRef(id: "ic_1SimActiveEligible000000")
            let route = RouteTarget.key(RouteKey(issuer: "stripe-us"))
            let offer = try await gateway.provisioningOffer(for: card, wallet: .applePay, via: route)
            guard offer.eligible else { throw NotEligible(code: offer.ineligibleReason?.code) }

            let response = try await gateway.provision(
                ProvisioningRequest(card: card, wallet: .applePay, input: .issuerSDKKey(apiVersion: "2020-08-27")),
                via: route, context: OperationContext(idempotencyKey: appRequestID)
            )
            guard let key = response.ephemeralKey else {
                Issue.record("expected an ephemeral key, got \(response)")
                return
            }
            let json = try JSONValue.parse(key.rawJSON.revealedBytes)
            #expect(json["object"]?.stringValue == "ephemeral_key")
            #expect(json["associated_objects"]?.arrayValue?.first?["id"]?.stringValue == card.id)

            // The same request id again is replayed by Stripe, not done twice: the same key comes back.
            let again = try await gateway.provision(
                ProvisioningRequest(card: card, wallet: .applePay, input: .issuerSDKKey(apiVersion: "2020-08-27")),
                via: route, context: OperationContext(idempotencyKey: appRequestID)
            )
            guard let replayed = again.ephemeralKey else {
                Issue.record("expected an ephemeral key")
                return
            }
            #expect(replayed.id == key.id)
            let posts = handle.journal.entries(method: "POST", pathContains: "/v1/ephemeral_keys")
            #expect(posts.count == 2)
            #expect(posts[0].header("Idempotency-Key") == posts[1].header("Idempotency-Key"))
            #expect(posts[0].header("Stripe-Version") == "2020-08-27")
        }
    }
}
