import CardGateway
import CardGatewayTesting
import Foundation
import InMemoryTracing
import Testing
import Tracing

/// The whole contract suite of each provider, with the adapter's HTTP client recording its attempt spans (the
/// gateway's own middleware) in memory: every span name, attribute, event and error is scanned for the suite's
/// sensitive values.
@Suite("Contract suite telemetry", .timeLimit(.minutes(5)))
struct ContractTelemetryTests {
    static let subjects: [String: @Sendable () -> ContractSubject] = [
        "paysafe": { PaysafeContract.subject() },
        "adyen": { AdyenContractTests.subject() },
        "stripe": { StripeContractTests.subject() },
        "bridge": { BridgeContract.subject(encoding: "hex") },
        "trustpayments": { TrustPaymentsContractTests.subject() },
        "marqeta": { MarqetaContract.subject() },
    ]

    @Test(
        "a full contract run records attempt spans that carry no credential, card data, token, payload or card id",
        arguments: [
            "paysafe", "adyen", "stripe", "bridge", "trustpayments", "marqeta",
        ])
    func noSensitiveValueInSpans(provider: String) async throws {
        let makeSubject = try #require(Self.subjects[provider])
        let subject = makeSubject()
        let run = await ContractSuite.runRecordingSpans(subject)
        #expect(run.report.passed, "\(run.report)")
        #expect(run.report.outcome(of: ContractTelemetryReport.scenarioName) == .passed, "\(run.report)")
        #expect(run.spans.count > 0)
        // The needles include the credentials and what the run derived, so the scan had something to look for.
        #expect(run.needleCount >= subject.credentials.count)
        // Independently of the suite's own scenario: no span text holds a credential or a listed sensitive value.
        let texts = run.spans.flatMap(ContractTelemetry.texts(of:)).joined(separator: "\n")
        for secret in subject.credentials.values.map(\.revealedValue) + subject.sensitiveValues where secret.count >= 4
        {
            #expect(!texts.contains(secret), "a span carries a sensitive value of \(provider)")
        }
        // Each is an attempt span in OpenTelemetry's HTTP client conventions, named after the operation.
        for span in run.spans {
            #expect(span.kind == .client)
            #expect(
                span.operationName.range(of: #"^(GET|POST|PUT|PATCH|DELETE) [a-z]"#, options: .regularExpression)
                    != nil, "\(span.operationName)")
            #expect(span.attributes["http.request.method"] != nil)
            #expect(
                span.attributes["cardgateway.provider.kind"]?.toSpanAttribute() == .string(subject.factory.kind.name))
            #expect(
                span.attributes["http.response.status_code"] != nil || span.attributes["error.type"] != nil,
                "\(span.operationName)")
        }
        // The error scenarios (a timeout, a provider outage) show up as failed attempts.
        #expect(run.spans.contains { $0.attributes["error.type"] != nil || $0.status?.code == .error })
    }

    @Test("the span scan fails a run whose spans carry a value declared sensitive")
    func scanCanFail() async {
        // The reference adapter is clean, but 127.0.0.1 (its simulator's address) is in every attempt span's
        // server.address: declared sensitive, the span scenario must name it.
        var subject = ContractSuiteTests.subject()
        subject.sensitiveValues.append("127.0.0.1")
        let run = await ContractSuite.runRecordingSpans(subject)
        #expect(!run.spans.isEmpty)
        guard case .failed(let messages)? = run.report.outcome(of: ContractTelemetryReport.scenarioName) else {
            Issue.record("the span scan passed: \(run.report)")
            return
        }
        #expect(messages.contains { $0.contains("server.address") }, "\(messages)")
    }

    @Test("the scan reads names, attribute values, events and recorded errors")
    func scanReadsEveryPart() {
        let tracer = InMemoryTracer()
        tracer.withSpan("GET secret-in-name") { _ in }
        tracer.withSpan("GET get card") { span in span.attributes["note"] = "token tok_attribute_1234" }
        tracer.withSpan("GET get card") { span in
            span.addEvent(SpanEvent(name: "retry", attributes: ["body": "pan 4111111111111111"]))
        }
        tracer.withSpan("GET get card") { span in span.recordError(CardGatewayError(.declined, "declined for cvc-9876"))
        }
        tracer.withSpan("GET get card") { span in span.attributes["count"] = 3 }
        let leaks = ContractTelemetry.leaks(
            in: tracer.finishedSpans,
            of: ["secret-in-name", "tok_attribute_1234", "4111111111111111", "cvc-9876", "abc"]
        )
        #expect(Set(leaks.map(\.needle)) == ["secret-in-name", "tok_attribute_1234", "4111111111111111", "cvc-9876"])
        #expect(leaks.contains { $0.place.contains("attribute note") })
        #expect(leaks.contains { $0.place.contains("event retry") })
        #expect(leaks.contains { $0.place.contains("error") })
    }
}
