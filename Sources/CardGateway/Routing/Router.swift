import Foundation

/// The route that matched, and why.
///
/// ``reason`` is worded when it is read, from the router's tables and what the match recorded of the key.
public struct RouteMatch: Sendable, Equatable, Codable {
    public var routeIndex: Int
    public var instance: String
    /// Why the route matched, in words. Built on each read, unless it was set.
    public var reason: String {
        get {
            switch storedReason {
            case .text(let text): text
            case .deferred(let tables, let evidence): tables.reason(routeIndex: routeIndex, evidence: evidence)
            }
        }
        set { storedReason = .text(newValue) }
    }

    private enum StoredReason: Sendable {
        case text(String)
        /// The router's tables and what the reason is worded from (plain numbers, none of the key's strings).
        case deferred(RouterTables, MatchEvidence)
    }

    private var storedReason: StoredReason

    public init(routeIndex: Int, instance: String, reason: String) {
        self.routeIndex = routeIndex
        self.instance = instance
        self.storedReason = .text(reason)
    }

    init(routeIndex: Int, instance: String, deferredFrom tables: RouterTables, evidence: MatchEvidence) {
        self.routeIndex = routeIndex
        self.instance = instance
        self.storedReason = .deferred(tables, evidence)
    }

    public static func == (lhs: RouteMatch, rhs: RouteMatch) -> Bool {
        lhs.routeIndex == rhs.routeIndex && lhs.instance == rhs.instance && lhs.reason == rhs.reason
    }

    private enum CodingKeys: String, CodingKey { case routeIndex, instance, reason }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            routeIndex: try container.decode(Int.self, forKey: .routeIndex),
            instance: try container.decode(String.self, forKey: .instance),
            reason: try container.decode(String.self, forKey: .reason)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(routeIndex, forKey: .routeIndex)
        try container.encode(instance, forKey: .instance)
        try container.encode(reason, forKey: .reason)
    }
}

/// Why a route did or did not match a key.
public struct RouteDecision: Sendable, Equatable, Codable {
    public var routeIndex: Int
    public var instance: String
    public var matched: Bool
    public var reason: String
}

/// The answer to ``Router/explain(_:)``: the match, if any, and the verdict on every route before it.
public struct RouteExplanation: Sendable, Equatable, Codable, CustomStringConvertible {
    public var key: String
    public var match: RouteMatch?
    /// Each route considered, in order, up to and including the match.
    public var decisions: [RouteDecision]

    public var description: String {
        var lines = ["key: \(key)"]
        for decision in decisions {
            lines.append(
                "routes[\(decision.routeIndex)] → \(decision.instance): \(decision.matched ? "matched" : "skipped"): \(decision.reason)"
            )
        }
        if match == nil { lines.append("no route matched") }
        return lines.joined(separator: "\n")
    }
}

/// A route's dimensions, in the order a reason names them (the order of ``Route/Conditions``' properties).
enum RouteDimension: Sendable, CaseIterable {
    case issuer, program, bin, country, currency, tenant, wallet, operation
}

/// Picks the provider instance for a key: the first route, in configuration order, whose every condition
/// holds. Lookups use per-dimension indexes (hash maps for values, binary search over disjoint BIN
/// segments); the reason for a match is worded only when read. Indexes hold sparse route lists, so memory grows with the
/// conditions written, not with routes × values.
///
/// ``match(_:)`` and ``explain(_:)`` decide from the same index: `explain` takes the match `match` finds, and
/// words each earlier route's verdict from the first dimension whose index excludes it.
public struct Router: Sendable {
    let tables: RouterTables

    public var routes: [Route] { tables.routes }

    public init(routes: [Route]) {
        tables = RouterTables(routes: routes)
    }

    /// The first matching route, or nil. The match's ``RouteMatch/reason`` is worded when read.
    public func match(_ key: RouteKey) -> RouteMatch? {
        let lookup = tables.lookup(key)
        guard let routeIndex = tables.locate(lookup) else { return nil }
        return RouteMatch(
            routeIndex: routeIndex, instance: tables.routes[routeIndex].use, deferredFrom: tables,
            evidence: lookup.evidence)
    }

    /// The match and the reason every earlier route was skipped.
    ///
    /// The routes before the match (all of them when there is none) are each given the first dimension, in
    /// `Route.Conditions` order, on which the index excludes them; the match is ``match(_:)``'s, with its reason.
    public func explain(_ key: RouteKey) -> RouteExplanation {
        let lookup = tables.lookup(key)
        let end = tables.locate(lookup).map { $0 + 1 } ?? tables.routes.count
        var decisions: [RouteDecision] = []
        decisions.reserveCapacity(end)
        for position in 0..<end {
            let route = tables.routes[position]
            if let excluded = tables.firstExcluding(position, lookup) {
                let reason = Self.refusal(route.when, key, excluded)
                decisions.append(
                    RouteDecision(routeIndex: position, instance: route.use, matched: false, reason: reason))
            } else {
                let reason = tables.reason(routeIndex: position, evidence: lookup.evidence)
                decisions.append(
                    RouteDecision(routeIndex: position, instance: route.use, matched: true, reason: reason))
                let match = RouteMatch(routeIndex: position, instance: route.use, reason: reason)
                return RouteExplanation(key: key.description, match: match, decisions: decisions)
            }
        }
        return RouteExplanation(key: key.description, match: nil, decisions: decisions)
    }

