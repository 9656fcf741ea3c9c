import CardGateway
import CardGatewayExampleKit
import CardGatewaySimulation
import CardGatewayStripe
import Foundation
import StripeSimulator

/// Stripe Issuing in the example programs: instance `us-issuing`, routed by `issuer = stripe-us`; its simulator plays
/// the card network (`issuing_authorization.request`).
public struct StripeExampleRoom: ExampleRoom {
    public static var factory: ProviderFactory { .stripe }
    public static let displayName = "Stripe"
    public static let instance = "us-issuing"
    public static let issuer: String? = EmbeddedSimulators.Issuer.stripe

    public static var demoRoutes: [RouteKey] {
        [RouteKey(issuer: EmbeddedSimulators.Issuer.stripe, operation: .provision)]
    }

    public let simulator = StripeSimulator()

    public init() {}

    public func instanceConfiguration(baseURL: String) -> [String: Any] {
        let stripeCredentials = StripeSimulator.Credentials.default
        return [
            "kind": "stripe", "environment": "sandbox", "baseURL": baseURL,
            "description": "Stripe Issuing, test mode",
            "credentials": [
                "secretKey": Self.literal(stripeCredentials.testSecretKey),
                "webhookSecret": Self.literal(stripeCredentials.webhookSecret),
            ],
        ]
    }

    public var authorizationCredentials: [String: String] {
        ["authorizationWebhookSecret": StripeSimulator.Credentials.default.authorizationWebhookSecret]
    }

    /// Stripe's `issuing_card.updated`.
    public func sampleWebhook(now: Date) throws -> (headers: [(String, String)], body: Data)? {
        guard let card = simulator.cardObject(StripeSimulator.Seed.activeCardID) else {
            throw CardGatewayError(.invalidConfiguration, "the Stripe simulator lost its seeded card")
        }
        return simulator.signedWebhook(
            type: "issuing_card.updated", object: card, previousAttributes: ["status": "inactive"], timestamp: now)
    }

    public static var network: ExampleNetwork? {
        ExampleNetwork(
            defaultCard: "ic_1SimActiveEligible000000", currency: "USD",
            // The issuing_authorization.request webhook's synchronous answer, with the API version it is written in.
            approval: (#"{"approved":true}"#, ["Stripe-Version": "2024-06-20"])
        ) { json in
            // The issuing.authorization: the last request_history entry is this request's.
            let history = json["request_history"]?.arrayValue ?? []
            let last = history.last
            let reason = last?["reason"]?.stringValue ?? "?"
            let approved = last?["approved"]?.boolValue ?? json["approved"]?.boolValue ?? false
            // The authorization's amount is what was held (request_history's is what was asked).
            let approvedMinor = approved ? json["amount"]?.intValue.map(Int64.init) : nil
            return RecordedAuthorization(
                approved: approved, approvedMinor: approvedMinor, timedOut: reason == "webhook_timeout",
                summary: "Stripe request_history: reason \(reason), approved \(approved), asked "
                    + (last?["amount"]?.intValue.map(String.init) ?? "?")
                    + (approvedMinor.map { ", held \($0)" } ?? ""))
        }
    }
}

extension SampleInputs {
    /// The API version Stripe's mobile SDK asks its ephemeral keys for (the Stripe iOS and Android SDKs send it).
    public static let stripeSDKAPIVersion = "2020-08-27"
}

extension EmbeddedSimulators.Instance {
    /// Stripe Issuing (kind `stripe`), routed by `issuer = stripe-us`.
    public static let stripe = StripeExampleRoom.instance
}

extension EmbeddedSimulators.Issuer {
    public static let stripe = "stripe-us"
}

extension EmbeddedSimulators {
    /// The Stripe simulator.
    public var stripe: StripeSimulator { simulator(of: StripeExampleRoom.self) }
}
