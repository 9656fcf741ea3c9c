import Foundation

/// Why a card cannot be added to a wallet now.
public struct IneligibilityReason: Sendable, Codable, Equatable, CustomStringConvertible {
    /// A stable code: `cardNotActive`, `walletNotSupported`, `alreadyProvisioned`, or the provider's own reason
    /// (Stripe `missing_cardholder_contact`…).
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public static func cardNotActive(_ status: String) -> IneligibilityReason {
        IneligibilityReason(
            code: "cardNotActive", message: "the card is \(status), only active cards can be added to a wallet")
    }

    public static func walletNotSupported(_ wallet: Wallet) -> IneligibilityReason {
        IneligibilityReason(code: "walletNotSupported", message: "this provider cannot add cards to \(wallet)")
    }

    public var description: String { "\(code): \(message)" }
}

/// What the app needs to decide whether to show "Add to Wallet" and to configure the wallet sheet.
public struct ProvisioningOffer: Sendable, Codable, Equatable {
    public var card: CardRef
    public var provider: String?
    public var wallet: Wallet
    public var eligible: Bool
    public var ineligibleReason: IneligibilityReason?
    /// The flow the app must run; nil when the provider has none for this wallet.
    public var flow: ProvisioningFlow?
    public var cardholderName: String?
    public var lastFour: String?
    public var network: CardScheme
    /// For `PKPassLibrary.canAddSecureElementPass(primaryAccountIdentifier:)`, when the provider has one.
    public var primaryAccountIdentifier: String?
    public var expiry: CardExpiry?
    public var existingTokens: [WalletToken]

    public init(
        card: CardRef, provider: String? = nil, wallet: Wallet, eligible: Bool,
        ineligibleReason: IneligibilityReason? = nil,
        flow: ProvisioningFlow?, cardholderName: String? = nil, lastFour: String? = nil, network: CardScheme,
        primaryAccountIdentifier: String? = nil, expiry: CardExpiry? = nil, existingTokens: [WalletToken] = []
    ) {
        self.card = card
        self.provider = provider
        self.wallet = wallet
        self.eligible = eligible
        self.ineligibleReason = ineligibleReason
        self.flow = flow
        self.cardholderName = cardholderName
        self.lastFour = lastFour
        self.network = network
        self.primaryAccountIdentifier = primaryAccountIdentifier
        self.expiry = expiry
        self.existingTokens = existingTokens
    }
}

/// What PassKit hands the app in `generateRequestWithCertificateChain`: the certificate chain (leaf first),
/// the nonce and its signature, as raw bytes.
public struct ApplePayProvisioningInput: Sendable, Equatable, CustomStringConvertible {
    public var certificates: [SensitiveData]
    public var nonce: SensitiveData
    public var nonceSignature: SensitiveData

    public init(certificates: [Data], nonce: Data, nonceSignature: Data) {
        self.certificates = certificates.map(SensitiveData.init)
        self.nonce = SensitiveData(nonce)
        self.nonceSignature = SensitiveData(nonceSignature)
    }

    public var description: String { "ApplePayProvisioningInput(certificates: \(certificates.count), <redacted>)" }
}

/// What Google's push provisioning API gives the app.
public struct GooglePayProvisioningInput: Sendable, Equatable {
    public var clientDeviceID: String
    public var clientWalletAccountID: String

    public init(clientDeviceID: String, clientWalletAccountID: String) {
        self.clientDeviceID = clientDeviceID
        self.clientWalletAccountID = clientWalletAccountID
    }
}

/// What Samsung Pay's push-provisioning API gives the app: the device's id and the Samsung wallet user's id
/// (Samsung's `WalletInfo`), which the issuer needs to encrypt the card for that wallet.
public struct SamsungPayProvisioningInput: Sendable, Equatable {
    public var deviceID: String
    public var walletUserID: String

    public init(deviceID: String, walletUserID: String) {
        self.deviceID = deviceID
        self.walletUserID = walletUserID
    }
}

/// The kind of device a card is being added on, as the app reports it (Marqeta's `device_type`). A struct with
/// static members, so that a new kind breaks no caller's `switch`; the raw value is stable in JSON and logs.
public struct ProvisioningDeviceType: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    public static let mobilePhone = ProvisioningDeviceType("mobilePhone")
    public static let watch = ProvisioningDeviceType("watch")
    public static let tablet = ProvisioningDeviceType("tablet")
    public static let wearable = ProvisioningDeviceType("wearable")
    public static let household = ProvisioningDeviceType("household")
    public static let automobile = ProvisioningDeviceType("automobile")

    public static let allCases: [ProvisioningDeviceType] = [
        .mobilePhone, .watch, .tablet, .wearable, .household, .automobile,
    ]

    /// Accepts the canonical name (`mobilePhone`) and the kebab, snake and upper-case spellings (`mobile-phone`,
    /// `MOBILE_PHONE`).
    public init?(parsing text: String) {
        let folded = text.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "")
        guard let kind = Self.allCases.first(where: { $0.rawValue.lowercased() == folded }) else { return nil }
        self = kind
    }
}

