import Foundation
import Synchronization

/// Where stored-credential references are kept. The in-memory store is the default; a real deployment
/// implements this over its database.
public protocol CredentialReferenceStore: Sendable {
    func save(_ credential: StoredCredential) async throws
    func credential(reference: String) async throws -> StoredCredential?
    func credentials(customer: String) async throws -> [StoredCredential]
    func remove(reference: String) async throws
    /// Notes that the credential was charged at `date` (its `lastUsed`). Does nothing for an unknown reference.
    func markUsed(reference: String, at date: Date) async throws
}

extension CredentialReferenceStore {
    /// For stores written before `lastUsed` existed: keeps nothing.
    public func markUsed(reference: String, at date: Date) async throws {}

    /// Removes every credential of `customer` (consent withdrawn for all their cards); returns how many.
    @discardableResult
    public func removeAll(customer: String) async throws -> Int {
        let credentials = try await credentials(customer: customer)
        for credential in credentials { try await remove(reference: credential.reference) }
        return credentials.count
    }
}

/// Keeps references in memory, for tests, examples and single-process use.
public final class InMemoryCredentialReferenceStore: CredentialReferenceStore {
    private let storage = Mutex<[String: StoredCredential]>([:])

    public init() {}

    /// A store that already holds `credentials` (references imported from elsewhere, test fixtures).
    public init(_ credentials: [StoredCredential]) {
        storage.withLock { all in
            for credential in credentials { all[credential.reference] = credential }
        }
    }

    public func save(_ credential: StoredCredential) async throws {
        storage.withLock { $0[credential.reference] = credential }
    }

    public func credential(reference: String) async throws -> StoredCredential? {
        storage.withLock { $0[reference] }
    }

    public func credentials(customer: String) async throws -> [StoredCredential] {
        storage.withLock { all in all.values.filter { $0.customer == customer }.sorted { $0.created < $1.created } }
    }

    public func remove(reference: String) async throws {
        _ = storage.withLock { $0.removeValue(forKey: reference) }
    }

    public func markUsed(reference: String, at date: Date) async throws {
        storage.withLock { all in all[reference]?.lastUsed = date }
    }
}
