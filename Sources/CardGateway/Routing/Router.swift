import Foundation

/// The route that matched, and why.
///
/// A decision does not pay for its explanation: ``reason`` is worded when it is read (from the router's tables
/// and the key, kept by reference), so ``Router/match(_:)`` allocates nothing.
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
        /// The router's tables (one reference) and what the reason is worded from (plain numbers): no allocation,
        /// and nothing of the key's strings retained.
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
/// segments) and allocate nothing, so their cost does not grow with the number of BIN ranges; the reason
/// for a match is worded only when read. Indexes hold sparse route lists, so memory grows with the
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

    /// The first matching route, or nil. Allocates nothing: the match's ``RouteMatch/reason`` is worded when read.
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

/// A fixed-size set of route positions.
struct RouteBits: Sendable, Equatable {
    var words: [UInt64]

    init(count: Int, positions: [Int32]) {
        words = Array(repeating: 0, count: (count + 63) / 64)
        for position in positions { words[Int(position) >> 6] |= 1 << UInt64(position & 63) }
    }

    func contains(_ position: Int) -> Bool { words[position >> 6] & (1 << UInt64(position & 63)) != 0 }
}

extension Array where Element == Int32 {
    /// True when this ascending list holds `position` (binary search).
    func sortedContains(_ position: Int32) -> Bool {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < position { low = middle + 1 } else { high = middle }
        }
        return low < endIndex && self[low] == position
    }
}

/// A BIN as the router reads it: its number of digits and its first 11 digits padded with zeros to 11 (the
/// space ``BINRange/padded`` bounds live in). Nil when it has fewer than 6 digits or anything but ASCII digits.
struct BINProbe: Sendable {
    var digits: Int
    var padded: UInt64

    init(digits: Int, padded: UInt64) {
        self.digits = digits
        self.padded = padded
    }

    init?(_ bin: String) {
        // Read in place from the string's contiguous UTF-8 when it has one (a native string does): iterating
        // `bin.utf8` itself costs several times more for a string longer than 15 bytes.
        guard let probe = bin.utf8.withContiguousStorageIfAvailable(Self.read) ?? Self.read(bin.utf8) else {
            return nil
        }
        self = probe
    }

    /// The number of digits and the first 11 of them padded to 11, or nil when a byte is not a digit or there are
    /// fewer than 6.
    private static func read<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> BINProbe? {
        var digits = 0
        var value: UInt64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            if digits < 11 { value = value * 10 + UInt64(byte - UInt8(ascii: "0")) }
            digits += 1
        }
        guard digits >= 6 else { return nil }
        for _ in min(digits, 11)..<11 { value *= 10 }
        return BINProbe(digits: digits, padded: value)
    }
}

/// The router's tables, shared by reference so that a ``RouteMatch`` can word its reason later without copying them.
final class RouterTables: Sendable {
    /// One dimension's routes by allowed value (sorted position lists), and the routes that do not constrain it.
    /// Each allowed value has a slot: a number a lookup returns and a ``MatchEvidence`` keeps instead of the key's
    /// string (so a match holds nothing counted by reference for it).
    struct ValueIndex: Sendable {
        /// True when some route constrains the dimension.
        let constrained: Bool
        /// Routes without a condition on this dimension: as a bitset (membership) and an ascending list (enumeration).
        let wildcard: RouteBits
        let wildcardList: [Int32]
        /// The allowed values by slot, each slot's routes (ascending), and the slot of each value.
        let values: [String]
        let lists: [[Int32]]
        let slots: [String: Int32]
        /// For a table of at most 64 routes, each slot's routes as one word (empty otherwise).
        let masks: [UInt64]

        /// Up to this many values, a lookup compares them in turn rather than hashing the key's value: comparing a
        /// short string is a few instructions, hashing one (SipHash) a few hundred.
        static let comparedValues = 8

