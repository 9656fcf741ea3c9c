import Foundation

/// Which cards to list, and which page.
public struct CardQuery: Sendable, Equatable {
    public var customer: String?
    public var types: [CardType]
    public var statuses: [CardStatus]
    /// Page size; nil lets the provider choose.
    public var limit: Int?
    /// Index of the first record (0 = first), for providers that page by offset.
    public var offset: Int
    /// The provider's cursor for the page after the one it came from (``CardPage/nextCursor``), for providers that
    /// page by cursor. Nil asks for the first page.
    public var cursor: String?
    public var includeWalletTokens: Bool
    public var includeAvailableActions: Bool

    public init(
        customer: String? = nil, types: [CardType] = [], statuses: [CardStatus] = [], limit: Int? = nil,
        offset: Int = 0, cursor: String? = nil, includeWalletTokens: Bool = false, includeAvailableActions: Bool = false
    ) {
        self.cursor = cursor
        self.customer = customer
        self.types = types
        self.statuses = statuses
        self.limit = limit
        self.offset = offset
        self.includeWalletTokens = includeWalletTokens
        self.includeAvailableActions = includeAvailableActions
    }

    /// The query for the page after `page`, or nil when `page` is the last: the provider's cursor when it pages by
    /// cursor, otherwise the offset after the records seen. Following it from the first page visits every card once.
    public func next(after page: CardPage) -> CardQuery? {
        guard page.hasMore, !page.cards.isEmpty else { return nil }
        var next = self
        if let cursor = page.nextCursor {
            next.cursor = cursor
        } else {
            next.offset = page.offset + page.cards.count
        }
        return next
    }
}

/// One page of cards.
public struct CardPage: Sendable, Codable, Equatable {
    public var cards: [Card]
    /// Total number of records, when the provider says.
    public var total: Int?
    public var limit: Int?
    public var offset: Int
    /// The provider's page number, when it has one.
    public var page: Int?
    /// The cursor that asks for the next page (``CardQuery/cursor``), for providers that page by cursor; nil on
    /// the last page.
    public var nextCursor: String?

    public init(cards: [Card], total: Int?, limit: Int?, offset: Int, page: Int? = nil, nextCursor: String? = nil) {
        self.nextCursor = nextCursor
        self.cards = cards
        self.total = total
        self.limit = limit
        self.offset = offset
        self.page = page
    }

    /// True when another page follows, as far as the provider's paging data tells.
    public var hasMore: Bool {
        if nextCursor != nil { return true }
        if let total { return offset + cards.count < total }
        if let limit { return cards.count >= limit && limit > 0 }
        return false
    }
}

public struct DeliveryAddress: Sendable, Codable, Equatable {
    public var address1: String
    public var address2: String?
    public var address3: String?
    public var city: String
    /// ISO 3166-1 alpha-2.
    public var countryCode: String
    public var state: String?
    public var postalCode: String

    public init(
        address1: String, address2: String? = nil, address3: String? = nil, city: String, countryCode: String,
        state: String? = nil, postalCode: String
    ) {
        self.address1 = address1
        self.address2 = address2
        self.address3 = address3
        self.city = city
        self.countryCode = countryCode
        self.state = state
        self.postalCode = postalCode
    }
}

/// A new card. Adapters validate it against their provider's rules before anything is sent.
public struct CreateCardRequest: Sendable, CustomStringConvertible {
    public var customer: String
    public var type: CardType
    public var program: String
    /// ISO 4217 alpha-3.
    public var currency: String
    public var mobile: String?
    public var pin: Secret?
    public var externalID: String?
    public var deliveryAddress: DeliveryAddress?
    public var termsAndConditionsAccepted: Bool?
    public var eDisclosureAccepted: Bool?
    /// The name printed or embossed on the card. Personal data: never logged nor shown in ``description``.
    /// Issuers that need it (Adyen's `card.cardholderName`) refuse a request without it before anything is sent;
    /// the others ignore it.
    public var cardholderName: String?
    /// Where the card is issued, ISO 3166-1 alpha-2 (`NL`, `US`). When nil, an adapter whose issuer needs it (Adyen's
    /// `issuingCountryCode`) may use ``deliveryAddress``'s `countryCode`; the others ignore it.
    public var issuingCountryCode: String?
    /// The cardholder's app or browser, as its user agent names it, where the provider records it with the change
    /// (Paysafe's `userAgent`, at most 1,000 characters); nil for the adapter's configured default.
    public var userAgent: String?

