import CardGatewayAsyncHTTPClient
import Foundation
import HTTPTypes
import Testing

/// The built `provisioning-server` with its Swift tasks on NIO's event loops (`--tasks-on event-loops`, its default:
/// issue 49) and on Swift's own pool: each serves the same answers, many at once, and stops cleanly on SIGTERM.
/// Runs the executable (`ServerProcess`, beside the trace-export tests), since the choice is made in its `main`.
@Suite("provisioning-server: where its Swift tasks run", .serialized, .timeLimit(.minutes(5)))
struct ProvisioningServerTaskThreadsTests {
    static let aliceToken = "demo-token-alice-7f3a9c51"

    @Test(
        "with its tasks on the event loops (the default) or on Swift's pool: 48 card reads at once all answer the card, an unknown card 404, and SIGTERM ends it with 0",
        arguments: [nil, "event-loops", "swift-pool"])
    func servesOnEitherThreads(_ tasksOn: String?) async throws {
        let executable = try ProvisioningServerTraceExportTests.executable()
        // The per-user and per-address limits off: 49 calls in a second are not what this test is about.
        let extra =
            ["--log-level", "notice", "--rate-limit-per-user", "0", "--rate-limit-per-address", "0"]
            + (tasksOn.map { ["--tasks-on", $0] } ?? [])
        let server = try ServerProcess(executable: executable, environment: [:], arguments: extra)
        defer { server.kill() }
        let port = try await server.waitForPort()
        // The place the server says it put its tasks is the one asked for (event loops by default).
        let expected =
            tasksOn == "swift-pool" ? "Swift tasks run on Swift's pool" : "Swift tasks run on NIO's event loops"
        #expect(server.stderr.contains(expected), "\(server.stderr)")

        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for _ in 0..<48 {
                group.addTask { try await Self.get("/v1/cards/everyday", port: port) }
            }
            var all: [(Int, String)] = []
            for try await answer in group { all.append(answer) }
            return all
        }
        #expect(answers.count == 48)
        #expect(answers.allSatisfy { $0.0 == 200 }, "\(answers.map(\.0))")
        // The app's alias for the card, in every answer (and the same answer each time).
        #expect(answers.allSatisfy { $0.1.contains(#""id":"everyday""#) }, "\(answers.first?.1 ?? "")")
        #expect(Set(answers.map(\.1)).count == 1)
        let (missing, problem) = try await Self.get("/v1/cards/no-such-card", port: port)
        #expect(missing == 404)
        #expect(problem.contains("application/problem+json") || problem.contains(#""status":404"#), "\(problem)")

        #expect(try await server.terminate() == 0, "\(server.stderr)")
    }

    @Test("--tasks-on takes event-loops or swift-pool; anything else is refused before the server starts")
    func refusesAnUnknownPlace() async throws {
        let executable = try ProvisioningServerTraceExportTests.executable()
        let server = try ServerProcess(executable: executable, environment: [:], arguments: ["--tasks-on", "threads"])
        defer { server.kill() }
        let error = await #expect(throws: TraceExportTestError.self) { try await server.waitForPort() }
        #expect(error?.description.contains("--tasks-on") == true, "\(error?.description ?? "")")
        #expect(!server.stdout.contains("listening on"))
    }

    /// GET `path` as Alice: the status and the body.
    static func get(_ path: String, port: Int) async throws -> (Int, String) {
        var fields = HTTPFields()
        fields[.authorization] = "Bearer \(aliceToken)"
        let request = HTTPRequest(
            method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: path, headerFields: fields)
        let answer = try await AsyncHTTPClientTransport().send(request, body: nil, timeout: .seconds(20))
        return (answer.response.status.code, String(decoding: answer.body, as: UTF8.self))
    }
}
