import CardGateway
import Foundation

/// A small JSON-schema subset checker for OpenAPI 3.1 component schemas: `$ref`, `type`, `required`,
/// `properties`, `additionalProperties: false`, `enum`, `items`, `oneOf`/`anyOf` (any branch). Enough to hold the
/// simulator's responses to Adyen's published field names and types.
struct SchemaChecker {
    let document: JSONValue

    /// The spec file, committed next to these tests in `Tests/AdyenTests/Fixtures` (`#filePath` is
    /// `<root>/Tests/AdyenTests/<file>`), or nil when it is not there.
    static func load(_ name: String, filePath: String = #filePath) -> SchemaChecker? {
        guard let url = specURL(name, filePath: filePath), let data = try? Data(contentsOf: url), let document = try? JSONValue.parse(data)
        else { return nil }
        return SchemaChecker(document: document)
    }

    static func specURL(_ name: String, filePath: String = #filePath) -> URL? {
        let url = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// Problems of `value` against the component schema `name` (empty when it conforms).
    func problems(_ value: JSONValue, schema name: String) -> [String] {
        guard let schema = component(name) else { return ["no schema \(name) in the spec"] }
        var found: [String] = []
        check(value, schema, path: name, into: &found)
        return found
    }

    /// Problems of a JSON body.
    func problems(_ body: Data, schema name: String) -> [String] {
        guard let value = try? JSONValue.parse(body) else { return ["the body is not JSON"] }
        return problems(value, schema: name)
    }

    private func component(_ name: String) -> [String: JSONValue]? {
        document["components"]?["schemas"]?[name]?.objectValue
    }

    private func resolve(_ schema: [String: JSONValue]) -> [String: JSONValue] {
        guard let ref = schema["$ref"]?.stringValue, ref.hasPrefix("#/components/schemas/") else { return schema }
        return component(String(ref.dropFirst("#/components/schemas/".count))) ?? [:]
    }

    private func check(_ value: JSONValue, _ raw: [String: JSONValue], path: String, into found: inout [String]) {
        let schema = resolve(raw)
        if let branches = (schema["oneOf"] ?? schema["anyOf"])?.arrayValue {
            let results = branches.compactMap(\.objectValue).map { branch -> [String] in
                var sub: [String] = []
                check(value, branch, path: path, into: &sub)
                return sub
            }
            if !results.contains(where: \.isEmpty) { found.append("\(path): matches no branch (\(results.first?.first ?? ""))") }
            return
        }
        if let type = schema["type"]?.stringValue, !Self.matches(value, type: type) {
            found.append("\(path): expected \(type), got \(value.typeName)")
            return
        }
        if let allowed = schema["enum"]?.arrayValue, let text = value.stringValue, !allowed.contains(.string(text)) {
            found.append("\(path): \(text) is not one of \(allowed)")
        }
        if let object = value.objectValue {
            let properties = schema["properties"]?.objectValue ?? [:]
            for key in (schema["required"]?.arrayValue ?? []).compactMap(\.stringValue) where object[key] == nil {
                found.append("\(path): required \(key) is missing")
            }
            for (key, child) in object {
                if let childSchema = properties[key]?.objectValue {
                    check(child, childSchema, path: "\(path).\(key)", into: &found)
                } else if schema["additionalProperties"] == .bool(false) {
                    found.append("\(path): \(key) is not in the schema")
                }
            }
        }
        if let array = value.arrayValue, let items = schema["items"]?.objectValue {
            for (index, element) in array.enumerated() { check(element, items, path: "\(path)[\(index)]", into: &found) }
        }
    }

    private static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("number", .number): return true
        case ("integer", .number(let number)): return number == number.rounded()
        case ("object", _), ("array", _), ("string", _), ("boolean", _), ("number", _), ("integer", _): return false
        default: return true
        }
    }
}
