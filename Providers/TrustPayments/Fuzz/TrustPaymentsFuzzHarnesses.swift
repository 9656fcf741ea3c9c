import CardGateway
import CardGatewayFuzzSupport
import CardGatewayTrustPayments
import Foundation

// The Trust Payments room's fuzz harnesses (docs/RELIABILITY.md, "Fuzzing"): `trustpayments-responses` and
// `trustpayments-results` (Trust Payments sends no webhooks; the result JWT is its signed inbound message).

extension FuzzSeeds {
    enum TrustPayments {
        static let webservicesUsername = "ws@cardgateway.test"
        static let webservicesPassword = "ws-sandbox-password"
        static let jwtUsername = "jwt@cardgateway.test"
        static let jwtSecret = "jwt-sandbox-secret-0123456789"
        static let siteReference = "test_cardgateway12345"
        static let storedVisaAuth = "1-9-1000002"
    }
}

extension ResponseHarness {
    public static let trustPayments = ResponseHarness(
        name: "trustpayments", factory: .trustpayments,
        credentials: FuzzSeeds.TrustPayments.credentials,
        options: ["siteReference": .string(FuzzSeeds.TrustPayments.siteReference)],
        operations: [
            .on("chargeMerchantInitiated", TrustPaymentsProvider.self) {
                _ = try await $0.charge(
                    ChargeRequest(
                        reference: FuzzSeeds.TrustPayments.storedVisaAuth,
                        amount: Money(minorUnits: 1050, currency: "GBP"), initiator: .merchant(.unscheduled)),
                    context: $1
                )
            },
            .on("chargeReauthorisation", TrustPaymentsProvider.self) {
                _ = try await $0.charge(
                    ChargeRequest(
                        reference: FuzzSeeds.TrustPayments.storedVisaAuth,
                        amount: Money(minorUnits: 250, currency: "GBP"), initiator: .merchant(.reauthorisation)),
                    context: $1
                )
            },
        ],
        storedCredentials: [
            StoredCredential(
                reference: FuzzSeeds.TrustPayments.storedVisaAuth, provider: "fuzz-trustpayments",
                maskedPAN: "411111######1111", brand: "VISA", scheme: .visa,
                created: FuzzClock.now
            )
        ]
    )
}

extension FuzzSeeds.TrustPayments {
    static var credentials: [String: Secret] {
        [
            "webservicesUsername": Secret(webservicesUsername), "webservicesPassword": Secret(webservicesPassword),
            "jwtUsername": Secret(jwtUsername), "jwtSecret": Secret(jwtSecret),
        ]
    }
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

extension FuzzTarget {
    /// `trustpayments-responses` and `trustpayments-results`.
    package static let trustPayments: [FuzzTarget] = [
        .responses(.trustPayments),
        FuzzTarget(
            name: "trustpayments-results",
            summary: "Trust Payments response JWT verification and parsing (verifyResult)",
            run: TrustPaymentsResultHarness.run),
    ]
}
