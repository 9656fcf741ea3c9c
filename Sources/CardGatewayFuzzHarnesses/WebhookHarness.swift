@_spi(AdapterSupport) import CardGateway
import CardGatewayAdyen
import CardGatewayBridge
import CardGatewayLithic
import CardGatewayMarqeta
import CardGatewayPaysafe
import CardGatewayStripe
import CardGatewayTrustPayments
import Crypto
import Foundation
import HTTPTypes
import _CryptoExtras

/// Fuzzes one provider's webhook verification and parsing.
///
/// Input layout: byte 0 picks the mode. Even: the rest is the body, signed correctly with the harness's secret
/// at ``FuzzClock/now``, so the parser behind the signature check is reached. Odd: the rest is
/// `<signature header value>\n<body>`, delivered as it is (the header parser and the refusal paths).
/// Every delivery also carries ``fixedHeaders`` (Marqeta's HTTP Basic credentials).
public struct WebhookHarness: Sendable {
    public let name: String
    let headerName: HTTPField.Name
    let sign: @Sendable (Data) -> String
    let makeVerifier: @Sendable () throws -> any WebhookVerifying
    /// Headers every delivery carries, correct for the harness's verifier.
    let fixedHeaders: HTTPFields

    /// The verifier is built once per process (building Bridge's parses a PEM key).
    private let verifier: LazyVerifier

    init(
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
    func delivery(_ data: Data) -> WebhookDelivery? {
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
private func hmacSHA256(key: some DataProtocol, message: Data) -> Data {
    Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Data(key))))
}

/// A webhook-verifying adapter from a response harness, over a transport that refuses to send.
private func webhookVerifier(_ harness: ResponseHarness) throws -> any WebhookVerifying {
    let transport = FuzzTransport(status: 500, contentType: nil, body: Data())
    guard let provider = try harness.makeProvider(transport: transport) as? any WebhookVerifying else {
        throw CardGatewayError(.unsupported, "\(harness.name) verifies no webhooks")
    }
    return provider
}

extension WebhookHarness {
    /// `Stripe-Signature: t=<seconds>,v1=<hex HMAC-SHA256("t.body", whsec_…)>`.
    public static let stripe = WebhookHarness(
        name: "stripe", headerName: "Stripe-Signature",
        sign: { body in
            let timestamp = Int64(FuzzClock.now.timeIntervalSince1970)
            let mac = hmacSHA256(
                key: Data(FuzzSeeds.Stripe.webhookSecret.utf8), message: Data("\(timestamp).".utf8) + body)
            return "t=\(timestamp),v1=\(ByteEncoding.hex(mac))"
        }, makeVerifier: { try webhookVerifier(.stripe) })

    /// `HmacSignature: Base64(HMAC-SHA256(body, hex-decoded key))`.
    public static let adyen = WebhookHarness(
        name: "adyen", headerName: "HmacSignature",
        sign: { body in
            hmacSHA256(key: ByteEncoding.decodeHex(FuzzSeeds.Adyen.hmacKeyHex) ?? Data(), message: body)
                .base64EncodedString()
        }, makeVerifier: { try webhookVerifier(.adyen) })

    /// `Signature: Base64(HMAC-SHA256(body, Base64-decoded secret))`, Paysafe's published scheme.
    public static let paysafe = WebhookHarness(
        name: "paysafe", headerName: "Signature",
        sign: { body in
            hmacSHA256(key: Data(base64Encoded: FuzzSeeds.Paysafe.webhookSecret) ?? Data(), message: body)
                .base64EncodedString()
        }, makeVerifier: { try webhookVerifier(.paysafe) })

    /// `X-Webhook-Signature: t=<milliseconds>,v0=<Base64 RSA PKCS#1 v1.5 SHA-256 signature of SHA-256("t.body")>`.
    public static let bridge = WebhookHarness(
        name: "bridge", headerName: "X-Webhook-Signature",
        sign: { body in
            let milliseconds = Int64(FuzzClock.now.timeIntervalSince1970 * 1000)
            let digest = Data(SHA256.hash(data: Data("\(milliseconds).".utf8) + body))
            guard
                let signature = try? FuzzKeys.bridgeWebhookPrivateKey.signature(
                    for: digest, padding: .insecurePKCS1v1_5)
            else { return "" }
            return "t=\(milliseconds),v0=\(signature.rawRepresentation.base64EncodedString())"
        }, makeVerifier: { try webhookVerifier(.bridge) })

