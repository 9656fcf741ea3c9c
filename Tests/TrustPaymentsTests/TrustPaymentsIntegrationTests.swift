import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayTesting
import CardGatewayTrustPayments
import Foundation
import HTTPTypes
import Synchronization
import Testing
import TrustPaymentsSimulator
import SharedTestSupport

/// Fails the first attempts with "could not connect" (the request never left), then passes requests on.
final class RefusingFirstTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let refusals: Mutex<Int>
    private let attempts = Mutex(0)

    init(_ base: any HTTPTransport, refusals: Int) {
        self.base = base
        self.refusals = Mutex(refusals)
    }

    var attemptCount: Int { attempts.withLock { $0 } }

    func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        attempts.withLock { $0 += 1 }
        let refuse = refusals.withLock { remaining -> Bool in
            guard remaining > 0 else { return false }
            remaining -= 1
            return true
        }
        if refuse { throw TransportError(.connectFailed, "connection refused") }
        return try await base.send(request, body: body, timeout: timeout)
    }
}

@Suite("Trust Payments adapter against the simulator over HTTP", .timeLimit(.minutes(5)))
struct AdapterSimulatorTests {
    let money = Money(minorUnits: 1050, currency: "GBP")

    @Test("store with consent, pay in the SDK, verify, then charge merchant-initiated: the wire shows one JSON POST")
    func fullFlow() async throws {
        let simulator = SimFixture.simulator()
        try await withSimulator(simulator) { handle in
            let store = InMemoryCredentialReferenceStore()
            let provider = try SimFixture.provider(handle, store: store)
            let session = try await provider.clientSession(
                ClientSessionRequest(
                    intent: .store(consent: SimFixture.consent()), amount: Money(minorUnits: 0, currency: "GBP")),
                context: OperationContext()
            )
            let result = try await simulator.sdkPayment(
                sessionJWT: session.token.revealedValue, pan: Seed.Card.visa, expiryDate: Seed.expiryDate,
                securityCode: "123")
            let credential = try await provider.verifyResult(Secret(result), context: OperationContext())
            #expect(isTransactionReference(credential.reference))
            #expect(credential.maskedPAN == "411111######1111")
            #expect(credential.scheme == .visa)
            #expect(credential.brand == "VISA")
            #expect(try await store.credential(reference: credential.reference)?.provider == "tp-sim")
            #expect(simulator.transactionHoldsStoredCard(credential.reference) == true)
            #expect(handle.journal.entries().isEmpty)

            let charge = try await provider.charge(
                ChargeRequest(
                    reference: credential.reference, amount: money, initiator: .merchant(.unscheduled),
                    orderReference: "ord-1"), context: OperationContext()
            )
            #expect(charge.status == .authorised)
            #expect(charge.parentReference == credential.reference)
            #expect(isTransactionReference(charge.transactionReference))
            #expect(charge.authCode?.isEmpty == false)
            #expect(charge.amount == money)

            let entries = handle.journal.entries()
            try #require(entries.count == 1)
            let entry = entries[0]
            #expect(entry.method == "POST")
            #expect(entry.path == "/json/")
            #expect(entry.responseStatus == 200)
            #expect(entry.header("authorization") == JournalEntry.maskedValue)
            #expect(entry.header("content-type") == "application/json;charset=utf-8")
            #expect(entry.header("accept") == "application/json")
            let body = try JSONText.object(entry.body)
            #expect(body["alias"] as? String == Seed.webservicesUsername)
            #expect(body["version"] as? String == "1.00")
            let request = try #require((body["request"] as? [[String: Any]])?.first)
            #expect(request["initiationreason"] as? String == "C")
            #expect(request["credentialsonfile"] as? String == "2")
            #expect(request["parenttransactionreference"] as? String == credential.reference)
            #expect(request["sitereference"] as? String == Seed.siteReference)
            #expect(request["orderreference"] as? String == "ord-1")
            #expect(entry.header("requestreference") == request["requestreference"] as? String)
        }
    }

