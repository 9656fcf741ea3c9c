@testable import CardGateway
import Foundation
import SharedTestSupport
import Testing

/// The router against ``RouterOracle`` (the documented rules as a plain linear scan): the same route, instance and
/// reason for every key from `match`, and the same verdict and reason on every route from `explain`, on randomized
/// tables with overlapping BIN ranges of mixed lengths, conditions on every dimension and keys with BINs of every
/// length (and some that are not digits).
@Suite("Routing: the indexed router decides as the documented rules do", .timeLimit(.minutes(5)))
struct RouterEquivalenceTests {
    static let operations: [GatewayOperation] = [.card, .listCards, .createCard, .lockCard, .programs]

    static func values(_ prefix: String, _ count: Int, _ generator: inout SeededGenerator) -> Set<String> {
        Set(
            (0..<Int.random(in: 1...3, using: &generator)).map { _ in
                "\(prefix)\(Int.random(in: 0..<count, using: &generator))"
            })
    }

    /// Digits from a small alphabet, so that ranges and keys collide often.
    static func digits(_ count: Int, _ generator: inout SeededGenerator) -> String {
        String((0..<count).map { index in index == 0 ? "4" : ["0", "1", "5", "9"].randomElement(using: &generator)! })
    }

    static func range(_ generator: inout SeededGenerator) -> BINRange {
        let length = [6, 6, 8, 8, 8, 9, 11].randomElement(using: &generator)!
        let a = digits(length, &generator)
        let b = Bool.random(using: &generator) ? a : digits(length, &generator)
        return BINRange(low: min(a, b), high: max(a, b))
    }

