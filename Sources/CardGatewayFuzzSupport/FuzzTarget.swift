import Foundation

/// One libFuzzer target: its name is the target's (`scripts/fuzz <name>`), the folder of its seed corpus
/// (`Fuzz/Corpus/<name>/`) and of its regressions (`Fuzz/Regressions/<name>/`). A room lists its own
/// (`FuzzTarget.<name>`, in `Providers/<Name>/Fuzz`); `FuzzTargets.all` lists the rooms.
public struct FuzzTarget: Sendable {
    public let name: String
    public let summary: String
    public let run: @Sendable (Data) -> Void
    /// The response harness behind a `<name>-responses` target (the fuzz regression tests' reach check goes through it).
    package let responses: ResponseHarness?

    package init(
        name: String, summary: String, responses: ResponseHarness? = nil, run: @escaping @Sendable (Data) -> Void
    ) {
        self.name = name
        self.summary = summary
        self.responses = responses
        self.run = run
    }

    /// `<name>-responses`: every operation's response decoding, success and error.
    package static func responses(_ harness: ResponseHarness) -> FuzzTarget {
        FuzzTarget(
            name: "\(harness.name)-responses",
            summary: "\(harness.name) adapter: every operation's response decoding, success and error",
            responses: harness, run: { harness.run($0) })
    }

    /// `<name>-webhooks`: webhook verification and parsing, signed and raw.
    package static func webhooks(_ harness: WebhookHarness) -> FuzzTarget {
        FuzzTarget(
            name: "\(harness.name)-webhooks",
            summary: "\(harness.name) webhook verification and parsing (signed and raw)", run: { harness.run($0) })
    }
}
