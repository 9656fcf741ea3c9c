@testable import CardGateway
import Foundation
import Testing

@testable import CardGatewayTrustPayments

/// The session JWT is written directly (a constant header, one claims encoding, swift-crypto's HMAC); it must be
/// byte for byte the token jwt-kit mints with the same serializer and key, and verify with jwt-kit.
@Suite("Trust Payments: the session JWT is the token jwt-kit mints, bodies written directly are JSONEncoder's, answers read as the JSON tree")
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

    @Test("a charge's envelope written directly is JSONEncoder's bytes for any text, with and without an order reference")
    func envelopeIsTheEncoders() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<2_000 {
            let envelope = WebservicesEnvelope(
                alias: Self.awkwardText(&generator), version: Self.awkwardText(&generator),
                request: (0..<(1 + round % 2)).map { _ in
                    MerchantInitiatedAuthRequest(
                        requesttypedescriptions: (0..<(round % 3)).map { _ in Self.awkwardText(&generator) },
                        accounttypedescription: Self.awkwardText(&generator), sitereference: Self.awkwardText(&generator),
                        parenttransactionreference: Self.awkwardText(&generator), baseamount: Self.awkwardText(&generator),
                        currencyiso3a: Self.awkwardText(&generator), credentialsonfile: Self.awkwardText(&generator),
                        initiationreason: Self.awkwardText(&generator), requestreference: Self.awkwardText(&generator),
                        versioninfo: Self.awkwardText(&generator), orderreference: round % 4 == 0 ? nil : Self.awkwardText(&generator)
                    )
                },
                libraryversion: Self.awkwardText(&generator)
            )
            let expected = try HS256JWT.claimsEncoder.encode(envelope)
            #expect(envelope.sortedJSON == Array(expected), "envelope \(String(decoding: expected, as: UTF8.self).debugDescription)")
        }
    }

    /// What the adapter reads of an answer, through the accessors.
    static func reading(_ answer: (requestReference: String?, elements: [ResponseElement]?)?) -> String {
        guard let answer else { return "not an object" }
        let elements = answer.elements.map { elements in
            elements.map { element in
                [
                    element.errorCode, element.errorMessage, element.requestType, element.transactionReference,
                    element.parentTransactionReference, element.settleStatus, element.maskedPAN, element.paymentType, element.authCode,
                    element.baseAmount, element.currency, element.credentialsOnFile, element.string("walletsource"),
                    element.string("sitereference"),
                ].map { $0 ?? "<nil>" }.joined(separator: "|") + " errordata=\(element.errorData)"
            }
        }
        return "\(answer.requestReference ?? "<nil>") \(elements.map { $0.joined(separator: "; ") } ?? "<no elements>")"
    }

    @Test("a Webservices answer read through ResponseDecoder reads as the JSON tree, for every member type and shape")
    func answerReadsAsTheTree() throws {
        var generator = SystemRandomNumberGenerator()
        let names = [
            "errorcode", "errormessage", "requesttypedescription", "transactionreference", "parenttransactionreference", "settlestatus",
            "maskedpan", "paymenttypedescription", "authcode", "baseamount", "currencyiso3a", "credentialsonfile", "walletsource",
            "sitereference", "errordata", "unknownfield",
        ]
        func value(_ depth: Int = 0) -> String {
            switch Int.random(in: 0..<(depth > 1 ? 6 : 9), using: &generator) {
            case 0, 1, 2: return "\"" + ["0", "AUTH", "56-9-123456", "411111######1111", "Ok", "\\\"quoted\\\" é", "", "1050"].randomElement(using: &generator)! + "\""
            case 3: return ["0", "1050", "-7", "10.5", "1e3", "12345678901234567"].randomElement(using: &generator)!
            case 4: return Bool.random(using: &generator) ? "true" : "false"
            case 5: return "null"
            case 6, 7: return "[" + (0..<Int.random(in: 0...3, using: &generator)).map { _ in value(depth + 1) }.joined(separator: ",") + "]"
            default: return "{\"a\":" + value(depth + 1) + "}"
            }
        }
        func element() -> String {
            "{" + names.filter { _ in Bool.random(using: &generator) }.map { "\"\($0)\":\(value())" }.joined(separator: ",") + "}"
        }
        for _ in 0..<3_000 {
            let body: String
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: body = "[" + element() + "]"
            case 1: body = #"{"requestreference":"A1","response":"#  + value() + "}"
            case 2: body = #"{"requestreference":"# + value() + #","response":["# + element() + "]}"
            case 3: body = #"{"requestreference":"A1","response":["# + element() + "," + value() + "]}"
            case 4: body = #"{"requestreference":"A1"}"#
            default: body = #"{"requestreference":"A1","version":"1.00","response":["# + (0..<Int.random(in: 1...3, using: &generator)).map { _ in element() }.joined(separator: ",") + "]}"
            }
            let data = Data(body.utf8)
            let tree = (try? JSONValue.parse(data).objectValue).map { object in
                (requestReference: object["requestreference"]?.stringValue, elements: responseElements(object))
            }
            #expect(Self.reading(webservicesAnswer(data)) == Self.reading(tree), "body \(body)")
        }
        // The usual answer takes the fast path: it decodes as the shape.
        let usual = Data(#"{"requestreference":"A1","version":"1.00","response":[{"errorcode":"0","errormessage":"Ok","requesttypedescription":"AUTH","transactionreference":"56-9-123456","settlestatus":"0","baseamount":"1050","currencyiso3a":"GBP","authcode":"TEST12","errordata":[],"secrand":"x"}]}"#.utf8)
        #expect(ResponseDecoder().fastDecode(WebservicesAnswer.self, from: usual) != nil)
    }
}