    /// At most this many allowed values are spelled out in a reason; longer lists are summarised.
    static let listedValues = 10

    /// `[a, b, c]`, or the first values and how many more.
    static func listed<Values: Collection<String>>(_ values: Values) -> String {
        let shown = values.count <= listedValues ? values.sorted() : Array(values.sorted().prefix(listedValues))
        let more = values.count - shown.count
        return "[\(shown.joined(separator: ", "))\(more > 0 ? ", … \(more) more" : "")]"
    }

    /// Why a route that `dimension` excludes was skipped: what the route requires there, and what the key has.
    static func refusal(_ conditions: Route.Conditions, _ key: RouteKey, _ dimension: RouteDimension) -> String {
        func requires(_ name: String, _ allowed: Set<String>?, _ value: String?) -> String {
            "requires \(name) in \(listed(allowed ?? [])) but the key has \(value ?? "no \(name)")"
        }
        switch dimension {
        case .issuer: return requires("issuer", conditions.issuers, key.issuer)
        case .program: return requires("program", conditions.programs, key.program)
        case .bin:
            let allowed = listed((conditions.bins ?? []).map(\.description))
            guard let bin = key.bin else { return "requires bin in \(allowed) but the key has no bin" }
            return "requires bin in \(allowed) but the key's bin \(bin.prefix(11)) is in none"
        case .country: return requires("country", conditions.countries, key.country)
        case .currency: return requires("currency", conditions.currencies, key.currency)
        case .tenant: return requires("tenant", conditions.tenants, key.tenant)
        case .wallet:
            return requires("wallet", conditions.wallets.map { Set($0.map(\.rawValue)) }, key.wallet?.rawValue)
        case .operation:
            return requires("operation", conditions.operations.map { Set($0.map(\.rawValue)) }, key.operation?.rawValue)
        }
    }

    /// Why a matching route matched: the key's value on each dimension the route constrains, in
    /// ``RouteDimension`` order, and the route's range holding the BIN. A match is described without listing
    /// the route's values when they are many, so the reason stays cheap for routes with many values or ranges.
    static func acceptance(_ conditions: Route.Conditions, _ key: RouteKey, binRange: BINRange?) -> String {
        var reasons: [String] = []
        func holds(_ name: String, _ allowed: Set<String>?, _ value: String?) {
            guard let allowed, let value else { return }
            reasons.append(
                allowed.count <= listedValues
                    ? "\(name) \(value) is in \(listed(allowed))"
                    : "\(name) \(value) is one of the route's \(allowed.count) values")
        }
        holds("issuer", conditions.issuers, key.issuer)
        holds("program", conditions.programs, key.program)
        if conditions.bins != nil, let bin = key.bin, let binRange {
            reasons.append("bin \(bin.prefix(binRange.length)) is in \(binRange)")
        }
        holds("country", conditions.countries, key.country)
        holds("currency", conditions.currencies, key.currency)
        holds("tenant", conditions.tenants, key.tenant)
        holds("wallet", conditions.wallets.map { Set($0.map(\.rawValue)) }, key.wallet?.rawValue)
        holds("operation", conditions.operations.map { Set($0.map(\.rawValue)) }, key.operation?.rawValue)
        return reasons.isEmpty ? "the route has no conditions (catch-all)" : reasons.joined(separator: "; ")
    }
}

// The router's choice of algorithm; each algorithm is in its own file (RouterOneWordMatch.swift,
// RouterSelectiveMatch.swift, RouterWordScan.swift), and the index they share in RouterTables.swift.
extension RouterTables {
    /// The position of the first route whose every condition holds (for tests: any path, by its parameters).
    func firstMatch(
        _ key: RouteKey, enumerationLimit: Int = RouterTables.enumerationLimit, oneWord: Bool = true
    ) -> Int? {
        locate(lookup(key), enumerationLimit: enumerationLimit, oneWord: oneWord)
    }

    /// The position of the first route whose every condition holds, read from the index's own per-dimension
    /// lists. Three algorithms, one file each, decide from the same index:
    /// a table of at most 64 routes (`oneWord`) is decided a word at a time (RouterOneWordMatch.swift); a larger one
    /// enumerates the most selective dimension's candidates (RouterSelectiveMatch.swift), or, when every dimension
    /// has more than `enumerationLimit` of them, scans the bitsets a word at a time (RouterWordScan.swift).
    func locate(_ lookup: Lookup, enumerationLimit: Int = RouterTables.enumerationLimit, oneWord: Bool = true) -> Int? {
        let count = routes.count
        guard count > 0 else { return nil }
        if oneWord && count <= 64 { return oneWordMatch(lookup) }
        return firstMatch(
            lookup.evidence, segment: lookup.segment, digits: lookup.digits, enumerationLimit: enumerationLimit)
    }
}
