@testable import CardGateway
import Foundation
import JWTKit
import SharedTestSupport
import Testing

@testable import CardGatewayTrustPayments

/// The session JWT is jwt-kit's; the Webservices bodies are `JSONEncoder`'s and the answers `JSONDecoder`'s. Each is
/// checked against something that is not the adapter's code: the header Trust Payments publishes, an HMAC computed
/// here with swift-crypto over the raw secret (``IndependentJWT``), a key collection of the test's own, the published
/// example's fields, and the answer read as a JSON tree.
@Suite(
    "Trust Payments: session JWTs are jwt-kit's, request bodies JSONEncoder's, answers JSONDecoder's",
    .timeLimit(.minutes(5)))
struct TrustPaymentsJWTTests {
    static func claims(orderReference: String?, parent: String?) -> SessionClaims {
        SessionClaims(
            iss: "jwt@merchant.example", iat: 1_764_000_000,
            payload: SessionPayload(
                accounttypedescription: "ECOM", sitereference: "test_site12345", currencyiso3a: "GBP",
                baseamount: "1050",
                requesttypedescriptions: ["THREEDQUERY", "AUTH"], credentialsonfile: "1",
                parenttransactionreference: parent, orderreference: orderReference
            )
        )
    }

    /// Trust Payments' JWT page: header `{"alg":"HS256","typ":"JWT"}`, encoded `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9`.
    static let publishedHeader = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"

    @Test(
        "a session JWT has the published header, an HMAC-SHA256 of the raw secret, and exactly the claims signed",
        arguments: [
            "short", String(repeating: "k", count: 32), String(repeating: "long-secret/", count: 8), "ünïcödé-secret",
        ]
    )
    func sessionToken(secret text: String) async throws {
        let secret = Secret(text)
        for claims in [
            Self.claims(orderReference: "order/1 é", parent: "1-2-3"), Self.claims(orderReference: nil, parent: nil),
        ] {
            let token = try await HS256JWT.sign(claims, secret: secret)
            let decoded = try IndependentJWT.decode(token)
            #expect(decoded.rawParts[0] == Self.publishedHeader)
            #expect(decoded.headerText == #"{"alg":"HS256","typ":"JWT"}"#)
            // The signature is computed here, with swift-crypto, under the secret's own bytes (no padding).
            #expect(decoded.signatureIsValid(secret: text))
            #expect(!decoded.signatureIsValid(secret: text + "x"))

            #expect(Set(decoded.claims.keys) == ["iat", "iss", "payload"])
            #expect(decoded.claims["iss"] as? String == "jwt@merchant.example")
            #expect((decoded.claims["iat"] as? NSNumber)?.int64Value == 1_764_000_000)
            var expected: [String: Any] = [
                "accounttypedescription": "ECOM", "sitereference": "test_site12345", "currencyiso3a": "GBP",
                "baseamount": "1050",
                "requesttypedescriptions": ["THREEDQUERY", "AUTH"], "credentialsonfile": "1",
            ]
            if let order = claims.payload.orderreference { expected["orderreference"] = order }
            if let parent = claims.payload.parenttransactionreference {
                expected["parenttransactionreference"] = parent
            }
            #expect(NSDictionary(dictionary: decoded.payload).isEqual(to: expected), "payload \(decoded.payload)")
            // Keys sorted and slashes unescaped in the claims as minted.
            let claimsText = String(
                decoding: try #require(IndependentJWT.base64URLDecode(decoded.rawParts[1])), as: UTF8.self)
            #expect(
                claimsText.hasPrefix(
                    #"{"iat":1764000000,"iss":"jwt@merchant.example","payload":{"accounttypedescription":"ECOM","baseamount":"1050","#
                ))
            #expect(!claimsText.contains(#"\/"#))

            // The adapter's own verification (jwt-kit) accepts it.
            let verified = try await HS256JWT.verify(token, secret: secret)
            #expect(verified["iss"] == .string("jwt@merchant.example"))
            #expect(verified["payload"]?["sitereference"] == .string("test_site12345"))
        }
    }

