import CardGateway
import CardGatewaySimulation
import Foundation
import MarqetaSimulator
import SharedTestSupport
import Synchronization
import Testing

/// The simulator's answers against Marqeta's own Core API document (Swagger 2.0, `marqeta-core-api-swagger-2024-01-19.json`),
/// validated by the same `jsonschema` check as the adapter's wire (`scripts/spec-conformance.py`, see
/// ``MarqetaSpecConformanceTests``): for the simulator's own answers to requests written here, and for the fixtures. On
/// top of the schema, the members the adapter relies on are asserted by value. Error bodies are Marqeta's
/// `{error_code, error_message}` with the status as the code's first three digits.
@Suite("Marqeta simulator answers as Marqeta's document declares", .timeLimit(.minutes(5)))
struct MarqetaSimulatorShapeTests {
    typealias Seed = MarqetaSimulator.Seed

    /// The exchanges of one test, validated together at its end (one validator run per test).
    final class Exchanges: Sendable {
        private let list = Mutex<[SpecExchange]>([])

        /// One answer (and the request that asked for it) for `method path` (a concrete path below `/v3`).
        func add(
            _ reply: MarqetaSimulatorTests.Reply, _ method: String, _ path: String, request: String? = nil,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            let exchange = WireExchange(
                method: method, path: "/v3" + path, requestBody: request.map { Data($0.utf8) }, status: reply.status,
                responseBody: reply.body)
            list.withLock {
                $0.append(
                    SpecExchange("\(method) \(path) #\($0.count + 1)", document: "swagger", exchange, adapter: true))
            }
        }

        func add(_ exchange: SpecExchange) { list.withLock { $0.append(exchange) } }

        /// Runs the validator over every exchange and expects no finding.
        func check(sourceLocation: SourceLocation = #_sourceLocation) async throws {
            try await SpecConformance.requireValidator(sourceLocation: sourceLocation)
            let exchanges = list.withLock { $0 }
            var run = MarqetaSpecConformanceTests.run(exchanges)
            run.partial = true
            let report = try await SpecConformance.check(run)
            SpecConformance.expectConformance(report, covering: [], sourceLocation: sourceLocation)
        }
    }

