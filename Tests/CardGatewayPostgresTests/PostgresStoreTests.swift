import CardGateway
import CardGatewayPostgres
import CardGatewayTesting
import Foundation
import PostgresNIO
import Testing

// Without CARDGATEWAY_TEST_DATABASE_URL these suites are skipped, with the reason shown; in CI (CI=true) they run
// and fail, because .ci/run must have started a database.
@Suite("PostgreSQL stores", .enabled(if: TestDatabase.enabled, TestDatabase.skipReason), .timeLimit(.minutes(5)))
struct PostgresStoreTests {
    @Test("credential references pass the store checks the in-memory store passes")
    func credentialReferences() async throws {
        try await PostgresStores.withStores(try TestDatabase.configuration()) { stores in
            try await StoreChecks.credentialStore(stores.credentialReferences)
        }
    }

    @Test("the operation ledger passes the ledger checks")
    func ledger() async throws {
        let configuration = try TestDatabase.configuration()
        let clock = configuration.ledgerClock
        try await PostgresStores.withStores(configuration) { stores in
            // Leases run out when the ledger's clock is advanced, not after a sleep.
            try await StoreChecks.ledger(stores.operationLedger) { clock.advance(by: $0) }
        }
    }

    @Test("ledger records expire after the configured retention, and are purged")
    func retention() async throws {
        // Its own database: its purge runs on a clock moved minutes ahead, and would delete the live records of the
        // tests running beside it (it made two claimers own one key in `expiredKeyRace`: scripts/soak, run 6 of 10).
        try await TestDatabase.withFreshDatabase { fresh in try await retention(fresh) }
    }

    func retention(_ fresh: PostgresStoreConfiguration) async throws {
        var configuration = fresh
        configuration.ledgerRetention = .seconds(60)
        let clock = configuration.ledgerClock
        try await PostgresStores.withStores(configuration) { stores in
            try await StoreChecks.ledgerExpiry(stores.operationLedger, retention: .seconds(60)) {
                clock.advance(by: $0)
            }
        }
    }

    @Test("run() serves the pool and purges expired ledger records until cancelled")
    func runPurges() async throws {
        // Its own database: the purge loop must not delete the expired records other tests count.
        try await TestDatabase.withFreshDatabase { fresh in try await runPurges(fresh) }
    }

    func runPurges(_ fresh: PostgresStoreConfiguration) async throws {
        var configuration = fresh
        configuration.ledgerRetention = .seconds(60)
        configuration.purgeInterval = .milliseconds(10)
        let clock = configuration.ledgerClock
        let key = "purge-\(UUID().uuidString)"
        // Rows, expired or not, as the table holds them (record(key:) already hides expired ones).
        @Sendable func rows(_ client: PostgresClient) async throws -> Int {
            var count = 0
            for try await n in try await client.query(
                "SELECT count(*)::int8 FROM cardgateway_operation_ledger WHERE idempotency_key = \(key)"
            ).decode(Int.self) {
                count = n
            }
            return count
        }
        // A record written by an instance that does not purge: it stays, expired, until one that runs does.
        try await PostgresStores.withStores(configuration) { writer in
            guard
                case .claimed(let owner) = try await writer.operationLedger.claim(
                    LedgerIntent(key: key, operation: .charge, instance: "tp", fingerprint: "f", lease: .seconds(60))
                )
            else {
                Issue.record("expected a claim")
                return
            }
            try await writer.operationLedger.record(.succeeded(Data("{}".utf8)), key: key, owner: owner)
            #expect(try await writer.operationLedger.record(key: key)?.state == .succeeded)
            clock.advance(by: .seconds(121))  // past the lease (60 s) and the retention after it (60 s)
            #expect(try await rows(writer.client) == 1)
            #expect(try await writer.operationLedger.record(key: key) == nil, "an expired record is not returned")
        }
        let stores = PostgresStores(configuration: configuration)
        let running = Task { try await stores.run() }
        let deadline = ContinuousClock.now + .seconds(20)
        // Each look is a query (no sleep): the purge loop runs every 10 ms on the advanced clock.
        while try await rows(stores.client) > 0, ContinuousClock.now < deadline { await Task.yield() }
        #expect(try await rows(stores.client) == 0, "the purge loop deleted the expired record")
        running.cancel()
        try await running.value
    }

