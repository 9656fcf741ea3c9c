import Foundation

/// Which cards to list, and which page.
public struct CardQuery: Sendable, Equatable {
    public var customer: String?
    public var types: [CardType]
    public var statuses: [CardStatus]
    /// Page size; nil lets the provider choose.
    public var limit: Int?
    /// Index of the first record (0 = first).
    public var offset: Int
    public var includeWalletTokens: Bool
    public var includeAvailableActions: Bool

    public init(
        customer: String? = nil, types: [CardType] = [], statuses: [CardStatus] = [], limit: Int? = nil,
        offset: Int = 0, includeWalletTokens: Bool = false, includeAvailableActions: Bool = false
    ) {
        self.customer = customer
        self.types = types
        self.statuses = statuses
        self.limit = limit
        self.offset = offset
        self.includeWalletTokens = includeWalletTokens
        self.includeAvailableActions = includeAvailableActions
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

    public init(cards: [Card], total: Int?, limit: Int?, offset: Int, page: Int? = nil) {
        self.cards = cards
        self.total = total
        self.limit = limit
        self.offset = offset
        self.page = page
    }

    /// True when another page follows, as far as the provider's paging data tells.
    public var hasMore: Bool {
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

    public init(
        customer: String, type: CardType, program: String, currency: String, mobile: String? = nil,
        pin: Secret? = nil, externalID: String? = nil, deliveryAddress: DeliveryAddress? = nil,
        termsAndConditionsAccepted: Bool? = nil, eDisclosureAccepted: Bool? = nil
    ) {
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

    public var description: String { "CreateCardRequest(customer: \(customer), type: \(type), program: \(program), currency: \(currency))" }
}

/// Activation of a physical card with data printed on it.
public struct ActivateCardRequest: Sendable, CustomStringConvertible {
    public var card: CardRef
    public var lastFour: String
    public var cvv: Secret

    public init(card: CardRef, lastFour: String, cvv: Secret) {
        self.card = card
        self.lastFour = lastFour
        self.cvv = cvv
    }

    public var description: String { "ActivateCardRequest(card: \(card))" }
}

/// A change to a card: its status (lock, unlock, cancel…) or its PIN.
public struct UpdateCardRequest: Sendable, CustomStringConvertible {
    public enum Change: Sendable {
        case status(CardStatus, reason: String?)
        case pin(Secret)
    }

    public var card: CardRef
    public var change: Change

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

    public init(name: String, type: CardType, scheme: CardScheme, currencies: [String], allowableCards: Int, isDigital: Bool = false) {
        self.name = name
        self.type = type
        self.scheme = scheme
        self.currencies = currencies
        self.allowableCards = allowableCards
        self.isDigital = isDigital
    }
}
