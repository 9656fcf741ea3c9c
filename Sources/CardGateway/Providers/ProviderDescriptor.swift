import Foundation

/// The name of a provider kind, as it appears in configuration (`"kind": "stripe"`). Each adapter module adds
/// its own constant (`ProviderKind.stripe`); the core names no provider.
public struct ProviderKind: Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let name: String
    public init(_ name: String) { self.name = name }
    public init(stringLiteral value: String) { self.name = value }
    public var description: String { name }

    public init(from decoder: any Decoder) throws { self.name = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

/// What an adapter can do. Each capability is its own protocol refining ``CardProvider``.
public enum Capability: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// ``CardLookup``: `card(_:)`. Every issuer adapter has it.
    case cardLookup
    /// ``CardService``: list, create, activate, update, programs (Paysafe-style).
    case cardService
    /// ``WalletProvisioning``: offer, provision, confirm.
    case walletProvisioning
    /// ``StoredCredentials``: client session, result verification, charge.
    case storedCredentials
    /// ``WebhookVerifying``: signature checks into normalised events.
    case webhooks

    public var description: String { rawValue }
}

/// A mobile wallet a card can be added to.
public enum Wallet: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case applePay
    case googlePay
    case samsungPay

    public var description: String { rawValue }

    /// Accepts the canonical name (`applePay`) and the kebab and snake spellings (`apple-pay`, `apple_pay`).
    public init?(parsing text: String) {
        let folded = text.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "")
        guard let wallet = Wallet.allCases.first(where: { $0.rawValue.lowercased() == folded }) else { return nil }
        self = wallet
    }
}

/// How a wallet gets the card, which decides what the app must send and what it gets back.
public enum ProvisioningFlow: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// The app sends Apple's certificates, nonce and signature (or Google's device ids); the backend returns
    /// the encrypted wallet payload (Paysafe, Bridge).
    case encryptedPayload
    /// The issuer's SDK exchanges opaque blobs with the backend over several round trips (Adyen).
    case issuerSDKRelay
    /// The backend mints a short-lived key the issuer's SDK uses on its own (Stripe).
    case issuerSDKKey

    public var description: String { rawValue }
}

/// What an adapter publishes about itself: its kind, its capabilities and, per wallet, its provisioning flow.
public struct ProviderDescriptor: Sendable, Equatable {
    public var kind: ProviderKind
    public var capabilities: Set<Capability>
    public var provisioningFlows: [Wallet: ProvisioningFlow]

    public init(kind: ProviderKind, capabilities: Set<Capability>, provisioningFlows: [Wallet: ProvisioningFlow] = [:]) {
        self.kind = kind
        self.capabilities = capabilities
        self.provisioningFlows = provisioningFlows
    }

    public var wallets: [Wallet] { Wallet.allCases.filter { provisioningFlows[$0] != nil } }

    public func supports(_ operation: GatewayOperation) -> Bool {
        capabilities.contains(operation.capability)
    }
}
