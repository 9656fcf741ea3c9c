import Foundation

/// How the journal masks what it records. The rules are the table ``RequestJournal/defaultSensitiveBodyFields`` (field
/// names) and ``RequestJournal/defaultSensitiveHeaderNames`` (header names), plus one value rule, the card number
/// (``cardNumberRanges(in:)``); this type only applies them, it holds no second list.
enum JournalMasking {
    /// ``JournalEntry/maskedValue`` as UTF-8 bytes.
    static let masked = Array(JournalEntry.maskedValue.utf8)
    /// ``JournalEntry/maskedValue`` percent-encoded, for forms, queries and paths.
    static let maskedURLEncoded = "%3Cmasked%3E"

    // MARK: The value rule: card numbers

    /// The byte ranges of the card numbers written in `bytes`, first to last.
    ///
    /// A card number is 13 to 19 digits, the first not `0` (ISO/IEC 7812 gives no card issuer the major industry
    /// identifier 0), that pass the Luhn check, written as one run or in groups separated by one space or one dash
    /// (`4111111111111111`, `4111 1111 1111 1111`, `4111-1111-1111-1111`, `3782 822463 10005`). It must stand on its
    /// own: not glued to a letter or digit (a hex string, a longer number), not after a `+` (a phone number), not part
    /// of a decimal (`0.4111…`), and not part of a dashed identifier (a UUID's digit groups: `…-4123-abcd`). Groups a
    /// space apart that together are no card number are tried in shorter spans (`4111 1111 1111 1111 12` masks the
    /// first sixteen digits); groups a dash apart are taken whole.
    static func cardNumberRanges(in bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var index = 0
        while index < bytes.count {
            guard isDigit(bytes[index]) else {
                index += 1
                continue
            }
            // The chain: digit groups joined by one space or one dash.
            var groups: [Range<Int>] = []
            var separators: [UInt8] = []
            var groupStart = index
            var end = index
            while true {
                while end < bytes.count, isDigit(bytes[end]) { end += 1 }
                groups.append(groupStart..<end)
                guard end + 1 < bytes.count, bytes[end] == space || bytes[end] == dash, isDigit(bytes[end + 1]) else {
                    break
                }
                separators.append(bytes[end])
                end += 1
                groupStart = end
            }
            index = end
            ranges.append(contentsOf: cardNumbers(in: bytes, groups: groups, separators: separators))
        }
        return ranges
    }

    /// The card numbers among the spans of one chain of digit groups (see ``cardNumberRanges(in:)``).
    private static func cardNumbers(in bytes: [UInt8], groups: [Range<Int>], separators: [UInt8]) -> [Range<Int>] {
        let digitCount = groups.reduce(0) { $0 + $1.count }
        guard digitCount >= 13 else { return [] }
        let last = groups.count - 1
        let chainStart = groups[0].lowerBound
        let chainEnd = groups[last].upperBound
        // What sits before and after the chain: a letter or digit, a `+`, a decimal point or a dashed identifier mean
        // the digits are part of something else.
        let before = chainStart > 0 ? bytes[chainStart - 1] : nil
        let beforeThat = chainStart > 1 ? bytes[chainStart - 2] : nil
        let gluedBefore =
            before.map { isLetterOrDigit($0) || $0 == UInt8(ascii: "+") } == true
            || (before == UInt8(ascii: ".") && beforeThat.map(isDigit) == true)
            || (before == dash && beforeThat.map(isLetterOrDigit) == true)
        let after = chainEnd < bytes.count ? bytes[chainEnd] : nil
        let afterThat = chainEnd + 1 < bytes.count ? bytes[chainEnd + 1] : nil
        let gluedAfter =
            after.map(isLetterOrDigit) == true
            || (after == UInt8(ascii: ".") && afterThat.map(isDigit) == true)
            || (after == dash && afterThat.map(isLetterOrDigit) == true)

        var ranges: [Range<Int>] = []
        var first = 0
        while first <= last {
            // A span starts at the chain's start or after a space, and ends at the chain's end or before a space.
            guard first == 0 ? !gluedBefore : separators[first - 1] == space else {
                first += 1
                continue
            }
            var found: Int?
            for final in stride(from: last, through: first, by: -1) {
                guard final == last ? !gluedAfter : separators[final] == space else { continue }
                var digits: [UInt8] = []
                for group in groups[first...final] { digits.append(contentsOf: bytes[group]) }
                if isCardNumber(digits: digits) {
                    found = final
                    break
                }
            }
            if let final = found {
                ranges.append(groups[first].lowerBound..<groups[final].upperBound)
                first = final + 1
            } else {
                first += 1
            }
        }
        return ranges
    }

