import Foundation

/// What is known about the card or request being routed. Unset dimensions match only routes that do not
/// constrain them.
public struct RouteKey: Sendable, Equatable, CustomStringConvertible {
    public var issuer: String?
    public var program: String?
    /// The card's leading digits (6 to 11 or more; longer input is fine, only the prefix is used).
    public var bin: String?
    /// ISO 3166-1 alpha-2.
    public var country: String?
    /// ISO 4217 alpha-3.
    public var currency: String?
    public var tenant: String?
    public var wallet: Wallet?
    public var operation: GatewayOperation?

    public init(
        issuer: String? = nil, program: String? = nil, bin: String? = nil, country: String? = nil,
        currency: String? = nil,
        tenant: String? = nil, wallet: Wallet? = nil, operation: GatewayOperation? = nil
    ) {
        self.issuer = issuer
        self.program = program
        self.bin = bin
        self.country = country
        self.currency = currency
        self.tenant = tenant
        self.wallet = wallet
        self.operation = operation
    }

    public var description: String {
        var parts: [String] = []
        if let issuer { parts.append("issuer=\(issuer)") }
        if let program { parts.append("program=\(program)") }
        if let bin { parts.append("bin=\(bin.prefix(11))") }
        if let country { parts.append("country=\(country)") }
        if let currency { parts.append("currency=\(currency)") }
        if let tenant { parts.append("tenant=\(tenant)") }
        if let wallet { parts.append("wallet=\(wallet)") }
        if let operation { parts.append("operation=\(operation)") }
        return parts.isEmpty ? "(empty key)" : parts.joined(separator: " ")
    }
}

/// A range of BIN prefixes of one length (6 to 11 digits), inclusive: `44000000-44009999`, or one prefix `440000`.
public struct BINRange: Sendable, Equatable, Hashable, CustomStringConvertible {
    public let low: String
    public let high: String

    public var length: Int { low.count }

    /// Parses `LOW-HIGH` or a single prefix of 6 to 11 ASCII digits (both ends the same length, low ≤ high); the
    /// failure says what is wrong. Read once, when the configuration loads.
    public static func parse(_ text: String) -> Result<BINRange, ConfigurationProblemText> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        // A value that could be a card number typed in by mistake is never repeated in the message.
        let shown = text.count <= 23 && parts.allSatisfy({ $0.count <= 11 }) ? "\"\(text)\"" : "the value"
        guard parts.count == 1 || parts.count == 2 else {
            return .failure(.init("\(shown) is not a BIN prefix or a LOW-HIGH range"))
        }
        let low = parts[0]
        let high = parts.count == 2 ? parts[1] : parts[0]
        for part in [low, high] {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                return .failure(.init("\(shown) must contain only digits (a prefix, or LOW-HIGH)"))
            }
            guard (6...11).contains(part.count) else {
                let which = part.count <= 11 ? "\"\(part)\"" : "a part"
                return .failure(.init("\(shown): BIN prefixes must have 6 to 11 digits, \(which) has \(part.count)"))
            }
        }
        guard low.count == high.count else {
            return .failure(.init("\(shown): both ends of a range must have the same number of digits"))
        }
        guard low <= high else { return .failure(.init("\(shown): the low end is above the high end")) }
        return .success(BINRange(low: low, high: high))
    }

    public init(low: String, high: String) {
        self.low = low
        self.high = high
    }

    /// True when `bin` has at least this range's length and its prefix of that length lies in the range.
    public func contains(_ bin: String) -> Bool {
        guard bin.count >= length else { return false }
        let prefix = String(bin.prefix(length))
        return prefix >= low && prefix <= high
    }

    /// The range as 11-digit bounds, for comparing ranges of different lengths.
    var padded: (low: UInt64, high: UInt64) {
        let pad = 11 - length
        let lowValue = UInt64(low + String(repeating: "0", count: pad)) ?? 0
        let highValue = UInt64(high + String(repeating: "9", count: pad)) ?? 0
        return (lowValue, highValue)
    }

    /// ``padded`` for a range ``parse(_:)`` accepts; nil for any other (a range built with ``init(low:high:)`` from
    /// anything but 6 to 11 ASCII digits of one length, which can match no BIN).
    var paddedIfValid: (low: UInt64, high: UInt64)? {
        // What ``parse(_:)`` accepts, checked on the two ends as they are.
        func isPrefix(_ part: String) -> Bool {
            (6...11).contains(part.utf8.count)
                && part.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        }
        guard isPrefix(low), isPrefix(high), low.utf8.count == high.utf8.count, low <= high else { return nil }
        return padded
    }

    public var description: String { low == high ? low : "\(low)-\(high)" }
}

/// A reason text (used while parsing).
public struct ConfigurationProblemText: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// A route: conditions on the key's dimensions, and the instance to use when all hold.
public struct Route: Sendable, Equatable {
    public struct Conditions: Sendable, Equatable {
        public var issuers: Set<String>?
        public var programs: Set<String>?
        public var bins: [BINRange]?
        public var countries: Set<String>?
        public var currencies: Set<String>?
        public var tenants: Set<String>?
        public var wallets: Set<Wallet>?
        public var operations: Set<GatewayOperation>?

        public init(
            issuers: Set<String>? = nil, programs: Set<String>? = nil, bins: [BINRange]? = nil,
            countries: Set<String>? = nil,
            currencies: Set<String>? = nil, tenants: Set<String>? = nil, wallets: Set<Wallet>? = nil,
            operations: Set<GatewayOperation>? = nil
        ) {
            self.issuers = issuers
            self.programs = programs
            self.bins = bins
            self.countries = countries
            self.currencies = currencies
            self.tenants = tenants
            self.wallets = wallets
            self.operations = operations
        }

        public var isEmpty: Bool {
            issuers == nil && programs == nil && bins == nil && countries == nil && currencies == nil && tenants == nil
                && wallets == nil && operations == nil
        }
    }

    public var when: Conditions
    /// The provider instance's name.
    public var use: String

    public init(when: Conditions, use: String) {
        self.when = when
        self.use = use
    }
}