    @Test("a session JWT verifies with a jwt-kit key collection of the test's own and decodes to the claims signed")
    func sessionTokenVerifiesWithJWTKit() async throws {
        // At least 32 bytes, so that jwt-kit takes the secret as it is.
        let text = "a-jwt-secret-of-forty-bytes-0123456789ab"
        let keys = await JWTKeyCollection().add(hmac: HMACKey(from: text), digestAlgorithm: .sha256)
        for claims in [
            Self.claims(orderReference: "order-9", parent: "56-9-1920047"),
            Self.claims(orderReference: nil, parent: nil),
        ] {
            let token = try await HS256JWT.sign(claims, secret: Secret(text))
            let read = try await keys.verify(token, as: SessionClaims.self)
            #expect(read.iss == claims.iss)
            #expect(read.iat == claims.iat)
            #expect(read.payload.accounttypedescription == claims.payload.accounttypedescription)
            #expect(read.payload.sitereference == claims.payload.sitereference)
            #expect(read.payload.currencyiso3a == claims.payload.currencyiso3a)
            #expect(read.payload.baseamount == claims.payload.baseamount)
            #expect(read.payload.requesttypedescriptions == claims.payload.requesttypedescriptions)
            #expect(read.payload.credentialsonfile == claims.payload.credentialsonfile)
            #expect(read.payload.parenttransactionreference == claims.payload.parenttransactionreference)
            #expect(read.payload.orderreference == claims.payload.orderreference)
            let other = await JWTKeyCollection().add(hmac: HMACKey(from: text + "-other"), digestAlgorithm: .sha256)
            await #expect(throws: (any Error).self) { _ = try await other.verify(token, as: SessionClaims.self) }
        }
    }

    /// The stored properties of a value, by name (what a wire type holds).
    static func propertyNames(_ value: Any) -> Set<String> {
        Set(Mirror(reflecting: value).children.compactMap(\.label))
    }

