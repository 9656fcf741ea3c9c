import BridgeSimulator
import CardGateway
import CardGatewayTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ProvisioningServerApp
import Testing

@Suite("Provisioning server: routes, authentication, ownership, cards and provisioning", .timeLimit(.minutes(5)))
struct ProvisioningServerTests {
    @Test("GET /health answers ok without authentication")
    func health() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let reply = try await client.send(.get, "/health", token: nil)
            #expect(reply.status == 200)
            #expect(try reply.json() == .object(["status": .string("ok")]))
            #expect(reply.header("X-Request-ID")?.isEmpty == false)
        }
        #expect(fixture.backend.totalCalls == 0)
    }

    @Test("GET /openapi.json is OpenAPI 3.1 and documents exactly the routes the router serves")
    func openAPIListsEveryRoute() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let reply = try await client.send(.get, "/openapi.json", token: nil)
            #expect(reply.status == 200)
            #expect(reply.contentType == "application/json; charset=utf-8")
            let document = try reply.json()
            #expect(document["openapi"]?.stringValue?.hasPrefix("3.1") == true)
            let paths = try #require(document["paths"]?.objectValue)
            let endpoints = fixture.server.endpoints
            #expect(endpoints.count == 21)
            for endpoint in endpoints {
                let operation = paths[endpoint.path]?[endpoint.method.lowercased()]
                #expect(operation != nil, "\(endpoint) is not in the OpenAPI document")
                let security = operation?["security"]
                if endpoint.requiresAuthentication {
                    #expect(security == nil, "\(endpoint) needs the document's default bearer security")
                } else {
                    #expect(security == .array([]), "\(endpoint) must say it needs no authentication")
                }
            }
            let documented = paths.flatMap { path, item in
                (item.objectValue ?? [:]).keys.map { "\($0.uppercased()) \(path)" }
            }
            #expect(Set(documented) == Set(endpoints.map(\.description)))
            #expect(ProvisioningServer.openAPIDocument == reply.body)
        }
    }

    @Test("missing, malformed and unknown bearer tokens get 401 with WWW-Authenticate and nothing reaches a provider")
    func unauthenticated() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let attempts: [(HTTPRequest.Method, String, [String: String])] = [
                (.get, "/v1/cards", [:]),
                (.get, "/v1/cards", ["Authorization": "Bearer not-a-known-token"]),
                (.get, "/v1/cards", ["Authorization": "Basic \(Fixture.aliceToken)"]),
                (.get, "/v1/cards", ["Authorization": "Bearer "]),
                (.get, "/v1/cards/\(Fixture.payloadCard)", ["Authorization": "Bearer \(Fixture.aliceToken)x"]),
                (.post, "/v1/cards/\(Fixture.payloadCard)/provisioning/applePay", [:]),
                (.get, "/v1/wallet-extension", [:]),
                (.get, "/v1/wallet-extension/status", [:]),
                (.post, "/v1/credentials/session", [:]),
                (.get, "/v1/credentials", [:]),
            ]
            for (method, uri, headers) in attempts {
                let reply = try await client.send(method, uri, token: nil, json: "{}", headers: headers)
                #expect(reply.status == 401, "\(method) \(uri)")
                #expect(reply.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
                let problem = try reply.problem()
                #expect(problem["status"] == .number(401))
                #expect(!reply.text.contains(Fixture.aliceToken))
            }
        }
        #expect(fixture.backend.totalCalls == 0)
    }

    @Test("unknown cards and other users' cards get the same 404 and nothing reaches a provider")
    func ownership() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            var bodies: Set<String> = []
            for card in ["no-such-card", Fixture.bobCard] {
                let requests: [(HTTPRequest.Method, String, String?)] = [
                    (.get, "/v1/cards/\(card)", nil),
                    (.get, "/v1/cards/\(card)/provisioning/offer?wallet=applePay", nil),
                    (
                        .post, "/v1/cards/\(card)/provisioning/applePay",
                        #"{"certificates":["AQID"],"nonce":"AQID","nonceSignature":"AQID"}"#
                    ),
                    (.post, "/v1/cards/\(card)/provisioning/googlePay/confirm", #"{"deviceAccountReference":"DAR-1"}"#),
                ]
                for (method, uri, body) in requests {
                    let reply = try await client.send(method, uri, json: body)
                    #expect(reply.status == 404, "\(method) \(uri)")
                    var problem = try reply.problem()
                    #expect(problem["code"] == .string("notFound"))
                    if case .object(var members) = problem {
                        members["requestId"] = nil
                        problem = .object(members)
                    }
                    bodies.insert(problem.description)
                }
            }
            #expect(bodies.count == 1, "unknown and foreign cards must be indistinguishable")
            // Bob sees his own card.
            #expect(try await client.send(.get, "/v1/cards/\(Fixture.bobCard)", token: Fixture.bobToken).status == 200)
        }
        #expect(fixture.backend.count("card") == 1)
        #expect(fixture.backend.count("offer") == 0)
        #expect(fixture.backend.count("provision") == 0)
        #expect(fixture.backend.count("confirm") == 0)
    }

    @Test("GET /v1/cards lists the user's cards with their provider instances; one failing provider hides nothing else")
    func listCards() async throws {
        let fixture = try Fixture()
        fixture.backend.fail(
            cardID: "PI_2002", with: CardGatewayError(.providerUnavailable, "the relay provider is down"))
        try await fixture.withClient { client in
            let reply = try await client.send(.get, "/v1/cards")
            #expect(reply.status == 200)
            #expect(reply.header("Cache-Control") == "no-store")
            let cards = try #require(try reply.json()["cards"]?.arrayValue)
            #expect(cards.map { $0["id"]?.stringValue } == [Fixture.payloadCard, Fixture.relayCard, Fixture.keyCard])
            #expect(cards.map { $0["provider"]?.stringValue } == ["payload", "relay", "key"])
            #expect(cards[0]["status"] == .string("active"))
            #expect(cards[0]["lastFour"] == .string("4242"))
            #expect(cards[0]["network"] == .string("visa"))
            #expect(cards[0]["displayName"] == .string("Everyday"))
            #expect(cards[0]["wallets"] == .array([.string("applePay"), .string("googlePay")]))
            #expect(cards[0]["error"] == nil)
            #expect(cards[1]["error"]?["status"] == .number(503))
            #expect(cards[1]["error"]?["code"] == .string("providerUnavailable"))
            #expect(cards[1]["lastFour"] == nil)
            #expect(cards[2]["status"] == .string("active"))
            // Provider ids, customers and BINs stay on the server.
            for hidden in ["pc_1001", "cust_alice", "42424242", "PI_2002", "the relay provider is down"] {
                #expect(!reply.text.contains(hidden), "\(hidden) leaked")
            }
            // Bob sees only his.
            let bob = try await client.send(.get, "/v1/cards", token: Fixture.bobToken)
            #expect(try bob.json()["cards"]?.arrayValue?.map { $0["id"]?.stringValue } == [Fixture.bobCard])
        }
    }

    @Test("GET /v1/cards/{cardId} answers one normalised card")
    func getCard() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let reply = try await client.send(.get, "/v1/cards/\(Fixture.relayCard)")
            #expect(reply.status == 200)
            let card = try reply.json()
            #expect(card["id"] == .string(Fixture.relayCard))
            #expect(card["provider"] == .string("relay"))
            #expect(card["expiry"] == .object(["month": .number(12), "year": .number(2030)]))
            #expect(card["walletTokens"]?.arrayValue?.first?["walletId"] == .string("W-1"))
            #expect(card["walletTokens"]?.arrayValue?.first?["deviceAccountReference"] == .string("DAR-1"))
        }
        #expect(fixture.backend.count("card") == 1)
    }

    @Test(
        "the offer names the flow and what the wallet sheet needs; wallets the app does not offer are not asked about")
    func offer() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let apple = try await client.send(
                .get, "/v1/cards/\(Fixture.payloadCard)/provisioning/offer?wallet=applePay")
            #expect(apple.status == 200)
            let offer = try apple.json()
            #expect(offer["cardId"] == .string(Fixture.payloadCard))
            #expect(offer["eligible"] == .bool(true))
            #expect(offer["flow"] == .string("encryptedPayload"))
            #expect(offer["provider"] == .string("payload"))
            #expect(offer["cardholderName"] == .string("Alice Example"))
            #expect(offer["primaryAccountIdentifier"] == .string("PAI-pc_1001"))
            #expect(offer["network"] == .string("visa"))

            let relay = try await client.send(
                .get, "/v1/cards/\(Fixture.relayCard)/provisioning/offer?wallet=googlePay")
            #expect(try relay.json()["flow"] == .string("issuerSDKRelay"))

            let notOffered = try await client.send(
                .get, "/v1/cards/\(Fixture.keyCard)/provisioning/offer?wallet=googlePay")
            #expect(notOffered.status == 200)
            #expect(try notOffered.json()["eligible"] == .bool(false))
            #expect(try notOffered.json()["ineligibleReason"]?["code"] == .string("walletNotOffered"))

            let unknown = try await client.send(
                .get, "/v1/cards/\(Fixture.payloadCard)/provisioning/offer?wallet=bitcoinPay")
            #expect(unknown.status == 400)
            #expect(try unknown.problem()["code"] == .string("invalidRequest"))
            let missing = try await client.send(.get, "/v1/cards/\(Fixture.payloadCard)/provisioning/offer")
            #expect(missing.status == 400)
        }
        #expect(fixture.backend.count("offer") == 2)
    }

    @Test(
        "Apple Pay by encrypted payload: Base64 certificates, nonce and signature in; activation data, pass data and key out"
    )
    func applePayEncryptedPayload() async throws {
        let fixture = try Fixture()
        // The gateway refuses a chain that is not two DER certificates, so these are real ones (the simulators').
        let leaf = BridgeSimulator.TestInputs.leafCertificate
        let subCA = BridgeSimulator.TestInputs.subordinateCertificate
        let nonce = Data([0xde, 0xad, 0xbe, 0xef])
        let signature = Data((0..<48).map { UInt8($0 * 3 & 0xff) })
        try await fixture.withClient { client in
            let body =
                #"{"certificates":["\#(leaf.base64)","\#(subCA.base64)"],"nonce":"\#(nonce.base64)","nonceSignature":"\#(signature.base64)"}"#
            let reply = try await client.send(
                .post, "/v1/cards/\(Fixture.payloadCard)/provisioning/applePay", json: body)
            #expect(reply.status == 200)
            let payload = try reply.json()
            #expect(payload["activationData"] == .string("activation-pc_1001".base64))
            #expect(payload["encryptedPassData"] == .string("encrypted-pass-pc_1001".base64))
            #expect(payload["ephemeralPublicKey"] == .string("ephemeral-public-key".base64))
            #expect(reply.header("Cache-Control") == "no-store")
        }
        let input = try #require(fixture.backend.lastInput)
        #expect(
            input
                == .applePay(
                    ApplePayProvisioningInput(certificates: [leaf, subCA], nonce: nonce, nonceSignature: signature)))
    }

    @Test("Google Pay by encrypted payload: device ids in, opaque payment card out")
    func googlePayEncryptedPayload() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let reply = try await client.send(
                .post, "/v1/cards/\(Fixture.payloadCard)/provisioning/googlePay",
                json: #"{"clientDeviceId":"device-123","clientWalletAccountId":"wallet-456"}"#
            )
            #expect(reply.status == 200)
            let payload = try reply.json()
            #expect(payload["opaquePaymentCard"] == .string("opaque-card-pc_1001".base64))
            #expect(payload["network"] == .string("visa"))
            #expect(payload["tokenProvider"] == .string("VISA"))
        }
        #expect(
            fixture.backend.lastInput
                == .googlePay(
                    GooglePayProvisioningInput(clientDeviceID: "device-123", clientWalletAccountID: "wallet-456")))
    }

    @Test("the issuer SDK relay starts without sdkOutput and relays each sdkOutput for the next sdkInput")
    func issuerSDKRelay() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let start = try await client.send(.post, "/v1/cards/\(Fixture.relayCard)/provisioning/applePay", json: "{}")
            #expect(start.status == 200)
            #expect(try start.json() == .object(["sdkInput": .string("start-PI_2002".base64)]))
            #expect(fixture.backend.lastInput == .issuerSDK(output: nil))

            let output = Data("sdk-output-bytes/+=".utf8)
            let next = try await client.send(
                .post, "/v1/cards/\(Fixture.relayCard)/provisioning/applePay",
                json: #"{"sdkOutput":"\#(output.base64)"}"#)
            #expect(next.status == 200)
            #expect(try next.json()["sdkInput"] == .string((Data("next-".utf8) + output).base64))
            #expect(fixture.backend.lastInput == .issuerSDK(output: SensitiveData(output)))
        }
    }

    @Test("the issuer SDK key comes back as the provider's JSON, byte for byte")
    func issuerSDKKey() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let reply = try await client.send(
                .post, "/v1/cards/\(Fixture.keyCard)/provisioning/applePay", json: #"{"apiVersion":"2020-08-27"}"#)
            #expect(reply.status == 200)
            #expect(reply.contentType == "application/json; charset=utf-8")
            #expect(reply.body == Data(FakeBackend.ephemeralKeyJSON.utf8))
            #expect(reply.header("Cache-Control") == "no-store")
        }
        #expect(fixture.backend.lastInput == .issuerSDKKey(apiVersion: "2020-08-27"))
    }

    @Test(
        "bad Base64, bad JSON, unknown wallets and bodies outside the document get 400; another flow's body gets 409; all before any provider call"
    )
    func malformedProvisioningBodies() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let applePay = "/v1/cards/\(Fixture.payloadCard)/provisioning/applePay"
            // 400: the body breaks the document (field named where the decoder or the checks can name it).
            let cases: [(uri: String, body: String, field: String?)] = [
                (applePay, #"{"certificates":["AQID"],"nonce":"not base64!","nonceSignature":"AQID"}"#, "nonce"),
                (
                    applePay, #"{"certificates":["AQID","%%%"],"nonce":"AQID","nonceSignature":"AQID"}"#,
                    "certificates[1]"
                ),
                (applePay, #"{"certificates":["AQID"],"nonce":"AQJ=","nonceSignature":"AQID"}"#, "nonce"),
                (applePay, #"{"certificates":[],"nonce":"AQID","nonceSignature":"AQID"}"#, "certificates"),
                (applePay, #"{"certificates":"AQID","nonce":"AQID","nonceSignature":"AQID"}"#, "body"),
                (applePay, #"{"certificates":["AQID"],"nonce":"AQI","nonceSignature":"AQID"}"#, "nonce"),
                (applePay, #"{"certificates":["AQID"],"nonce":"AQID"}"#, "body"),
                (applePay, #"{"certificates":["AQID"],"nonce":"AQID","nonceSignature":"AQID""#, nil),
                (applePay, #"["AQID"]"#, nil),
                (
                    "/v1/cards/\(Fixture.payloadCard)/provisioning/googlePay",
                    #"{"clientDeviceId":42,"clientWalletAccountId":"w"}"#, "body"
                ),
                (
                    "/v1/cards/\(Fixture.payloadCard)/provisioning/googlePay",
                    #"{"clientDeviceId":"","clientWalletAccountId":"w"}"#, "clientDeviceId"
                ),
                ("/v1/cards/\(Fixture.relayCard)/provisioning/applePay", #"{"sdkOutput":"A-B_"}"#, "sdkOutput"),
                (
                    "/v1/cards/\(Fixture.keyCard)/provisioning/applePay", #"{"apiVersion":"2020-08-27; drop"}"#,
                    "apiVersion"
                ),
                ("/v1/cards/\(Fixture.keyCard)/provisioning/applePay", #"{"apiVersion":""}"#, "apiVersion"),
                ("/v1/cards/\(Fixture.payloadCard)/provisioning/bitcoinPay", #"{}"#, nil),
            ]
            for (uri, body, field) in cases {
                let reply = try await client.send(.post, uri, json: body)
                #expect(reply.status == 400, "\(uri) \(body)")
                let problem = try reply.problem()
                #expect(problem["code"] == .string("invalidRequest"))
                if let field {
                    let fields = problem["errors"]?.arrayValue?.compactMap { $0["field"]?.stringValue } ?? []
                    #expect(fields.contains(field), "\(body): \(fields)")
                }
            }
            // 409: a body the document accepts, of another flow than the card's provider uses; its fields are named.
            let otherFlow: [(uri: String, body: String, field: String)] = [
                (applePay, #"{"clientDeviceId":"d","clientWalletAccountId":"w"}"#, "clientDeviceId"),
                (applePay, #"{"sdkOutput":"AQID"}"#, "sdkOutput"),
                (
                    "/v1/cards/\(Fixture.relayCard)/provisioning/googlePay",
                    #"{"certificates":["AQID"],"nonce":"AQID","nonceSignature":"AQID"}"#, "certificates"
                ),
                ("/v1/cards/\(Fixture.keyCard)/provisioning/applePay", #"{}"#, "body"),
            ]
            for (uri, body, field) in otherFlow {
                let reply = try await client.send(.post, uri, json: body)
                #expect(reply.status == 409, "\(uri) \(body)")
                let fields = try reply.problem()["errors"]?.arrayValue?.compactMap { $0["field"]?.stringValue } ?? []
                #expect(fields.contains(field), "\(body): \(fields)")
            }
            // A wallet the app does not offer for the card is refused before any provider call.
            let notOffered = try await client.send(
                .post, "/v1/cards/\(Fixture.keyCard)/provisioning/googlePay", json: "{}")
            #expect(notOffered.status == 409)
            #expect(try notOffered.problem()["code"] == .string("cardNotEligible"))
        }
        #expect(fixture.backend.totalCalls == 0)
    }

    @Test("confirm passes the device account reference on and answers 204")
    func confirm() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let reply = try await client.send(
                .post, "/v1/cards/\(Fixture.payloadCard)/provisioning/googlePay/confirm",
                json: #"{"deviceAccountReference":"DAR-77","walletId":"W-9"}"#
            )
            #expect(reply.status == 204)
            #expect(reply.body.isEmpty)
            let missing = try await client.send(
                .post, "/v1/cards/\(Fixture.payloadCard)/provisioning/googlePay/confirm", json: #"{"walletId":"W-9"}"#)
            #expect(missing.status == 400)
        }
        #expect(fixture.backend.count("confirm") == 1)
        #expect(
            fixture.backend.lastConfirmation
                == ProvisioningConfirmation(
                    card: CardRef(id: "pc_1001", customer: "cust_alice"), wallet: .googlePay,
                    deviceAccountReference: "DAR-77", walletID: "W-9"))
    }

    @Test(
        "Idempotency-Key and a solved SCA challenge (one X-SCA-Authorization header) reach the provider's operation context"
    )
    func operationContextHeaders() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let path = "/v1/cards/\(Fixture.relayCard)/provisioning/applePay"
            // Malformed: one part, an empty part, three parts, characters outside the tokens.
            for value in ["evt-1", "evt-1;", ";wop-1", "evt-1;wop-1;x", "evt 1;wop-1", "evt-1,wop-1"] {
                let reply = try await client.send(.post, path, json: "{}", headers: ["X-SCA-Authorization": value])
                #expect(reply.status == 400, "\(value)")
                #expect(firstErrorField(try reply.problem()) == "X-SCA-Authorization", "\(value)")
                #expect(!reply.text.contains(value), "the refused value is echoed")
            }
            // The two headers of earlier versions are refused, naming the one that replaces them.
            for headers in [
                ["X-SCA-Event-Id": "evt-1"], ["X-SCA-Event-Id": "evt-1", "X-SCA-Wallet-Operation-Id": "wop-1"],
            ] {
                let reply = try await client.send(.post, path, json: "{}", headers: headers)
                #expect(reply.status == 400)
                #expect(firstErrorField(try reply.problem()) == "X-SCA-Authorization")
            }
            let badKey = try await client.send(.post, path, json: "{}", headers: ["Idempotency-Key": "has space"])
            #expect(badKey.status == 400)
            #expect(fixture.backend.count("provision") == 0)

            let good = try await client.send(
                .post, path, json: "{}",
                headers: ["Idempotency-Key": "op-123", "X-SCA-Authorization": "evt-1;wop-1", "X-Request-ID": "req-abc"]
            )
            #expect(good.status == 200)
            #expect(good.header("X-Request-ID") == "req-abc")
            #expect(fixture.backend.lastSCA == SCAAuthorization(eventID: "evt-1", walletOperationID: "wop-1"))
            #expect(fixture.backend.lastIdempotencyKey?.isEmpty == false)

            // An empty value carries no challenge, as the document says.
            let empty = try await client.send(.post, path, json: "{}", headers: ["X-SCA-Authorization": ""])
            #expect(empty.status == 200)
            #expect(fixture.backend.lastSCA == nil)
        }
        #expect(fixture.backend.count("provision") == 2)
    }

    @Test("an unknown path gets a 404 problem")
    func unknownPath() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let reply = try await client.send(.get, "/v2/everything")
            #expect(reply.status == 404)
            _ = try reply.problem()
        }
    }
}