    /// Whether ASCII `digits` are a card number: 13–19 of them, the first not `0`, Luhn-valid.
    static func isCardNumber(digits: [UInt8]) -> Bool {
        guard (13...19).contains(digits.count), digits.first != UInt8(ascii: "0") else { return false }
        var sum = 0
        for (position, digit) in digits.reversed().enumerated() {
            var value = Int(digit) - 0x30
            if position % 2 == 1 {
                value *= 2
                if value > 9 { value -= 9 }
            }
            sum += value
        }
        return sum % 10 == 0
    }

    /// `bytes` with each range replaced by `replacement`, or `nil` when there are no ranges.
    private static func replacing(_ ranges: [Range<Int>], in bytes: [UInt8], with replacement: [UInt8]) -> [UInt8]? {
        guard !ranges.isEmpty else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var cursor = 0
        for range in ranges {
            output.append(contentsOf: bytes[cursor..<range.lowerBound])
            output.append(contentsOf: replacement)
            cursor = range.upperBound
        }
        output.append(contentsOf: bytes[cursor...])
        return output
    }

    /// `bytes` with every card number replaced by `replacement`.
    static func maskingCardNumbers(_ bytes: [UInt8], with replacement: [UInt8] = masked) -> [UInt8] {
        replacing(cardNumberRanges(in: bytes), in: bytes, with: replacement) ?? bytes
    }

