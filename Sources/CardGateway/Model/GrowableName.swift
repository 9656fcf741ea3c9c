/// A name from a set that grows from version to version (an event's kind, a decline reason): a struct with static
/// members instead of an enum, so that a new name breaks no caller's `switch` (match what you handle, keep a
/// `default`). A conforming struct declares `public let rawValue: String`, a private `init(_:)` for its static
/// members and `allCases`; this protocol gives the rest: reading a known name, and the name as its description.
public protocol GrowableName: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible
where RawValue == String, AllCases == [Self] {}

extension GrowableName {
    /// A name this version knows; nil for any other.
    public init?(rawValue: String) {
        guard let known = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = known
    }

    public var description: String { rawValue }
}
