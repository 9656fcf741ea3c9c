/// Eight bytes at a time: the bytes as the lanes of a 64-bit word (lane 0 the first byte, whatever the machine's byte
/// order), and masks with each lane's high bit set where the lane is of a class. Shared by the router's BIN reading,
/// `SafeText`'s scrub and `ResponseDecoder`'s scan; each mask is checked against a byte-at-a-time reading in
/// `ASCIILanesTests`, and each user against its byte-at-a-time path (`SafeTextEquivalenceTests`, `RouterTests`,
/// `ResponseDecoderTests`).
///
/// The class masks (`atLeast`, `equal`, `digits`) are exact for lanes below 0x80: a lane with its high bit set minus
/// a number up to 0x80 never borrows from the next lane. For a lane at 0x80 or above they may answer wrongly, so a
/// caller either checks `lanes & high == 0` first or treats a set lane only as "look at this byte".
enum ASCIILanes {
    static let high: UInt64 = 0x8080_8080_8080_8080
    static let ones: UInt64 = 0x0101_0101_0101_0101

    /// The eight bytes at `base + offset`, lane 0 the first. The caller guarantees that all eight are readable.
    @inline(__always)
    static func load(_ base: UnsafePointer<UInt8>, at offset: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
    }

    /// Lanes at or above `value` (up to 0x80).
    @inline(__always)
    static func atLeast(_ lanes: UInt64, _ value: UInt64) -> UInt64 { ((lanes | high) &- ones &* value) & high }

    /// Lanes equal to `value`: the lanes of `lanes ^ value` that are not at least 1.
    @inline(__always)
    static func equal(_ lanes: UInt64, _ value: UInt64) -> UInt64 { ~atLeast(lanes ^ (ones &* value), 1) & high }

    /// How many lanes of a mask (high bits only, as the masks here are) are set: the lanes as 0 or 1, summed into the
    /// top lane by one multiplication (at most 8, so no lane overflows). `nonzeroBitCount` costs about fifteen
    /// instructions here instead, as the package's x86-64 baseline has no `popcnt`.
    @inline(__always)
    static func count(_ mask: UInt64) -> Int { Int(truncatingIfNeeded: ((mask >> 7) &* ones) >> 56) }

    /// `0` to `9`.
    @inline(__always)
    static func digits(_ lanes: UInt64) -> UInt64 { atLeast(lanes, 0x30) & ~atLeast(lanes, 0x3A) & high }

    /// Whether some lane is `0` to `9`, exact for any bytes. `lane ^ 0x30` is below 10 exactly for a digit, and
    /// `(x - 0x0A…) & ~x & 0x80…` is non-zero exactly when some lane of x is below 10 (Bit Twiddling Hacks' "has
    /// less"): a lane at 0x80 or above never sets its own high bit there, and a borrow into a lane comes only from a
    /// lane below it that is itself below 10.
    @inline(__always)
    static func hasDigit(_ lanes: UInt64) -> Bool {
        let shifted = lanes ^ (ones &* 0x30)
        return (shifted &- ones &* 0x0A) & ~shifted & high != 0
    }

    /// Whether every lane is `0` to `9`, exact for any bytes: `lane - 0x30` borrows (sets the lane's high bit) for a
    /// byte below `0`, `lane + 0x46` carries into it for a byte above `9`, and a byte with its own high bit set is
    /// refused too. No lane of an all-digit word borrows or carries, so the lanes stay independent.
    @inline(__always)
    static func allDigits(_ lanes: UInt64) -> Bool {
        (lanes | (lanes &- ones &* 0x30) | (lanes &+ ones &* 0x46)) & high == 0
    }

    /// The lanes a JSON string's scan must look at one by one: `"`, `\`, a control character (below 0x20) and any
    /// byte at 0x80 or above (UTF-8 to validate). Every such lane is set; a lane at 0x80 or above may set others with
    /// it, which only sends the caller to the byte-by-byte path sooner.
    @inline(__always)
    static func jsonStringSpecials(_ lanes: UInt64) -> UInt64 {
        (lanes & high) | equal(lanes, 0x22) | equal(lanes, 0x5C) | (~atLeast(lanes, 0x20) & high)
    }

    /// The lanes that are not JSON whitespace (space, tab, line feed, carriage return); exact for any bytes.
    @inline(__always)
    static func jsonNonWhitespace(_ lanes: UInt64) -> UInt64 {
        let whitespace = (equal(lanes, 0x20) | equal(lanes, 0x09) | equal(lanes, 0x0A) | equal(lanes, 0x0D)) & ~(lanes & high)
        return ~whitespace & high
    }
}