/// What the app sends for one provisioning round trip. Each wallet that takes an encrypted payload has its own
/// kind: a card is never provisioned to one wallet with another wallet's input.
///
/// A struct over a private enum, so that a new kind of input breaks no caller: build one with the static
/// functions (`.applePay(input)`, `.issuerSDK(output: nil)`…), read it with ``kind`` and the typed accessors
/// (`if let apple = input.applePay { … }`), and give a `switch` over ``kind`` a `default:`.
public struct ProvisioningInput: Sendable, Equatable, CustomStringConvertible {
    private enum Storage: Sendable, Equatable {
        case applePay(ApplePayProvisioningInput)
        case googlePay(GooglePayProvisioningInput)
        case samsungPay(SamsungPayProvisioningInput)
        case issuerSDK(output: SensitiveData?)
        case issuerSDKKey(apiVersion: String)
    }

    /// Which input this is. A struct with static members, so that a new kind breaks no caller's `switch`.
    public struct Kind: GrowableName {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }

        public static let applePay = Kind("applePay")
        public static let googlePay = Kind("googlePay")
        public static let samsungPay = Kind("samsungPay")
        public static let issuerSDK = Kind("issuerSDK")
        public static let issuerSDKKey = Kind("issuerSDKKey")

        public static let allCases: [Kind] = [.applePay, .googlePay, .samsungPay, .issuerSDK, .issuerSDKKey]
    }

    private let storage: Storage
    private init(_ storage: Storage) { self.storage = storage }

    public static func applePay(_ input: ApplePayProvisioningInput) -> ProvisioningInput {
        ProvisioningInput(.applePay(input))
    }
    public static func googlePay(_ input: GooglePayProvisioningInput) -> ProvisioningInput {
        ProvisioningInput(.googlePay(input))
    }
    public static func samsungPay(_ input: SamsungPayProvisioningInput) -> ProvisioningInput {
        ProvisioningInput(.samsungPay(input))
    }
    /// The issuer SDK's output; nil starts the relay.
    public static func issuerSDK(output: SensitiveData?) -> ProvisioningInput {
        ProvisioningInput(.issuerSDK(output: output))
    }
    /// The API version the issuer SDK asked for.
    public static func issuerSDKKey(apiVersion: String) -> ProvisioningInput {
        ProvisioningInput(.issuerSDKKey(apiVersion: apiVersion))
    }

    public var kind: Kind {
        switch storage {
        case .applePay: .applePay
        case .googlePay: .googlePay
        case .samsungPay: .samsungPay
        case .issuerSDK: .issuerSDK
        case .issuerSDKKey: .issuerSDKKey
        }
    }

    /// Apple's input, when this is one.
    public var applePay: ApplePayProvisioningInput? { if case .applePay(let input) = storage { input } else { nil } }
    /// Google's input, when this is one.
    public var googlePay: GooglePayProvisioningInput? { if case .googlePay(let input) = storage { input } else { nil } }
    /// Samsung's input, when this is one.
    public var samsungPay: SamsungPayProvisioningInput? {
        if case .samsungPay(let input) = storage { input } else { nil }
    }
    /// The issuer SDK's output; nil for the relay's start and for every other kind (tell them apart with ``kind``).
    public var issuerSDKOutput: SensitiveData? { if case .issuerSDK(let output) = storage { output } else { nil } }
    /// The API version the issuer SDK asked for, when this asks for a key.
    public var issuerSDKAPIVersion: String? { if case .issuerSDKKey(let version) = storage { version } else { nil } }

    /// The wallet whose input this is, for the inputs that belong to one wallet; nil for the issuer SDK's.
    public var wallet: Wallet? {
        switch storage {
        case .applePay: return .applePay
        case .googlePay: return .googlePay
        case .samsungPay: return .samsungPay
        case .issuerSDK, .issuerSDKKey: return nil
        }
    }

    public var flow: ProvisioningFlow {
        switch storage {
        case .applePay, .googlePay, .samsungPay: return .encryptedPayload
        case .issuerSDK: return .issuerSDKRelay
        case .issuerSDKKey: return .issuerSDKKey
        }
    }

    public var description: String {
        switch storage {
        case .applePay(let input): return input.description
        case .googlePay: return "googlePay(<device ids>)"
        case .samsungPay: return "samsungPay(<device ids>)"
        case .issuerSDK(let output): return output == nil ? "issuerSDK(start)" : "issuerSDK(<redacted>)"
        case .issuerSDKKey(let version): return "issuerSDKKey(apiVersion: \(version))"
        }
    }
}

