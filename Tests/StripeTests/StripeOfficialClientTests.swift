import CardGatewaySimulation
import Foundation
import SharedTestSupport
import Testing

@testable import StripeSimulator

/// Runs Providers/Stripe/Simulator/official-client-check.py (Stripe's own Python library, pinned in
/// scripts/official-clients-requirements.txt) against the simulator. See ``OfficialClient`` for when it runs.
@Suite("Stripe official client", .timeLimit(.minutes(5)))
struct StripeOfficialClientTests {
    @Test func stripePythonWorksAgainstTheSimulator() async throws {
        try await OfficialClient.requireAvailable(module: "stripe")
        try await withSimulator(StripeSimulator()) { handle in
            let result = try await OfficialClient.check("Stripe", [handle.baseURL.absoluteString])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("checks passed"))
            #expect(
                handle.journal.entries().contains {
                    $0.header("user-agent")?.contains("Stripe/v1 PythonBindings") == true
                })
        }
    }
}
