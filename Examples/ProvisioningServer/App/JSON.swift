import CardGateway
import Foundation
import HTTPTypes
import Hummingbird

/// Writes responses: JSON with camelCase keys, ISO 8601 dates, and unescaped slashes in Base64.
enum JSONOutput {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// Encodes `value`. The values the server encodes are plain structs, so encoding cannot fail; if it ever
    /// did, the answer is a bare 500 rather than a half-written body.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok, contentType: String = "application/json") -> Response {
        guard let data = try? encoder().encode(value) else {
            return Response(status: .internalServerError)
        }
        return raw(data, status: status, contentType: contentType)
    }

    /// Bytes as they are, with a content type.
    static func raw(_ data: Data, status: HTTPResponse.Status = .ok, contentType: String = "application/json") -> Response {
        Response(status: status, headers: [.contentType: contentType], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func noContent() -> Response { Response(status: .noContent) }
}

/// Reads a JSON object body strictly: unknown keys, wrong types, empty strings and bad Base64 are all
/// refused, each problem named by its JSON path and none echoing the value.
struct JSONBody {
    private let object: [String: JSONValue]
    private let path: String
    private(set) var problems: [FieldProblem] = []

    /// Parses `data` (empty means `{}`) as an object whose keys must be among `allowed`.
    init(_ data: Data, allowed: Set<String>) throws {
        let trimmed = data.drop { $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }
        let value: JSONValue
        if trimmed.isEmpty {
            value = .object([:])
        } else {
            do { value = try JSONValue.parse(Data(trimmed)) } catch {
                throw APIProblem.invalidRequest("The body is not valid JSON.")
            }
        }
        guard let object = value.objectValue else {
            throw APIProblem.invalidRequest("The body must be a JSON object, not \(value.typeName).")
        }
        self.init(object: object, path: "", allowed: allowed)
    }

    private init(object: [String: JSONValue], path: String, allowed: Set<String>) {
        self.object = object
        self.path = path
        for key in object.keys.sorted() where !allowed.contains(key) {
            problems.append(FieldProblem(field: name(key), message: "is not a field of this request; expected \(allowed.sorted().joined(separator: ", "))"))
        }
    }

    private func name(_ key: String) -> String {
        let safeKey = SafeText.scrub(key, maxLength: 64)
        return path.isEmpty ? safeKey : "\(path).\(safeKey)"
    }

    private mutating func problem(_ key: String, _ message: String) {
        problems.append(FieldProblem(field: name(key), message: message))
    }

    /// True when the key is present with a non-null value.
    func has(_ key: String) -> Bool {
        if let value = object[key], value != .null { return true }
        return false
    }

    /// A non-empty string of at most `maxLength` characters.
    mutating func string(_ key: String, required: Bool = true, maxLength: Int = 256) -> String? {
        guard let value = object[key], value != .null else {
            if required { problem(key, "is required") }
            return nil
        }
        guard let text = value.stringValue else {
            problem(key, "must be a string, not \(value.typeName)")
            return nil
        }
        guard !text.isEmpty else {
            problem(key, "must not be empty")
            return nil
        }
        guard text.count <= maxLength else {
            problem(key, "must have at most \(maxLength) characters")
            return nil
        }
        return text
    }

    /// Non-empty bytes, as standard Base64 with padding.
    mutating func base64(_ key: String, required: Bool = true, maxBytes: Int = 64 * 1024) -> Data? {
        guard let text = string(key, required: required, maxLength: maxBytes * 2) else { return nil }
        return decode(text, field: key, maxBytes: maxBytes)
    }

    /// A non-empty array of Base64 strings.
    mutating func base64List(_ key: String, maxItems: Int, maxBytes: Int = 16 * 1024) -> [Data]? {
        guard let value = object[key], value != .null else {
            problem(key, "is required")
            return nil
        }
        guard let items = value.arrayValue else {
            problem(key, "must be an array of Base64 strings, not \(value.typeName)")
            return nil
        }
        guard !items.isEmpty, items.count <= maxItems else {
            problem(key, "must hold 1 to \(maxItems) items")
            return nil
        }
        var result: [Data] = []
        for (index, item) in items.enumerated() {
            guard let text = item.stringValue, !text.isEmpty else {
                problem("\(key)[\(index)]", "must be a non-empty Base64 string")
                continue
            }
            if let bytes = decode(text, field: "\(key)[\(index)]", maxBytes: maxBytes) { result.append(bytes) }
        }
        return result.count == items.count ? result : nil
    }

    private mutating func decode(_ text: String, field: String, maxBytes: Int) -> Data? {
        guard let bytes = ByteEncoding.decodeBase64(text), !bytes.isEmpty else {
            problem(field, "must be standard Base64 (A–Z, a–z, 0–9, +, /, with = padding)")
            return nil
        }
        guard bytes.count <= maxBytes else {
            problem(field, "must decode to at most \(maxBytes) bytes")
            return nil
        }
        return bytes
    }

    /// A whole number.
    mutating func integer(_ key: String, required: Bool = true) -> Int64? {
        guard let value = object[key], value != .null else {
            if required { problem(key, "is required") }
            return nil
        }
        guard let number = value.numberValue, number == number.rounded(), abs(number) < 9e15 else {
            problem(key, "must be a whole number")
            return nil
        }
        return Int64(number)
    }

    /// A boolean.
    mutating func bool(_ key: String) -> Bool? {
        guard let value = object[key], value != .null else { return nil }
        guard let flag = value.boolValue else {
            problem(key, "must be true or false, not \(value.typeName)")
            return nil
        }
        return flag
    }

    /// An ISO 8601 date-time (`2025-01-31T12:00:00Z`, fractional seconds allowed).
    mutating func date(_ key: String, required: Bool = true) -> Date? {
        guard let text = string(key, required: required, maxLength: 64) else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        problem(key, "must be an ISO 8601 date-time such as 2025-01-31T12:00:00Z")
        return nil
    }

    /// A nested object, read by `read`; its problems are merged into this reader's.
    mutating func object<T>(_ key: String, required: Bool = true, allowed: Set<String>, _ read: (inout JSONBody) -> T?) -> T? {
        guard let value = object[key], value != .null else {
            if required { problem(key, "is required") }
            return nil
        }
        guard let nested = value.objectValue else {
            problem(key, "must be an object, not \(value.typeName)")
            return nil
        }
        var reader = JSONBody(object: nested, path: name(key), allowed: allowed)
        let result = read(&reader)
        problems.append(contentsOf: reader.problems)
        return reader.problems.isEmpty ? result : nil
    }

    /// Records a problem the caller found (a value out of range, two fields that do not go together).
    mutating func refuse(_ key: String, _ message: String) {
        problem(key, message)
    }

    /// Throws a 400 problem listing every problem found.
    func finish() throws {
        guard !problems.isEmpty else { return }
        let detail = problems.count == 1
            ? "\(problems[0].field) \(problems[0].message)."
            : "The body has \(problems.count) problems; see errors."
        throw APIProblem.invalidRequest(detail, errors: problems)
    }
}
