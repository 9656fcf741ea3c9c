import ArgumentParser
import CardGateway
import ExampleSupport
import Foundation

/// `cardgateway demo`: every capability of every provider against the embedded simulators.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run every capability of every provider, through the router, against embedded simulators.",
        discussion: """
            Starts the six provider simulators on loopback, loads the built-in configuration (one instance per \
            provider, routed by issuer, program and operation) and runs the card service, provisioning for each \
            wallet, stored credentials and webhook verification. Needs no credentials and no network. Prints a \
            table of steps (or JSON with --json) and exits 1 if any step failed.
            """
    )

    @Flag(help: "Print the report as JSON instead of a table.") var json: Bool = false
    @Flag(help: "Do not show progress on stderr.") var quiet: Bool = false

    func run() async throws {
        let showProgress = !quiet
        let report = try await Demo.run(progress: { name, result in
            guard showProgress else { return }
            if let result {
                CLIOutput.progress("  \(DemoTable.mark(result.status)) \(name)")
            } else {
                CLIOutput.progress("… \(name)")
            }
        })
        if json {
            try CLIOutput.json(report)
        } else {
            CLIOutput.line(DemoTable.render(report))
        }
        if !report.passed { throw ExitCode(1) }
    }
}

/// The demo report as a plain-text table: step, provider, outcome, time.
enum DemoTable {
    static func mark(_ status: DemoStepResult.Status) -> String {
        switch status {
        case .passed: return "ok  "
        case .failed: return "FAIL"
        case .skipped: return "n/a "
        }
    }

    static func render(_ report: DemoReport) -> String {
        let header = ["", "STEP", "PROVIDER", "OUTCOME", "TIME"]
        var rows = report.steps.map { step in
            [
                mark(step.status), step.name, step.instance, step.outcome,
                step.status == .skipped ? "-" : String(format: "%.1f ms", step.milliseconds),
            ]
        }
        rows.insert(header, at: 0)
        // Every column but the last is padded to its widest cell.
        let widths = (0..<header.count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        let passed = report.steps.filter { $0.status == .passed }.count
        let failed = report.failures.count
        let skipped = report.steps.filter { $0.status == .skipped }.count
        let total = report.steps.reduce(0) { $0 + $1.milliseconds }
        lines.append("")
        lines.append(
            "\(passed) passed, \(failed) failed, \(skipped) not applicable, in \(String(format: "%.0f", total)) ms"
                + (failed == 0 ? "" : ": see the FAIL rows"))
        return lines.joined(separator: "\n")
    }
}
