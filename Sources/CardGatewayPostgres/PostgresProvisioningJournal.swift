import CardGateway
import Foundation
import PostgresNIO

/// The provisioning journal in `cardgateway_provisioning_journal`, one row per operation. Its columns can hold no
/// card data: ids, names, codes, a latency and request ids.
public struct PostgresProvisioningJournal: ProvisioningJournal {
    let database: PostgresDatabase

    typealias Row = (Date, String, String, String?, String?, String?, String, Int, String?, String?)

    public func append(_ entry: ProvisioningJournalEntry) async throws {
        try await database.run("append to the provisioning journal") { client in
            try await client.perform(
                """
                INSERT INTO cardgateway_provisioning_journal
                    (at, operation, provider_instance, card, wallet, flow, outcome, latency_ms, request_id, provider_request_id)
                VALUES (\(entry.at), \(entry.operation.rawValue), \(entry.instance), \(entry.card), \(entry.wallet?.rawValue), \(entry.flow?.rawValue),
                        \(entry.outcome), \(entry.latencyMilliseconds), \(entry.requestID), \(entry.providerRequestID))
                """
            )
        }
    }

    public func entries(card: String?, limit: Int) async throws -> [ProvisioningJournalEntry] {
        let limit = max(0, limit)
        let card = card.map(ProvisioningJournalEntry.identifier)
        return try await database.run("read the provisioning journal") { client in
            let columns =
                "at, operation, provider_instance, card, wallet, flow, outcome, latency_ms, request_id, provider_request_id"
            let query: PostgresQuery
            if let card {
                query =
                    "SELECT \(unescaped: columns) FROM cardgateway_provisioning_journal WHERE card = \(card) ORDER BY id DESC LIMIT \(limit)"
            } else {
                query =
                    "SELECT \(unescaped: columns) FROM cardgateway_provisioning_journal ORDER BY id DESC LIMIT \(limit)"
            }
            var entries: [ProvisioningJournalEntry] = []
            for try await row in try await client.query(query).decode(Row.self) {
                guard let operation = GatewayOperation(rawValue: row.1) else { continue }
                entries.append(
                    ProvisioningJournalEntry(
                        at: row.0, operation: operation, instance: row.2, card: row.3,
                        wallet: row.4.flatMap(Wallet.init(rawValue:)),
                        flow: row.5.flatMap(ProvisioningFlow.init(rawValue:)), outcome: row.6,
                        latencyMilliseconds: row.7, requestID: row.8,
                        providerRequestID: row.9
                    )
                )
            }
            return entries
        }
    }
}
