import CardGateway
import CardGatewayExampleKit
import CardGatewayPaysafe
import CardGatewaySimulation
import Foundation
import PaysafeSimulator

/// The Paysafe card service in the example programs: instance `eu-cards`, routed by `issuer = paysafe-eu` or by a
/// Paysafe program.
public struct PaysafeExampleRoom: ExampleRoom {
    public static var factory: ProviderFactory { .paysafe }
    public static let displayName = "Paysafe"
    public static let instance = "eu-cards"
    public static let issuer: String? = EmbeddedSimulators.Issuer.paysafe

    public static var routes: [[String: Any]] {
        typealias PaysafeSeed = PaysafeSimulator.Seed
        return [
            ["when": ["issuer": EmbeddedSimulators.Issuer.paysafe], "use": instance],
            [
                "when": [
                    "program": [
                        PaysafeSeed.virtualMCProgram, PaysafeSeed.physicalMCProgram, PaysafeSeed.physicalVisaProgram,
                    ]
                ],
                "use": instance,
            ],
        ]
    }

    public static var demoRoutes: [RouteKey] {
        [RouteKey(program: PaysafeSimulator.Seed.virtualMCProgram, operation: .createCard)]
    }

    public let simulator = PaysafeSimulator()

    public init() {}

    public func instanceConfiguration(baseURL: String) -> [String: Any] {
        let paysafeCredentials = PaysafeSimulator.Credentials.default
        return [
            "kind": "paysafe", "environment": "sandbox", "baseURL": baseURL,
            "description": "Paysafe card service: EEA programmes",
            "credentials": [
                "clientID": Self.literal(paysafeCredentials.clientID),
                "clientSecret": Self.literal(paysafeCredentials.clientSecret),
                "webhookSecret": Self.literal(paysafeCredentials.webhookSecret),
            ],
            "options": ["brand": paysafeCredentials.brand, "region": "ROW"],
        ]
    }

    /// Paysafe's card status change.
    public func sampleWebhook(now: Date) throws -> (headers: [(String, String)], body: Data)? {
        simulator.signedWebhook(
            cardID: PaysafeSimulator.Seed.activeVisaCardID, oldStatus: "ACTIVE", newStatus: "LOCKED",
            eventID: "evt-demo-1")
    }
}

extension EmbeddedSimulators.Instance {
    /// Paysafe card service (kind `paysafe`), routed by `issuer = paysafe-eu` or by a Paysafe program.
    public static let paysafe = PaysafeExampleRoom.instance
}

extension EmbeddedSimulators.Issuer {
    public static let paysafe = "paysafe-eu"
}

extension EmbeddedSimulators {
    /// The Paysafe simulator.
    public var paysafe: PaysafeSimulator { simulator(of: PaysafeExampleRoom.self) }
}
