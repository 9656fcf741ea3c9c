import Foundation

/// Form or query parameters with Stripe's nested keys (`a[b]=c`, `list[]=x`, `list[0]=x`).
struct StripeSimulatorParams: Sendable {
    var fields: [(name: String, value: String)]

    init(_ fields: [(name: String, value: String)]) { self.fields = fields }

    /// The name before the first `[`.
    static func topLevel(_ name: String) -> String {
        String(name.prefix { $0 != "[" })
    }

    /// The last value given for exactly `name`.
    func string(_ name: String) -> String? {
        fields.last { $0.name == name }?.value
    }

    /// Values of `name[]` and `name[N]`, in order.
    func list(_ name: String) -> [String] {
        fields.compactMap { field in
            guard field.name.hasPrefix(name + "["), field.name.hasSuffix("]") else { return nil }
            let inner = field.name.dropFirst(name.count + 1).dropLast()
            return inner.isEmpty || inner.allSatisfy({ $0.isASCII && $0.isNumber }) ? field.value : nil
        }
    }

    /// `name[key]=value` pairs (one level), in order.
    func object(_ name: String) -> [(String, String)] {
        fields.compactMap { field in
            guard field.name.hasPrefix(name + "["), field.name.hasSuffix("]") else { return nil }
            let inner = String(field.name.dropFirst(name.count + 1).dropLast())
            guard !inner.isEmpty, !inner.contains("["), !inner.contains("]") else { return nil }
            return (inner, field.value)
        }
    }

    func contains(_ topLevelName: String) -> Bool {
        fields.contains { Self.topLevel($0.name) == topLevelName }
    }

    /// Throws `parameter_unknown` for the first top-level name not in `allowed`.
    func requireKnown(_ allowed: Set<String>) throws(StripeSimulatorFailure) {
        for field in fields where !allowed.contains(Self.topLevel(field.name)) {
            throw .unknownParameter(Self.topLevel(field.name))
        }
    }

    /// An integer parameter in `range`.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(StripeSimulatorFailure) -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text) else {
            throw .invalid("Invalid integer: \(text)", param: name, code: "parameter_invalid_integer")
        }
        guard range.contains(value) else {
            throw .invalid(
                "This value must be between \(range.lowerBound) and \(range.upperBound).", param: name,
                code: "parameter_invalid_integer")
        }
        return value
    }

    /// A canonical form of the parameters (sorted), for idempotency fingerprints.
    var canonical: String {
        fields.map { "\($0.name)=\($0.value)" }.sorted().joined(separator: "&")
    }
}

/// One Stripe API call as the simulator sees it, independent of the HTTP server.
struct StripeSimulatorCall: Sendable {
    var method: String
    var path: String
    /// Route parameter (`{id}`), when the route has one.
    var id: String?
    /// Lower-cased header names.
    var headers: [String: String]
    var params: StripeSimulatorParams

    func header(_ name: String) -> String? { headers[name.lowercased()] }
}