    static func routes(_ count: Int, _ generator: inout SeededGenerator) -> [Route] {
        (0..<count).map { index in
            var when = Route.Conditions()
            func maybe(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &generator) < probability }
            if maybe(0.2) { when.issuers = values("i", 4, &generator) }
            if maybe(0.15) { when.programs = values("p", 4, &generator) }
            if maybe(0.5) { when.bins = (0..<Int.random(in: 1...3, using: &generator)).map { _ in range(&generator) } }
            if maybe(0.2) { when.countries = values("C", 3, &generator) }
            if maybe(0.2) { when.currencies = values("K", 3, &generator) }
            if maybe(0.1) { when.tenants = values("t", 3, &generator) }
            if maybe(0.1) { when.wallets = Set((0..<2).map { _ in Wallet.allCases.randomElement(using: &generator)! }) }
            if maybe(0.15) { when.operations = Set((0..<2).map { _ in operations.randomElement(using: &generator)! }) }
            return Route(when: when, use: "instance-\(index % 7)")
        }
    }

    static func key(_ generator: inout SeededGenerator) -> RouteKey {
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { Bool.random(using: &generator) ? value() : nil }
        var key = RouteKey()
        key.issuer = maybe("i\(Int.random(in: 0..<5, using: &generator))")
        key.program = maybe("p\(Int.random(in: 0..<5, using: &generator))")
        if Double.random(in: 0..<1, using: &generator) < 0.8 {
            var bin = digits(Int.random(in: 4...16, using: &generator), &generator)
            if Double.random(in: 0..<1, using: &generator) < 0.05 { bin += "x" }
            key.bin = bin
        }
        key.country = maybe("C\(Int.random(in: 0..<4, using: &generator))")
        key.currency = maybe("K\(Int.random(in: 0..<4, using: &generator))")
        key.tenant = maybe("t\(Int.random(in: 0..<4, using: &generator))")
        key.wallet = maybe(Wallet.allCases.randomElement(using: &generator)!)
        key.operation = maybe(operations.randomElement(using: &generator)!)
        return key
    }

    /// `match` (and each of the index's paths), and `explain`, against the oracle for one key.
    static func compare(_ router: Router, _ oracle: RouterOracle, _ key: RouteKey, explaining: Bool = true) {
        let expected = oracle.explain(key)
        let expectedMatch = oracle.match(key)
        let actual = router.match(key)
        #expect(actual?.routeIndex == expectedMatch, "key \(key)")
        #expect(actual?.instance == expectedMatch.map { oracle.routes[$0].use }, "key \(key)")
        if let expectedMatch { #expect(actual?.reason == expected.last?.reason, "key \(key), route \(expectedMatch)") }
        // The word-at-a-time scan (used when no dimension is selective) decides the same, and so does the
        // enumeration a table of at most 64 routes skips for its one-word path.
        #expect(router.tables.firstMatch(key, enumerationLimit: 0, oneWord: false) == expectedMatch, "key \(key)")
        #expect(router.tables.firstMatch(key, oneWord: false) == expectedMatch, "key \(key)")
        guard explaining else { return }
        let explanation = router.explain(key)
        #expect(explanation.match == actual, "key \(key)")
        #expect(explanation.key == key.description)
        let decisions = explanation.decisions.map {
            RouterOracle.Decision(
                routeIndex: $0.routeIndex, instance: $0.instance, matched: $0.matched, reason: $0.reason)
        }
        #expect(decisions == expected, "key \(key)")
    }

    @Test("match, its reason and explain agree with the documented rules", arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func sameDecisions(seed: UInt64) {
        var generator = SeededGenerator(state: seed)
        for _ in 0..<20 {
            let routes = Self.routes(Int.random(in: 0...120, using: &generator), &generator)
            let router = Router(routes: routes)
            let oracle = RouterOracle(routes: routes)
            for _ in 0..<200 {
                Self.compare(router, oracle, Self.key(&generator))
            }
        }
    }

    @Test("a large table: 3 000 routes with many overlapping ranges, looked up every way")
    func largeTable() {
        var generator = SeededGenerator(state: 42)
        let routes = Self.routes(3_000, &generator)
        let router = Router(routes: routes)
        let oracle = RouterOracle(routes: routes)
        for index in 0..<500 {
            // Explaining words a verdict for every earlier route: one key in ten is enough.
            Self.compare(router, oracle, Self.key(&generator), explaining: index % 10 == 0)
        }
    }

    @Test("the comparison can fail: a router given other routes disagrees with the oracle")
    func comparisonCanFail() {
        var generator = SeededGenerator(state: 5)
        let routes = Self.routes(60, &generator)
        // The same table with each route's BIN ranges narrowed to their low end: some keys now route elsewhere.
        let narrowed = routes.map { route in
            var route = route
            route.when.bins = route.when.bins?.map { BINRange(low: $0.low, high: $0.low) }
            return route
        }
        let router = Router(routes: narrowed)
        let oracle = RouterOracle(routes: routes)
        var disagreements = 0
        for _ in 0..<2_000 {
            let key = Self.key(&generator)
            if router.match(key)?.routeIndex != oracle.match(key) { disagreements += 1 }
        }
        #expect(disagreements > 0)
    }

    @Test("a deferred reason reads as the reason worded at once, survives Codable and can be replaced")
    func deferredReason() throws {
        let router = Router(routes: [
            Route(when: .init(issuers: ["a"], bins: [BINRange(low: "400000", high: "400099")]), use: "x"),
            Route(when: .init(), use: "fallback"),
        ])
        let key = RouteKey(issuer: "a", bin: "40005012345678")
        var match = try #require(router.match(key))
        #expect(match.reason == "issuer a is in [a]; bin 400050 is in 400000-400099")
        #expect(match == router.explain(key).match)
        let decoded = try JSONDecoder().decode(RouteMatch.self, from: JSONEncoder().encode(match))
        #expect(decoded == match)
        #expect(decoded.reason == match.reason)
        match.reason = "set by hand"
        #expect(match.reason == "set by hand")
        #expect(router.match(RouteKey(issuer: "b"))?.reason == "the route has no conditions (catch-all)")
    }

    @Test("dimensions with more values than are compared in turn are looked up by hash, with the same decisions")
    func manyValues() {
        var generator = SeededGenerator(state: 99)
        let countries = (0..<30).map { "C\($0)" }
        var routes: [Route] = (0..<40).map { index in
            var when = Route.Conditions(
                countries: Set(countries.shuffled(using: &generator).prefix(Int.random(in: 9...20, using: &generator))))
            if index % 3 == 0 { when.issuers = Set((0..<12).map { "i\($0 + index % 5)" }) }
            if index % 4 == 0 { when.bins = [Self.range(&generator)] }
            return Route(when: when, use: "instance-\(index % 7)")
        }
        routes.append(Route(when: .init(wallets: [.googlePay], operations: [.card]), use: "wallets"))
        let router = Router(routes: routes)
        let oracle = RouterOracle(routes: routes)
        #expect(router.tables.countries.values.count > RouterTables.ValueIndex.comparedValues)
        for _ in 0..<2_000 {
            var key = Self.key(&generator)
            key.country = Bool.random(using: &generator) ? countries.randomElement(using: &generator)! : key.country
            key.issuer = Bool.random(using: &generator) ? "i\(Int.random(in: 0..<17, using: &generator))" : key.issuer
            Self.compare(router, oracle, key, explaining: Bool.random(using: &generator))
        }
    }

    @Test("a deferred reason names the BIN's digits as the key has them: leading zeros, 6 to 19 digits")
    func deferredBINReason() throws {
        let router = Router(routes: [
            Route(
                when: .init(bins: [
                    BINRange(low: "000100", high: "000199"), BINRange(low: "01234567", high: "01234567"),
                ]), use: "zeros"),
            Route(when: .init(bins: [BINRange(low: "41111111111", high: "41111111111")]), use: "eleven"),
        ])
        for bin in [
            "000150", "0001509", "0123456712345678", "012345679", "41111111111", "4111111111111111",
            "4111111111111111111",
        ] {
            let key = RouteKey(bin: bin)
            let match = router.match(key)
            #expect(match == router.explain(key).match, "bin \(bin)")
            #expect(match?.reason == router.explain(key).match?.reason, "bin \(bin)")
        }
        #expect(try #require(router.match(RouteKey(bin: "0001501234"))).reason == "bin 000150 is in 000100-000199")
        #expect(router.match(RouteKey(bin: "012345689")) == nil)
    }

    /// A BIN as the documentation reads it: 6 or more ASCII digits, of which the first 11 count.
    static func plainProbe(_ bin: String) -> (Int, UInt64)? {
        let bytes = Array(bin.utf8)
        guard bytes.count >= 6, bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        var value: UInt64 = 0
        for index in 0..<11 {
            value = value * 10 + (index < bytes.count ? UInt64(bytes[index] - UInt8(ascii: "0")) : 0)
        }
        return (bytes.count, value)
    }

    @Test("BINProbe reads a BIN's length and first 11 digits, and refuses anything but ASCII digits")
    func binProbeReader() {
        var generator = SeededGenerator(state: 7)
        // Bytes next to the digits' edges, and non-ASCII text, in every position.
        let intruders: [String] = ["/", ":", " ", "\u{0}", "\u{7F}", "é", "٣", "0\u{301}", "a", "+", "-"]
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...40, using: &generator)
            var text = String((0..<length).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
            if length > 0 && Bool.random(using: &generator) {
                var characters = Array(text)
                characters[Int.random(in: 0..<length, using: &generator)] = Character(
                    intruders.randomElement(using: &generator)!)
                text = String(characters)
            }
            let probe = BINProbe(text)
            let expected = Self.plainProbe(text)
            #expect(probe?.digits == expected?.0 && probe?.padded == expected?.1, "bin \(text.debugDescription)")
        }
    }
}
