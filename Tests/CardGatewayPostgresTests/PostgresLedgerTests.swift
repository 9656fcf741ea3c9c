import CardGateway
import CardGatewayPostgres
import CardGatewayTesting
import Foundation
import PostgresNIO
import Testing

/// The PostgreSQL ledger's claim as one statement, its clock, and the pool's statistics.
@Suite(
    "PostgreSQL operation ledger", .enabled(if: TestDatabase.enabled, TestDatabase.skipReason), .timeLimit(.minutes(5)))
struct PostgresLedgerTests {
    static func intent(_ key: String, lease: Duration = .seconds(60), fingerprint: String = "f1") -> LedgerIntent {
        LedgerIntent(key: key, operation: .charge, instance: "tp", fingerprint: fingerprint, lease: lease)
    }

    /// The statements `body` sent through `stores` (each one round trip).
    static func statements(_ stores: PostgresStores, _ body: () async throws -> Void) async throws -> Int {
        let before = stores.poolStatistics.statements
        try await body()
        return stores.poolStatistics.statements - before
    }

    @Test("a claim, a repeat of a pending claim and a replay of a recorded outcome each take one round trip")
    func oneRoundTrip() async throws {
        try await PostgresStores.withStores(try TestDatabase.configuration()) { stores in
            let ledger = stores.operationLedger
            let key = "one-trip-\(UUID().uuidString)"
            var claim: LedgerClaim?
            let claimTrips = try await Self.statements(stores) { claim = try await ledger.claim(Self.intent(key)) }
            #expect(claimTrips == 1, "a new claim is one statement")
            guard case .claimed(let owner) = claim else {
                Issue.record("expected a claim, got \(String(describing: claim))")
                return
            }
            var repeated: LedgerClaim?
            let repeatTrips = try await Self.statements(stores) {
                repeated = try await ledger.claim(Self.intent(key, fingerprint: "f2"))
            }
            #expect(repeatTrips == 1, "a repeat of a pending claim is one statement")
            guard case .existing(let pending) = repeated else {
                Issue.record("expected the pending record, got \(String(describing: repeated))")
                return
            }
            #expect(pending.state == .pending && pending.fingerprint == "f1" && pending.key == key)
            let outcome = Data(#"{"transactionReference":"1-2-3"}"#.utf8)
            let recordTrips = try await Self.statements(stores) {
                try await ledger.record(.succeeded(outcome), key: key, owner: owner)
            }
            #expect(recordTrips == 1, "recording the outcome is one statement")
            var replay: LedgerClaim?
            let replayTrips = try await Self.statements(stores) { replay = try await ledger.claim(Self.intent(key)) }
            #expect(replayTrips == 1, "a replay reads the recorded outcome in the claiming statement")
            guard case .existing(let recorded) = replay else {
                Issue.record("expected the recorded outcome, got \(String(describing: replay))")
                return
            }
            #expect(recorded.state == .succeeded && recorded.outcome == outcome)
        }
    }

    @Test(
        "a lease runs out when the ledger's clock moves past it, with no sleep; the owner's late outcome still counts")
    func leaseOnTheClock() async throws {
        let configuration = try TestDatabase.configuration()
        let clock = configuration.ledgerClock
        try await PostgresStores.withStores(configuration) { stores in
            let ledger = stores.operationLedger
            let key = "lease-\(UUID().uuidString)"
            // Real time passes between the statements too (over a second on a loaded machine: scripts/soak), so the
            // lease is long and the ledger's clock is moved well short of it, then well past it.
            guard case .claimed(let owner) = try await ledger.claim(Self.intent(key, lease: .seconds(3_600))) else {
                Issue.record("expected a claim")
                return
            }
            clock.advance(by: .seconds(3_000))
            guard case .existing(let held) = try await ledger.claim(Self.intent(key)) else {
                Issue.record("expected the record")
                return
            }
            #expect(held.state == .pending, "ten minutes before its end, the lease still holds")
            clock.advance(by: .seconds(700))
            guard case .existing(let lapsed) = try await ledger.claim(Self.intent(key)) else {
                Issue.record("expected the record")
                return
            }
            #expect(lapsed.state == .unknown, "past its lease a pending claim is unknown")
            #expect(try await ledger.record(key: key)?.state == .unknown, "and stays so in the table")
            try await ledger.record(.succeeded(Data("{}".utf8)), key: key, owner: owner)
            #expect(try await ledger.record(key: key)?.state == .succeeded)
        }
    }

    @Test("the ledger's clock can follow a gateway's clock: a manual clock moved past the lease ends it")
    func followsGatewayClock() async throws {
        var configuration = try TestDatabase.configuration()
        let manual = ManualClock()
        configuration.ledgerClock = PostgresLedgerClock(following: manual.gatewayClock())
        try await PostgresStores.withStores(configuration) { stores in
            let ledger = stores.operationLedger
            let key = "follow-\(UUID().uuidString)"
            _ = try await ledger.claim(Self.intent(key, lease: .seconds(30)))
            manual.advance(by: .seconds(31))
            guard case .existing(let record) = try await ledger.claim(Self.intent(key)) else {
                Issue.record("expected the record")
                return
            }
            #expect(record.state == .unknown)
        }
    }

    @Test("an expired record is replaced by exactly one of many claimers racing through two pools")
    func expiredKeyRace() async throws {
        var configuration = try TestDatabase.configuration()
        configuration.ledgerRetention = .seconds(60)
        let clock = configuration.ledgerClock
        try await PostgresStores.withStores(configuration) { first in
            try await PostgresStores.withStores(configuration) { second in
                let key = "expired-race-\(UUID().uuidString)"
                guard case .claimed(let old) = try await first.operationLedger.claim(Self.intent(key)) else {
                    Issue.record("expected a claim")
                    return
                }
                try await first.operationLedger.record(.succeeded(Data("{}".utf8)), key: key, owner: old)
                // Expired: past the lease (60 s) and the retention after it (60 s).
                clock.advance(by: .seconds(121))
                let ledgers = [first.operationLedger, second.operationLedger]
                let claims = try await withThrowingTaskGroup(of: LedgerClaim.self) { group in
                    for index in 0..<24 {
                        group.addTask { try await ledgers[index % 2].claim(Self.intent(key, fingerprint: "new")) }
                    }
                    return try await group.reduce(into: [LedgerClaim]()) { $0.append($1) }
                }
                var owners: [UUID] = []
                for claim in claims {
                    switch claim {
                    case .claimed(let owner): owners.append(owner)
                    case .existing(let record):
                        #expect(
                            record.state == .pending && record.fingerprint == "new",
                            "the others see the new claim, not the expired record: \(record)")
                        #expect(record.outcome == nil)
                    }
                }
                #expect(owners.count == 1, "exactly one claimer replaces the expired record, \(owners.count) did")
                #expect(owners.first != old)
            }
        }
    }

