import Foundation

/// Identifies a card at its provider. Paysafe and Bridge address cards under a customer, so the customer id
/// travels with the card id.
public struct CardRef: Hashable, Sendable, Codable, CustomStringConvertible {
    public var id: String
    public var customer: String?

    public init(id: String, customer: String? = nil) {
        self.id = id
        self.customer = customer
    }

    public var description: String { customer.map { "\($0)/\(id)" } ?? id }
}

/// The normalised status of a card. `providerStatus` on ``Card`` keeps the provider's own word.
///
/// A struct with static members, so that a new status breaks no caller's `switch` (match with a `default:`); the
/// raw value is stable in JSON, ledger rows and configuration. `init?(rawValue:)` accepts only the statuses this
/// version knows; decoding keeps any word, so a row written by a newer version reads back, compares equal to none
/// of the members below (``isKnown`` is false) and encodes again unchanged.
public struct CardStatus: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }
    /// Keeps a word this version does not know (see the type's note).
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }
    /// Whether this version knows the status (false only for a word decoded from a newer version's data).
    public var isKnown: Bool { Self.allCases.contains(self) }

    /// Usable.
    public static let active = CardStatus("active")
    /// Issued but not activated yet (Paysafe ISSUED, Stripe and Adyen inactive, Bridge inactive).
    public static let inactive = CardStatus("inactive")
    /// A physical card usable online only until it is activated (Paysafe DIGITAL).
    public static let digital = CardStatus("digital")
    /// Being applied for or checked (Paysafe PENDING and APPLIED, Bridge pending).
    public static let pending = CardStatus("pending")
    /// Locked by the cardholder; reversible (Paysafe LOCKED, Bridge frozen by the customer).
    public static let locked = CardStatus("locked")
    /// Suspended by the issuer; reversible by the issuer (Paysafe SUSPENDED, Adyen suspended, Bridge frozen).
    public static let suspended = CardStatus("suspended")
    /// Cancelled or closed for good.
    public static let cancelled = CardStatus("cancelled")
    public static let expired = CardStatus("expired")
    public static let rejected = CardStatus("rejected")
    /// The provider's word maps to none of the above (its own word is kept in `providerStatus`).
    public static let unknown = CardStatus("unknown")

    public static let allCases: [CardStatus] = [
        .active, .inactive, .digital, .pending, .locked, .suspended, .cancelled, .expired, .rejected, .unknown,
    ]
}

/// Whether a card is a plastic or only a number. A struct with static members, like ``CardStatus``, and decoded
/// the same way: a word this version does not know is kept.
public struct CardType: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }
    /// Keeps a word this version does not know.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }
    /// Whether this version knows the type (false only for a word decoded from a newer version's data).
    public var isKnown: Bool { Self.allCases.contains(self) }

    public static let physical = CardType("physical")
    public static let virtual = CardType("virtual")
    public static let unknown = CardType("unknown")

    public static let allCases: [CardType] = [.physical, .virtual, .unknown]
}

/// A card network. A struct with static members, so that a new network breaks no caller's `switch`.
public struct CardScheme: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    public static let visa = CardScheme("visa")
    public static let mastercard = CardScheme("mastercard")
    public static let amex = CardScheme("amex")
    public static let discover = CardScheme("discover")
    /// The provider named a network this version does not map (its own word is kept on the card).
    public static let unknown = CardScheme("unknown")

    public static let allCases: [CardScheme] = [.visa, .mastercard, .amex, .discover, .unknown]
}

public struct CardExpiry: Hashable, Sendable, Codable, CustomStringConvertible {
    /// 1–12.
    public var month: Int
    /// Four digits.
    public var year: Int

    public init(month: Int, year: Int) {
        self.month = month
        self.year = year < 100 ? 2000 + year : year
    }

    public var description: String { String(format: "%02d/%04d", month, year) }
}