        init<Values: Sequence<String>>(count: Int, _ values: (Int) -> Values?) {
            // Counted first, so that the lists are allocated once at their size, and a dimension no route constrains
            // (the usual case for most of them) keeps no list at all: its lookups never read one.
            var openCount = 0
            for position in 0..<count where values(position) == nil { openCount += 1 }
            guard openCount != count else {
                self.wildcard = RouteBits(count: 0, positions: [])
                self.wildcardList = []
                self.values = []
                self.lists = []
                self.slots = [:]
                self.masks = []
                self.constrained = false
                return
            }
            var open: [Int32] = []
            open.reserveCapacity(openCount)
            var slots: [String: Int32] = [:]
            var allowed: [String] = []
            var lists: [[Int32]] = []
            for position in 0..<count {
                guard let set = values(position) else {
                    open.append(Int32(position))
                    continue
                }
                for value in set {
                    if let slot = slots[value] {
                        lists[Int(slot)].append(Int32(position))
                    } else {
                        slots[value] = Int32(allowed.count)
                        allowed.append(value)
                        lists.append([Int32(position)])
                    }
                }
            }
            self.wildcard = RouteBits(count: count, positions: open)
            self.wildcardList = open
            self.values = allowed
            self.lists = lists
            self.slots = slots
            self.masks = count <= 64 ? lists.map { $0.reduce(0) { $0 | 1 << UInt64($1) } } : []
            self.constrained = open.count != count
        }

        /// The slot of `value`, or -1 when no route names it, the key has no value or no route constrains the dimension.
        @inline(__always)
        func slot(_ value: String?) -> Int32 {
            guard constrained, let value else { return -1 }
            if values.count <= Self.comparedValues {
                var index = 0
                while index < values.count {
                    if values[index] == value { return Int32(index) }
                    index += 1
                }
                return -1
            }
            return slots[value] ?? -1
        }

        /// The routes naming the value in `slot` (empty for -1).
        @inline(__always)
        func list(_ slot: Int32) -> [Int32] { slot < 0 ? [] : lists[Int(slot)] }

        /// The value in `slot` (nil for -1).
        func value(_ slot: Int32) -> String? { slot < 0 ? nil : values[Int(slot)] }

        func allows(_ position: Int, matches: [Int32]) -> Bool {
            !constrained || wildcard.contains(position) || matches.sortedContains(Int32(position))
        }

        /// For a table of at most 64 routes: the routes this dimension allows for the value in `slot`, as one word.
        @inline(__always)
        func allowedWord(_ slot: Int32) -> UInt64 {
            guard constrained else { return ~0 }
            return slot < 0 ? wildcard.words[0] : wildcard.words[0] | masks[Int(slot)]
        }
    }

    /// Every route's BIN ranges cut into disjoint segments of the padded 11-digit BIN space; each segment lists the
    /// routes with a range covering it (ascending), the shortest such range's length (a BIN with fewer digits does
    /// not match it) and which of the route's ranges a reason names.
    struct BINIndex: Sendable {
        let constrained: Bool
        let wildcard: RouteBits
        let wildcardList: [Int32]
        var starts: [UInt64] = []
        var ends: [UInt64] = []
        /// Segment `s`'s entries are `entryStart[s] ..< entryStart[s + 1]`.
        var entryStart: [Int32] = [0]
        var entryRoute: [Int32] = []
        var entryLength: [UInt8] = []
        var entryRange: [Int32] = []

        /// One route's range in the padded space, with its position in the route's list.
        struct Interval { var low: UInt64; var high: UInt64; var route: Int32; var range: Int32; var length: UInt8 }

