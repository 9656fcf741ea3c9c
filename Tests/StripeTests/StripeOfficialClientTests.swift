import CardGatewaySimulation
import Foundation
import Testing

@testable import StripeSimulator

/// Runs Providers/Stripe/Simulator/official-client-check.py (Stripe's own Python library) against the simulator.
/// It runs only with `CARDGATEWAY_OFFICIAL_CLIENTS=1` in the environment and the `stripe` package importable by
/// `python3`; otherwise it is cancelled (reported as skipped) with the reason.
@Suite("Stripe official client")
struct StripeOfficialClientTests {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Providers/Stripe/Simulator/official-client-check.py")

    /// Runs a process to completion, with a time limit.
    static func run(_ arguments: [String], timeout: Duration = .seconds(30)) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.waitUntilExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, output)
    }

    @Test func stripePythonWorksAgainstTheSimulator() async throws {
        guard ProcessInfo.processInfo.environment["CARDGATEWAY_OFFICIAL_CLIENTS"] == "1" else {
            try Test.cancel("skipped: set CARDGATEWAY_OFFICIAL_CLIENTS=1 to run stripe-python against the simulator")
        }
        guard let probe = try? await Self.run(["python3", "-c", "import stripe"], timeout: .seconds(10)), probe.status == 0 else {
            try Test.cancel("skipped: python3 cannot import the stripe package (pip install stripe)")
        }
        try await withSimulator(StripeSimulator()) { handle in
            let result = try await Self.run(["python3", Self.script.path, handle.baseURL.absoluteString])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("checks passed"))
        }
    }
}
