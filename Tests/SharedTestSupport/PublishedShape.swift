import CardGateway
import Foundation

/// Compares what a simulator answers with a provider's published example of the same object: every field of the
/// published object must be there, with the same JSON type, all the way down. `null` on either side matches any
/// type (a nullable field: the example shows one value, the simulator another legitimate one); arrays compare
/// their first elements when both have one. Fields the simulator adds are allowed.
public enum PublishedShape {
    /// Where `actual` departs from `published`, one line per field (empty when it carries the published shape).
    public static func differences(_ actual: JSONValue, from published: JSONValue, path: String = "$") -> [String] {
        switch (published, actual) {
        case (.null, _), (_, .null):
            return []
        case (.object(let expected), .object(let given)):
            return expected.keys.sorted().flatMap { key -> [String] in
                guard let value = given[key] else { return ["\(path).\(key) is missing"] }
                return differences(value, from: expected[key]!, path: "\(path).\(key)")
            }
        case (.array(let expected), .array(let given)):
            guard let first = expected.first, let other = given.first else { return [] }
            return differences(other, from: first, path: "\(path)[0]")
        case (.bool, .bool), (.number, .number), (.string, .string):
            return []
        default:
            return ["\(path) is \(actual.typeName), the published example has \(published.typeName)"]
        }
    }

    /// The fixture file `name` in the `Fixtures` folder next to the calling test file.
    public static func fixture(_ name: String, filePath: String = #filePath) throws -> JSONValue {
        try JSONValue.parse(try Data(contentsOf: fixtureURL(name, filePath: filePath)))
    }

    /// The URL of the fixture file `name` next to the calling test file.
    public static func fixtureURL(_ name: String, filePath: String = #filePath) -> URL {
        URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
    }
}
