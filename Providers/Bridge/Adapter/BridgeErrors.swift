@_spi(AdapterSupport) import CardGateway
import Foundation

/// A Bridge error body, read from any of the three shapes Bridge documents:
/// - schema `Error`: `{"code", "message", "source": {"location", "key": "a,b"}}` (some examples give `key` as an
///   object of field → message);
/// - the 401 and 400 examples: `{"code", "message", "location", "name": "a,b"}` at the top level;
/// - the 500 example: `{"errors": [{"code", "message"}]}`.
struct BridgeErrorBody: Equatable {
    var code: String?
    var message: String?
    /// Where the problem is (`path`, `query`, `body`, `header`), when Bridge says.
    var location: String?
    var fields: [CardGatewayError.FieldError]

    init(
        code: String? = nil, message: String? = nil, location: String? = nil, fields: [CardGatewayError.FieldError] = []
    ) {
        self.code = code
        self.message = message
        self.location = location
        self.fields = fields
    }

    /// Reads the body; nil when it is not a JSON object.
    init?(_ data: Data) {
        guard let json = try? JSONValue.parse(data), let object = json.objectValue else { return nil }
        self.init()
        if let errors = object["errors"]?.arrayValue, !errors.isEmpty {
            let entries = errors.compactMap(\.objectValue)
            code = entries.lazy.compactMap { $0["code"]?.stringValue }.first
            let messages = entries.compactMap { $0["message"]?.stringValue }
            message = messages.isEmpty ? nil : messages.joined(separator: "; ")
            for entry in entries {
                fields += Self.fields(
                    key: entry["source"]?["key"] ?? entry["name"], message: entry["message"]?.stringValue)
            }
        }
        code = object["code"]?.stringValue ?? code
        message = object["message"]?.stringValue ?? message
        location = object["source"]?["location"]?.stringValue ?? object["location"]?.stringValue
        fields += Self.fields(key: object["source"]?["key"], message: message)
        fields += Self.fields(key: object["name"], message: message)
    }

    /// `"a,b"` → one field error per name; `{"a": "must be set"}` → one per entry with its own message.
    private static func fields(key: JSONValue?, message: String?) -> [CardGatewayError.FieldError] {
        guard let key else { return [] }
        if let names = key.stringValue {
            return names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                .map { CardGatewayError.FieldError(field: $0, message: message ?? "is missing or invalid") }
        }
        if let object = key.objectValue {
            return object.keys.sorted().map { name in
                CardGatewayError.FieldError(
                    field: name, message: object[name]?.stringValue ?? message ?? "is missing or invalid")
            }
        }
        return []
    }
}

/// The one table from Bridge's HTTP statuses to the gateway's codes. Bridge's error codes are free text
/// (`required`, `invalid`, `unexpected`, `bad_customer_request`…), so the status decides and the code is kept
/// verbatim as `providerCode`.
enum BridgeErrors {
    struct Row: Sendable, Equatable {
        var status: Int
        var code: CardGatewayError.Code
        var isRetryable: Bool
        var mayHaveReachedProvider: Bool
        /// Our words; the provider's scrubbed message is appended.
        var summary: String
    }

    static let rows: [Row] = [
        Row(
            status: 400, code: .invalidRequest, isRetryable: false, mayHaveReachedProvider: false,
            summary: "Bridge refused the request as missing or invalid parameters"),
        Row(
            status: 401, code: .authenticationFailed, isRetryable: false, mayHaveReachedProvider: false,
            summary: "Bridge refused the Api-Key (missing or invalid)"),
        Row(
            status: 403, code: .permissionDenied, isRetryable: false, mayHaveReachedProvider: false,
            summary: "Bridge does not allow this API key to do this"),
        Row(
            status: 404, code: .notFound, isRetryable: false, mayHaveReachedProvider: false,
            summary: "Bridge knows no such customer or card account"),
        Row(
            status: 409, code: .conflict, isRetryable: false, mayHaveReachedProvider: false,
            summary: "Bridge refused the request as conflicting with an earlier one"),
        Row(
            status: 422, code: .conflict, isRetryable: false, mayHaveReachedProvider: false,
            summary:
                "the Idempotency-Key was first used more than 24 hours ago, so Bridge no longer replays it; start a new attempt with a new key"
        ),
        Row(
            status: 429, code: .rateLimited, isRetryable: true, mayHaveReachedProvider: false,
            summary: "Bridge is rate limiting this API key"),
        Row(
            status: 500, code: .providerUnavailable, isRetryable: true, mayHaveReachedProvider: true,
            summary: "Bridge had an unexpected error; the request may be repeated with the same Idempotency-Key"),
    ]

    /// The row for a status: the table's own (Bridge's documented statuses, with our words), else the core's
    /// default table (``HTTPStatusTable``). The one difference from the default: 422, which Bridge documents
    /// as an Idempotency-Key first used more than 24 hours ago (see the 422 row), is a conflict.
    static func row(for status: Int) -> Row {
        if let row = rows.first(where: { $0.status == status }) { return row }
        let rule = HTTPStatusTable.rule(for: status)
        let summary: String
        switch rule.code {
        case .timeout: summary = "Bridge timed out waiting for the request"
        case .providerUnavailable: summary = "Bridge is unavailable"
        case .invalidResponse: summary = "Bridge answered with an unexpected status"
        default: summary = "Bridge refused the request"
        }
        return Row(
            status: status, code: rule.code, isRetryable: rule.isRetryable,
            mayHaveReachedProvider: rule.mayHaveReachedProvider, summary: summary)
    }

    /// The gateway error for a non-success response.
    static func error(for response: ProviderResponse, instance: String) -> CardGatewayError {
        let row = row(for: response.status)
        let body = BridgeErrorBody(response.body)
        var message = "\(row.summary) (HTTP \(response.status)"
        if let code = body?.code { message += ", \(SafeText.scrub(code, maxLength: 64))" }
        message += ")"
        if let providerMessage = body?.message, !providerMessage.isEmpty {
            message += ": \(SafeText.scrub(providerMessage))"
        }
        return CardGatewayError(
            row.code, message, provider: instance, providerKind: .bridge, providerCode: body?.code,
            httpStatus: response.status, requestID: requestID(response), isRetryable: row.isRetryable,
            mayHaveReachedProvider: row.mayHaveReachedProvider, retryAfter: response.retryAfter,
            fieldErrors: body?.fields ?? []
        )
    }

    static func requestID(_ response: ProviderResponse) -> String? {
        BridgeAPI.requestIDHeaders.lazy.compactMap { response.header($0) }.first
    }
}
