import CardGateway
import Foundation
import PostgresNIO

/// Stored-credential references in `cardgateway_credential_references`: provider instance, customer, reference,
/// masked PAN, brand, scheme, consent time, created and last used. Never a full card number (``StoredCredential``
/// has none).
public struct PostgresCredentialReferenceStore: CredentialReferenceStore {
    let database: PostgresDatabase

    static let columns =
        "reference, provider_instance, customer, masked_pan, brand, scheme, consent_at, created_at, last_used_at"
    typealias Row = (String, String?, String?, String, String?, String, Date?, Date, Date?)

    static func credential(_ row: Row) -> StoredCredential {
        StoredCredential(
            reference: row.0, provider: row.1, maskedPAN: row.3, brand: row.4,
            scheme: CardScheme(rawValue: row.5) ?? .unknown, customer: row.2,
            created: row.7, consentRecordedAt: row.6, lastUsed: row.8
        )
    }

    public func save(_ credential: StoredCredential) async throws {
        try await database.run("save a credential reference") { client in
            try await client.perform(
                """
                INSERT INTO cardgateway_credential_references
                    (reference, provider_instance, customer, masked_pan, brand, scheme, consent_at, created_at, last_used_at, saved_at)
                VALUES (\(credential.reference), \(credential.provider), \(credential.customer), \(credential.maskedPAN), \(credential.brand),
                        \(credential.scheme.rawValue), \(credential.consentRecordedAt), \(credential.created), \(credential.lastUsed), now())
                ON CONFLICT (reference) DO UPDATE SET
                    provider_instance = EXCLUDED.provider_instance, customer = EXCLUDED.customer, masked_pan = EXCLUDED.masked_pan,
                    brand = EXCLUDED.brand, scheme = EXCLUDED.scheme, consent_at = EXCLUDED.consent_at, created_at = EXCLUDED.created_at,
                    last_used_at = EXCLUDED.last_used_at, saved_at = now()
                """
            )
        }
    }

    public func credential(reference: String) async throws -> StoredCredential? {
        try await database.run("read a credential reference") { client in
            let query: PostgresQuery =
                "SELECT \(unescaped: Self.columns) FROM cardgateway_credential_references WHERE reference = \(reference)"
            var found: StoredCredential?
            for try await row in try await client.query(query).decode(Row.self) { found = Self.credential(row) }
            return found
        }
    }

    public func credentials(customer: String) async throws -> [StoredCredential] {
        try await database.run("list a customer's credential references") { client in
            let query: PostgresQuery = """
                SELECT \(unescaped: Self.columns) FROM cardgateway_credential_references WHERE customer = \(customer) ORDER BY created_at, reference
                """
            var credentials: [StoredCredential] = []
            for try await row in try await client.query(query).decode(Row.self) {
                credentials.append(Self.credential(row))
            }
            return credentials
        }
    }

    public func remove(reference: String) async throws {
        try await database.run("remove a credential reference") { client in
            try await client.perform("DELETE FROM cardgateway_credential_references WHERE reference = \(reference)")
        }
    }

    public func markUsed(reference: String, at date: Date) async throws {
        try await database.run("note a credential's use") { client in
            try await client.perform(
                "UPDATE cardgateway_credential_references SET last_used_at = \(date) WHERE reference = \(reference)")
        }
    }

    /// Removes every credential of `customer` in one statement (consent withdrawn); returns how many.
    @discardableResult
    public func removeAll(customer: String) async throws -> Int {
        try await database.run("remove a customer's credential references") { client in
            try await client.query(
                "DELETE FROM cardgateway_credential_references WHERE customer = \(customer) RETURNING 1"
            ).count()
        }
    }
}
