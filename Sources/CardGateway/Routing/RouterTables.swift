import Foundation

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
        // Read in place from the string's contiguous UTF-8 when it has one (a native string does), else from
        // `bin.utf8`.
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

        /// Up to this many values, a lookup compares them in turn rather than hashing the key's value.
        static let comparedValues = 8

        init<Values: Sequence<String>>(count: Int, _ values: (Int) -> Values?) {
            // Counted first, so that the lists are reserved at their size, and a dimension no route constrains
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
            // Counted first, so that both lists are reserved at their size.
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
            // Read only when constrained.
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
