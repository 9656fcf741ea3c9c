import Foundation

/// A Stripe v1 request body or query: `application/x-www-form-urlencoded`, nested keys written the way
/// Stripe's own libraries write them (`a[b]=c`, `items[0]=x`, `expand[]=y`, brackets left literal).
struct StripeForm: Sendable, Equatable {
    private(set) var fields: [Field] = []

    struct Field: Sendable, Equatable {
        var name: String
        var value: String
    }

    init() {}

    /// `name=value`.
    mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// `parent[child]=value` for each pair, in the order given.
    mutating func add(_ parent: String, object: [(String, String)]) {
        for (child, value) in object { add("\(parent)[\(child)]", value) }
    }

    /// `name[0]=a&name[1]=b` (indexed, as stripe-python writes arrays).
    mutating func add(_ name: String, indexed values: [String]) {
        for (index, value) in values.enumerated() { add("\(name)[\(index)]", value) }
    }

    /// `name[]=a&name[]=b` (as Stripe documents `expand[]`).
    mutating func add(_ name: String, list values: [String]) {
        for value in values { add("\(name)[]", value) }
    }

    var isEmpty: Bool { fields.isEmpty }

    /// The encoded text.
    var encoded: String {
        fields.map { "\(Self.escape($0.name, keepBrackets: true))=\(Self.escape($0.value, keepBrackets: false))" }
            .joined(separator: "&")
    }

    var body: Data { Data(encoded.utf8) }

    private static let unreserved: CharacterSet = {
        var set = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        set.insert(charactersIn: "-._~")
        return set
    }()

    private static let unreservedAndBrackets: CharacterSet = unreserved.union(CharacterSet(charactersIn: "[]"))

    static func escape(_ text: String, keepBrackets: Bool) -> String {
        text.addingPercentEncoding(withAllowedCharacters: keepBrackets ? unreservedAndBrackets : unreserved) ?? ""
    }
}
