import CardGateway
import CardGatewaySimulation
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import LithicSimulator
import SharedTestSupport
import Testing

@_spi(AdapterSupport) @testable import CardGatewayLithic

/// Auth Stream Access: requests read from the simulator's signed `card_authorization.approval_request`, answers on the
/// wire as `asa-response`, and the simulator playing Lithic end to end (deadline, 5XX retried once, outcome recorded).
@Suite("Lithic authorizations", .timeLimit(.minutes(5)))
struct LithicAuthorizationTests {
    static func order(
        url: String = "http://127.0.0.1:1/unused", adjustable: Bool = true, kind: String? = nil
    )
        -> AuthorizationOrder
    {
        var order = AuthorizationOrder(
            url: url, card: Seed.activeCard, amount: 4_000, currency: "USD",
            merchant: .init(name: "Corner Cafe", categoryCode: "5812", country: "US", city: "New York"),
            amountAdjustable: adjustable)
        order.kind = kind
        return order
    }

    static func delivery(_ request: LithicSimulator.ASARequest) -> WebhookDelivery {
        var fields = HTTPFields()
        for (name, value) in request.headers {
            if let field = HTTPField.Name(name) { fields[field] = value }
        }
        return WebhookDelivery(headers: fields, body: request.body)
    }

    @Test(
        "the request is verified with the ASA secret and read: token, card, amounts, merchant (alpha-3 to alpha-2), partial approval"
    )
    func read() throws {
        let simulator = LithicSimulator()
        let now = Date()
        let request = try #require(simulator.asaRequest(Self.order(), at: now))
        let (provider, _) = try LithicFixture.scripted([])
        let read = try provider.authorization(from: Self.delivery(request), now: now)
        #expect(read.request.id == request.token)
        #expect(read.request.card.id == Seed.activeCard)
        #expect(read.request.amount == Money(minorUnits: 4_000, currency: "USD"))
        #expect(read.request.amountAdjustable)
        #expect(read.request.kind == .authorization)
        #expect(read.request.merchant.country == "US" && read.request.merchant.categoryCode == "5812")
        #expect(read.request.merchant.name == "Corner Cafe" && read.request.merchant.city == "New York")
        #expect(read.request.entryMode == "ECOMMERCE" && read.request.networkRiskScore == 12)
        let body = try #require(JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect((body["merchant"] as? [String: Any])?["country"] as? String == "USA")
        #expect(body["event_type"] as? String == "card_authorization.approval_request")
        let inquiry = try #require(simulator.asaRequest(Self.order(kind: "balanceInquiry"), at: now))
        #expect(try provider.authorization(from: Self.delivery(inquiry), now: now).request.kind == .balanceInquiry)
    }