    /// `X-Marqeta-Signature: hex(HMAC-SHA256(body, secret))`. The verifier is configured as a production one would
    /// be, with the webhook's secret and its HTTP Basic pair; every delivery carries the right `Authorization`, so
    /// the signature check and the parser behind it are what the input reaches. (The Basic check is a constant-time
    /// comparison of a fixed string; a wrong pair is refused before the signature is looked at.)
    public static let marqeta = WebhookHarness(
        name: "marqeta", headerName: "X-Marqeta-Signature",
        fixedHeaders: HTTPFields([
            HTTPField(
                name: .authorization,
                value: HeaderAuthentication.basicValue(
                    username: FuzzSeeds.Marqeta.webhookUsername, password: FuzzSeeds.Marqeta.webhookPassword)
            )
        ]),
        sign: { body in ByteEncoding.hex(hmacSHA256(key: Data(FuzzSeeds.Marqeta.webhookSecret.utf8), message: body)) },
        makeVerifier: { try webhookVerifier(.marqeta) }
    )

    /// Standard Webhooks: `webhook-signature: v1,<Base64 HMAC-SHA256("{webhook-id}.{webhook-timestamp}.{body}")>`
    /// keyed with the Base64-decoded part of the `whsec_…` secret. Every delivery carries a fixed `webhook-id` and
    /// `webhook-timestamp` (``FuzzClock/now``), so the signature check and the parser behind it are what the input
    /// reaches.
    public static let lithic = WebhookHarness(
        name: "lithic", headerName: "webhook-signature",
        fixedHeaders: HTTPFields([
            HTTPField(name: HTTPField.Name("webhook-id")!, value: lithicWebhookID),
            HTTPField(
                name: HTTPField.Name("webhook-timestamp")!, value: String(Int64(FuzzClock.now.timeIntervalSince1970))),
        ]),
        sign: { body in
            let key = Data(base64Encoded: String(FuzzSeeds.Lithic.webhookSecret.dropFirst("whsec_".count))) ?? Data()
            let message =
                Data("\(lithicWebhookID).\(Int64(FuzzClock.now.timeIntervalSince1970)).".utf8) + body
            return "v1," + hmacSHA256(key: key, message: message).base64EncodedString()
        },
        makeVerifier: { try webhookVerifier(.lithic) }
    )

    /// The `webhook-id` of every Lithic delivery.
    static let lithicWebhookID = "msg_fuzz0000000000000000000001"

    public static let all: [WebhookHarness] = [.paysafe, .adyen, .stripe, .bridge, .marqeta, .lithic]
}

/// Fuzzes Trust Payments' response JWT verification (`verifyResult`): Trust Payments has no webhooks; the
/// signed result the mobile SDK hands back is its inbound, signed message.
///
/// Input layout: byte 0 even: the rest is the JWT's claims (JSON), signed HS256 with the harness's JWT secret;
/// odd: the rest is the token as it arrived.
public enum TrustPaymentsResultHarness {
    /// A fresh instance per input: `verifyResult` saves into the instance's credential store.
    static func provider() -> TrustPaymentsProvider? {
        let transport = FuzzTransport(status: 500, contentType: nil, body: Data())
        return try? ResponseHarness.trustPayments.makeProvider(transport: transport) as? TrustPaymentsProvider
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// An HS256 JWT whose payload segment is `claims` exactly.
    static func sign(claims: Data) -> String {
        let header = base64URL(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let signingInput = header + "." + base64URL(claims)
        let mac = hmacSHA256(key: Data(FuzzSeeds.TrustPayments.jwtSecret.utf8), message: Data(signingInput.utf8))
        return signingInput + "." + base64URL(mac)
    }

    public static func run(_ data: Data) {
        guard let mode = data.first, let provider = provider() else { return }
        let rest = Data(data.dropFirst())
        let token = mode & 1 == 0 ? sign(claims: rest) : String(decoding: rest, as: UTF8.self)
        runBlocking {
            _ = try? await provider.verifyResult(Secret(token), context: OperationContext())
        }
    }

    /// The seed-corpus file for a result's claims (signed mode).
    public static func seed(claims: Data) -> Data { Data([0]) + claims }
}
