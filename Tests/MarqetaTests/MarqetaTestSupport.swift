@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import Logging
import MarqetaSimulator

@_spi(AdapterSupport) @testable import CardGatewayMarqeta

typealias Seed = MarqetaSimulator.Seed
typealias Inputs = MarqetaSimulator.TestInputs

/// A running simulator, the adapter pointed at it and a transport that records what the adapter sent.
struct MarqetaHarness {
    let simulator: MarqetaSimulator
    let handle: SimulatorHandle
    let provider: MarqetaProvider
    let transport: RecordingTransport
    let capture: LogCapture

    var context: OperationContext { OperationContext(logger: capture.logger(label: "marqeta.test")) }

    /// Journal entries after `count`.
    func entries(since count: Int) -> [JournalEntry] { Array(handle.journal.entries().dropFirst(count)) }
    var journalCount: Int { handle.journal.entries().count }

    /// The JSON body of a journal entry.
    func json(_ entry: JournalEntry) -> JSONValue? { try? JSONValue.parse(entry.body) }

    /// The Basic header the adapter must send.
    static let expectedAuthorization =
        "Basic " + Data("\(Seed.applicationToken):\(Seed.accessToken)".utf8).base64EncodedString()
}

enum MarqetaFixture {
    static let options = MarqetaOptions(provisioningAppVersion: "cardgateway-tests 2.1", deviceType: "WATCH")

    /// Runs `body` with a fresh simulator on 127.0.0.1 and the adapter pointed at it.
    static func withHarness<R: Sendable>(
        options: MarqetaOptions = MarqetaFixture.options, retry: RetryPolicy = .none, timeout: Duration = .seconds(10),
        _ body: (MarqetaHarness) async throws -> R
    ) async throws -> R {
        let simulator = MarqetaSimulator()
        return try await withSimulator(simulator) { handle in
            let capture = LogCapture()
            let transport = RecordingTransport(AsyncHTTPClientTransport())
            let http = try ProviderHTTPClient(
                instance: "marqeta-test", kind: .marqeta, baseURL: handle.baseURL, transport: transport,
                timeout: timeout, retry: retry,
                logger: capture.logger(label: "marqeta.http", level: .trace)
            )
            let provider = try MarqetaProvider(
                http: http, applicationToken: Secret(Seed.applicationToken), accessToken: Secret(Seed.accessToken),
                options: options,
                webhookUsername: Secret(Seed.webhookUsername), webhookPassword: Secret(Seed.webhookPassword),
                webhookSecret: Secret(Seed.webhookSecret)
            )
            return try await body(
                MarqetaHarness(
                    simulator: simulator, handle: handle, provider: provider, transport: transport, capture: capture))
        }
    }

    /// An adapter over a scripted transport (no network).
    static func scripted(
        _ replies: [ScriptedReply], logger: Logger = OperationContext.noopLogger
    ) throws -> (MarqetaProvider, ScriptedTransport) {
        let transport = ScriptedTransport(replies)
        let http = try ProviderHTTPClient(
            instance: "marqeta-scripted", kind: .marqeta, baseURL: URL(string: "https://sandbox-api.marqeta.com/v3")!,
            transport: transport, retry: .none,
            logger: logger, clock: ManualClock(advancesOnSleep: true).gatewayClock()
        )
        let provider = try MarqetaProvider(
            http: http, applicationToken: Secret(Seed.applicationToken), accessToken: Secret(Seed.accessToken),
            options: options,
            webhookUsername: Secret(Seed.webhookUsername), webhookPassword: Secret(Seed.webhookPassword),
            webhookSecret: Secret(Seed.webhookSecret)
        )
        return (provider, transport)
    }

    /// A webhook delivery from the simulator's signed tuple.
    static func delivery(_ signed: (headers: [(String, String)], body: Data)) -> WebhookDelivery {
        var fields = HTTPFields()
        for (name, value) in signed.headers {
            if let fieldName = HTTPField.Name(name) { fields[fieldName] = value }
        }
        return WebhookDelivery(headers: fields, body: signed.body)
    }
}
