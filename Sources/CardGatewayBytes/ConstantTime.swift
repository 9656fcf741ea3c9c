import Foundation

/// Comparisons whose running time does not depend on where two byte strings differ (the only implementation: core,
/// adapters and simulators all call this one; compare strings through their `utf8` views).
public enum ConstantTime: Sendable {
    /// True when both byte strings are equal. The time taken depends only on their lengths.
    public static func equals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        var difference = UInt8(truncatingIfNeeded: lhs.count ^ rhs.count)
        if lhs.count != rhs.count { difference |= 1 }
        // Walk the longer input in full so that a length mismatch takes as long as a content mismatch.
        let left = Array(lhs)
        let right = Array(rhs)
        let length = max(left.count, right.count)
        for index in 0..<length {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }
}
