import Foundation

/// An amount in the currency's minor units (pence, cents).
public struct Money: Sendable, Codable, Equatable, CustomStringConvertible {
    public var minorUnits: Int64
    /// ISO 4217 alpha-3, upper case.
    public var currency: String

    public init(minorUnits: Int64, currency: String) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    public var description: String { "\(minorUnits) \(currency)" }

    /// Problems with this amount, as sentences naming the field (empty when valid).
    public func problems(field: String = "amount") -> [String] {
        var problems: [String] = []
        if minorUnits <= 0 { problems.append("\(field) must be a positive number of minor units") }
        if !Money.isCurrencyCode(currency) {
            problems.append("\(field).currency must be an ISO 4217 alpha-3 code such as GBP")
        }
        return problems
    }

    public static func isCurrencyCode(_ text: String) -> Bool {
        text.utf8.count == 3 && text.allSatisfy { $0.isASCII && $0.isUppercase }
    }
}

/// The cardholder's consent to keep the card on file, as the card schemes require it recorded.
public struct CardholderConsent: Sendable, Codable, Equatable {
    public var recordedAt: Date
    /// Where or how it was given (a terms version, a checkbox id).
    public var evidence: String

    public init(recordedAt: Date, evidence: String) {
        self.recordedAt = recordedAt
        self.evidence = evidence
    }
}

/// How the shopper pays in the app session. A struct with static members, so that a new method breaks no
/// caller's `switch`; the raw value is stable in JSON and configuration. An input: decoding accepts only the
/// methods this version knows (a method it cannot act on is refused, not carried).
public struct PaymentMethodKind: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    public static let card = PaymentMethodKind("card")
    public static let applePay = PaymentMethodKind("applePay")
    public static let googlePay = PaymentMethodKind("googlePay")

    public static let allCases: [PaymentMethodKind] = [.card, .applePay, .googlePay]
}

/// A session for the provider's client SDK: store a card with consent, or pay with a stored one.
public struct ClientSessionRequest: Sendable, Equatable {
    /// What the session is for. A struct over a private enum, so that a new intent breaks no caller: build one
    /// with `.store(consent:)` or `.reuse(reference:)`, read it with ``kind``, ``consent`` and ``reference``.
    public struct Intent: Sendable, Equatable {
        private enum Storage: Sendable, Equatable {
            case store(consent: CardholderConsent?)
            case reuse(reference: String)
        }

        /// Which intent this is. A struct with static members, so that a new intent breaks no caller's `switch`.
        public struct Kind: GrowableName {
            public let rawValue: String
            private init(_ rawValue: String) { self.rawValue = rawValue }

            public static let store = Kind("store")
            public static let reuse = Kind("reuse")

            public static let allCases: [Kind] = [.store, .reuse]
        }

        private let storage: Storage
        private init(_ storage: Storage) { self.storage = storage }

        /// Check and store the card; consent must be recorded.
        public static func store(consent: CardholderConsent?) -> Intent { Intent(.store(consent: consent)) }
        /// Pay with a stored credential; the app collects only the security code.
        public static func reuse(reference: String) -> Intent { Intent(.reuse(reference: reference)) }

        public var kind: Kind {
            switch storage {
            case .store: .store
            case .reuse: .reuse
            }
        }
        /// The cardholder's consent, for a store intent that recorded it.
        public var consent: CardholderConsent? { if case .store(let consent) = storage { consent } else { nil } }
        /// The stored credential's reference, for a reuse intent.
        public var reference: String? { if case .reuse(let reference) = storage { reference } else { nil } }
    }

    public var intent: Intent
    public var amount: Money
    public var paymentMethod: PaymentMethodKind
    public var customer: String?
    public var orderReference: String?
    /// Also run 3-D Secure with the check (store only).
    public var authenticate: Bool
    /// Also take the payment with the check (store only).
    public var authorise: Bool

    public init(
        intent: Intent, amount: Money, paymentMethod: PaymentMethodKind = .card, customer: String? = nil,
        orderReference: String? = nil, authenticate: Bool = false, authorise: Bool = false
    ) {
        self.intent = intent
        self.amount = amount
        self.paymentMethod = paymentMethod
        self.customer = customer
        self.orderReference = orderReference
        self.authenticate = authenticate
        self.authorise = authorise
    }
}

/// The token the app hands to the provider's SDK.
public struct ClientSession: Sendable, Equatable, CustomStringConvertible {
    public var token: Secret
    public var issuedAt: Date
    public var expires: Date?
    /// For a reuse session: the security-code length the app must collect (4 for Amex, 3 otherwise).
    public var securityCodeLength: Int?

    public init(token: Secret, issuedAt: Date, expires: Date? = nil, securityCodeLength: Int? = nil) {
        self.token = token
        self.issuedAt = issuedAt
        self.expires = expires
        self.securityCodeLength = securityCodeLength
    }

