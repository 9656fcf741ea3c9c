import CardGateway
import CardGatewayExampleKit
import CardGatewayLithic
import CardGatewaySimulation
import Foundation
import LithicSimulator

/// Lithic cards in the example programs: instance `lithic-cards`, routed by `issuer = lithic`; its simulator plays the
/// card network (Auth Stream Access).
public struct LithicExampleRoom: ExampleRoom {
    public static var factory: ProviderFactory { .lithic }
    public static let displayName = "Lithic"
    public static let instance = "lithic-cards"
    public static let issuer: String? = EmbeddedSimulators.Issuer.lithic

    public let simulator = LithicSimulator()

    public init() {}

    public func instanceConfiguration(baseURL: String) -> [String: Any] {
        [
            "kind": "lithic", "environment": "sandbox", "baseURL": baseURL,
            "description": "Lithic cards",
            "credentials": [
                "apiKey": Self.literal(LithicSimulator.Seed.apiKey),
                "webhookSecret": Self.literal(LithicSimulator.Seed.webhookSecret),
            ],
            "options": ["embedTargetOrigin": "https://cardholder.example"],
        ]
    }

    public var authorizationCredentials: [String: String] { ["asaSecret": LithicSimulator.Seed.asaSecret] }

    /// Lithic's `card.updated`.
    public func sampleWebhook(now: Date) throws -> (headers: [(String, String)], body: Data)? {
        simulator.signedCardUpdated(card: LithicSimulator.Seed.lockableCard, state: "PAUSED", previous: "OPEN", at: now)
    }

    public static var network: ExampleNetwork? {
        ExampleNetwork(
            defaultCard: "c0000000-0000-4000-8000-000000000001", currency: "USD",
            // lithic-openapi.yml, asa-response: `result` APPROVED accepts; the request's `token` may be left out.
            approval: (#"{"result":"APPROVED"}"#, [:])
        ) { json in
            // Lithic's ASA record: result (APPROVED or a decline reason), detailed_result, approved_amount, attempts.
            let result = json["result"]?.stringValue ?? "?"
            let detailed = json["detailed_result"]?.stringValue
            let approved = result == "APPROVED"
            let approvedMinor = approved ? json["approved_amount"]?.intValue.map(Int64.init) : nil
            return RecordedAuthorization(
                approved: approved, approvedMinor: approvedMinor, timedOut: detailed == "CUSTOMER_ASA_TIMEOUT",
                summary: "Lithic ASA: \(result)" + (detailed.map { ", detailed_result \($0)" } ?? "")
                    + (approvedMinor.map { ", approved_amount \($0)" } ?? ""))
        }
    }
}

extension EmbeddedSimulators.Instance {
    /// Lithic cards (kind `lithic`), routed by `issuer = lithic`.
    public static let lithic = LithicExampleRoom.instance
}

extension EmbeddedSimulators.Issuer {
    public static let lithic = "lithic"
}

extension EmbeddedSimulators {
    /// The Lithic simulator.
    public var lithic: LithicSimulator { simulator(of: LithicExampleRoom.self) }
}