    @Test("claims, releases and forgets racing on the same keys through two pools never give two owners at once")
    func churnRace() async throws {
        let configuration = try TestDatabase.configuration()
        try await PostgresStores.withStores(configuration) { first in
            try await PostgresStores.withStores(configuration) { second in
                let ledgers = [first.operationLedger, second.operationLedger]
                let keys = (0..<8).map { "churn-\($0)-\(UUID().uuidString)" }
                // Each round: every claimer races for every key; the one owner records or releases, and the key is
                // forgotten half the time. Two owners of one key in one round would mean a charge sent twice.
                for round in 0..<6 {
                    let claims = try await withThrowingTaskGroup(of: (String, LedgerClaim).self) { group in
                        for key in keys {
                            for index in 0..<6 {
                                group.addTask { (key, try await ledgers[index % 2].claim(Self.intent(key))) }
                            }
                        }
                        return try await group.reduce(into: [(String, LedgerClaim)]()) { $0.append($1) }
                    }
                    for key in keys {
                        let owners = claims.compactMap { entry -> UUID? in
                            guard entry.0 == key, case .claimed(let owner) = entry.1 else { return nil }
                            return owner
                        }
                        // Released or forgotten in the round before, so exactly one claimer gets it again.
                        #expect(owners.count == 1, "round \(round): \(owners.count) owners of one key")
                        guard let owner = owners.first else { continue }
                        if round % 2 == 0 {
                            try await ledgers[round % 2].release(key: key, owner: owner)
                        } else {
                            try await ledgers[1].record(.succeeded(Data("{}".utf8)), key: key, owner: owner)
                            try await ledgers[0].reconcile(key: key, to: .forget)
                        }
                    }
                }
            }
        }
    }

    @Test("the pool's statistics count leases, statements and connections in use, up to the pool's size")
    func poolStatistics() async throws {
        var configuration = try TestDatabase.configuration()
        configuration.maxConnections = 2
        try await PostgresStores.withStores(configuration) { stores in
            stores.resetPoolStatistics()
            #expect(stores.poolStatistics.leases == 0)
            let keys = (0..<12).map { "pool-\($0)-\(UUID().uuidString)" }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for key in keys { group.addTask { _ = try await stores.operationLedger.claim(Self.intent(key)) } }
                try await group.waitForAll()
            }
            let statistics = stores.poolStatistics
            #expect(statistics.maximumConnections == 2)
            #expect(statistics.leases == 12)
            #expect(statistics.statements == 12)
            #expect(
                statistics.peakInUse >= 1 && statistics.peakInUse <= 2,
                "never more connections in use than the pool holds: \(statistics)")
            #expect(statistics.histogram.reduce(0, +) == 12)
            #expect(statistics.waitPercentile(1.0) == statistics.longestWait)
            #expect(statistics.waitPercentile(0.5) <= statistics.longestWait)
            #expect(!statistics.description.isEmpty)
        }
    }
}
