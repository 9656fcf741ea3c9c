import Foundation

/// Hexadecimal for simulators. The simulation kit does not depend on the core library (so that a simulator
/// checks an adapter independently), so it keeps this one copy for every simulator.
public enum SimulatorBytes: Sendable {
    /// Lower-case hexadecimal.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var text = ""
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }

    /// Hexadecimal in either case; nil for an odd length or any other character.
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

    /// The value of one hexadecimal digit.
    public static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static let digits: [Character] = Array("0123456789abcdef")
}
