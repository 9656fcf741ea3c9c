import Foundation

// Card details and PIN for the cardholder, without the backend seeing them (CardDetailsAndPIN.md).
//
// Every issuer that offers this does it so that the clear number, CVC or PIN never passes through the bank's
// backend: the front end (the issuer's SDK, web library or secure frame) and the provider meet directly, and the
// backend only relays opaque material. These types carry nothing else: no field can hold a clear PAN, CVC or PIN.
// A provider's clear-data paths (Adyen's `GET /paymentInstruments/{id}/reveal`, Marqeta's `showpan`, Paysafe's
// card details, Stripe's `expand[]=number`) are deliberately not offered.

/// What the cardholder asks for. Named like ``Wallet``: a new purpose breaks no caller's `switch`.
public struct RevealPurpose: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// The card's number, CVC and expiry, shown to the cardholder.
    public static let cardDetails = RevealPurpose("cardDetails")
    /// The card's PIN, shown to the cardholder.
    public static let pinReveal = RevealPurpose("pinReveal")
    /// The cardholder sets a new PIN.
    public static let pinChange = RevealPurpose("pinChange")

    public static let allCases: [RevealPurpose] = [.cardDetails, .pinReveal, .pinChange]

    /// The capability a provider declares for this purpose.
    public var capability: Capability {
        switch self {
        case .pinReveal: .pinReveal
        case .pinChange: .pinChange
        default: .cardDetailsReveal
        }
    }

    /// The operation both steps of this purpose are routed as.
    public var operation: GatewayOperation {
        switch self {
        case .pinReveal: .pinReveal
        case .pinChange: .pinChange
        default: .cardDetailsReveal
        }
    }
}

/// How the front end and the provider meet. The backend's part differs per flow; the clear data never reaches it.
public struct RevealFlow: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// The front end makes a nonce with the provider's library; the backend asks for an ephemeral key bound to that
    /// nonce and hands the key's secret back; the front end reads the card from the provider with both (Stripe
    /// Issuing Elements, Bridge's card details).
    public static let clientNonce = RevealFlow("clientNonce")
    /// The app makes an AES session key and encrypts it with the provider's RSA public key (given in the offer); the
    /// backend relays the encrypted key and returns what the provider encrypted with the session key, which only the
    /// app can decrypt (Adyen).
    public static let encryptedSessionKey = RevealFlow("encryptedSessionKey")
    /// The backend gets a short-lived client access token that the provider's front-end library exchanges for
    /// secure frames showing the card (Marqeta.js).
    public static let clientAccessToken = RevealFlow("clientAccessToken")
    /// The provider answers a short-lived link to a secure view or frame the app opens (Paysafe's secure details,
    /// Bridge's PIN frame).
    public static let secureLink = RevealFlow("secureLink")
    /// The front end encrypts the new PIN under the provider's public key; the backend relays the ciphertext
    /// (``RevealSessionRequest/encryptedPINBlock``), which only the provider can read (Stripe's
    /// `pin[encrypted_number]`).
    public static let encryptedPIN = RevealFlow("encryptedPIN")

    public static let allCases: [RevealFlow] = [
        .clientNonce, .encryptedSessionKey, .clientAccessToken, .secureLink, .encryptedPIN,
    ]

    /// What the front end must supply in the session request, for `purpose`, in this flow.
    public func inputs(for purpose: RevealPurpose) -> [RevealInput] {
        switch self {
        case .clientNonce: [.clientNonce]
        case .encryptedSessionKey:
            purpose == .pinChange ? [.encryptedKey, .encryptedPINBlock, .pinToken] : [.encryptedKey]
        case .encryptedPIN: [.encryptedPINBlock]
        default: []
        }
    }
}

/// One thing the front end supplies for a session.
public struct RevealInput: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// The nonce the provider's front-end library made (``RevealSessionRequest/clientNonce``).
    public static let clientNonce = RevealInput("clientNonce")
    /// The app's session key, encrypted with the provider's public key, Base64 (``RevealSessionRequest/encryptedKey``).
    public static let encryptedKey = RevealInput("encryptedKey")
    /// The new PIN, encrypted by the front end (``RevealSessionRequest/encryptedPINBlock``): with its session key
    /// (``RevealFlow/encryptedSessionKey``, Adyen), or under the provider's public key (``RevealFlow/encryptedPIN``,
    /// Stripe's `pin[encrypted_number]`).
    public static let encryptedPINBlock = RevealInput("encryptedPINBlock")
    /// The 16-digit token the app used to make the new PIN block (``RevealSessionRequest/pinToken``): Adyen's
    /// `PinChangeRequest.token`, "The 16-digit token that you used to generate the encryptedPinBlock". The app makes
    /// it itself; a PIN change needs no PIN reveal first.
    public static let pinToken = RevealInput("pinToken")

    public static let allCases: [RevealInput] = [.clientNonce, .encryptedKey, .encryptedPINBlock, .pinToken]
}