/// An action a provider says the card allows now (Paysafe `AVAILABLE_ACTIONS`). Unknown actions are kept.
///
/// Not a ``GrowableName``: an action the core does not name is the provider's own word, kept as it is, so
/// `init(rawValue:)` takes any word (a growable name's `init?(rawValue:)` refuses one this version does not know).
public struct CardAction: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let activate = CardAction(rawValue: "activate")
    public static let cancel = CardAction(rawValue: "cancel")
    public static let lock = CardAction(rawValue: "lock")
    public static let unlock = CardAction(rawValue: "unlock")
    public static let showDetails = CardAction(rawValue: "showDetails")
    public static let showPin = CardAction(rawValue: "showPin")
    public static let setPin = CardAction(rawValue: "setPin")

    public var description: String { rawValue }
}

/// A card, normalised across providers. Fields a provider does not have are nil.
public struct Card: Sendable, Codable, Equatable {
    public var ref: CardRef
    /// The provider instance that answered (set by ``CardGateway``).
    public var provider: String?
    public var status: CardStatus
    /// The provider's own status word, verbatim.
    public var providerStatus: String
    public var statusReason: String?
    public var type: CardType
    public var scheme: CardScheme
    public var lastFour: String?
    public var expiry: CardExpiry?
    public var bin: String?
    public var program: String?
    public var currency: String?
    public var cardholderName: String?
    public var created: Date?
    public var walletTokens: [WalletToken]
    public var availableActions: [CardAction]

    public init(
        ref: CardRef, provider: String? = nil, status: CardStatus, providerStatus: String, statusReason: String? = nil,
        type: CardType = .unknown, scheme: CardScheme = .unknown, lastFour: String? = nil, expiry: CardExpiry? = nil,
        bin: String? = nil, program: String? = nil, currency: String? = nil, cardholderName: String? = nil,
        created: Date? = nil, walletTokens: [WalletToken] = [], availableActions: [CardAction] = []
    ) {
        self.ref = ref
        self.provider = provider
        self.status = status
        self.providerStatus = providerStatus
        self.statusReason = statusReason
        self.type = type
        self.scheme = scheme
        self.lastFour = lastFour
        self.expiry = expiry
        self.bin = bin
        self.program = program
        self.currency = currency
        self.cardholderName = cardholderName
        self.created = created
        self.walletTokens = walletTokens
        self.availableActions = availableActions
    }

    public var id: String { ref.id }
    public var customer: String? { ref.customer }
}

/// The status of a card's token in a wallet. A struct with static members, like ``CardStatus``, and decoded the
/// same way: a word this version does not know is kept.
public struct WalletTokenStatus: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }
    /// Keeps a word this version does not know.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }
    /// Whether this version knows the status (false only for a word decoded from a newer version's data).
    public var isKnown: Bool { Self.allCases.contains(self) }

    /// Requested or initiated, not yet usable.
    public static let requested = WalletTokenStatus("requested")
    public static let active = WalletTokenStatus("active")
    public static let suspended = WalletTokenStatus("suspended")
    /// Deleted or closed; final.
    public static let deleted = WalletTokenStatus("deleted")
    public static let unknown = WalletTokenStatus("unknown")

    public static let allCases: [WalletTokenStatus] = [.requested, .active, .suspended, .deleted, .unknown]
}

/// A card's token in a wallet (a network token, a Paysafe tokenization, a Stripe issuing token).
public struct WalletToken: Sendable, Codable, Equatable {
    public var id: String
    public var wallet: Wallet?
    public var status: WalletTokenStatus
    public var providerStatus: String
    /// The wallet's device account reference (Paysafe `dpanRef`), when known.
    public var deviceAccountReference: String?
    public var walletID: String?
    public var lastFour: String?
    public var network: CardScheme?
    public var created: Date?

    public init(
        id: String, wallet: Wallet?, status: WalletTokenStatus, providerStatus: String,
        deviceAccountReference: String? = nil, walletID: String? = nil, lastFour: String? = nil,
        network: CardScheme? = nil, created: Date? = nil
    ) {
        self.id = id
        self.wallet = wallet
        self.status = status
        self.providerStatus = providerStatus
        self.deviceAccountReference = deviceAccountReference
        self.walletID = walletID
        self.lastFour = lastFour
        self.network = network
        self.created = created
    }
}
