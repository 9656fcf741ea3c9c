import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayPostgres
import CardGatewaySimulation
import CardGatewayTesting
import ExampleSupport
import Foundation
import PaysafeSimulator
import PostgresNIO
import Testing
import TrustPaymentsSimulator

/// Gateways over the embedded simulators whose stores are PostgreSQL: each `PostgresStores` is its own connection
/// pool, as each instance of a service would have.
enum PostgresGatewayFixture {
    typealias TPSeed = TrustPaymentsSimulator.Seed
    static let trustPayments = EmbeddedSimulators.Instance.trustPayments
    static let parent = TPSeed.Transaction.storedVisaAuth
    static let money = Money(minorUnits: 1050, currency: "GBP")

    static func gateway(
        _ running: RunningSimulators, stores: PostgresStores, ledger: (any OperationLedger)? = nil,
        policy: LedgerPolicy = .default
    ) throws -> CardGateway {
        try CardGateway(
            configuration: try running.configuration(), registry: ExampleRegistry.all,
            credentialStore: stores.credentialReferences
        )
        .using(ledger: ledger ?? stores.operationLedger, journal: stores.provisioningJournal, ledgerPolicy: policy)
    }

    /// The seeded parent transaction, as the instance would have kept it after verifying it.
    static func saveParent(_ stores: PostgresStores) async throws {
        try await stores.credentialReferences.save(
            StoredCredential(
                reference: parent, provider: trustPayments, maskedPAN: "411111######1111", brand: "VISA", scheme: .visa,
                created: Date())
        )
    }

    static func charge() -> ChargeRequest {
        ChargeRequest(reference: parent, amount: money, initiator: .merchant(.unscheduled), orderReference: "order-77")
    }

    static func charges(_ running: RunningSimulators) -> Int {
        running.handle("trustpayments")?.journal.entries(method: "POST", pathContains: "/json/").count ?? -1
    }

    static func key() -> OperationContext { OperationContext(idempotencyKey: "charge-" + UUID().uuidString) }
}

@Suite(
    "Gateways sharing PostgreSQL", .enabled(if: TestDatabase.enabled, TestDatabase.skipReason), .timeLimit(.minutes(5)))
struct PostgresGatewayTests {
    typealias Fixture = PostgresGatewayFixture

    @Test(
        "two gateways with their own pools race on one Trust Payments charge key: one charge, the same outcome for all")
    func race() async throws {
        let configuration = try TestDatabase.configuration()
        try await EmbeddedSimulators().run { running in
            try await PostgresStores.withStores(configuration) { first in
                try await PostgresStores.withStores(configuration) { second in
                    try await Fixture.saveParent(first)
                    // The simulator answers slowly, so that every caller arrives while the first is in flight.
                    running.handle("trustpayments")?.faults.inject(
                        FaultRule(count: 1, pathPrefix: "/json/", action: .delay(milliseconds: 300)))
                    let gateways = try [
                        Fixture.gateway(running, stores: first), Fixture.gateway(running, stores: second),
                    ]
                    let context = Fixture.key()
                    let results = try await withThrowingTaskGroup(of: ChargeResult.self) { group in
                        for index in 0..<8 {
                            let gateway = gateways[index % 2]
                            group.addTask {
                                try await gateway.charge(
                                    Fixture.charge(), via: .instance(Fixture.trustPayments), context: context)
                            }
                        }
                        return try await group.reduce(into: [ChargeResult]()) { $0.append($1) }
                    }
                    #expect(Fixture.charges(running) == 1, "exactly one charge reached Trust Payments")
                    #expect(results.count == 8)
                    #expect(Set(results.map(\.transactionReference)).count == 1, "every caller sees the one charge")
                    let record = try await first.operationLedger.record(key: try #require(context.idempotencyKey))
                    #expect(record?.state == .succeeded)
                    #expect(record?.instance == Fixture.trustPayments)
                    // A later repeat through either instance is a replay.
                    let replay = try await gateways[1].charge(
                        Fixture.charge(), via: .instance(Fixture.trustPayments), context: context)
                    #expect(replay == results[0])
                    #expect(Fixture.charges(running) == 1)
                    let entries = try await first.provisioningJournal.entries(card: Fixture.parent, limit: 50)
                    #expect(
                        entries.filter { $0.operation == .charge && $0.outcome == ProvisioningJournalEntry.succeeded }
                            .count >= 9)
                    #expect(try await first.credentialReferences.credential(reference: Fixture.parent)?.lastUsed != nil)
                }
            }
        }
    }

