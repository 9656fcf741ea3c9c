import CardGateway
import Foundation

/// How to reach the PostgreSQL database the stores share, parsed from a `postgres://` URL.
///
/// The password is kept as a ``Secret``: this value's description, and every error and log line of this module,
/// shows the user, host, port and database, never the password.
public struct PostgresStoreConfiguration: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Whether to speak TLS, from the URL's `sslmode` (`disable`, `prefer` — the default — or `require`).
    public enum TLSMode: String, Sendable {
        case disable
        case prefer
        case require
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: Secret?
    public var database: String
    public var tls: TLSMode
    /// The longest one store operation may take, connecting included; then it fails with a `timeout` error and the
    /// provider call it guards is not sent. 5 s by default.
    public var timeout: Duration
    /// How long to wait for a new connection. Defaults to the operation timeout.
    public var connectTimeout: Duration
    /// The most connections this process opens (postgres-nio's pool).
    public var maxConnections: Int
    /// How long operation-ledger records are kept after their claim's lease ends: 24 hours by default.
    public var ledgerRetention: Duration
    /// How often ``PostgresStores/run()`` deletes expired ledger records.
    public var purgeInterval: Duration
    /// The ledger's clock: the database's `now()`, which tests advance instead of sleeping (see ``PostgresLedgerClock``).
    /// Copies of this configuration share it.
    public var ledgerClock = PostgresLedgerClock()

    public init(
        host: String, port: Int = 5432, username: String, password: Secret?, database: String, tls: TLSMode = .prefer,
        timeout: Duration = .seconds(5), connectTimeout: Duration? = nil, maxConnections: Int = 10,
        ledgerRetention: Duration = LedgerPolicy.defaultRetention, purgeInterval: Duration = .seconds(600)
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.tls = tls
        self.timeout = timeout
        self.connectTimeout = connectTimeout ?? timeout
        self.maxConnections = maxConnections
        self.ledgerRetention = ledgerRetention
        self.purgeInterval = purgeInterval
    }

    /// Parses `postgres://user:password@host:port/database?sslmode=disable`. Throws `invalidConfiguration` whose
    /// message never contains the URL.
    public init(url: Secret) throws {
        if let problem = GatewayConfiguration.databaseURLProblem(url) {
            throw CardGatewayError(.invalidConfiguration, "the database URL \(problem)")
        }
        guard let components = URLComponents(string: url.revealedValue), let host = components.host,
            let user = components.user
        else {
            throw CardGatewayError(.invalidConfiguration, "the database URL is not a postgres:// URL")
        }
        var tls = TLSMode.prefer
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                switch item.value {
                case "disable": tls = .disable
                case "allow", "prefer", nil: tls = .prefer
                case "require", "verify-ca", "verify-full": tls = .require
                default:
                    throw CardGatewayError(
                        .invalidConfiguration, "the database URL's sslmode must be disable, prefer or require")
                }
            case "application_name", "connect_timeout":
                continue
            default:
                throw CardGatewayError(
                    .invalidConfiguration,
                    "the database URL has an unsupported parameter \(SafeText.scrub(item.name, maxLength: 40)); supported: sslmode"
                )
            }
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        self.init(
            host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: components.port ?? 5432,
            username: user.removingPercentEncoding ?? user,
            password: (components.password?.removingPercentEncoding ?? components.password).map(Secret.init),
            database: database.removingPercentEncoding ?? database, tls: tls
        )
    }

    /// From the gateway configuration's `store` section (kind `postgres`).
    public init(_ store: StoreConfiguration) throws {
        guard store.kind == .postgres else {
            throw CardGatewayError(.invalidConfiguration, "the store section is of kind \(store.kind), not postgres")
        }
        guard let url = store.url else {
            throw CardGatewayError(.invalidConfiguration, "store.url is required for a postgres store")
        }
        try self.init(url: url)
        timeout = store.timeout
        connectTimeout = store.timeout
        maxConnections = store.maxConnections
        ledgerRetention = store.ledgerRetention
    }

    /// Where the database is, for messages: `user@host:port/database`, without the password.
    public var endpoint: String { "\(username)@\(host):\(port)/\(database)" }

    public var description: String {
        "PostgresStoreConfiguration(postgres://\(username)\(password == nil ? "" : ":<redacted>")@\(host):\(port)/\(database), tls: \(tls.rawValue), timeout: \(timeout), maxConnections: \(maxConnections))"
    }

    public var debugDescription: String { description }
}
