import AdyenSimulator
import BridgeSimulator
import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayTesting
import ExampleSupport
import Foundation
import HTTPTypes
import InMemoryTracing
import MetricsTestKit
import StripeSimulator
import Synchronization
import Testing
import Tracing

/// Every request the gateway sends and the answer it gets, so that the test knows each secret the reveal scenarios
/// supplied or got back (nonces, encrypted keys and blocks, tokens, ephemeral secrets, links) without the demo
/// having to hand them out.
final class RecordingTransport: HTTPTransport {
    struct Exchange: Sendable {
        var path: String
        var requestBody: Data
        var responseBody: Data
    }

    let base: any HTTPTransport
    private let exchanges = Mutex<[Exchange]>([])

    init(_ base: any HTTPTransport) { self.base = base }

    func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        let response = try await base.send(request, body: body, timeout: timeout)
        exchanges.withLock {
            $0.append(Exchange(path: request.path ?? "", requestBody: body ?? Data(), responseBody: response.body))
        }
        return response
    }

    var all: [Exchange] { exchanges.withLock { $0 } }
}

/// The gateway's ledger, in memory, with every claim and outcome written down for the scan.
final class RecordingLedger: OperationLedger {
    let base = InMemoryOperationLedger()
    private let log = Mutex<[String]>([])
    var text: [String] { log.withLock { $0 } }
    private let operations = Mutex<[String]>([])
    var claimed: [String] { operations.withLock { $0 } }

    func claim(_ intent: LedgerIntent) async throws -> LedgerClaim {
        log.withLock { $0.append(String(reflecting: intent)) }
        operations.withLock { $0.append(intent.operation.rawValue) }
        return try await base.claim(intent)
    }

    func record(_ outcome: LedgerOutcome, key: String, owner: UUID) async throws {
        log.withLock { $0.append("\(key) \(String(reflecting: outcome))") }
        try await base.record(outcome, key: key, owner: owner)
    }

    func release(key: String, owner: UUID) async throws { try await base.release(key: key, owner: owner) }
    func record(key: String) async throws -> LedgerRecord? { try await base.record(key: key) }
    func reconcile(key: String, to resolution: LedgerReconciliation) async throws {
        try await base.reconcile(key: key, to: resolution)
    }
    func purgeExpired() async throws -> Int { try await base.purgeExpired() }
}

@Suite("Card reveal: nothing sensitive anywhere", .timeLimit(.minutes(5)))
struct CardRevealSensitiveDataTests {
    /// The request and answer fields of the providers' reveal endpoints that carry what only the front end may use.
    static let secretFields: Set<String> = [
        "nonce", "client_nonce", "encryptedKey", "encryptedPinBlock", "token", "encryptedData", "secret",
        "ephemeral_key", "url",
    ]
    /// The providers' reveal endpoints (paths as the adapters send them).
    static let revealPaths = [
        "/ephemeral_keys", "/paymentInstruments/reveal", "/pins/reveal", "/pins/change", "/auth/clientaccesstoken",
        "/secure-details", "/pin",
    ]

