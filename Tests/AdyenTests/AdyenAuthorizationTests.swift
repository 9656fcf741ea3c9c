import AdyenSimulator
@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import Hummingbird
import SharedTestSupport
import Synchronization
import Testing

@_spi(AdapterSupport) @testable import CardGatewayAdyen

/// Relayed authorisation (`balancePlatform.authorisation.relayed`): Adyen's published example read by the adapter,
/// its answers in Adyen's published shape, the Basic credentials checked, every decline reason's `refusalReason`,
/// and end to end: the simulator, playing Adyen, sends to a Hummingbird endpoint that asks the gateway.
@Suite("Adyen relayed authorisation", .timeLimit(.minutes(2)))
struct AdyenAuthorizationTests {
    typealias Seed = AdyenSimulator.Seed
    typealias Relayed = AdyenSimulator.RelayedAuthorisationSettings

    static func provider(
        username: String? = Relayed.username, password: String? = Relayed.password
    ) throws -> AdyenProvider {
        let http = try ProviderHTTPClient(
            instance: "adyen-auth", kind: .adyen, baseURL: URL(string: "https://balanceplatform-api-test.adyen.com")!,
            transport: ScriptedTransport([]))
        return try AdyenProvider(
            http: http, apiKey: Secret(AdyenSimulator.Credentials.apiKey),
            authorizationUsername: username.map(Secret.init), authorizationPassword: password.map(Secret.init))
    }

    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    static func delivery(
        _ body: Data, authorization: [String] = [basic(Relayed.username, Relayed.password)]
    )
        -> WebhookDelivery
    {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        for value in authorization { headers.append(HTTPField(name: .authorization, value: value)) }
        return WebhookDelivery(headers: headers, body: body)
    }

    static func publishedRequest() throws -> Data {
        try Data(contentsOf: PublishedShape.fixtureURL("relayed-authorisation-request.json"))
    }

    static func json(_ data: Data) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    // MARK: The adapter on Adyen's published example

