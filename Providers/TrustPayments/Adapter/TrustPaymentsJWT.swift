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
    /// depend on dictionary order, and its header is `{"alg":"HS256","typ":"JWT"}` as Trust Payments' JWT page shows
    /// it (base64url `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9`).
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

    /// jwt-kit's HS256 token for `claims` under `secret`: header `{"alg":"HS256","typ":"JWT"}`, the claims with
    /// sorted keys (an absent optional claim is left out), base64url without padding.
    static func sign(_ claims: some JWTPayload, secret: Secret) async throws -> String {
        try await keys(secret).sign(claims)
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
        guard parts.count == 3 else {
            throw Refusal(reason: "the token is not a JWT (it needs three dot-separated parts)")
        }
        guard let headerBytes = ByteEncoding.decodeBase64URL(String(parts[0])),
            let header = try? JSONValue.parse(headerBytes).objectValue
        else { throw Refusal(reason: "the token's header is not base64url-encoded JSON") }
        guard case .string(let algorithm) = header["alg"] else {
            throw Refusal(reason: "the token's header names no algorithm")
        }
        guard algorithm == "HS256" else {
            throw Refusal(
                reason: "the token is signed with \(SafeText.scrub(algorithm, maxLength: 16)); only HS256 is accepted")
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
