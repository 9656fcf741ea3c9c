import ArgumentParser
import CardGateway
@testable import CardGatewayCLI
import ExampleSupport
import Foundation
import Synchronization

/// What one in-process `cardgateway` run printed, and how it exited.
struct CLIRun: Sendable {
    var exitCode: Int32
    var stdout: String
    var stderr: String

    /// stdout as JSON.
    func json() throws -> JSONValue { try JSONValue.parse(Data(stdout.utf8)) }
    /// The JSON error object on stderr.
    func error() throws -> JSONValue? { try JSONValue.parse(Data(stderr.utf8))["error"] }
}

/// Runs `cardgateway` with `arguments` in this process, capturing its streams the way the shell would see them.
func runCLI(_ arguments: [String], stdin: String = "") async -> CLIRun {
    let out = Mutex(Data())
    let err = Mutex(Data())
    let input = Data(stdin.utf8)
    let streams = CLIStreams(
        stdout: { data in out.withLock { $0.append(data) } },
        stderr: { data in err.withLock { $0.append(data) } },
        stdin: { input }
    )
    let code: Int32 = await CLIStreams.$current.withValue(streams) {
        do {
            var command = try CardGatewayCommand.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch {
            let code = CardGatewayCommand.exitCode(for: error).rawValue
            let message = CardGatewayCommand.message(for: error)
            if !message.isEmpty { streams.stderr(Data((message + "\n").utf8)) }
            return code
        }
    }
    return CLIRun(
        exitCode: code, stdout: String(decoding: out.withLock { $0 }, as: UTF8.self),
        stderr: String(decoding: err.withLock { $0 }, as: UTF8.self)
    )
}

/// Runs `body` with the embedded simulators listening and their configuration written to a temporary file.
func withSimulatorConfiguration<R: Sendable>(
    _ body: (_ configPath: String, _ running: RunningSimulators) async throws -> R
) async throws -> R {
    try await EmbeddedSimulators().run { running in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cardgateway-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("gateway.json")
        try running.configurationJSON().write(to: file)
        return try await body(file.path, running)
    }
}