    @Test("Adyen's published request is read into the normalised request")
    func publishedRequestRead() throws {
        let read = try Self.provider().authorization(from: Self.delivery(try Self.publishedRequest()), now: Date())
        let request = read.request
        #expect(request.id == "2ABCBA13456ABCDE")
        #expect(request.providerKind == .adyen && request.kind == .authorization)
        #expect(request.card == CardRef(id: "PI123ABCDEFGHIJKLMN456789", customer: "BA123ABCDEFGHIJKLMN456789"))
        // value -2700 (a debit) is 2700 minor units; originalAmount is the same, so no merchant amount.
        #expect(request.amount == Money(minorUnits: 2_700, currency: "EUR"))
        #expect(request.merchantAmount == nil)
        #expect(!request.amountAdjustable)
        #expect(
            request.merchant
                == AuthorizationRequest.Merchant(
                    name: "Tea Shop NLD", categoryCode: "5813", country: "NL", city: "Amsterdam",
                    networkID: "000123450000123"))
        #expect(request.entryMode == "contactless")
        #expect(request.networkRiskScore == nil)
    }

    @Test("a foreign-currency amount, an alpha-2 or unknown country, a short MCC and a risk score")
    func variations() throws {
        var object = Self.json(try Self.publishedRequest())
        object["amount"] = ["currency": "eur", "value": -1_150]
        object["originalAmount"] = ["currency": "GBP", "value": -1_000]
        object["schemeRiskScore"] = 42
        var merchant = object["merchantData"] as? [String: Any] ?? [:]
        merchant["mcc"] = "742"
        merchant["nameLocation"] = ["country": "GB", "name": "Vet"]
        object["merchantData"] = merchant
        let provider = try Self.provider()
        var request = try provider.authorization(
            from: Self.delivery(try JSONSerialization.data(withJSONObject: object)), now: Date()
        ).request
        #expect(request.amount == Money(minorUnits: 1_150, currency: "EUR"))
        #expect(request.merchantAmount == Money(minorUnits: 1_000, currency: "GBP"))
        #expect(request.merchant.categoryCode == "0742" && request.merchant.country == "GB")
        #expect(request.networkRiskScore == 42 && request.merchant.city == nil)
        merchant["mcc"] = "58131"
        merchant["nameLocation"] = ["country": "XXX"]
        object["merchantData"] = merchant
        request = try provider.authorization(
            from: Self.delivery(try JSONSerialization.data(withJSONObject: object)), now: Date()
        ).request
        #expect(request.merchant.categoryCode == nil && request.merchant.country == nil)
    }

    @Test("the adapter's country table agrees with the simulator's, entry by entry, both ways")
    func countryTables() {
        #expect(CountryCodes.alpha3ToAlpha2.count == 249)
        for (alpha3, alpha2) in CountryCodes.alpha3ToAlpha2 {
            let order = AuthorizationOrder(
                url: "http://127.0.0.1:1/", card: Seed.activeVisaID, amount: 1, currency: "EUR",
                merchant: .init(country: alpha2))
            let sent = AdyenSimulator().relayedAuthorisationMessage(for: order).map(Self.json)
            let location = (sent?["merchantData"] as? [String: Any])?["nameLocation"] as? [String: Any]
            #expect(location?["country"] as? String == alpha3, "\(alpha2)")
        }
        for (alpha3, alpha2) in [("NLD", "NL"), ("USA", "US"), ("GBR", "GB"), ("PRK", "KP"), ("nld", "NL")] {
            #expect(CountryCodes.alpha2(alpha3) == alpha2)
        }
        #expect(CountryCodes.alpha2("ZZZ") == nil && CountryCodes.alpha2("ZZ") == nil)
    }

    // MARK: Answers

    @Test("an approval is Adyen's published answer's decision; every decline reason has its refusalReason")
    func answers() throws {
        let provider = try Self.provider()
        let read = try provider.authorization(from: Self.delivery(try Self.publishedRequest()), now: Date())
        let published = Self.json(
            try Data(contentsOf: PublishedShape.fixtureURL("relayed-authorisation-response.json")))
        let approval = try provider.answer(.approve(), to: read)
        #expect(approval.status == .ok && approval.headers[.contentType] == "application/json")
        #expect(String(decoding: approval.body, as: UTF8.self) == #"{"authorisationDecision":{"status":"Authorised"}}"#)
        #expect(
            Self.json(approval.body)["authorisationDecision"] as? [String: String]
                == published["authorisationDecision"] as? [String: String])
        // An approval for the full amount, named, is the same approval.
        let full = try provider.answer(.approve(amount: read.request.amount), to: read)
        #expect(full.body == approval.body)

        let expected: [AuthorizationDeclineReason: String] = [
            .insufficientFunds: "insufficientFunds", .merchantCategoryBlocked: "merchantCategoryBlocked",
            .merchantCountryBlocked: "merchantCountryBlocked", .amountLimitExceeded: "amountLimitExceeded",
            .cardInactive: "cardInactive", .suspectedFraud: "suspectedFraud", .other: "other",
        ]
        #expect(Set(expected.keys) == Set(AuthorizationDeclineReason.allCases))
        #expect(AdyenProvider.refusalReasons == expected)
        for reason in AuthorizationDeclineReason.allCases {
            let answer = try provider.answer(.decline(reason), to: read)
            #expect(answer.status == .ok)
            #expect(
                String(decoding: answer.body, as: UTF8.self)
                    == #"{"authorisationDecision":{"refusalReason":"\#(expected[reason]!)","status":"Refused"}}"#)
        }
        // Adyen's answer has no amount: a partial approval cannot be written.
        #expect(throws: CardGatewayError.self) {
            _ = try provider.answer(.approve(amount: Money(minorUnits: 100, currency: "EUR")), to: read)
        }
    }

    // MARK: Authentication

    @Test("wrong, missing, repeated or non-Basic credentials are refused as signatureInvalid before the body is read")
    func credentialsRefused() throws {
        let provider = try Self.provider()
        // Not even JSON: refused on the credentials before the body is looked at.
        let garbage = Data("not json".utf8)
        for authorization in [
            [Self.basic(Relayed.username, "wrong-password")], [Self.basic("someone-else", Relayed.password)],
            [Self.basic(Relayed.username, Relayed.password + "x")], [],
            [Self.basic(Relayed.username, Relayed.password), Self.basic(Relayed.username, Relayed.password)],
            ["Bearer " + Relayed.password], ["Basic not-base64!"],
        ] {
            let error = #expect(throws: CardGatewayError.self) {
                _ = try provider.authorization(from: Self.delivery(garbage, authorization: authorization), now: Date())
            }
            #expect(error?.code == .signatureInvalid, "\(authorization.count) header(s)")
            #expect(!(error?.description.contains(Relayed.password) ?? true))
        }
        // The right credentials with an unreadable body, or another notification type: invalidRequest.
        let unreadable = #expect(throws: CardGatewayError.self) {
            _ = try provider.authorization(from: Self.delivery(garbage), now: Date())
        }
        #expect(unreadable?.code == .invalidRequest)
        var other = Self.json(try Self.publishedRequest())
        other["type"] = "balancePlatform.transfer.created"
        let wrongType = #expect(throws: CardGatewayError.self) {
            _ = try provider.authorization(
                from: Self.delivery(try JSONSerialization.data(withJSONObject: other)), now: Date())
        }
        #expect(wrongType?.code == .invalidRequest)
    }

    @Test("without credentials configured a relayed authorisation is a configuration error; half a pair is refused")
    func notConfigured() throws {
        let provider = try Self.provider(username: nil, password: nil)
        let error = #expect(throws: CardGatewayError.self) {
            _ = try provider.authorization(from: Self.delivery(try Self.publishedRequest()), now: Date())
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("authorizationUsername") == true)
        for (user, password) in [(Relayed.username, nil), (nil, Relayed.password), ("a:b", "p"), ("", "p")] {
            let half = #expect(throws: CardGatewayError.self) {
                _ = try Self.provider(username: user, password: password)
            }
            #expect(half?.code == .invalidConfiguration)
        }
        #expect(AdyenProvider.descriptor.capabilities.contains(.authorizations))
        #expect(AdyenProvider.descriptor.authorizationDeadline == .seconds(2))
        let names = ProviderFactory.adyen.credentials.map(\.name)
        #expect(names.contains("authorizationUsername") && names.contains("authorizationPassword"))
    }

    // MARK: End to end

    /// The gateway with one Adyen instance whose decider budget is `budget`, behind a Hummingbird endpoint on
    /// 127.0.0.1 (ephemeral port) at `POST /authorizations/adyen-1`.
    static func withEndpoint(
        budget: Int? = nil, standIn: String = "decline", decider: (any AuthorizationDecider)?,
        _ body: @Sendable (String) async throws -> Void
    ) async throws {
        var registry = ProviderRegistry()
        registry.register(.adyen)
        let json = """
            {"providers": {"adyen-1": {"kind": "adyen", "environment": "test",
               "credentials": {"apiKey": "literal:\(AdyenSimulator.Credentials.apiKey)",
                 "authorizationUsername": "literal:\(Relayed.username)",
                 "authorizationPassword": "literal:\(Relayed.password)"},
               "authorizations": {"budgetMilliseconds": \(budget ?? 1_500), "standIn": "\(standIn)"}}},
             "routes": [],
             "authorizationRules": [{"name": "no gambling", "merchantCategories": ["7995"]}]}
            """
        var configuration = try GatewayConfiguration.load(from: Data(json.utf8), registry: registry)
        if budget == nil {
            // 5 s, set after loading (the configuration keeps a budget below Adyen's 2 s): long enough that a loaded
            // machine cannot make the decider late; the exact timing is AuthorizationTests', on an injected clock.
            configuration.providers["adyen-1"]?.authorizations.budget = .seconds(5)
        }
        let gateway = try CardGateway(configuration: configuration, registry: registry)
        let router = Router()
        router.post("/authorizations/:instance") { request, context -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            let delivery = WebhookDelivery(headers: request.headers, body: Data(buffer: bytes))
            do {
                let outcome = try await gateway.respondToAuthorization(
                    delivery, instance: context.parameters.get("instance") ?? "", decider: decider)
                return Response(
                    status: outcome.answer.status, headers: outcome.answer.headers,
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: outcome.answer.body)))
            } catch let error as CardGatewayError where error.code == .signatureInvalid {
                return Response(status: .unauthorized)
            } catch {
                return Response(status: .badRequest)
            }
        }
        // Adyen's published answer, verbatim (its reference and metadata included).
        router.post("/published") { _, _ -> Response in
            let published = try Data(contentsOf: PublishedShape.fixtureURL("relayed-authorisation-response.json"))
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: published)))
        }
        router.post("/malformed") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"approved": true}"#)))
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) })
        let server = Task { try await app.runService() }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            Issue.record("the endpoint did not start")
            return
        }
        // One delivery without credentials first (a 401 from the gateway), with a generous deadline, so that the
        // connection, the server and the gateway's path are warm before the timed deliveries: a cold first request
        // on a busy machine (the whole suite runs in parallel) could otherwise miss Adyen's two seconds.
        let warmUp = await SimulatedNetwork.send(
            Data("{}".utf8), headers: [.contentType: "application/json"],
            to: "http://127.0.0.1:\(port)/authorizations/adyen-1", deadline: .seconds(30))
        guard case .answered(401, _, _) = warmUp.outcome else {
            Issue.record("the warm-up delivery was not refused: \(warmUp.outcome)")
            return
        }
        try await body("http://127.0.0.1:\(port)")
    }

    static func order(
        _ base: String, path: String = "/authorizations/adyen-1", card: String = Seed.activeVisaID,
        amount: Int64 = 1_250, mcc: String = "5411", deadline: Int? = 15_000
    ) -> AuthorizationOrder {
        AuthorizationOrder(
            url: base + path, card: card, amount: amount, currency: "EUR",
            merchant: .init(name: "Corner Shop", categoryCode: mcc, country: "NL", city: "Amsterdam"),
            deadlineMilliseconds: deadline)
    }

    /// Sends `order` through the simulator's control call and returns its answer as JSON, with the last record.
    static func play(
        _ simulator: AdyenSimulator, _ order: AuthorizationOrder
    ) async throws -> (
        status: Int, body: [String: Any], record: AdyenSimulator.RelayedAuthorisationRecord?
    ) {
        let response = try #require(await simulator.authorize(order))
        return (response.status, json(response.body), simulator.relayedAuthorisations().last)
    }

    @Test("end to end: approved by the decider, declined by a local rule, a reduced amount stood in for, unknown card")
    func endToEnd() async throws {
        let decider = RecordingDecider()
        try await Self.withEndpoint(decider: decider) { base in
            let simulator = AdyenSimulator()
            // Approved: the decider saw the normalised request; Adyen recorded the answer's decision.
            let approved = try await Self.play(simulator, Self.order(base))
            #expect(approved.status == 200)
            #expect(approved.body["status"] as? String == "Authorised")
            #expect(approved.body["decidedBy"] as? String == "relayedAuthorisation")
            #expect(approved.body["fallbackApplied"] as? Bool == false)
            #expect(approved.record?.httpStatus == 200)
            let seen = try #require(decider.requests.first)
            #expect(seen.id == approved.record?.id && seen.instance == "adyen-1" && seen.providerKind == .adyen)
            #expect(seen.card.id == Seed.activeVisaID && seen.amount == Money(minorUnits: 1_250, currency: "EUR"))
            #expect(seen.merchant.country == "NL" && seen.merchant.categoryCode == "5411" && !seen.amountAdjustable)
            // On the wire: HTTP Basic with the seed's credentials, the amount negative, the country alpha-3.
            let sent = try #require(approved.record)
            #expect(sent.headers.contains { $0 == ("Authorization", Self.basic(Relayed.username, Relayed.password)) })
            let message = Self.json(try #require(sent.request))
            #expect((message["amount"] as? [String: Any])?["value"] as? Int == -1_250)
            #expect(
                ((message["merchantData"] as? [String: Any])?["nameLocation"] as? [String: Any])?["country"]
                    as? String == "NLD")

            // Declined by the local rule, the decider not asked; the reason reaches Adyen as refusalReason.
            let calls = decider.requests.count
            let ruled = try await Self.play(simulator, Self.order(base, mcc: "7995"))
            #expect(ruled.body["status"] as? String == "Refused")
            #expect(ruled.body["refusalReason"] as? String == "merchantCategoryBlocked")
            #expect(ruled.body["decidedBy"] as? String == "relayedAuthorisation")
            #expect(decider.requests.count == calls)

            // A reduced amount: Adyen takes none, so the gateway's stand-in (decline) answers instead.
            let reduced = try await Self.play(simulator, Self.order(base, amount: RecordingDecider.reduce))
            #expect(reduced.body["status"] as? String == "Refused")
            #expect(reduced.body["refusalReason"] as? String == "other")
            #expect(reduced.body["fallbackApplied"] as? Bool == false)

            // A declined decision with its reason.
            let poor = try await Self.play(simulator, Self.order(base, amount: RecordingDecider.poor))
            #expect(poor.body["refusalReason"] as? String == "insufficientFunds")

            // Adyen's published answer, reference and metadata included, is read as Authorised.
            let published = try await Self.play(simulator, Self.order(base, path: "/published"))
            #expect(
                published.body["status"] as? String == "Authorised"
                    && published.body["fallbackApplied"] as? Bool == false)

            // An answer that is not Adyen's shape, and a 401 to wrong credentials: the fallback (default refusal).
            let malformed = try await Self.play(simulator, Self.order(base, path: "/malformed"))
            #expect(malformed.body["decidedBy"] as? String == "fallback")
            #expect((malformed.body["fallbackReason"] as? String)?.hasPrefix("unreadable answer") == true)
            let impostor = AdyenSimulator(
                relayedAuthorisation: Relayed(username: Relayed.username, password: "guess", fallback: .defaultApproval)
            )
            let before = decider.requests.count
            let refused = try await Self.play(impostor, Self.order(base))
            #expect(refused.body["fallbackReason"] as? String == "HTTP 401")
            #expect(
                refused.body["status"] as? String == "Authorised" && refused.body["decidedBy"] as? String == "fallback")
            #expect(decider.requests.count == before)

            // Adyen's own refusals: an unknown card (its RestServiceError), an inactive card (not relayed).
            let unknown = try await Self.play(simulator, Self.order(base, card: "PI0000000000000000000NONE"))
            #expect(unknown.status == 404 && unknown.body["errorCode"] as? String == "00_404")
            let inactive = try await Self.play(simulator, Self.order(base, card: Seed.inactiveMastercardID))
            #expect(inactive.body["decidedBy"] as? String == "adyen" && inactive.body["relayed"] as? Bool == false)
            let tooLong = try await Self.play(
                simulator, Self.order(base, deadline: SimulatedNetwork.longestTestDeadline + 1))
            #expect(tooLong.status == 422)
            #expect(simulator.relayedAuthorisations().count == 7)
        }
    }

    @Test("end to end: a decider that never answers gets the stand-in to Adyen before Adyen's deadline")
    func standInBeforeTheDeadline() async throws {
        let decider = SilentDecider()
        defer { decider.release() }
        try await Self.withEndpoint(budget: 200, decider: decider) { base in
            let simulator = AdyenSimulator()
            let played = try await Self.play(simulator, Self.order(base, deadline: 15_000))
            #expect(played.body["decidedBy"] as? String == "relayedAuthorisation", "\(played.body)")
            #expect(played.body["fallbackApplied"] as? Bool == false)
            #expect(played.body["status"] as? String == "Refused" && played.body["refusalReason"] as? String == "other")
            let record = try #require(played.record)
            // Not before the budget; the provider's deadline is generous here, so that a loaded machine cannot miss it
            // (the stand-in's exact timing is CardGatewayTests' AuthorizationTests, on an injected clock).
            #expect(record.elapsed >= .milliseconds(200))
            #expect(decider.asked == 1)
        }
        // With an approve stand-in, the same silence approves.
        let approving = SilentDecider()
        defer { approving.release() }
        try await Self.withEndpoint(budget: 200, standIn: "approve", decider: approving) { base in
            let played = try await Self.play(AdyenSimulator(), Self.order(base, deadline: 15_000))
            #expect(played.body["status"] as? String == "Authorised", "\(played.body)")
            #expect(played.body["decidedBy"] as? String == "relayedAuthorisation")
        }
    }

    @Test("end to end: no answer within Adyen's deadline is Adyen's fallback, as configured")
    func fallbackOnTimeout() async throws {
        let decider = SilentDecider()
        defer { decider.release() }
        // The budget (1,000 ms) is longer than the order's deadline (300 ms): Adyen stops waiting first.
        try await Self.withEndpoint(budget: 1_000, decider: decider) { base in
            let refusing = try await Self.play(AdyenSimulator(), Self.order(base, deadline: 300))
            #expect(
                refusing.body["decidedBy"] as? String == "fallback" && refusing.body["status"] as? String == "Refused")
            #expect(refusing.body["fallbackReason"] as? String == "timeout")
            let approving = AdyenSimulator(
                relayedAuthorisation: Relayed(
                    username: Relayed.username, password: Relayed.password, fallback: .defaultApproval))
            let approved = try await Self.play(approving, Self.order(base, deadline: 300))
            #expect(
                approved.body["status"] as? String == "Authorised" && approved.body["fallbackApplied"] as? Bool == true)
        }
        // Nobody listening: the fallback too.
        let nobody = try await Self.play(AdyenSimulator(), Self.order("http://127.0.0.1:1", deadline: 300))
        #expect(nobody.body["decidedBy"] as? String == "fallback")
    }
}

