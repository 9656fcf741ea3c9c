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
///
/// A struct with static members rather than an enum, so that a new capability breaks no caller's `switch`
/// (match the members you handle and keep a `default`). The raw value is stable in configuration and logs.
public struct Capability: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// ``CardLookup``: `card(_:)`. Every issuer adapter has it.
    public static let cardLookup = Capability("cardLookup")
    /// ``CardListing``: a customer's cards, page by page.
    public static let cardListing = Capability("cardListing")
    /// ``CardIssuance``: a new card.
    public static let cardIssuance = Capability("cardIssuance")
    /// ``CardActivation``: activation of a physical card with data printed on it.
    public static let cardActivation = Capability("cardActivation")
    /// ``CardStatusControl`` for the reversible intents: lock and unlock.
    public static let cardLocking = Capability("cardLocking")
    /// ``CardStatusControl`` for the final intent: cancel.
    public static let cardCancellation = Capability("cardCancellation")
    /// ``CardPINManagement``: set a card's PIN.
    public static let cardPIN = Capability("cardPIN")
    /// ``CardPrograms``: the programs a customer may get a card on.
    public static let cardPrograms = Capability("cardPrograms")
    /// ``WalletTokenListing``: a card's tokens in mobile wallets.
    public static let walletTokenListing = Capability("walletTokenListing")
    /// ``WalletTokenControl``: suspend, resume and delete a wallet token.
    public static let walletTokenControl = Capability("walletTokenControl")
    /// ``WalletProvisioning``: offer, provision, confirm.
    public static let walletProvisioning = Capability("walletProvisioning")
    /// ``StoredCredentials``: client session, result verification, charge.
    public static let storedCredentials = Capability("storedCredentials")
    /// ``WebhookVerifying``: signature checks into normalised events.
    public static let webhooks = Capability("webhooks")
    /// Shows the card's number, CVC and expiry to the cardholder without the backend seeing them (``CardReveal``).
    public static let cardDetailsReveal = Capability("cardDetailsReveal")
    /// Shows the PIN to the cardholder without the backend seeing it (``CardReveal``).
    public static let pinReveal = Capability("pinReveal")
    /// Lets the cardholder set a PIN without the backend seeing it (``CardReveal``). Unlike ``cardPIN``, whose clear
    /// PIN passes through the backend and puts it in PCI scope.
    public static let pinChange = Capability("pinChange")
    /// Answers the provider's real-time authorization requests (``AuthorizationResponding``).
    public static let authorizations = Capability("authorizations")

    /// The capabilities of a Paysafe-style card service (``CardService``).
    public static let cardService: Set<Capability> = [
        .cardListing, .cardIssuance, .cardActivation, .cardLocking, .cardCancellation, .cardPIN, .cardPrograms,
    ]

    public static let allCases: [Capability] = [
        .cardLookup, .cardListing, .cardIssuance, .cardActivation, .cardLocking, .cardCancellation, .cardPIN,
        .cardPrograms,
        .walletTokenListing, .walletTokenControl, .walletProvisioning, .storedCredentials, .webhooks,
        .cardDetailsReveal,
        .pinReveal, .pinChange, .authorizations,
    ]
}

/// A mobile wallet a card can be added to. A struct with static members, so that a new wallet breaks no
/// caller's `switch`; the raw value is stable in configuration, JSON and logs.
public struct Wallet: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    public static let applePay = Wallet("applePay")
    public static let googlePay = Wallet("googlePay")
    public static let samsungPay = Wallet("samsungPay")

    public static let allCases: [Wallet] = [.applePay, .googlePay, .samsungPay]

    /// Accepts the canonical name (`applePay`) and the kebab and snake spellings (`apple-pay`, `apple_pay`).
    public init?(parsing text: String) {
        let folded = text.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "")
        guard let wallet = Wallet.allCases.first(where: { $0.rawValue.lowercased() == folded }) else { return nil }
        self = wallet
    }
}

/// How a wallet gets the card, which decides what the app must send and what it gets back. A struct with
/// static members, so that a new flow breaks no caller's `switch`.
public struct ProvisioningFlow: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// The app sends Apple's certificates, nonce and signature (or Google's device ids); the backend returns
    /// the encrypted wallet payload (Paysafe, Bridge).
    public static let encryptedPayload = ProvisioningFlow("encryptedPayload")
    /// The issuer's SDK exchanges opaque blobs with the backend over several round trips (Adyen).
    public static let issuerSDKRelay = ProvisioningFlow("issuerSDKRelay")
    /// The backend mints a short-lived key the issuer's SDK uses on its own (Stripe).
    public static let issuerSDKKey = ProvisioningFlow("issuerSDKKey")

    public static let allCases: [ProvisioningFlow] = [.encryptedPayload, .issuerSDKRelay, .issuerSDKKey]
}

/// What an adapter publishes about itself: its kind, its capabilities and, per wallet, its provisioning flow.
public struct ProviderDescriptor: Sendable, Equatable {
    public var kind: ProviderKind
    public var capabilities: Set<Capability>
    public var provisioningFlows: [Wallet: ProvisioningFlow]
    /// Per purpose of ``CardReveal``, the flow by which the provider offers it.
    public var revealFlows: [RevealPurpose: RevealFlow]
    /// With ``Capability/authorizations``: how long the provider waits for an answer to a real-time authorization
    /// request before it applies its own fallback (Stripe and Adyen 2 s, Marqeta 3 s by default).
    public var authorizationDeadline: Duration?

    public init(
        kind: ProviderKind, capabilities: Set<Capability>, provisioningFlows: [Wallet: ProvisioningFlow] = [:],
        revealFlows: [RevealPurpose: RevealFlow] = [:], authorizationDeadline: Duration? = nil
    ) {
        self.kind = kind
        self.capabilities = capabilities
        self.provisioningFlows = provisioningFlows
        self.revealFlows = revealFlows
        self.authorizationDeadline = authorizationDeadline
    }

    public var wallets: [Wallet] { Wallet.allCases.filter { provisioningFlows[$0] != nil } }

    public func supports(_ operation: GatewayOperation) -> Bool {
        capabilities.contains(operation.capability)
    }
}