    @Test("the provisioning journal passes the journal checks")
    func journal() async throws {
        try await PostgresStores.withStores(try TestDatabase.configuration()) { stores in
            try await StoreChecks.journal(stores.provisioningJournal)
        }
    }

    @Test("migrations: from an empty database, again (nothing to do), and from four instances at once")
    func migrations() async throws {
        let all = PostgresMigrations.all.map(\.version)
        try await TestDatabase.withFreshDatabase { configuration in
            try await PostgresStores.withStores(configuration, migrate: false) { stores in
                #expect(try await stores.migrate() == all)
                #expect(try await stores.migrate() == [])
                #expect(try await stores.appliedMigrations() == all)
                try await StoreChecks.journal(stores.provisioningJournal)
            }
        }
        try await TestDatabase.withFreshDatabase { configuration in
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await PostgresStores.withStores(configuration, migrate: false) { try await $0.migrate() }
                    }
                }
                return try await group.reduce(into: [Int]()) { $0 += $1 }
            }
            #expect(applied.sorted() == all, "each migration is applied exactly once across the four instances")
            let versions = try await PostgresStores.withStores(configuration, migrate: false) {
                try await $0.appliedMigrations()
            }
            #expect(versions == all)
        }
    }

    @Test("a database that cannot be reached is a clear error without the password")
    func unreachable() async throws {
        var configuration = try TestDatabase.configuration()
        // A loopback port nothing listens on.
        configuration.port = 1
        configuration.timeout = .seconds(1)
        configuration.connectTimeout = .milliseconds(500)
        let password = try #require(configuration.password?.revealedValue)
        let capture = LogCapture()
        // It ends (after the 1 s timeout and one direct connection attempt that says why) rather than waiting for the
        // pool's circuit breaker; how fast is not checked here (benchmarks measure speed, tests do not).
        let error = await #expect(throws: CardGatewayError.self) {
            try await PostgresStores.withStores(configuration, logger: capture.logger(), migrate: false) { stores in
                try await stores.credentialReferences.credential(reference: "1-2-3")
            }
        }
        #expect(
            error?.code == .providerUnavailable,
            "a refused connection is diagnosed as unreachable: \(String(describing: error))")
        #expect(error?.message.contains("cannot be reached") == true)
        #expect(error?.isRetryable == true)
        #expect(error?.message.contains("127.0.0.1:1") == true)
        #expect(error.map { !"\($0)".contains(password) } == true)
        #expect(!capture.all.contains { $0.rendered.contains(password) })
        #expect(!"\(configuration)".contains(password))
    }

    @Test("a wrong password is an authentication error that does not repeat it")
    func wrongPassword() async throws {
        var configuration = try TestDatabase.configuration()
        configuration.password = Secret("not-the-password-7f1e")
        configuration.timeout = .seconds(5)
        let error = await #expect(throws: CardGatewayError.self) {
            try await PostgresStores.withStores(configuration, migrate: false) { stores in
                try await stores.credentialReferences.credential(reference: "1-2-3")
            }
        }
        #expect(error?.code == .authenticationFailed, "the login refusal is diagnosed: \(String(describing: error))")
        #expect(error?.message.contains("refused the login") == true)
        #expect(error.map { !"\($0)".contains("not-the-password-7f1e") } == true)
    }

    @Test("the store configuration parses URLs and never shows the password")
    func configuration() throws {
        let configuration = try PostgresStoreConfiguration(
            url: Secret("postgresql://cards:p%40ss-w0rd@db.internal:6543/card_db?sslmode=require"))
        #expect(configuration.host == "db.internal")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "cards")
        #expect(configuration.password?.revealedValue == "p@ss-w0rd")
        #expect(configuration.database == "card_db")
        #expect(configuration.tls == .require)
        #expect(!"\(configuration)".contains("p@ss") && !String(reflecting: configuration).contains("p@ss"))
        #expect(configuration.endpoint == "cards@db.internal:6543/card_db")
        for bad in [
            "mysql://a:b@h/d", "postgres://a:b@h", "postgres://h/d", "postgres://a:secret-pw@h/d?sslmode=sometimes",
            "postgres://a:secret-pw@h/d?password=x",
        ] {
            let error = #expect(throws: CardGatewayError.self) { try PostgresStoreConfiguration(url: Secret(bad)) }
            #expect(error?.code == .invalidConfiguration)
            #expect(error.map { !"\($0)".contains("secret-pw") } == true)
        }
    }
}
