import Synchronization

/// Deterministic identifiers for objects a simulator creates during a run, so that runs are reproducible.
///
/// The generator is a SplitMix64 sequence started from `seed`: the same seed and the same sequence of calls always
/// produce the same identifiers, on every platform. ``reset()`` starts the sequence again (call it from
/// ``ProviderSimulator/reset()``). Safe to call from any task; concurrent callers each get distinct values, but which
/// caller gets which value then depends on scheduling.
public final class DeterministicIDs: Sendable {
    private static let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)

    private let seed: UInt64
    private let state: Mutex<UInt64>

    /// Creates a generator.
    /// - Parameter seed: Starting point of the sequence (default 1). Different seeds give different sequences.
    public init(seed: UInt64 = 1) {
        self.seed = seed
        self.state = Mutex(seed)
    }

    /// Returns `prefix` followed by `length` characters from `[0-9a-z]`, e.g. `next(prefix: "pi_")` → `"pi_3k9x..."`.
    /// - Parameters:
    ///   - prefix: Text placed before the random part (may be empty).
    ///   - length: Number of random characters (default 24; negative values are treated as 0).
    public func next(prefix: String, length: Int = 24) -> String {
        let count = max(0, length)
        let bytes: [UInt8] = self.state.withLock { state in
            var result: [UInt8] = []
            result.reserveCapacity(count)
            for _ in 0..<count {
                let value = Self.splitMix(&state)
                result.append(Self.alphabet[Int(value % UInt64(Self.alphabet.count))])
            }
            return result
        }
        return prefix + String(decoding: bytes, as: UTF8.self)
    }

    /// Returns a deterministic UUID string in RFC 4122 form (version 4 and variant bits set, lower-case hex), e.g.
    /// `"1f3a9c2e-7b41-4d0a-9e8f-0c5b6a7d8e9f"`.
    public func uuid() -> String {
        let (high, low) = self.state.withLock { state in
            (Self.splitMix(&state), Self.splitMix(&state))
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: high >> UInt64(shift)))
        }
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: low >> UInt64(shift)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hexDigits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 {
                text.append(UInt8(ascii: "-"))
            }
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Returns a deterministic integer in `range` (for amounts, card suffixes, ...).
    /// - Parameter range: The allowed values; must not be empty.
    public func nextInt(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(bitPattern: Int64(range.upperBound &- range.lowerBound)) &+ 1
        let value = self.state.withLock { Self.splitMix(&$0) }
        if span == 0 {
            return Int(truncatingIfNeeded: value)
        }
        return range.lowerBound &+ Int(truncatingIfNeeded: value % span)
    }

    /// Starts the sequence again from the seed.
    public func reset() {
        self.state.withLock { $0 = self.seed }
    }

    private static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
