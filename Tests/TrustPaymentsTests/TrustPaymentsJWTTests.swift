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
            let ours = HS256JWT.sign(session: claims, secret: secret)
            let jwtKit = try await HS256JWT.keys(secret).sign(claims)
            #expect(ours == jwtKit)
            // The generic path (the claims through JSONEncoder) mints the same token.
            #expect(try await HS256JWT.sign(claims, secret: secret) == jwtKit)
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

    /// Text with everything a JSON string writer must get right: quotes, backslashes, slashes, every control
    /// character, DEL, non-ASCII (two, three and four UTF-8 bytes) and U+2028.
    static func awkwardText(_ generator: inout some RandomNumberGenerator) -> String {
        let pieces: [String] = ["\"", "\\", "/", "a", "Z", "0", " ", "é", "€", "😀", "\u{2028}", "\u{7F}", "\\u", "</"]
            + (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
        return (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    @Test("the claims written directly are JSONEncoder's bytes for any text, with and without the optional claims")
    func sortedJSONIsTheEncoders() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<2_000 {
            let claims = SessionClaims(
                iss: Self.awkwardText(&generator), iat: Int64.random(in: -1_000_000...Int64.max, using: &generator),
                payload: SessionPayload(
                    accounttypedescription: Self.awkwardText(&generator), sitereference: Self.awkwardText(&generator),
                    currencyiso3a: Self.awkwardText(&generator), baseamount: Self.awkwardText(&generator),
                    requesttypedescriptions: (0..<(round % 4)).map { _ in Self.awkwardText(&generator) },
                    credentialsonfile: Self.awkwardText(&generator),
                    parenttransactionreference: round % 3 == 0 ? nil : Self.awkwardText(&generator),
                    orderreference: round % 5 == 0 ? nil : Self.awkwardText(&generator)
                )
            )
            let expected = try HS256JWT.claimsEncoder.encode(claims)
            #expect(claims.sortedJSON == Array(expected), "claims \(String(decoding: expected, as: UTF8.self).debugDescription)")
        }
    }
}