/// Approves, except two amounts: ``reduce`` asks for less (which Adyen cannot take), ``poor`` declines.
private final class RecordingDecider: AuthorizationDecider {
    static let reduce: Int64 = 4_000
    static let poor: Int64 = 9_999
    private let seen = Mutex<[AuthorizationRequest]>([])
    var requests: [AuthorizationRequest] { seen.withLock { $0 } }

    func decide(_ request: AuthorizationRequest) async throws -> AuthorizationDecision {
        seen.withLock { $0.append(request) }
        switch request.amount.minorUnits {
        case Self.reduce: return .approve(amount: Money(minorUnits: 1_000, currency: request.amount.currency))
        case Self.poor: return .decline(.insufficientFunds)
        default: return .approve()
        }
    }
}

/// Never answers until released (at the end of the test, so no task outlives it).
private final class SilentDecider: AuthorizationDecider {
    private let state = Mutex<(asked: Int, released: Bool, waiters: [CheckedContinuation<Void, Never>])>((0, false, []))
    var asked: Int { state.withLock { $0.asked } }

    func decide(_ request: AuthorizationRequest) async throws -> AuthorizationDecision {
        await withCheckedContinuation { continuation in
            let released = state.withLock { state in
                state.asked += 1
                if !state.released { state.waiters.append(continuation) }
                return state.released
            }
            if released { continuation.resume() }
        }
        return .approve()
    }

    func release() {
        let waiters = state.withLock { state in
            state.released = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
