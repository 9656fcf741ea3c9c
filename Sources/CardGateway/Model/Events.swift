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
    public enum Kind: Sendable, Equatable {
        case cardStatusChanged(CardStatusChange)
        case walletTokenCreated(WalletTokenEvent)
        case walletTokenUpdated(WalletTokenEvent)
        case credentialStored(StoredCredential)
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

    public init(id: String, provider: String? = nil, providerKind: ProviderKind, occurredAt: Date?, providerType: String, event: Kind) {
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

    public init(card: CardRef, oldStatus: CardStatus?, newStatus: CardStatus, providerOldStatus: String?, providerNewStatus: String) {
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