        init(routes: [Route]) {
            // Counted first, so that both lists are allocated once at their size.
            var openCount = 0
            var rangeCount = 0
            for route in routes {
                if let bins = route.when.bins { rangeCount += bins.count } else { openCount += 1 }
            }
            guard openCount != routes.count else {
                wildcard = RouteBits(count: 0, positions: [])
                wildcardList = []
                constrained = false
                return
            }
            var open: [Int32] = []
            open.reserveCapacity(openCount)
            var intervals: [Interval] = []
            intervals.reserveCapacity(rangeCount)
            for (position, route) in routes.enumerated() {
                guard let bins = route.when.bins else {
                    open.append(Int32(position))
                    continue
                }
                for (rangeIndex, range) in bins.enumerated() {
                    // Ranges BINRange.parse would refuse (not 6 to 11 digits, not digits) can match no BIN.
                    guard let padded = range.paddedIfValid else { continue }
                    intervals.append(
                        Interval(
                            low: padded.low, high: padded.high, route: Int32(position), range: Int32(rangeIndex),
                            length: UInt8(range.length)))
                }
            }
            wildcard = RouteBits(count: routes.count, positions: open)
            wildcardList = open
            constrained = true
            guard !intervals.isEmpty else { return }
            // Disjoint ranges (the usual table) make one segment and one entry each.
            starts.reserveCapacity(intervals.count)
            ends.reserveCapacity(intervals.count)
            entryStart.reserveCapacity(intervals.count + 1)
            entryRoute.reserveCapacity(intervals.count)
            entryLength.reserveCapacity(intervals.count)
            entryRange.reserveCapacity(intervals.count)

            // Sweep the boundaries left to right, keeping the intervals that cover the current point.
            intervals.sort { $0.low < $1.low }
            var points: [UInt64] = []
            points.reserveCapacity(intervals.count * 2)
            for interval in intervals {
                points.append(interval.low)
                points.append(interval.high + 1)  // high ≤ 99999999999, no overflow
            }
            points.sort()
            var next = 0
            var active: [Interval] = []
            var scratch: [Interval] = []
            var previous: UInt64?
            for (position, start) in points.enumerated() {
                if start == previous { continue }
                previous = start
                while next < intervals.count && intervals[next].low <= start {
                    active.append(intervals[next])
                    next += 1
                }
                active.removeAll { $0.high < start }
                guard !active.isEmpty else { continue }
                var end = start
                var following = position + 1
                while following < points.count && points[following] == start { following += 1 }
                end = following < points.count ? points[following] - 1 : active.map(\.high).max()!
                starts.append(start)
                ends.append(end)
                if active.count == 1 {
                    append(active[0])
                } else {
                    // Per route, the range a reason names: the shortest length first, then the highest low end,
                    // then the last written (as a backward walk over ranges sorted by low end finds it).
                    scratch.removeAll(keepingCapacity: true)
                    scratch.append(contentsOf: active)
                    scratch.sort { a, b in
                        if a.route != b.route { return a.route < b.route }
                        if a.length != b.length { return a.length < b.length }
                        if a.low != b.low { return a.low > b.low }
                        return a.range > b.range
                    }
                    var last: Int32 = -1
                    for interval in scratch where interval.route != last {
                        append(interval)
                        last = interval.route
                    }
                }
                entryStart.append(Int32(entryRoute.count))
            }
        }

        private mutating func append(_ interval: Interval) {
            entryRoute.append(interval.route)
            entryLength.append(interval.length)
            entryRange.append(interval.range)
        }

        /// The entries of the segment holding the BIN, or an empty range.
        func entries(_ probe: BINProbe?) -> Range<Int> {
            guard let probe else { return 0..<0 }
            var low = 0
            var high = starts.count - 1
            while low <= high {
                let middle = (low + high) / 2
                if probe.padded < starts[middle] {
                    high = middle - 1
                } else if probe.padded > ends[middle] {
                    low = middle + 1
                } else {
                    return Int(entryStart[middle])..<Int(entryStart[middle + 1])
                }
            }
            return 0..<0
        }

        /// The entry for `position` among `entries` whose range the BIN is long enough for, or nil.
        func entry(for position: Int, in entries: Range<Int>, digits: Int) -> Int? {
            var low = entries.lowerBound
            var high = entries.upperBound
            let route = Int32(position)
            while low < high {
                let middle = (low + high) / 2
                if entryRoute[middle] < route { low = middle + 1 } else { high = middle }
            }
            guard low < entries.upperBound, entryRoute[low] == route, Int(entryLength[low]) <= digits else {
                return nil
            }
            return low
        }

        /// True when route `position` has no BIN condition, or has a range holding the BIN `segment` and `digits`
        /// were found for.
        func allows(_ position: Int, segment: Range<Int>, digits: Int) -> Bool {
            !constrained || wildcard.contains(position) || entry(for: position, in: segment, digits: digits) != nil
        }
    }

    let routes: [Route]
    let issuers, programs, countries, currencies, tenants, wallets, operations: ValueIndex
    let bins: BINIndex

    init(routes: [Route]) {
        self.routes = routes
        let count = routes.count
        issuers = ValueIndex(count: count) { routes[$0].when.issuers }
        programs = ValueIndex(count: count) { routes[$0].when.programs }
        countries = ValueIndex(count: count) { routes[$0].when.countries }
        currencies = ValueIndex(count: count) { routes[$0].when.currencies }
        tenants = ValueIndex(count: count) { routes[$0].when.tenants }
        wallets = ValueIndex(count: count) { routes[$0].when.wallets?.lazy.map(\.rawValue) }
        operations = ValueIndex(count: count) { routes[$0].when.operations?.lazy.map(\.rawValue) }
        bins = BINIndex(routes: routes)
    }

