import CardGateway
import CardGatewayExampleKit
import CardGatewayMarqeta
import CardGatewaySimulation
import Foundation
import MarqetaSimulator

/// Marqeta cards (Core API) in the example programs: instance `marqeta-cards`, routed by `issuer = marqeta`; its
/// simulator plays the card network (the Gateway JIT Funding request).
public struct MarqetaExampleRoom: ExampleRoom {
    public static var factory: ProviderFactory { .marqeta }
    public static let displayName = "Marqeta"
    public static let instance = "marqeta-cards"
    public static let issuer: String? = EmbeddedSimulators.Issuer.marqeta

    public let simulator = MarqetaSimulator()

    public init() {}

    public func instanceConfiguration(baseURL: String) -> [String: Any] {
        [
            "kind": "marqeta", "environment": "sandbox", "baseURL": baseURL,
            "description": "Marqeta cards (Core API)",
            "credentials": [
                "applicationToken": Self.literal(MarqetaSimulator.Seed.applicationToken),
                "accessToken": Self.literal(MarqetaSimulator.Seed.accessToken),
                "webhookUsername": Self.literal(MarqetaSimulator.Seed.webhookUsername),
                "webhookPassword": Self.literal(MarqetaSimulator.Seed.webhookPassword),
                "webhookSecret": Self.literal(MarqetaSimulator.Seed.webhookSecret),
            ],
            "options": ["provisioningAppVersion": "cardgateway-examples 1.0", "deviceType": "MOBILE_PHONE"],
        ]
    }

    public var authorizationCredentials: [String: String] {
        [
            "authorizationUsername": MarqetaSimulator.Seed.authorizationUsername,
            "authorizationPassword": MarqetaSimulator.Seed.authorizationPassword,
        ]
    }

    /// Marqeta's card transition to SUSPENDED.
    public func sampleWebhook(now: Date) throws -> (headers: [(String, String)], body: Data)? {
        simulator.signedCardTransitionWebhook(
            card: MarqetaSimulator.Seed.lockableCard, state: "SUSPENDED", type: "state.suspended")
    }

    public static var network: ExampleNetwork? {
        ExampleNetwork(
            defaultCard: "card_sim_active_0001", currency: "USD",
            approval: (
                #"{"jit_funding":{"token":"jit-bench","method":"pgfs.authorization","user_token":"user-bench","amount":12.5}}"#,
                [:]
            )
        ) { json in
            let log = json["gateway_log"]
            let state = json["state"]?.stringValue ?? "?"
            let timedOut = log?["timed_out"]?.boolValue ?? false
            let code = log?["response"]?["code"]?.stringValue ?? "none"
            return RecordedAuthorization(
                approved: state == "PENDING",
                approvedMinor: json["approved_amount"]?.numberValue.map { Int64(($0 * 100).rounded()) },
                timedOut: timedOut,
                summary: "Marqeta: \(state), gateway_log: HTTP \(code), timed_out \(timedOut)"
                    + (json["approved_amount"]?.numberValue.map { ", approved_amount \($0)" } ?? "")
                    + (json["decline_reason"]?.stringValue.map { ", decline_reason \($0)" } ?? ""))
        }
    }
}

extension EmbeddedSimulators.Instance {
    /// Marqeta cards (kind `marqeta`), routed by `issuer = marqeta`.
    public static let marqeta = MarqetaExampleRoom.instance
}

extension EmbeddedSimulators.Issuer {
    public static let marqeta = "marqeta"
}

extension EmbeddedSimulators {
    /// The Marqeta simulator.
    public var marqeta: MarqetaSimulator { simulator(of: MarqetaExampleRoom.self) }
}
