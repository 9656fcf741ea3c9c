import Synchronization

/// A thread-safe, insertion-ordered key-value store for simulator state (payments, customers, tokens, ...).
///
/// Every operation is atomic; ``update(_:_:)`` runs its transform while holding the lock, so read-modify-write
/// sequences cannot interleave. Keep transforms short and never `await` inside them (the API does not allow it).
public final class SimulatorStore<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Storage {
        var values: [Key: Value] = [:]
        var order: [Key] = []

        init(_ seed: [(Key, Value)]) {
            for (key, value) in seed {
                if self.values.updateValue(value, forKey: key) == nil {
                    self.order.append(key)
                }
            }
        }
    }

    private let storage: Mutex<Storage>

    /// Creates a store holding `seed`, in order. A key repeated in the seed keeps its first position and its last value.
    /// - Parameter seed: Initial entries.
    public init(_ seed: [(Key, Value)] = []) {
        self.storage = Mutex(Storage(seed))
    }

    /// The value stored under `key`, or `nil`.
    /// - Parameter key: The key.
    public func get(_ key: Key) -> Value? {
        self.storage.withLock { $0.values[key] }
    }

    /// Stores `value` under `key`. A new key goes to the end of the order; an existing key keeps its position.
    /// - Parameters:
    ///   - key: The key.
    ///   - value: The value.
    public func put(_ key: Key, _ value: Value) {
        self.storage.withLock { storage in
            if storage.values.updateValue(value, forKey: key) == nil {
                storage.order.append(key)
            }
        }
    }

    /// Stores `value` under `key` only if the key is absent.
    /// - Parameters:
    ///   - key: The key.
    ///   - value: The value.
    /// - Returns: `true` if the value was stored, `false` if the key already existed (the store is unchanged).
    @discardableResult
    public func insertIfAbsent(_ key: Key, _ value: Value) -> Bool {
        self.storage.withLock { storage in
            guard storage.values[key] == nil else { return false }
            storage.values[key] = value
            storage.order.append(key)
            return true
        }
    }

    /// Atomically changes the value stored under `key`.
    /// - Parameters:
    ///   - key: The key.
    ///   - transform: Mutates the value in place. If it throws, the stored value is left unchanged and the error is rethrown.
    /// - Returns: The new value, or `nil` if `key` is absent (then `transform` is not called).
    @discardableResult
    public func update(_ key: Key, _ transform: (inout Value) throws -> Void) rethrows -> Value? {
        try self.storage.withLock { storage in
            guard var value = storage.values[key] else { return nil }
            try transform(&value)
            storage.values[key] = value
            return value
        }
    }

    /// Removes the value stored under `key`.
    /// - Parameter key: The key.
    /// - Returns: The removed value, or `nil` if the key was absent.
    @discardableResult
    public func remove(_ key: Key) -> Value? {
        self.storage.withLock { storage in
            guard let value = storage.values.removeValue(forKey: key) else { return nil }
            if let index = storage.order.firstIndex(of: key) {
                storage.order.remove(at: index)
            }
            return value
        }
    }

    /// All values, in insertion order.
    public func all() -> [Value] {
        self.storage.withLock { storage in
            storage.order.compactMap { storage.values[$0] }
        }
    }

    /// All key-value pairs, in insertion order.
    public func entries() -> [(key: Key, value: Value)] {
        self.storage.withLock { storage in
            storage.order.compactMap { key in storage.values[key].map { (key: key, value: $0) } }
        }
    }

    /// The values, in insertion order, for which `isIncluded` returns `true`.
    /// - Parameter isIncluded: The filter; runs while the store is locked, so it must not touch this store.
    public func filter(_ isIncluded: (Value) throws -> Bool) rethrows -> [Value] {
        try self.storage.withLock { storage in
            var result: [Value] = []
            for key in storage.order {
                if let value = storage.values[key], try isIncluded(value) {
                    result.append(value)
                }
            }
            return result
        }
    }

    /// Number of stored values.
    public var count: Int {
        self.storage.withLock { $0.order.count }
    }

    /// Replaces the whole content with `seed` (same rules as ``init(_:)``).
    /// - Parameter seed: The new content.
    public func reset(to seed: [(Key, Value)]) {
        self.storage.withLock { $0 = Storage(seed) }
    }
}
