import CardGatewaySimulation
import Foundation
import SharedTestSupport
import Testing
import TrustPaymentsSimulator

/// Runs the official Python client (`securetrading`, pinned in scripts/official-clients-requirements.txt) against the
/// simulator through `Providers/TrustPayments/Simulator/official-client-check.py`. See ``OfficialClient`` for when it
/// runs.
@Suite("Trust Payments official client")
struct OfficialClientTests {
    @Test("the official securetrading client stores a card and charges it merchant-initiated against the simulator")
    func pythonClient() async throws {
        try await OfficialClient.requireAvailable(module: "securetrading")
        try await withSimulator(TrustPaymentsSimulator()) { handle in
            // Bounded: the check makes three requests to a local server.
            let result = try await OfficialClient.check("TrustPayments", ["http://127.0.0.1:\(handle.port)"], timeout: .seconds(30))
            #expect(result.status == 0, "official-client-check.py: \(result.output)")
            #expect(result.output.contains("ACCOUNTCHECK ok"))
            #expect(result.output.contains("AUTH (credentialsonfile 2, initiationreason C) ok"))
            let posts = handle.journal.entries(method: "POST", pathContains: "/json/")
            #expect(posts.count == 3)
            #expect(posts.first?.header("user-agent")?.hasPrefix("Python-") == true)
        }
    }
}