    @Test(
        "a request signed with another secret, tampered or stale is signatureInvalid; without asaSecret invalidConfiguration"
    )
    func refusals() throws {
        let simulator = LithicSimulator()
        let now = Date()
        let (provider, _) = try LithicFixture.scripted([])
        let other = try #require(
            simulator.asaRequest(Self.order(), secret: Seed.webhookSecret, at: now))
        var tampered = Self.delivery(try #require(simulator.asaRequest(Self.order(), at: now)))
        tampered.body = Data(
            String(decoding: tampered.body, as: UTF8.self).replacingOccurrences(of: "4000", with: "400").utf8)
        let stale = try #require(simulator.asaRequest(Self.order(), at: now.addingTimeInterval(-600)))
        for delivery in [Self.delivery(other), tampered, Self.delivery(stale)] {
            #expect(
                gatewayError { _ = try provider.authorization(from: delivery, now: now) }?.code == .signatureInvalid)
        }
        let (unconfigured, _) = try LithicFixture.scripted([], asaSecret: nil)
        let good = Self.delivery(try #require(simulator.asaRequest(Self.order(), at: now)))
        #expect(
            gatewayError { _ = try unconfigured.authorization(from: good, now: now) }?.code == .invalidConfiguration)
    }

    @Test("answers: APPROVED with the token; a partial approval's approved_amount; declines name asa-response results")
    func answers() throws {
        let (provider, _) = try LithicFixture.scripted([])
        let simulator = LithicSimulator()
        let now = Date()
        let read = try provider.authorization(
            from: Self.delivery(try #require(simulator.asaRequest(Self.order(), at: now))), now: now)
        func object(_ decision: AuthorizationDecision) throws -> [String: Any] {
            let answer = try provider.answer(decision, to: read)
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType] == "application/json")
            return try #require(JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
        }
        let approve = try object(.approve())
        #expect(approve["result"] as? String == "APPROVED" && approve["token"] as? String == read.request.id)
        #expect(approve["approved_amount"] == nil)
        let partial = try object(.approve(amount: Money(minorUnits: 2_500, currency: "USD")))
        #expect(partial["approved_amount"] as? Int == 2_500)
        let reasons: [(AuthorizationDeclineReason, String)] = [
            (.insufficientFunds, "INSUFFICIENT_FUNDS"), (.merchantCategoryBlocked, "UNAUTHORIZED_MERCHANT"),
            (.merchantCountryBlocked, "UNAUTHORIZED_MERCHANT"), (.amountLimitExceeded, "VELOCITY_EXCEEDED"),
            (.cardInactive, "CARD_PAUSED"), (.suspectedFraud, "SUSPECTED_FRAUD"), (.other, "SUSPECTED_FRAUD"),
        ]
        for (reason, result) in reasons {
            #expect(try object(.decline(reason))["result"] as? String == result)
            #expect(LithicSimulator.asaResults.contains(result))
        }
    }

    @Test(
        "end to end: the simulator sends a signed ASA request, the gateway approves a partial amount, Lithic records it"
    )
    func endToEnd() async throws {
        let simulator = LithicSimulator()
        let (provider, _) = try LithicFixture.scripted([])
        try await withResponder(provider: provider, status: nil) { url in
            var order = Self.order(url: url)
            order.deadlineMilliseconds = 5_000
            let response = try #require(await simulator.authorize(order))
            let record = try #require(JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            #expect(record["result"] as? String == "APPROVED")
            #expect(record["approved_amount"] as? Int == 3_000)
            #expect(record["attempts"] as? Int == 1)
        }
    }

    @Test("a 5XX is retried once at once; no answer within the deadline declines with CUSTOMER_ASA_TIMEOUT")
    func retryAndTimeout() async throws {
        let simulator = LithicSimulator()
        let (provider, _) = try LithicFixture.scripted([])
        try await withResponder(provider: provider, status: 503) { url in
            // The retry is what is checked, not the machine's speed: a deadline a loaded test run cannot miss (with
            // Lithic's two seconds the first 503 once arrived late under a full suite, and was not retried).
            var order = Self.order(url: url)
            order.deadlineMilliseconds = SimulatedNetwork.longestTestDeadline
            let response = try #require(await simulator.authorize(order))
            let record = try #require(JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            #expect(record["attempts"] as? Int == 2)
            #expect(record["result"] as? String == "DECLINED")
        }
        // A port nobody listens on: no answer at all.
        var order = Self.order(url: "http://127.0.0.1:9/asa")
        order.deadlineMilliseconds = 1_000
        let response = try #require(await simulator.authorize(order))
        let record = try #require(JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(record["detailed_result"] as? String == "CUSTOMER_ASA_TIMEOUT")
    }

    /// An ASA responder on 127.0.0.1: verifies and reads with the adapter, approves 3000 (or answers `status`).
    func withResponder(
        provider: LithicProvider, status: Int?, _ body: @Sendable (String) async throws -> Void
    ) async throws {
        let router = Router()
        router.post("/asa") { request, _ -> Response in
            if let status { return Response(status: .init(code: status)) }
            let bytes = try await request.body.collect(upTo: 1 << 20)
            let delivery = WebhookDelivery(headers: request.headers, body: Data(buffer: bytes))
            let read = try provider.authorization(from: delivery, now: Date())
            let answer = try provider.answer(
                .approve(amount: Money(minorUnits: 3_000, currency: read.request.amount.currency)), to: read)
            return Response(
                status: .ok, headers: answer.headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
        }
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
            logger: OperationContext.noopLogger)
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        try await body("http://127.0.0.1:\(port)/asa")
    }
}
