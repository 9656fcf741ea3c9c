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
        if !Money.isCurrencyCode(currency) { problems.append("\(field).currency must be an ISO 4217 alpha-3 code such as GBP") }
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

/// How the shopper pays in the app session.
public enum PaymentMethodKind: String, Sendable, Codable, CaseIterable {
    case card
    case applePay
    case googlePay
}

/// A session for the provider's client SDK: store a card with consent, or pay with a stored one.
public struct ClientSessionRequest: Sendable, Equatable {
    public enum Intent: Sendable, Equatable {
        /// Check and store the card; consent must be recorded.
        case store(consent: CardholderConsent?)
        /// Pay with a stored credential; the app collects only the security code.
        case reuse(reference: String)
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
        reference: String, provider: String? = nil, maskedPAN: String, brand: String?, scheme: CardScheme, customer: String? = nil, created: Date,
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

/// Why a merchant charges a stored card without the cardholder present.
public enum MerchantInitiatedReason: String, Sendable, Codable, CaseIterable {
    case unscheduled
    case reauthorisation
    case delayed
}

public enum ChargeInitiator: Sendable, Equatable {
    case customer
    case merchant(MerchantInitiatedReason)
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

public enum ChargeStatus: String, Sendable, Codable {
    /// Authorised, waiting to settle.
    case authorised
    case settled
    /// Suspended for review at the provider.
    case suspended
}

public struct ChargeResult: Sendable, Codable, Equatable {
    public var transactionReference: String
    public var parentReference: String
    public var status: ChargeStatus
    public var amount: Money
    public var authCode: String?
    public var providerStatus: String

    public init(transactionReference: String, parentReference: String, status: ChargeStatus, amount: Money, authCode: String?, providerStatus: String) {
        self.transactionReference = transactionReference
        self.parentReference = parentReference
        self.status = status
        self.amount = amount
        self.authCode = authCode
        self.providerStatus = providerStatus
    }
}
