import CardGatewaySimulation
import Foundation
import JWTKit

/// The simulator's JSON Web Tokens, on vapor/jwt-kit (the library the adapter uses, but none of the adapter's code):
/// HS256 signing, and verification of the algorithms Trust Payments accepts on request JWTs (HS256, HS384, HS512).
///
/// jwt-kit verifies with the key it holds whatever algorithm a header names, so the header is checked against that
/// allow-list first (`none` and anything else are refused), then jwt-kit checks the signature in constant time, and
/// only then are the claims read, with `JSONSerialization` as the rest of the simulator reads JSON.
enum TrustPaymentsSimulatorJWT {
    /// A JSON object of any shape as claims: the simulator's own checks decide what a token may carry.
    struct Claims: JWTPayload {
        var object: [String: SimulatorJSON]

        init(object: [String: SimulatorJSON]) { self.object = object }
        init(from decoder: any Decoder) throws { object = try [String: SimulatorJSON](from: decoder) }
        func encode(to encoder: any Encoder) throws { try object.encode(to: encoder) }
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// jwt-kit's signing with the claims written as the simulator writes all its JSON (`JSONSerialization`, sorted
    /// keys, unescaped slashes), so a token is byte for byte what the simulator minted before it used jwt-kit. The
    /// header, `{"alg":"HS256","typ":"JWT"}`, is jwt-kit's, with sorted keys.
    struct Serializer: JWTSerializer {
        let jsonEncoder: any JWTJSONEncoder = {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return encoder
        }()

        func serialize(_ payload: some JWTPayload, header: JWTHeader) throws -> Data {
            let object = try JSONSerialization.jsonObject(with: jsonEncoder.encode(payload))
            let json = try JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            return Data(ByteEncoding.base64URL(json).utf8)
        }
    }

    /// jwt-kit's digest for each algorithm request JWTs may use, and the key length it expects.
    static func digest(_ algorithm: String) -> (digest: DigestAlgorithm, keyLength: Int)? {
        switch algorithm {
        case "HS256": (.sha256, 32)
        case "HS384": (.sha384, 48)
        case "HS512": (.sha512, 64)
        default: nil
        }
    }

    /// The secret as a jwt-kit key collection. jwt-kit asserts (in debug builds) that an HMAC key is at least as long
    /// as the digest, and the simulator's secrets may be shorter: zero bytes are appended up to that length, which
    /// changes no MAC, since HMAC (RFC 2104) pads a key shorter than the hash's block size (64 bytes for SHA-256,
    /// 128 for SHA-384 and SHA-512) with zero bytes anyway.
    static func keys(secret: String, digest: DigestAlgorithm, keyLength: Int) async -> JWTKeyCollection {
        var bytes = Array(secret.utf8)
        if bytes.count < keyLength { bytes += [UInt8](repeating: 0, count: keyLength - bytes.count) }
        return await JWTKeyCollection().add(
            hmac: HMACKey(from: bytes), digestAlgorithm: digest, serializer: Serializer())
    }

    /// `{"alg":"HS256","typ":"JWT"}` + claims, signed with `secret`. Nil when `claims` is not JSON.
    static func signHS256(claims: [String: Any], secret: String) async -> String? {
        guard JSONSerialization.isValidJSONObject(claims), case .object(let object)? = SimulatorJSON(claims) else {
            return nil
        }
        return try? await keys(secret: secret, digest: .sha256, keyLength: 32).sign(Claims(object: object))
    }

    /// The claims of `token` when its signature verifies with `secret`; nil otherwise (including `alg: none`).
    static func verify(_ token: String, secret: String) async -> [String: Any]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = ByteEncoding.decodeBase64URL(String(parts[0])),
            let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
            let algorithm = (header["alg"] as? String).flatMap(digest),
            ByteEncoding.decodeBase64URL(String(parts[2])) != nil
        else { return nil }
        let keys = await keys(secret: secret, digest: algorithm.digest, keyLength: algorithm.keyLength)
        guard (try? await keys.verify(token, as: Claims.self)) != nil else { return nil }
        return claims(token)
    }

    /// The claims of `token` without any check.
    static func claims(_ token: String) -> [String: Any]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = ByteEncoding.decodeBase64URL(String(parts[1])) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }
}

/// A JSON value, so that the simulator's `JSONSerialization`-shaped claims can be handed to jwt-kit as `Codable`.
indirect enum SimulatorJSON: Codable, Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case number(Double)
    case bool(Bool)
    case null
    case array([SimulatorJSON])
    case object([String: SimulatorJSON])

    /// A value `JSONSerialization` reads or writes; nil for anything else.
    init?(_ value: Any) {
        switch value {
        case let text as String: self = .string(text)
        case is NSNull: self = .null
        case let bool as Bool where type(of: value) == Bool.self: self = .bool(bool)
        case let number as NSNumber:
            // JSONSerialization reads `true` and `false` as NSNumbers of type `c`, integers as `q` and fractions as `d`.
            switch String(cString: number.objCType) {
            case "c": self = .bool(number.boolValue)
            case "d", "f": self = .number(number.doubleValue)
            default: self = .integer(number.int64Value)
            }
        case let array as [Any]:
            var items: [SimulatorJSON] = []
            for item in array {
                guard let converted = SimulatorJSON(item) else { return nil }
                items.append(converted)
            }
            self = .array(items)
        case let object as [String: Any]:
            var members: [String: SimulatorJSON] = [:]
            for (key, item) in object {
                guard let converted = SimulatorJSON(item) else { return nil }
                members[key] = converted
            }
            self = .object(members)
        default: return nil
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let array = try? container.decode([SimulatorJSON].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: SimulatorJSON].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .integer(let integer): try container.encode(integer)
        case .number(let number): try container.encode(number)
        case .bool(let bool): try container.encode(bool)
        case .null: try container.encodeNil()
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        }
    }
}
