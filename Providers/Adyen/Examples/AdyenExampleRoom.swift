import AdyenSimulator
import CardGateway
import CardGatewayAdyen
import CardGatewayExampleKit
import CardGatewaySimulation
import Foundation

/// Adyen Issuing in the example programs: instance `adyen-issuing`, routed by `issuer = adyen-bank`; its simulator
/// plays the card network (relayed authorisations).
public struct AdyenExampleRoom: ExampleRoom {
    public static var factory: ProviderFactory { .adyen }
    public static let displayName = "Adyen"
    public static let instance = "adyen-issuing"
    public static let issuer: String? = EmbeddedSimulators.Issuer.adyen

    public let simulator = AdyenSimulator()

    public init() {}

    public func instanceConfiguration(baseURL: String) -> [String: Any] {
        [
            "kind": "adyen", "environment": "sandbox", "baseURL": baseURL,
            "description": "Adyen Issuing on the Balance Platform",
            "credentials": [
                "apiKey": Self.literal(AdyenSimulator.Credentials.apiKey),
                "hmacKey": Self.literal(AdyenSimulator.Credentials.hmacKeyHex),
            ],
        ]
    }

    public var authorizationCredentials: [String: String] {
        [
            "authorizationUsername": simulator.relayedAuthorisation.username,
            "authorizationPassword": simulator.relayedAuthorisation.password,
        ]
    }

    /// Adyen's network token update.
    public func sampleWebhook(now: Date) throws -> (headers: [(String, String)], body: Data)? {
        simulator.signedWebhook(
            type: AdyenSimulator.networkTokenUpdated, token: AdyenSimulator.Seed.activeApplePayTokenID)
    }

    public static var network: ExampleNetwork? {
        ExampleNetwork(
            defaultCard: "PI32272223222C5GXTDWH3TTN", currency: "EUR",
            noPartialApproval: "not applicable: Adyen's relayed authorisation answer takes no partial amount",
            approval: (#"{"authorisationDecision":{"status":"Authorised"}}"#, [:])
        ) { json in
            let status = json["status"]?.stringValue ?? "?"
            let decidedBy = json["decidedBy"]?.stringValue ?? "?"
            return RecordedAuthorization(
                approved: status == "Authorised", approvedMinor: nil, timedOut: decidedBy == "fallback",
                summary: "Adyen: \(status), decided by \(decidedBy)")
        }
    }
}

extension SampleInputs {
    /// What an issuer SDK hands back in one relay round (Adyen) when given `sdkInput`: opaque bytes the backend
    /// passes on untouched. Adyen's simulator accepts only an output that answers the latest `sdkInput` it handed
    /// out, and reads `googlePay` in it as a Google Pay exchange.
    public static func issuerSDKOutput(wallet: Wallet, answering sdkInput: SensitiveData) -> SensitiveData {
        let marker = wallet == .googlePay ? AdyenSimulator.Seed.googlePayMarker : "applePay"
        return SensitiveData(
            AdyenSimulator.sdkOutput(answering: sdkInput.revealedBytes, extra: Data(" sdk-output \(marker)".utf8)))
    }
}

extension EmbeddedSimulators.Instance {
    /// Adyen Issuing (kind `adyen`), routed by `issuer = adyen-bank`.
    public static let adyen = AdyenExampleRoom.instance
}

extension EmbeddedSimulators.Issuer {
    public static let adyen = "adyen-bank"
}

extension EmbeddedSimulators {
    /// The Adyen simulator.
    public var adyen: AdyenSimulator { simulator(of: AdyenExampleRoom.self) }
}
