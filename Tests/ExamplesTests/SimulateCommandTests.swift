import ArgumentParser
import AsyncHTTPClient
import CardGateway
import CardGatewayCLI
import ExampleSupport
import Foundation
import NIOFoundationCompat
import Synchronization
import Testing

/// `cardgateway simulate`: every registered simulator, one `<kind> <baseURL>` line each, then `ready`; stops when cancelled.
@Suite("cardgateway simulate", .timeLimit(.minutes(5)))
struct SimulateCommandTests {
    @Test("prints each simulator's base URL, then ready; the written configuration works with the other commands")
    func servesAndWritesConfiguration() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cardgateway-simulate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let configPath = directory.appendingPathComponent("sim.json").path

        let output = Mutex("")
        let streams = CLIStreams(
            stdout: { data in output.withLock { $0 += String(decoding: data, as: UTF8.self) } }, stderr: { _ in },
            stdin: { Data() }
        )
        let server = Task {
            await CLIStreams.$current.withValue(streams) {
                do {
                    var command = try CardGatewayCommand.parseAsRoot(["simulate", "--write-config", configPath])
                    if var asyncCommand = command as? any AsyncParsableCommand {
                        try await asyncCommand.run()
                    } else {
                        try command.run()
                    }
                } catch {}
            }
        }
        defer { server.cancel() }

        // Wait (bounded: 30 s) for "ready".
        var lines: [String] = []
        for _ in 0..<300 {
            lines = output.withLock { $0 }.split(separator: "\n").map(String.init)
            if lines.last == "ready" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        try #require(lines.last == "ready", "simulate printed: \(lines)")
        let entries = lines.dropLast().map { $0.split(separator: " ").map(String.init) }
        // One line per registered simulator, in the registration's order (EmbeddedSimulators.all).
        #expect(entries.map { $0.first ?? "" } == EmbeddedSimulators().all.map(\.kindName))
        #expect(
            Array(entries.map { $0.first ?? "" }.prefix(5)) == [
                "paysafe", "adyen", "stripe", "bridge", "trustpayments",
            ])
        let adyen = try #require(entries.first { $0.first == "adyen" }?.last)
        #expect(adyen.hasPrefix("http://127.0.0.1:") && adyen.hasSuffix("/bcl/v2"))

        // Each simulator answers its control path at its root.
        for entry in entries {
            let base = try #require(URL(string: entry[1]))
            var components = try #require(URLComponents(url: base, resolvingAgainstBaseURL: false))
            components.path = "/__simulator/info"
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: try #require(components.url).absoluteString), timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 64 * 1024)
            #expect(try JSONValue.parse(Data(buffer: body))["kind"]?.stringValue == entry[0])
        }

        let check = await runCLI(["config", "check", "--config", configPath])
        #expect(check.exitCode == 0, "\(check.stdout)")
        let card = await runCLI([
            "card", "get", "--config", configPath, "--issuer", "stripe-us", "ic_1SimActiveEligible000000",
        ])
        #expect(card.exitCode == 0, "\(card.stderr)")
        #expect(try card.json()["lastFour"]?.stringValue == "4242")

        server.cancel()
        _ = await server.result
    }

    @Test("a port range that does not fit is a usage error")
    func badPort() async {
        let run = await runCLI(["simulate", "--port", "65534"])
        #expect(run.exitCode == 64)
    }
}
