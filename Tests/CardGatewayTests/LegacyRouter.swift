@testable import CardGateway
import Foundation

// The router as it was before the zero-allocation lookup (commit ea705dc), kept verbatim apart from its names as the
// reference the randomized tests in RouterEquivalenceTests compare the current router with.

/// Picks the provider instance for a key: the first route, in configuration order, whose every condition
/// holds. Lookups use per-dimension indexes (hash maps for values, binary search over disjoint BIN
/// segments), so their cost does not grow with the number of BIN ranges; the reason given for a match is
/// found the same way. Indexes hold sparse route lists, so memory grows with the conditions written, not
/// with routes × values.
struct LegacyRouter: Sendable {
    let routes: [Route]
    private let index: LegacyRouteIndex

    init(routes: [Route]) {
        self.routes = routes
        self.index = LegacyRouteIndex(routes: routes)
    }

    /// The first matching route, or nil.
    func match(_ key: RouteKey) -> RouteMatch? {
        guard let routeIndex = index.firstMatch(key) else { return nil }
        let route = routes[routeIndex]
        let verdict = Self.evaluate(route.when, key, locateBIN: { index.binLookups[routeIndex]?.range(containing: $0) })
        return RouteMatch(routeIndex: routeIndex, instance: route.use, reason: verdict.reason)
    }

