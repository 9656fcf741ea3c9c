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
    static func response(
        _ value: some Encodable, status: HTTPResponse.Status = .ok, contentType: String = "application/json"
    ) -> Response {
        guard let data = try? encoder().encode(value) else {
            return Response(status: .internalServerError)
        }
        return raw(data, status: status, contentType: contentType)
    }

    /// Bytes as they are, with a content type.
    static func raw(
        _ data: Data, status: HTTPResponse.Status = .ok, contentType: String = "application/json"
    ) -> Response {
        Response(
            status: status, headers: [.contentType: contentType],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func noContent() -> Response { Response(status: .noContent) }
}

/// The checks the generated decoding does not make (it reads types, required fields, enums and unknown keys):
/// lengths, patterns, item counts, ranges and Base64, as `openapi.yaml` states them. Each problem is named by its
/// JSON path and none echoes the value. Lengths count Unicode scalars, as JSON Schema's `maxLength` does.
struct FieldChecks {
    private(set) var problems: [FieldProblem] = []

    /// A string of 1 to `maxLength` characters.
    mutating func text(_ value: String?, _ field: String, maxLength: Int) -> String? {
        guard let value else { return nil }
        guard !value.isEmpty else {
            refuse(field, "must not be empty")
            return nil
        }
        guard value.unicodeScalars.count <= maxLength else {
            refuse(field, "must have at most \(maxLength) characters")
            return nil
        }
        return value
    }

    /// 1 to `maxLength` letters, digits and `-_.:`.
    mutating func token(_ value: String?, _ field: String, maxLength: Int, example: String) -> String? {
        guard let value else { return nil }
        guard RequestScope.isSafeToken(value, maxLength: maxLength) else {
            refuse(field, "must be 1 to \(maxLength) letters, digits and -_.: such as \(example)")
            return nil
        }
        return value
    }

    /// Non-empty bytes of at most `maxBytes`, as canonical standard Base64 with padding (the document's pattern).
    mutating func base64(_ value: String?, _ field: String, maxBytes: Int) -> Data? {
        guard let value else { return nil }
        guard let bytes = ByteEncoding.decodeBase64(value), !bytes.isEmpty, ByteEncoding.base64(bytes) == value else {
            refuse(field, "must be standard Base64 (A–Z, a–z, 0–9, +, /, with = padding)")
            return nil
        }
        guard bytes.count <= maxBytes else {
            refuse(field, "must decode to at most \(maxBytes) bytes")
            return nil
        }
        return bytes
    }

    /// Records a problem (a value out of range, two fields that do not go together).
    mutating func refuse(_ field: String, _ message: String) {
        problems.append(FieldProblem(field: field, message: message))
    }

    /// Throws a 400 problem listing every problem found.
    func finish() throws {
        guard !problems.isEmpty else { return }
        let detail =
            problems.count == 1
            ? "\(problems[0].field) \(problems[0].message)."
            : "The body has \(problems.count) problems; see errors."
        throw APIProblem.invalidRequest(detail, errors: problems)
    }
}