    /// A driver dimension with more candidates than this is not enumerated: the lookup scans the bitsets a word
    /// (64 routes) at a time instead, so the worst case stays linear in routes / 64.
    static let enumerationLimit = 4_096

    /// A key as the index reads it: its value's slot on each dimension, and its BIN's segment and length.
    struct Lookup {
        var evidence: MatchEvidence
        var segment: Range<Int>
        var digits: Int
    }

    func lookup(_ key: RouteKey) -> Lookup {
        var evidence = MatchEvidence(
            issuer: issuers.slot(key.issuer), program: programs.slot(key.program), country: countries.slot(key.country),
            currency: currencies.slot(key.currency), tenant: tenants.slot(key.tenant),
            // Read only when constrained: the raw value of a wallet or an operation is a string to retain and release.
            wallet: wallets.constrained ? wallets.slot(key.wallet?.rawValue) : -1,
            operation: operations.constrained ? operations.slot(key.operation?.rawValue) : -1
        )
        let probe = bins.constrained ? key.bin.flatMap(BINProbe.init) : nil
        if let probe {
            evidence.binDigits = Int32(probe.digits)
            evidence.binPadded = probe.padded
        }
        return Lookup(
            evidence: evidence, segment: bins.constrained ? bins.entries(probe) : 0..<0, digits: probe?.digits ?? 0)
    }

    /// The first dimension, in ``RouteDimension`` order, on which route `position` does not allow the key; nil when
    /// the route matches. The same per-dimension tests as ``locate(_:enumerationLimit:oneWord:)``'s.
    func firstExcluding(_ position: Int, _ lookup: Lookup) -> RouteDimension? {
        let evidence = lookup.evidence
        if !issuers.allows(position, matches: issuers.list(evidence.issuer)) { return .issuer }
        if !programs.allows(position, matches: programs.list(evidence.program)) { return .program }
        if !bins.allows(position, segment: lookup.segment, digits: lookup.digits) { return .bin }
        if !countries.allows(position, matches: countries.list(evidence.country)) { return .country }
        if !currencies.allows(position, matches: currencies.list(evidence.currency)) { return .currency }
        if !tenants.allows(position, matches: tenants.list(evidence.tenant)) { return .tenant }
        if !wallets.allows(position, matches: wallets.list(evidence.wallet)) { return .wallet }
        if !operations.allows(position, matches: operations.list(evidence.operation)) { return .operation }
        return nil
    }

    /// The position of the first route whose every condition holds (for tests: any path, by its parameters).
    func firstMatch(
        _ key: RouteKey, enumerationLimit: Int = RouterTables.enumerationLimit, oneWord: Bool = true
    ) -> Int? {
        locate(lookup(key), enumerationLimit: enumerationLimit, oneWord: oneWord)
    }

    /// The position of the first route whose every condition holds. Allocates nothing: the per-dimension lists are
    /// the index's own arrays (retained, not copied). A table of at most 64 routes (`oneWord`) is decided a word at a
    /// time: each dimension's allowed routes are one precomputed word, and the match is the lowest bit set in all of
    /// them. A larger one enumerates the most selective dimension's candidates.
    func locate(_ lookup: Lookup, enumerationLimit: Int = RouterTables.enumerationLimit, oneWord: Bool = true) -> Int? {
        let count = routes.count
        guard count > 0 else { return nil }
        let evidence = lookup.evidence
        if oneWord && count <= 64 {
            var bits: UInt64 = count == 64 ? ~0 : (1 << UInt64(count)) - 1
            bits &= issuers.allowedWord(evidence.issuer) & programs.allowedWord(evidence.program)
            bits &= countries.allowedWord(evidence.country) & currencies.allowedWord(evidence.currency)
            bits &=
                tenants.allowedWord(evidence.tenant) & wallets.allowedWord(evidence.wallet)
                & operations.allowedWord(evidence.operation)
            if bins.constrained && bits != 0 {
                var binBits = bins.wildcard.words[0]
                for entry in lookup.segment where Int(bins.entryLength[entry]) <= lookup.digits {
                    binBits |= 1 << UInt64(bins.entryRoute[entry])
                }
                bits &= binBits
            }
            return bits == 0 ? nil : bits.trailingZeroBitCount
        }
        return firstMatch(evidence, segment: lookup.segment, digits: lookup.digits, enumerationLimit: enumerationLimit)
    }

