import CardGateway
import Foundation
import Synchronization

/// Keeps stored-credential references in one JSON file, so that the `cardgateway` commands, each its own
/// process, share them (`credentials verify` saves, `credentials session --reuse` and `credentials charge` read).
///
/// The file holds references, masked PANs and brands only: never card data. It is written whole, atomically,
/// with owner-only permissions; a file that cannot be read or parsed is an error, never silently replaced. One
/// process at a time: a real deployment implements ``CredentialReferenceStore`` over its database.
public final class FileCredentialReferenceStore: CredentialReferenceStore {
    public let url: URL
    private let lock = Mutex(())

    public init(url: URL) {
        self.url = url
    }

    public func save(_ credential: StoredCredential) async throws {
        try lock.withLock { _ in
            var all = try read()
            all[credential.reference] = credential
            try write(all)
        }
    }

    public func credential(reference: String) async throws -> StoredCredential? {
        try lock.withLock { _ in try read()[reference] }
    }

    public func credentials(customer: String) async throws -> [StoredCredential] {
        try lock.withLock { _ in try read().values.filter { $0.customer == customer }.sorted { $0.created < $1.created }
        }
    }

    public func remove(reference: String) async throws {
        try lock.withLock { _ in
            var all = try read()
            guard all.removeValue(forKey: reference) != nil else { return }
            try write(all)
        }
    }

    private func read() throws -> [String: StoredCredential] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [:] }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw CardGatewayError(.invalidConfiguration, "the credential store \(url.path) cannot be read")
        }
        if data.isEmpty { return [:] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let list = try? decoder.decode([StoredCredential].self, from: data) else {
            throw CardGatewayError(
                .invalidConfiguration, "the credential store \(url.path) is not a list of stored credentials")
        }
        return Dictionary(list.map { ($0.reference, $0) }, uniquingKeysWith: { _, last in last })
    }

    private func write(_ all: [String: StoredCredential]) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(all.values.sorted { ($0.created, $0.reference) < ($1.created, $1.reference) })
        // Written to a temporary file created owner-only, then renamed over the store: never readable by others,
        // never half written.
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CardGatewayError(
                .invalidConfiguration, "the credential store's directory \(directory.path) cannot be created")
        }
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]),
            rename(temporary.path, url.path) == 0
        else {
            try? FileManager.default.removeItem(at: temporary)
            throw CardGatewayError(.invalidConfiguration, "the credential store \(url.path) cannot be written")
        }
    }
}
