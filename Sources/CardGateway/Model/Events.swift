import Foundation
import HTTPTypes

/// A webhook as it arrived: the raw body bytes (never re-serialised) and the headers.
public struct WebhookDelivery: Sendable, CustomStringConvertible {
    public var headers: HTTPFields
    public var body: Data

    public init(headers: HTTPFields, body: Data) {
        self.headers = headers
        self.body = body
    }

    public var description: String { "WebhookDelivery(\(body.count) bytes)" }
}

/// A verified event, normalised.
public struct GatewayEvent: Sendable, Equatable {
    /// What happened. A struct over a private enum, so that a new kind of event breaks no caller: build one with
    /// the static functions (`.cardStatusChanged(change)`…), read it with ``name`` and the typed accessors
    /// (`if let change = event.event.cardStatusChanged { … }`), and give a `switch` over ``name`` a `default:`.
    public struct Kind: Sendable, Equatable {
        private enum Storage: Sendable, Equatable {
            case cardStatusChanged(CardStatusChange)
            case walletTokenCreated(WalletTokenEvent)
            case walletTokenUpdated(WalletTokenEvent)
            case walletTokensChanged(WalletTokensChange)
            case credentialStored(StoredCredential)
        }

        /// Which event this is; its raw value is the event's stable name. A struct with static members, so that a
        /// new event breaks no caller's `switch`.
        public struct Name: GrowableName {
            public let rawValue: String
            private init(_ rawValue: String) { self.rawValue = rawValue }

            public static let cardStatusChanged = Name("cardStatusChanged")
            public static let walletTokenCreated = Name("walletTokenCreated")
            public static let walletTokenUpdated = Name("walletTokenUpdated")
            public static let walletTokensChanged = Name("walletTokensChanged")
            public static let credentialStored = Name("credentialStored")

            public static let allCases: [Name] = [
                .cardStatusChanged, .walletTokenCreated, .walletTokenUpdated, .walletTokensChanged, .credentialStored,
            ]
        }

        private let storage: Storage
        private init(_ storage: Storage) { self.storage = storage }

        public static func cardStatusChanged(_ change: CardStatusChange) -> Kind { Kind(.cardStatusChanged(change)) }
        public static func walletTokenCreated(_ event: WalletTokenEvent) -> Kind { Kind(.walletTokenCreated(event)) }
        public static func walletTokenUpdated(_ event: WalletTokenEvent) -> Kind { Kind(.walletTokenUpdated(event)) }
        public static func walletTokensChanged(_ change: WalletTokensChange) -> Kind {
            Kind(.walletTokensChanged(change))
        }
        public static func credentialStored(_ credential: StoredCredential) -> Kind {
            Kind(.credentialStored(credential))
        }

        public var name: Name {
            switch storage {
            case .cardStatusChanged: .cardStatusChanged
            case .walletTokenCreated: .walletTokenCreated
            case .walletTokenUpdated: .walletTokenUpdated
            case .walletTokensChanged: .walletTokensChanged
            case .credentialStored: .credentialStored
            }
        }

        public var cardStatusChanged: CardStatusChange? {
            if case .cardStatusChanged(let change) = storage { change } else { nil }
        }
        public var walletTokenCreated: WalletTokenEvent? {
            if case .walletTokenCreated(let event) = storage { event } else { nil }
        }
        public var walletTokenUpdated: WalletTokenEvent? {
            if case .walletTokenUpdated(let event) = storage { event } else { nil }
        }
        /// The token's event, whether it was created or updated.
        public var walletToken: WalletTokenEvent? {
            switch storage {
            case .walletTokenCreated(let event), .walletTokenUpdated(let event): event
            default: nil
            }
        }
        /// A change to a card's wallet tokens from a provider whose event names the card but no token.
        public var walletTokensChanged: WalletTokensChange? {
            if case .walletTokensChanged(let change) = storage { change } else { nil }
        }
        public var credentialStored: StoredCredential? {
            if case .credentialStored(let credential) = storage { credential } else { nil }
        }
    }

    /// The provider's event id.
    public var id: String
    /// The provider instance that verified it, when the gateway did.
    public var provider: String?
    /// Which provider's kind sent it (`.stripe`, `.adyen`…).
    public var providerKind: ProviderKind
    public var occurredAt: Date?
    /// The provider's event type, verbatim.
    public var providerType: String
    public var event: Kind

    public init(
        id: String, provider: String? = nil, providerKind: ProviderKind, occurredAt: Date?, providerType: String,
        event: Kind
    ) {
        self.id = id
        self.provider = provider
        self.providerKind = providerKind
        self.occurredAt = occurredAt
        self.providerType = providerType
        self.event = event
    }

    /// The old name of ``providerKind``.
    @available(*, deprecated, renamed: "providerKind")
    public var kind: ProviderKind {
        get { providerKind }
        set { providerKind = newValue }
    }
}

public struct CardStatusChange: Sendable, Equatable, Codable {
    public var card: CardRef
    public var oldStatus: CardStatus?
    public var newStatus: CardStatus
    public var providerOldStatus: String?
    public var providerNewStatus: String

    public init(
        card: CardRef, oldStatus: CardStatus?, newStatus: CardStatus, providerOldStatus: String?,
        providerNewStatus: String
    ) {
        self.card = card
        self.oldStatus = oldStatus
        self.newStatus = newStatus
        self.providerOldStatus = providerOldStatus
        self.providerNewStatus = providerNewStatus
    }
}

public struct WalletTokenEvent: Sendable, Equatable, Codable {
    public var card: CardRef
    public var token: WalletToken
    /// The provider's decision, when it sends one (Adyen approved / declined / requiresAuthentication).
    public var decision: String?

    public init(card: CardRef, token: WalletToken, decision: String? = nil) {
        self.card = card
        self.token = token
        self.decision = decision
    }
}

/// A provider's event that one or more of a card's wallet tokens changed, when the event names the card but no token
/// (Paysafe's `CardTokenUpdateEvent`). To learn which token, and its status now, list the card's tokens
/// (``CardGateway/walletTokens(of:via:context:)``): the list is the authority, the event only says when to read it.
public struct WalletTokensChange: Sendable, Equatable, Codable {
    public var card: CardRef
    /// What the provider says happened to the card's tokens, normalised: `suspended` (frozen), `active` (unfrozen or
    /// reissued), `deleted` (cancelled); nil for an action this version does not know.
    public var status: WalletTokenStatus?
    /// The provider's action, verbatim (Paysafe `TOKEN_FROZEN`, `TOKEN_UNFROZEN`, `TOKEN_CANCELLED`, `TOKEN_REISSUED`).
    public var providerAction: String
    /// The provider's result of the action, verbatim, when it sends one.
    public var providerResult: String?

    public init(card: CardRef, status: WalletTokenStatus?, providerAction: String, providerResult: String? = nil) {
        self.card = card
        self.status = status
        self.providerAction = providerAction
        self.providerResult = providerResult
    }
}
