@_spi(AdapterSupport) import CardGateway
import CardGatewaySimulation
import Foundation
import InMemoryTracing
import Tracing

/// A contract run whose adapter recorded telemetry: the report, with one more scenario that scans every span, and
/// the spans themselves.
public struct ContractTelemetryReport: Sendable {
    /// The name of the scenario that scans the spans.
    public static let scenarioName = "redaction: span names, attributes, events and errors"

    /// Every scenario of ``ContractSuite/run(_:timeout:)``, then ``scenarioName``.
    public var report: ContractReport
    /// Every span the adapter's HTTP client finished during the run (one client span per attempt).
    public var spans: [FinishedInMemorySpan]
    /// How many sensitive values the spans were scanned for.
    public var needleCount: Int
}

extension ContractSuite {
    /// Runs every scenario with the adapter's ``ProviderHTTPClient`` recording its attempt spans (the same
    /// middleware a ``CardGateway`` puts on it) into an `InMemoryTracer`, then scans every span name, attribute
    /// value, event, recorded error and status message for the values the suite knows to be sensitive: the
    /// subject's credentials and `sensitiveValues`, what the run derived (provisioning payloads, SDK tokens and
    /// results, in base64, hex and text), card ids and customers from the fixtures, and a CVV next to its name.
    ///
    /// ```swift
    /// @Test func contractTelemetry() async {
    ///     let run = await ContractSuite.runRecordingSpans(MyContract.subject)
    ///     #expect(run.report.passed, "\(run.report)")
    ///     #expect(!run.spans.isEmpty)
    /// }
    /// ```
    public static func runRecordingSpans(
        _ subject: ContractSubject, timeout: Duration = .milliseconds(800)
    ) async -> ContractTelemetryReport {
        let tracer = InMemoryTracer()
        do {
            return try await withSimulator(subject.simulator) { handle in
                let run = ContractRun(
                    subject: subject, handle: handle, timeout: timeout,
                    observability: GatewayObservability(tracer: tracer))
                var report = await run.run()
                let spans = tracer.finishedSpans
                let needles = run.spanNeedles()
                let checks = ScenarioChecks()
                checks.expect(!spans.isEmpty, "the adapter's HTTP client recorded no span")
                for leak in ContractTelemetry.leaks(in: spans, of: needles) {
                    checks.fail("a span carries sensitive value \(run.mask(leak.needle)) in \(leak.place)")
                }
                let texts = spans.flatMap(ContractTelemetry.texts(of:))
                for (label, value) in run.labelledNeedles.withLock({ $0 }) {
                    for text in texts where ContractRun.mentions(text, label: label, value: value) {
                        checks.fail(
                            "a span carries the \(label) next to its name: \(run.mask(String(text.prefix(40))))")
                    }
                }
                report.scenarios.append(
                    .init(
                        name: ContractTelemetryReport.scenarioName,
                        outcome: checks.failures.isEmpty ? .passed : .failed(checks.failures)))
                return ContractTelemetryReport(report: report, spans: spans, needleCount: needles.count)
            }
        } catch {
            let report = ContractReport(
                subject: subject.name,
                scenarios: [.init(name: "start simulator", outcome: .failed(["the simulator did not start: \(error)"]))]
            )
            return ContractTelemetryReport(report: report, spans: tracer.finishedSpans, needleCount: 0)
        }
    }
}

/// Scanning recorded spans for sensitive values.
public enum ContractTelemetry: Sendable {
    /// A sensitive value found in a span.
    public struct Leak: Sendable, Equatable {
        /// The value found.
        public var needle: String
        /// Where: the span's name and the part of it (`name`, `attribute KEY`, `event NAME`, `error`, `status`).
        public var place: String
    }

    /// Every sensitive value of `needles` (4 characters or more; shorter ones match too much) that appears in a
    /// span's name, an attribute's value or key, an event, a recorded error or the status message.
    public static func leaks(in spans: [FinishedInMemorySpan], of needles: [String]) -> [Leak] {
        let needles = Set(needles.filter { $0.count >= 4 })
        var leaks: [Leak] = []
        for span in spans {
            for (place, text) in placedTexts(of: span) {
                for needle in needles where text.contains(needle) {
                    leaks.append(Leak(needle: needle, place: "span \"\(span.operationName)\" \(place)"))
                }
            }
        }
        return leaks
    }

    /// Every text a span carries: its name, each attribute as `key=value`, each event's name and attributes, each
    /// recorded error (described and reflected) with its attributes, and its status message.
    public static func texts(of span: FinishedInMemorySpan) -> [String] { placedTexts(of: span).map(\.text) }

    static func placedTexts(of span: FinishedInMemorySpan) -> [(place: String, text: String)] {
        var texts: [(place: String, text: String)] = [("name", span.operationName)]
        func add(_ attributes: SpanAttributes, _ place: String) {
            attributes.forEach { key, value in texts.append(("\(place)attribute \(key)", "\(key)=\(text(of: value))")) }
        }
        add(span.attributes, "")
        for event in span.events {
            texts.append(("event \(event.name)", event.name))
            add(event.attributes, "event \(event.name) ")
        }
        for recorded in span.errors {
            texts.append(("error", String(describing: recorded.error)))
            texts.append(("error", String(reflecting: recorded.error)))
            add(recorded.attributes, "error ")
        }
        for link in span.links { add(link.attributes, "link ") }
        if let message = span.status?.message { texts.append(("status", message)) }
        return texts
    }

    /// An attribute's value as plain text (the raw string, never an escaped debug form).
    static func text(of value: SpanAttribute) -> String {
        switch value {
        case .int32(let value): "\(value)"
        case .int64(let value): "\(value)"
        case .int32Array(let values): values.map { "\($0)" }.joined(separator: ",")
        case .int64Array(let values): values.map { "\($0)" }.joined(separator: ",")
        case .double(let value): "\(value)"
        case .doubleArray(let values): values.map { "\($0)" }.joined(separator: ",")
        case .bool(let value): "\(value)"
        case .boolArray(let values): values.map { "\($0)" }.joined(separator: ",")
        case .string(let value): value
        case .stringArray(let values): values.joined(separator: ",")
        case .stringConvertible(let value): value.description
        case .stringConvertibleArray(let values): values.map(\.description).joined(separator: ",")
        default: "\(value)"
        }
    }
}

extension ContractRun {
    /// What no span may carry: what the redaction scenario checks logs for, and the fixtures' card ids and
    /// customers (a span is named after the adapter's operation, never after the path that holds them).
    func spanNeedles() -> [String] {
        var needles =
            subject.credentials.values.map(\.revealedValue) + subject.sensitiveValues + derivedNeedles.withLock { $0 }
        let fixtures = subject.fixtures
        var cards: [CardRef] = []
        if let lookup = fixtures.lookup { cards += [lookup.existing, lookup.missing] }
        if let management = fixtures.cards {
            cards += [
                management.activation?.card, management.lockable, management.cancellable, management.pinChange?.card,
            ].compactMap { $0 }
            needles.append(management.customer)
        }
        if let tokens = fixtures.walletTokens {
            cards.append(tokens.card)
            needles += [tokens.token] + (tokens.deletable.map { [$0] } ?? [])
        }
        if let provisioning = fixtures.provisioning {
            cards += [provisioning.eligible] + (provisioning.ineligible.map { [$0] } ?? [])
        }
        for card in cards {
            needles.append(card.id)
            if let customer = card.customer { needles.append(customer) }
        }
        return Array(Set(needles.filter { $0.count >= 4 })).sorted()
    }
}
