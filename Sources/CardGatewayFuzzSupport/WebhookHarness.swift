@_spi(AdapterSupport) import CardGateway
import Crypto
import Foundation
import HTTPTypes

/// Fuzzes one provider's webhook verification and parsing.
///
/// Input layout: byte 0 picks the mode. Even: the rest is the body, signed correctly with the harness's secret
/// at ``FuzzClock/now``, so the parser behind the signature check is reached. Odd: the rest is
/// `<signature header value>\n<body>`, delivered as it is (the header parser and the refusal paths).
/// Every delivery also carries ``fixedHeaders`` (Marqeta's HTTP Basic credentials).
public struct WebhookHarness: Sendable {
    public let name: String
    package let headerName: HTTPField.Name
    package let sign: @Sendable (Data) -> String
    package let makeVerifier: @Sendable () throws -> any WebhookVerifying
    /// Headers every delivery carries, correct for the harness's verifier.
    package let fixedHeaders: HTTPFields

    /// The verifier is built once per process (building Bridge's parses a PEM key).
    private let verifier: LazyVerifier

    package init(
        name: String, headerName: String, fixedHeaders: HTTPFields = HTTPFields(),
        sign: @escaping @Sendable (Data) -> String,
        makeVerifier: @escaping @Sendable () throws -> any WebhookVerifying
    ) {
        self.name = name
        self.headerName = HTTPField.Name(headerName)!
        self.fixedHeaders = fixedHeaders
        self.sign = sign
        self.makeVerifier = makeVerifier
        self.verifier = LazyVerifier(make: makeVerifier)
    }

    /// The delivery an input stands for.
    package func delivery(_ data: Data) -> WebhookDelivery? {
        guard let mode = data.first else { return nil }
        let rest = Data(data.dropFirst())
        var headers = fixedHeaders
        if mode & 1 == 0 {
            headers[headerName] = sign(rest)
            return WebhookDelivery(headers: headers, body: rest)
        }
        let newline = rest.firstIndex(of: 0x0a) ?? rest.endIndex
        let header = String(decoding: rest[rest.startIndex..<newline], as: UTF8.self)
        headers[headerName] = header
        let body = newline < rest.endIndex ? Data(rest[rest.index(after: newline)...]) : Data()
        return WebhookDelivery(headers: headers, body: body)
    }

    public func run(_ data: Data) {
        guard let delivery = delivery(data), let verifier = verifier.value else { return }
        _ = try? verifier.verify(delivery, now: FuzzClock.now)
    }

    /// The seed-corpus file for a real webhook body (signed mode).
    public static func seed(body: Data) -> Data { Data([0]) + body }

    /// The seed-corpus file for a delivery as it arrived, header and all (raw mode).
    public static func rawSeed(header: String, body: Data) -> Data {
        Data([1]) + Data(header.utf8) + Data([0x0a]) + body
    }
}

/// Builds a verifier on first use and keeps it.
final class LazyVerifier: Sendable {
    let value: (any WebhookVerifying)?
    init(make: @Sendable () throws -> any WebhookVerifying) { value = try? make() }
}

/// HMAC-SHA256 of `message` under `key`.
package func hmacSHA256(key: some DataProtocol, message: Data) -> Data {
    Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Data(key))))
}

/// A webhook-verifying adapter from a response harness, over a transport that refuses to send.
package func webhookVerifier(_ harness: ResponseHarness) throws -> any WebhookVerifying {
    let transport = FuzzTransport(status: 500, contentType: nil, body: Data())
    guard let provider = try harness.makeProvider(transport: transport) as? any WebhookVerifying else {
        throw CardGatewayError(.unsupported, "\(harness.name) verifies no webhooks")
    }
    return provider
}