    public var description: String { "ClientSession(<redacted>, issuedAt: \(issuedAt))" }
}

/// A card kept on file at the provider.
public struct StoredCredential: Sendable, Codable, Equatable {
    /// The provider's reference, verbatim (Trust Payments `transactionreference`).
    public var reference: String
    public var provider: String?
    public var maskedPAN: String
    public var brand: String?
    public var scheme: CardScheme
    public var customer: String?
    public var created: Date
    /// When the cardholder consented to keeping the card, when known.
    public var consentRecordedAt: Date?
    /// When it was last charged, as the credential store noted it (``CredentialReferenceStore/markUsed(reference:at:)``).
    public var lastUsed: Date?

    public init(
        reference: String, provider: String? = nil, maskedPAN: String, brand: String?, scheme: CardScheme,
        customer: String? = nil, created: Date,
        consentRecordedAt: Date? = nil, lastUsed: Date? = nil
    ) {
        self.reference = reference
        self.provider = provider
        self.maskedPAN = maskedPAN
        self.brand = brand
        self.scheme = scheme
        self.customer = customer
        self.created = created
        self.consentRecordedAt = consentRecordedAt
        self.lastUsed = lastUsed
    }
}

/// Why a merchant charges a stored card without the cardholder present. A struct with static members, so that a
/// new reason breaks no caller's `switch`. An input: decoding accepts only the reasons this version knows.
public struct MerchantInitiatedReason: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    public static let unscheduled = MerchantInitiatedReason("unscheduled")
    public static let reauthorisation = MerchantInitiatedReason("reauthorisation")
    public static let delayed = MerchantInitiatedReason("delayed")

    public static let allCases: [MerchantInitiatedReason] = [.unscheduled, .reauthorisation, .delayed]
}

/// Who starts a charge. A struct over a private enum, so that a new initiator breaks no caller: build one with
/// `.customer` or `.merchant(reason)`, read it with ``kind`` and ``merchantReason``.
public struct ChargeInitiator: Sendable, Equatable {
    private enum Storage: Sendable, Equatable {
        case customer
        case merchant(MerchantInitiatedReason)
    }

    /// Which initiator this is. A struct with static members, so that a new one breaks no caller's `switch`.
    public struct Kind: GrowableName {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }

        public static let customer = Kind("customer")
        public static let merchant = Kind("merchant")

        public static let allCases: [Kind] = [.customer, .merchant]
    }

    private let storage: Storage
    private init(_ storage: Storage) { self.storage = storage }

    /// The cardholder is present and starts the charge.
    public static let customer = ChargeInitiator(.customer)
    /// The merchant charges the stored card without the cardholder, for `reason`.
    public static func merchant(_ reason: MerchantInitiatedReason) -> ChargeInitiator {
        ChargeInitiator(.merchant(reason))
    }

    public var kind: Kind {
        switch storage {
        case .customer: .customer
        case .merchant: .merchant
        }
    }
    /// Why the merchant charges, for a merchant-initiated charge.
    public var merchantReason: MerchantInitiatedReason? {
        if case .merchant(let reason) = storage { reason } else { nil }
    }
}

public struct ChargeRequest: Sendable, Equatable {
    public var reference: String
    public var amount: Money
    public var initiator: ChargeInitiator
    public var orderReference: String?

    public init(reference: String, amount: Money, initiator: ChargeInitiator, orderReference: String? = nil) {
        self.reference = reference
        self.amount = amount
        self.initiator = initiator
        self.orderReference = orderReference
    }
}

/// Where a charge stands. A struct with static members, like ``CardStatus``, and decoded the same way: a word this
/// version does not know (a ledger row written by a newer version) is kept.
public struct ChargeStatus: GrowableName, Codable {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }
    /// Keeps a word this version does not know.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }
    /// Whether this version knows the status (false only for a word decoded from a newer version's data).
    public var isKnown: Bool { Self.allCases.contains(self) }

    /// Authorised, waiting to settle.
    public static let authorised = ChargeStatus("authorised")
    public static let settled = ChargeStatus("settled")
    /// Suspended for review at the provider.
    public static let suspended = ChargeStatus("suspended")

    public static let allCases: [ChargeStatus] = [.authorised, .settled, .suspended]
}

public struct ChargeResult: Sendable, Codable, Equatable {
    public var transactionReference: String
    public var parentReference: String
    public var status: ChargeStatus
    public var amount: Money
    public var authCode: String?
    public var providerStatus: String

    public init(
        transactionReference: String, parentReference: String, status: ChargeStatus, amount: Money, authCode: String?,
        providerStatus: String
    ) {
        self.transactionReference = transactionReference
        self.parentReference = parentReference
        self.status = status
        self.amount = amount
        self.authCode = authCode
        self.providerStatus = providerStatus
    }
}