    /// The match and the reason every earlier route was skipped.
    func explain(_ key: RouteKey) -> RouteExplanation {
        var decisions: [RouteDecision] = []
        for (position, route) in routes.enumerated() {
            let verdict = Self.evaluate(route.when, key, locateBIN: { index.binLookups[position]?.range(containing: $0) })
            decisions.append(RouteDecision(routeIndex: position, instance: route.use, matched: verdict.matched, reason: verdict.reason))
            if verdict.matched {
                return RouteExplanation(key: key.description, match: RouteMatch(routeIndex: position, instance: route.use, reason: verdict.reason), decisions: decisions)
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

    /// Checks one route's conditions against a key, in order, giving the reason in words. `locateBIN` finds the
    /// route's range holding a BIN (nil when none does). A match is described without listing the route's
    /// values, so building the reason stays cheap for routes with many values or ranges.
    static func evaluate(_ conditions: Route.Conditions, _ key: RouteKey, locateBIN: (String) -> BINRange?) -> (matched: Bool, reason: String) {
        var reasons: [String] = []
        func check(_ name: String, _ allowed: Set<String>?, _ value: String?) -> String? {
            guard let allowed else { return nil }
            guard let value else { return "requires \(name) in \(listed(allowed)) but the key has no \(name)" }
            guard allowed.contains(value) else { return "requires \(name) in \(listed(allowed)) but the key has \(value)" }
            reasons.append(allowed.count <= listedValues ? "\(name) \(value) is in \(listed(allowed))" : "\(name) \(value) is one of the route's \(allowed.count) values")
            return nil
        }
        if let failure = check("issuer", conditions.issuers, key.issuer) { return (false, failure) }
        if let failure = check("program", conditions.programs, key.program) { return (false, failure) }
        if let bins = conditions.bins {
            guard let bin = key.bin else { return (false, "requires bin in \(listed(bins.map(\.description))) but the key has no bin") }
            guard let range = locateBIN(bin) else {
                return (false, "requires bin in \(listed(bins.map(\.description))) but the key's bin \(bin.prefix(11)) is in none")
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

/// A fixed-size set of route positions, built per lookup.
struct LegacyRouteBits: Sendable, Equatable {
    var words: [UInt64]

    init(count: Int) {
        words = Array(repeating: 0, count: (count + 63) / 64)
    }

    /// Every position below `count` set.
    init(allBelow count: Int) {
        words = Array(repeating: ~0, count: (count + 63) / 64)
        if count % 64 != 0, !words.isEmpty { words[words.count - 1] = (1 << UInt64(count % 64)) - 1 }
    }

    init(count: Int, positions: [Int32]) {
        self.init(count: count)
        insert(positions)
    }

    mutating func insert(_ position: Int) { words[position >> 6] |= 1 << UInt64(position & 63) }

    mutating func insert(_ positions: [Int32]) {
        for position in positions { insert(Int(position)) }
    }

    mutating func formIntersection(_ other: LegacyRouteBits) {
        for index in words.indices { words[index] &= other.words[index] }
    }

    var first: Int? {
        for (index, word) in words.enumerated() where word != 0 { return index * 64 + word.trailingZeroBitCount }
        return nil
    }
}

/// A BIN's first `length` digits as a number, or nil when the BIN is shorter than `length`.
func legacyBinPrefixValue(_ bin: String, length: Int) -> UInt64? {
    guard bin.count >= length else { return nil }
    return UInt64(bin.prefix(length))
}

/// One route's BIN ranges, per prefix length, sorted by their low end, for finding the range that holds a BIN
/// without a scan.
struct LegacyRouteBINLookup: Sendable {
    struct Ranges: Sendable {
        var lows: [UInt64] = []
        var highs: [UInt64] = []
        /// The largest high end among ranges `0...i`, so a backward walk can stop early.
        var highestSoFar: [UInt64] = []
        var ranges: [BINRange] = []
    }

    var byLength: [Int: Ranges] = [:]

    init(_ bins: [BINRange]) {
        var grouped: [Int: [(low: UInt64, high: UInt64, range: BINRange)]] = [:]
        for range in bins {
            guard let low = UInt64(range.low), let high = UInt64(range.high) else { continue }
            grouped[range.length, default: []].append((low, high, range))
        }
        for (length, entries) in grouped {
            var ranges = Ranges()
            var highest: UInt64 = 0
            for entry in entries.sorted(by: { $0.low < $1.low }) {
                highest = max(highest, entry.high)
                ranges.lows.append(entry.low)
                ranges.highs.append(entry.high)
                ranges.highestSoFar.append(highest)
                ranges.ranges.append(entry.range)
            }
            byLength[length] = ranges
        }
    }

    /// The range holding `bin`, trying the shortest prefix length first (the order ranges are reported in).
    func range(containing bin: String) -> BINRange? {
        guard bin.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        for length in byLength.keys.sorted() {
            guard let ranges = byLength[length], let value = legacyBinPrefixValue(bin, length: length) else { continue }
            // The last range starting at or below the value, then back while an earlier range could reach it.
            var low = 0
            var high = ranges.lows.count
            while low < high {
                let middle = (low + high) / 2
                if ranges.lows[middle] <= value { low = middle + 1 } else { high = middle }
            }
            var position = low - 1
            while position >= 0 && ranges.highestSoFar[position] >= value {
                if ranges.highs[position] >= value { return ranges.ranges[position] }
                position -= 1
            }
        }
        return nil
    }
}

/// Per-dimension indexes over the routes. Each holds sorted sparse lists of route positions.
struct LegacyRouteIndex: Sendable {
    /// One dimension's routes by allowed value. The routes that do not constrain the dimension are kept as a
    /// ready bitset, so a lookup costs one pass over the words (routes / 64), never one step per route.
    struct ValueIndex: Sendable {
        /// Routes without a condition on this dimension.
        var wildcard: LegacyRouteBits
        /// True when no route constrains the dimension: the lookup skips it.
        var unconstrained: Bool
        var byValue: [String: [Int32]]

        init(_ values: [Set<String>?]) {
            var open: [Int32] = []
            byValue = [:]
            for (position, set) in values.enumerated() {
                guard let set else {
                    open.append(Int32(position))
                    continue
                }
                for value in set { byValue[value, default: []].append(Int32(position)) }
            }
            wildcard = LegacyRouteBits(count: values.count, positions: open)
            unconstrained = open.count == values.count
        }

        /// Keeps in `bits` only the routes that allow `value` here.
        func narrow(_ bits: inout LegacyRouteBits, to value: String?) {
            if unconstrained { return }
            guard let value, let matches = byValue[value] else {
                bits.formIntersection(wildcard)
                return
            }
            var allowed = wildcard
            allowed.insert(matches)
            bits.formIntersection(allowed)
        }
    }

    /// Disjoint segments of the padded BIN space for one prefix length, each with the routes covering it.
    struct BINSegments: Sendable {
        var starts: [UInt64] = []
        var ends: [UInt64] = []
        var routes: [[Int32]] = []

        func lookup(_ value: UInt64) -> [Int32]? {
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
    /// Routes without a BIN condition.
    let binWildcard: LegacyRouteBits
    let binUnconstrained: Bool
    /// Keyed by prefix length (6…11).
    let binSegments: [Int: BINSegments]
    /// Per route: its BIN ranges for finding the one that holds a BIN (nil for routes without BIN conditions).
    let binLookups: [LegacyRouteBINLookup?]

    init(routes: [Route]) {
        count = routes.count
        let conditions = routes.map(\.when)
        issuers = ValueIndex(conditions.map(\.issuers))
        programs = ValueIndex(conditions.map(\.programs))
        countries = ValueIndex(conditions.map(\.countries))
        currencies = ValueIndex(conditions.map(\.currencies))
        tenants = ValueIndex(conditions.map(\.tenants))
        wallets = ValueIndex(conditions.map { $0.wallets.map { Set($0.map(\.rawValue)) } })
        operations = ValueIndex(conditions.map { $0.operations.map { Set($0.map(\.rawValue)) } })

        var wildcard: [Int32] = []
        var byLength: [Int: [(low: UInt64, high: UInt64, route: Int32)]] = [:]
        for (position, condition) in conditions.enumerated() {
            guard let bins = condition.bins else {
                wildcard.append(Int32(position))
                continue
            }
            for range in bins {
                let padded = range.legacyPadded
                byLength[range.length, default: []].append((padded.low, padded.high, Int32(position)))
            }
        }
        binWildcard = LegacyRouteBits(count: routes.count, positions: wildcard)
        binUnconstrained = wildcard.count == routes.count
        var segments: [Int: BINSegments] = [:]
        for (length, intervals) in byLength {
            segments[length] = Self.segment(intervals)
        }
        binSegments = segments
        binLookups = conditions.map { $0.bins.map(LegacyRouteBINLookup.init) }
    }

    /// Splits possibly overlapping intervals into disjoint segments by sweeping their boundaries.
    static func segment(_ intervals: [(low: UInt64, high: UInt64, route: Int32)]) -> BINSegments {
        var boundaries = Set<UInt64>()
        for interval in intervals {
            boundaries.insert(interval.low)
            if interval.high < UInt64.max { boundaries.insert(interval.high + 1) }
        }
        let points = boundaries.sorted()
        var result = BINSegments()
        let byStart = intervals.sorted { $0.low < $1.low }
        var next = 0
        var active: [(high: UInt64, route: Int32)] = []
        for (position, start) in points.enumerated() {
            while next < byStart.count && byStart[next].low <= start {
                active.append((byStart[next].high, byStart[next].route))
                next += 1
            }
            active.removeAll { $0.high < start }
            guard !active.isEmpty else { continue }
            let end = position + 1 < points.count ? points[position + 1] - 1 : active.map(\.high).max()!
            result.starts.append(start)
            result.ends.append(end)
            result.routes.append(Array(Set(active.map(\.route))).sorted())
        }
        return result
    }

    func firstMatch(_ key: RouteKey) -> Int? {
        guard count > 0 else { return nil }
        var bits = LegacyRouteBits(allBelow: count)
        issuers.narrow(&bits, to: key.issuer)
        programs.narrow(&bits, to: key.program)
        countries.narrow(&bits, to: key.country)
        currencies.narrow(&bits, to: key.currency)
        tenants.narrow(&bits, to: key.tenant)
        wallets.narrow(&bits, to: key.wallet?.rawValue)
        operations.narrow(&bits, to: key.operation?.rawValue)
        if !binUnconstrained {
            var binBits = binWildcard
            if let bin = key.bin, bin.count >= 6, bin.allSatisfy({ $0.isASCII && $0.isNumber }) {
                let digits = String(bin.prefix(11))
                let padded = UInt64(digits + String(repeating: "0", count: 11 - digits.count)) ?? 0
                for length in 6...min(11, digits.count) {
                    if let matches = binSegments[length]?.lookup(padded) { binBits.insert(matches) }
                }
            }
            bits.formIntersection(binBits)
        }
        return bits.first
    }
}

extension BINRange {
    /// `padded` as it was computed before (through strings).
    var legacyPadded: (low: UInt64, high: UInt64) {
        let pad = 11 - length
        let lowValue = UInt64(low + String(repeating: "0", count: pad)) ?? 0
        let highValue = UInt64(high + String(repeating: "9", count: pad)) ?? 0
        return (lowValue, highValue)
    }
}
