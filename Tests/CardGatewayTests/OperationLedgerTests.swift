import CardGateway
import CardGatewayTesting
import Foundation
import Synchronization
import Testing

/// A card service and stored-credential provider that counts what reaches it and answers as a test scripts it.
final class LedgerProbe: CardService, StoredCredentials {
    enum Behaviour: Sendable {
        case succeed
        /// Fails with this error (after counting the call as one that reached the provider).
        case fail(CardGatewayError)
    }

    let descriptor = ProviderDescriptor(
        kind: LedgerProbe.kind, capabilities: Capability.cardService.union([.cardLookup, .storedCredentials]))
    static let kind = ProviderKind("probe")

    private let state = Mutex<(charges: Int, creates: Int, lookups: Int, behaviour: Behaviour)>((0, 0, 0, .succeed))
    private let chargeHold = Mutex<ChargeHold?>(nil)

    /// Makes every charge wait at `hold` after it has counted, as a provider whose answer is still on its way.
    func holdCharges(_ hold: ChargeHold) { chargeHold.withLock { $0 = hold } }

    var charges: Int { state.withLock { $0.charges } }
    var creates: Int { state.withLock { $0.creates } }
    var lookups: Int { state.withLock { $0.lookups } }
    func behave(_ behaviour: Behaviour) { state.withLock { $0.behaviour = behaviour } }

    private func counted(
        _ field: WritableKeyPath<(charges: Int, creates: Int, lookups: Int, behaviour: Behaviour), Int>
    ) async throws {
        let behaviour = state.withLock { state -> Behaviour in
            state[keyPath: field] += 1
            return state.behaviour
        }
        if case .fail(let error) = behaviour { throw error }
    }

    func card(_ ref: CardRef, context: OperationContext) async throws -> Card {
        state.withLock { $0.lookups += 1 }
        return Card(ref: ref, status: .active, providerStatus: "ACTIVE", scheme: .visa, lastFour: "4242")
    }

    func listCards(_ query: CardQuery, context: OperationContext) async throws -> CardPage {
        CardPage(cards: [], total: 0, limit: nil, offset: 0)
    }

    func createCard(_ request: CreateCardRequest, context: OperationContext) async throws -> Card {
        try await counted(\.creates)
        return Card(
            ref: CardRef(id: "card-\(creates)", customer: request.customer), status: .inactive,
            providerStatus: "ISSUED", scheme: .visa, lastFour: "4242")
    }

    func activateCard(_ request: ActivateCardRequest, context: OperationContext) async throws -> Card {
        try await card(request.card, context: context)
    }
    func changeStatus(_ change: CardStatusRequest, context: OperationContext) async throws -> Card {
        try await card(change.card, context: context)
    }
    func setPIN(_ request: SetCardPINRequest, context: OperationContext) async throws -> Card {
        try await card(request.card, context: context)
    }
    func programs(customer: String?, context: OperationContext) async throws -> [CardProgram] { [] }

    func clientSession(_ request: ClientSessionRequest, context: OperationContext) async throws -> ClientSession {
        ClientSession(token: Secret("jwt.session.token"), issuedAt: Date(timeIntervalSince1970: 0))
    }

    func verifyResult(_ token: Secret, context: OperationContext) async throws -> StoredCredential {
        StoredCredential(
            reference: "1-2-3", maskedPAN: "411111######1111", brand: "VISA", scheme: .visa,
            created: Date(timeIntervalSince1970: 0))
    }

    func charge(_ request: ChargeRequest, context: OperationContext) async throws -> ChargeResult {
        try await counted(\.charges)
        if let hold = chargeHold.withLock({ $0 }) { await hold.wait() }
        return ChargeResult(
            transactionReference: "9-9-\(charges)", parentReference: request.reference, status: .authorised,
            amount: request.amount, authCode: "A1",
            providerStatus: "0"
        )
    }
}

/// Holds a call until the test releases it, whatever happens to the caller's task meanwhile: the wait is a plain
/// continuation, which cancellation does not end.
final class ChargeHold: Sendable {
    private let state = Mutex<(waiter: CheckedContinuation<Void, Never>?, released: Bool)>((nil, false))
    private let entered = AsyncStream.makeStream(of: Void.self)

    /// Called by the provider: announce the call, then wait for `release`.
    func wait() async {
        entered.continuation.yield()
        await withCheckedContinuation { waiter in
            let resume = state.withLock { state -> Bool in
                if state.released { return true }
                state.waiter = waiter
                return false
            }
            if resume { waiter.resume() }
        }
    }

