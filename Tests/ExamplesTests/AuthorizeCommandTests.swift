import CardGateway
import CardGatewayAsyncHTTPClient
import ExampleSupport
import Foundation
import ProvisioningServerApp
import Testing

/// `cardgateway authorize`: the provider's embedded simulator sends its signed message to the given URL (here the
/// provisioning server over a gateway with the simulators' seed credentials) and the command prints the provider's
/// recorded outcome.
@Suite("cardgateway authorize", .timeLimit(.minutes(2)))
struct AuthorizeCommandTests {
    @Test(
        "sends a provider's simulated authorization to a URL and prints the provider's record",
        arguments: [
            "stripe", "adyen", "marqeta", "lithic",
        ])
    func sendsAndPrints(kind: String) async throws {
        guard EmbeddedSimulators.answersAuthorizations(kind) else { return }
        let instance = try #require(ProvisioningServerProviderAuthorizationTests.instances[kind])
        let currency = try #require(ProvisioningServerProviderAuthorizationTests.currencies[kind])
        try await EmbeddedSimulators().run { running in
            // Only the seed's credentials matter here: the command starts a simulator of its own with the same seed.
            let server = ProvisioningServer(
                gateway: try running.gateway(), directory: InMemoryCardDirectory(accounts: []))
            try await withLiveProvisioningServer(server) { port in
                let url = "http://127.0.0.1:\(port)/authorizations/\(instance)"
                let approved = await runCLI([
                    "authorize", "--provider", kind, "--url", url, "--amount", "1250", "--currency", currency,
                    "--mcc", "5411", "--country", "US",
                ])
                #expect(approved.exitCode == 0, "\(approved.stderr)")
                let record = try RecordedAuthorization(kind: kind, json: try approved.json())
                #expect(record.approved, "\(record.summary)")

                // The configuration's rule declines MCC 7995: the record says so. Another amount: each run starts a
                // fresh simulator whose ids are deterministic, so the same amount would be the same authorization to
                // the server's ledger, and get the recorded answer.
                let declined = await runCLI([
                    "authorize", "--provider", kind, "--url", url, "--amount", "1300", "--currency", currency,
                    "--mcc", "7995",
                ])
                #expect(declined.exitCode == 0, "\(declined.stderr)")
                #expect(try !RecordedAuthorization(kind: kind, json: try declined.json()).approved)
            }
        }
    }

    @Test("a simulator's refusal (an unknown card) is an error on stderr with exit 2")
    func unknownCard() async throws {
        guard EmbeddedSimulators.answersAuthorizations("stripe") else { return }
        let run = await runCLI([
            "authorize", "--provider", "stripe", "--url", "http://127.0.0.1:9/authorizations/us-issuing", "--amount",
            "100", "--card", "ic_NoSuchCard",
        ])
        #expect(run.exitCode == 2)
        #expect(try run.error()?["code"]?.stringValue == "invalidRequest")
        #expect(run.stdout.isEmpty)
    }

    @Test(
        "usage errors: an unknown provider, a bad MCC or country, plain http off loopback",
        arguments: [
            ["--provider", "paysafe", "--url", "http://127.0.0.1:9/a", "--amount", "100"],
            ["--provider", "stripe", "--url", "http://127.0.0.1:9/a", "--amount", "100", "--mcc", "54"],
            ["--provider", "stripe", "--url", "http://127.0.0.1:9/a", "--amount", "100", "--country", "USA"],
            ["--provider", "stripe", "--url", "http://decider.example/a", "--amount", "100"],
            ["--provider", "stripe", "--url", "http://127.0.0.1:9/a", "--amount", "0"],
        ])
    func usage(arguments: [String]) async {
        let run = await runCLI(["authorize"] + arguments)
        #expect(run.exitCode == 64, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }
}
