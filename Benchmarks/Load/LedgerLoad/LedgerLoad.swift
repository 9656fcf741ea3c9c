import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayPostgres
import Foundation
import Logging
import CardGatewaySimulation
import CardGatewayTrustPayments
import PostgresNIO
import Synchronization
import TrustPaymentsSimulator

// The shared ledger under load (issue 39): concurrent Trust Payments charges through two gateways (two
// `CardGateway`s, each with its own `PostgresStores` and so its own connection pool, as two server instances would
// have) on one PostgreSQL, against the Trust Payments simulator on 127.0.0.1. Run by scripts/load-ledger, which starts
// a throwaway database; by hand:
//
//     CARDGATEWAY_TEST_DATABASE_URL=postgres://… .build/release/LedgerLoad [--charges 1000] [--pools 10] [--delay-ms 0]
//
// Scenarios, for each pool size:
//   fresh    N charges at once, each with its own idempotency key: claim, provider, outcome, journal, last-used mark;
//   replay   the same N keys again at once: each answered from the ledger, nothing sent;
//   raced    N/2 new keys, each sent through both gateways at the same moment: one sends, the other waits for it;
// and, for the claim before this change (two statements when the key is held: INSERT … ON CONFLICT, then a SELECT),
// replay and raced again with that claim (`TwoStatementClaimLedger` below).
// Then one caller, one charge at a time, ledger only (an in-process provider, no journal, in-memory credentials):
// the figure README gave as "1.3–1.5 ms, 2 round trips".
//
// Every scenario checks the ledger's promise: the simulator received exactly one charge per key, and every caller
// of a key got the same transaction.

struct Options {
    var charges = 1_000
    var pools = [10]
    var delayMilliseconds = 0
    var sequential = 2_000
    var rounds = 3

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--charges": charges = iterator.next().flatMap(Int.init) ?? charges
            case "--pools": pools = iterator.next().map { $0.split(separator: ",").compactMap { Int($0) } } ?? pools
            case "--delay-ms": delayMilliseconds = iterator.next().flatMap(Int.init) ?? delayMilliseconds
            case "--sequential": sequential = iterator.next().flatMap(Int.init) ?? sequential
            case "--rounds": rounds = iterator.next().flatMap(Int.init) ?? rounds
            default: FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
            }
        }
    }
}

/// A line on standard output at once (not buffered until exit).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

struct LoadError: Error, CustomStringConvertible {
    var description: String
}

func ms(_ duration: Duration) -> Double {
    let parts = duration.components
    return (Double(parts.seconds) + Double(parts.attoseconds) / 1e18) * 1000
}

