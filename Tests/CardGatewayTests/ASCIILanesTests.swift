@testable import CardGateway
import SharedTestSupport
import Testing

/// `ASCIILanes` against a byte-at-a-time reading of the same eight bytes: the router's BIN check, SafeText's scrub and
/// ResponseDecoder's scan all rest on these masks.
@Suite("Eight bytes at a time")
struct ASCIILanesTests {
    /// Bytes at the edges of every class (digits, whitespace, controls, quote, backslash, non-ASCII), drawn half the
    /// time; the other half any byte.
    static let edges: [UInt8] = [0x00, 0x01, 0x08, 0x09, 0x0A, 0x0B, 0x0D, 0x0E, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x2F, 0x30, 0x31, 0x39, 0x3A, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0x81, 0x89, 0x8A, 0x9F, 0xA0, 0xA2, 0xAF, 0xB0, 0xB9, 0xBA, 0xDC, 0xFE, 0xFF]

    static func words(count: Int, asciiOnly: Bool) -> [[UInt8]] {
        var random = SeededGenerator(state: asciiOnly ? 0xA5C11 : 0xB17E5)
        return (0..<count).map { _ in
            (0..<8).map { _ in
                let byte = Bool.random(using: &random) ? edges.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
                return asciiOnly ? byte & 0x7F : byte
            }
        }
    }

    /// The lanes set in `mask`, lowest first.
    static func lanes(_ mask: UInt64) -> [Bool] { (0..<8).map { mask & (0x80 << (8 * UInt64($0))) != 0 } }

    static func loaded(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBufferPointer { ASCIILanes.load($0.baseAddress!, at: 0) } }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    @Test("the count of a mask's lanes: every one of the 256 masks")
    func counts() {
        for bits in 0..<256 {
            let mask = (0..<8).reduce(UInt64(0)) { mask, lane in bits & (1 << lane) != 0 ? mask | 0x80 << (8 * UInt64(lane)) : mask }
            #expect(ASCIILanes.count(mask) == bits.nonzeroBitCount, "\(bits)")
        }
    }

    @Test("lane 0 is the first byte")
    func order() {
        #expect(Self.loaded([1, 2, 3, 4, 5, 6, 7, 8]) == 0x0807_0605_0403_0201)
        #expect(Self.loaded([0, 0, 0, 0, 0, 0, 0, 0x39]) >> 56 == 0x39)
    }

    @Test("any bytes: some digit, all digits, a JSON string's bytes to look at, JSON whitespace")
    func anyBytes() {
        for bytes in Self.words(count: 50_000, asciiOnly: false) + [Array("12345678".utf8), Array("1234567/".utf8), Array("1234567:".utf8)] {
            let lanes = Self.loaded(bytes)
            #expect(ASCIILanes.hasDigit(lanes) == bytes.contains(where: Self.isDigit), "\(bytes)")
            #expect(ASCIILanes.allDigits(lanes) == bytes.allSatisfy(Self.isDigit), "\(bytes)")
            #expect(Self.lanes(ASCIILanes.jsonStringSpecials(lanes)) == bytes.map { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 || $0 >= 0x80 }, "\(bytes)")
            #expect(Self.lanes(ASCIILanes.jsonNonWhitespace(lanes)) == bytes.map { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }, "\(bytes)")
        }
    }

    @Test("ASCII bytes: digits, at least, equal, and the count of a mask's lanes")
    func asciiBytes() {
        for bytes in Self.words(count: 50_000, asciiOnly: true) {
            let lanes = Self.loaded(bytes)
            #expect(Self.lanes(ASCIILanes.digits(lanes)) == bytes.map(Self.isDigit), "\(bytes)")
            #expect(ASCIILanes.count(ASCIILanes.digits(lanes)) == bytes.filter(Self.isDigit).count, "\(bytes)")
            for value: UInt8 in [0x01, 0x09, 0x20, 0x30, 0x3A, 0x40, 0x7F] {
                #expect(Self.lanes(ASCIILanes.atLeast(lanes, UInt64(value))) == bytes.map { $0 >= value }, "\(bytes) at least \(value)")
                #expect(Self.lanes(ASCIILanes.equal(lanes, UInt64(value))) == bytes.map { $0 == value }, "\(bytes) equal to \(value)")
            }
        }
    }
}
