import CardGatewaySimulation
import Foundation
import Testing
import TrustPaymentsSimulator

/// Runs the official Python client (`pip install securetrading`) against the simulator through
/// `Providers/TrustPayments/Simulator/official-client-check.py`. Needs `CARDGATEWAY_OFFICIAL_CLIENTS=1`, `python3`
/// and the package; without the variable the test is skipped, with that reason recorded.
@Suite("Trust Payments official client")
struct OfficialClientTests {
    static let enabled = ProcessInfo.processInfo.environment["CARDGATEWAY_OFFICIAL_CLIENTS"] == "1"

    @Test(
        "the official securetrading client stores a card and charges it merchant-initiated against the simulator",
        .enabled(if: OfficialClientTests.enabled, "set CARDGATEWAY_OFFICIAL_CLIENTS=1 (with python3 and `pip install securetrading`) to run the official client check")
    )
    func pythonClient() async throws {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Providers/TrustPayments/Simulator/official-client-check.py")
        try #require(FileManager.default.fileExists(atPath: script.path), "missing \(script.path)")
        try await withSimulator(TrustPaymentsSimulator()) { handle in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script.path, "http://127.0.0.1:\(handle.port)"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            // Bounded: the check makes three requests to a local server.
            let deadline = ContinuousClock.now + .seconds(30)
            while process.isRunning && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 0, "official-client-check.py: \(text)")
            #expect(text.contains("ACCOUNTCHECK ok"))
            #expect(text.contains("AUTH (credentialsonfile 2, initiationreason C) ok"))
            let posts = handle.journal.entries(method: "POST", pathContains: "/json/")
            #expect(posts.count == 3)
            #expect(posts.first?.header("user-agent")?.hasPrefix("Python-") == true)
        }
    }
}