    public init(
        customer: String, type: CardType, program: String, currency: String, mobile: String? = nil,
        pin: Secret? = nil, externalID: String? = nil, deliveryAddress: DeliveryAddress? = nil,
        termsAndConditionsAccepted: Bool? = nil, eDisclosureAccepted: Bool? = nil, cardholderName: String? = nil,
        issuingCountryCode: String? = nil
    ) {
        self.cardholderName = cardholderName
        self.issuingCountryCode = issuingCountryCode
        self.customer = customer
        self.type = type
        self.program = program
        self.currency = currency
        self.mobile = mobile
        self.pin = pin
        self.externalID = externalID
        self.deliveryAddress = deliveryAddress
        self.termsAndConditionsAccepted = termsAndConditionsAccepted
        self.eDisclosureAccepted = eDisclosureAccepted
    }

    public var description: String {
        "CreateCardRequest(customer: \(customer), type: \(type), program: \(program), currency: \(currency))"
    }
}

/// Activation of a physical card with data printed on it.
public struct ActivateCardRequest: Sendable, CustomStringConvertible {
    public var card: CardRef
    public var lastFour: String
    public var cvv: Secret
    /// The cardholder's app or browser, as its user agent names it, where the provider records it with the change
    /// (Paysafe's `userAgent`, at most 1,000 characters); nil for the adapter's configured default.
    public var userAgent: String?

    public init(card: CardRef, lastFour: String, cvv: Secret) {
        self.card = card
        self.lastFour = lastFour
        self.cvv = cvv
    }

    public var description: String { "ActivateCardRequest(card: \(card))" }
}

/// What a support desk asks of a card's status. Each provider maps the intent onto its own states (see
/// <doc:CardLifecycle>): lock and unlock are reversible, cancel is final.
public struct CardStatusIntent: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// Stop the card being used until it is unlocked.
    public static let lock = CardStatusIntent("lock")
    /// Make a locked card usable again.
    public static let unlock = CardStatusIntent("unlock")
    /// Close the card for good.
    public static let cancel = CardStatusIntent("cancel")

    public static let allCases: [CardStatusIntent] = [.lock, .unlock, .cancel]

    /// The operation (and so the capability) the intent needs.
    public var operation: GatewayOperation {
        switch rawValue {
        case "lock": return .lockCard
        case "unlock": return .unlockCard
        default: return .cancelCard
        }
    }
}

/// Why a card or wallet token changes status, in the words most issuers share. A provider with no place for a
/// reason ignores it; one with a closed list refuses the reasons it does not have, before anything is sent.
public struct CardStatusReason: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    public static let lost = CardStatusReason("lost")
    public static let stolen = CardStatusReason("stolen")
    public static let damaged = CardStatusReason("damaged")
    public static let suspectedFraud = CardStatusReason("suspectedFraud")
    /// The cardholder asked for it (a temporary lock, a card no longer wanted).
    public static let cardholderRequest = CardStatusReason("cardholderRequest")
    public static let other = CardStatusReason("other")

    public static let allCases: [CardStatusReason] = [
        .lost, .stolen, .damaged, .suspectedFraud, .cardholderRequest, .other,
    ]
}

/// A lock, unlock or cancellation of one card.
public struct CardStatusRequest: Sendable, Equatable, CustomStringConvertible {
    public var card: CardRef
    public var intent: CardStatusIntent
    public var reason: CardStatusReason?
    /// The cardholder's app or browser, as its user agent names it, where the provider records it with the change
    /// (Paysafe's `userAgent`, at most 1,000 characters); nil for the adapter's configured default.
    public var userAgent: String?
    /// Free text for the provider's record (Adyen `statusComment`, Paysafe `statusReason`), when it has a place.
    public var comment: String?

