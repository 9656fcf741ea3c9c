import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A response a simulator route or an injected fault produces.
///
/// It is a plain value (status, ordered header list, body bytes), so simulators can build, store and replay responses
/// (for example in an ``IdempotencyLedger``) without touching Hummingbird types. Route handlers return it directly
/// (it conforms to Hummingbird's `ResponseGenerator`) or convert it with ``hummingbirdResponse``.
public struct SimulatedResponse: Sendable, Equatable {
    /// HTTP status code. Codes outside `100...599` are sent as 500 (see ``hummingbirdResponse``).
    public var status: Int
    /// Response headers in the order they are sent. Names are sent as given; invalid names or values are skipped.
    public var headers: [(name: String, value: String)]
    /// Response body bytes.
    public var body: Data

    /// Creates a response.
    /// - Parameters:
    ///   - status: HTTP status code.
    ///   - headers: Headers in sending order.
    ///   - body: Body bytes.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response serialised with `JSONSerialization` (sorted keys, unescaped slashes) and
    /// `content-type: application/json`.
    ///
    /// `object` must be a dictionary with `String` keys or an array, containing only dictionaries, arrays, strings,
    /// numbers, `Bool` and `NSNull` (what `JSONSerialization.isValidJSONObject` accepts). If it is not, the result is a 500 response with body
    /// `{"error":"simulator produced a value that is not valid JSON"}` so the mistake is visible to the test.
    /// - Parameters:
    ///   - status: HTTP status code.
    ///   - object: The JSON value.
    public static func json(_ status: Int, _ object: Any) -> SimulatedResponse {
        guard JSONSerialization.isValidJSONObject(object),
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else {
            return Self.invalidJSONResponse
        }
        return SimulatedResponse(status: status, headers: [("content-type", "application/json")], body: data)
    }

    /// A JSON response encoded with a `JSONEncoder` configured for sorted keys, unescaped slashes and RFC 3339 dates
    /// (``SimulatorDateTime/format(_:fraction:timeZone:)``, `2024-01-31T23:59:59Z`),
    /// with `content-type: application/json`.
    ///
    /// If encoding fails the result is a 500 response with body `{"error":"simulator produced a value that is not valid JSON"}`.
    /// - Parameters:
    ///   - status: HTTP status code.
    ///   - encodable: The value to encode.
    public static func json<T: Encodable>(_ status: Int, encodable: T) -> SimulatedResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(SimulatorDateTime.format(date))
        }
        return Self.json(status, encodable: encodable, encoder: encoder)
    }

    /// A JSON response encoded with the given encoder, with `content-type: application/json`.
    ///
    /// Use this when a provider needs a particular date or key strategy. If encoding fails the result is a 500 response
    /// with body `{"error":"simulator produced a value that is not valid JSON"}`.
    /// - Parameters:
    ///   - status: HTTP status code.
    ///   - encodable: The value to encode.
    ///   - encoder: The encoder to use.
    public static func json<T: Encodable>(_ status: Int, encodable: T, encoder: JSONEncoder) -> SimulatedResponse {
        guard let data = try? encoder.encode(encodable) else {
            return Self.invalidJSONResponse
        }
        return SimulatedResponse(status: status, headers: [("content-type", "application/json")], body: data)
    }

    /// A text response with the given content type (default `text/plain; charset=utf-8`).
    /// - Parameters:
    ///   - status: HTTP status code.
    ///   - text: Body text, sent as UTF-8.
    ///   - contentType: Value of the `content-type` header.
    public static func text(
        _ status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8"
    ) -> SimulatedResponse {
        SimulatedResponse(status: status, headers: [("content-type", contentType)], body: Data(text.utf8))
    }

    private static var invalidJSONResponse: SimulatedResponse {
        SimulatedResponse(
            status: 500,
            headers: [("content-type", "application/json")],
            body: Data(#"{"error":"simulator produced a value that is not valid JSON"}"#.utf8)
        )
    }

    /// A copy with the header set to `value`, replacing every existing header of the same name (case-insensitive).
    /// - Parameters:
    ///   - name: Header name.
    ///   - value: Header value.
    public func withHeader(_ name: String, _ value: String) -> SimulatedResponse {
        var copy = self
        let lowered = name.lowercased()
        copy.headers.removeAll { $0.name.lowercased() == lowered }
        copy.headers.append((name: name, value: value))
        return copy
    }

    /// The first value of the named header (case-insensitive), or `nil`.
    /// - Parameter name: Header name.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return self.headers.first { $0.name.lowercased() == lowered }?.value
    }

    /// The body as UTF-8 text (invalid sequences are repaired with U+FFFD).
    public var bodyText: String {
        String(decoding: self.body, as: UTF8.self)
    }

    /// The equivalent Hummingbird response, for route handlers.
    ///
    /// `content-length` is set from the body unless a header already gives it. Header names or values HTTP does not
    /// allow are skipped. A status outside `100...599` is sent as 500.
    public var hummingbirdResponse: Response {
        var fields = HTTPFields()
        for header in self.headers {
            guard let name = HTTPField.Name(header.name), HTTPField.isValidValue(header.value) else { continue }
            fields.append(HTTPField(name: name, value: header.value))
        }
        let code = (100...599).contains(self.status) ? self.status : 500
        return Response(
            status: HTTPResponse.Status(code: code),
            headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: self.body))
        )
    }

    /// Two responses are equal when status, body and the ordered header list (names compared case-insensitively) are equal.
    public static func == (lhs: SimulatedResponse, rhs: SimulatedResponse) -> Bool {
        guard lhs.status == rhs.status, lhs.body == rhs.body, lhs.headers.count == rhs.headers.count else {
            return false
        }
        return zip(lhs.headers, rhs.headers).allSatisfy { left, right in
            left.name.lowercased() == right.name.lowercased() && left.value == right.value
        }
    }
}

extension SimulatedResponse: ResponseGenerator {
    /// Converts to a Hummingbird response (see ``hummingbirdResponse``), so route handlers can return a
    /// `SimulatedResponse` directly.
    public func response(from request: Request, context: some RequestContext) -> Response {
        self.hummingbirdResponse
    }
}
