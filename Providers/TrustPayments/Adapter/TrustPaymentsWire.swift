import CardGateway
import Foundation
import JWTKit

// Wire types: the JSON Trust Payments reads and writes, mirrored field for field. Every value on this wire is
// a string (amounts in minor units included). Mapping to the normalised model lives in TrustPaymentsProvider.

/// The Webservices JSON envelope: `{"alias", "version", "request": [...], "libraryversion"}`.
struct WebservicesEnvelope<Request: Encodable>: Encodable {
    var alias: String
    var version: String
    var request: [Request]
    var libraryversion: String
}

extension WebservicesEnvelope<MerchantInitiatedAuthRequest> {
    /// The envelope as `JSONEncoder` writes it with sorted keys and unescaped slashes (TrustPaymentsProvider's
    /// encoder), written directly: the same bytes (checked against the encoder in TrustPaymentsJWTTests), without the
    /// encoder's per-value containers (about 25 allocations of a charge).
    var sortedJSON: [UInt8] {
        var json = SortedJSONWriter(capacity: 512)
        json.beginObject()
        json.member("alias", alias)
        json.key("libraryversion")
        json.string(libraryversion)
        json.key("request")
        json.beginArray()
        for element in request {
            json.beginObject()
            json.member("accounttypedescription", element.accounttypedescription)
            json.member("baseamount", element.baseamount)
            json.member("credentialsonfile", element.credentialsonfile)
            json.member("currencyiso3a", element.currencyiso3a)
            json.member("initiationreason", element.initiationreason)
            json.member("orderreference", element.orderreference)
            json.member("parenttransactionreference", element.parenttransactionreference)
            json.member("requestreference", element.requestreference)
            json.member("requesttypedescriptions", element.requesttypedescriptions)
            json.member("sitereference", element.sitereference)
            json.member("versioninfo", element.versioninfo)
            json.endObject()
        }
        json.endArray()
        json.member("version", version)
        json.endObject()
        return json.bytes
    }
}

/// JSON written directly, byte for byte as `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` writes it,
/// for the adapter's two hot request bodies (a session JWT's claims, a charge's envelope). The caller adds members in
/// sorted order; every use is tested equal to the encoder's output.
struct SortedJSONWriter {
    private(set) var bytes: [UInt8] = []
    /// True after a value or a closing bracket: the next member or element is preceded by a comma.
    private var needsComma = false

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func beginObject() { open(UInt8(ascii: "{")) }
    mutating func endObject() { close(UInt8(ascii: "}")) }
    mutating func beginArray() { open(UInt8(ascii: "[")) }
    mutating func endArray() { close(UInt8(ascii: "]")) }

    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A member with a string value; none for nil (as the encoder leaves out an absent optional).
    mutating func member(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    mutating func member(_ name: StaticString, _ value: Int64) {
        key(name)
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    mutating func member(_ name: StaticString, _ values: [String]) {
        key(name)
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    private static let hexDigits: StaticString = "0123456789abcdef"

    /// A JSON string as `JSONEncoder` writes it without escaping slashes: `"` and `\` escaped, the control characters
    /// with a short escape as such (`\b \f \n \r \t`), the others as `\u00xx`, everything else (non-ASCII too) as is.
    mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            let escape: UInt8
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): escape = byte
            case 0x08: escape = UInt8(ascii: "b")
            case 0x0C: escape = UInt8(ascii: "f")
            case 0x0A: escape = UInt8(ascii: "n")
            case 0x0D: escape = UInt8(ascii: "r")
            case 0x09: escape = UInt8(ascii: "t")
            case 0..<0x20:
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                Self.hexDigits.withUTF8Buffer { digits in
                    bytes.append(digits[Int(byte >> 4)])
                    bytes.append(digits[Int(byte & 0xF)])
                }
                continue
            default:
                bytes.append(byte)
                continue
            }
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(escape)
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        needsComma = false
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = false
    }
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

/// A Webservices answer, as far as the adapter reads it: `requestreference` and, per `response` element, the members
/// ``ResponseElement``'s accessors read. Decoded through ``ResponseDecoder``, so that only these members are
/// materialised (a charge's answer read as a whole ``JSONValue`` tree cost about 25 allocations). Each member decodes
/// to what ``ResponseElement/string(_:)`` and ``ResponseElement/errorData`` would read from the tree, and anything
/// this shape refuses (not an object, `requestreference` not a string, `response` not an array of objects) is read as
/// the tree by ``webservicesAnswer(_:)``, so refusals are unchanged.
struct WebservicesAnswer: Decodable {
    var requestreference: String?
    var response: [Element]?

    struct Element: Decodable {
        var errorcode, errormessage, requesttypedescription, transactionreference, parenttransactionreference: Text?
        var settlestatus, maskedpan, paymenttypedescription, authcode, baseamount, currencyiso3a, credentialsonfile: Text?
        var walletsource, sitereference: Text?
        var errordata: ErrorData?

        /// The element as the accessors read it: each present member under its name.
        var responseElement: ResponseElement {
            var fields: [String: JSONValue] = [:]
            fields.reserveCapacity(16)
            func add(_ name: String, _ member: Text?) { if let text = member?.value { fields[name] = .string(text) } }
            add("errorcode", errorcode)
            add("errormessage", errormessage)
            add("requesttypedescription", requesttypedescription)
            add("transactionreference", transactionreference)
            add("parenttransactionreference", parenttransactionreference)
            add("settlestatus", settlestatus)
            add("maskedpan", maskedpan)
            add("paymenttypedescription", paymenttypedescription)
            add("authcode", authcode)
            add("baseamount", baseamount)
            add("currencyiso3a", currencyiso3a)
            add("credentialsonfile", credentialsonfile)
            add("walletsource", walletsource)
            add("sitereference", sitereference)
            if let errordata { fields["errordata"] = errordata.value }
            return ResponseElement(fields)
        }
    }

    /// A member as ``ResponseElement/string(_:)`` reads it: a string as it is, a number in ``JSONValue``'s form, a
    /// boolean as `true`/`false`; nil for null, an array or an object.
    struct Text: Decodable {
        var value: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                value = nil
            } else if let text = try? container.decode(String.self) {
                value = text
            } else {
                value = ResponseElement(["member": try JSONValue(from: decoder)]).string("member")
            }
        }
    }

    /// `errordata` as the tree holds it (``ResponseElement/errorData`` reads it).
    struct ErrorData: Decodable {
        var value: JSONValue

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                value = .null
            } else if let array = try? container.decode([JSONValue].self) {
                value = .array(array)
            } else {
                value = try JSONValue(from: decoder)
            }
        }
    }
}

/// A Webservices answer's `requestreference` and `response` elements; nil when the body is not a JSON object.
/// `elements` is nil when `response` is missing or not an array of objects (as ``responseElements(_:)`` says).
func webservicesAnswer(_ body: Data) -> (requestReference: String?, elements: [ResponseElement]?)? {
    if let answer = try? ResponseDecoder().decode(WebservicesAnswer.self, from: body) {
        return (answer.requestreference, answer.response?.map(\.responseElement))
    }
    guard let object = try? JSONValue.parse(body).objectValue else { return nil }
    return (object["requestreference"]?.stringValue, responseElements(object))
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
