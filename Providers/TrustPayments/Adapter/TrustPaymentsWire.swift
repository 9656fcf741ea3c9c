import CardGateway
import Foundation
import JWTKit

// Wire types: the JSON Trust Payments reads and writes, mirrored field for field. Every value on this wire is
// a string (amounts in minor units included). Mapping to the normalised model lives in TrustPaymentsProvider.

/// The Webservices JSON envelope: `{"alias", "version", "request": [...], "libraryversion"}`, written with
/// ``TrustPaymentsAPI/bodyEncoder``.
struct WebservicesEnvelope<Request: Encodable>: Encodable {
    var alias: String
    var version: String
    var request: [Request]
    var libraryversion: String
}

/// A merchant-initiated AUTH against a stored credential (`credentialsonfile` 2 with `initiationreason`).
struct MerchantInitiatedAuthRequest: Encodable {
    var requesttypedescriptions: [String]
    var accounttypedescription: String
    var sitereference: String
    var parenttransactionreference: String
    var baseamount: String
    var currencyiso3a: String
    var credentialsonfile: String
    var initiationreason: String
    var requestreference: String
    var versioninfo: String
    var orderreference: String?
}

/// The claims of the JWT the mobile SDK takes: `iss`, `iat` and the gateway fields in `payload`.
struct SessionClaims: JWTPayload {
    var iss: String
    var iat: Int64
    var payload: SessionPayload

    /// Nothing to check: the gateway mints these; it never accepts one (``HS256JWT``).
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// What the shopper must not change: it lives in the signed payload.
struct SessionPayload: Codable, Sendable {
    var accounttypedescription: String
    var sitereference: String
    var currencyiso3a: String
    var baseamount: String
    var requesttypedescriptions: [String]
    var credentialsonfile: String
    var parenttransactionreference: String?
    var orderreference: String?
}

/// One element of a `response` array (Webservices body or response-JWT payload). Read through ``JSONValue`` so
/// that unknown fields, or a number where a string was expected, never break decoding.
struct ResponseElement: Sendable {
    var fields: [String: JSONValue]

    init(_ fields: [String: JSONValue]) { self.fields = fields }

    /// A field as text: strings verbatim, numbers in their shortest form; nil when absent or null.
    func string(_ name: String) -> String? {
        switch fields[name] {
        case .string(let value): return value
        case .number: return fields[name].map(\.description)
        case .bool(let value): return String(value)
        default: return nil
        }
    }

    var errorCode: String? { string("errorcode") }
    var errorMessage: String? { string("errormessage") }
    var requestType: String? { string("requesttypedescription") }
    var transactionReference: String? { string("transactionreference").flatMap { $0.isEmpty ? nil : $0 } }
    var parentTransactionReference: String? { string("parenttransactionreference") }
    var settleStatus: String? { string("settlestatus") }
    var maskedPAN: String? { string("maskedpan").flatMap { $0.isEmpty ? nil : $0 } }
    var paymentType: String? { string("paymenttypedescription").flatMap { $0.isEmpty ? nil : $0 } }
    var authCode: String? { string("authcode") }
    var baseAmount: String? { string("baseamount") }
    var currency: String? { string("currencyiso3a") }
    var credentialsOnFile: String? { string("credentialsonfile") }

    /// `errordata`: the names of the fields in error (for 30000), as strings.
    var errorData: [String] {
        switch fields["errordata"] {
        case .array(let values):
            return values.compactMap { value in
                if case .string(let text) = value { return text }
                if case .null = value { return nil }
                return value.description
            }
        case .string(let text): return [text]
        default: return []
        }
    }
}

/// A Webservices answer (`{"requestreference", "version", "response": [...]}`), decoded with `JSONDecoder`; decoding
/// fails only when the body is not a JSON object.
struct WebservicesAnswer: Decodable {
    /// Nil when absent or not a string: the adapter then refuses the answer as possibly another request's.
    var requestreference: String?
    /// Nil when absent or not an array of objects.
    var response: [ResponseElement]?

    enum CodingKeys: String, CodingKey {
        case requestreference, response
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        requestreference = try? container.decodeIfPresent(String.self, forKey: .requestreference)
        response = try? container.decodeIfPresent([ResponseElement].self, forKey: .response)
    }
}

extension ResponseElement: Decodable {
    /// Every member of the object, under its name: a string as it is (every value on this wire is one), anything
    /// else as the ``JSONValue`` it is, so an unknown field or a number where a string was expected never fails.
    /// Fails when the element is not an object.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldName.self)
        var fields: [String: JSONValue] = [:]
        for key in container.allKeys {
            if let text = try? container.decode(String.self, forKey: key) {
                fields[key.stringValue] = .string(text)
            } else {
                fields[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
            }
        }
        self.fields = fields
    }

    /// Any member name.
    struct FieldName: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// Reads a `response` array out of a JSON object; nil when it is missing or not an array of objects.
func responseElements(_ container: [String: JSONValue]) -> [ResponseElement]? {
    guard let array = container["response"]?.arrayValue else { return nil }
    var elements: [ResponseElement] = []
    for value in array {
        guard let object = value.objectValue else { return nil }
        elements.append(ResponseElement(object))
    }
    return elements
}
