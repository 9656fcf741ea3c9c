import BridgeSimulator
import CardGateway
import CardGatewayBridge
import CardGatewayExampleKit
import CardGatewaySimulation
import Foundation

/// Bridge cards in the example programs: instance `bridge-cards`, routed by `issuer = bridge`. Its simulator makes the
/// wallet inputs every simulator accepts (``BridgeSimulator/TestInputs``).
public struct BridgeExampleRoom: ExampleRoom {
    public static var factory: ProviderFactory { .bridge }
    public static let displayName = "Bridge"
    public static let instance = "bridge-cards"
    public static let issuer: String? = EmbeddedSimulators.Issuer.bridge

    /// What PassKit hands the app for encrypted-payload provisioning (a certificate chain, leaf first, DER; a nonce
    /// and its signature) and what Google Pay's push provisioning API hands it. The certificates are well-formed DER
    /// generated for the simulators.
    public static var sampleWalletInputs: SampleWalletInputs? {
        SampleWalletInputs(
            applePay: ApplePayProvisioningInput(
                certificates: [
                    BridgeSimulator.TestInputs.leafCertificate, BridgeSimulator.TestInputs.subordinateCertificate,
                ],
                nonce: BridgeSimulator.TestInputs.nonce, nonceSignature: BridgeSimulator.TestInputs.nonceSignature
            ),
            googlePay: GooglePayProvisioningInput(
                clientDeviceID: BridgeSimulator.TestInputs.googleDeviceID,
                clientWalletAccountID: BridgeSimulator.TestInputs.googleWalletAccountID)
        )
    }

    public let simulator = BridgeSimulator()

    public init() {}

    public func instanceConfiguration(baseURL: String) -> [String: Any] {
        [
            "kind": "bridge", "environment": "sandbox", "baseURL": baseURL,
            "description": "Bridge cards",
            "credentials": [
                "apiKey": Self.literal(BridgeSimulator.Seed.apiKey),
                "webhookPublicKey": Self.literal(simulator.webhookPublicKeyPEM),
            ],
        ]
    }

    /// Bridge's card account update.
    public func sampleWebhook(now: Date) throws -> (headers: [(String, String)], body: Data)? {
        guard
            let delivery = try simulator.signedCardAccountWebhook(
                cardAccountID: BridgeSimulator.Seed.activeVisa, previousStatus: "frozen", at: now)
        else {
            throw CardGatewayError(.invalidConfiguration, "the Bridge simulator lost its seeded card account")
        }
        return delivery
    }
}

extension EmbeddedSimulators.Instance {
    /// Bridge cards (kind `bridge`), routed by `issuer = bridge`.
    public static let bridge = BridgeExampleRoom.instance
}

extension EmbeddedSimulators.Issuer {
    public static let bridge = "bridge"
}

extension EmbeddedSimulators {
    /// The Bridge simulator.
    public var bridge: BridgeSimulator { simulator(of: BridgeExampleRoom.self) }
}
