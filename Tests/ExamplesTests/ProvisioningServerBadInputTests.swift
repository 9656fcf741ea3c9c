import BridgeSimulator
import CardGateway
import ExampleSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ProvisioningServerApp
import Testing

/// Bad input at the provisioning server, collected in one place (the library's and the CLI's collections are in
/// `BadInputTests.swift`): every case is answered with a problem document — 400 `invalidRequest` naming the
/// field, or 413 for a body over the limit — and the simulators' journals prove no provider was asked.
@Suite("Bad input: the provisioning server", .timeLimit(.minutes(5)))
struct ProvisioningServerBadInputTests {
    static let token = DemoUsers.aliceToken
    static let leaf = BridgeSimulator.TestInputs.leafCertificate.base64EncodedString()
    static let subordinate = BridgeSimulator.TestInputs.subordinateCertificate.base64EncodedString()
    static let nonce = BridgeSimulator.TestInputs.nonce.base64EncodedString()
    static let signature = BridgeSimulator.TestInputs.nonceSignature.base64EncodedString()

    static func apple(_ certificates: [String], nonce: String = nonce, signature: String = signature) -> Data {
        let list = certificates.map { "\"\($0)\"" }.joined(separator: ",")
        return Data(#"{"certificates":[\#(list)],"nonce":"\#(nonce)","nonceSignature":"\#(signature)"}"#.utf8)
    }

    /// Path, body and the status the server must answer; every one of them is refused before any provider call.
    static var cases: [(name: String, method: HTTPRequest.Method, path: String, body: Data?, status: Int)] {
        let applePath = "/v1/cards/everyday/provisioning/applePay"
        let google = "/v1/cards/crypto/provisioning/googlePay"
        return [
            ("card id with percent-encoded traversal", .get, "/v1/cards/..%2F..%2Fadmin", nil, 400),
            ("card id that is a dot segment, encoded", .get, "/v1/cards/%2E%2E", nil, 400),
            ("card id with CRLF", .get, "/v1/cards/every%0D%0Aday", nil, 400),
            ("card id with NUL", .get, "/v1/cards/every%00day", nil, 400),
            ("oversized card id", .get, "/v1/cards/" + String(repeating: "a", count: 2_000), nil, 400),
            ("unknown wallet", .post, "/v1/cards/everyday/provisioning/fruitPay", apple([leaf, subordinate]), 400),
            ("unknown wallet in an offer", .get, "/v1/cards/everyday/provisioning/offer?wallet=fruitPay", nil, 400),
            ("empty body", .post, applePath, Data(), 400),
            ("not JSON", .post, applePath, Data("certificates=1".utf8), 400),
            ("not UTF-8", .post, applePath, Data([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), 400),
            (
                "deeply nested JSON", .post, applePath,
                Data((String(repeating: "[", count: 50_000) + String(repeating: "]", count: 50_000)).utf8), 400
            ),
            (
                "oversized body", .post, applePath,
                Data(#"{"certificates":[""#.utf8) + Data(repeating: UInt8(ascii: "A"), count: 2 * 1024 * 1024)
                    + Data(#""]}"#.utf8), 413
            ),
            ("non-Base64 certificate", .post, applePath, apple(["%%%not base64%%%", subordinate]), 400),
            ("non-Base64 nonce", .post, applePath, apple([leaf, subordinate], nonce: "not base64!"), 400),
            ("no certificates", .post, applePath, apple([]), 400),
            ("one certificate", .post, applePath, apple([leaf]), 400),
            ("three certificates", .post, applePath, apple([leaf, subordinate, subordinate]), 400),
            (
                "a non-DER certificate (hello world in Base64)", .post, applePath,
                apple([Data("hello world".utf8).base64EncodedString(), subordinate]), 400
            ),
            ("an empty nonce", .post, applePath, apple([leaf, subordinate], nonce: ""), 400),
            (
                "Google device id with CRLF", .post, google,
                Data(#"{"clientDeviceId":"dev\r\nX: y","clientWalletAccountId":"account-1"}"#.utf8), 400
            ),
            (
                "Google wallet account id with NUL", .post, google,
                Data(#"{"clientDeviceId":"device-1","clientWalletAccountId":"acc\u0000ount"}"#.utf8), 400
            ),
            (
                "Google ids of the wrong type", .post, google,
                Data(#"{"clientDeviceId":7,"clientWalletAccountId":["a"]}"#.utf8), 400
            ),
            (
                "a key given twice", .post, google,
                Data(
                    #"{"clientDeviceId":"device-1","clientWalletAccountId":"account-1","clientDeviceId":"device-2"}"#
                        .utf8), 400
            ),
            (
                "a key given twice, once escaped", .post, google,
                Data(
                    #"{"clientDeviceId":"device-1","clientWalletAccountId":"account-1","client\u0044eviceId":"device-2"}"#
                        .utf8), 400
            ),
        ]
    }

    @Test("every bad input is a problem document (400 invalidRequest, or 413), and no provider is asked")
    func badInput() async throws {
        try await EmbeddedSimulators().run { running in
            let server = try DemoServer.make(running: running)
            try await server.buildApplication().test(.router) { client in
                // The journals count: a good request reaches a simulator.
                let before = BadInput.sent(running)
                #expect(try await client.send(.get, "/v1/cards/everyday", token: Self.token).status == 200)
                #expect(BadInput.sent(running) > before)

                let start = BadInput.sent(running)
                for (name, method, path, body, status) in Self.cases {
                    var headers = ["Authorization": "Bearer \(Self.token)"]
                    if body != nil { headers["Content-Type"] = "application/json" }
                    let reply = try await client.sendRaw(method, path, body: body ?? Data(), headers: headers)
                    #expect(reply.status == status, "\(name): \(reply.status) \(reply.text.prefix(300))")
                    #expect(
                        reply.contentType == "application/problem+json",
                        "\(name): \(reply.contentType ?? "no content type")")
                    let problem = try? reply.json()
                    if status == 400 {
                        #expect(problem?["code"]?.stringValue == "invalidRequest", "\(name): \(reply.text.prefix(300))")
                    }
                    #expect(problem?["retryable"]?.boolValue == false, "\(name)")
                    #expect(
                        reply.header("Retry-After") == nil, "\(name): Retry-After on an error that must not be repeated"
                    )
                    #expect(
                        !reply.text.contains("hello world") && !reply.text.contains("\r\n"),
                        "\(name): the bad value is echoed")
                }
                #expect(BadInput.sent(running) == start, "a bad input reached a provider")
            }
        }
    }
}
