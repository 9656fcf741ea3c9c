import Foundation
import HTTPTypes

// Real-time authorization: the provider asks the backend, synchronously and against a deadline, whether to approve a
// card purchase (Stripe's `issuing_authorization.request`, Adyen's relayed authorisation, Marqeta's Gateway JIT
// Funding). The gateway verifies and normalises the provider's message, decides (local rules, then the integrator's
// decider, within a budget), and answers in the provider's wire; see `CardGateway.respondToAuthorization`.

/// A provider's real-time authorization request, normalised: the integrator's one contract, whichever provider sent
/// it. Amounts are ISO 4217 minor units and always positive (Adyen's negative debit amounts are turned round);
/// countries are ISO 3166-1 alpha-2 (Adyen's and Marqeta's alpha-3 are converted); merchant category codes are the
/// four-digit strings the networks use.
public struct AuthorizationRequest: Sendable, Equatable {
    /// What the provider asks. A struct with static members, so that a new kind breaks no caller's `switch`.
    public struct Kind: GrowableName {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// A purchase to approve or decline.
        public static let authorization = Kind("authorization")
        /// More money on an authorization already approved (a hotel, a fuel pump).
        public static let incremental = Kind("incremental")
        /// A question about the balance (Marqeta answers it with the balance).
        public static let balanceInquiry = Kind("balanceInquiry")
        /// A notice the provider only wants acknowledged (a capture, a reversal, a clearing): no decider is asked.
        public static let informative = Kind("informative")

        public static let allCases: [Kind] = [.authorization, .incremental, .balanceInquiry, .informative]
    }

    /// The merchant as the network describes it.
    public struct Merchant: Sendable, Equatable {
        public var name: String?
        /// The merchant category code (four digits, "5411").
        public var categoryCode: String?
        /// ISO 3166-1 alpha-2, upper case; nil when the provider sent none or one that is not a country.
        public var country: String?
        public var city: String?
        /// The network's merchant id.
        public var networkID: String?

        public init(
            name: String? = nil, categoryCode: String? = nil, country: String? = nil, city: String? = nil,
            networkID: String? = nil
        ) {
            self.name = name
            self.categoryCode = categoryCode
            self.country = country
            self.city = city
            self.networkID = networkID
        }
    }

    /// The provider's id of the authorization (Stripe `iauth_…`, Adyen's `id`, Marqeta's transaction `token`): the
    /// key under which a repeated delivery is recognised.
    public var id: String
    public var providerKind: ProviderKind
    /// The provider instance that received it; set by the gateway.
    public var instance: String?
    public var kind: Kind
    public var card: CardRef
    /// The amount to approve, in the card's currency, positive.
    public var amount: Money
    /// The amount in the merchant's currency, when the provider gives it and it differs.
    public var merchantAmount: Money?
    /// Whether an approval may be for less than ``amount`` (Stripe's `is_amount_controllable`, Marqeta's partial
    /// approval); false where the provider cannot take a smaller amount (Adyen).
    public var amountAdjustable: Bool
    public var merchant: Merchant
    /// How the card was presented, as the provider names it (Stripe `point_of_sale.entry_mode`…), when given.
    public var entryMode: String?
    /// The network's risk score, when the provider passes it on.
    public var networkRiskScore: Int?
    /// When the gateway must have answered: the decider's budget ends here. Set by the gateway.
    public var deadline: Date?

    public init(
        id: String, providerKind: ProviderKind, instance: String? = nil, kind: Kind, card: CardRef, amount: Money,
        merchantAmount: Money? = nil, amountAdjustable: Bool, merchant: Merchant, entryMode: String? = nil,
        networkRiskScore: Int? = nil, deadline: Date? = nil
    ) {
        self.id = id
        self.providerKind = providerKind
        self.instance = instance
        self.kind = kind
        self.card = card
        self.amount = amount
        self.merchantAmount = merchantAmount
        self.amountAdjustable = amountAdjustable
        self.merchant = merchant
        self.entryMode = entryMode
        self.networkRiskScore = networkRiskScore
        self.deadline = deadline
    }
}

/// Why an authorization is declined: one vocabulary, which each adapter maps to its provider's (Marqeta's
/// `decline_reason`, Adyen's `refusalReason`, Stripe's `metadata`, since Stripe takes no reason).
public struct AuthorizationDeclineReason: GrowableName {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    public static let insufficientFunds = Self("insufficientFunds")
    public static let merchantCategoryBlocked = Self("merchantCategoryBlocked")
    public static let merchantCountryBlocked = Self("merchantCountryBlocked")
    public static let amountLimitExceeded = Self("amountLimitExceeded")
    public static let cardInactive = Self("cardInactive")
    public static let suspectedFraud = Self("suspectedFraud")
    /// Any other reason, and every reason this version does not know (``init(reading:)``).
    public static let other = Self("other")

    public static let allCases: [Self] = [
        .insufficientFunds, .merchantCategoryBlocked, .merchantCountryBlocked, .amountLimitExceeded, .cardInactive,
        .suspectedFraud, .other,
    ]

    /// The reason named `text`, or ``other`` for a name this version does not know.
    public init(reading text: String) {
        self = Self(rawValue: text) ?? .other
    }
}

