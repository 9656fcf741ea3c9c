@_spi(AdapterSupport) import CardGateway
import Foundation

/// Paysafe's HMAC signature, one scheme for the webhooks Paysafe sends and the requests it asks partners to sign
/// (developer.paysafe.com/en/api-docs/embedded-wallets/request-signing/) [C]:
///
/// - the HMAC secret key "is 256 bytes long and is base64 encoded as text" (`openssl rand 256 -base64`): the key is the
///   Base64-DECODED bytes, not the text;
/// - `Signature = Base64(HMAC-SHA256(key, message))`, the message being the raw body as sent (never re-serialised: the
///   page's compact and pretty-printed `{"id":1,"name":"John Smith"}` sign differently), or the URL path when a request
///   that must be signed has no body.
///
/// The page's two test vectors, under its example key, are the tests' fixtures (`PaysafeWebhookTests`).
enum PaysafeSignature {
    /// The HMAC key from the secret's text: the Base64 text Paysafe gives, as is. The page prints it wrapped (at 64
    /// characters, and one copy with spaces where the lines break), so every whitespace character is ignored. Nil when
    /// what is left is not standard Base64 of at least one byte.
    static func key(fromBase64 text: String) -> Data? {
        var compact = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where !CharacterSet.whitespacesAndNewlines.contains(scalar) {
            compact.append(scalar)
        }
        let text = String(compact)
        guard isStandardBase64(text), let key = ByteEncoding.decodeBase64(text), !key.isEmpty else { return nil }
        return key
    }

    /// Standard Base64 alphabet, a length that is a multiple of 4, at most two `=` and only at the end.
    static func isStandardBase64(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count % 4 == 0 else { return false }
        let padding = bytes.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2, padding < bytes.count else { return false }
        return bytes.dropLast(padding).allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                true
            default: false
            }
        }
    }

    /// The key of `secret`, or `invalidConfiguration` naming the credential and saying what to paste (never the value).
    static func key(_ secret: Secret, credential: String, instance: String) throws -> Data {
        guard let key = key(fromBase64: secret.revealedValue) else {
            throw CardGatewayError(
                .invalidConfiguration,
                "providers.\(instance).credentials.\(credential) is not Base64: paste Paysafe's HMAC secret key exactly as Paysafe gives it (the Base64 text of 256 bytes, line breaks allowed)",
                provider: instance, providerKind: .paysafe
            )
        }
        return key
    }

    /// `Base64(HMAC-SHA256(key, message))`.
    static func sign(_ message: Data, key: Data) -> String {
        MessageAuthentication.hmacSHA256(key: key, message: message).base64EncodedString()
    }

    /// The 32 bytes of a `Signature` header: exactly 44 characters of standard Base64. Nil for anything else (hex is
    /// not Paysafe's encoding, and is refused).
    static func decode(_ header: String) -> Data? {
        guard header.utf8.count == 44, isStandardBase64(header), let bytes = ByteEncoding.decodeBase64(header),
            bytes.count == 32
        else {
            return nil
        }
        return bytes
    }
}
