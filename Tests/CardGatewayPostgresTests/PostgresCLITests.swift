import ArgumentParser
import CardGateway
import CardGatewayCLI
import CardGatewayPostgres
import ExampleSupport
import Foundation
import Synchronization
import Testing

/// The `cardgateway` CLI with a `store` section naming PostgreSQL: each command is its own process in real life, so
/// only a shared ledger can recognise a repeated charge.
@Suite(
    "cardgateway CLI on a PostgreSQL store", .enabled(if: TestDatabase.enabled, TestDatabase.skipReason),
    .timeLimit(.minutes(5)))
struct PostgresCLITests {
    struct Run {
        var exitCode: Int32
        var stdout: String
        var stderr: String
    }

    func run(_ arguments: [String]) async -> Run {
        let out = Mutex(Data())
        let err = Mutex(Data())
        let streams = CLIStreams(
            stdout: { data in out.withLock { $0.append(data) } }, stderr: { data in err.withLock { $0.append(data) } },
            stdin: { Data() })
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
                return CardGatewayCommand.exitCode(for: error).rawValue
            }
        }
        return Run(
            exitCode: code, stdout: String(decoding: out.withLock { $0 }, as: UTF8.self),
            stderr: String(decoding: err.withLock { $0 }, as: UTF8.self))
    }

    @Test(
        "credentials charge with --idempotency-key: a repeat is replayed from the database, other parameters are refused"
    )
    func chargeTwice() async throws {
        let configuration = try TestDatabase.configuration()
        let password = try #require(configuration.password?.revealedValue)
        try await EmbeddedSimulators().run { running in
            try await PostgresStores.withStores(configuration) { stores in
                try await PostgresGatewayFixture.saveParent(stores)
            }
            // The configuration file names the database by an environment variable, as a deployment would.
            var document = try #require(
                try JSONSerialization.jsonObject(with: try running.configurationJSON()) as? [String: Any])
            document["store"] = ["kind": "postgres", "url": "env:CARDGATEWAY_TEST_DATABASE_URL", "timeoutSeconds": 10]
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "cardgateway-pg-\(UUID().uuidString).json")
            try JSONSerialization.data(withJSONObject: document).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let key = "cli-\(UUID().uuidString)"
            let arguments = [
                "credentials", "charge", PostgresGatewayFixture.parent, "--config", file.path, "--provider",
                PostgresGatewayFixture.trustPayments,
                "--currency", "GBP", "--reason", "unscheduled", "--idempotency-key", key,
            ]
            let first = await run(arguments + ["--amount", "1050"])
            let second = await run(arguments + ["--amount", "1050"])
            #expect(first.exitCode == 0, "\(first.stderr)")
            #expect(second.exitCode == 0, "\(second.stderr)")
            #expect(first.stdout == second.stdout, "the repeat prints the recorded charge")
            #expect(PostgresGatewayFixture.charges(running) == 1, "one charge reached Trust Payments")
            let other = await run(arguments + ["--amount", "2000"])
            #expect(other.exitCode == 2)
            #expect(other.stderr.contains("conflict"))
            #expect(PostgresGatewayFixture.charges(running) == 1)
            for output in [first, second, other] {
                #expect(!output.stdout.contains(password) && !output.stderr.contains(password))
            }
        }
    }
}
