import CardGateway
import Foundation
import JWTKit

/// HS256 JSON Web Tokens as Trust Payments uses them, on vapor/jwt-kit: minted for the mobile SDK, verified when the
/// SDK's result comes back. Only HS256 is minted and only HS256 is accepted (never `none`, never another algorithm).
enum HS256JWT {
    /// Claims of any shape, read as JSON: the checks that decide whether a token is a result, and the messages that
    /// say why not, are the adapter's, so nothing is verified here but the signature.
    struct AnyClaims: JWTPayload {
        var values: [String: JSONValue]

        init(from decoder: any Decoder) throws { values = try [String: JSONValue](from: decoder) }
        func encode(to encoder: any Encoder) throws { try values.encode(to: encoder) }
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// Sorted keys and unescaped slashes, for the header and the claims alike: the session JWT's bytes do not
    /// depend on dictionary order (`{"alg":"HS256","typ":"JWT"}` then the claims).
    static let serializer: DefaultJWTSerializer = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return DefaultJWTSerializer(jsonEncoder: encoder)
    }()

    static func keys(_ secret: Secret) async -> JWTKeyCollection {
        await JWTKeyCollection().add(hmac: hmacKey(secret), digestAlgorithm: .sha256, serializer: serializer)
    }

    /// The secret as jwt-kit's key. jwt-kit asserts (in debug builds) that an HMAC key is at least as long as the
    /// digest, 32 bytes, but Trust Payments issues the secrets and they may be shorter. Appending zero bytes up to 32
    /// is sound: HMAC (RFC 2104) pads any key shorter than the hash's block size (64 bytes for SHA-256) with zero
    /// bytes before use, so the padded key gives exactly the same MAC as the secret itself; nothing on the wire changes.
    static func hmacKey(_ secret: Secret) -> HMACKey {
        var bytes = Array(secret.revealedValue.utf8)
        if bytes.count < 32 { bytes += [UInt8](repeating: 0, count: 32 - bytes.count) }
        return HMACKey(from: bytes)
    }

    /// `base64url(header).base64url(claims).base64url(HMAC-SHA256)`, without padding: the bytes jwt-kit mints with
    /// ``serializer`` (checked in TrustPaymentsJWTTests), written directly. The header is always
    /// `{"alg":"HS256","typ":"JWT"}`, so its base64url form is a constant; the claims are encoded once with sorted
    /// keys; the HMAC is swift-crypto's under the secret's own bytes (the zero padding ``hmacKey(_:)`` adds for
    /// jwt-kit changes no MAC, see there). No key collection (an actor) is built per token. The adapter mints
    /// sessions with ``sign(session:secret:)``; this generic form, through `JSONEncoder`, is the reference the tests
    /// hold that one to.
    static func sign(_ claims: some Encodable, secret: Secret) async throws -> String {
        signed(try claimsEncoder.encode(claims), secret: secret)
    }

    /// A session's token: ``sign(_:secret:)`` with the claims written by ``SessionClaims/sortedJSON`` rather than by
    /// `JSONEncoder` (the same bytes, checked in TrustPaymentsJWTTests; the encoder was most of a mint's cost).
    static func sign(session claims: SessionClaims, secret: Secret) -> String {
        signed(claims.sortedJSON, secret: secret)
    }

    /// `base64url(header).base64url(payload).base64url(HMAC-SHA256)` for claims already serialized.
    private static func signed(_ payload: some Collection<UInt8>, secret: Secret) -> String {
        var token: [UInt8] = []
        token.reserveCapacity(encodedHeader.count + 2 + (payload.count * 4 + 2) / 3 + 43)
        token.append(contentsOf: encodedHeader)
        token.append(UInt8(ascii: "."))
        appendBase64URL(payload, to: &token)
        let signature = MessageAuthentication.hmacSHA256(key: secret, message: Data(token))
        token.append(UInt8(ascii: "."))
        appendBase64URL(signature, to: &token)
        return String(decoding: token, as: UTF8.self)
    }

    /// base64url(`{"alg":"HS256","typ":"JWT"}`).
    static let encodedHeader = Array("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9".utf8)

