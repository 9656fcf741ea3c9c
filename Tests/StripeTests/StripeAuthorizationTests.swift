@_spi(AdapterSupport) import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import SharedTestSupport
import Synchronization
import Testing

@_spi(AdapterSupport) @testable import CardGatewayStripe
@testable import StripeSimulator

/// Stripe's published `issuing.authorization` (stripe/openapi fixtures3, `Fixtures/stripe-fixtures3-issuing-r4.json`)
/// in the `issuing_authorization.request` event Stripe sends, signed here as Stripe documents (HMAC-SHA256 of
/// `"{t}.{body}"` under the endpoint's secret, written apart from the adapter).
enum StripeAuthorizationFixture {
    static let secret = "whsec_realTimeAuthorizationEndpoint0001"
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/stripe-fixtures3-issuing-r4.json")

    /// Stripe's example authorization, changed by `change`.
    static func authorization(_ change: (inout [String: Any]) -> Void = { _ in }) throws -> [String: Any] {
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var object = try #require((document["resources"] as? [String: Any])?["issuing.authorization"] as? [String: Any])
        change(&object)
        return object
    }

    /// The event around `object`, as Stripe's `event` schema has it.
    static func event(_ object: [String: Any], apiVersion: String? = "2024-06-20") throws -> Data {
        let event: [String: Any] = [
            "id": "evt_1Pgc77B7WZ01zgkWauthreq1", "object": "event", "api_version": apiVersion ?? NSNull(),
            "created": 1_721_948_600, "data": ["object": object], "livemode": false, "pending_webhooks": 1,
            "request": ["id": NSNull(), "idempotency_key": NSNull()], "type": "issuing_authorization.request",
        ]
        return try JSONSerialization.data(withJSONObject: event, options: [.sortedKeys])
    }

    static func delivery(_ body: Data, secret: String = secret, at time: Date) -> WebhookDelivery {
        let t = Int64(time.timeIntervalSince1970)
        var message = Data("\(t).".utf8)
        message.append(body)
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Data(secret.utf8)))
        let hex = mac.map { String(format: "%02x", $0) }.joined()
        var headers = HTTPFields()
        headers[HTTPField.Name("Stripe-Signature")!] = "t=\(t),v1=\(hex)"
        headers[.contentType] = "application/json; charset=utf-8"
        return WebhookDelivery(headers: headers, body: body)
    }

    static func provider(secret: String? = secret, apiVersion: String? = nil) throws -> StripeProvider {
        try Fixture.provider(
            ScriptedTransport([]),
            configuration: StripeConfiguration(
                secretKey: Secret(StripeSimulator.Credentials.default.testSecretKey),
                authorizationWebhookSecret: secret.map { Secret($0) }, apiVersion: apiVersion))
    }

    /// The answer's body as JSON.
    static func body(_ answer: AuthorizationAnswer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]) ?? [:]
    }
}

@Suite("Stripe real-time authorizations: issuing_authorization.request read and answered", .timeLimit(.minutes(2)))
struct StripeAuthorizationTests {
    typealias F = StripeAuthorizationFixture
    let now = Date(timeIntervalSince1970: 1_721_948_610)

