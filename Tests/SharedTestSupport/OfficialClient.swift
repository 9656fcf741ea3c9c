import Foundation
import Subprocess
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
    public static func requireAvailable(module: String, sourceLocation: SourceLocation = #_sourceLocation) async throws
    {
        var reason: String?
        if !isEnabled {
            reason =
                "set CARDGATEWAY_OFFICIAL_CLIENTS=1 and CARDGATEWAY_PYTHON=$(scripts/official-clients-venv) to run the official \(module) client against the simulator"
        } else if let probe = try? await run([python, "-c", "import \(module)"], timeout: .seconds(30)),
            probe.status == 0
        {
            return
        } else {
            reason =
                "\(python) cannot import the official client `\(module)`: run scripts/official-clients-venv and set CARDGATEWAY_PYTHON to the path it prints"
        }
        if isCI {
            Issue.record("CI must run the official-client checks, but: \(reason ?? "")", sourceLocation: sourceLocation)
        }
        try Test.cancel("skipped: \(reason ?? "")", sourceLocation: sourceLocation)
    }

    /// Runs a process to completion within `timeout` and returns its exit status (the signal's number if a signal
    /// ended it) and its standard output and error, interleaved. At the deadline the process gets SIGTERM, then
    /// SIGKILL 5 s later if it is still there.
    ///
    /// Spawned with swift-subprocess, never `Foundation.Process`: on Linux, `Process.run()` of our toolchain's
    /// Foundation (Swift 6.3.1) can crash the whole test process (an over-read of `/proc/self/fd` entries,
    /// swift-corelibs-foundation PR #5472; docs/RELIABILITY.md, "A crash in CI").
    public static func run(
        _ arguments: [String], timeout: Duration = .seconds(60)
    ) async throws -> (status: Int32, output: String) {
        var options = PlatformOptions()
        // What cancelling the run does to the child: SIGTERM, then (always last) SIGKILL.
        options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: .seconds(5))]
        let platformOptions = options
        return try await withThrowingTaskGroup(of: (status: Int32, output: String)?.self) { group in
            group.addTask {
                // Both streams into one pipe (`2>&1`), drained while the process runs, so a chatty process never
                // blocks on a full pipe. The limit only bounds memory: a check prints a few kilobytes.
                let result = try await Subprocess.run(
                    .path("/usr/bin/env"), arguments: Arguments(arguments), platformOptions: platformOptions,
                    input: .none, output: .bytes(limit: outputLimit), error: .combinedWithOutput
                )
                return (status(result.terminationStatus), String(decoding: result.standardOutput, as: UTF8.self))
            }
            group.addTask {
                // The deadline: when it passes first, cancelling the group runs the teardown above, and the run
                // returns the signal's status and what the process wrote until then.
                try await Task.sleep(for: timeout)
                return nil
            }
            while let finished = try await group.next() {
                group.cancelAll()
                if let finished { return finished }
            }
            return (126, "the process was not run")
        }
    }

    /// The most output `run` keeps (more fails the run).
    static let outputLimit = 32 << 20

    /// A termination status as `Foundation.Process` gave it: the exit code, or the number of the signal.
    static func status(_ termination: TerminationStatus) -> Int32 {
        switch termination {
        case .exited(let code): code
        case .signaled(let signal): signal
        }
    }

    /// Runs `provider`'s check script with `arguments` (the simulator's base URL first) and returns its output.
    public static func check(
        _ provider: String, _ arguments: [String], timeout: Duration = .seconds(60), filePath: String = #filePath
    ) async throws -> (status: Int32, output: String) {
        let script = script(provider, filePath: filePath)
        guard FileManager.default.fileExists(atPath: script.path) else {
            return (127, "missing \(script.path)")
        }
        return try await run([python, script.path] + arguments, timeout: timeout)
    }
}