    public init(card: CardRef, intent: CardStatusIntent, reason: CardStatusReason? = nil, comment: String? = nil) {
        self.card = card
        self.intent = intent
        self.reason = reason
        self.comment = comment
    }

    public var description: String {
        "CardStatusRequest(card: \(card), intent: \(intent), reason: \(reason?.rawValue ?? "none"))"
    }
}

/// A new PIN for a card.
public struct SetCardPINRequest: Sendable, CustomStringConvertible {
    public var card: CardRef
    public var pin: Secret

    public init(card: CardRef, pin: Secret) {
        self.card = card
        self.pin = pin
    }

    public var description: String { "SetCardPINRequest(card: \(card), pin: <redacted>)" }
}

/// What a support desk asks of a wallet token: suspend and resume are reversible, delete is final.
public struct WalletTokenIntent: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    public static let suspend = WalletTokenIntent("suspend")
    public static let resume = WalletTokenIntent("resume")
    public static let delete = WalletTokenIntent("delete")

    public static let allCases: [WalletTokenIntent] = [.suspend, .resume, .delete]

    /// The operation the intent is routed and recorded as.
    public var operation: GatewayOperation {
        switch rawValue {
        case "suspend": return .suspendWalletToken
        case "resume": return .resumeWalletToken
        default: return .deleteWalletToken
        }
    }

    /// The status the token has once the intent is done.
    public var resultingStatus: WalletTokenStatus {
        switch rawValue {
        case "suspend": return .suspended
        case "resume": return .active
        default: return .deleted
        }
    }
}

/// A suspension, resumption or deletion of one wallet token of one card.
public struct WalletTokenRequest: Sendable, Equatable, CustomStringConvertible {
    /// The card the token belongs to (checked: a token of another card is `notFound`).
    public var card: CardRef
    /// The token's id, as ``WalletToken/id`` gives it.
    public var token: String
    public var intent: WalletTokenIntent
    public var reason: CardStatusReason?

    public init(card: CardRef, token: String, intent: WalletTokenIntent, reason: CardStatusReason? = nil) {
        self.card = card
        self.token = token
        self.intent = intent
        self.reason = reason
    }

    public var description: String { "WalletTokenRequest(card: \(card), token: \(token), intent: \(intent))" }
}

/// A change to a card: its status (lock, unlock, cancel…) or its PIN, in the shape of Paysafe's card update (the
/// Paysafe adapter's own `updateCard(_:context:)` sends it; the gateway's neutral calls are ``CardStatusRequest`` and
/// ``SetCardPINRequest``).
public struct UpdateCardRequest: Sendable, CustomStringConvertible {
    public enum Change: Sendable {
        case status(CardStatus, reason: String?)
        case pin(Secret)
    }

    public var card: CardRef
    public var change: Change
    /// The cardholder's app or browser, as its user agent names it, where the provider records it with the change
    /// (Paysafe's `userAgent`, at most 1,000 characters); nil for the adapter's configured default.
    public var userAgent: String?

    public init(card: CardRef, change: Change) {
        self.card = card
        self.change = change
    }

    public var description: String {
        switch change {
        case .status(let status, _): return "UpdateCardRequest(card: \(card), status: \(status))"
        case .pin: return "UpdateCardRequest(card: \(card), pin: <redacted>)"
        }
    }
}

/// A card program a customer may get a card on.
public struct CardProgram: Sendable, Codable, Equatable {
    public var name: String
    public var type: CardType
    public var scheme: CardScheme
    public var currencies: [String]
    /// How many cards may be issued on it.
    public var allowableCards: Int
    public var isDigital: Bool

    public init(
        name: String, type: CardType, scheme: CardScheme, currencies: [String], allowableCards: Int,
        isDigital: Bool = false
    ) {
        self.name = name
        self.type = type
        self.scheme = scheme
        self.currencies = currencies
        self.allowableCards = allowableCards
        self.isDigital = isDigital
    }
}