    @Test(
        "results verify whether the simulator leaves aud out (Trust Payments' published shape) or adds the JWT username",
        arguments: [false, true])
    func resultWithAndWithoutAudience(audience: Bool) async throws {
        var credentials = TrustPaymentsSimulator.Credentials.default
        credentials.audienceInResults = audience
        let simulator = TrustPaymentsSimulator(clock: SimulationClock(fixed: SimFixture.now), credentials: credentials)
        try await withSimulator(simulator) { handle in
            let provider = try SimFixture.provider(handle, store: InMemoryCredentialReferenceStore())
            let session = try await provider.clientSession(
                ClientSessionRequest(
                    intent: .store(consent: SimFixture.consent()), amount: Money(minorUnits: 0, currency: "GBP")),
                context: OperationContext()
            )
            let result = try await simulator.sdkPayment(
                sessionJWT: session.token.revealedValue, pan: Seed.Card.visa, expiryDate: Seed.expiryDate,
                securityCode: "123")
            #expect((try IndependentJWT.decode(result).claims["aud"] != nil) == audience)
            let credential = try await provider.verifyResult(Secret(result), context: OperationContext())
            #expect(credential.maskedPAN == "411111######1111")
            // The session itself is never a result.
            #expect(
                await gatewayError { _ = try await provider.verifyResult(session.token, context: OperationContext()) }?
                    .code == .signatureInvalid)
        }
    }

    @Test(
        "each initiation reason charges its parent; A needs an AUTH parent",
        arguments: [
            (MerchantInitiatedReason.unscheduled, Seed.Transaction.storedVisaAccountCheck, CardGatewayError.Code?.none),
            (.delayed, Seed.Transaction.storedVisaAccountCheck, nil),
            (.reauthorisation, Seed.Transaction.storedVisaAuth, nil),
            (.reauthorisation, Seed.Transaction.storedVisaAccountCheck, .invalidRequest),
            (.unscheduled, Seed.Transaction.unstoredAuth, .invalidRequest),
            (.unscheduled, Seed.Transaction.otherMerchantStored, .notFound),
        ])
    func reasons(reason: MerchantInitiatedReason, parent: String, failure: CardGatewayError.Code?) async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            let provider = try SimFixture.provider(handle)
            let request = ChargeRequest(reference: parent, amount: money, initiator: .merchant(reason))
            if let failure {
                let error = await gatewayError { _ = try await provider.charge(request, context: OperationContext()) }
                #expect(error?.code == failure)
                #expect(error?.providerCode == (failure == .notFound ? "20004" : "20033"))
            } else {
                #expect(try await provider.charge(request, context: OperationContext()).status == .authorised)
            }
            let letter = ["reauthorisation": "A", "unscheduled": "C", "delayed": "D"][reason.rawValue]
            let sent = try JSONText.object(handle.journal.last?.body)
            #expect((sent["request"] as? [[String: Any]])?.first?["initiationreason"] as? String == letter)
        }
    }

    @Test(
        "a reference the credential store does not hold, or holds for another instance, is refused and nothing is sent")
    func chargeNeedsAStoredReference() async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            let other = StoredCredential(
                reference: "1-9-1000099", provider: "another-instance", maskedPAN: "411111######1111", brand: "VISA",
                scheme: .visa, created: SimFixture.now)
            let provider = try SimFixture.provider(handle, store: InMemoryCredentialReferenceStore([other]))
            let unknown = await gatewayError {
                _ = try await provider.charge(
                    ChargeRequest(reference: "8-8-8888888", amount: money, initiator: .merchant(.unscheduled)),
                    context: OperationContext())
            }
            #expect(unknown?.code == .notFound)
            #expect(unknown?.fieldErrors.map(\.field) == ["reference"])
            let foreign = await gatewayError {
                _ = try await provider.charge(
                    ChargeRequest(reference: "1-9-1000099", amount: money, initiator: .merchant(.unscheduled)),
                    context: OperationContext())
            }
            #expect(foreign?.code == .invalidRequest)
            #expect(handle.journal.entries().isEmpty)
        }
    }

    @Test(
        "the simulated bank's outcomes map through the adapter",
        arguments: [
            (Seed.Amount.declined, "declined", "70000"), (Seed.Amount.bankError, "providerUnavailable", "60010"),
            (Seed.Amount.softDecline, "declined", "71000"), (Seed.Amount.referral, "declined", "72000"),
            (Seed.Amount.manualInvestigation, "providerUnavailable", "60034"),
            (Seed.Amount.unknownError, "providerUnavailable", "99999"),
            (Seed.Amount.cancelled, "declined", "settlestatus 3"),
        ])
    func bankOutcomes(amount: Int64, code: String, providerCode: String) async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            let provider = try SimFixture.provider(handle)
            let error = await gatewayError {
                _ = try await provider.charge(
                    ChargeRequest(
                        reference: Seed.Transaction.storedMastercardAuth,
                        amount: Money(minorUnits: amount, currency: "GBP"), initiator: .merchant(.unscheduled)),
                    context: OperationContext())
            }
            #expect(error?.code.rawValue == code)
            #expect(error?.providerCode == providerCode)
            #expect(handle.journal.entries().count == 1)
        }
    }

    @Test(
        "suspended and settled charges",
        arguments: [(Seed.Amount.suspended, ChargeStatus.suspended), (Seed.Amount.settled, .settled)])
    func statuses(amount: Int64, status: ChargeStatus) async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            let result = try await SimFixture.provider(handle).charge(
                ChargeRequest(
                    reference: Seed.Transaction.storedVisaAuth, amount: Money(minorUnits: amount, currency: "GBP"),
                    initiator: .merchant(.delayed)), context: OperationContext()
            )
            #expect(result.status == status)
        }
    }

    @Test("a wrong Webservices password is authenticationFailed (HTTP 401), sent once")
    func wrongPassword() async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            let provider = try SimFixture.provider(handle, password: "not-the-password")
            let error = await gatewayError {
                _ = try await provider.charge(
                    ChargeRequest(
                        reference: Seed.Transaction.storedVisaAuth, amount: money, initiator: .merchant(.unscheduled)),
                    context: OperationContext())
            }
            #expect(error?.code == .authenticationFailed)
            #expect(error?.httpStatus == 401)
            #expect(handle.journal.entries().count == 1)
        }
    }

    @Test(
        "a dropped connection, a 500 or a response past the timeout: exactly one POST, mayHaveReachedProvider",
        arguments: [
            FaultAction.dropConnection, .status(500, retryAfterSeconds: nil, message: nil),
            .status(503, retryAfterSeconds: 0, message: nil), .delay(milliseconds: 3_000),
        ])
    func noRetry(fault: FaultAction) async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            handle.faults.inject(FaultRule(count: 1, pathPrefix: "/json", action: fault))
            // Only the delay case must time out; the others get a timeout no loaded machine reaches.
            let timeout: Duration
            if case .delay = fault { timeout = .milliseconds(500) } else { timeout = .seconds(20) }
            let provider = try SimFixture.provider(handle, timeout: timeout)
            let error = await gatewayError {
                _ = try await provider.charge(
                    ChargeRequest(
                        reference: Seed.Transaction.storedVisaAuth, amount: money, initiator: .merchant(.unscheduled)),
                    context: OperationContext())
            }
            #expect(error?.mayHaveReachedProvider == true)
            if case .delay = fault { #expect(error?.code == .timeout) }
            if case .status = fault { #expect(error?.code == .providerUnavailable) }
            // A delayed request is journaled when the simulator finishes it, after the adapter gave up: wait for that.
            await handle.faults.delayedAnswersSettled()
            #expect(handle.journal.entries(method: "POST", pathContains: "/json").count == 1)
            #expect(handle.faults.pending.isEmpty)
        }
    }

    @Test("a connection that never opened is retried: two attempts, one request at the gateway")
    func retryNeverSent() async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            let transport = RefusingFirstTransport(AsyncHTTPClientTransport(), refusals: 1)
            let result = try await SimFixture.provider(handle, transport: transport).charge(
                ChargeRequest(
                    reference: Seed.Transaction.storedVisaAuth, amount: money, initiator: .merchant(.unscheduled)),
                context: OperationContext()
            )
            #expect(result.status == .authorised)
            #expect(transport.attemptCount == 2)
            #expect(handle.journal.entries().count == 1)
        }
    }

    @Test("reuse: an Amex session asks for 4 digits and the SDK's payment verifies; a 3-digit code is refused")
    func amexReuse() async throws {
        let simulator = SimFixture.simulator()
        try await withSimulator(simulator) { handle in
            let store = InMemoryCredentialReferenceStore()
            let provider = try SimFixture.provider(handle, store: store)
            let storeSession = try await provider.clientSession(
                ClientSessionRequest(
                    intent: .store(consent: SimFixture.consent()), amount: money, authenticate: true, authorise: true),
                context: OperationContext())
            let stored = try await provider.verifyResult(
                Secret(
                    try await simulator.sdkPayment(
                        sessionJWT: storeSession.token.revealedValue, pan: Seed.Card.amex, expiryDate: Seed.expiryDate,
                        securityCode: "1234")),
                context: OperationContext()
            )
            #expect(stored.scheme == .amex)

            let reuse = try await provider.clientSession(
                ClientSessionRequest(intent: .reuse(reference: stored.reference), amount: money),
                context: OperationContext())
            #expect(reuse.securityCodeLength == 4)
            let paid = try await provider.verifyResult(
                Secret(
                    try await simulator.sdkPayment(
                        sessionJWT: reuse.token.revealedValue, pan: "", expiryDate: "", securityCode: "1234")),
                context: OperationContext()
            )
            #expect(paid.maskedPAN == "340000#####0611")
            #expect(paid.reference != stored.reference)

            let wrongLength = try await simulator.sdkPayment(
                sessionJWT: reuse.token.revealedValue, pan: "", expiryDate: "", securityCode: "123")
            let error = await gatewayError {
                _ = try await provider.verifyResult(Secret(wrongLength), context: OperationContext())
            }
            #expect(error?.code == .invalidRequest)
            #expect(error?.fieldErrors.map(\.field) == ["securitycode"])
        }
    }

    @Test("declined and unauthenticated SDK payments are normalised declines")
    func sdkDeclines() async throws {
        let simulator = SimFixture.simulator()
        try await withSimulator(simulator) { handle in
            let provider = try SimFixture.provider(handle)
            for (pan, code, authenticate) in [
                (Seed.Card.declined, "70000", false), (Seed.Card.unauthenticated, "60022", true),
            ] {
                let session = try await provider.clientSession(
                    ClientSessionRequest(
                        intent: .store(consent: SimFixture.consent()), amount: money, authenticate: authenticate,
                        authorise: true), context: OperationContext())
                let token = try await simulator.sdkPayment(
                    sessionJWT: session.token.revealedValue, pan: pan, expiryDate: Seed.expiryDate, securityCode: "123")
                let error = await gatewayError {
                    _ = try await provider.verifyResult(Secret(token), context: OperationContext())
                }
                #expect(error?.code == .declined)
                #expect(error?.providerCode == code)
            }
        }
    }

    @Test("a response JWT older than the accepted age is refused once the clock moves on")
    func staleResult() async throws {
        let simulator = SimFixture.simulator()
        try await withSimulator(simulator) { handle in
            let provider = try SimFixture.provider(handle)
            let session = try await provider.clientSession(
                ClientSessionRequest(intent: .store(consent: SimFixture.consent()), amount: money),
                context: OperationContext())
            let token = try await simulator.sdkPayment(
                sessionJWT: session.token.revealedValue, pan: Seed.Card.visa, expiryDate: Seed.expiryDate,
                securityCode: "123")
            simulator.clock?.advance(by: 901)
            #expect(
                await gatewayError { _ = try await provider.verifyResult(Secret(token), context: OperationContext()) }?
                    .code == .signatureInvalid)
        }
    }
}