    /// An error answer: exactly `error_code` (a string whose first three digits are the status) and `error_message`.
    static func isMarqetaError(
        _ reply: MarqetaSimulatorTests.Reply, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(reply.status == status, sourceLocation: sourceLocation)
        let members = reply.json?.objectValue ?? [:]
        #expect(
            Set(members.keys) == ["error_code", "error_message"], "\(members.keys.sorted())",
            sourceLocation: sourceLocation)
        #expect(members["error_code"]?.stringValue?.count == 6, sourceLocation: sourceLocation)
        #expect(members["error_code"]?.stringValue?.hasPrefix(String(status)) == true, sourceLocation: sourceLocation)
        #expect(members["error_message"]?.stringValue?.isEmpty == false, sourceLocation: sourceLocation)
    }

    @Test("cards: retrieve, list by user, create (with and without token), transition")
    func cards() async throws {
        let checked = Exchanges()
        try await withSimulator(MarqetaSimulator()) { handle in
            let card = try await MarqetaSimulatorTests.send(handle, .get, "/cards/\(Seed.activeCard)")
            checked.add(card, "GET", "/cards/\(Seed.activeCard)")
            #expect(card.json?["pan"]?.stringValue == "111111______4242")
            #expect(card.json?["barcode"]?.stringValue?.allSatisfy(\.isNumber) == true)
            #expect(card.json?["pin_is_set"] == .bool(false))

            checked.add(
                try await MarqetaSimulatorTests.send(handle, .get, "/cards/user/\(Seed.userToken)?count=10"), "GET",
                "/cards/user/\(Seed.userToken)?count=10")

            let create =
                #"{"token":"card_shape_0001","user_token":"\#(Seed.emptyUserToken)","card_product_token":"\#(Seed.physicalProduct)"}"#
            let created = try await MarqetaSimulatorTests.send(handle, .post, "/cards", body: create)
            #expect(created.status == 201)
            checked.add(created, "POST", "/cards", request: create)
            let minted = #"{"user_token":"\#(Seed.emptyUserToken)","card_product_token":"\#(Seed.virtualProduct)"}"#
            checked.add(
                try await MarqetaSimulatorTests.send(handle, .post, "/cards", body: minted), "POST", "/cards",
                request: minted)

            let transition =
                #"{"token":"ct_shape_0001","card_token":"\#(Seed.lockableCard)","state":"SUSPENDED","channel":"API","reason_code":"10","reason":"lost"}"#
            let answer = try await MarqetaSimulatorTests.send(handle, .post, "/cardtransitions", body: transition)
            #expect(answer.status == 201)
            checked.add(answer, "POST", "/cardtransitions", request: transition)
            #expect(answer.json?["pin_is_set"] == .bool(false))
            #expect(answer.json?["pan"]?.stringValue == "111111______1881")
        }
        try await checked.check()
    }

    @Test("provisioning: Apple Pay, Google Pay and Samsung Pay each in its own response definition")
    func provisioning() async throws {
        let checked = Exchanges()
        try await withSimulator(MarqetaSimulator()) { handle in
            let apple =
                #"{"card_token":"\#(Seed.activeCard)","device_type":"MOBILE_PHONE","provisioning_app_version":"1.0","certificates":["AAEC","AwQF"],"nonce":"AAEC","nonce_signature":"AAEC"}"#
            let appleAnswer = try await MarqetaSimulatorTests.send(
                handle, .post, "/digitalwalletprovisionrequests/applepay", body: apple)
            #expect(appleAnswer.status == 201)
            checked.add(appleAnswer, "POST", "/digitalwalletprovisionrequests/applepay", request: apple)
            let google =
                #"{"card_token":"\#(Seed.activeCard)","device_type":"WATCH","provisioning_app_version":"1.0","wallet_account_id":"acct","device_id":"dev"}"#
            let googleAnswer = try await MarqetaSimulatorTests.send(
                handle, .post, "/digitalwalletprovisionrequests/androidpay", body: google)
            #expect(googleAnswer.status == 201)
            checked.add(googleAnswer, "POST", "/digitalwalletprovisionrequests/androidpay", request: google)
            #expect(
                googleAnswer.json?["push_tokenize_request_data"]?["opaque_payment_card"]?.stringValue?.isEmpty == false)

            let samsung =
                #"{"card_token":"\#(Seed.activeCard)","device_type":"TABLET","provisioning_app_version":"1.0","wallet_user_id":"user","device_id":"dev"}"#
            let samsungAnswer = try await MarqetaSimulatorTests.send(
                handle, .post, "/digitalwalletprovisionrequests/samsungpay", body: samsung)
            #expect(samsungAnswer.status == 201)
            checked.add(samsungAnswer, "POST", "/digitalwalletprovisionrequests/samsungpay", request: samsung)
            let data = try #require(samsungAnswer.json?["push_tokenize_request_data"]?.objectValue)
            #expect(
                Set(data.keys) == [
                    "display_name", "last_digits", "network", "token_service_provider", "extra_provision_payload",
                    "card_type",
                ])
            #expect(data["opaque_payment_card"] == nil)
            #expect(data["last_digits"]?.stringValue == "4242")
            #expect(data["extra_provision_payload"]?.stringValue.flatMap { Data(base64Encoded: $0) }?.isEmpty == false)
        }
        try await checked.check()
    }

    @Test(
        "digital wallet tokens: the list and a transition's answer, whose digital_wallet_token is {token, card_token}")
    func walletTokens() async throws {
        let checked = Exchanges()
        try await withSimulator(MarqetaSimulator()) { handle in
            let list = try await MarqetaSimulatorTests.send(
                handle, .get, "/digitalwallettokens/card/\(Seed.walletCard)")
            checked.add(list, "GET", "/digitalwallettokens/card/\(Seed.walletCard)")
            for token in list.json?["data"]?.arrayValue ?? [] {
                #expect(token["token_service_provider"]?["pan_reference_id"]?.stringValue?.isEmpty == false)
            }
            let transition =
                #"{"token":"dwtt_shape_0001","digital_wallet_token":{"token":"\#(Seed.activeToken)","card_token":"\#(Seed.walletCard)"},"state":"SUSPENDED","channel":"API","reason_code":"06"}"#
            let answer = try await MarqetaSimulatorTests.send(
                handle, .post, "/digitalwallettokentransitions", body: transition)
            #expect(answer.status == 201)
            checked.add(answer, "POST", "/digitalwallettokentransitions", request: transition)
            #expect(
                answer.json?["digital_wallet_token"]
                    == .object(["token": .string(Seed.activeToken), "card_token": .string(Seed.walletCard)]))
        }
        try await checked.check()
    }

    @Test("error bodies: 400, 401, 404, 409 and 422 in Marqeta's shape")
    func errors() async throws {
        try await withSimulator(MarqetaSimulator()) { handle in
            Self.isMarqetaError(try await MarqetaSimulatorTests.send(handle, .get, "/cards/card_sim_missing_9999"), 404)
            Self.isMarqetaError(
                try await MarqetaSimulatorTests.send(handle, .get, "/cards/\(Seed.activeCard)", password: "nope"), 401)
            Self.isMarqetaError(try await MarqetaSimulatorTests.send(handle, .post, "/cards", body: "not json"), 400)
            let first =
                #"{"token":"card_err_0001","user_token":"\#(Seed.emptyUserToken)","card_product_token":"\#(Seed.virtualProduct)"}"#
            _ = try await MarqetaSimulatorTests.send(handle, .post, "/cards", body: first)
            let other =
                #"{"token":"card_err_0001","user_token":"\#(Seed.emptyUserToken)","card_product_token":"\#(Seed.physicalProduct)"}"#
            Self.isMarqetaError(try await MarqetaSimulatorTests.send(handle, .post, "/cards", body: other), 409)
            let final =
                #"{"digital_wallet_token":{"token":"\#(Seed.terminatedToken)"},"state":"ACTIVE","channel":"API"}"#
            Self.isMarqetaError(
                try await MarqetaSimulatorTests.send(handle, .post, "/digitalwallettokentransitions", body: final), 422)
        }
    }

    @Test("the fixtures hold to the same document: each request fixture with its answer, as one exchange")
    func fixtures() async throws {
        let checked = Exchanges()
        let pairs: [(request: String?, response: String, method: String, path: String, status: Int)] = [
            (nil, "card.json", "GET", "/cards/my_card_01", 200),
            (nil, "cards-by-user.json", "GET", "/cards/user/my_user_01", 200),
            ("createcard-request.json", "card.json", "POST", "/cards", 201),
            ("cardtransition-request.json", "cardtransition-response.json", "POST", "/cardtransitions", 201),
            (
                "applepay-request.json", "applepay-response.json", "POST", "/digitalwalletprovisionrequests/applepay",
                201
            ),
            (
                "androidpay-request.json", "androidpay-response.json", "POST",
                "/digitalwalletprovisionrequests/androidpay", 201
            ),
            (
                "samsungpay-request.json", "samsungpay-response.json", "POST",
                "/digitalwalletprovisionrequests/samsungpay", 201
            ),
            (nil, "digitalwallettokens-by-card.json", "GET", "/digitalwallettokens/card/my_card_01", 200),
            (
                "digitalwallettokentransition-request.json", "digitalwallettokentransition-response.json", "POST",
                "/digitalwallettokentransitions", 201
            ),
            ("digitalwallettokentransition-request.json", "error.json", "POST", "/digitalwallettokentransitions", 422),
        ]
        for pair in pairs {
            let exchange = WireExchange(
                method: pair.method, path: "/v3" + pair.path,
                requestBody: try pair.request.map { try MarqetaPublishedExamplesTests.fixture($0) },
                status: pair.status,
                responseBody: try MarqetaPublishedExamplesTests.fixture(pair.response)
            )
            checked.add(
                SpecExchange("fixture \(pair.request ?? pair.response)", document: "swagger", exchange, adapter: true))
        }
        try await checked.check()
    }

    @Test("the check catches a Google-shaped Samsung answer and a card without its masked pan")
    func checkCatchesMistakes() async throws {
        try await SpecConformance.requireValidator()
        var card = try #require(try JSONValue.parse(try MarqetaPublishedExamplesTests.fixture("card.json")).objectValue)
        card["pan"] = nil
        let google = try MarqetaPublishedExamplesTests.fixture("androidpay-response.json")
        let report = try await SpecConformance.check(
            MarqetaSpecConformanceTests.run([
                SpecExchange(
                    "samsung", document: "swagger",
                    WireExchange(
                        method: "POST", path: "/v3/digitalwalletprovisionrequests/samsungpay", status: 201,
                        responseBody: google), adapter: true),
                SpecExchange(
                    "card", document: "swagger",
                    WireExchange(
                        method: "GET", path: "/v3/cards/c", status: 200,
                        responseBody: try JSONEncoder().encode(JSONValue.object(card))), adapter: true),
            ]))
        #expect(
            report.findings.contains { $0.hasPrefix("[samsung]") && $0.contains("opaque_payment_card") },
            "\(report.findings)")
        #expect(report.findings.contains { $0.hasPrefix("[card]") && $0.contains("pan") }, "\(report.findings)")
    }
}