/// What to answer: approve (in full, or for a smaller amount where the request allows it) or decline with a reason.
public struct AuthorizationDecision: Sendable, Equatable, CustomStringConvertible {
    /// True to approve.
    public var approved: Bool
    /// For an approval: the amount approved when it is less than the request's (a partial approval); nil for all of
    /// it. Allowed only when the request's ``AuthorizationRequest/amountAdjustable`` is true.
    public var amount: Money?
    /// For a balance inquiry: the balance to report.
    public var balance: Money?
    /// For a decline: why.
    public var reason: AuthorizationDeclineReason?

    private init(approved: Bool, amount: Money?, balance: Money?, reason: AuthorizationDeclineReason?) {
        self.approved = approved
        self.amount = amount
        self.balance = balance
        self.reason = reason
    }

    /// Approves the request, in full or, where the request allows it, for `amount`.
    public static func approve(amount: Money? = nil, balance: Money? = nil) -> AuthorizationDecision {
        AuthorizationDecision(approved: true, amount: amount, balance: balance, reason: nil)
    }

    public static func decline(_ reason: AuthorizationDeclineReason) -> AuthorizationDecision {
        AuthorizationDecision(approved: false, amount: nil, balance: nil, reason: reason)
    }

    public var description: String {
        if approved { return amount.map { "approve \($0)" } ?? "approve" }
        return "decline (\(reason ?? .other))"
    }

    /// Why this decision cannot answer `request`, or nil when it can: a partial amount where the request takes none,
    /// one in another currency, or one that is not less than the request's.
    public func problem(answering request: AuthorizationRequest) -> String? {
        guard approved, let amount else { return nil }
        if !request.amountAdjustable {
            return "approves \(amount), but the request's amount cannot be adjusted"
        }
        if amount.currency != request.amount.currency {
            return "approves an amount in \(amount.currency) for a request in \(request.amount.currency)"
        }
        if amount.minorUnits <= 0 || amount.minorUnits > request.amount.minorUnits {
            return "approves \(amount), which is not a positive amount up to the request's \(request.amount)"
        }
        return nil
    }
}

/// The integrator's policy: decides each authorization the local rules let through. The gateway calls it with a
/// budget (``AuthorizationRequest/deadline``); an answer after it, or an error, is replaced by the instance's
/// stand-in. The provisioning server's `--authorization-decider URL` is one implementation (it forwards the request
/// as JSON).
public protocol AuthorizationDecider: Sendable {
    func decide(_ request: AuthorizationRequest) async throws -> AuthorizationDecision
}

/// A decider made of a closure.
public struct ClosureAuthorizationDecider: AuthorizationDecider {
    private let body: @Sendable (AuthorizationRequest) async throws -> AuthorizationDecision

    public init(_ body: @escaping @Sendable (AuthorizationRequest) async throws -> AuthorizationDecision) {
        self.body = body
    }

    public func decide(_ request: AuthorizationRequest) async throws -> AuthorizationDecision {
        try await body(request)
    }
}

/// The provider's message as the adapter read it: the normalised request, and what the answer must repeat.
public struct ProviderAuthorization: Sendable {
    public var request: AuthorizationRequest
    /// Values from the provider's message that its answer repeats (Marqeta's `jit_funding` token, method and user
    /// token; the `Stripe-Version` to answer with): the adapter's own, opaque to the gateway.
    public var echo: [String: String]

    public init(request: AuthorizationRequest, echo: [String: String] = [:]) {
        self.request = request
        self.echo = echo
    }
}

/// An answer in the provider's wire: the HTTP status, headers and body the provider reads.
public struct AuthorizationAnswer: Sendable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var headers: HTTPFields
    public var body: Data

    public init(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var description: String { "AuthorizationAnswer(\(status.code), \(body.count) bytes)" }
}

/// Who made a decision.
public struct AuthorizationDecidedBy: GrowableName {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// The integrator's decider, within the budget.
    public static let decider = Self("decider")
    /// The configuration's local rules (a rule declined, or there is no decider and none did).
    public static let rules = Self("rules")
    /// The instance's stand-in: the decider was late or failed, or its decision could not answer the request.
    public static let standIn = Self("standIn")
    /// Nobody: an informative message, acknowledged.
    public static let acknowledgement = Self("acknowledgement")

    public static let allCases: [Self] = [.decider, .rules, .standIn, .acknowledgement]
}

/// What the gateway answered to one delivery, and how it came to it.
public struct AuthorizationOutcome: Sendable {
    public var request: AuthorizationRequest
    public var decision: AuthorizationDecision
    public var decidedBy: AuthorizationDecidedBy
    /// For a stand-in: why the decider's answer was not used ("the decider did not answer within 1500 ms"…).
    public var standInReason: String?
    /// For a decline by a local rule: the rule's name (or its place, `authorizationRules[2]`).
    public var rule: String?
    /// True when this delivery repeated one already decided, and got the recorded decision.
    public var replayed: Bool
    /// The answer to send the provider.
    public var answer: AuthorizationAnswer

    public init(
        request: AuthorizationRequest, decision: AuthorizationDecision, decidedBy: AuthorizationDecidedBy,
        standInReason: String? = nil, rule: String? = nil, replayed: Bool = false, answer: AuthorizationAnswer
    ) {
        self.request = request
        self.decision = decision
        self.decidedBy = decidedBy
        self.standInReason = standInReason
        self.rule = rule
        self.replayed = replayed
        self.answer = answer
    }
}