    /// The values of `secretFields` in a JSON or form body.
    static func secrets(in body: Data) -> [String] {
        var found: [String] = []
        func walk(_ value: Any, key: String?) {
            if let object = value as? [String: Any] {
                for (name, member) in object { walk(member, key: name) }
            } else if let array = value as? [Any] {
                for item in array { walk(item, key: key) }
            } else if let text = value as? String, let key, secretFields.contains(key) {
                found.append(text)
            }
        }
        if let json = try? JSONSerialization.jsonObject(with: body) {
            walk(json, key: nil)
        } else if let form = String(data: body, encoding: .utf8), form.contains("=") {
            for pair in form.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map {
                    String($0).removingPercentEncoding ?? String($0)
                }
                if parts.count == 2, secretFields.contains(parts[0]) { found.append(parts[1]) }
            }
        }
        return found
    }

    @Test(
        "after every provider's reveal scenarios, no nonce, key, block, token, link or card number is in logs, metrics, spans, journals, the ledger or the demo's output"
    )
    func scan() async throws {
        let logs = LogCapture()
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let ledger = RecordingLedger()
        let provisioningJournal = InMemoryProvisioningJournal()
        let transport = RecordingTransport(AsyncHTTPClientTransport())
        let journals = Mutex<[(kind: String, journal: RequestJournal)]>([])
        let direct = Mutex<[String]>([])

        let report = try await Demo.run(
            logger: logs.logger(label: "cardgateway.scan"),
            beforeSteps: { running in
                journals.withLock { $0 = running.handles.map { ($0.kindName, $0.journal) } }
            },
            makeGateway: { running, logger in
                let gateway = try running.gateway(
                    transport: transport, logger: logger,
                    observability: GatewayObservability(metrics: metrics, tracer: tracer)
                ).using(ledger: ledger, journal: provisioningJournal)
                return gateway
            }
        )
        let reveal = report.steps.filter { $0.name.hasPrefix("card reveal") }
        #expect(!reveal.isEmpty && reveal.allSatisfy { $0.status == .passed }, "\(reveal)")

        // Repeats with an idempotency key: a reveal is never ledgered or journaled, whatever the caller sends.
        try await EmbeddedSimulators().run { running in
            let gateway = try running.gateway(
                transport: transport, logger: logs.logger(label: "cardgateway.scan.direct"),
                observability: GatewayObservability(metrics: metrics, tracer: tracer)
            ).using(ledger: ledger, journal: provisioningJournal)
            journals.withLock { $0 += running.handles.map { ($0.kindName, $0.journal) } }
            var context = OperationContext(logger: logs.logger(label: "cardgateway.scan.context"))
            context.idempotencyKey = "scan-reveal-1"
            let via = RouteTarget.key(RouteKey(issuer: EmbeddedSimulators.Issuer.stripe))
            let card = CardRef(id: StripeSimulator.Seed.activeCardID)
            for round in 0..<2 {
                let nonce = "ephkn_pub_scan\(round)" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
                let session = try await gateway.revealSession(
                    RevealSessionRequest(card: card, purpose: .cardDetails, clientNonce: Secret(nonce)), via: via,
                    context: context)
                direct.withLock { $0 += [nonce, session.material.ephemeralKeySecret?.revealedValue ?? ""] }
            }
            let secrets = direct.withLock { $0 }
            #expect(secrets[1] != secrets[3], "a repeat with the same idempotency key made a new session")
        }

        // What the scenarios supplied and got back, from the gateway's own traffic to the reveal endpoints.
        let exchanges = transport.all.filter { exchange in Self.revealPaths.contains { exchange.path.contains($0) } }
        var needles = Set(
            exchanges.flatMap { Self.secrets(in: $0.requestBody) + Self.secrets(in: $0.responseBody) }
                + direct.withLock { $0 })
        needles = needles.filter { $0.count >= 8 }
        #expect(exchanges.contains { $0.path.contains("/pins/reveal") }, "the scenarios reached Adyen's PIN reveal")
        #expect(exchanges.contains { $0.path.contains("clientaccesstoken") }, "the scenarios reached Marqeta")
        #expect(exchanges.contains { $0.path.contains("secure-details") }, "the scenarios reached Paysafe")
        #expect(needles.contains { $0.hasPrefix("ek_") }, "an ephemeral key secret was harvested")
        #expect(needles.contains { $0.hasPrefix("http") }, "a link was harvested")
        #expect(needles.count >= 10, "\(needles.count) secrets harvested")
        // The seeded cards' full numbers (CVCs and PINs are too short to scan for without false alarms; the demo's
        // output check covers them).
        let pans = [
            AdyenSimulator.Seed.cardNumber(of: AdyenSimulator.Seed.activeVisaID) ?? "",
            StripeSimulator().cardNumber(of: StripeSimulator.Seed.activeCardID) ?? "",
            BridgeSimulator().cardAccount(BridgeSimulator.Seed.activeVisa)?.pan ?? "",
        ]
        #expect(pans.allSatisfy { $0.count >= 12 })

        // Every place the secrets could end up.
        var places: [(String, String)] = [("logs", logs.text)]
        var telemetry: [String] = []
        for span in tracer.finishedSpans {
            telemetry.append(span.operationName)
            span.attributes.forEach { key, value in telemetry.append("\(key)=\(value)") }
            for event in span.events {
                telemetry.append(event.name)
                event.attributes.forEach { key, value in telemetry.append("\(key)=\(value)") }
            }
            for error in span.errors { telemetry.append(String(describing: error.error)) }
        }
        places.append(("spans", telemetry.joined(separator: "\n")))
        let labels =
            metrics.counters.map { $0.label + " " + $0.dimensions.map { "\($0)=\($1)" }.joined(separator: ",") }
            + metrics.timers.map { $0.label + " " + $0.dimensions.map { "\($0)=\($1)" }.joined(separator: ",") }
            + metrics.recorders.map { $0.label + " " + $0.dimensions.map { "\($0)=\($1)" }.joined(separator: ",") }
        places.append(("metrics", labels.joined(separator: "\n")))
        for (kind, journal) in journals.withLock({ $0 }) {
            let text = journal.entries().map { entry in
                ([entry.method, entry.path, entry.query ?? "", entry.bodyText]
                    + entry.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }).joined(separator: " ")
            }
            places.append(("\(kind) journal", text.joined(separator: "\n")))
        }
        places.append(("ledger", ledger.text.joined(separator: "\n")))
        let journalEntries = try await provisioningJournal.entries(card: nil, limit: 100_000)
        places.append(("provisioning journal", journalEntries.map { String(reflecting: $0) }.joined(separator: "\n")))
        places.append(
            (
                "demo output",
                report.steps.map { "\($0.name) \($0.outcome) \($0.errorCode ?? "")" }.joined(separator: "\n")
            ))

        #expect(
            metrics.counters.contains { $0.dimensions.contains { $0 == ("operation", "cardDetailsReveal") } },
            "reveal metrics were recorded")
        #expect(
            tracer.finishedSpans.contains {
                $0.operationName.contains("cardDetailsReveal") || "\($0.attributes)".contains("cardDetailsReveal")
            }, "reveal spans were recorded")
        for (place, text) in places {
            for needle in needles.sorted() where text.contains(needle) {
                Issue.record("a reveal secret (\(needle.prefix(6))…, \(needle.count) characters) reached the \(place)")
            }
            for pan in pans where text.contains(pan) {
                Issue.record("a seeded card's full number reached the \(place)")
            }
        }
        // Never ledgered or journaled at all.
        let revealOperations: Set<String> = ["cardDetailsReveal", "pinReveal", "pinChange"]
        #expect(ledger.claimed.allSatisfy { !revealOperations.contains($0) }, "\(ledger.claimed)")
        #expect(journalEntries.allSatisfy { !revealOperations.contains($0.operation.rawValue) })
    }
}