    /// Called by the test: returns once a call is waiting.
    func waitUntilHeld() async {
        for await _ in entered.stream { return }
    }

    func release() {
        let waiter = state.withLock { state in
            state.released = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}

/// Stores that refuse to work in a cancelled task, as a database client does: a write the gateway does not shield
/// from its caller's cancellation fails here and is counted.
final class CancellationRefusingStores: OperationLedger, ProvisioningJournal, CredentialReferenceStore {
    let ledger = InMemoryOperationLedger()
    let journal = InMemoryProvisioningJournal()
    let credentials = InMemoryCredentialReferenceStore()
    private let refusals = Mutex(0)
    var refused: Int { refusals.withLock { $0 } }

    private func refuseIfCancelled() throws {
        if Task.isCancelled {
            refusals.withLock { $0 += 1 }
            throw CancellationError()
        }
    }

    func claim(_ intent: LedgerIntent) async throws -> LedgerClaim {
        try refuseIfCancelled(); return try await ledger.claim(intent)
    }
    func record(_ outcome: LedgerOutcome, key: String, owner: UUID) async throws {
        try refuseIfCancelled()
        try await ledger.record(outcome, key: key, owner: owner)
    }
    func release(key: String, owner: UUID) async throws {
        try refuseIfCancelled(); try await ledger.release(key: key, owner: owner)
    }
    func record(key: String) async throws -> LedgerRecord? { try await ledger.record(key: key) }
    func reconcile(key: String, to resolution: LedgerReconciliation) async throws {
        try await ledger.reconcile(key: key, to: resolution)
    }
    func purgeExpired() async throws -> Int { try await ledger.purgeExpired() }

    func append(_ entry: ProvisioningJournalEntry) async throws {
        try refuseIfCancelled(); try await journal.append(entry)
    }
    func entries(card: String?, limit: Int) async throws -> [ProvisioningJournalEntry] {
        try await journal.entries(card: card, limit: limit)
    }

    func save(_ credential: StoredCredential) async throws {
        try refuseIfCancelled(); try await credentials.save(credential)
    }
    func credential(reference: String) async throws -> StoredCredential? {
        try await credentials.credential(reference: reference)
    }
    func credentials(customer: String) async throws -> [StoredCredential] {
        try await credentials.credentials(customer: customer)
    }
    func remove(reference: String) async throws { try await credentials.remove(reference: reference) }
    func markUsed(reference: String, at date: Date) async throws {
        try refuseIfCancelled(); try await credentials.markUsed(reference: reference, at: date)
    }
}

/// A ledger that works until told to fail: `claim` (the database is down before sending) or the writes after
/// sending (the process "crashes" between sending and recording).
final class FaultyLedger: OperationLedger {
    let base: any OperationLedger
    private let faults = Mutex<(claim: Bool, settle: Bool)>((false, false))

    init(_ base: any OperationLedger) { self.base = base }
    func failClaims(_ on: Bool) { faults.withLock { $0.claim = on } }
    func failSettling(_ on: Bool) { faults.withLock { $0.settle = on } }

    struct Down: Error {}

    func claim(_ intent: LedgerIntent) async throws -> LedgerClaim {
        if faults.withLock({ $0.claim }) { throw Down() }
        return try await base.claim(intent)
    }
    func record(_ outcome: LedgerOutcome, key: String, owner: UUID) async throws {
        if faults.withLock({ $0.settle }) { throw Down() }
        try await base.record(outcome, key: key, owner: owner)
    }
    func release(key: String, owner: UUID) async throws {
        if faults.withLock({ $0.settle }) { throw Down() }
        try await base.release(key: key, owner: owner)
    }
    func record(key: String) async throws -> LedgerRecord? { try await base.record(key: key) }
    func reconcile(key: String, to resolution: LedgerReconciliation) async throws {
        try await base.reconcile(key: key, to: resolution)
    }
    func purgeExpired() async throws -> Int { try await base.purgeExpired() }
}

enum LedgerFixture {
    static func gateway(
        _ probe: LedgerProbe, ledger: any OperationLedger = InMemoryOperationLedger(),
        journal: any ProvisioningJournal = InMemoryProvisioningJournal(),
        credentialStore: any CredentialReferenceStore = InMemoryCredentialReferenceStore(),
        policy: LedgerPolicy = .default,
        clock: GatewayClock = .system
    ) throws -> CardGateway {
        let factory = ProviderFactory(
            kind: LedgerProbe.kind, descriptor: probe.descriptor,
            environments: ["sandbox": URL(string: "https://probe.example")!], credentials: []
        ) { _ in probe }
        let registry = ProviderRegistry([factory])
        let configuration = try GatewayConfiguration.load(
            from: Data(
                #"{"providers": {"probe": {"kind": "probe", "environment": "sandbox"}}, "routes": [{"use": "probe"}]}"#
                    .utf8),
            registry: registry, secrets: SecretResolver(environment: [:])
        )
        return try CardGateway(
            configuration: configuration, registry: registry, transport: ScriptedTransport([]),
            credentialStore: credentialStore, clock: clock
        )
        .using(ledger: ledger, journal: journal, ledgerPolicy: policy)
    }

    static let money = Money(minorUnits: 1050, currency: "GBP")
    static func charge(_ amount: Int64 = 1050) -> ChargeRequest {
        ChargeRequest(
            reference: "1-2-3", amount: Money(minorUnits: amount, currency: "GBP"), initiator: .merchant(.unscheduled),
            orderReference: "o-1")
    }
    static func keyed(_ key: String) -> OperationContext {
        OperationContext(idempotencyKey: key, requestID: "req-\(key)")
    }
}

@Suite("Store protocols: the in-memory defaults pass the shared checks", .timeLimit(.minutes(5)))
struct InMemoryStoreChecks {
    @Test("credential references") func credentials() async throws {
        try await StoreChecks.credentialStore(InMemoryCredentialReferenceStore())
    }

    @Test("operation ledger") func ledger() async throws {
        let clock = ManualClock()
        try await StoreChecks.ledger(InMemoryOperationLedger(clock: clock.gatewayClock())) { clock.advance(by: $0) }
    }

    @Test("operation ledger retention") func retention() async throws {
        let clock = ManualClock()
        try await StoreChecks.ledgerExpiry(
            InMemoryOperationLedger(retention: .seconds(60), clock: clock.gatewayClock()), retention: .seconds(60)
        ) {
            clock.advance(by: $0)
        }
    }

    @Test("records are kept 24 hours after their lease ends by default") func defaultRetention() async throws {
        let now = Mutex(Date(timeIntervalSince1970: 1_000_000))
        let ledger = InMemoryOperationLedger(now: { now.withLock { $0 } })
        guard
            case .claimed(let owner) = try await ledger.claim(
                LedgerIntent(key: "k", operation: .charge, instance: "tp", fingerprint: "f", lease: .seconds(60)))
        else {
            Issue.record("expected a claim")
            return
        }
        try await ledger.record(.succeeded(Data("{}".utf8)), key: "k", owner: owner)
        now.withLock { $0 += 60 + 24 * 3600 - 1 }
        #expect(try await ledger.record(key: "k")?.state == .succeeded)
        now.withLock { $0 += 2 }
        #expect(try await ledger.record(key: "k") == nil)
    }

    @Test("provisioning journal") func journal() async throws {
        try await StoreChecks.journal(InMemoryProvisioningJournal())
    }

    @Test("a card number given where a card id belongs is not journaled; ids are kept verbatim")
    func journalIdentifiers() {
        let entry = { (card: String) in
            ProvisioningJournalEntry(
                at: Date(), operation: .provision, instance: "p", card: card, outcome: "ok", latencyMilliseconds: 1)
        }
        #expect(entry("4111 1111 1111 1111").card == "<redacted>")
        #expect(entry("4111-1111-1111-1111").card == "<redacted>")
        #expect(entry("11111111-0000-4000-8000-000000000003").card == "11111111-0000-4000-8000-000000000003")
        #expect(entry("ca0000000000400080000000000000a1").card == "ca0000000000400080000000000000a1")
        #expect(entry(String(repeating: "x", count: 300)).card?.count == 128)
    }
}

@Suite("The gateway's operation ledger", .timeLimit(.minutes(5)))
struct GatewayLedgerTests {
    @Test("a repeat with the same key gets the recorded charge; the provider sees one")
    func replay() async throws {
        let probe = LedgerProbe()
        let gateway = try LedgerFixture.gateway(probe)
        let first = try await gateway.charge(
            LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("k1"))
        let second = try await gateway.charge(
            LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("k1"))
        #expect(first == second)
        #expect(probe.charges == 1)
        let third = try await gateway.charge(
            LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("k2"))
        #expect(third.transactionReference != first.transactionReference)
        #expect(probe.charges == 2)
        #expect(try await gateway.operationLedger.record(key: "k1")?.state == .succeeded)
    }

    @Test("without an idempotency key every call is sent")
    func noKey() async throws {
        let probe = LedgerProbe()
        let gateway = try LedgerFixture.gateway(probe)
        _ = try await gateway.charge(LedgerFixture.charge(), via: .instance("probe"))
        _ = try await gateway.charge(LedgerFixture.charge(), via: .instance("probe"))
        #expect(probe.charges == 2)
    }

    @Test("two gateways sharing a ledger race on one key: one charge, both see it")
    func race() async throws {
        let probe = LedgerProbe()
        // The charge that claims the key is held at the provider until the seven repeats are all waiting for it.
        let hold = ChargeHold()
        probe.holdCharges(hold)
        let clock = ManualClock()
        let ledger = InMemoryOperationLedger()
        let gateways = try [
            LedgerFixture.gateway(probe, ledger: ledger, clock: clock.gatewayClock()),
            LedgerFixture.gateway(probe, ledger: ledger, clock: clock.gatewayClock()),
        ]
        let first = Task {
            try await gateways[0].charge(
                LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("race"))
        }
        await hold.waitUntilHeld()
        let repeats = Task {
            try await withThrowingTaskGroup(of: ChargeResult.self) { group in
                for index in 1..<8 {
                    let gateway = gateways[index % 2]
                    group.addTask {
                        try await gateway.charge(
                            LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("race"))
                    }
                }
                return try await group.reduce(into: [ChargeResult]()) { $0.append($1) }
            }
        }
        // The seven repeats found the claim pending and are asleep on the gateways' clock (their first 20 ms pause).
        await clock.waitForSleepers(7)
        #expect(probe.charges == 1)
        hold.release()
        let claimed = try await first.value
        // The outcome is recorded: the repeats wake, ask again and get it.
        clock.advance(by: .milliseconds(20))
        let results = try await repeats.value + [claimed]
        #expect(probe.charges == 1)
        #expect(Set(results.map(\.transactionReference)).count == 1)
        #expect(results.count == 8)
    }

    @Test("the same key with other parameters is refused, nothing sent")
    func mismatch() async throws {
        let probe = LedgerProbe()
        let gateway = try LedgerFixture.gateway(probe)
        _ = try await gateway.charge(
            LedgerFixture.charge(1050), via: .instance("probe"), context: LedgerFixture.keyed("k"))
        let error = await #expect(throws: CardGatewayError.self) {
            try await gateway.charge(
                LedgerFixture.charge(2000), via: .instance("probe"), context: LedgerFixture.keyed("k"))
        }
        #expect(error?.code == .conflict)
        #expect(error?.mayHaveReachedProvider == false)
        #expect(error?.fieldErrors.first?.field == "idempotencyKey")
        #expect(probe.charges == 1)
    }

    @Test("an outcome that may have reached the provider stays unknown and is never sent again")
    func unknownStaysUnknown() async throws {
        let probe = LedgerProbe()
        let gateway = try LedgerFixture.gateway(probe)
        probe.behave(.fail(CardGatewayError(.timeout, "timed out", isRetryable: true, mayHaveReachedProvider: true)))
        await #expect(throws: CardGatewayError.self) {
            try await gateway.charge(LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("u"))
        }
        probe.behave(.succeed)
        for _ in 0..<2 {
            let error = await #expect(throws: CardGatewayError.self) {
                try await gateway.charge(
                    LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("u"))
            }
            #expect(error?.code == .conflict)
            #expect(error?.isRetryable == false)
            #expect(error?.mayHaveReachedProvider == true)
            #expect(error?.message.contains("unknown") == true)
        }
        #expect(probe.charges == 1)
        #expect(try await gateway.operationLedger.record(key: "u")?.state == .unknown)
        // Reconciled after a look at the provider's side: the operation may be sent again.
        try await gateway.operationLedger.reconcile(key: "u", to: .forget)
        _ = try await gateway.charge(LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("u"))
        #expect(probe.charges == 2)
    }

    @Test("a request that provably never reached the provider may be sent again with the same key")
    func released() async throws {
        let probe = LedgerProbe()
        let gateway = try LedgerFixture.gateway(probe)
        probe.behave(
            .fail(
                CardGatewayError(
                    .providerUnavailable, "connection refused", isRetryable: true, mayHaveReachedProvider: false)))
        await #expect(throws: CardGatewayError.self) {
            try await gateway.charge(LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("r"))
        }
        #expect(try await gateway.operationLedger.record(key: "r") == nil)
        probe.behave(.succeed)
        _ = try await gateway.charge(LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("r"))
        #expect(probe.charges == 2)
    }

    @Test("a decline is recorded and replayed, not sent again")
    func declineReplayed() async throws {
        let probe = LedgerProbe()
        let gateway = try LedgerFixture.gateway(probe)
        probe.behave(
            .fail(
                CardGatewayError(
                    .declined, "the issuer declined", providerCode: "70000", isRetryable: false,
                    mayHaveReachedProvider: true)))
        for _ in 0..<2 {
            let error = await #expect(throws: CardGatewayError.self) {
                try await gateway.charge(
                    LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("d"))
            }
            #expect(error?.code == .declined)
            #expect(error?.providerCode == "70000")
        }
        #expect(probe.charges == 1)
    }

    @Test("a ledger that cannot be reached fails the call before anything is sent")
    func ledgerDown() async throws {
        let probe = LedgerProbe()
        let ledger = FaultyLedger(InMemoryOperationLedger())
        ledger.failClaims(true)
        let gateway = try LedgerFixture.gateway(probe, ledger: ledger)
        let error = await #expect(throws: CardGatewayError.self) {
            try await gateway.charge(
                LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("down"))
        }
        #expect(error?.code == .providerUnavailable)
        #expect(error?.mayHaveReachedProvider == false)
        #expect(error?.isRetryable == true)
        #expect(probe.charges == 0)
    }

    @Test("a crash between sending and recording leaves the charge unknown, and a retry elsewhere does not send it")
    func crashBetweenSentAndRecorded() async throws {
        let probe = LedgerProbe()
        // The ledger's leases run on a test clock; the gateways' own waits (the failed write's two retries) are real.
        let clock = ManualClock()
        let shared = InMemoryOperationLedger(clock: clock.gatewayClock())
        let crashing = FaultyLedger(shared)
        crashing.failSettling(true)
        let policy = LedgerPolicy(lease: .milliseconds(200))
        let first = try LedgerFixture.gateway(probe, ledger: crashing, policy: policy)
        let second = try LedgerFixture.gateway(probe, ledger: shared, policy: policy)
        // The charge is taken, but its outcome never reaches the ledger.
        _ = try await first.charge(
            LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("crash"))
        #expect(try await shared.record(key: "crash")?.state == .pending)
        clock.advance(by: .milliseconds(300))
        let error = await #expect(throws: CardGatewayError.self) {
            try await second.charge(
                LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("crash"))
        }
        #expect(error?.code == .conflict)
        #expect(error?.mayHaveReachedProvider == true)
        #expect(probe.charges == 1)
        #expect(try await shared.record(key: "crash")?.state == .unknown)
    }

    @Test("a repeat that waits too long for an attempt in flight gets a retryable conflict")
    func waitsThenGivesUp() async throws {
        let probe = LedgerProbe()
        // The first attempt is held at the provider while the repeat waits for it, on the gateway's clock.
        let hold = ChargeHold()
        probe.holdCharges(hold)
        let clock = ManualClock()
        let gateway = try LedgerFixture.gateway(
            probe, policy: LedgerPolicy(maximumWait: .milliseconds(100)), clock: clock.gatewayClock())
        let first = Task {
            try await gateway.charge(
                LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("slow"))
        }
        await hold.waitUntilHeld()
        let repeated = Task {
            try await gateway.charge(
                LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("slow"))
        }
        // It pauses 20 ms, then 40 ms; the next pause (80 ms) would pass its 100 ms, so it gives up then.
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(20))
        await clock.waitForSleepers(1)
        #expect(clock.sleeps == [.milliseconds(20), .milliseconds(40)])
        clock.advance(by: .milliseconds(40))
        let error = await #expect(throws: CardGatewayError.self) { try await repeated.value }
        #expect(error?.code == .conflict)
        #expect(error?.isRetryable == true)
        hold.release()
        _ = try await first.value
        #expect(probe.charges == 1)
    }

    @Test("a created card is kept by reference and read afresh on a repeat")
    func createCardReplay() async throws {
        let probe = LedgerProbe()
        let gateway = try LedgerFixture.gateway(probe)
        let request = CreateCardRequest(
            customer: "cust-1", type: .virtual, program: "P1", currency: "EUR", pin: Secret("1234"))
        let first = try await gateway.createCard(request, via: .instance("probe"), context: LedgerFixture.keyed("c"))
        let second = try await gateway.createCard(request, via: .instance("probe"), context: LedgerFixture.keyed("c"))
        #expect(first.ref == second.ref)
        #expect(second.provider == "probe")
        #expect(probe.creates == 1)
        #expect(probe.lookups == 1)
        let record = try #require(try await gateway.operationLedger.record(key: "c"))
        let outcome = String(decoding: try #require(record.outcome), as: UTF8.self)
        #expect(!outcome.contains("1234"))
        #expect(!record.fingerprint.contains("1234"))
        #expect(record.fingerprint.count == 64)
    }

    @Test(
        "a create's cardholder name and issuing country are in its fingerprint; a create without them keeps its earlier digest"
    )
    func createCardFingerprintFields() async throws {
        let probe = LedgerProbe()
        let gateway = try LedgerFixture.gateway(probe)
        let plain = CreateCardRequest(customer: "cust-1", type: .virtual, program: "P1", currency: "EUR")
        _ = try await gateway.createCard(plain, via: .instance("probe"), context: LedgerFixture.keyed("plain"))
        // The digest from before the two fields existed: an entry written by an earlier version still matches.
        let record = try #require(try await gateway.operationLedger.record(key: "plain"))
        #expect(record.fingerprint == "da71066c2d436781796714629573d5fc2735b8bec959b998466c5bfbb2577b84")

        var named = plain
        named.cardholderName = "Sam Hopper"
        named.issuingCountryCode = "NL"
        _ = try await gateway.createCard(named, via: .instance("probe"), context: LedgerFixture.keyed("named"))
        let namedRecord = try #require(try await gateway.operationLedger.record(key: "named"))
        #expect(!namedRecord.fingerprint.contains("Hopper"))
        for change in [
            { (r: inout CreateCardRequest) in r.cardholderName = "Kim Lee" },
            { (r: inout CreateCardRequest) in r.issuingCountryCode = "DE" },
        ] {
            var other = named
            change(&other)
            let error = await #expect(throws: CardGatewayError.self) {
                try await gateway.createCard(other, via: .instance("probe"), context: LedgerFixture.keyed("named"))
            }
            #expect(error?.code == .conflict)
        }
        #expect(probe.creates == 2)
    }

    @Test("a verified credential keeps the consent time given with it, and a charge notes its last use")
    func consentAndLastUse() async throws {
        let probe = LedgerProbe()
        let gateway = try LedgerFixture.gateway(probe)
        let consent = CardholderConsent(recordedAt: Date(timeIntervalSince1970: 1_730_000_000), evidence: "terms v3")
        let credential = try await gateway.verifyResult(
            Secret("result.jwt.token"), customer: "c-1", consent: consent, via: .instance("probe"))
        #expect(credential.consentRecordedAt == consent.recordedAt)
        #expect(
            try await gateway.credentialStore.credential(reference: "1-2-3")?.consentRecordedAt == consent.recordedAt)
        #expect(try await gateway.credentialStore.credential(reference: "1-2-3")?.lastUsed == nil)
        _ = try await gateway.charge(LedgerFixture.charge(), via: .instance("probe"))
        #expect(try await gateway.credentialStore.credential(reference: "1-2-3")?.lastUsed != nil)
    }

    @Test("the journal records each operation with its outcome, never a secret")
    func journal() async throws {
        let probe = LedgerProbe()
        let journal = InMemoryProvisioningJournal()
        let gateway = try LedgerFixture.gateway(probe, journal: journal)
        _ = try await gateway.clientSession(
            ClientSessionRequest(intent: .reuse(reference: "1-2-3"), amount: LedgerFixture.money),
            via: .instance("probe"), context: LedgerFixture.keyed("s")
        )
        _ = try await gateway.charge(LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("j"))
        probe.behave(
            .fail(CardGatewayError(.declined, "declined", requestID: "tp-req-9", mayHaveReachedProvider: true)))
        _ = try? await gateway.charge(
            LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("j2"))
        let entries = try await journal.entries(card: "1-2-3", limit: 10)
        #expect(entries.map(\.operation) == [.charge, .charge, .clientSession])
        #expect(entries.map(\.outcome) == ["declined", "ok", "ok"])
        #expect(entries[0].providerRequestID == "tp-req-9")
        #expect(entries[1].requestID == "req-j")
        #expect(entries.allSatisfy { $0.instance == "probe" })
    }

    /// A keyed charge whose caller is cancelled while the provider holds it; the caller's result.
    func chargeCancelledMidway(_ gateway: CardGateway, _ probe: LedgerProbe, key: String) async throws -> ChargeResult {
        let hold = ChargeHold()
        probe.holdCharges(hold)
        let caller = Task {
            try await gateway.charge(LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed(key))
        }
        await hold.waitUntilHeld()
        caller.cancel()
        hold.release()
        return try await caller.value
    }

    @Test(
        "a caller cancelled while the provider charges gets the charge, and the ledger outcome, the journal entry and the credential's use are all written"
    )
    func cancelledCallerStillRecords() async throws {
        let probe = LedgerProbe()
        let stores = CancellationRefusingStores()
        let gateway = try LedgerFixture.gateway(probe, ledger: stores, journal: stores, credentialStore: stores)
        _ = try await gateway.verifyResult(Secret("result.jwt.token"), customer: "c-1", via: .instance("probe"))
        #expect(try await stores.credential(reference: "1-2-3")?.lastUsed == nil)

        let result = try await chargeCancelledMidway(gateway, probe, key: "cancelled")

        #expect(result.transactionReference == "9-9-1")
        #expect(probe.charges == 1)
        #expect(stores.refused == 0)
        let record = try await stores.record(key: "cancelled")
        #expect(record?.state == .succeeded)
        let entries = try await stores.entries(card: "1-2-3", limit: 10)
        #expect(entries.map(\.operation) == [.charge])
        #expect(entries.first?.outcome == "ok")
        #expect(entries.first?.requestID == "req-cancelled")
        #expect(try await stores.credential(reference: "1-2-3")?.lastUsed != nil)
        // A repeat with the key is answered from the ledger: the provider still saw one charge.
        let repeated = try await gateway.charge(
            LedgerFixture.charge(), via: .instance("probe"), context: LedgerFixture.keyed("cancelled"))
        #expect(repeated == result)
        #expect(probe.charges == 1)
    }

    @Test(
        "with the in-memory stores (written without a shielding task), a caller cancelled while the provider charges still gets the journal entry and the credential's use written"
    )
    func cancelledCallerInMemoryStores() async throws {
        let probe = LedgerProbe()
        let journal = InMemoryProvisioningJournal()
        let credentials = InMemoryCredentialReferenceStore()
        let gateway = try LedgerFixture.gateway(probe, journal: journal, credentialStore: credentials)
        _ = try await gateway.verifyResult(Secret("result.jwt.token"), customer: "c-1", via: .instance("probe"))
        #expect(try await credentials.credential(reference: "1-2-3")?.lastUsed == nil)

        let result = try await chargeCancelledMidway(gateway, probe, key: "cancelled-memory")

        #expect(result.transactionReference == "9-9-1")
        let entries = try await journal.entries(card: "1-2-3", limit: 10)
        #expect(entries.map(\.operation) == [.charge])
        #expect(entries.first?.outcome == "ok")
        #expect(try await credentials.credential(reference: "1-2-3")?.lastUsed != nil)
    }

    @Test(
        "a full in-memory journal replaces its oldest entry: the newest `capacity` are kept, newest first, as a list would"
    )
    func journalRing() async throws {
        for capacity in [1, 2, 3, 5] {
            let journal = InMemoryProvisioningJournal(capacity: capacity)
            var appended: [ProvisioningJournalEntry] = []
            for index in 0..<(capacity * 3 + 1) {
                let entry = ProvisioningJournalEntry(
                    at: Date(timeIntervalSince1970: Double(index)), operation: .charge, instance: "i",
                    card: index % 2 == 0 ? "even" : "odd",
                    outcome: "ok", latencyMilliseconds: index
                )
                try await journal.append(entry)
                appended.append(entry)
                // The list the ring replaces: the newest `capacity`, newest first.
                let kept = Array(appended.suffix(capacity).reversed())
                for limit in [-1, 0, 1, 2, capacity, capacity + 4] {
                    #expect(
                        try await journal.entries(card: nil, limit: limit).map(\.latencyMilliseconds)
                            == kept.prefix(max(0, limit)).map(\.latencyMilliseconds))
                    for card in ["even", "odd", "none"] {
                        let expected = kept.filter { $0.card == card }.prefix(max(0, limit)).map(\.latencyMilliseconds)
                        #expect(
                            try await journal.entries(card: card, limit: limit).map(\.latencyMilliseconds) == expected,
                            "capacity \(capacity) after \(index + 1), card \(card), limit \(limit)")
                    }
                }
            }
        }
    }
}

