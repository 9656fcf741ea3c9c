import CardGatewaySimulation
import Crypto
import Foundation

/// The simulator's own JSON Web Token code (it shares nothing with the adapter): HS256 signing, and verification of
/// the algorithms Trust Payments accepts on request JWTs (HS256, HS384, HS512), with constant-time comparison.
enum SimulatorJWT {
    /// `{"alg":"HS256","typ":"JWT"}` + claims, signed with `secret`. Nil when `claims` is not JSON.
    static func signHS256(claims: [String: Any], secret: String) -> String? {
        guard JSONSerialization.isValidJSONObject(claims),
            let body = try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        let input = ByteEncoding.base64URL(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "." + ByteEncoding.base64URL(body)
        let key = SymmetricKey(data: Data(secret.utf8))
        let mac = Data(HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: key))
        return input + "." + ByteEncoding.base64URL(mac)
    }

    /// The claims of `token` when its signature verifies with `secret`; nil otherwise (including `alg: none`).
    static func verify(_ token: String, secret: String) -> [String: Any]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = ByteEncoding.decodeBase64URL(String(parts[0])),
            let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
            let algorithm = header["alg"] as? String, let signature = ByteEncoding.decodeBase64URL(String(parts[2]))
        else { return nil }
        let input = Data((parts[0] + "." + parts[1]).utf8)
        let key = SymmetricKey(data: Data(secret.utf8))
        let valid: Bool
        switch algorithm {
        case "HS256": valid = HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: input, using: key)
        case "HS384": valid = HMAC<SHA384>.isValidAuthenticationCode(signature, authenticating: input, using: key)
        case "HS512": valid = HMAC<SHA512>.isValidAuthenticationCode(signature, authenticating: input, using: key)
        default: valid = false
        }
        guard valid else { return nil }
        return claims(token)
    }

    /// The claims of `token` without any check.
    static func claims(_ token: String) -> [String: Any]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = ByteEncoding.decodeBase64URL(String(parts[1])) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }
}