    /// The claims' encoder: the one in ``serializer``'s configuration (sorted keys, unescaped slashes).
    static let claimsEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private static let base64URLAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Appends `bytes` in base64url without padding (RFC 4648 §5, as RFC 7515 uses it).
    static func appendBase64URL(_ bytes: some Collection<UInt8>, to output: inout [UInt8]) {
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                output.append(base64URLAlphabet[Int((buffer >> UInt32(bits)) & 0x3F)])
            }
        }
        if bits > 0 { output.append(base64URLAlphabet[Int((buffer << UInt32(6 - bits)) & 0x3F)]) }
    }

    /// Why a token was refused. The messages never contain any part of the token.
    struct Refusal: Error {
        var reason: String
    }

    /// Checks the token's shape and its header (`alg` must be HS256: jwt-kit verifies with the key it holds whatever
    /// the header names, so the allow-list is checked here first), then the signature (constant time, jwt-kit), and
    /// only then parses the claims. Throws ``Refusal`` for anything else.
    static func verify(_ token: String, secret: Secret) async throws(Refusal) -> [String: JSONValue] {
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw Refusal(reason: "the token is not a JWT (it needs three dot-separated parts)") }
        guard let headerBytes = ByteEncoding.decodeBase64URL(String(parts[0])),
            let header = try? JSONValue.parse(headerBytes).objectValue
        else { throw Refusal(reason: "the token's header is not base64url-encoded JSON") }
        guard case .string(let algorithm) = header["alg"] else { throw Refusal(reason: "the token's header names no algorithm") }
        guard algorithm == "HS256" else {
            throw Refusal(reason: "the token is signed with \(SafeText.scrub(algorithm, maxLength: 16)); only HS256 is accepted")
        }
        if let type = header["typ"], type.stringValue?.uppercased() != "JWT" {
            throw Refusal(reason: "the token's header has a typ other than JWT")
        }
        guard !parts[2].isEmpty, ByteEncoding.decodeBase64URL(String(parts[2])) != nil else {
            throw Refusal(reason: "the token has no valid signature")
        }
        do {
            return try await keys(secret).verify(trimmed, as: AnyClaims.self).values
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw Refusal(reason: "the token's signature does not match the configured JWT secret")
        } catch {
            throw Refusal(reason: "the token's claims are not base64url-encoded JSON")
        }
    }
}

/// The benchmark package's way in (`jwt/trustpayments-mint`, Benchmarks/Benchmarks/JWTBenchmarks): not API.
@_spi(Benchmarks) public enum TrustPaymentsJWTBenchmarking {
    /// Mints the session JWT the adapter gives the mobile SDK for a client session, with these claims.
    public static func mintSessionToken(
        issuer: String, issuedAt: Int64, accountType: String, siteReference: String, currency: String, baseAmount: String,
        requestTypes: [String], credentialsOnFile: String, parentTransactionReference: String?, orderReference: String?, secret: Secret
    ) async throws -> String {
        let claims = SessionClaims(
            iss: issuer, iat: issuedAt,
            payload: SessionPayload(
                accounttypedescription: accountType, sitereference: siteReference, currencyiso3a: currency, baseamount: baseAmount,
                requesttypedescriptions: requestTypes, credentialsonfile: credentialsOnFile,
                parenttransactionreference: parentTransactionReference, orderreference: orderReference
            )
        )
        return HS256JWT.sign(session: claims, secret: secret)
    }
}

extension SessionClaims {
    /// The claims as `JSONEncoder` writes them with ``HS256JWT/claimsEncoder``'s options (keys sorted, slashes
    /// unescaped, absent optionals left out), written directly: the same bytes for every claim value (checked against
    /// the encoder in TrustPaymentsJWTTests).
    var sortedJSON: [UInt8] {
        var json = SortedJSONWriter(capacity: 320)
        json.beginObject()
        json.member("iat", iat)
        json.member("iss", iss)
        json.key("payload")
        json.beginObject()
        json.member("accounttypedescription", payload.accounttypedescription)
        json.member("baseamount", payload.baseamount)
        json.member("credentialsonfile", payload.credentialsonfile)
        json.member("currencyiso3a", payload.currencyiso3a)
        json.member("orderreference", payload.orderreference)
        json.member("parenttransactionreference", payload.parenttransactionreference)
        json.member("requesttypedescriptions", payload.requesttypedescriptions)
        json.member("sitereference", payload.sitereference)
        json.endObject()
        json.endObject()
        return json.bytes
    }
}