@Suite("The store section of the configuration", .timeLimit(.minutes(5)))
struct StoreConfigurationTests {
    static let providers =
        #""providers": {"on-file": {"kind": "beta", "environment": "sandbox", "credentials": {"username": "env:BETA_USER", "password": "env:BETA_PASS"}, "options": {"site": "s1"}}}, "routes": []"#

    static func load(_ store: String, environment: [String: String] = [:]) throws -> GatewayConfiguration {
        try TestFactories.load(
            "{\(providers), \"store\": \(store)}", environment: TestFactories.environment.merging(environment) { $1 })
    }

    static func problems(_ store: String, environment: [String: String] = [:]) -> [ConfigurationProblem] {
        TestFactories.problems(
            "{\(providers), \"store\": \(store)}", environment: TestFactories.environment.merging(environment) { $1 })
    }

    @Test("without a store section everything stays in memory")
    func memoryDefault() throws {
        #expect(try TestFactories.load(TestFactories.validDocument).store.kind == .memory)
    }

    @Test("a postgres store reads its URL from a secret and never prints the password")
    func postgres() throws {
        let url = "postgres://cards:s3cret-pw@db.internal:5433/cardgateway"
        let configuration = try Self.load(
            #"{"kind": "postgres", "url": "env:DATABASE_URL", "ledgerRetentionHours": 48, "timeoutSeconds": 2.5, "maxConnections": 4}"#,
            environment: ["DATABASE_URL": url]
        )
        #expect(configuration.store.kind == .postgres)
        #expect(configuration.store.url?.revealedValue == url)
        #expect(configuration.store.ledgerRetention == .seconds(48 * 3600))
        #expect(configuration.store.timeout == .milliseconds(2500))
        #expect(configuration.store.maxConnections == 4)
        #expect(!"\(configuration.store)".contains("s3cret-pw"))
        #expect(!String(reflecting: configuration.store).contains("s3cret-pw"))
    }

