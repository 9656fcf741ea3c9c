import Benchmark
import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayPostgres
import Foundation
import Synchronization

// What the operation ledger adds to one write: a merchant-initiated charge through `CardGateway.charge`, against an
// in-process stored-credentials provider that answers at once (no HTTP), so that only the gateway's and the
// ledger's own cost remains:
//
// - without an idempotency key (no ledger work: the baseline);
// - with a fresh key per charge, on the in-memory ledger;
// - with a fresh key per charge, on PostgreSQL on loopback (when CARDGATEWAY_TEST_DATABASE_URL names a database):
//   two round trips per write, a claim (one INSERT) before and the outcome (one UPDATE) after;
// - a repeat of a recorded key on PostgreSQL (the replay: no provider call).
//
// The custom metric "ledger calls" counts the ledger operations per charge (each is one round trip on PostgreSQL).

let ledgerCalls = BenchmarkMetric.custom("ledger calls", polarity: .prefersSmaller, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    let fixture = LedgerFixture()

    chargeBenchmark("charge, no idempotency key (no ledger)", fixture: fixture, keyed: .none) { $0.inMemory }
    chargeBenchmark("charge, in-memory ledger", fixture: fixture, keyed: .fresh) { $0.inMemory }
    if LedgerFixture.databaseURL != nil {
        chargeBenchmark("charge, PostgreSQL ledger on loopback", fixture: fixture, keyed: .fresh) {
            try $0.postgresGateway()
        }
        chargeBenchmark("charge replayed from the PostgreSQL ledger", fixture: fixture, keyed: .repeated) {
            try $0.postgresGateway()
        }
    } else {
        // Skipped, not failed: a fresh machine runs the whole package without a database.
        FileHandle.standardError.write(
            Data(
                ("LedgerBenchmarks: the two PostgreSQL cases are skipped: CARDGATEWAY_TEST_DATABASE_URL is not set "
                    + "(scripts/dev-postgres starts a throwaway database and prints its URL)\n").utf8))
    }
}

enum Keying: Sendable {
    case none
    case fresh
    case repeated
}

func chargeBenchmark(
    _ name: String, fixture: LedgerFixture, keyed: Keying,
    pick: @escaping @Sendable (LedgerFixture) throws -> CardGateway
) {
    Benchmark(
        name,
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal, ledgerCalls],
            warmupIterations: 20,
            scalingFactor: .one,
            maxDuration: .seconds(2),
            maxIterations: 5_000,
            thresholds: [
                .wallClock: .init(relative: [.p50: 100], absolute: [:]),
                .mallocCountTotal: .init(relative: [.p50: 5], absolute: [:]),
            ],
            setup: { try await fixture.start() },
            teardown: { await fixture.stop() }
        )
    ) { benchmark in
        let gateway: CardGateway
        do { gateway = try pick(fixture) } catch {
            benchmark.error("no gateway: \(error)")
            return
        }
        let repeatedKey = "bench-repeat-\(UUID().uuidString)"
        if keyed == .repeated {
            _ = try? await gateway.charge(
                LedgerFixture.charge, via: .instance("probe"), context: OperationContext(idempotencyKey: repeatedKey))
        }
        let before = fixture.ledgerCalls
        var charges = 0
        for _ in benchmark.scaledIterations {
            let context: OperationContext
            switch keyed {
            case .none: context = OperationContext()
            case .fresh: context = OperationContext(idempotencyKey: "bench-\(UUID().uuidString)")
            case .repeated: context = OperationContext(idempotencyKey: repeatedKey)
            }
            do {
                blackHole(try await gateway.charge(LedgerFixture.charge, via: .instance("probe"), context: context))
                charges += 1
            } catch {
                benchmark.error("the charge failed: \(error)")
                return
            }
        }
        if charges > 0 {
            benchmark.measurement(ledgerCalls, (fixture.ledgerCalls - before) / charges)
        }
    }
}

/// A provider that charges at once.
struct InstantProvider: StoredCredentials {
    let descriptor = ProviderDescriptor(kind: ProviderKind("probe"), capabilities: [.storedCredentials])

