import Foundation

/// Every fuzz target by name: the name is the libFuzzer target's (`scripts/fuzz <name>`), the folder of its
/// seed corpus (`Fuzz/Corpus/<name>/`) and of its regressions (`Fuzz/Regressions/<name>/`).
public enum FuzzTargets {
    public struct Target: Sendable {
        public let name: String
        public let summary: String
        public let run: @Sendable (Data) -> Void
    }

    public static let all: [Target] =
        ResponseHarness.all.map { harness in
            Target(
                name: "\(harness.name)-responses",
                summary: "\(harness.name) adapter: every operation's response decoding, success and error",
                run: { harness.run($0) })
        }
        + WebhookHarness.all.map { harness in
            Target(
                name: "\(harness.name)-webhooks",
                summary: "\(harness.name) webhook verification and parsing (signed and raw)", run: { harness.run($0) })
        }
        + [
            Target(
                name: "trustpayments-results",
                summary: "Trust Payments response JWT verification and parsing (verifyResult)",
                run: TrustPaymentsResultHarness.run),
            Target(
                name: "configuration", summary: "configuration loading, validation and every adapter's checks",
                run: ConfigurationHarness.run),
            Target(
                name: "internet-date-time",
                summary: "the RFC 3339 reader InternetDateTime: no trap; what it reads reads back from what it writes",
                run: InternetDateTimeHarness.run),
        ]

    public static func target(named name: String) -> Target? { all.first { $0.name == name } }
}
