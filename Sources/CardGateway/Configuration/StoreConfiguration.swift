import Foundation

/// Where the gateway keeps what several instances of a service must share: stored-credential references, the
/// operation ledger and the provisioning journal. The configuration's `store` section:
///
/// ```json
/// "store": {"kind": "postgres", "url": "env:DATABASE_URL", "ledgerRetentionHours": 24, "timeoutSeconds": 5, "maxConnections": 10}
/// ```
///
/// Without it everything stays in memory. The core only reads the section; `CardGatewayPostgres` opens the
/// database. The URL is a secret (it carries the password) and is never printed.
public struct StoreConfiguration: Sendable, CustomStringConvertible {
    /// Where the store is. A growable name: the configuration loader accepts only the kinds this version knows.
    public struct Kind: GrowableName {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// In this process's memory (the default).
        public static let memory = Kind("memory")
        /// A PostgreSQL database that every instance shares (`CardGatewayPostgres`).
        public static let postgres = Kind("postgres")

        public static let allCases: [Kind] = [.memory, .postgres]
    }

    public var kind: Kind
    /// The database URL (`postgres://user:password@host:port/database`), resolved from its secret reference.
    public var url: Secret?
    /// How long operation-ledger records are kept after their claim's lease ends: 24 hours unless configured.
    public var ledgerRetention: Duration
    /// The longest a store operation may take before it fails (the provider call it guards is then not sent).
    public var timeout: Duration
    /// The most connections one gateway process opens.
    public var maxConnections: Int

    public init(
        kind: Kind, url: Secret? = nil, ledgerRetention: Duration = LedgerPolicy.defaultRetention,
        timeout: Duration = .seconds(5),
        maxConnections: Int = 10
    ) {
        self.kind = kind
        self.url = url
        self.ledgerRetention = ledgerRetention
        self.timeout = timeout
        self.maxConnections = maxConnections
    }

    public static let inMemory = StoreConfiguration(kind: .memory)

    public var description: String {
        "StoreConfiguration(kind: \(kind)\(url == nil ? "" : ", url: <redacted>"), ledgerRetention: \(ledgerRetention), timeout: \(timeout), maxConnections: \(maxConnections))"
    }
}

extension GatewayConfiguration {
    /// The database URL's problem, if it has one, in words that never repeat the URL (it carries a password).
    public static func databaseURLProblem(_ url: Secret) -> String? {
        guard let components = URLComponents(string: url.revealedValue) else { return "is not a URL" }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            return "must be a postgres:// or postgresql:// URL"
        }
        guard let host = components.host, !host.isEmpty else { return "must name the database host" }
        guard let user = components.user, !user.isEmpty else {
            return "must name the database user (postgres://user:password@host:port/database)"
        }
        let database = components.path.drop(while: { $0 == "/" })
        guard !database.isEmpty else {
            return "must name the database after the host (postgres://user:password@host:port/database)"
        }
        return nil
    }
}

extension ConfigurationLoader {
    static let storeKeys: Set<String> = [
        "kind", "url", "ledgerRetentionHours", "timeoutSeconds", "maxConnections", "description",
    ]

    /// Reads the `store` section; nil (with problems noted) when it is wrong.
    mutating func loadStore(_ value: JSONValue) -> StoreConfiguration? {
        let path = "store"
        guard let object = value.objectValue else {
            problem(
                path,
                "must be an object such as {\"kind\": \"postgres\", \"url\": \"env:DATABASE_URL\"}, not \(value.typeName)"
            )
            return nil
        }
        checkUnknownKeys(object, allowed: Self.storeKeys, path: path)
        var failed = false
        let kinds = StoreConfiguration.Kind.allCases.map(\.rawValue).joined(separator: ", ")
        guard let kindValue = object["kind"] else {
            problem("\(path).kind", "is required; one of \(kinds)")
            return nil
        }
        guard let kindName = kindValue.stringValue,
            let kind = StoreConfiguration.Kind(rawValue: kindName)
        else {
            problem("\(path).kind", "must be one of \(kinds)")
            return nil
        }
        var store = StoreConfiguration(kind: kind)
        if let urlValue = object["url"] {
            if kind == .memory {
                problem("\(path).url", "is only for a database store; the memory store takes none")
                failed = true
            } else if let text = urlValue.stringValue, let reference = SecretReference(parsing: text) {
                switch secrets.resolve(reference) {
                case .success(let url):
                    if let reason = GatewayConfiguration.databaseURLProblem(url) {
                        problem("\(path).url", "the database URL from \(reference) \(reason)")
                        failed = true
                    } else {
                        store.url = url
                    }
                case .failure(let failure):
                    problem("\(path).url", failure.message)
                    failed = true
                }
            } else {
                // Never echo the value: a URL written here in clear carries the password.
                problem(
                    "\(path).url",
                    "must be a secret reference such as env:DATABASE_URL or file:PATH (the URL carries a password)")
                failed = true
            }
        } else if kind == .postgres {
            problem("\(path).url", "is required for a postgres store, as a secret reference such as env:DATABASE_URL")
            failed = true
        }
        if let hoursValue = object["ledgerRetentionHours"] {
            if let hours = hoursValue.numberValue, hours.isFinite, hours >= 0.01, hours <= 24 * 90 {
                store.ledgerRetention = .milliseconds(Int64((hours * 3_600_000).rounded()))
            } else {
                problem("\(path).ledgerRetentionHours", "must be a number of hours from 0.01 to 2160 (90 days)")
                failed = true
            }
        }
        if let timeoutValue = object["timeoutSeconds"] {
            if let seconds = timeoutValue.numberValue, seconds.isFinite, seconds >= 0.05, seconds <= 120 {
                store.timeout = .milliseconds(Int64((seconds * 1000).rounded()))
            } else {
                problem("\(path).timeoutSeconds", "must be a number of seconds from 0.05 to 120")
                failed = true
            }
        }
        if let connectionsValue = object["maxConnections"] {
            if let count = connectionsValue.intValue, (1...200).contains(count) {
                store.maxConnections = count
            } else {
                problem("\(path).maxConnections", "must be a whole number from 1 to 200")
                failed = true
            }
        }
        return failed ? nil : store
    }
}
