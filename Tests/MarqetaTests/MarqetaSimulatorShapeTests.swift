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
        "digital wallet tokens: the list and a transition's answer, whose digital_wallet_token is {token}")
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
            // As in Marqeta's example answer: `digital_wallet_token` is `{token}` only.
            #expect(answer.json?["digital_wallet_token"] == .object(["token": .string(Seed.activeToken)]))
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
            (nil, "get-cards-token.response-200.json", "GET", "/cards/mytestcard01", 200),
            (nil, "get-cards-user-token.response-200.json", "GET", "/cards/user/my_user_01", 200),
            ("post-cards.request.json", "post-cards.response-201.json", "POST", "/cards", 201),
            (
                "post-cardtransitions.request.json", "post-cardtransitions.response-201.json", "POST",
                "/cardtransitions", 201
            ),
            (
                "post-digitalwalletprovisionrequests-applepay.request.json",
                "post-digitalwalletprovisionrequests-applepay.response-201.json", "POST",
                "/digitalwalletprovisionrequests/applepay", 201
            ),
            (
                "post-digitalwalletprovisionrequests-androidpay.request.json",
                "post-digitalwalletprovisionrequests-androidpay.response-201.json", "POST",
                "/digitalwalletprovisionrequests/androidpay", 201
            ),
            (
                "samsungpay-request.json", "samsungpay-response.json", "POST",
                "/digitalwalletprovisionrequests/samsungpay", 201
            ),
            (
                nil, "get-digitalwallettokens-card-card_token.response-200.json", "GET",
                "/digitalwallettokens/card/my_card_token_1989", 200
            ),
            (
                "post-digitalwallettokentransitions.request.json",
                "post-digitalwallettokentransitions.response-201.json",
                "POST", "/digitalwallettokentransitions", 201
            ),
            (
                "post-digitalwallettokentransitions.request.json", "error.json", "POST",
                "/digitalwallettokentransitions", 422
            ),
            (
                "post-users-auth-clientaccesstoken.request.json", "post-users-auth-clientaccesstoken.response-201.json",
                "POST", "/users/auth/clientaccesstoken", 201
            ),
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

    /// Members of Marqeta's examples that the simulator does not answer, each with why: they echo what the example
    /// request sent and the adapter never sends (`fulfillment` personalization, `metadata`, the card transition's
    /// `validations` and the cardholder's `user.metadata`).
    static let requestEchoes: Set<String> = ["$.fulfillment", "$.metadata", "$.validations", "$.user"]

    /// Where the simulator's answer departs from Marqeta's example answer `fixture` (PublishedShape).
    static func departures(_ reply: MarqetaSimulatorTests.Reply, from fixture: String) throws -> [String] {
        let published = try JSONValue.parse(try MarqetaPublishedExamplesTests.fixture(fixture))
        let actual = try #require(reply.json, "\(fixture): the simulator answered \(reply.status) without JSON")
        return PublishedShape.differences(actual, from: published).filter { line in
            !requestEchoes.contains { line.hasPrefix($0 + " ") || line.hasPrefix($0 + ".") }
        }
    }

    @Test("the simulator's answers have the shape of Marqeta's example answers, operation by operation")
    func publishedShapes() async throws {
        try await withSimulator(MarqetaSimulator()) { handle in
            func expectShape(
                _ reply: MarqetaSimulatorTests.Reply, _ fixture: String,
                sourceLocation: SourceLocation = #_sourceLocation
            ) throws {
                #expect(
                    (200..<300).contains(reply.status), "\(fixture): \(reply.status)", sourceLocation: sourceLocation)
                let lines = try Self.departures(reply, from: fixture)
                #expect(lines == [], "\(fixture):\n\(lines.joined(separator: "\n"))", sourceLocation: sourceLocation)
            }
            try expectShape(
                try await MarqetaSimulatorTests.send(handle, .get, "/cards/\(Seed.unactivatedCard)"),
                "get-cards-token.response-200.json")
            try expectShape(
                try await MarqetaSimulatorTests.send(handle, .get, "/cards/user/\(Seed.userToken)"),
                "get-cards-user-token.response-200.json")
            try expectShape(
                try await MarqetaSimulatorTests.send(
                    handle, .post, "/cards",
                    body:
                        #"{"token":"card_published_0001","user_token":"\#(Seed.emptyUserToken)","card_product_token":"\#(Seed.physicalProduct)"}"#
                ), "post-cards.response-201.json")
            try expectShape(
                try await MarqetaSimulatorTests.send(
                    handle, .post, "/cardtransitions",
                    body:
                        #"{"token":"ct_published_0001","card_token":"\#(Seed.unactivatedCard)","state":"ACTIVE","channel":"API","reason_code":"00","reason":"activate"}"#
                ), "post-cardtransitions.response-201.json")
            try expectShape(
                try await MarqetaSimulatorTests.send(
                    handle, .post, "/digitalwalletprovisionrequests/applepay",
                    body:
                        #"{"card_token":"\#(Seed.activeCard)","device_type":"MOBILE_PHONE","provisioning_app_version":"2.13.7","certificates":["AAEC","AwQF"],"nonce":"AAEC","nonce_signature":"AAEC"}"#
                ), "post-digitalwalletprovisionrequests-applepay.response-201.json")
            try expectShape(
                try await MarqetaSimulatorTests.send(
                    handle, .post, "/digitalwalletprovisionrequests/androidpay",
                    body:
                        #"{"card_token":"\#(Seed.activeCard)","device_type":"MOBILE_PHONE","provisioning_app_version":"2.13.3","wallet_account_id":"acct","device_id":"dev"}"#
                ), "post-digitalwalletprovisionrequests-androidpay.response-201.json")
            try expectShape(
                try await MarqetaSimulatorTests.send(handle, .get, "/digitalwallettokens/card/\(Seed.walletCard)"),
                "get-digitalwallettokens-card-card_token.response-200.json")
            let transition = try await MarqetaSimulatorTests.send(
                handle, .post, "/digitalwallettokentransitions",
                body:
                    #"{"token":"dwtt_published_0001","digital_wallet_token":{"token":"\#(Seed.suspendedToken)"},"state":"ACTIVE","channel":"API","reason_code":"18","reason":"verified"}"#
            )
            try expectShape(transition, "post-digitalwallettokentransitions.response-201.json")
            #expect(transition.json?["digital_wallet_token"]?.objectValue.map { Array($0.keys) } == ["token"])
            let session = try await MarqetaSimulatorTests.send(
                handle, .post, "/users/auth/clientaccesstoken", body: #"{"card_token":"\#(Seed.activeCard)"}"#)
            try expectShape(session, "post-users-auth-clientaccesstoken.response-201.json")
            #expect(session.json?.objectValue.map { Set($0.keys) } == ["created", "expires", "token"])
        }
    }

    @Test("the shape comparison fails on an answer without a published member")
    func publishedShapeCanFail() throws {
        let reply = MarqetaSimulatorTests.Reply(
            status: 201, body: Data(#"{"created":"2022-07-29T12:00:00Z","token":"t"}"#.utf8))
        #expect(
            try Self.departures(reply, from: "post-users-auth-clientaccesstoken.response-201.json") == [
                "$.expires is missing"
            ])
    }

    @Test("the check catches a Google-shaped Samsung answer and a card without its masked pan")
    func checkCatchesMistakes() async throws {
        try await SpecConformance.requireValidator()
        var card = try #require(
            try JSONValue.parse(try MarqetaPublishedExamplesTests.fixture("get-cards-token.response-200.json"))
                .objectValue)
        card["pan"] = nil
        let google = try MarqetaPublishedExamplesTests.fixture(
            "post-digitalwalletprovisionrequests-androidpay.response-201.json")
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
