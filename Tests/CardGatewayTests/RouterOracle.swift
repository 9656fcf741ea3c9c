import CardGateway

/// The routing rules as documented (RoutingAndConfiguration.md, ``Route``, ``RouteKey``, ``BINRange``), written as a
/// plain linear scan for the router's tests to compare with. It shares no code with the router: only the public types.
///
/// - Routes are tried in order; the first whose every condition holds wins.
/// - A condition a route does not name holds. A named one holds when the key has a value on that dimension and the
///   route allows it; a key without a value does not match a route that constrains the dimension.
/// - A BIN range of L digits holds a key's BIN when the BIN is all ASCII digits, has at least L of them, and its first
///   L digits lie between the range's ends (same-length digit strings order as their numbers do).
///
/// An explanation gives, for every route before the match (all of them without one), the first condition, in the
/// order ``Route/Conditions`` declares them, that the key does not satisfy, and for the match the key's value on each
/// condition, with the route's range holding the BIN: the shortest such range, then the one with the highest low end,
/// then the last written.
struct RouterOracle {
    let routes: [Route]

    struct Decision: Equatable, CustomStringConvertible {
        var routeIndex: Int
        var instance: String
        var matched: Bool
        var reason: String
        var description: String { "routes[\(routeIndex)] → \(instance): \(matched ? "matched" : "skipped"): \(reason)" }
    }

    /// The first route whose every condition holds.
    func match(_ key: RouteKey) -> Int? {
        routes.firstIndex { Self.refusal($0.when, key) == nil }
    }

    /// Every route's verdict up to and including the match.
    func explain(_ key: RouteKey) -> [Decision] {
        var decisions: [Decision] = []
        for (index, route) in routes.enumerated() {
            if let refusal = Self.refusal(route.when, key) {
                decisions.append(Decision(routeIndex: index, instance: route.use, matched: false, reason: refusal))
            } else {
                decisions.append(
                    Decision(
                        routeIndex: index, instance: route.use, matched: true, reason: Self.acceptance(route.when, key))
                )
                break
            }
        }
        return decisions
    }

    // MARK: The rules

    static func holds(_ range: BINRange, _ bin: String) -> Bool {
        let length = range.low.count
        guard bin.allSatisfy({ $0.isASCII && $0.isNumber }), bin.count >= length else { return false }
        let prefix = String(bin.prefix(length))
        return range.low <= prefix && prefix <= range.high
    }

    /// The conditions in declaration order: each one's name, the values it allows (nil: not named) and the key's value.
    static func conditions(
        _ when: Route.Conditions, _ key: RouteKey
    ) -> [(name: String, allowed: Set<String>?, value: String?)] {
        [
            ("issuer", when.issuers, key.issuer),
            ("program", when.programs, key.program),
            ("bin", when.bins.map { Set($0.map(\.description)) }, key.bin),
            ("country", when.countries, key.country),
            ("currency", when.currencies, key.currency),
            ("tenant", when.tenants, key.tenant),
            ("wallet", when.wallets.map { Set($0.map(\.rawValue)) }, key.wallet?.rawValue),
            ("operation", when.operations.map { Set($0.map(\.rawValue)) }, key.operation?.rawValue),
        ]
    }

    // MARK: The reasons, as the documentation and the examples word them

    /// Sorted and bracketed; past ten values, the first ten and how many more.
    static func listed(_ values: [String]) -> String {
        let sorted = values.sorted()
        let shown = sorted.prefix(10)
        return "[\(shown.joined(separator: ", "))\(sorted.count > 10 ? ", … \(sorted.count - 10) more" : "")]"
    }

    /// Why the route does not match the key, or nil when it does.
    static func refusal(_ when: Route.Conditions, _ key: RouteKey) -> String? {
        for (name, allowed, value) in conditions(when, key) {
            guard let allowed else { continue }
            if name == "bin" {
                let ranges = when.bins ?? []
                guard let bin = value else {
                    return "requires bin in \(listed(ranges.map(\.description))) but the key has no bin"
                }
                if !ranges.contains(where: { holds($0, bin) }) {
                    return
                        "requires bin in \(listed(ranges.map(\.description))) but the key's bin \(bin.prefix(11)) is in none"
                }
                continue
            }
            guard let value else { return "requires \(name) in \(listed(Array(allowed))) but the key has no \(name)" }
            if !allowed.contains(value) {
                return "requires \(name) in \(listed(Array(allowed))) but the key has \(value)"
            }
        }
        return nil
    }

    /// Why a matching route matches.
    static func acceptance(_ when: Route.Conditions, _ key: RouteKey) -> String {
        var parts: [String] = []
        for (name, allowed, value) in conditions(when, key) {
            guard let allowed, let value else { continue }
            if name == "bin" {
                let holding = (when.bins ?? []).enumerated().filter { holds($0.element, value) }
                let named = holding.min { a, b in
                    let (x, y) = (a.element, b.element)
                    if x.low.count != y.low.count { return x.low.count < y.low.count }
                    if x.low != y.low { return x.low > y.low }
                    return a.offset > b.offset
                }!.element
                parts.append("bin \(value.prefix(named.low.count)) is in \(named)")
            } else {
                parts.append(
                    allowed.count <= 10
                        ? "\(name) \(value) is in \(listed(Array(allowed)))"
                        : "\(name) \(value) is one of the route's \(allowed.count) values")
            }
        }
        return parts.isEmpty ? "the route has no conditions (catch-all)" : parts.joined(separator: "; ")
    }
}
