import SharedTestSupport
import Testing

/// `OfficialClient.run`, which every test that starts a child process uses (official clients, spec conformance): it
/// spawns with swift-subprocess, not `Foundation.Process` (docs/RELIABILITY.md, "A crash in CI"), and keeps the
/// contract the checks rely on.
@Suite("Child processes of the tests", .timeLimit(.minutes(1)))
struct ChildProcessTests {
    @Test("the exit status, and standard output and error interleaved in the order written")
    func statusAndInterleavedOutput() async throws {
        let result = try await OfficialClient.run(["sh", "-c", "echo one; echo two >&2; echo three; exit 3"])
        #expect(result.status == 3)
        #expect(result.output == "one\ntwo\nthree\n")
    }

    @Test("a program that cannot be found is env's status 127 with its message, not a thrown error")
    func missingProgram() async throws {
        let result = try await OfficialClient.run(["cardgateway-no-such-program"])
        #expect(result.status == 127)
        #expect(result.output.contains("cardgateway-no-such-program"))
    }

    @Test("past the deadline the child is terminated (SIGTERM), and what it wrote before is kept")
    func deadlineTerminatesTheChild() async throws {
        // `exec`: the shell becomes `sleep`, so the signal reaches the process that would otherwise run for 10 minutes.
        let result = try await OfficialClient.run(["sh", "-c", "echo started; exec sleep 600"], timeout: .seconds(3))
        #expect(result.status == 15, "terminated by SIGTERM")
        #expect(result.output == "started\n")
    }
}