    @Test("Stripe's published authorization is read into the normalised request")
    func publishedExample() throws {
        let read = try F.provider().authorization(
            from: F.delivery(try F.event(try F.authorization()), at: now), now: now)
        let request = read.request
        #expect(request.id == "iauth_1Pgc77B7WZ01zgkWn0SmtHBY")
        #expect(request.providerKind == .stripe && request.kind == .authorization)
        #expect(request.card.id == "ic_1Pgag5B7WZ01zgkWephORn8N")
        // pending_request: 700 usd, not controllable; the merchant amount is the same, so none is given.
        #expect(request.amount == Money(minorUnits: 700, currency: "USD"))
        #expect(request.merchantAmount == nil && !request.amountAdjustable && request.networkRiskScore == nil)
        #expect(
            request.merchant
                == AuthorizationRequest.Merchant(
                    name: "Rocket Rides", categoryCode: "4121", country: "US", city: "San Francisco",
                    networkID: "1234567890"))
        #expect(request.entryMode == "keyed_in")
        #expect(read.echo == ["stripeVersion": "2024-06-20"])
    }

    @Test("controllable amounts, merchant amounts in another currency, risk scores and incremental requests")
    func variants() throws {
        let object = try F.authorization {
            $0["pending_request"] = [
                "amount": 1_500, "currency": "usd", "is_amount_controllable": true, "merchant_amount": 1_400,
                "merchant_currency": "eur", "network_risk_score": 42, "amount_details": NSNull(),
            ]
            $0["merchant_data"] = [
                "category": "service_stations", "category_code": "5541", "network_id": "7", "country": "gb",
            ]
            $0["approved"] = true
            $0["amount"] = 5_000
            $0["request_history"] = [
                [
                    "amount": 5_000, "approved": true, "created": 1_721_948_500, "currency": "usd",
                    "merchant_amount": 5_000, "merchant_currency": "usd", "reason": "webhook_approved",
                ]
            ]
        }
        let request = try F.provider().authorization(from: F.delivery(try F.event(object), at: now), now: now).request
        #expect(request.kind == .incremental && request.amountAdjustable && request.networkRiskScore == 42)
        #expect(request.amount == Money(minorUnits: 1_500, currency: "USD"))
        #expect(request.merchantAmount == Money(minorUnits: 1_400, currency: "EUR"))
        #expect(request.merchant.country == "GB" && request.merchant.categoryCode == "5541")

        // A declined earlier request is no approved authorization to add to.
        let declined = try F.authorization {
            $0["request_history"] = [["amount": 700, "approved": false, "reason": "webhook_declined"]]
        }
        #expect(
            try F.provider().authorization(from: F.delivery(try F.event(declined), at: now), now: now).request.kind
                == .authorization)
    }

    @Test("the answer: HTTP 200, the event's Stripe-Version, approved, the amount only when it is reduced")
    func answers() throws {
        let provider = try F.provider()
        let plain = try provider.authorization(from: F.delivery(try F.event(try F.authorization()), at: now), now: now)
        let approve = try provider.answer(.approve(), to: plain)
        #expect(approve.status == .ok && String(decoding: approve.body, as: UTF8.self) == #"{"approved":true}"#)
        #expect(approve.headers[HTTPField.Name("Stripe-Version")!] == "2024-06-20")
        #expect(approve.headers[.contentType] == "application/json")

        let controllable = try provider.authorization(
            from: F.delivery(
                try F.event(
                    try F.authorization {
                        var pending = $0["pending_request"] as! [String: Any]
                        pending["is_amount_controllable"] = true
                        $0["pending_request"] = pending
                    }, apiVersion: "2025-03-31.basil"), at: now),
            now: now)
        let partial = try provider.answer(
            .approve(amount: Money(minorUnits: 350, currency: "USD")), to: controllable)
        #expect(String(decoding: partial.body, as: UTF8.self) == #"{"amount":350,"approved":true}"#)
        #expect(partial.headers[HTTPField.Name("Stripe-Version")!] == "2025-03-31.basil")
        // A reduced amount where Stripe does not allow one is refused, never sent.
        #expect(throws: CardGatewayError.self) {
            _ = try provider.answer(.approve(amount: Money(minorUnits: 350, currency: "USD")), to: plain)
        }
    }

    @Test(
        "every decline reason, in metadata.decline_reason (Stripe's answer takes no reason)",
        arguments: AuthorizationDeclineReason.allCases)
    func declineReasons(_ reason: AuthorizationDeclineReason) throws {
        let provider = try F.provider()
        let read = try provider.authorization(from: F.delivery(try F.event(try F.authorization()), at: now), now: now)
        let answer = try provider.answer(.decline(reason), to: read)
        let expected = [
            AuthorizationDeclineReason.insufficientFunds: "insufficientFunds",
            .merchantCategoryBlocked: "merchantCategoryBlocked", .merchantCountryBlocked: "merchantCountryBlocked",
            .amountLimitExceeded: "amountLimitExceeded", .cardInactive: "cardInactive",
            .suspectedFraud: "suspectedFraud", .other: "other",
        ][reason]!
        #expect(
            String(decoding: answer.body, as: UTF8.self)
                == #"{"approved":false,"metadata":{"decline_reason":"\#(expected)"}}"#)
        #expect(answer.status == .ok && StripeProvider.declineReasonMetadata[reason] == expected)
    }

    @Test("a wrong secret, a changed body, an old signature or no secret configured: refused before reading")
    func refused() throws {
        let body = try F.event(try F.authorization())
        let provider = try F.provider()
        for delivery in [
            F.delivery(body, secret: "whsec_someOtherEndpointsSecret00", at: now),
            WebhookDelivery(headers: F.delivery(body, at: now).headers, body: body + Data(" ".utf8)),
            F.delivery(body, at: now.addingTimeInterval(-301)),
            WebhookDelivery(headers: [:], body: body),
        ] {
            let error = #expect(throws: CardGatewayError.self) {
                _ = try provider.authorization(from: delivery, now: now)
            }
            #expect(error?.code == .signatureInvalid)
        }
        // The ordinary webhook secret does not verify the synchronous endpoint's deliveries.
        let ordinary = try Fixture.provider(
            ScriptedTransport([]),
            configuration: StripeConfiguration(
                secretKey: Secret(StripeSimulator.Credentials.default.testSecretKey), webhookSecret: Secret(F.secret)))
        let missing = #expect(throws: CardGatewayError.self) {
            _ = try ordinary.authorization(from: F.delivery(body, at: now), now: now)
        }
        #expect(missing?.code == .invalidConfiguration)
        #expect(missing?.message.contains("authorizationWebhookSecret") == true)
        #expect(missing?.message.contains(F.secret) == false)
        // Authentic but not a request: another event type.
        let other = try JSONSerialization.data(
            withJSONObject: [
                "id": "evt_1", "object": "event", "type": "issuing_authorization.created",
                "data": ["object": try F.authorization()],
            ])
        let wrongType = #expect(throws: CardGatewayError.self) {
            _ = try provider.authorization(from: F.delivery(other, at: now), now: now)
        }
        #expect(wrongType?.code == .invalidRequest)
    }

    @Test("the descriptor: authorizations within Stripe's two seconds; the factory names the endpoint's secret")
    func descriptor() {
        #expect(StripeProvider.descriptor.capabilities.contains(.authorizations))
        #expect(StripeProvider.descriptor.authorizationDeadline == .seconds(2))
        #expect(ProviderFactory.stripe.credentials.contains { $0.name == "authorizationWebhookSecret" && !$0.required })
    }

    @Test("stripe-python's Webhook.construct_event verifies the simulator's issuing_authorization.request")
    func officialClientVerifiesTheSimulatorsRequest() async throws {
        try await OfficialClient.requireAvailable(module: "stripe")
        let simulator = StripeSimulator()
        let secret = StripeSimulator.Credentials.default.authorizationWebhookSecret
        let signed = try #require(
            simulator.signedAuthorizationRequest(card: Seed.activeCardID, amount: 1_250, timestamp: Date()))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stripe-authorization-\(UUID()).json")
        try signed.body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let header = try #require(signed.headers.first { $0.0 == "Stripe-Signature" }?.1)
        let result = try await OfficialClient.run([
            OfficialClient.python, "-c", StripeOfficialClientTests.webhookCheck, file.path, header, secret,
        ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("verified issuing_authorization.request iauth_"))
        #expect(result.output.contains("a changed body refused"))
        // The ordinary endpoint's secret does not verify it.
        let other = try await OfficialClient.run([
            OfficialClient.python, "-c", StripeOfficialClientTests.webhookCheck, file.path, header,
            StripeSimulator.Credentials.default.webhookSecret,
        ])
        #expect(other.status != 0)
    }
}

