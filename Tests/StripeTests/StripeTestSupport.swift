@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import Logging
import Synchronization
import Testing

@_spi(AdapterSupport) @testable import CardGatewayStripe
@testable import StripeSimulator

/// The simulator's clock in tests: fixed, a little after the seed's creation times.
let simulatorEpoch = Date(timeIntervalSince1970: 1_700_003_600)

typealias Seed = StripeSimulator.Seed

/// A raw HTTP answer.
struct RawResponse: Sendable {
    var status: Int
    var headers: HTTPFields
    var body: Data

    func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
    var json: JSONValue? { try? JSONValue.parse(body) }
    var text: String { String(decoding: body, as: UTF8.self) }
    /// `error.<field>` of Stripe's error body.
    func error(_ field: String) -> String? { json?["error"]?[field]?.stringValue }
}

/// Sends raw requests to a running simulator (through the core's default AsyncHTTPClient transport).
struct RawClient: Sendable {
    var handle: SimulatorHandle
    var key: String? = StripeSimulator.Credentials.default.testSecretKey

    func send(
        _ method: HTTPRequest.Method, _ path: String, form: String? = nil, headers: [String: String] = [:],
        authorization: String? = nil
    ) async throws -> RawResponse {
        var fields = HTTPFields()
        if let authorization {
            fields[.authorization] = authorization
        } else if let key {
            fields[.authorization] = "Bearer \(key)"
        }
        if form != nil { fields[.contentType] = "application/x-www-form-urlencoded" }
        for (name, value) in headers {
            if let fieldName = HTTPField.Name(name) { fields[fieldName] = value }
        }
        let escaped = path.replacingOccurrences(of: "[", with: "%5B").replacingOccurrences(of: "]", with: "%5D")
        let request = HTTPRequest(
            method: method, scheme: "http", authority: "127.0.0.1:\(handle.port)", path: escaped, headerFields: fields)
        let response = try await AsyncHTTPClientTransport().send(
            request, body: form.map { Data($0.utf8) }, timeout: .seconds(30))
        return RawResponse(
            status: response.response.status.code, headers: response.response.headerFields, body: response.body)
    }
}

/// A transport that keeps every response body as received, to compare bytes.
final class BodyRecordingTransport: HTTPTransport {
    private let base = AsyncHTTPClientTransport()
    private let bodies = Mutex<[Data]>([])

    var responseBodies: [Data] { bodies.withLock { $0 } }

    func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        let response = try await base.send(request, body: body, timeout: timeout)
        bodies.withLock { $0.append(response.body) }
        return response
    }
}

enum SimulatorFixture {
    static func simulator() -> StripeSimulator {
        StripeSimulator(clock: SimulationClock(fixed: simulatorEpoch))
    }

    /// The adapter pointed at a running simulator, over real HTTP, retrying fast.
    static func adapter(
        _ handle: SimulatorHandle, transport: any HTTPTransport = AsyncHTTPClientTransport(), apiVersion: String? = nil,
        key: String = StripeSimulator.Credentials.default.testSecretKey, logger: Logger? = nil,
        stripeAccount: String? = nil
    ) throws -> StripeProvider {
        let http = try ProviderHTTPClient(
            instance: "stripe-sim", kind: .stripe, baseURL: handle.baseURL, transport: transport, timeout: .seconds(30),
            retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5)),
            logger: logger ?? OperationContext.noopLogger
        )
        return try StripeProvider(
            configuration: StripeConfiguration(
                secretKey: Secret(key), webhookSecret: Secret(StripeSimulator.Credentials.default.webhookSecret),
                stripeAccount: stripeAccount, apiVersion: apiVersion
            ),
            http: http, environment: key.hasPrefix("sk_live_") ? "live" : "sandbox", logger: logger
        )
    }
}
