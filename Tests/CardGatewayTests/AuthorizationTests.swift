import CardGateway
import CardGatewayTesting
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// An adapter for the decision flow's tests: it reads `{"id", "kind", "amount", "currency", "mcc", "country",
/// "adjustable"}` authenticated by an `X-Test-Key` header, and answers `{"approved", "amount"?, "reason"?}`, so that
/// a test can see on the wire what the gateway decided.
private struct DecidingProvider: AuthorizationResponding {
    static let kind = ProviderKind("gamma")
    static let deadline = Duration.seconds(2)
    static let descriptor = ProviderDescriptor(
        kind: kind, capabilities: [.authorizations], authorizationDeadline: deadline)
    var descriptor: ProviderDescriptor { Self.descriptor }

    struct Message: Codable {
        var id: String
        var kind: String?
        var amount: Int64
        var currency: String
        var mcc: String?
        var country: String?
        var adjustable: Bool?
    }

    func authorization(from delivery: WebhookDelivery, now: Date) throws -> ProviderAuthorization {
        let key = delivery.headers[HTTPField.Name("X-Test-Key")!] ?? ""
        guard ConstantTime.equals(Array(key.utf8), Array("right-key".utf8)) else {
            throw CardGatewayError.signatureInvalid("the X-Test-Key header is wrong")
        }
        guard let message = try? JSONDecoder().decode(Message.self, from: delivery.body) else {
            throw CardGatewayError(.invalidRequest, "unreadable")
        }
        let request = AuthorizationRequest(
            id: message.id, providerKind: Self.kind,
            kind: message.kind.flatMap(AuthorizationRequest.Kind.init(rawValue:)) ?? .authorization,
            card: CardRef(id: "card_1"), amount: Money(minorUnits: message.amount, currency: message.currency),
            amountAdjustable: message.adjustable ?? false,
            merchant: .init(name: "Corner Shop", categoryCode: message.mcc, country: message.country))
        return ProviderAuthorization(request: request, echo: ["id": message.id])
    }

    func answer(
        _ decision: AuthorizationDecision, to authorization: ProviderAuthorization
    ) throws
        -> AuthorizationAnswer
    {
        var object: [String: String] = ["approved": decision.approved ? "yes" : "no", "id": authorization.echo["id"]!]
        if let amount = decision.amount { object["amount"] = "\(amount.minorUnits)" }
        if let reason = decision.reason { object["reason"] = reason.rawValue }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return AuthorizationAnswer(
            status: decision.approved ? .ok : HTTPResponse.Status(code: 402), body: try encoder.encode(object))
    }

    static var factory: ProviderFactory {
        ProviderFactory(
            kind: kind, descriptor: descriptor, environments: ["sandbox": URL(string: "https://gamma.example")!],
            credentials: []
        ) { _ in DecidingProvider() }
    }
}

/// A decider that counts its calls and answers what the test says, after waiting for a gate when told to.
private final class TestDecider: AuthorizationDecider {
    enum Behaviour: Sendable {
        case answer(AuthorizationDecision)
        case fail
        case sleep(Duration, on: ManualClock)
        case waitForGate(DecisionGate, then: AuthorizationDecision)
    }

    private let state = Mutex<(calls: Int, requests: [AuthorizationRequest])>((0, []))
    let behaviour: Behaviour

    init(_ behaviour: Behaviour) { self.behaviour = behaviour }

    var calls: Int { state.withLock { $0.calls } }
    var requests: [AuthorizationRequest] { state.withLock { $0.requests } }

    func decide(_ request: AuthorizationRequest) async throws -> AuthorizationDecision {
        state.withLock {
            $0.calls += 1
            $0.requests.append(request)
        }
        switch behaviour {
        case .answer(let decision): return decision
        case .fail: throw CocoaError(.featureUnsupported)
        case .sleep(let duration, let clock):
            try await clock.sleep(until: clock.now + duration)
            return .approve()
        case .waitForGate(let gate, let decision):
            await gate.wait()
            return decision
        }
    }
}