public struct ProvisioningRequest: Sendable, Equatable, CustomStringConvertible {
    public var card: CardRef
    public var wallet: Wallet
    public var input: ProvisioningInput
    /// The device the card is being added on, as the app reports it; nil leaves it to the provider instance's
    /// default (a phone, unless configured otherwise). Providers that take no device type ignore it.
    public var deviceType: ProvisioningDeviceType?
    /// The version of the app that provisions (Marqeta's `provisioning_app_version`); nil leaves it to the provider
    /// instance's default. Printable ASCII, at most ``ProvisioningInputChecks/maxAppVersionLength`` characters.
    public var appVersion: String?

    public init(
        card: CardRef, wallet: Wallet, input: ProvisioningInput, deviceType: ProvisioningDeviceType? = nil,
        appVersion: String? = nil
    ) {
        self.card = card
        self.wallet = wallet
        self.input = input
        self.deviceType = deviceType
        self.appVersion = appVersion
    }

    public var description: String {
        "ProvisioningRequest(card: \(card), wallet: \(wallet), input: \(input), deviceType: \(deviceType?.rawValue ?? "-"))"
    }
}

/// What `PKAddPaymentPassRequest` needs.
public struct ApplePayPayload: Sendable, Equatable, CustomStringConvertible {
    public var activationData: SensitiveData
    public var encryptedPassData: SensitiveData
    public var ephemeralPublicKey: SensitiveData
    public var network: CardScheme?
    public var tokenProvider: String?

    public init(
        activationData: SensitiveData, encryptedPassData: SensitiveData, ephemeralPublicKey: SensitiveData,
        network: CardScheme? = nil, tokenProvider: String? = nil
    ) {
        self.activationData = activationData
        self.encryptedPassData = encryptedPassData
        self.ephemeralPublicKey = ephemeralPublicKey
        self.network = network
        self.tokenProvider = tokenProvider
    }

    public var description: String { "ApplePayPayload(<redacted>, network: \(network.map(\.rawValue) ?? "-"))" }
}

/// What Google's `PushTokenizeRequest` needs.
public struct GooglePayPayload: Sendable, Equatable, CustomStringConvertible {
    /// The opaque payment card, passed to the app as it came: the UTF-8 bytes of the provider's string, never
    /// decoded, which are the bytes Google's `PushTokenizeRequest.Builder.setOpaquePaymentCard` takes.
    public var opaquePaymentCard: SensitiveData
    public var network: CardScheme?
    public var tokenProvider: String?
    public var displayName: String?
    public var lastFour: String?

    public init(
        opaquePaymentCard: SensitiveData, network: CardScheme? = nil, tokenProvider: String? = nil,
        displayName: String? = nil, lastFour: String? = nil
    ) {
        self.opaquePaymentCard = opaquePaymentCard
        self.network = network
        self.tokenProvider = tokenProvider
        self.displayName = displayName
        self.lastFour = lastFour
    }

    public var description: String { "GooglePayPayload(<redacted>, network: \(network.map(\.rawValue) ?? "-"))" }
}

/// What Samsung Pay's push-provisioning call (`AddCardInfo`) needs: the issuer's encrypted card data for the
/// wallet, handed on unchanged, and what the card looks like.
public struct SamsungPayPayload: Sendable, Equatable, CustomStringConvertible {
    /// The provider's encrypted card data (Samsung's `EXTRA_PROVISION_PAYLOAD`), passed to the app as it came: the
    /// UTF-8 bytes of the provider's string, never decoded. The backend cannot read it.
    public var extraProvisionPayload: SensitiveData
    public var network: CardScheme?
    /// The card type the provider names (Samsung's `CARD_TYPE`: credit, debit, prepaid…), as the provider wrote it.
    public var cardType: String?
    public var tokenProvider: String?
    public var displayName: String?
    public var lastFour: String?

    public init(
        extraProvisionPayload: SensitiveData, network: CardScheme? = nil, cardType: String? = nil,
        tokenProvider: String? = nil,
        displayName: String? = nil, lastFour: String? = nil
    ) {
        self.extraProvisionPayload = extraProvisionPayload
        self.network = network
        self.cardType = cardType
        self.tokenProvider = tokenProvider
        self.displayName = displayName
        self.lastFour = lastFour
    }

