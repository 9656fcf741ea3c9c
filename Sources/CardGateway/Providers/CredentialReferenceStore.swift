import Foundation
import Synchronization

/// Where stored-credential references are kept. The in-memory store is the default; a real deployment
/// implements this over its database.
public protocol CredentialReferenceStore: Sendable {
    func save(_ credential: StoredCredential) async throws
    func credential(reference: String) async throws -> StoredCredential?
    func credentials(customer: String) async throws -> [StoredCredential]
    func remove(reference: String) async throws
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
}
