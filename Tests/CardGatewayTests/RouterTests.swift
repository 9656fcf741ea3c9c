import CardGateway
import Foundation
import SharedTestSupport
import Testing

@Suite("Routing", .timeLimit(.minutes(5)))
struct RouterTests {
    let router: Router

    init() throws {
        router = Router(routes: try TestFactories.load(TestFactories.validDocument).routes)
    }

    @Test("the first route whose every condition holds wins, in configuration order")
    func firstMatchWins() {
        #expect(router.match(RouteKey(operation: .charge))?.instance == "on-file")
        #expect(router.match(RouteKey(program: "EU-VIRTUAL", operation: .card))?.routeIndex == 1)
        #expect(
            router.match(RouteKey(issuer: "us-bank", bin: "4400001234567890", operation: .card))?.instance == "us-cards"
        )
        #expect(router.match(RouteKey(issuer: "us-bank", bin: "510510", operation: .card))?.instance == "us-cards")
        #expect(router.match(RouteKey(country: "DE", currency: "EUR", operation: .card))?.routeIndex == 3)
        // The catch-all takes what nothing else does.
        #expect(router.match(RouteKey(issuer: "us-bank", bin: "45000000", operation: .card))?.routeIndex == 4)
        #expect(router.match(RouteKey(country: "DE", operation: .card))?.routeIndex == 4)
    }

    @Test("BIN ranges compare prefixes of their own length; shorter keys do not match longer ranges")
    func binPrefixes() {
        let routes = [
            Route(when: .init(bins: [BINRange(low: "44000000", high: "44009999")]), use: "eight"),
            Route(when: .init(bins: [BINRange(low: "510000", high: "519999")]), use: "six"),
            Route(when: .init(bins: [BINRange(low: "35280000000", high: "35289999999")]), use: "eleven"),
        ]
        let router = Router(routes: routes)
        #expect(router.match(RouteKey(bin: "44009999"))?.instance == "eight")
        #expect(router.match(RouteKey(bin: "4400999912345678"))?.instance == "eight")
        #expect(router.match(RouteKey(bin: "44010000")) == nil)
        #expect(router.match(RouteKey(bin: "440000")) == nil, "a 6-digit key cannot be placed in an 8-digit range")
        #expect(router.match(RouteKey(bin: "5105105105105100"))?.instance == "six")
        #expect(router.match(RouteKey(bin: "35281234567"))?.instance == "eleven")
        #expect(router.match(RouteKey(bin: "3528123456")) == nil)
        #expect(router.match(RouteKey(bin: "abcdefgh")) == nil)
    }

    @Test("overlapping ranges to the same instance and ranges split by other dimensions route by order")
    func overlapsByOrder() {
        let routes = [
            Route(when: .init(bins: [BINRange(low: "45000000", high: "45009999")], tenants: ["t1"]), use: "a"),
            Route(when: .init(bins: [BINRange(low: "45000000", high: "45999999")]), use: "b"),
            Route(when: .init(bins: [BINRange(low: "450050", high: "450050")]), use: "c"),
        ]
        let router = Router(routes: routes)
        #expect(router.match(RouteKey(bin: "45005012", tenant: "t1"))?.instance == "a")
        #expect(router.match(RouteKey(bin: "45005012", tenant: "t2"))?.instance == "b")
        #expect(router.match(RouteKey(bin: "45005012"))?.instance == "b")
    }

    @Test("the index agrees with the documented rules, read route by route, on many random keys")
    func indexAgreesWithExplain() {
        var generator = SeededGenerator(state: 42)
        var routes: [Route] = []
        for index in 0..<60 {
            var conditions = Route.Conditions()
            if index % 3 == 0 { conditions.issuers = ["i\(index % 5)"] }
            if index % 4 == 0 { conditions.countries = ["GB", "DE"] }
            if index % 2 == 0 {
                let start = Int.random(in: 400_000...499_000, using: &generator)
                conditions.bins = [
                    BINRange(low: String(start), high: String(start + Int.random(in: 0...900, using: &generator)))
                ]
            }
            if index % 7 == 0 { conditions.operations = [.card, .provision] }
            if index % 11 == 0 { conditions.wallets = [.applePay] }
            routes.append(Route(when: conditions, use: "r\(index)"))
        }
        let router = Router(routes: routes)
        let oracle = RouterOracle(routes: routes)
        for _ in 0..<2000 {
            let key = RouteKey(
                issuer: Bool.random(using: &generator) ? "i\(Int.random(in: 0..<5, using: &generator))" : nil,
                bin: Bool.random(using: &generator)
                    ? String(Int.random(in: 400_000...499_999, using: &generator)) + "12" : nil,
                country: ["GB", "DE", "FR", nil].randomElement(using: &generator)!,
                wallet: [Wallet.applePay, .googlePay, nil].randomElement(using: &generator)!,
                operation: [GatewayOperation.card, .provision, .charge].randomElement(using: &generator)!
            )
            #expect(router.match(key)?.routeIndex == oracle.match(key), "\(key)")
            #expect(router.explain(key).match?.routeIndex == oracle.match(key), "\(key)")
        }
    }

    @Test("explain names the matched route and why each earlier route was skipped")
    func explain() {
        let explanation = router.explain(
            RouteKey(issuer: "us-bank", bin: "4400001234", country: "GB", operation: .card))
        #expect(explanation.match?.routeIndex == 2)
        #expect(explanation.match?.instance == "us-cards")
        #expect(explanation.match?.reason == "issuer us-bank is in [us-bank]; bin 44000012 is in 44000000-44009999")
        #expect(explanation.decisions.count == 3)
        #expect(
            explanation.decisions[0].reason
                == "requires operation in [charge, clientSession, verifyResult] but the key has card")
        #expect(
            explanation.decisions[1].reason
                == "requires program in [EU-PHYSICAL, EU-VIRTUAL] but the key has no program")

        let none = Router(routes: [Route(when: .init(currencies: ["EUR"]), use: "x")]).explain(
            RouteKey(currency: "GBP"))
        #expect(none.match == nil)
        #expect(none.decisions.first?.reason == "requires currency in [EUR] but the key has GBP")
        #expect(none.description.contains("no route matched"))
    }

    @Test("lookups over thousands of BIN ranges stay correct")
    func manyRanges() {
        var ranges: [BINRange] = []
        for block in 0..<5000 {
            let low = 40_000_000 + block * 100
            ranges.append(BINRange(low: String(low), high: String(low + 49)))
        }
        let router = Router(routes: [Route(when: .init(bins: ranges), use: "many"), Route(when: .init(), use: "rest")])
        #expect(router.match(RouteKey(bin: "40012345"))?.instance == "many")
        #expect(router.match(RouteKey(bin: "40012350"))?.instance == "rest")
        #expect(router.match(RouteKey(bin: "40499949"))?.instance == "many")
        #expect(router.match(RouteKey(bin: "40500000"))?.instance == "rest")
        // The reason names the range that holds the BIN, found without a scan.
        #expect(router.match(RouteKey(bin: "4001234567"))?.reason == "bin 40012345 is in 40012300-40012349")
    }

    @Test("a match's reason names the holding range among overlapping ranges of several lengths")
    func reasonAmongOverlappingRanges() {
        let ranges = [
            BINRange(low: "40000000", high: "49999999"), BINRange(low: "41000000", high: "41000099"),
            BINRange(low: "410000", high: "410000"), BINRange(low: "4100000100", high: "4100000199"),
        ]
        let router = Router(routes: [Route(when: .init(bins: ranges), use: "cards")])
        // Shorter prefixes are tried first.
        #expect(router.match(RouteKey(bin: "41000050"))?.reason == "bin 410000 is in 410000")
        #expect(router.match(RouteKey(bin: "42000050"))?.reason == "bin 42000050 is in 40000000-49999999")
        #expect(router.match(RouteKey(bin: "4100000150"))?.reason == "bin 410000 is in 410000")
        #expect(router.match(RouteKey(bin: "4x000050")) == nil)
        #expect(router.explain(RouteKey(bin: "4x000050")).match == nil)
    }

    @Test("long value lists are summarised in reasons, never spelled out whole")
    func longListsSummarised() {
        let programs = Set((0..<500).map { "P\(1000 + $0)" })
        let router = Router(routes: [Route(when: .init(programs: programs), use: "many")])
        #expect(router.match(RouteKey(program: "P1250"))?.reason == "program P1250 is one of the route's 500 values")
        let miss = router.explain(RouteKey(program: "Q1"))
        #expect(
            miss.decisions.first?.reason
                == "requires program in [P1000, P1001, P1002, P1003, P1004, P1005, P1006, P1007, P1008, P1009, … 490 more] but the key has Q1"
        )
    }
}
