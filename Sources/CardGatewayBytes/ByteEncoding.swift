import Foundation

/// Strict encoders and decoders for the byte encodings providers use on the wire: the one implementation the core,
/// the adapters, the simulation kit and the simulators share (`CardGateway` and `CardGatewaySimulation` re-export it).
public enum ByteEncoding: Sendable {
    /// Lower-case hexadecimal.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes hexadecimal in either case; nil for odd length or any other character.
    public static func decodeHex(_ text: String) -> Data? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = Data(capacity: chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let high = nibble(chars[index]), let low = nibble(chars[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// Standard Base64 with padding.
    public static func base64(_ bytes: Data) -> String { bytes.base64EncodedString() }

    /// The `Authorization` value HTTP Basic sends, `Basic base64(user:password)` (RFC 7617 section 2): the one writer
    /// of it, for the core's `HeaderAuthentication` and the simulation kit's `SimulatorHTTP` alike. It holds the
    /// password: never log it.
    package static func basicAuthorization(user: String, password: String) -> String {
        "Basic " + base64(Data("\(user):\(password)".utf8))
    }

    /// Decodes standard Base64 strictly: no whitespace, no URL-safe alphabet, padding as required.
    public static func decodeBase64(_ text: String) -> Data? {
        guard text.utf8.count % 4 == 0 else { return nil }
        return Data(base64Encoded: text)
    }

    /// Decodes Base64 or Base64url, with or without padding (for fields that providers document as either).
    public static func decodeBase64Lenient(_ text: String) -> Data? {
        var normalised = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while normalised.utf8.count % 4 != 0 { normalised.append("=") }
        return Data(base64Encoded: normalised)
    }

    /// Base64url without padding, as JWTs use it.
    public static func base64URL(_ bytes: Data) -> String {
        bytes.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes Base64url without padding (as in JWTs); nil for anything else.
    public static func decodeBase64URL(_ text: String) -> Data? {
        guard !text.contains("="), !text.contains("+"), !text.contains("/") else { return nil }
        return decodeBase64Lenient(text)
    }

    /// The value of one hexadecimal digit (either case); nil for any other byte.
    public static func nibble(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return char - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