    @Test("store problems are reported with their paths, never with the URL")
    func problems() {
        let secretURL = "mysql://cards:s3cret-pw@db/x"
        var problems = Self.problems(
            #"{"kind": "postgres", "url": "env:DATABASE_URL"}"#, environment: ["DATABASE_URL": secretURL])
        #expect(problems.map(\.path) == ["store.url"])
        #expect(problems.allSatisfy { !$0.message.contains("s3cret-pw") })
        problems = Self.problems(#"{"kind": "postgres", "url": "postgres://cards:s3cret-pw@db/x"}"#)
        #expect(problems.map(\.path) == ["store.url"])
        #expect(problems.allSatisfy { !$0.message.contains("s3cret-pw") })
        #expect(Self.problems(#"{"kind": "postgres"}"#).map(\.path) == ["store.url"])
        #expect(Self.problems(#"{"kind": "postgres", "url": "env:UNSET_DB"}"#).map(\.path) == ["store.url"])
        #expect(Self.problems(#"{"kind": "redis"}"#).map(\.path) == ["store.kind"])
        #expect(Self.problems(#"{"kind": "memory", "url": "env:X"}"#).map(\.path) == ["store.url"])
        #expect(Self.problems(#"{"kind": "memory", "pool": 3}"#).map(\.path) == ["store.pool"])
        #expect(
            Self.problems(#"{"kind": "memory", "ledgerRetentionHours": 0}"#).map(\.path) == [
                "store.ledgerRetentionHours"
            ])
        #expect(Self.problems(#""postgres""#).map(\.path) == ["store"])
        #expect(
            Self.problems(
                #"{"kind": "postgres", "url": "env:DATABASE_URL"}"#,
                environment: ["DATABASE_URL": "postgres://db.internal/x"]
            ).map(\.path) == ["store.url"])
    }
}