    /// ``locate(_:enumerationLimit:oneWord:)`` for a table of any size: the most selective dimension's candidates, or
    /// a scan of the bitsets a word at a time when every dimension has many.
    private func firstMatch(_ evidence: MatchEvidence, segment: Range<Int>, digits: Int, enumerationLimit: Int) -> Int?
    {
        let issuer = issuers.list(evidence.issuer)
        let program = programs.list(evidence.program)
        let country = countries.list(evidence.country)
        let currency = currencies.list(evidence.currency)
        let tenant = tenants.list(evidence.tenant)
        let wallet = wallets.list(evidence.wallet)
        let operation = operations.list(evidence.operation)

        func allowed(_ position: Int) -> Bool {
            issuers.allows(position, matches: issuer) && programs.allows(position, matches: program)
                && countries.allows(position, matches: country) && currencies.allows(position, matches: currency)
                && tenants.allows(position, matches: tenant) && wallets.allows(position, matches: wallet)
                && operations.allows(position, matches: operation)
                && bins.allows(position, segment: segment, digits: digits)
        }

        // The most selective constrained dimension drives: its candidates (the routes without a condition on it,
        // merged with those naming the key's value) are checked in order against every other dimension.
        var best = Int.max
        var driver = -1
        func consider(_ index: ValueIndex, _ matches: [Int32], _ id: Int) {
            guard index.constrained else { return }
            let candidates = index.wildcardList.count + matches.count
            if candidates < best {
                best = candidates
                driver = id
            }
        }
        consider(issuers, issuer, 0)
        consider(programs, program, 1)
        consider(countries, country, 2)
        consider(currencies, currency, 3)
        consider(tenants, tenant, 4)
        consider(wallets, wallet, 5)
        consider(operations, operation, 6)
        if bins.constrained && bins.wildcardList.count + segment.count < best {
            best = bins.wildcardList.count + segment.count
            driver = 7
        }
        guard driver >= 0 else { return 0 }  // no route has a condition: the first one matches
        guard best <= enumerationLimit else {
            return scan(allowedWord: { word in
                allowedBits(word, issuer, program, country, currency, tenant, wallet, operation, segment, digits)
            })
        }

        func firstMerged(_ wildcard: [Int32], _ matches: [Int32]) -> Int? {
            var w = 0
            var m = 0
            while w < wildcard.count || m < matches.count {
                let candidate: Int32
                if m >= matches.count || (w < wildcard.count && wildcard[w] < matches[m]) {
                    candidate = wildcard[w]
                    w += 1
                } else {
                    candidate = matches[m]
                    m += 1
                }
                if allowed(Int(candidate)) { return Int(candidate) }
            }
            return nil
        }
        switch driver {
        case 0: return firstMerged(issuers.wildcardList, issuer)
        case 1: return firstMerged(programs.wildcardList, program)
        case 2: return firstMerged(countries.wildcardList, country)
        case 3: return firstMerged(currencies.wildcardList, currency)
        case 4: return firstMerged(tenants.wildcardList, tenant)
        case 5: return firstMerged(wallets.wildcardList, wallet)
        case 6: return firstMerged(operations.wildcardList, operation)
        default:
            // The segment's entries are ascending by route; entries for ranges longer than the BIN are skipped.
            let wildcard = bins.wildcardList
            var w = 0
            var e = segment.lowerBound
            while w < wildcard.count || e < segment.upperBound {
                if e < segment.upperBound && Int(bins.entryLength[e]) > digits {
                    e += 1
                    continue
                }
                let candidate: Int32
                if e >= segment.upperBound || (w < wildcard.count && wildcard[w] < bins.entryRoute[e]) {
                    candidate = wildcard[w]
                    w += 1
                } else {
                    candidate = bins.entryRoute[e]
                    e += 1
                }
                if allowed(Int(candidate)) { return Int(candidate) }
            }
            return nil
        }
    }

    /// The first set bit over words `0 ..< (count + 63) / 64` of the routes every dimension allows.
    private func scan(allowedWord: (Int) -> UInt64) -> Int? {
        for word in 0..<((routes.count + 63) / 64) {
            let bits = allowedWord(word)
            if bits != 0 { return word * 64 + bits.trailingZeroBitCount }
        }
        return nil
    }

