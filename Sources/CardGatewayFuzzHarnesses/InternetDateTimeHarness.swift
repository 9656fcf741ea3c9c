@_spi(AdapterSupport) import CardGateway
import Foundation

/// Fuzzes `InternetDateTime.parseWholeSeconds`, the one fast path the core keeps (issue 37), differentially against
/// the plain path it stands in for: wherever it answers, Foundation's `ISO8601DateFormatter` and
/// `Date.ISO8601FormatStyle` must give the same instant. Where it answers nil the adapters ask the formatter, so a nil
/// cannot disagree.
///
/// The first byte picks the mode. Even: the rest is the text, as libFuzzer mutates it. Odd: the rest picks a
/// timestamp's fields (year 0…9999, month 0…13, day 0…32, hour 0…25, minute and second 0…61) and its ending (`Z`,
/// `z`, `±HH:MM` with hours 0…25 and minutes 0…61, a fraction, nothing), so that most inputs have the exact shape the
/// fast path reads and only their values vary.
public enum InternetDateTimeHarness {
    public static func run(_ data: Data) {
        guard let mode = data.first else { return }
        let rest = data.dropFirst()
        let text = mode & 1 == 0 ? String(decoding: rest, as: UTF8.self) : structured(Array(rest))
        guard let fast = InternetDateTime.parseWholeSeconds(text) else { return }
        let formatter = ISO8601DateFormatter().date(from: text)
        let formatStyle = try? Date(text, strategy: Date.ISO8601FormatStyle())
        guard fast == formatter, fast == formatStyle else {
            fatalError(
                "InternetDateTime read \(text.debugDescription) as \(fast.timeIntervalSince1970); ISO8601DateFormatter: "
                    + "\(formatter.map { "\($0.timeIntervalSince1970)" } ?? "nil"), ISO8601FormatStyle: "
                    + "\(formatStyle.map { "\($0.timeIntervalSince1970)" } ?? "nil")")
        }
    }

    /// A timestamp built from `bytes` (missing bytes read as zero).
    static func structured(_ bytes: [UInt8]) -> String {
        func byte(_ index: Int) -> Int { index < bytes.count ? Int(bytes[index]) : 0 }
        func digits(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let year = (byte(0) << 8 | byte(1)) % 10_000
        let date =
            "\(digits(year, 4))-\(digits(byte(2) % 14, 2))-\(digits(byte(3) % 33, 2))"
            + "T\(digits(byte(4) % 26, 2)):\(digits(byte(5) % 62, 2)):\(digits(byte(6) % 62, 2))"
        let offset = "\(digits(byte(8) % 26, 2)):\(digits(byte(9) % 62, 2))"
        switch byte(7) % 6 {
        case 0: return date + "Z"
        case 1: return date + "+" + offset
        case 2: return date + "-" + offset
        case 3: return date + "z"
        case 4: return date + ".\(digits(byte(8) % 1_000, 3))Z"
        default: return date
        }
    }
}
