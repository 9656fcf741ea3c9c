import Foundation

/// The route that matched, and why.
public struct RouteMatch: Sendable, Equatable, Codable {
    public var routeIndex: Int
    public var instance: String
    public var reason: String
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
            lines.append("routes[\(decision.routeIndex)] → \(decision.instance): \(decision.matched ? "matched" : "skipped"): \(decision.reason)")
        }
        if match == nil { lines.append("no route matched") }
        return lines.joined(separator: "\n")
    }
}

/// Picks the provider instance for a key: the first route, in configuration order, whose every condition
/// holds. Lookups use per-dimension indexes (hash maps for values, binary search over disjoint BIN
/// segments), so their cost does not grow with the number of BIN ranges.
public struct Router: Sendable {
    public let routes: [Route]
    private let index: RouteIndex

    public init(routes: [Route]) {
        self.routes = routes
        self.index = RouteIndex(routes: routes)
    }

    /// The first matching route, or nil.
    public func match(_ key: RouteKey) -> RouteMatch? {
        guard let routeIndex = index.firstMatch(key) else { return nil }
        let route = routes[routeIndex]
        return RouteMatch(routeIndex: routeIndex, instance: route.use, reason: Self.evaluate(route.when, key).reason)
    }

    /// The match and the reason every earlier route was skipped.
    public func explain(_ key: RouteKey) -> RouteExplanation {
        var decisions: [RouteDecision] = []
        for (position, route) in routes.enumerated() {
            let verdict = Self.evaluate(route.when, key)
            decisions.append(RouteDecision(routeIndex: position, instance: route.use, matched: verdict.matched, reason: verdict.reason))
            if verdict.matched {
                return RouteExplanation(key: key.description, match: RouteMatch(routeIndex: position, instance: route.use, reason: verdict.reason), decisions: decisions)
            }
        }
        return RouteExplanation(key: key.description, match: nil, decisions: decisions)
    }

    /// Checks one route's conditions against a key, in order, giving the reason in words.
    static func evaluate(_ conditions: Route.Conditions, _ key: RouteKey) -> (matched: Bool, reason: String) {
        var reasons: [String] = []
        func check(_ name: String, _ allowed: Set<String>?, _ value: String?) -> String? {
            guard let allowed else { return nil }
            let list = allowed.sorted().joined(separator: ", ")
            guard let value else { return "requires \(name) in [\(list)] but the key has no \(name)" }
            guard allowed.contains(value) else { return "requires \(name) in [\(list)] but the key has \(value)" }
            reasons.append("\(name) \(value) is in [\(list)]")
            return nil
        }
        if let failure = check("issuer", conditions.issuers, key.issuer) { return (false, failure) }
        if let failure = check("program", conditions.programs, key.program) { return (false, failure) }
        if let bins = conditions.bins {
            let list = bins.map(\.description).joined(separator: ", ")
            guard let bin = key.bin else { return (false, "requires bin in [\(list)] but the key has no bin") }
            guard let range = bins.first(where: { $0.contains(bin) }) else {
                return (false, "requires bin in [\(list)] but the key's bin \(bin.prefix(11)) is in none")
            }
            reasons.append("bin \(bin.prefix(range.length)) is in \(range)")
        }
        if let failure = check("country", conditions.countries, key.country) { return (false, failure) }
        if let failure = check("currency", conditions.currencies, key.currency) { return (false, failure) }
        if let failure = check("tenant", conditions.tenants, key.tenant) { return (false, failure) }
        if let failure = check("wallet", conditions.wallets.map { Set($0.map(\.rawValue)) }, key.wallet?.rawValue) { return (false, failure) }
        if let failure = check("operation", conditions.operations.map { Set($0.map(\.rawValue)) }, key.operation?.rawValue) { return (false, failure) }
        return (true, reasons.isEmpty ? "the route has no conditions (catch-all)" : reasons.joined(separator: "; "))
    }
}

/// A fixed-size set of route positions.
struct RouteBits: Sendable, Equatable {
    var words: [UInt64]

    init(count: Int, filled: Bool = false) {
        words = Array(repeating: filled ? ~0 : 0, count: (count + 63) / 64)
    }

    mutating func insert(_ position: Int) { words[position >> 6] |= 1 << UInt64(position & 63) }

    mutating func formIntersection(_ other: RouteBits) {
        for index in words.indices { words[index] &= other.words[index] }
    }

    mutating func formUnion(_ other: RouteBits) {
        for index in words.indices { words[index] |= other.words[index] }
    }

    var first: Int? {
        for (index, word) in words.enumerated() where word != 0 { return index * 64 + word.trailingZeroBitCount }
        return nil
    }
}

/// Per-dimension indexes over the routes.
struct RouteIndex: Sendable {
    struct ValueIndex: Sendable {
        var wildcard: RouteBits
        var byValue: [String: RouteBits]