/// The network end to end: the simulator sends Stripe's request to a Hummingbird endpoint on 127.0.0.1 that answers
/// with `CardGateway.respondToAuthorization`, and records the outcome in the authorization's `request_history`.
@Suite("Stripe real-time authorizations end to end: simulator, endpoint, gateway", .timeLimit(.minutes(2)))
struct StripeAuthorizationEndToEndTests {
    /// What the decider saw, and how it decides: by the merchant's name.
    final class Decider: AuthorizationDecider {
        let seen = Mutex<[AuthorizationRequest]>([])

        func decide(_ request: AuthorizationRequest) async throws -> AuthorizationDecision {
            seen.withLock { $0.append(request) }
            switch request.merchant.name {
            case "Partial Pump":
                return .approve(amount: Money(minorUnits: 600, currency: request.amount.currency))
            case "Slow Shop":
                // Never answers in time: the gateway gives up at its budget and cancels this.
                try await Task.sleep(for: .seconds(60))
                return .approve()
            case "Careful Cafe":
                return .decline(.suspectedFraud)
            default:
                return .approve()
            }
        }
    }

    static func gateway() throws -> CardGateway {
        let credentials = StripeSimulator.Credentials.default
        let json = """
            {"providers": {"stripe-rt": {"kind": "stripe", "environment": "sandbox",
              "credentials": {"secretKey": "literal:\(credentials.testSecretKey)",
                              "authorizationWebhookSecret": "literal:\(credentials.authorizationWebhookSecret)"},
              "authorizations": {"standIn": "decline", "budgetMilliseconds": 1900}}},
             "routes": [],
             "authorizationRules": [{"name": "no gambling", "merchantCategories": ["7995"]}]}
            """
        let registry = ProviderRegistry([.stripe])
        var configuration = try GatewayConfiguration.load(from: Data(json.utf8), registry: registry)
        // A budget of 5 s, set after loading (the configuration keeps one below Stripe's 2 s): long enough that a
        // loaded machine cannot make the decider late; the exact timing is AuthorizationTests', on an injected clock.
        configuration.providers["stripe-rt"]?.authorizations.budget = .seconds(5)
        return try CardGateway(configuration: configuration, registry: registry, transport: ScriptedTransport([]))
    }