    /// `text` with every card number replaced by `replacement` (header values, paths).
    static func maskingCardNumbers(_ text: String, with replacement: String = JournalEntry.maskedValue) -> String {
        let bytes = Array(text.utf8)
        guard let output = replacing(cardNumberRanges(in: bytes), in: bytes, with: Array(replacement.utf8)) else {
            return text
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: Bodies

    /// The body with sensitive fields and card numbers masked (see ``RequestJournal/maskedBody(_:sensitiveFields:)``).
    static func body(_ body: Data, sensitiveFields: Set<String>) -> Data {
        let bytes = [UInt8](body)
        guard let first = bytes.first(where: { !isSpace($0) }) else { return body }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            return Data(json(bytes, sensitiveFields: sensitiveFields))
        }
        if first != UInt8(ascii: "<"), bytes.contains(UInt8(ascii: "=")),
            let text = String(bytes: bytes, encoding: .utf8)
        {
            return Data(form(text, sensitiveFields: sensitiveFields).utf8)
        }
        return Data(maskingCardNumbers(bytes))
    }

    /// A form body or query (`a=1&b=2`): the value of a sensitive key becomes `%3Cmasked%3E`; a card number in any
    /// key or value becomes `%3Cmasked%3E` (that key or value is then re-encoded); everything else stays as it is.
    static func form(_ text: String, sensitiveFields: Set<String>) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return formComponent(pair) }
            let key = pair[..<equals]
            if isSensitiveFormKey(formDecoded(key), sensitiveFields: sensitiveFields) {
                return "\(formComponent(key))=\(maskedURLEncoded)"
            }
            return "\(formComponent(key))=\(formComponent(pair[pair.index(after: equals)...]))"
        }.joined(separator: "&")
    }

    /// A form key or value with its card numbers masked: as sent when it has none.
    private static func formComponent(_ raw: Substring) -> String {
        let decoded = formDecoded(raw)
        let bytes = Array(decoded.utf8)
        let ranges = cardNumberRanges(in: bytes)
        guard !ranges.isEmpty else { return String(raw) }
        // Re-encode the decoded text around the masks: unreserved characters stay, the rest is percent-encoded.
        var output = ""
        var cursor = 0
        for range in ranges {
            output += percentEncoded(bytes[cursor..<range.lowerBound]) + maskedURLEncoded
            cursor = range.upperBound
        }
        return output + percentEncoded(bytes[cursor...])
    }

    private static func formDecoded(_ raw: Substring) -> String {
        let spaced = raw.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    private static func percentEncoded(_ bytes: ArraySlice<UInt8>) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        for byte in bytes {
            if isLetterOrDigit(byte) || byte == dash || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "~")
            {
                output.append(byte)
            } else {
                output.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether a form key names a sensitive field: the whole key (`card[number]` → `cardnumber`), one of its parts
    /// (`payment_method_data[card][cvc]` → `cvc`, `certificates[0]` → `certificates`) or two adjacent parts
    /// (`source[card][number]` → `cardnumber`), normalised.
    static func isSensitiveFormKey(_ key: String, sensitiveFields: Set<String>) -> Bool {
        if sensitiveFields.contains(normalised(key)) { return true }
        let parts = key.split(whereSeparator: { $0 == "[" || $0 == "]" || $0 == "." }).map { normalised(String($0)) }
        for (offset, part) in parts.enumerated() {
            if sensitiveFields.contains(part) { return true }
            if offset > 0, sensitiveFields.contains(parts[offset - 1] + part) { return true }
        }
        return false
    }

    /// A field name lower-cased, letters and digits only.
    static func normalised(_ name: String) -> String {
        String(
            name.lowercased().unicodeScalars.filter {
                ($0.value >= 0x61 && $0.value <= 0x7a) || ($0.value >= 0x30 && $0.value <= 0x39)
            }.map(Character.init))
    }

    // MARK: JSON

    /// A JSON body, rewritten token by token (bytes outside the masked tokens are kept as they are): the value of a
    /// member with a sensitive name (a string, number, array or object; `true`, `false` and `null` stay) becomes
    /// `"<masked>"`; a card number inside any string becomes `<masked>` within that string; an integer that is a card
    /// number becomes `"<masked>"`.
    static func json(_ bytes: [UInt8], sensitiveFields: Set<String>) -> [UInt8] {
        let maskedString = [quote] + masked + [quote]
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "-") || isDigit(byte) {
                let end = numberEnd(bytes, from: index)
                let token = bytes[index..<end]
                let digits = Array(token.drop(while: { $0 == UInt8(ascii: "-") }))
                output.append(
                    contentsOf: digits.allSatisfy(isDigit) && isCardNumber(digits: digits) ? maskedString : Array(token)
                )
                index = max(end, index + 1)
                continue
            }
            guard byte == quote, let end = stringEnd(bytes, from: index) else {
                output.append(byte)
                index += 1
                continue
            }
            output.append(contentsOf: jsonString(bytes[index..<end]))
            // A string followed by a colon is a member name.
            var colon = end
            while colon < bytes.count, isSpace(bytes[colon]) { colon += 1 }
            guard colon < bytes.count, bytes[colon] == UInt8(ascii: ":"),
                sensitiveFields.contains(normalised(decodedJSONString(bytes[index..<end])))
            else {
                index = end
                continue
            }
            var valueStart = colon + 1
            while valueStart < bytes.count, isSpace(bytes[valueStart]) { valueStart += 1 }
            output.append(contentsOf: bytes[end..<valueStart])
            guard valueStart < bytes.count, let valueEnd = maskableValueEnd(bytes, from: valueStart) else {
                index = valueStart
                continue
            }
            output.append(contentsOf: maskedString)
            index = valueEnd
        }
        return output
    }

    /// A JSON string token (quotes included) with its card numbers masked, or as it is when it has none.
    private static func jsonString(_ token: ArraySlice<UInt8>) -> [UInt8] {
        let content = Array(token.dropFirst().dropLast())
        guard content.contains(UInt8(ascii: "\\")) else {
            guard let replaced = replacing(cardNumberRanges(in: content), in: content, with: masked) else {
                return Array(token)
            }
            return [quote] + replaced + [quote]
        }
        // Escapes could hide digits (`\u0034`): look at the decoded text, and write it again only when it changes.
        let decoded = Array(decodedJSONString(token).utf8)
        guard let replaced = replacing(cardNumberRanges(in: decoded), in: decoded, with: masked) else {
            return Array(token)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return (try? encoder.encode(String(decoding: replaced, as: UTF8.self))).map { Array($0) } ?? [quote] + masked
            + [quote]
    }

    /// The text of a JSON string token; its raw content when it does not decode.
    private static func decodedJSONString(_ token: ArraySlice<UInt8>) -> String {
        if !token.contains(UInt8(ascii: "\\")) {
            return String(decoding: token.dropFirst().dropLast(), as: UTF8.self)
        }
        return (try? JSONDecoder().decode(String.self, from: Data(token)))
            ?? String(decoding: token.dropFirst().dropLast(), as: UTF8.self)
    }

    /// The end (exclusive) of the value starting at `start` if it is masked under a sensitive name (a string, number,
    /// array or object); `nil` for `true`, `false`, `null` or a value that never ends.
    private static func maskableValueEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        let first = bytes[start]
        if first == quote { return stringEnd(bytes, from: start) }
        if first == UInt8(ascii: "-") || isDigit(first) { return numberEnd(bytes, from: start) }
        guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return nil }
        var depth = 0
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case quote:
                guard let end = stringEnd(bytes, from: index) else { return nil }
                index = end
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return index + 1 }
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The end (exclusive) of the JSON number starting at `start`.
    private static func numberEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var end = start
        while end < bytes.count, "0123456789+-.eE".utf8.contains(bytes[end]) { end += 1 }
        return end
    }

    /// The end (exclusive) of the JSON string starting at `start` (its opening quote); nil when it never ends.
    static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if bytes[index] == quote { return index + 1 }
            index += 1
        }
        return nil
    }

    // MARK: Bytes

    private static let quote = UInt8(ascii: "\"")
    private static let space = UInt8(ascii: " ")
    private static let dash = UInt8(ascii: "-")

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= 0x30 && byte <= 0x39
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
    }
}