        init(count: Int, _ values: [Set<String>?]) {
            wildcard = RouteBits(count: count)
            byValue = [:]
            for (position, set) in values.enumerated() {
                guard let set else {
                    wildcard.insert(position)
                    continue
                }
                for value in set { byValue[value, default: RouteBits(count: count)].insert(position) }
            }
        }

        func candidates(_ value: String?, count: Int) -> RouteBits {
            var bits = wildcard
            if let value, let matches = byValue[value] { bits.formUnion(matches) }
            return bits
        }
    }

    /// Disjoint segments of the padded BIN space for one prefix length, each with the routes covering it.
    struct BINSegments: Sendable {
        var starts: [UInt64] = []
        var ends: [UInt64] = []
        var routes: [RouteBits] = []

        func lookup(_ value: UInt64) -> RouteBits? {
            var low = 0
            var high = starts.count - 1
            while low <= high {
                let middle = (low + high) / 2
                if value < starts[middle] { high = middle - 1 } else if value > ends[middle] { low = middle + 1 } else { return routes[middle] }
            }
            return nil
        }
    }

    let count: Int
    let issuers, programs, countries, currencies, tenants, wallets, operations: ValueIndex
    let binWildcard: RouteBits
    /// Keyed by prefix length (6…11).
    let binSegments: [Int: BINSegments]

    init(routes: [Route]) {
        count = routes.count
        let conditions = routes.map(\.when)
        issuers = ValueIndex(count: count, conditions.map(\.issuers))
        programs = ValueIndex(count: count, conditions.map(\.programs))
        countries = ValueIndex(count: count, conditions.map(\.countries))
        currencies = ValueIndex(count: count, conditions.map(\.currencies))
        tenants = ValueIndex(count: count, conditions.map(\.tenants))
        wallets = ValueIndex(count: count, conditions.map { $0.wallets.map { Set($0.map(\.rawValue)) } })
        operations = ValueIndex(count: count, conditions.map { $0.operations.map { Set($0.map(\.rawValue)) } })

        var wildcard = RouteBits(count: count)
        var byLength: [Int: [(low: UInt64, high: UInt64, route: Int)]] = [:]
        for (position, condition) in conditions.enumerated() {
            guard let bins = condition.bins else {
                wildcard.insert(position)
                continue
            }
            for range in bins {
                let padded = range.padded
                byLength[range.length, default: []].append((padded.low, padded.high, position))
            }
        }
        binWildcard = wildcard
        var segments: [Int: BINSegments] = [:]
        for (length, intervals) in byLength {
            segments[length] = Self.segment(intervals, count: routes.count)
        }
        binSegments = segments
    }

    /// Splits possibly overlapping intervals into disjoint segments by sweeping their boundaries.
    static func segment(_ intervals: [(low: UInt64, high: UInt64, route: Int)], count: Int) -> BINSegments {
        var boundaries = Set<UInt64>()
        for interval in intervals {
            boundaries.insert(interval.low)
            if interval.high < UInt64.max { boundaries.insert(interval.high + 1) }
        }
        let points = boundaries.sorted()
        var result = BINSegments()
        let byStart = intervals.sorted { $0.low < $1.low }
        var next = 0
        var active: [(high: UInt64, route: Int)] = []
        for (position, start) in points.enumerated() {
            while next < byStart.count && byStart[next].low <= start {
                active.append((byStart[next].high, byStart[next].route))
                next += 1
            }
            active.removeAll { $0.high < start }
            guard !active.isEmpty else { continue }
            let end = position + 1 < points.count ? points[position + 1] - 1 : active.map(\.high).max()!
            var bits = RouteBits(count: count)
            for entry in active { bits.insert(entry.route) }
            result.starts.append(start)
            result.ends.append(end)
            result.routes.append(bits)
        }
        return result
    }

    func firstMatch(_ key: RouteKey) -> Int? {
        guard count > 0 else { return nil }
        var bits = issuers.candidates(key.issuer, count: count)
        bits.formIntersection(programs.candidates(key.program, count: count))
        bits.formIntersection(countries.candidates(key.country, count: count))
        bits.formIntersection(currencies.candidates(key.currency, count: count))
        bits.formIntersection(tenants.candidates(key.tenant, count: count))
        bits.formIntersection(wallets.candidates(key.wallet?.rawValue, count: count))
        bits.formIntersection(operations.candidates(key.operation?.rawValue, count: count))
        var binBits = binWildcard
        if let bin = key.bin, bin.count >= 6, bin.allSatisfy({ $0.isASCII && $0.isNumber }) {
            let digits = String(bin.prefix(11))
            let padded = UInt64(digits + String(repeating: "0", count: 11 - digits.count)) ?? 0
            for length in 6...min(11, digits.count) {
                if let matches = binSegments[length]?.lookup(padded) { binBits.formUnion(matches) }
            }
        }
        bits.formIntersection(binBits)
        return bits.first
    }
}