    func clientSession(_ request: ClientSessionRequest, context: OperationContext) async throws -> ClientSession {
        throw CardGatewayError.unsupported("not in this benchmark")
    }

    func verifyResult(_ token: Secret, context: OperationContext) async throws -> StoredCredential {
        throw CardGatewayError.unsupported("not in this benchmark")
    }

    func charge(_ request: ChargeRequest, context: OperationContext) async throws -> ChargeResult {
        ChargeResult(
            transactionReference: "9-9-1", parentReference: request.reference, status: .authorised,
            amount: request.amount, authCode: "A1", providerStatus: "0")
    }
}

/// Counts the calls that reach a ledger.
final class CountingLedger: OperationLedger {
    let base: any OperationLedger
    private let calls = Mutex(0)
    init(_ base: any OperationLedger) { self.base = base }
    var count: Int { calls.withLock { $0 } }
    private func tick() { calls.withLock { $0 += 1 } }

    func claim(_ intent: LedgerIntent) async throws -> LedgerClaim { tick(); return try await base.claim(intent) }
    func record(_ outcome: LedgerOutcome, key: String, owner: UUID) async throws {
        tick(); try await base.record(outcome, key: key, owner: owner)
    }
    func release(key: String, owner: UUID) async throws { tick(); try await base.release(key: key, owner: owner) }
    func record(key: String) async throws -> LedgerRecord? { tick(); return try await base.record(key: key) }
    func reconcile(key: String, to resolution: LedgerReconciliation) async throws {
        tick(); try await base.reconcile(key: key, to: resolution)
    }
    func purgeExpired() async throws -> Int { tick(); return try await base.purgeExpired() }
}

final class LedgerFixture: Sendable {
    static let databaseURL = ProcessInfo.processInfo.environment["CARDGATEWAY_TEST_DATABASE_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }
    static let charge = ChargeRequest(
        reference: "1-9-1000002", amount: Money(minorUnits: 1050, currency: "GBP"), initiator: .merchant(.unscheduled))

    let memoryLedger = CountingLedger(InMemoryOperationLedger())
    let inMemory: CardGateway
    private let postgres = Mutex<(stores: PostgresStores?, ledger: CountingLedger?, runner: Task<Void, any Error>?)>(
        (nil, nil, nil))

    init() {
        inMemory = try! Self.gateway(ledger: memoryLedger)
    }

    var ledgerCalls: Int { memoryLedger.count + (postgres.withLock { $0.ledger?.count } ?? 0) }

    static func gateway(ledger: any OperationLedger) throws -> CardGateway {
        let provider = InstantProvider()
        let factory = ProviderFactory(
            kind: provider.descriptor.kind, descriptor: provider.descriptor,
            environments: ["sandbox": URL(string: "https://probe.example")!], credentials: []
        ) { _ in provider }
        let registry = ProviderRegistry([factory])
        let configuration = try GatewayConfiguration.load(
            from: Data(
                #"{"providers": {"probe": {"kind": "probe", "environment": "sandbox"}}, "routes": [{"use": "probe"}]}"#
                    .utf8), registry: registry,
            secrets: SecretResolver(environment: [:])
        )
        return try CardGateway(configuration: configuration, registry: registry).using(
            ledger: ledger, journal: NoJournal())
    }

    func start() async throws {
        guard let url = Self.databaseURL, postgres.withLock({ $0.stores == nil }) else { return }
        let stores = PostgresStores(configuration: try PostgresStoreConfiguration(url: Secret(url)))
        let runner = Task { try await stores.run() }
        try await stores.migrate()
        postgres.withLock { $0 = (stores, CountingLedger(stores.operationLedger), runner) }
    }

    func postgresGateway() throws -> CardGateway {
        guard let ledger = postgres.withLock({ $0.ledger }) else {
            throw CardGatewayError(.invalidConfiguration, "no database")
        }
        return try Self.gateway(ledger: ledger)
    }

    func stop() async {}
}

/// The journal is measured elsewhere: this benchmark isolates the ledger.
struct NoJournal: ProvisioningJournal {
    func append(_ entry: ProvisioningJournalEntry) async throws {}
    func entries(card: String?, limit: Int) async throws -> [ProvisioningJournalEntry] { [] }
}
