@_spi(AdapterSupport) import CardGateway
import Foundation

/// Fuzzes `InternetDateTime.parse`, the one RFC 3339 reader: it must never trap, and an instant it reads within
/// years 1600…9999 in UTC must read back from what `InternetDateTime.format` writes for it (within a millisecond with
/// fractions, a second without).
///
/// The first byte picks the mode. Even: the rest is the text, as libFuzzer mutates it. Odd: the rest picks a
/// timestamp's fields (year 0…9999, month 0…13, day 0…32, hour 0…25, minute and second 0…61) and its ending (`Z`,
/// `z`, `±HH:MM` with hours 0…25 and minutes 0…61, a fraction, nothing), so that most inputs have the shape the
/// reader reads and only their values vary.
public enum InternetDateTimeHarness {
    public static func run(_ data: Data) {
        guard let mode = data.first else { return }
        let rest = data.dropFirst()
        let text = mode & 1 == 0 ? String(decoding: rest, as: UTF8.self) : structured(Array(rest))
        guard let date = InternetDateTime.parse(text), (earliest...latest).contains(date) else { return }
        let withFraction = InternetDateTime.parse(InternetDateTime.format(date, fractionalSeconds: true))
        let whole = InternetDateTime.parse(InternetDateTime.format(date))
        guard let withFraction, abs(withFraction.timeIntervalSince(date)) < millisecond, let whole,
            abs(whole.timeIntervalSince(date)) < 1
        else {
            fatalError(
                "InternetDateTime read \(text.debugDescription) as \(date.timeIntervalSince1970) but not what it wrote "
                    + "for it: \(InternetDateTime.format(date, fractionalSeconds: true))")
        }
    }

    /// How far the millisecond form may be from the instant: the formatter truncates to the millisecond, and a `Date`
    /// far from 2001 carries its seconds in a `Double` whose last bits round (`8788-07-12T06:35:17.116Z` reads as
    /// …117.11599…, is written `.115`, and reads back 1.00001 ms away; the fuzzer's own find, in the corpus).
    static let millisecond = 0.0011

    /// 1600-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
    static let earliest = Date(timeIntervalSince1970: -11_676_096_000)
    static let latest = Date(timeIntervalSince1970: 253_402_300_799)

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