    /// Word `word` (routes `64 word ..< 64 word + 64`) of the routes every dimension allows. Each list's part in the
    /// word is found by binary search, so a scan costs words × dimensions × log(list).
    private func allowedBits(
        _ word: Int, _ issuer: [Int32], _ program: [Int32], _ country: [Int32], _ currency: [Int32], _ tenant: [Int32],
        _ wallet: [Int32], _ operation: [Int32], _ segment: Range<Int>, _ digits: Int
    ) -> UInt64 {
        let first = word * 64
        let span = min(64, routes.count - first)
        var bits: UInt64 = span == 64 ? ~0 : (1 << UInt64(span)) - 1
        func listBits(_ list: [Int32]) -> UInt64 {
            var result: UInt64 = 0
            var low = 0
            var high = list.count
            while low < high {
                let middle = (low + high) / 2
                if Int(list[middle]) < first { low = middle + 1 } else { high = middle }
            }
            while low < list.count && Int(list[low]) < first + 64 {
                result |= 1 << UInt64(Int(list[low]) - first)
                low += 1
            }
            return result
        }
        func narrow(_ index: ValueIndex, _ matches: [Int32]) {
            guard index.constrained, bits != 0 else { return }
            bits &= index.wildcard.words[word] | listBits(matches)
        }
        narrow(issuers, issuer)
        narrow(programs, program)
        narrow(countries, country)
        narrow(currencies, currency)
        narrow(tenants, tenant)
        narrow(wallets, wallet)
        narrow(operations, operation)
        if bins.constrained && bits != 0 {
            var binBits = bins.wildcard.words[word]
            var low = segment.lowerBound
            var high = segment.upperBound
            while low < high {
                let middle = (low + high) / 2
                if Int(bins.entryRoute[middle]) < first { low = middle + 1 } else { high = middle }
            }
            while low < segment.upperBound && Int(bins.entryRoute[low]) < first + 64 {
                if Int(bins.entryLength[low]) <= digits { binBits |= 1 << UInt64(Int(bins.entryRoute[low]) - first) }
                low += 1
            }
            bits &= binBits
        }
        return bits
    }

    /// The range of route `position` that holds the BIN (the one a reason names), or nil.
    func range(ofRoute position: Int, holding probe: BINProbe) -> BINRange? {
        guard let entry = bins.entry(for: position, in: bins.entries(probe), digits: probe.digits) else { return nil }
        return routes[position].when.bins?[Int(bins.entryRange[entry])]
    }

    /// Why route `routeIndex` matches the key `evidence` was taken from, in words.
    ///
    /// The reason is worded from the key's values on the dimensions the route constrains, and the evidence holds
    /// exactly those: a value the route allows is in the index under its slot (spelled as the route spells it, which
    /// is the key's value or one `==` to it), and a BIN's first 11 digits are its padded value (a reason names at most
    /// a range's length, at most 11 digits, of it). Dimensions the route does not constrain are not read.
    func reason(routeIndex: Int, evidence: MatchEvidence) -> String {
        var key = RouteKey(
            issuer: issuers.value(evidence.issuer), program: programs.value(evidence.program),
            country: countries.value(evidence.country),
            currency: currencies.value(evidence.currency), tenant: tenants.value(evidence.tenant),
            wallet: wallets.value(evidence.wallet).flatMap(Wallet.init(rawValue:)),
            operation: operations.value(evidence.operation).flatMap(GatewayOperation.init(rawValue:))
        )
        var binRange: BINRange?
        if evidence.binDigits > 0 {
            let shown = min(Int(evidence.binDigits), 11)
            var digits = String(evidence.binPadded)
            // The padded value has 11 digits, or fewer when it begins with zeros.
            digits = String(repeating: "0", count: 11 - digits.count) + digits
            key.bin = String(digits.prefix(shown))
            binRange = range(
                ofRoute: routeIndex, holding: BINProbe(digits: Int(evidence.binDigits), padded: evidence.binPadded))
        }
        return Router.acceptance(routes[routeIndex].when, key, binRange: binRange)
    }
}

/// What a match's reason is worded from, kept in place of the key: the slot of each of the key's values in its
/// dimension's index (-1: none), and the BIN's length and padded first 11 digits (length 0: none). Plain numbers, so a
/// ``RouteMatch`` copies without counting references and keeps no card digits beyond the BIN's first 11.
struct MatchEvidence: Sendable {
    var issuer, program, country, currency, tenant, wallet, operation: Int32
    var binDigits: Int32 = 0
    var binPadded: UInt64 = 0
}