/// A ledger whose database is down: every call fails.
private struct FailingLedger: OperationLedger {
    struct Down: Error {}
    func claim(_ intent: LedgerIntent) async throws -> LedgerClaim { throw Down() }
    func record(_ outcome: LedgerOutcome, key: String, owner: UUID) async throws { throw Down() }
    func release(key: String, owner: UUID) async throws { throw Down() }
    func record(key: String) async throws -> LedgerRecord? { throw Down() }
    func reconcile(key: String, to resolution: LedgerReconciliation) async throws { throw Down() }
    func purgeExpired() async throws -> Int { throw Down() }
}

/// Opens once; every waiter resumes then.
private final class DecisionGate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }
    }

    var waiting: Int { state.withLock { $0.waiters.count } }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

@Suite("Real-time authorization: rules, decider, budget and stand-in, decided once", .timeLimit(.minutes(1)))
struct AuthorizationTests {
    static let registry = ProviderRegistry([DecidingProvider.factory])

    static func gateway(
        authorizations: String = "", rules: String = "[]", clock: ManualClock = ManualClock()
    ) throws -> CardGateway {
        let settings = authorizations.isEmpty ? "" : #", "authorizations": \#(authorizations)"#
        let json = #"""
            {"providers": {"gamma-1": {"kind": "gamma", "environment": "sandbox"\#(settings)}},
             "routes": [], "authorizationRules": \#(rules)}
            """#
        let configuration = try GatewayConfiguration.load(from: Data(json.utf8), registry: registry)
        return try CardGateway(
            configuration: configuration, registry: registry, transport: ScriptedTransport([]),
            clock: clock.gatewayClock())
    }

    static func delivery(
        id: String = "auth_1", amount: Int64 = 1_000, currency: String = "USD", mcc: String = "5411",
        country: String = "GB", kind: String? = nil, adjustable: Bool = false, key: String = "right-key"
    ) -> WebhookDelivery {
        let message = DecidingProvider.Message(
            id: id, kind: kind, amount: amount, currency: currency, mcc: mcc, country: country, adjustable: adjustable)
        var headers = HTTPFields()
        headers[HTTPField.Name("X-Test-Key")!] = key
        return WebhookDelivery(headers: headers, body: try! JSONEncoder().encode(message))
    }

    static func answer(_ outcome: AuthorizationOutcome) -> [String: String] {
        (try? JSONDecoder().decode([String: String].self, from: outcome.answer.body)) ?? [:]
    }

    @Test("the decider's approval is answered in the provider's wire, with the normalised request it was given")
    func deciderApproves() async throws {
        let clock = ManualClock()
        let gateway = try Self.gateway(clock: clock)
        let decider = TestDecider(.answer(.approve()))
        let outcome = try await gateway.respondToAuthorization(
            Self.delivery(), instance: "gamma-1", decider: decider)
        #expect(outcome.decidedBy == .decider && outcome.decision.approved && !outcome.replayed)
        #expect(Self.answer(outcome) == ["approved": "yes", "id": "auth_1"])
        #expect(outcome.answer.status == .ok)
        let seen = try #require(decider.requests.first)
        #expect(seen.instance == "gamma-1" && seen.providerKind == "gamma" && seen.id == "auth_1")
        #expect(seen.amount == Money(minorUnits: 1_000, currency: "USD") && seen.merchant.categoryCode == "5411")
        // The budget by default: the provider's 2 s less the 500 ms margin, from the moment the call began.
        #expect(seen.deadline == clock.date.addingTimeInterval(1.5))
    }

    @Test("a local rule declines before the decider is asked; with no decider the rules approve what they let through")
    func rules() async throws {
        let rules = #"""
            [{"name": "no gambling", "merchantCategories": ["7995"]},
             {"merchantCountries": ["KP"], "reason": "suspectedFraud"},
             {"amountAbove": {"currency": "USD", "minor": 50000}}]
            """#
        let gateway = try Self.gateway(rules: rules)
        let decider = TestDecider(.answer(.approve()))
        let gambling = try await gateway.respondToAuthorization(
            Self.delivery(id: "a1", mcc: "7995"), instance: "gamma-1", decider: decider)
        #expect(gambling.decidedBy == .rules && gambling.rule == "no gambling")
        #expect(Self.answer(gambling) == ["approved": "no", "id": "a1", "reason": "merchantCategoryBlocked"])
        #expect(gambling.answer.status == HTTPResponse.Status(code: 402))
        let country = try await gateway.respondToAuthorization(
            Self.delivery(id: "a2", country: "KP"), instance: "gamma-1", decider: decider)
        #expect(country.decision.reason == .suspectedFraud && country.rule == "authorizationRules[1]")
        let large = try await gateway.respondToAuthorization(
            Self.delivery(id: "a3", amount: 50_001), instance: "gamma-1", decider: decider)
        #expect(large.decision.reason == .amountLimitExceeded)
        // The limit is in dollars: the same number of minor units in euros is not above it.
        let euros = try await gateway.respondToAuthorization(
            Self.delivery(id: "a4", amount: 50_001, currency: "EUR"), instance: "gamma-1", decider: nil)
        #expect(euros.decidedBy == .rules && euros.decision.approved)
        #expect(decider.calls == 0)
    }

    @Test("a decider that does not answer: the stand-in leaves exactly at the budget, not after it")
    func standInAtTheBudget() async throws {
        let clock = ManualClock()
        let gateway = try Self.gateway(authorizations: #"{"budgetMilliseconds": 800}"#, clock: clock)
        let decider = TestDecider(.sleep(.seconds(30), on: clock))
        let started = clock.now
        let returnedAt = Mutex<ContinuousClock.Instant?>(nil)
        let call = Task {
            let outcome = try await gateway.respondToAuthorization(
                Self.delivery(), instance: "gamma-1", decider: decider)
            returnedAt.withLock { $0 = clock.now }
            return outcome
        }
        // The outer deadline, the decider's deadline and the decider's own sleep.
        await clock.waitForSleepers(3)
        clock.advance(by: .milliseconds(799))
        #expect(clock.sleepers == 3 && returnedAt.withLock { $0 } == nil)
        clock.advance(by: .milliseconds(1))
        let outcome = try await call.value
        #expect(returnedAt.withLock { $0 } == started + .milliseconds(800))
        #expect(outcome.decidedBy == .standIn && !outcome.decision.approved)
        #expect(outcome.standInReason == "the decider did not answer within the budget")
        #expect(Self.answer(outcome)["approved"] == "no")
    }

    @Test("a decider that fails gets the stand-in at once; a configured approve stand-in approves")
    func failingDecider() async throws {
        let clock = ManualClock()
        let gateway = try Self.gateway(authorizations: #"{"standIn": "approve"}"#, clock: clock)
        let started = clock.now
        let outcome = try await gateway.respondToAuthorization(
            Self.delivery(), instance: "gamma-1", decider: TestDecider(.fail))
        #expect(clock.now == started)
        #expect(outcome.decidedBy == .standIn && outcome.decision.approved)
        #expect(outcome.standInReason?.contains("the decider failed") == true)
    }

    @Test("a partial approval is answered only where the request's amount may be adjusted")
    func partialApproval() async throws {
        let gateway = try Self.gateway()
        let partial = TestDecider(.answer(.approve(amount: Money(minorUnits: 600, currency: "USD"))))
        let fixed = try await gateway.respondToAuthorization(
            Self.delivery(id: "p1"), instance: "gamma-1", decider: partial)
        #expect(fixed.decidedBy == .standIn && !fixed.decision.approved)
        #expect(fixed.standInReason?.contains("cannot be adjusted") == true)
        let adjustable = try await gateway.respondToAuthorization(
            Self.delivery(id: "p2", adjustable: true), instance: "gamma-1", decider: partial)
        #expect(adjustable.decidedBy == .decider && Self.answer(adjustable)["amount"] == "600")
        let more = TestDecider(.answer(.approve(amount: Money(minorUnits: 1_001, currency: "USD"))))
        let tooMuch = try await gateway.respondToAuthorization(
            Self.delivery(id: "p3", adjustable: true), instance: "gamma-1", decider: more)
        #expect(tooMuch.decidedBy == .standIn)
    }

    @Test("a repeated delivery gets the recorded answer and is decided once; an incremental amount is a new question")
    func decidedOnce() async throws {
        let gateway = try Self.gateway()
        let decider = TestDecider(.answer(.decline(.insufficientFunds)))
        let first = try await gateway.respondToAuthorization(Self.delivery(), instance: "gamma-1", decider: decider)
        let again = try await gateway.respondToAuthorization(
            Self.delivery(), instance: "gamma-1", decider: TestDecider(.answer(.approve())))
        #expect(decider.calls == 1 && again.replayed && !first.replayed)
        #expect(again.answer.body == first.answer.body && again.decidedBy == .decider)
        #expect(again.decision.reason == .insufficientFunds)
        let incremental = try await gateway.respondToAuthorization(
            Self.delivery(amount: 1_500, kind: "incremental"), instance: "gamma-1", decider: decider)
        #expect(decider.calls == 2 && !incremental.replayed)
    }

    @Test("a delivery while the same authorization is being decided waits for that decision and answers the same")
    func concurrentRepeat() async throws {
        let clock = ManualClock()
        let gateway = try Self.gateway(clock: clock)
        let gate = DecisionGate()
        let decider = TestDecider(.waitForGate(gate, then: .approve()))
        let first = Task {
            try await gateway.respondToAuthorization(Self.delivery(), instance: "gamma-1", decider: decider)
        }
        await clock.waitForSleepers(2)  // its outer and decider deadlines
        let second = Task {
            try await gateway.respondToAuthorization(Self.delivery(), instance: "gamma-1", decider: decider)
        }
        await clock.waitForSleepers(4)  // the second's deadline and its pause before asking the ledger again
        gate.open()
        let firstOutcome = try await first.value
        clock.advance(by: .milliseconds(20))
        let secondOutcome = try await second.value
        #expect(decider.calls == 1)
        #expect(firstOutcome.decidedBy == .decider && !firstOutcome.replayed)
        #expect(secondOutcome.replayed && secondOutcome.answer.body == firstOutcome.answer.body)
    }

    @Test("a delivery that is not authentic reaches no decider; an informative message is acknowledged unasked")
    func authenticityAndInformative() async throws {
        let gateway = try Self.gateway()
        let decider = TestDecider(.answer(.decline(.other)))
        await #expect {
            _ = try await gateway.respondToAuthorization(
                Self.delivery(key: "wrong-key"), instance: "gamma-1", decider: decider)
        } throws: { ($0 as? CardGatewayError)?.code == .signatureInvalid }
        let notice = try await gateway.respondToAuthorization(
            Self.delivery(id: "n1", kind: "informative"), instance: "gamma-1", decider: decider)
        #expect(notice.decidedBy == .acknowledgement && notice.decision.approved)
        #expect(decider.calls == 0)
    }

    @Test("a ledger whose database fails: the decision is still made, by the decider, rather than declined")
    func ledgerDown() async throws {
        let gateway = try Self.gateway().using(ledger: FailingLedger())
        let decider = TestDecider(.answer(.approve()))
        let outcome = try await gateway.respondToAuthorization(Self.delivery(), instance: "gamma-1", decider: decider)
        #expect(outcome.decidedBy == .decider && outcome.decision.approved && decider.calls == 1)
    }

    @Test("configuration: each problem of the rules and the instance's settings, with its path")
    func configurationProblems() throws {
        func problems(_ json: String) -> [String] {
            do {
                _ = try GatewayConfiguration.load(from: Data(json.utf8), registry: Self.registry)
                return []
            } catch let error as CardGatewayError {
                return error.configurationProblems.map(\.path)
            } catch {
                return ["?"]
            }
        }
        let good = try Self.gateway(
            authorizations: #"{"standIn": "approve", "budgetMilliseconds": 1200}"#,
            rules: #"[{"merchantCategories": ["7995", "5933"], "name": "no gambling"}]"#)
        #expect(good.configuration.providers["gamma-1"]?.authorizations.budget == .milliseconds(1200))
        #expect(good.configuration.providers["gamma-1"]?.authorizations.standIn == .approve)
        #expect(good.configuration.authorizationRules.first?.reason == .merchantCategoryBlocked)

        let instance = #"{"kind": "gamma", "environment": "sandbox", "authorizations": %@}"#
        func document(authorizations: String = "{}", rules: String = "[]") -> String {
            #"{"providers": {"g": \#(instance.replacingOccurrences(of: "%@", with: authorizations))}, "routes": [], "authorizationRules": \#(rules)}"#
        }
        #expect(
            problems(document(authorizations: #"{"budgetMilliseconds": 2000}"#)) == [
                "providers.g.authorizations.budgetMilliseconds"
            ])
        #expect(problems(document(authorizations: #"{"standIn": "maybe"}"#)) == ["providers.g.authorizations.standIn"])
        #expect(
            problems(document(authorizations: #"{"standin": "approve"}"#)) == ["providers.g.authorizations.standin"])
        #expect(problems(document(rules: #"[{"reason": "other"}]"#)) == ["authorizationRules[0]"])
        #expect(
            problems(document(rules: #"[{"merchantCategories": ["79"]}]"#)) == [
                "authorizationRules[0].merchantCategories[0]"
            ])
        #expect(
            problems(document(rules: #"[{"merchantCountries": ["GBR"]}]"#)) == [
                "authorizationRules[0].merchantCountries[0]"
            ])
        #expect(
            problems(document(rules: #"[{"amountAbove": {"currency": "usd", "minor": 5}}]"#)) == [
                "authorizationRules[0].amountAbove"
            ])
        #expect(
            problems(document(rules: #"[{"amountAbove": {"currency": "USD", "minor": 5}, "reason": "nope"}]"#)) == [
                "authorizationRules[0].reason"
            ])
        #expect(problems(document(rules: #"{"amountAbove": 5}"#)) == ["authorizationRules"])
        // An instance whose adapter answers no authorizations cannot have the settings.
        let plain = ProviderDescriptor(kind: "delta", capabilities: [.cardLookup])
        let registry = ProviderRegistry([
            ProviderFactory(
                kind: "delta", descriptor: plain, environments: ["sandbox": URL(string: "https://delta.example")!],
                credentials: []
            ) { _ in DecidingProvider() }
        ])
        let refused =
            #"{"providers": {"d": {"kind": "delta", "environment": "sandbox", "authorizations": {}}}, "routes": []}"#
        #expect(throws: CardGatewayError.self) {
            try GatewayConfiguration.load(from: Data(refused.utf8), registry: registry)
        }
    }

    @Test("decline reasons: an unknown name reads as other; decisions describe themselves without data")
    func vocabulary() {
        #expect(AuthorizationDeclineReason(reading: "insufficientFunds") == .insufficientFunds)
        #expect(AuthorizationDeclineReason(reading: "velocityExceeded") == .other)
        #expect(AuthorizationDecision.decline(.cardInactive).description == "decline (cardInactive)")
        #expect(
            AuthorizationDecision.approve(amount: Money(minorUnits: 5, currency: "GBP")).description == "approve 5 GBP")
    }
}