    /// Runs an endpoint at `http://127.0.0.1:<port>/authorizations` for `body`: 200 with the gateway's answer, 401 for
    /// a delivery that is not authentic, 400 for one that cannot be read.
    static func withEndpoint(
        _ gateway: CardGateway, decider: Decider, _ body: @Sendable (String) async throws -> Void
    ) async throws {
        let router = Router()
        router.post("/authorizations") { request, _ -> Response in
            let bytes = try await request.body.collect(upTo: 1024 * 1024)
            let delivery = WebhookDelivery(headers: request.headers, body: Data(bytes.readableBytesView))
            do {
                let outcome = try await gateway.respondToAuthorization(
                    delivery, instance: "stripe-rt", decider: decider)
                return Response(
                    status: outcome.answer.status, headers: outcome.answer.headers,
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: outcome.answer.body)))
            } catch let error as CardGatewayError where error.code == .signatureInvalid {
                return Response(status: .unauthorized)
            } catch {
                return Response(status: .badRequest)
            }
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
            logger: OperationContext.noopLogger)
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        try await body("http://127.0.0.1:\(port)/authorizations")
    }

    static func order(
        _ url: String, merchant: String, mcc: String = "5411", amount: Int64 = 1_250, kind: String? = nil,
        adjustable: Bool? = nil, deadline: Int? = 15_000
    ) -> AuthorizationOrder {
        AuthorizationOrder(
            url: url, card: Seed.activeCardID, amount: amount, currency: "USD",
            merchant: .init(name: merchant, categoryCode: mcc, country: "US", city: "Seattle"), kind: kind,
            amountAdjustable: adjustable, deadlineMilliseconds: deadline)
    }

    /// The authorization the simulator answered, and its last `request_history` entry.
    static func recorded(_ response: SimulatedResponse?) throws -> (object: [String: Any], last: [String: Any]) {
        let response = try #require(response)
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        let last = try #require((object["request_history"] as? [[String: Any]])?.last)
        return (object, last)
    }

    @Test(
        "approved, declined by a local rule, reduced, declined by the decider, and the stand-in before Stripe's deadline"
    )
    func outcomes() async throws {
        let simulator = StripeSimulator()
        let decider = Decider()
        try await Self.withEndpoint(try Self.gateway(), decider: decider) { url in
            let approved = try Self.recorded(await simulator.authorize(Self.order(url, merchant: "Corner Shop")))
            #expect(
                approved.last["reason"] as? String == "webhook_approved" && approved.last["approved"] as? Bool == true)
            #expect(approved.object["status"] as? String == "pending" && approved.object["amount"] as? Int == 1_250)
            #expect(approved.object["approved"] as? Bool == true && approved.object["pending_request"] is NSNull)
            let id = try #require(approved.object["id"] as? String)
            #expect(id.hasPrefix("iauth_"))
            let first = try #require(decider.seen.withLock { $0.last })
            #expect(first.id == id && first.kind == .authorization && first.card.id == Seed.activeCardID)
            #expect(first.amount == Money(minorUnits: 1_250, currency: "USD") && first.merchant.country == "US")

            // More money on the same authorization: the same iauth id, asked as incremental, the amounts summed.
            let more = try Self.recorded(
                await simulator.authorize(Self.order(url, merchant: "Corner Shop", amount: 250, kind: "incremental")))
            #expect(more.object["id"] as? String == id && more.object["amount"] as? Int == 1_500)
            #expect((more.object["request_history"] as? [Any])?.count == 2)
            let incremental = try #require(decider.seen.withLock { $0.last })
            #expect(incremental.id == id && incremental.kind == .incremental && incremental.amount.minorUnits == 250)

            let asked = decider.seen.withLock { $0.count }
            let gambling = try Self.recorded(
                await simulator.authorize(Self.order(url, merchant: "Lucky Casino", mcc: "7995")))
            #expect(
                gambling.last["reason"] as? String == "webhook_declined"
                    && gambling.object["status"] as? String == "closed")
            #expect(
                (gambling.object["metadata"] as? [String: String]) == ["decline_reason": "merchantCategoryBlocked"])
            #expect(decider.seen.withLock { $0.count } == asked, "the rule declined before the decider was asked")

            let partial = try Self.recorded(
                await simulator.authorize(Self.order(url, merchant: "Partial Pump", mcc: "5542", adjustable: true)))
            #expect(partial.last["reason"] as? String == "webhook_approved" && partial.object["amount"] as? Int == 600)
            #expect(partial.last["amount"] as? Int == 1_250)

            let fraud = try Self.recorded(await simulator.authorize(Self.order(url, merchant: "Careful Cafe")))
            #expect(fraud.last["reason"] as? String == "webhook_declined")
            #expect((fraud.object["metadata"] as? [String: String]) == ["decline_reason": "suspectedFraud"])

            // The decider never answers: the gateway's stand-in (decline) reaches Stripe within its deadline, so
            // Stripe records the endpoint's decline, not a timeout.
            let started = ContinuousClock.now
            let slow = try Self.recorded(
                await simulator.authorize(Self.order(url, merchant: "Slow Shop")))
            let elapsed = ContinuousClock.now - started
            // The stand-in leaves at the 5 s budget, not before, and reaches Stripe before its deadline (15 s here,
            // so that a loaded machine cannot miss it; the exact timing is AuthorizationTests', on an injected clock).
            #expect(elapsed >= .seconds(5), "\(elapsed)")
            #expect(slow.last["reason"] as? String == "webhook_declined")
            #expect((slow.object["metadata"] as? [String: String]) == ["decline_reason": "other"])
        }
    }

    @Test(
        "Stripe's fallbacks: no answer in time is webhook_timeout, an answer it cannot use webhook_error; both decline")
    func fallbacks() async throws {
        let simulator = StripeSimulator()
        let router = Router()
        router.post("/late") { _, _ -> Response in
            try await Task.sleep(for: .seconds(5))
            return Response(status: .ok)
        }
        router.post("/unversioned") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"approved":true}"#)))
        }
        router.post("/reduced") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "application/json", HTTPField.Name("Stripe-Version")!: "2024-06-20"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"approved":true,"amount":10}"#)))
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
            logger: OperationContext.noopLogger)
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let base = "http://127.0.0.1:\(try #require(await iterator.next()))"
        let late = try Self.recorded(
            await simulator.authorize(Self.order(base + "/late", merchant: "Corner Shop", deadline: 200)))
        #expect(late.last["reason"] as? String == "webhook_timeout" && late.last["approved"] as? Bool == false)
        let unversioned = try Self.recorded(
            await simulator.authorize(Self.order(base + "/unversioned", merchant: "Corner Shop")))
        #expect(unversioned.last["reason"] as? String == "webhook_error")
        #expect((unversioned.last["reason_message"] as? String)?.contains("Stripe-Version") == true)
        // An amount where the request's amount is not controllable.
        let reduced = try Self.recorded(
            await simulator.authorize(Self.order(base + "/reduced", merchant: "Corner Shop")))
        #expect(reduced.last["reason"] as? String == "webhook_error" && reduced.object["status"] as? String == "closed")

        // An inactive card is declined by Stripe without asking; an unknown card is Stripe's resource_missing.
        var inactive = Self.order(base + "/late", merchant: "Corner Shop")
        inactive.card = Seed.inactiveCardID
        let declined = try Self.recorded(await simulator.authorize(inactive))
        #expect(declined.last["reason"] as? String == "card_inactive")
        var unknown = inactive
        unknown.card = "ic_doesnotexist"
        let missing = try #require(await simulator.authorize(unknown))
        #expect(missing.status == 400 && String(decoding: missing.body, as: UTF8.self).contains("resource_missing"))
        // Longer than Stripe waits is refused.
        let long = try #require(
            await simulator.authorize(
                Self.order(base + "/late", merchant: "Corner Shop", deadline: SimulatedNetwork.longestTestDeadline + 1))
        )
        #expect(long.status == 400)
    }
}
