import CardGateway
import Foundation
import Testing

@testable import CardGatewayTrustPayments

/// The session JWT is written directly (a constant header, one claims encoding, swift-crypto's HMAC); it must be
/// byte for byte the token jwt-kit mints with the same serializer and key, and verify with jwt-kit.
@Suite("Trust Payments: the session JWT is the token jwt-kit mints")
struct TrustPaymentsJWTTests {
    static func claims(orderReference: String?, parent: String?) -> SessionClaims {
        SessionClaims(
            iss: "jwt@merchant.example", iat: 1_764_000_000,
            payload: SessionPayload(
                accounttypedescription: "ECOM", sitereference: "test_site12345", currencyiso3a: "GBP", baseamount: "1050",
                requesttypedescriptions: ["THREEDQUERY", "AUTH"], credentialsonfile: "1",
                parenttransactionreference: parent, orderreference: orderReference
            )
        )
    }

    @Test(
        "same bytes as jwt-kit for short, 32-byte and long secrets, with slashes, non-ASCII text and absent fields",
        arguments: ["short", String(repeating: "k", count: 32), String(repeating: "long-secret/", count: 8), "ünïcödé-secret"]
    )
    func sameToken(secret text: String) async throws {
        let secret = Secret(text)
        for claims in [Self.claims(orderReference: "order/1 é", parent: "1-2-3"), Self.claims(orderReference: nil, parent: nil)] {
            let ours = try await HS256JWT.sign(claims, secret: secret)
            let jwtKit = try await HS256JWT.keys(secret).sign(claims)
            #expect(ours == jwtKit)
            let verified = try await HS256JWT.verify(ours, secret: secret)
            #expect(verified["iss"] == .string("jwt@merchant.example"))
        }
    }

    @Test("base64url without padding for every length mod 3")
    func base64URL() {
        for length in 0..<8 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 251) }
            var output: [UInt8] = []
            HS256JWT.appendBase64URL(bytes, to: &output)
            #expect(String(decoding: output, as: UTF8.self) == ByteEncoding.base64URL(Data(bytes)))
        }
    }
}
