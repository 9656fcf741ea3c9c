import CardGateway
import Foundation

/// HS256 JSON Web Tokens as Trust Payments uses them: minted for the mobile SDK, verified when the SDK's result
/// comes back. Only HS256 is minted and only HS256 is accepted (never `none`, never another algorithm).
enum HS256JWT {
    /// The header of every token we mint.
    static let headerJSON = #"{"alg":"HS256","typ":"JWT"}"#

    /// `base64url(header).base64url(claims).base64url(HMAC-SHA256)`, without padding.
    static func sign(claimsJSON: Data, secret: Secret) -> String {
        let signingInput = ByteEncoding.base64URL(Data(headerJSON.utf8)) + "." + ByteEncoding.base64URL(claimsJSON)
        let signature = MessageAuthentication.hmacSHA256(key: secret, message: Data(signingInput.utf8))
        return signingInput + "." + ByteEncoding.base64URL(signature)
    }

    /// Why a token was refused. The messages never contain any part of the token.
    struct Refusal: Error {
        var reason: String
    }

    /// Checks the token's shape, its header (`alg` must be HS256) and its signature in constant time, and only
    /// then parses its claims. Throws ``Refusal`` for anything else.
    static func verify(_ token: String, secret: Secret) throws(Refusal) -> [String: JSONValue] {
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
        guard !parts[2].isEmpty, let signature = ByteEncoding.decodeBase64URL(String(parts[2])) else {
            throw Refusal(reason: "the token has no valid signature")
        }
        let signingInput = Data(parts[0].utf8) + Data(".".utf8) + Data(parts[1].utf8)
        guard MessageAuthentication.verifyHMACSHA256(signature: signature, key: Data(secret.revealedValue.utf8), message: signingInput) else {
            throw Refusal(reason: "the token's signature does not match the configured JWT secret")
        }
        guard let claimBytes = ByteEncoding.decodeBase64URL(String(parts[1])),
            let claims = try? JSONValue.parse(claimBytes).objectValue
        else { throw Refusal(reason: "the token's claims are not base64url-encoded JSON") }
        return claims
    }
}