/// A provider's public key for the ``RevealFlow/encryptedSessionKey`` flow. Public: it may be logged and cached.
public struct RevealPublicKey: Sendable, Equatable, Codable {
    /// `pem` or `jwk`, as the provider gave it.
    public var format: String
    /// The key, in that format.
    public var value: String
    /// When the provider stops accepting session keys encrypted with it.
    public var expires: Date?

    public init(format: String, value: String, expires: Date?) {
        self.format = format
        self.value = value
        self.expires = expires
    }
}

/// Step one: whether the card offers the purpose, by which flow, and what the front end must bring.
public struct RevealOffer: Sendable, Equatable {
    public var card: CardRef
    /// The instance that answered (set by the gateway).
    public var provider: String?
    public var purpose: RevealPurpose
    public var flow: RevealFlow
    /// What the session request must carry.
    public var requires: [RevealInput]
    /// The provider's public key, for ``RevealFlow/encryptedSessionKey``.
    public var publicKey: RevealPublicKey?
    /// The provider API version the front end's library must be matched with, where the provider pins one (Stripe).
    public var apiVersion: String?
    /// How long a session lasts, where the provider documents it.
    public var sessionLifetime: Duration?
    /// The provider may ask for strong customer authentication first (Paysafe): the session step then fails with
    /// ``CardGatewayError/Code/scaRequired`` and its challenge; repeat it with `OperationContext.sca`.
    public var mayRequireSCA: Bool

    public init(
        card: CardRef, provider: String? = nil, purpose: RevealPurpose, flow: RevealFlow,
        requires: [RevealInput]? = nil,
        publicKey: RevealPublicKey? = nil, apiVersion: String? = nil, sessionLifetime: Duration? = nil,
        mayRequireSCA: Bool = false
    ) {
        self.card = card
        self.provider = provider
        self.purpose = purpose
        self.flow = flow
        self.requires = requires ?? flow.inputs(for: purpose)
        self.publicKey = publicKey
        self.apiVersion = apiVersion
        self.sessionLifetime = sessionLifetime
        self.mayRequireSCA = mayRequireSCA
    }
}

/// Step two: what the front end supplied. Every value is opaque to the backend and never printed.
public struct RevealSessionRequest: Sendable, Equatable, CustomStringConvertible {
    public var card: CardRef
    public var purpose: RevealPurpose
    /// ``RevealFlow/clientNonce``: the nonce the provider's front-end library made.
    public var clientNonce: Secret?
    /// ``RevealFlow/clientNonce``: the API version the front-end library uses (Stripe's `Stripe-Version`); the
    /// adapter's default when nil.
    public var apiVersion: String?
    /// ``RevealFlow/encryptedSessionKey``: the app's AES key encrypted with the provider's public key, Base64.
    public var encryptedKey: Secret?
    /// PIN change: the new PIN encrypted by the front end, relayed as it is: with the session key
    /// (``RevealFlow/encryptedSessionKey``), or under the provider's public key (``RevealFlow/encryptedPIN``).
    public var encryptedPINBlock: Secret?
    /// ``RevealFlow/encryptedSessionKey``, PIN change: the 16-digit token the app used to make
    /// ``encryptedPINBlock`` (Adyen's `PinChangeRequest.token`). The app makes it with the block; no PIN reveal comes
    /// first.
    public var pinToken: Secret?

    public init(
        card: CardRef, purpose: RevealPurpose, clientNonce: Secret? = nil, apiVersion: String? = nil,
        encryptedKey: Secret? = nil,
        encryptedPINBlock: Secret? = nil, pinToken: Secret? = nil
    ) {
        self.card = card
        self.purpose = purpose
        self.clientNonce = clientNonce
        self.apiVersion = apiVersion
        self.encryptedKey = encryptedKey
        self.encryptedPINBlock = encryptedPINBlock
        self.pinToken = pinToken
    }

    public var description: String { "RevealSessionRequest(\(card), \(purpose))" }

    /// The problems that stop the request in `flow` before any provider is asked: a card id that is empty or has a
    /// control character, a missing or empty input the flow needs, an input it does not take.
    @_spi(AdapterSupport) public func problems(in flow: RevealFlow) -> ValidationProblems {
        var problems = ValidationProblems()
        func plain(_ text: String) -> Bool {
            !text.isEmpty && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
        }
        problems.require(plain(card.id), "card.id", "must be a non-empty id without control characters")
        if let customer = card.customer {
            problems.require(plain(customer), "card.customer", "must be non-empty without control characters")
        }
        let given: [RevealInput: Secret?] = [
            .clientNonce: clientNonce, .encryptedKey: encryptedKey, .encryptedPINBlock: encryptedPINBlock,
            .pinToken: pinToken,
        ]
        let needed = Set(flow.inputs(for: purpose))
        for input in RevealInput.allCases {
            let value = given[input] ?? nil
            if needed.contains(input) {
                problems.require(
                    value.map { plain($0.revealedValue) } ?? false, input.rawValue,
                    "is required for \(purpose) in the \(flow) flow")
            } else {
                problems.require(value == nil, input.rawValue, "is not taken for \(purpose) in the \(flow) flow")
            }
        }
        if let apiVersion {
            problems.require(plain(apiVersion), "apiVersion", "must be non-empty without control characters")
        }
        return problems
    }
}

