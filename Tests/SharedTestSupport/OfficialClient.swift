import Foundation
import Testing

/// Runs a provider's official client library (Python) against a simulator: the check scripts live at
/// `Providers/<Name>/Simulator/official-client-check.py` and the libraries, pinned, in
/// `scripts/official-clients-requirements.txt`.
///
/// They run when `CARDGATEWAY_OFFICIAL_CLIENTS=1`, with the interpreter named by `CARDGATEWAY_PYTHON` (default
/// `python3`); `scripts/official-clients-venv` makes one that has the libraries, and `.ci/run` sets both. Without the
/// variable a developer's run skips them with that reason; in CI (`CI=true`) they fail instead, so a check that
/// cannot run is never mistaken for a check that passed.
public enum OfficialClient {
    public static var isEnabled: Bool { ProcessInfo.processInfo.environment["CARDGATEWAY_OFFICIAL_CLIENTS"] == "1" }
    public static var python: String { ProcessInfo.processInfo.environment["CARDGATEWAY_PYTHON"] ?? "python3" }
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The check script of `provider` (its room's folder name, e.g. `Stripe`).
    public static func script(_ provider: String, filePath: String = #filePath) -> URL {
        URL(fileURLWithPath: filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Providers/\(provider)/Simulator/official-client-check.py")
    }

    /// Returns when the checks can run with `module` importable. Otherwise it skips the test with the reason (a
    /// developer's run) or records a failure and skips (CI), so a check that cannot run is visible either way.
    public static func requireAvailable(module: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var reason: String?
        if !isEnabled {
            reason = "set CARDGATEWAY_OFFICIAL_CLIENTS=1 and CARDGATEWAY_PYTHON=$(scripts/official-clients-venv) to run the official \(module) client against the simulator"
        } else if let probe = try? await run([python, "-c", "import \(module)"], timeout: .seconds(30)), probe.status == 0 {
            return
        } else {
            reason = "\(python) cannot import the official client `\(module)`: run scripts/official-clients-venv and set CARDGATEWAY_PYTHON to the path it prints"
        }
        if isCI {
            Issue.record("CI must run the official-client checks, but: \(reason ?? "")", sourceLocation: sourceLocation)
        }
        try Test.cancel("skipped: \(reason ?? "")", sourceLocation: sourceLocation)
    }

    /// Runs a process to completion within `timeout` (then terminates it) and returns its exit status and its
    /// standard output and error, interleaved.
    public static func run(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("official-client-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else { return (126, "cannot create \(output.path)") }
        defer { try? FileManager.default.removeItem(at: output) }
        // A file, not a pipe: a chatty process never blocks on a full pipe while it is being waited for.
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: output), as: UTF8.self))
    }

    /// Runs `provider`'s check script with `arguments` (the simulator's base URL first) and returns its output.
    public static func check(_ provider: String, _ arguments: [String], timeout: Duration = .seconds(60), filePath: String = #filePath) async throws -> (status: Int32, output: String) {
        let script = script(provider, filePath: filePath)
        guard FileManager.default.fileExists(atPath: script.path) else {
            return (127, "missing \(script.path)")
        }
        return try await run([python, script.path] + arguments, timeout: timeout)
    }
}