    public var description: String { "SamsungPayPayload(<redacted>, network: \(network.map(\.rawValue) ?? "-"))" }
}

/// A short-lived key for the issuer's SDK, kept byte for byte as the provider sent it.
public struct EphemeralKey: Sendable, Equatable, CustomStringConvertible {
    public var id: String
    /// The provider's JSON, exactly as received: the app passes it to the SDK unchanged.
    public var rawJSON: SensitiveData
    public var created: Date?
    public var expires: Date
    public var apiVersion: String

    public init(id: String, rawJSON: SensitiveData, created: Date?, expires: Date, apiVersion: String) {
        self.id = id
        self.rawJSON = rawJSON
        self.created = created
        self.expires = expires
        self.apiVersion = apiVersion
    }

    public var description: String { "EphemeralKey(id: \(id), expires: \(expires), <redacted>)" }
}

/// The answer to one provisioning round trip.
///
/// A struct over a private enum, like ``ProvisioningInput``: build one with the static functions, read it with
/// ``kind`` and the typed accessors (`if let key = response.ephemeralKey { … }`).
public struct ProvisioningResponse: Sendable, Equatable, CustomStringConvertible {
    private enum Storage: Sendable, Equatable {
        case applePay(ApplePayPayload)
        case googlePay(GooglePayPayload)
        case samsungPay(SamsungPayPayload)
        case issuerSDKInput(SensitiveData)
        case ephemeralKey(EphemeralKey)
    }

    /// Which answer this is. A struct with static members, so that a new kind breaks no caller's `switch`.
    public struct Kind: GrowableName {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }

        public static let applePay = Kind("applePay")
        public static let googlePay = Kind("googlePay")
        public static let samsungPay = Kind("samsungPay")
        public static let issuerSDKInput = Kind("issuerSDKInput")
        public static let ephemeralKey = Kind("ephemeralKey")

        public static let allCases: [Kind] = [.applePay, .googlePay, .samsungPay, .issuerSDKInput, .ephemeralKey]
    }

    private let storage: Storage
    private init(_ storage: Storage) { self.storage = storage }

    public static func applePay(_ payload: ApplePayPayload) -> ProvisioningResponse {
        ProvisioningResponse(.applePay(payload))
    }
    public static func googlePay(_ payload: GooglePayPayload) -> ProvisioningResponse {
        ProvisioningResponse(.googlePay(payload))
    }
    public static func samsungPay(_ payload: SamsungPayPayload) -> ProvisioningResponse {
        ProvisioningResponse(.samsungPay(payload))
    }
    /// The next input for the issuer SDK (the relay goes on until the SDK stops asking).
    public static func issuerSDKInput(_ input: SensitiveData) -> ProvisioningResponse {
        ProvisioningResponse(.issuerSDKInput(input))
    }
    public static func ephemeralKey(_ key: EphemeralKey) -> ProvisioningResponse {
        ProvisioningResponse(.ephemeralKey(key))
    }

    public var kind: Kind {
        switch storage {
        case .applePay: .applePay
        case .googlePay: .googlePay
        case .samsungPay: .samsungPay
        case .issuerSDKInput: .issuerSDKInput
        case .ephemeralKey: .ephemeralKey
        }
    }

    public var applePay: ApplePayPayload? { if case .applePay(let payload) = storage { payload } else { nil } }
    public var googlePay: GooglePayPayload? { if case .googlePay(let payload) = storage { payload } else { nil } }
    public var samsungPay: SamsungPayPayload? { if case .samsungPay(let payload) = storage { payload } else { nil } }
    public var issuerSDKInput: SensitiveData? { if case .issuerSDKInput(let input) = storage { input } else { nil } }
    public var ephemeralKey: EphemeralKey? { if case .ephemeralKey(let key) = storage { key } else { nil } }

    public var description: String {
        switch storage {
        case .applePay(let payload): return payload.description
        case .googlePay(let payload): return payload.description
        case .samsungPay(let payload): return payload.description
        case .issuerSDKInput(let input): return "issuerSDKInput(\(input))"
        case .ephemeralKey(let key): return key.description
        }
    }
}

/// What the wallet reported once the card was added.
public struct ProvisioningConfirmation: Sendable, Equatable {
    public var card: CardRef
    public var wallet: Wallet
    /// `PKSecureElementPass.deviceAccountIdentifier` or Google's token reference.
    public var deviceAccountReference: String
    /// Google's wallet id, when there is one.
    public var walletID: String?

    public init(card: CardRef, wallet: Wallet, deviceAccountReference: String, walletID: String? = nil) {
        self.card = card
        self.wallet = wallet
        self.deviceAccountReference = deviceAccountReference
        self.walletID = walletID
    }
}