    @Test(
        "a crash between sending and recording leaves the charge unknown; a retry through another instance does not send it"
    )
    func crashBetweenSentAndRecorded() async throws {
        // Both instances' ledgers read the same clock (copies of one configuration share it).
        let configuration = try TestDatabase.configuration()
        let clock = configuration.ledgerClock
        try await EmbeddedSimulators().run { running in
            try await PostgresStores.withStores(configuration) { first in
                try await PostgresStores.withStores(configuration) { second in
                    try await Fixture.saveParent(first)
                    // No waiting for an attempt in flight: a repeat within the lease is refused at once.
                    let policy = LedgerPolicy(lease: .seconds(60), maximumWait: .zero)
                    let crashing = try Fixture.gateway(
                        running, stores: first, ledger: CrashingLedger(first.operationLedger), policy: policy)
                    let survivor = try Fixture.gateway(running, stores: second, policy: policy)
                    let context = Fixture.key()
                    let key = try #require(context.idempotencyKey)
                    // Charged at Trust Payments; the outcome never reaches the ledger.
                    _ = try await crashing.charge(
                        Fixture.charge(), via: .instance(Fixture.trustPayments), context: context)
                    #expect(Fixture.charges(running) == 1)
                    #expect(try await second.operationLedger.record(key: key)?.state == .pending)
                    let held = await #expect(throws: CardGatewayError.self, "within its lease the claim holds") {
                        try await survivor.charge(
                            Fixture.charge(), via: .instance(Fixture.trustPayments), context: context)
                    }
                    #expect(held?.code == .conflict && held?.isRetryable == true, "an attempt in flight: repeat later")
                    #expect(try await second.operationLedger.record(key: key)?.state == .pending)
                    clock.advance(by: .seconds(61))
                    for _ in 0..<2 {
                        let error = await #expect(throws: CardGatewayError.self) {
                            try await survivor.charge(
                                Fixture.charge(), via: .instance(Fixture.trustPayments), context: context)
                        }
                        #expect(error?.code == .conflict)
                        #expect(error?.mayHaveReachedProvider == true)
                        #expect(error?.isRetryable == false)
                    }
                    #expect(Fixture.charges(running) == 1, "the unknown charge was not sent again")
                    #expect(try await second.operationLedger.record(key: key)?.state == .unknown)
                }
            }
        }
    }

    @Test(
        "the database restarted mid-run: a clear error and nothing sent, then recovery without restarting the process")
    func restart() async throws {
        var configuration = try TestDatabase.configuration()
        let proxy = RestartingProxy(targetHost: configuration.host, targetPort: configuration.port)
        try await proxy.start()
        configuration.host = "127.0.0.1"
        configuration.port = proxy.port
        configuration.timeout = .seconds(2)
        configuration.connectTimeout = .seconds(1)
        let password = configuration.password?.revealedValue
        try await EmbeddedSimulators().run { running in
            try await PostgresStores.withStores(configuration) { stores in
                try await Fixture.saveParent(stores)
                let gateway = try Fixture.gateway(running, stores: stores)
                _ = try await gateway.charge(
                    Fixture.charge(), via: .instance(Fixture.trustPayments), context: Fixture.key())
                #expect(Fixture.charges(running) == 1)

                await proxy.stop()
                let context = Fixture.key()
                let error = await #expect(throws: CardGatewayError.self) {
                    try await gateway.charge(Fixture.charge(), via: .instance(Fixture.trustPayments), context: context)
                }
                #expect(error?.code == .providerUnavailable)
                #expect(error?.mayHaveReachedProvider == false, "nothing was sent")
                #expect(error?.isRetryable == true)
                #expect(error?.message.contains("operation ledger") == true)
                #expect(error.map { password == nil || !"\($0)".contains(password!) } == true)
                #expect(Fixture.charges(running) == 1, "a store failure never becomes a provider call")

                try await proxy.start()
                let clock = ContinuousClock()
                let deadline = clock.now + .seconds(20)
                var recovered: ChargeResult?
                while recovered == nil, clock.now < deadline {
                    do {
                        recovered = try await gateway.charge(
                            Fixture.charge(), via: .instance(Fixture.trustPayments), context: context)
                    } catch let error as CardGatewayError
                        where error.code == .providerUnavailable || error.code == .timeout
                    {
                        #expect(error.mayHaveReachedProvider == false)
                        try await Task.sleep(for: .milliseconds(200))
                    }
                }
                #expect(recovered != nil, "the gateway recovered once the database was back")
                #expect(Fixture.charges(running) == 2, "the retry after recovery charged once")
            }
        }
        await proxy.stop()
    }

    @Test(
        "after the demo and keyed writes, no table holds a card number, CVV, PIN, certificate, payload, JWT or secret")
    func noSensitiveDataStored() async throws {
        try await TestDatabase.withFreshDatabase { configuration in
            try await PostgresStores.withStores(configuration) { stores in
                let report = try await Demo.run(makeGateway: { running, logger in
                    try CardGateway(
                        configuration: try running.configuration(), registry: ExampleRegistry.all, logger: logger,
                        credentialStore: stores.credentialReferences
                    )
                    .using(ledger: stores.operationLedger, journal: stores.provisioningJournal)
                })
                #expect(report.passed, "the demo passes on PostgreSQL stores: \(report.failures.map(\.outcome))")
                let used = try await EmbeddedSimulators().run { running in
                    try await keyedWrites(running, stores: stores)
                }
                let text = try await allRows(stores)
                #expect(!text.isEmpty)
                for table in [
                    "cardgateway_credential_references", "cardgateway_operation_ledger",
                    "cardgateway_provisioning_journal",
                ] {
                    #expect(text.contains("\(table):"), "\(table) has rows")
                }
                #expect(text.contains("411111######1111"), "masked PANs are kept")
                // Values shorter than 8 characters (a CVV, a PIN) could occur by chance in a fingerprint or a timestamp;
                // no column can hold them (see the column names below), and the fingerprint never hashes them.
                let forbidden =
                    used + [
                        TrustPaymentsSimulator.Seed.Card.visa, TrustPaymentsSimulator.Seed.jwtSecret,
                        TrustPaymentsSimulator.Seed.webservicesPassword,
                        PaysafeSimulator.Credentials.default.clientSecret,
                        SampleInputs.applePay.nonce.revealedBytes.base64EncodedString(),
                        SampleInputs.applePay.nonceSignature.revealedBytes.base64EncodedString(),
                        SampleInputs.applePay.certificates[0].revealedBytes.base64EncodedString(),
                        hex(SampleInputs.applePay.nonceSignature.revealedBytes),
                    ] + (configuration.password.map { [$0.revealedValue] } ?? [])
                for value in forbidden where value.count >= 8 {
                    #expect(!text.contains(value), "a table holds a sensitive value (\(value.count) characters)")
                }
                #expect(!text.contains("eyJ"), "a table holds something shaped like a JWT")
                #expect(Self.cardNumbers(in: text).isEmpty, "a table holds a card number")
                let columns = try await columnNames(stores)
                for name in [
                    "pan", "card_number", "cvv", "cvc", "pin", "certificate", "nonce", "payload", "jwt", "token",
                    "secret", "password",
                ] {
                    #expect(!columns.contains(name), "a column is named \(name)")
                }
            }
        }
    }

    /// Writes under idempotency keys, so the ledger holds rows: a Trust Payments charge, a Paysafe card created
    /// with a PIN, and a repeat of each. Returns the secrets they handled.
    func keyedWrites(_ running: RunningSimulators, stores: PostgresStores) async throws -> [String] {
        let gateway = try Fixture.gateway(running, stores: stores)
        try await Fixture.saveParent(stores)
        let context = Fixture.key()
        let charge = try await gateway.charge(Fixture.charge(), via: .instance(Fixture.trustPayments), context: context)
        #expect(
            try await gateway.charge(Fixture.charge(), via: .instance(Fixture.trustPayments), context: context)
                == charge)
        typealias Seed = PaysafeSimulator.Seed
        let pin = "4821"
        let request = CreateCardRequest(
            customer: Seed.euCustomer, type: .virtual, program: Seed.virtualMCProgram, currency: "EUR", pin: Secret(pin)
        )
        let cardContext = OperationContext(idempotencyKey: "card-" + UUID().uuidString)
        let created = try await gateway.createCard(
            request, via: .instance(EmbeddedSimulators.Instance.paysafe), context: cardContext)
        let again = try await gateway.createCard(
            request, via: .instance(EmbeddedSimulators.Instance.paysafe), context: cardContext)
        #expect(created.ref == again.ref)
        #expect(running.handle("paysafe")?.journal.entries(method: "POST", pathContains: "/cards").count == 1)
        let session = try await gateway.clientSession(
            ClientSessionRequest(intent: .reuse(reference: Fixture.parent), amount: Fixture.money),
            via: .instance(Fixture.trustPayments)
        )
        return [session.token.revealedValue]
    }

    /// Every row of every table in the public schema, as text, each prefixed with its table's name.
    func allRows(_ stores: PostgresStores) async throws -> String {
        var tables: [String] = []
        for try await name in try await stores.client.query(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'"
        ).decode(String.self) {
            tables.append(name)
        }
        var text = ""
        for table in tables {
            for try await row in try await stores.client.query(
                PostgresQuery(unsafeSQL: "SELECT t::text FROM \(table) t")
            ).decode(String.self) {
                text += "\(table): \(row)\n"
            }
        }
        return text
    }

    func columnNames(_ stores: PostgresStores) async throws -> Set<String> {
        var names = Set<String>()
        for try await name in try await stores.client.query(
            "SELECT column_name::text FROM information_schema.columns WHERE table_schema = 'public'"
        ).decode(String.self) {
            names.insert(name)
        }
        return names
    }

    func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    /// Runs of 13 to 19 digits that pass the Luhn check.
    static func cardNumbers(in text: String) -> [String] {
        var found: [String] = []
        var run = ""
        func check() {
            if (13...19).contains(run.count) && luhn(run) { found.append(run) }
            run = ""
        }
        for character in text {
            if character.isASCII && character.isNumber { run.append(character) } else { check() }
        }
        check()
        return found
    }

    static func luhn(_ digits: String) -> Bool {
        var sum = 0
        for (index, character) in digits.reversed().enumerated() {
            var digit = Int(String(character)) ?? 0
            if index % 2 == 1 {
                digit *= 2
                if digit > 9 { digit -= 9 }
            }
            sum += digit
        }
        return sum % 10 == 0
    }
}