func percentile(_ sorted: [Duration], _ p: Double) -> Duration {
    sorted.isEmpty ? .zero : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

/// The claim as it was before (two statements when someone holds the key), over the same table; every other ledger
/// call goes to the real ledger. Counts its own statements and waits for a connection (the pool's statistics do not
/// see them: they are not made through the stores).
final class TwoStatementClaimLedger: OperationLedger {
    let base: PostgresOperationLedger
    let client: PostgresClient
    let retention: Duration
    private let counts = Mutex<(statements: Int, leases: Int, wait: Duration, longest: Duration, waits: [Duration])>(
        (0, 0, .zero, .zero, []))

    init(_ stores: PostgresStores) {
        base = stores.operationLedger
        client = stores.client
        retention = stores.configuration.ledgerRetention
    }

    var statements: Int { counts.withLock { $0.statements } }
    var leases: Int { counts.withLock { $0.leases } }
    var waits: [Duration] { counts.withLock { $0.waits } }

    typealias Row = (String, String, String, String, String, String?, String?, Date, Date, Date, Bool)

    func claim(_ intent: LedgerIntent) async throws -> LedgerClaim {
        // Within the same timeout race the stores put around every operation (two tasks and a continuation), so that
        // the comparison is of the statements, not of that wrapper.
        try await withStoreTimeout(.seconds(5)) { try await self.claimWithoutTimeout(intent) }
    }

    func claimWithoutTimeout(_ intent: LedgerIntent) async throws -> LedgerClaim {
        let asked = ContinuousClock.now
        return try await client.withConnection { connection in
            let wait = ContinuousClock.now - asked
            counts.withLock {
                $0.leases += 1
                $0.wait += wait
                $0.longest = max($0.longest, wait)
                $0.waits.append(wait)
            }
            let logger = Logger(label: "load")
            for _ in 0..<5 {
                let owner = UUID()
                counts.withLock { $0.statements += 1 }
                var inserted = 0
                for try await _ in try await connection.query(
                    """
                    INSERT INTO cardgateway_operation_ledger
                        (idempotency_key, operation, provider_instance, fingerprint, state, owner, created_at, updated_at, lease_until, expires_at)
                    VALUES (\(intent.key), \(intent.operation.rawValue), \(intent.instance), \(intent.fingerprint), 'pending', \(owner), now(), now(),
                            now() + make_interval(secs => \(intent.lease.seconds)), now() + make_interval(secs => \(retention.seconds)))
                    ON CONFLICT (idempotency_key) DO UPDATE SET
                        operation = EXCLUDED.operation, provider_instance = EXCLUDED.provider_instance, fingerprint = EXCLUDED.fingerprint,
                        state = 'pending', owner = EXCLUDED.owner, outcome = NULL, failure = NULL, created_at = now(), updated_at = now(),
                        lease_until = EXCLUDED.lease_until, expires_at = EXCLUDED.expires_at
                    WHERE cardgateway_operation_ledger.expires_at <= now()
                    RETURNING owner
                    """,
                    logger: logger
                ) { inserted += 1 }
                if inserted == 1 { return .claimed(owner: owner) }
                counts.withLock { $0.statements += 1 }
                var rows: [Row] = []
                for try await row in try await connection.query(
                    """
                    WITH lapsed AS (
                        UPDATE cardgateway_operation_ledger SET state = 'unknown', updated_at = now()
                        WHERE idempotency_key = \(intent.key) AND state = 'pending' AND lease_until <= now()
                        RETURNING idempotency_key
                    )
                    SELECT idempotency_key, operation, provider_instance, fingerprint,
                           CASE WHEN EXISTS (SELECT 1 FROM lapsed) THEN 'unknown' ELSE state END,
                           outcome, failure, created_at, updated_at, expires_at, expires_at <= now()
                    FROM cardgateway_operation_ledger WHERE idempotency_key = \(intent.key)
                    """,
                    logger: logger
                ).decode(Row.self) { rows.append(row) }
                if let row = rows.first, !row.10 {
                    return .existing(
                        LedgerRecord(
                            key: row.0, operation: row.1, instance: row.2, fingerprint: row.3,
                            state: LedgerState(rawValue: row.4) ?? .unknown,
                            outcome: row.5.map { Data($0.utf8) },
                            failure: try row.6.map {
                                try JSONDecoder().decode(RecordedFailure.self, from: Data($0.utf8))
                            },
                            created: row.7, updated: row.8, expires: row.9
                        )
                    )
                }
            }
            throw LoadError(description: "the key changed hands too often")
        }
    }

    func record(_ outcome: LedgerOutcome, key: String, owner: UUID) async throws {
        try await base.record(outcome, key: key, owner: owner)
    }
    func release(key: String, owner: UUID) async throws { try await base.release(key: key, owner: owner) }
    func record(key: String) async throws -> LedgerRecord? { try await base.record(key: key) }
    func reconcile(key: String, to resolution: LedgerReconciliation) async throws {
        try await base.reconcile(key: key, to: resolution)
    }
    func purgeExpired() async throws -> Int { try await base.purgeExpired() }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// One instance: its stores (its own pool) and its gateway.
struct Instance {
    var stores: PostgresStores
    var runner: Task<Void, any Error>
    var gateway: CardGateway
    var oldClaim: TwoStatementClaimLedger
    var gatewayWithOldClaim: CardGateway
}

struct ScenarioResult {
    var name: String
    var pool: Int
    var charges: Int
    var sent: Int
    var elapsed: Duration
    var latencies: [Duration]
    var statements: Int
    var leases: Int
    var waitsOverOneMs: Int
    var waitP50: Duration
    var waitP99: Duration
    var longestWait: Duration
    var peakWaiting: Int
    var peakInUse: Int

    var line: String {
        let sorted = latencies.sorted()
        return String(
            format: "| %@ | %d | %d | %d | %.0f | %.1f | %.1f | %.2f | %.2f | %d | %.2f / %.2f / %.1f | %d | %d |",
            name, pool, charges, sent, Double(charges) / elapsed.seconds, ms(percentile(sorted, 0.5)),
            ms(percentile(sorted, 0.99)),
            Double(statements) / Double(charges), Double(leases) / Double(charges), waitsOverOneMs, ms(waitP50),
            ms(waitP99), ms(longestWait),
            peakWaiting, peakInUse
        )
    }

    static let header = """
        | scenario | pool per instance | charges | sent to provider | charges/s | p50 ms | p99 ms | statements per charge | leases per charge | leases that waited > 1 ms | wait p50 / p99 / max ms | peak waiting | peak in use |
        |---|---|---|---|---|---|---|---|---|---|---|---|---|
        """
}

@main
struct LedgerLoad {
    static func main() async {
        do {
            try await run()
        } catch {
            FileHandle.standardError.write(Data("LedgerLoad failed: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run() async throws {
        let options = Options(Array(CommandLine.arguments.dropFirst()))
        guard let url = ProcessInfo.processInfo.environment["CARDGATEWAY_TEST_DATABASE_URL"], !url.isEmpty else {
            throw LoadError(description: "set CARDGATEWAY_TEST_DATABASE_URL (scripts/load-ledger starts a database)")
        }
        let simulator = try await SimulatorRun.start(TrustPaymentsSimulator())
        if options.delayMilliseconds > 0 {
            simulator.handle.faults.inject(
                FaultRule(count: Int.max, action: .delay(milliseconds: options.delayMilliseconds)))
        }
        let journal = simulator.handle.journal
        func sent() -> Int { journal.entries(method: "POST", pathContains: "/json/").count }
        typealias Seed = TrustPaymentsSimulator.Seed
        let charge = ChargeRequest(
            reference: Seed.Transaction.storedVisaAuth, amount: Money(minorUnits: 1050, currency: "GBP"),
            initiator: .merchant(.unscheduled))
        let instanceName = "trustpayments"
        let target = RouteTarget.instance(instanceName)
        let instanceConfiguration = ProviderInstanceConfiguration(
            name: instanceName, kind: .trustpayments, environment: nil, baseURL: simulator.handle.baseURL,
            credentials: [
                "webservicesUsername": Secret(Seed.webservicesUsername),
                "webservicesPassword": Secret(Seed.webservicesPassword),
                "jwtUsername": Secret(Seed.jwtUsername), "jwtSecret": Secret(Seed.jwtSecret),
            ],
            options: ["siteReference": .string(Seed.siteReference)]
        )
        var registry = ProviderRegistry()
        registry.register(.trustpayments)
        say(
            "LedgerLoad: \(options.charges) charges through 2 gateways, provider answering after \(options.delayMilliseconds) ms, pools \(options.pools)"
        )
        say(ScenarioResult.header)
        var results: [ScenarioResult] = []
        for pool in options.pools {
            var configuration = try PostgresStoreConfiguration(url: Secret(url))
            configuration.maxConnections = pool
            var instances: [Instance] = []
            for _ in 0..<2 {
                let stores = PostgresStores(configuration: configuration)
                let runner = Task { try await stores.run() }
                try await stores.migrate()
                // Every default (256 calls in flight per instance, the default transport), as a server would have.
                let base = try CardGateway(
                    configuration: GatewayConfiguration(
                        providers: [instanceName: instanceConfiguration],
                        routes: [Route(when: .init(), use: instanceName)]),
                    registry: registry, transport: AsyncHTTPClientTransport(),
                    credentialStore: stores.credentialReferences
                )
                let old = TwoStatementClaimLedger(stores)
                instances.append(
                    Instance(
                        stores: stores, runner: runner,
                        gateway: base.using(ledger: stores.operationLedger, journal: stores.provisioningJournal),
                        oldClaim: old, gatewayWithOldClaim: base.using(ledger: old, journal: stores.provisioningJournal)
                    )
                )
            }
            // The stored credential the charges use, as the instance that verified it would have saved it.
            try await instances[0].stores.credentialReferences.save(
                StoredCredential(
                    reference: charge.reference, provider: instanceName, maskedPAN: "411111######1111", brand: "VISA",
                    scheme: .visa, created: Date())
            )
            // Every connection of both pools open and the path warm before anything is measured.
            for _ in 0..<3 {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<200 {
                        let gateway = instances[index % 2].gateway
                        group.addTask {
                            _ = try await gateway.charge(
                                charge, via: target,
                                context: OperationContext(idempotencyKey: "warm-\(UUID().uuidString)"))
                        }
                    }
                    try await group.waitForAll()
                }
            }

            func scenario(_ name: String, keys: [String], copies: Int, old: Bool) async throws -> ScenarioResult {
                journal.clear()
                for instance in instances { instance.stores.resetPoolStatistics() }
                let oldStatements = instances.map(\.oldClaim.statements)
                let oldLeases = instances.map(\.oldClaim.leases)
                let oldWaits = instances.map(\.oldClaim.waits.count)
                let start = ContinuousClock.now
                let outcomes = try await withThrowingTaskGroup(of: (String, String, Duration).self) { group in
                    for (index, key) in keys.enumerated() {
                        for copy in 0..<copies {
                            let instance = instances[(index + copy) % 2]
                            let gateway = old ? instance.gatewayWithOldClaim : instance.gateway
                            group.addTask {
                                let began = ContinuousClock.now
                                let result = try await gateway.charge(
                                    charge, via: target, context: OperationContext(idempotencyKey: key))
                                return (key, result.transactionReference, ContinuousClock.now - began)
                            }
                        }
                    }
                    var all: [(String, String, Duration)] = []
                    for try await outcome in group { all.append(outcome) }
                    return all
                }
                let elapsed = ContinuousClock.now - start
                // Every caller of a key got the one transaction.
                var byKey: [String: Set<String>] = [:]
                for (key, reference, _) in outcomes { byKey[key, default: []].insert(reference) }
                if let split = byKey.first(where: { $0.value.count != 1 }) {
                    throw LoadError(
                        description: "\(name): the callers of one key got \(split.value.count) different transactions")
                }
                let statistics = instances.map(\.stores.poolStatistics)
                var histogramWaits: [Duration] = []
                for (index, instance) in instances.enumerated() {
                    histogramWaits += instance.oldClaim.waits.dropFirst(oldWaits[index])
                }
                let combinedLeases =
                    statistics.reduce(0) { $0 + $1.leases }
                    + instances.enumerated().reduce(0) { $0 + $1.element.oldClaim.leases - oldLeases[$1.offset] }
                let combinedStatements =
                    statistics.reduce(0) { $0 + $1.statements }
                    + instances.enumerated().reduce(0) {
                        $0 + $1.element.oldClaim.statements - oldStatements[$1.offset]
                    }
                // Wait percentiles: each pool's own, the worse of the two (the old claim's waits, measured apart,
                // are folded into the longest wait).
                let p50 = statistics.map { $0.waitPercentile(0.5) }.max() ?? .zero
                let p99 = statistics.map { $0.waitPercentile(0.99) }.max() ?? .zero
                let longest = max(statistics.map(\.longestWait).max() ?? .zero, histogramWaits.max() ?? .zero)
                let over =
                    statistics.reduce(0) { $0 + $1.waitedOverOneMillisecond }
                    + histogramWaits.filter { $0 > .milliseconds(1) }.count
                return ScenarioResult(
                    name: name, pool: pool, charges: keys.count * copies, sent: sent(), elapsed: elapsed,
                    latencies: outcomes.map(\.2),
                    statements: combinedStatements, leases: combinedLeases, waitsOverOneMs: over, waitP50: p50,
                    waitP99: p99, longestWait: longest,
                    peakWaiting: statistics.map(\.peakWaiting).max() ?? 0,
                    peakInUse: statistics.map(\.peakInUse).max() ?? 0
                )
            }

            func check(_ result: ScenarioResult, expectedSent: Int) throws {
                say(result.line)
                results.append(result)
                guard result.sent == expectedSent else {
                    throw LoadError(
                        description:
                            "\(result.name): \(result.sent) charges reached the provider, expected \(expectedSent)")
                }
            }

            for round in 0..<options.rounds {
                let tag = "\(pool)-\(round)-\(UUID().uuidString.prefix(8))"
                let fresh = (0..<options.charges).map { "load-\(tag)-\($0)" }
                try check(try await scenario("fresh", keys: fresh, copies: 1, old: false), expectedSent: fresh.count)
                let freshOld = (0..<options.charges).map { "load-old-\(tag)-\($0)" }
                try check(
                    try await scenario("fresh, old claim", keys: freshOld, copies: 1, old: true),
                    expectedSent: freshOld.count)
                try check(try await scenario("replay", keys: fresh, copies: 1, old: false), expectedSent: 0)
                try check(
                    try await scenario("replay, old claim", keys: freshOld, copies: 1, old: true), expectedSent: 0)
                let raced = (0..<options.charges / 2).map { "race-\(tag)-\($0)" }
                try check(try await scenario("raced", keys: raced, copies: 2, old: false), expectedSent: raced.count)
                let racedOld = (0..<options.charges / 2).map { "race-old-\(tag)-\($0)" }
                try check(
                    try await scenario("raced, old claim", keys: racedOld, copies: 2, old: true),
                    expectedSent: racedOld.count)
            }

            for instance in instances { instance.runner.cancel() }
            for instance in instances { _ = try? await instance.runner.value }
        }

        if options.sequential > 0 {
            try await sequential(url: url, count: options.sequential)
        }
        await simulator.stop()
    }

    /// One caller, one charge at a time, ledger only: README's "1.3–1.5 ms, 2 round trips" figure.
    static func sequential(url: String, count: Int) async throws {
        let stores = PostgresStores(configuration: try PostgresStoreConfiguration(url: Secret(url)))
        let runner = Task { try await stores.run() }
        try await stores.migrate()
        let old = TwoStatementClaimLedger(stores)
        let newGateway = try instantGateway(ledger: stores.operationLedger)
        let oldGateway = try instantGateway(ledger: old)
        let charge = ChargeRequest(
            reference: "1-9-1000002", amount: Money(minorUnits: 1050, currency: "GBP"),
            initiator: .merchant(.unscheduled))
        say("")
        say("One caller, ledger only (in-process provider that answers at once, no journal): \(count) charges each")
        say("| case | ms per charge (mean) | p50 ms | p99 ms | statements per charge |")
        say("|---|---|---|---|---|")
        for (label, gateway, isOld) in [("fresh key", newGateway, false), ("fresh key, old claim", oldGateway, true)] {
            try await measure(label, count: count, stores: stores, old: old, isOld: isOld) { index in
                _ = try await gateway.charge(
                    charge, via: .instance("probe"),
                    context: OperationContext(
                        idempotencyKey: "seq-\(isOld ? "old" : "new")-\(index)-\(UUID().uuidString)"))
            }
        }
        for (label, gateway, isOld) in [("replay", newGateway, false), ("replay, old claim", oldGateway, true)] {
            let key = "seq-replay-\(UUID().uuidString)"
            _ = try await gateway.charge(
                charge, via: .instance("probe"), context: OperationContext(idempotencyKey: key))
            try await measure(label, count: count, stores: stores, old: old, isOld: isOld) { _ in
                _ = try await gateway.charge(
                    charge, via: .instance("probe"), context: OperationContext(idempotencyKey: key))
            }
        }
        runner.cancel()
        _ = try? await runner.value
    }

    static func measure(
        _ label: String, count: Int, stores: PostgresStores, old: TwoStatementClaimLedger, isOld: Bool,
        _ call: (Int) async throws -> Void
    ) async throws {
        for index in 0..<50 { try await call(-index - 1) }
        stores.resetPoolStatistics()
        let oldBefore = old.statements
        var latencies: [Duration] = []
        latencies.reserveCapacity(count)
        let start = ContinuousClock.now
        for index in 0..<count {
            let began = ContinuousClock.now
            try await call(index)
            latencies.append(ContinuousClock.now - began)
        }
        let elapsed = ContinuousClock.now - start
        let statements = stores.poolStatistics.statements + (isOld ? old.statements - oldBefore : 0)
        let sorted = latencies.sorted()
        say(
            String(
                format: "| %@ | %.3f | %.3f | %.3f | %.2f |", label, ms(elapsed) / Double(count),
                ms(percentile(sorted, 0.5)), ms(percentile(sorted, 0.99)),
                Double(statements) / Double(count)
            )
        )
    }

    static func instantGateway(ledger: any OperationLedger) throws -> CardGateway {
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
}

/// A copy of `PostgresDatabase.withTimeout` (internal to CardGatewayPostgres): the operation in a task, a timer in
/// another, the first to finish resumes the caller.
func withStoreTimeout<T: Sendable>(
    _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let gate = StoreGate<T>()
    let work = Task {
        do { gate.finish(.success(try await operation())) } catch { gate.finish(.failure(error)) }
    }
    let timer = Task {
        try? await Task.sleep(for: timeout)
        if !Task.isCancelled { gate.finish(.failure(LoadError(description: "timed out"))) }
    }
    defer {
        timer.cancel()
        work.cancel()
    }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in gate.install(continuation) }
    } onCancel: {
        gate.finish(.failure(CancellationError()))
    }
}

final class StoreGate<T: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<T, any Error>?, result: Result<T, any Error>?)>(
        (nil, nil))

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let ready = state.withLock { state -> Result<T, any Error>? in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let ready { continuation.resume(with: ready) }
    }

    func finish(_ result: Result<T, any Error>) {
        let waiting = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume(with: result)
    }
}

/// The simulator on 127.0.0.1 until stopped.
final class SimulatorRun: Sendable {
    let handle: SimulatorHandle
    private let task: Task<Void, any Error>
    private let stopSignal: AsyncStream<Void>.Continuation

    static func start(_ simulator: any ProviderSimulator) async throws -> SimulatorRun {
        let (stopSignal, stop) = AsyncStream<Void>.makeStream()
        let (ready, readyContinuation) = AsyncStream<SimulatorHandle>.makeStream()
        let task = Task {
            try await withSimulator(simulator, host: "127.0.0.1") { handle in
                readyContinuation.yield(handle)
                readyContinuation.finish()
                for await _ in stopSignal {}
            }
        }
        var iterator = ready.makeAsyncIterator()
        guard let handle = await iterator.next() else {
            stop.finish()
            try await task.value
            throw LoadError(description: "the simulator stopped before it listened")
        }
        return SimulatorRun(handle: handle, task: task, stopSignal: stop)
    }

    private init(handle: SimulatorHandle, task: Task<Void, any Error>, stopSignal: AsyncStream<Void>.Continuation) {
        self.handle = handle
        self.task = task
        self.stopSignal = stopSignal
    }

    func stop() async {
        stopSignal.finish()
        _ = try? await task.value
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

struct NoJournal: ProvisioningJournal {
    func append(_ entry: ProvisioningJournalEntry) async throws {}
    func entries(card: String?, limit: Int) async throws -> [ProvisioningJournalEntry] { [] }
}
