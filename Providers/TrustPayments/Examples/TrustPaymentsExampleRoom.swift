import CardGateway
import CardGatewayExampleKit
import CardGatewaySimulation
import CardGatewayTrustPayments
import Foundation
import TrustPaymentsSimulator

/// Trust Payments credentials on file in the example programs: instance `cards-on-file`, routed by operation
/// (client sessions, result verification, charges) whatever the key.
public struct TrustPaymentsExampleRoom: ExampleRoom {
    public static var factory: ProviderFactory { .trustpayments }
    public static let displayName = "Trust Payments"
    public static let instance = "cards-on-file"
    public static let issuer: String? = nil

    public static var routes: [[String: Any]] {
        [["when": ["operation": ["clientSession", "verifyResult", "charge"]], "use": instance]]
    }

    /// A charge reaches Trust Payments even with another room's issuer in the key (Paysafe's, as the demo has shown
    /// since its first version): the route by operation comes first.
    public static var demoRoutes: [RouteKey] {
        [RouteKey(issuer: "paysafe-eu", operation: .charge)]
    }

    public let simulator = TrustPaymentsSimulator()

    public init() {}

    public func instanceConfiguration(baseURL: String) -> [String: Any] {
        typealias TP = TrustPaymentsSimulator.Seed
        return [
            "kind": "trustpayments", "environment": "sandbox", "baseURL": baseURL,
            "description": "Trust Payments credentials on file",
            "credentials": [
                "webservicesUsername": Self.literal(TP.webservicesUsername),
                "webservicesPassword": Self.literal(TP.webservicesPassword),
                "jwtUsername": Self.literal(TP.jwtUsername), "jwtSecret": Self.literal(TP.jwtSecret),
            ],
            "options": ["siteReference": TP.siteReference],
        ]
    }
}

extension EmbeddedSimulators.Instance {
    /// Trust Payments credentials on file (kind `trustpayments`), routed by operation.
    public static let trustPayments = TrustPaymentsExampleRoom.instance
}

extension EmbeddedSimulators {
    /// The Trust Payments simulator.
    public var trustPayments: TrustPaymentsSimulator { simulator(of: TrustPaymentsExampleRoom.self) }
}
