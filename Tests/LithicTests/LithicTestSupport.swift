@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import LithicSimulator
import Logging

@_spi(AdapterSupport) @testable import CardGatewayLithic

typealias Seed = LithicSimulator.Seed

/// A running simulator, the adapter pointed at it and a transport that records what the adapter sent.
struct LithicHarness {
    let simulator: LithicSimulator
    let handle: SimulatorHandle
    let provider: LithicProvider
    let transport: RecordingTransport
    let capture: LogCapture

    var context: OperationContext { OperationContext(logger: capture.logger(label: "lithic.test")) }

    /// Journal entries after `count`.
    func entries(since count: Int) -> [JournalEntry] { Array(handle.journal.entries().dropFirst(count)) }
    var journalCount: Int { handle.journal.entries().count }

    /// The JSON body of a journal entry.
    func json(_ entry: JournalEntry) -> JSONValue? { try? JSONValue.parse(entry.body) }
}

enum LithicFixture {
    /// Runs `body` with a fresh simulator on 127.0.0.1 and the adapter pointed at it.
    static func withHarness<R: Sendable>(
        retry: RetryPolicy = .none, timeout: Duration = .seconds(10), _ body: (LithicHarness) async throws -> R
    ) async throws -> R {
        let simulator = LithicSimulator()
        return try await withSimulator(simulator) { handle in
            let capture = LogCapture()
            let transport = RecordingTransport(AsyncHTTPClientTransport())
            let http = try ProviderHTTPClient(
                instance: "lithic-test", kind: .lithic, baseURL: handle.baseURL, transport: transport,
                timeout: timeout, retry: retry, logger: capture.logger(label: "lithic.http", level: .trace)
            )
            let provider = try LithicProvider(
                http: http, apiKey: Secret(Seed.apiKey),
                options: LithicOptions(embedTargetOrigin: "https://cardholder.example"),
                webhookSecret: Secret(Seed.webhookSecret), asaSecret: Secret(Seed.asaSecret))
            return try await body(
                LithicHarness(
                    simulator: simulator, handle: handle, provider: provider, transport: transport, capture: capture))
        }
    }

    /// An adapter over a scripted transport (no network).
    static func scripted(
        _ replies: [ScriptedReply], logger: Logger = OperationContext.noopLogger,
        webhookSecret: String? = Seed.webhookSecret, asaSecret: String? = Seed.asaSecret,
        options: LithicOptions = LithicOptions(embedTargetOrigin: "https://cardholder.example")
    ) throws -> (LithicProvider, ScriptedTransport) {
        let transport = ScriptedTransport(replies)
        let http = try ProviderHTTPClient(
            instance: "lithic-scripted", kind: .lithic, baseURL: URL(string: "https://sandbox.lithic.com")!,
            transport: transport, retry: .none, logger: logger, clock: ManualClock(advancesOnSleep: true).gatewayClock()
        )
        let provider = try LithicProvider(
            http: http, apiKey: Secret(Seed.apiKey), options: options, webhookSecret: webhookSecret.map { Secret($0) },
            asaSecret: asaSecret.map { Secret($0) })
        return (provider, transport)
    }
}

/// Lithic's OpenAPI document (`Fixtures/lithic-openapi.yml`, a copy of `../shared/specs/lithic-openapi.yml`), the
/// authority the tests read.
enum LithicSpec {
    static var path: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Fixtures/lithic-openapi.yml"
        )
        .path
    }
}
