import CardGateway
import CardGatewayPostgres
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization
import Testing

/// The database the PostgreSQL tests use: `CARDGATEWAY_TEST_DATABASE_URL` (a user who may create databases).
///
/// Run by hand without it, the PostgreSQL suites are skipped with a visible reason (`.enabled(if:)`). In CI
/// (`CI=true`) they always run, so a missing database fails them instead of passing silently; `.ci/run` starts a
/// throwaway cluster and sets the variable.
enum TestDatabase {
    static let environment = ProcessInfo.processInfo.environment
    static let url: String? = environment["CARDGATEWAY_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let inCI = environment["CI"] == "true"
    static let enabled = url != nil || inCI
    static let skipReason: Comment =
        "CARDGATEWAY_TEST_DATABASE_URL is not set: start a database with `eval \"$(scripts/dev-postgres)\"`"

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "CARDGATEWAY_TEST_DATABASE_URL is not set, and in CI the PostgreSQL tests must run: .ci/run starts a database"
        }
    }

    static func configuration(database: String? = nil) throws -> PostgresStoreConfiguration {
        guard let url else { throw Missing() }
        var configuration = try PostgresStoreConfiguration(url: Secret(url))
        configuration.timeout = .seconds(10)
        configuration.connectTimeout = .seconds(10)
        if let database { configuration.database = database }
        return configuration
    }

    static var password: String? { (try? configuration())?.password?.revealedValue }

    /// A new, empty database for `body`, dropped afterwards.
    static func withFreshDatabase<Result: Sendable>(
        _ body: (PostgresStoreConfiguration) async throws -> Result
    ) async throws -> Result {
        let admin = try configuration()
        let name = "cgtest_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try await PostgresStores.withStores(admin, migrate: false) { stores in
            _ = try await stores.client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)")).collect()
        }
        func drop() async {
            _ = try? await PostgresStores.withStores(admin, migrate: false) { stores in
                _ = try await stores.client.query(
                    PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
                ).collect()
            }
        }
        do {
            let result = try await body(try configuration(database: name))
            await drop()
            return result
        } catch {
            await drop()
            throw error
        }
    }
}

/// A TCP proxy on loopback in front of the database, to take it away and bring it back as a restart would: `stop()`
/// closes the listener and every connection, `start()` listens again on the same port.
final class RestartingProxy: Sendable {
    let targetHost: String
    let targetPort: Int
    private let group = MultiThreadedEventLoopGroup.singleton
    private let state = Mutex<(port: Int, server: (any Channel)?, connections: [any Channel])>((0, nil, []))

    init(targetHost: String, targetPort: Int) {
        self.targetHost = targetHost
        self.targetPort = targetPort
    }

    var port: Int { state.withLock { $0.port } }

    func start() async throws {
        let requested = port
        let targetHost = targetHost
        let targetPort = targetPort
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] inbound in
                ClientBootstrap(group: inbound.eventLoop).connect(host: targetHost, port: targetPort).flatMap {
                    outbound in
                    self.track([inbound, outbound])
                    outbound.closeFuture.whenComplete { _ in inbound.close(promise: nil) }
                    inbound.closeFuture.whenComplete { _ in outbound.close(promise: nil) }
                    return outbound.eventLoop.makeCompletedFuture {
                        try outbound.pipeline.syncOperations.addHandler(Forward(peer: inbound))
                    }.flatMap {
                        inbound.eventLoop.makeCompletedFuture {
                            try inbound.pipeline.syncOperations.addHandler(Forward(peer: outbound))
                        }
                    }
                }
            }
            .bind(host: "127.0.0.1", port: requested).get()
        state.withLock { state in
            state.server = server
            state.port = server.localAddress?.port ?? requested
        }
    }

    private func track(_ channels: [any Channel]) {
        state.withLock { $0.connections += channels }
    }

    func stop() async {
        let (server, connections) = state.withLock { state -> ((any Channel)?, [any Channel]) in
            defer {
                state.server = nil
                state.connections = []
            }
            return (state.server, state.connections)
        }
        try? await server?.close()
        for connection in connections { try? await connection.close() }
    }

    private final class Forward: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let peer: any Channel
        init(peer: any Channel) { self.peer = peer }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            peer.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }
    }
}

/// A ledger that works until told to stop recording outcomes: the process "crashes" between sending and recording.
final class CrashingLedger: OperationLedger {
    let base: any OperationLedger
    init(_ base: any OperationLedger) { self.base = base }
    struct Crashed: Error {}
    func claim(_ intent: LedgerIntent) async throws -> LedgerClaim { try await base.claim(intent) }
    func record(_ outcome: LedgerOutcome, key: String, owner: UUID) async throws { throw Crashed() }
    func release(key: String, owner: UUID) async throws { throw Crashed() }
    func record(key: String) async throws -> LedgerRecord? { try await base.record(key: key) }
    func reconcile(key: String, to resolution: LedgerReconciliation) async throws {
        try await base.reconcile(key: key, to: resolution)
    }
    func purgeExpired() async throws -> Int { try await base.purgeExpired() }
}
