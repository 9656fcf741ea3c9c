import CardGateway
import Foundation
import Hummingbird
import HummingbirdTesting
import Prometheus
import ProvisioningServerApp
import Testing

@Suite("provisioning-server metrics", .timeLimit(.minutes(5)))
struct ProvisioningServerMetricsTests {
    @Test("GET /metrics serves the gateway's metrics in Prometheus text, with sanitised names and no card id or token")
    func prometheusText() async throws {
        let registry = PrometheusCollectorRegistry()
        let factory = ProvisioningServer.prometheusFactory(registry: registry)
        let fixture = try Fixture(
            configuration: ProvisioningServer.Configuration(storedCredentialRoute: .instance("cof"), metrics: registry),
            observability: GatewayObservability(metrics: factory)
        )
        try await fixture.withClient { client in
            #expect(try await client.send(.get, "/v1/cards/\(Fixture.payloadCard)").status == 200)
            let reply = try await client.send(.get, "/metrics", token: nil)
            #expect(reply.status == 200)
            #expect(reply.contentType == "text/plain; version=0.0.4; charset=utf-8")
            let text = reply.text
            #expect(text.contains("# TYPE cardgateway_operations counter"), "\(text.prefix(400))")
            let line = text.split(separator: "\n").first {
                $0.hasPrefix("cardgateway_operations{") && $0.contains(#"operation="card""#)
            }
            #expect(line?.contains(#"provider_instance="payload""#) == true)
            #expect(line?.contains(#"outcome="success""#) == true)
            #expect(line?.hasSuffix(" 1") == true, "\(line ?? "no line")")
            #expect(
                text.contains(#"cardgateway_breaker_state{provider_kind="fake-payload",provider_instance="payload"} 0"#)
            )
            for secret in ["pc_1001", Fixture.aliceToken, "cust_alice"] { #expect(!text.contains(secret)) }
        }
    }

    @Test("without a registry /metrics answers 404 with a problem")
    func disabled() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let reply = try await client.send(.get, "/metrics", token: nil)
            #expect(reply.status == 404)
            #expect(reply.contentType == "application/problem+json")
        }
    }
}
