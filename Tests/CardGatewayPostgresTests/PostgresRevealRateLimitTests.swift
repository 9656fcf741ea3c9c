import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayPostgres
import CardGatewayTesting
import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import ProvisioningServerApp
import Synchronization
import Testing

/// The provisioning server's card details and PIN rate limit on PostgreSQL: every instance counts one user's calls in
/// the same bucket.
@Suite(
    "Reveal rate limit on PostgreSQL", .enabled(if: TestDatabase.enabled, TestDatabase.skipReason),
    .timeLimit(.minutes(5)))
struct PostgresRevealRateLimitTests {
    static let aliceToken = "alice-pg-reveal-token-31f0"
    static let bobToken = "bob-pg-reveal-token-8c2d"

    /// A server with no provider and users without cards: a reveal call spends the user's allowance, then answers 404
    /// (the card is not theirs), so the limit is seen without any provider.
    static func server(stores: PostgresStores, perMinute: Int, audit: LogCapture) throws -> ProvisioningServer {
        let gateway = try CardGateway(
            configuration: GatewayConfiguration(providers: [:], routes: []), registry: ProviderRegistry([]),
            transport: ScriptedTransport([]))
        let directory = InMemoryCardDirectory(accounts: [
            InMemoryCardDirectory.Account(user: AppUser(id: "user-alice"), token: Secret(aliceToken), cards: []),
            InMemoryCardDirectory.Account(user: AppUser(id: "user-bob"), token: Secret(bobToken), cards: []),
        ])
        var configuration = ProvisioningServer.Configuration(rateLimitPerUser: 0, rateLimitPerAddress: 0)
        configuration.cardReveal = CardRevealPolicy(rateLimitPerUser: perMinute)
        return ProvisioningServer(
            gateway: gateway, directory: directory, configuration: configuration,
            auditLogger: audit.logger(label: "audit", level: .notice),
            revealAllowance: RevealAllowance { userID, perMinute in
                try await stores.rateLimits.spend(
                    scope: PostgresRateLimits.cardRevealScope, key: userID, perMinute: perMinute)
            }
        )
    }

    /// `POST /v1/cards/{card}/reveal/cardDetails` on the server at `port`; the status.
    static func reveal(port: Int, token: String) async throws -> Int {
        var request = HTTPRequest(
            method: .post, scheme: "http", authority: "127.0.0.1:\(port)", path: "/v1/cards/c1/reveal/cardDetails")
        request.headerFields[.authorization] = "Bearer \(token)"
        request.headerFields[.contentType] = "application/json"
        let response = try await AsyncHTTPClientTransport().send(
            request, body: Data(#"{"flow":"clientAccessToken"}"#.utf8), timeout: .seconds(30))
        return Int(response.response.status.code)
    }

    @Test("two server instances on one database, one user: the reveal limit counts the calls to both")
    func twoInstances() async throws {
        try await TestDatabase.withFreshDatabase { configuration in
            // Two pools, as two processes would have.
            try await PostgresStores.withStores(configuration) { first in
                try await PostgresStores.withStores(configuration, migrate: false) { second in
                    let audit = LogCapture()
                    let servers = [
                        try Self.server(stores: first, perMinute: 3, audit: audit),
                        try Self.server(stores: second, perMinute: 3, audit: audit),
                    ]
                    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for server in servers {
                            group.addTask {
                                try await ProvisioningServerService(server: server, host: "127.0.0.1", port: 0) {
                                    continuation.yield($0)
                                }.run()
                            }
                        }
                        defer { group.cancelAll() }
                        var iterator = ports.makeAsyncIterator()
                        let a = try #require(await iterator.next())
                        let b = try #require(await iterator.next())
                        // Three calls a minute for alice, spread over both instances: the fourth is refused by either.
                        #expect(try await Self.reveal(port: a, token: Self.aliceToken) == 404)
                        #expect(try await Self.reveal(port: b, token: Self.aliceToken) == 404)
                        #expect(try await Self.reveal(port: a, token: Self.aliceToken) == 404)
                        #expect(try await Self.reveal(port: b, token: Self.aliceToken) == 429)
                        #expect(try await Self.reveal(port: a, token: Self.aliceToken) == 429)
                        // Bob has his own bucket.
                        #expect(try await Self.reveal(port: b, token: Self.bobToken) == 404)
                    }
                    // The rows: one bucket per user, alice's spent.
                    let rows = try await first.client.query(
                        "SELECT key, tokens FROM cardgateway_rate_limits WHERE scope = 'cardReveal' ORDER BY key"
                    ).collect()
                    let buckets = try rows.map { try $0.decode((String, Double).self) }
                    #expect(buckets.map(\.0) == ["user-alice", "user-bob"])
                    #expect(buckets.first.map { $0.1 < 1 } == true, "\(buckets)")
                    // Both refusals are in the audit trail, as rate limits.
                    let refused = audit.all.filter { $0.metadata["reason"] == "rateLimited" }
                    #expect(refused.count == 2)
                    #expect(refused.allSatisfy { $0.metadata["user.id"] == "user-alice" })
                }
            }
        }
    }

    @Test(
        "the bucket: a minute's allowance at once, refilled with the clock, never backwards; concurrent spends from two pools count exactly"
    )
    func bucket() async throws {
        try await TestDatabase.withFreshDatabase { configuration in
            try await PostgresStores.withStores(configuration) { first in
                try await PostgresStores.withStores(configuration, migrate: false) { second in
                    let limits = first.rateLimits
                    let start = Date(timeIntervalSince1970: 2_000_000_000)
                    let scope = "test"
                    #expect(try await limits.spend(scope: scope, key: "u1", perMinute: 2, now: start) == nil)
                    #expect(try await limits.spend(scope: scope, key: "u1", perMinute: 2, now: start) == nil)
                    // Empty: one token comes back every 30 s.
                    let wait = try #require(try await limits.spend(scope: scope, key: "u1", perMinute: 2, now: start))
                    #expect(wait >= .milliseconds(29_999) && wait <= .milliseconds(30_001), "\(wait)")
                    // A clock behind the last spend refills nothing.
                    #expect(
                        try await limits.spend(scope: scope, key: "u1", perMinute: 2, now: start - 3600) != nil)
                    let later = start.addingTimeInterval(30)
                    #expect(try await second.rateLimits.spend(scope: scope, key: "u1", perMinute: 2, now: later) == nil)
                    #expect(try await limits.spend(scope: scope, key: "u1", perMinute: 2, now: later) != nil)
                    // Twenty spends at once from two pools for a bucket of five: exactly five granted.
                    let granted = try await withThrowingTaskGroup(of: Bool.self) { group in
                        for index in 0..<20 {
                            let store = index.isMultiple(of: 2) ? first.rateLimits : second.rateLimits
                            group.addTask {
                                try await store.spend(scope: scope, key: "u2", perMinute: 5, now: start) == nil
                            }
                        }
                        return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                    }
                    #expect(granted == 5)
                    // Idle buckets go.
                    #expect(try await limits.purgeIdle(before: start.addingTimeInterval(10)) == 1)
                }
            }
        }
    }
}