/// The outcome of a PIN change, in Adyen's words (`completed`, `pending`, `unavailable`).
///
/// Not a ``GrowableName``: the adapter passes on whatever word the provider answers, so `init(rawValue:)` takes any
/// word (a growable name's `init?(rawValue:)` refuses one this version does not know).
public struct PINChangeStatus: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let completed = PINChangeStatus(rawValue: "completed")
    public static let pending = PINChangeStatus(rawValue: "pending")
    public static let unavailable = PINChangeStatus(rawValue: "unavailable")
}

/// What the front end needs back: opaque to the backend, never printed, never stored, never replayed. A struct over
/// a private enum, so that a new kind breaks no caller: read it through the typed accessors.
public struct RevealMaterial: Sendable, Equatable, CustomStringConvertible {
    private enum Storage: Sendable, Equatable {
        case ephemeralKey(id: String?, secret: Secret)
        case encryptedData(Secret)
        case encryptedPINBlock(Secret, token: Secret)
        case pinChange(PINChangeStatus)
        case clientAccessToken(Secret)
        case secureLink(Secret)
    }

    private let storage: Storage
    private init(_ storage: Storage) { self.storage = storage }

    /// An ephemeral key bound to the front end's nonce (Stripe, Bridge): the front end needs its secret.
    public static func ephemeralKey(id: String?, secret: Secret) -> RevealMaterial {
        RevealMaterial(.ephemeralKey(id: id, secret: secret))
    }
    /// Card details encrypted with the app's session key (Adyen's `encryptedData`).
    public static func encryptedData(_ data: Secret) -> RevealMaterial { RevealMaterial(.encryptedData(data)) }
    /// A PIN block encrypted with the app's session key, and the 16-digit token the app needs to extract the PIN from
    /// it (Adyen's `RevealPinResponse`). A PIN change does not use this token: the app makes its own with the new block.
    public static func encryptedPINBlock(_ block: Secret, token: Secret) -> RevealMaterial {
        RevealMaterial(.encryptedPINBlock(block, token: token))
    }
    /// The outcome of a PIN change the app encrypted (Adyen).
    public static func pinChange(_ status: PINChangeStatus) -> RevealMaterial { RevealMaterial(.pinChange(status)) }
    /// A client access token for the provider's front-end library (Marqeta.js).
    public static func clientAccessToken(_ token: Secret) -> RevealMaterial {
        RevealMaterial(.clientAccessToken(token))
    }
    /// A short-lived link to a secure view or frame (Paysafe, Bridge's PIN frame).
    public static func secureLink(_ url: Secret) -> RevealMaterial { RevealMaterial(.secureLink(url)) }

    /// `ephemeralKey`, `encryptedData`, `encryptedPINBlock`, `pinChange`, `clientAccessToken` or `secureLink`.
    public var kind: String {
        switch storage {
        case .ephemeralKey: "ephemeralKey"
        case .encryptedData: "encryptedData"
        case .encryptedPINBlock: "encryptedPINBlock"
        case .pinChange: "pinChange"
        case .clientAccessToken: "clientAccessToken"
        case .secureLink: "secureLink"
        }
    }

    public var ephemeralKeyID: String? { if case .ephemeralKey(let id, _) = storage { id } else { nil } }
    public var ephemeralKeySecret: Secret? { if case .ephemeralKey(_, let secret) = storage { secret } else { nil } }
    public var encryptedData: Secret? { if case .encryptedData(let data) = storage { data } else { nil } }
    public var encryptedPINBlock: Secret? { if case .encryptedPINBlock(let block, _) = storage { block } else { nil } }
    public var pinToken: Secret? { if case .encryptedPINBlock(_, let token) = storage { token } else { nil } }
    public var pinChangeStatus: PINChangeStatus? { if case .pinChange(let status) = storage { status } else { nil } }
    public var clientAccessToken: Secret? { if case .clientAccessToken(let token) = storage { token } else { nil } }
    public var secureLink: Secret? { if case .secureLink(let url) = storage { url } else { nil } }

    public var description: String { "RevealMaterial(\(kind))" }
}

/// Step two's answer: what the front end needs, and until when. Never ledgered, journaled or cached: asking again
/// makes a new session.
public struct RevealSession: Sendable, Equatable, CustomStringConvertible {
    public var card: CardRef
    /// The instance that answered (set by the gateway).
    public var provider: String?
    public var purpose: RevealPurpose
    public var flow: RevealFlow
    public var material: RevealMaterial
    /// When the material stops working, where the provider says.
    public var expires: Date?

    public init(
        card: CardRef, provider: String? = nil, purpose: RevealPurpose, flow: RevealFlow, material: RevealMaterial,
        expires: Date? = nil
    ) {
        self.card = card
        self.provider = provider
        self.purpose = purpose
        self.flow = flow
        self.material = material
        self.expires = expires
    }

    public var description: String { "RevealSession(\(card), \(purpose), \(flow), \(material.kind))" }
}