    @Test("every field of the session claims and of a charge request is on the wire when set: none is dropped")
    func noFieldDropped() async throws {
        let claims = Self.claims(orderReference: "order-1", parent: "1-2-3")
        let decoded = try IndependentJWT.decode(try await HS256JWT.sign(claims, secret: Secret("secret")))
        #expect(Set(decoded.claims.keys) == Self.propertyNames(claims))
        #expect(Set(decoded.payload.keys) == Self.propertyNames(claims.payload))

        let request = Self.publishedCharge(orderReference: "order-1")
        let body = try #require(
            try JSONSerialization.jsonObject(with: TrustPaymentsAPI.bodyEncoder.encode(Self.envelope(request)))
                as? [String: Any])
        let element = try #require((body["request"] as? [[String: Any]])?.first)
        #expect(Set(element.keys) == Self.propertyNames(request))
        #expect(Set(body.keys) == Self.propertyNames(Self.envelope(request)))
    }

    /// The published merchant-initiated AUTH example's fields (trustpayments.md, section b), with what the adapter
    /// adds to every request.
    static func publishedCharge(orderReference: String?) -> MerchantInitiatedAuthRequest {
        MerchantInitiatedAuthRequest(
            requesttypedescriptions: ["AUTH"], accounttypedescription: "ECOM", sitereference: "test_site12345",
            parenttransactionreference: "2-9-4617572", baseamount: "1050", currencyiso3a: "GBP", credentialsonfile: "2",
            initiationreason: "C", requestreference: "A0bxxrf42", versioninfo: "Swift::6::CardGateway::1.0",
            orderreference: orderReference
        )
    }

    static func envelope(_ request: MerchantInitiatedAuthRequest) -> WebservicesEnvelope<MerchantInitiatedAuthRequest> {
        WebservicesEnvelope(
            alias: "ws@merchant", version: "1.00", request: [request], libraryversion: "swift_cardgateway_1.0")
    }

    @Test(
        "a charge's body is the published example's fields, keys sorted, slashes unescaped, an absent order reference left out"
    )
    func chargeBody() throws {
        let withOrder = String(
            decoding: try TrustPaymentsAPI.bodyEncoder.encode(
                Self.envelope(Self.publishedCharge(orderReference: "order/7"))), as: UTF8.self)
        #expect(
            withOrder
                == #"{"alias":"ws@merchant","libraryversion":"swift_cardgateway_1.0","request":[{"accounttypedescription":"ECOM","baseamount":"1050","credentialsonfile":"2","currencyiso3a":"GBP","initiationreason":"C","orderreference":"order/7","parenttransactionreference":"2-9-4617572","requestreference":"A0bxxrf42","requesttypedescriptions":["AUTH"],"sitereference":"test_site12345","versioninfo":"Swift::6::CardGateway::1.0"}],"version":"1.00"}"#
        )
        let without = String(
            decoding: try TrustPaymentsAPI.bodyEncoder.encode(Self.envelope(Self.publishedCharge(orderReference: nil))),
            as: UTF8.self)
        #expect(without == withOrder.replacingOccurrences(of: #""orderreference":"order/7","#, with: ""))
    }

    /// Text with everything a JSON string writer must get right: quotes, backslashes, slashes, every control
    /// character, DEL, non-ASCII (two, three and four UTF-8 bytes) and U+2028.
    static func awkwardText(_ generator: inout some RandomNumberGenerator) -> String {
        let pieces: [String] =
            ["\"", "\\", "/", "a", "Z", "0", " ", "é", "€", "😀", "\u{2028}", "\u{7F}", "\\u", "</"]
            + (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
        return (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
            .joined()
    }

    @Test("a charge's body reads back, with JSONSerialization, as the text it was given, for any text")
    func chargeBodyRoundTrips() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<500 {
            let request = MerchantInitiatedAuthRequest(
                requesttypedescriptions: (0..<(round % 3)).map { _ in Self.awkwardText(&generator) },
                accounttypedescription: Self.awkwardText(&generator), sitereference: Self.awkwardText(&generator),
                parenttransactionreference: Self.awkwardText(&generator), baseamount: Self.awkwardText(&generator),
                currencyiso3a: Self.awkwardText(&generator), credentialsonfile: Self.awkwardText(&generator),
                initiationreason: Self.awkwardText(&generator), requestreference: Self.awkwardText(&generator),
                versioninfo: Self.awkwardText(&generator),
                orderreference: round % 4 == 0 ? nil : Self.awkwardText(&generator)
            )
            let data = try TrustPaymentsAPI.bodyEncoder.encode(Self.envelope(request))
            let body = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let element = try #require((body["request"] as? [[String: Any]])?.first)
            #expect(element["requesttypedescriptions"] as? [String] == request.requesttypedescriptions)
            #expect(element["sitereference"] as? String == request.sitereference)
            #expect(element["parenttransactionreference"] as? String == request.parenttransactionreference)
            #expect(element["versioninfo"] as? String == request.versioninfo)
            #expect(element["orderreference"] as? String == request.orderreference)
            #expect((element["orderreference"] == nil) == (request.orderreference == nil))
        }
    }

    /// What the adapter reads of an answer, through the accessors.
    static func reading(_ answer: (requestReference: String?, elements: [ResponseElement]?)?) -> String {
        guard let answer else { return "not an object" }
        let elements = answer.elements.map { elements in
            elements.map { element in
                [
                    element.errorCode, element.errorMessage, element.requestType, element.transactionReference,
                    element.parentTransactionReference, element.settleStatus, element.maskedPAN, element.paymentType,
                    element.authCode,
                    element.baseAmount, element.currency, element.credentialsOnFile, element.string("walletsource"),
                    element.string("sitereference"),
                ].map { $0 ?? "<nil>" }.joined(separator: "|") + " errordata=\(element.errorData)"
            }
        }
        return "\(answer.requestReference ?? "<nil>") \(elements.map { $0.joined(separator: "; ") } ?? "<no elements>")"
    }

    @Test("a Webservices answer decoded with JSONDecoder reads as the JSON tree, for every member type and shape")
    func answerReadsAsTheTree() throws {
        var generator = SystemRandomNumberGenerator()
        let names = [
            "errorcode", "errormessage", "requesttypedescription", "transactionreference", "parenttransactionreference",
            "settlestatus",
            "maskedpan", "paymenttypedescription", "authcode", "baseamount", "currencyiso3a", "credentialsonfile",
            "walletsource",
            "sitereference", "errordata", "unknownfield",
        ]
        func value(_ depth: Int = 0) -> String {
            switch Int.random(in: 0..<(depth > 1 ? 6 : 9), using: &generator) {
            case 0, 1, 2:
                return "\"" + ["0", "AUTH", "56-9-123456", "411111######1111", "Ok", "\\\"quoted\\\" é", "", "1050"]
                    .randomElement(using: &generator)! + "\""
            case 3: return ["0", "1050", "-7", "10.5", "1e3", "12345678901234567"].randomElement(using: &generator)!
            case 4: return Bool.random(using: &generator) ? "true" : "false"
            case 5: return "null"
            case 6, 7:
                return "["
                    + (0..<Int.random(in: 0...3, using: &generator)).map { _ in value(depth + 1) }.joined(
                        separator: ",") + "]"
            default: return "{\"a\":" + value(depth + 1) + "}"
            }
        }
        func element() -> String {
            "{"
                + names.filter { _ in Bool.random(using: &generator) }.map { "\"\($0)\":\(value())" }.joined(
                    separator: ",") + "}"
        }
        for _ in 0..<3_000 {
            let body: String
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: body = "[" + element() + "]"
            case 1: body = #"{"requestreference":"A1","response":"# + value() + "}"
            case 2: body = #"{"requestreference":"# + value() + #","response":["# + element() + "]}"
            case 3: body = #"{"requestreference":"A1","response":["# + element() + "," + value() + "]}"
            case 4: body = #"{"requestreference":"A1"}"#
            default:
                body =
                    #"{"requestreference":"A1","version":"1.00","response":["#
                    + (0..<Int.random(in: 1...3, using: &generator)).map { _ in element() }.joined(separator: ",")
                    + "]}"
            }
            let data = Data(body.utf8)
            let tree = (try? JSONValue.parse(data).objectValue).map { object in
                (requestReference: object["requestreference"]?.stringValue, elements: responseElements(object))
            }
            let decoded = (try? JSONDecoder().decode(WebservicesAnswer.self, from: data)).map { answer in
                (requestReference: answer.requestreference, elements: answer.response)
            }
            #expect(Self.reading(decoded) == Self.reading(tree), "body \(body)")
        }
    }

    @Test("the published Webservices answer decodes with every published field of its element")
    func publishedAnswer() throws {
        let data = try Data(contentsOf: PublishedShape.fixtureURL("webservices-response.json"))
        let published = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let answer = try JSONDecoder().decode(WebservicesAnswer.self, from: data)
        #expect(answer.requestreference == published["requestreference"] as? String)
        let elements = try #require(answer.response)
        let publishedElements = try #require(published["response"] as? [[String: Any]])
        #expect(elements.count == publishedElements.count)
        for (element, publishedElement) in zip(elements, publishedElements) {
            #expect(Set(element.fields.keys) == Set(publishedElement.keys))
            for (name, value) in publishedElement {
                if let text = value as? String { #expect(element.string(name) == text, "\(name)") }
            }
        }
    }
}
