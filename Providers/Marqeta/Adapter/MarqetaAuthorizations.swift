@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

// Marqeta Gateway JIT Funding (core-api/gateway-jit-funding-messages; CoreAPI 3.0.39 `jit_funding_api`): Marqeta posts
// a transaction-shaped message whose `gpa_order.jit_funding` asks the program gateway funding source to fund it, with
// the funding source's HTTP Basic credentials; the gateway answers HTTP 200 to approve and 402 to deny, both with
// `{"jit_funding": {token, method, user_token, amount, decline_reason?, memo?}}`. Providers/Marqeta/README.md cites
// each fact.

/// The program gateway funding source's HTTP Basic credentials (`basic_auth_username` / `basic_auth_password`), which
/// Marqeta sends with every JIT Funding request.
struct MarqetaAuthorizationCredentials: Sendable {
    var username: Secret
    var password: Secret
}

extension MarqetaProvider: AuthorizationResponding {
    /// Authenticates a JIT Funding request (HTTP Basic, compared in constant time with the instance's
    /// `authorizationUsername` / `authorizationPassword`) and reads it: the transaction `token` is the id, `card_token`
    /// the card, `gpa_order.jit_funding.amount` (a decimal in `currency_code`) the amount in minor units by the
    /// currency's exponent, `method` the kind (``MarqetaJIT/kind(ofMethod:)``), `card_acceptor` the merchant (its
    /// `country_code` alpha-3 or alpha-2, turned to alpha-2). The amount may be reduced only when the message says the
    /// terminal takes a partial approval (`pos.partial_approval_capable`). Marqeta signs no body and no timestamp, so a
    /// replay cannot be told from a retry: the gateway's ledger answers repeats by the transaction token.
    public func authorization(from delivery: WebhookDelivery, now: Date) throws -> ProviderAuthorization {
        guard let credentials = authorizationCredentials else {
            throw CardGatewayError(
                .invalidConfiguration,
                "providers.\(http.instance).credentials.authorizationUsername and authorizationPassword are not configured, so Marqeta JIT Funding requests cannot be authenticated",
                provider: http.instance, providerKind: .marqeta)
        }
        let expected = HeaderAuthentication.basicValue(
            username: credentials.username.revealedValue, password: credentials.password.revealedValue)
        let given = delivery.headers[.authorization] ?? ""
        guard ConstantTime.equals(Array(given.utf8), Array(expected.utf8)) else {
            throw CardGatewayError(
                .signatureInvalid, "the JIT Funding request's HTTP Basic credentials are not the funding source's",
                provider: http.instance, providerKind: .marqeta)
        }
        do {
            return try MarqetaJIT.read(delivery.body, now: now)
        } catch let problem as MarqetaJIT.Problem {
            throw CardGatewayError(
                .invalidRequest, "Marqeta's JIT Funding request could not be read: \(problem.reason)",
                provider: http.instance, providerKind: .marqeta)
        }
    }

    /// The JIT Funding response: HTTP 200 to approve (or to acknowledge an informative message), 402 to deny, with
    /// `{"jit_funding": {token, method, user_token, acting_user_token?, amount, decline_reason?, memo?, balances?}}`.
    /// `amount` is the approved amount (the request's, or the smaller one of a partial approval) as a decimal in the
    /// currency's exponent; a decline repeats the request's amount and names its reason (``MarqetaJIT/declineReasons``)
    /// with the gateway's own reason in `memo`. A balance inquiry's approval carries the balance in `balances`, keyed by
    /// currency, as `jit_funding_api.balances` defines it.
    public func answer(
        _ decision: AuthorizationDecision, to authorization: ProviderAuthorization
    ) throws -> AuthorizationAnswer {
        try MarqetaJIT.answer(decision, to: authorization)
    }
}

/// Marqeta's JIT Funding wire, read and written (plain functions, so the tests reach each rule alone).
enum MarqetaJIT {
    struct Problem: Error {
        var reason: String
    }

    /// Keys of ``ProviderAuthorization/echo``: what the answer repeats.
    enum Echo {
        static let token = "jit_funding.token"
        static let method = "jit_funding.method"
        static let userToken = "jit_funding.user_token"
        static let actingUserToken = "jit_funding.acting_user_token"
        static let received = "received"
    }

    /// HTTP 402 ("Request Failed"): Marqeta's status for a denied funding request.
    static let declineStatus = HTTPResponse.Status(code: 402)

    /// The gateway's decline reasons in Marqeta's `decline_reason` vocabulary (`jit_funding_api.decline_reason`). The
    /// three policy reasons that Marqeta's list cannot tell apart go out as `TRANSACTION_NOT_PERMITTED`, each with the
    /// gateway's reason in `memo`.
    static let declineReasons: [AuthorizationDeclineReason: String] = [
        .insufficientFunds: "INSUFFICIENT_FUNDS",
        .merchantCategoryBlocked: "TRANSACTION_NOT_PERMITTED",
        .merchantCountryBlocked: "TRANSACTION_NOT_PERMITTED",
        .amountLimitExceeded: "AMOUNT_LIMIT_EXCEEDED",
        .cardInactive: "CARD_NOT_ACTIVE",
        .suspectedFraud: "SUSPECTED_FRAUD",
        .other: "TRANSACTION_NOT_PERMITTED",
    ]

    static func declineReason(_ reason: AuthorizationDeclineReason) -> String {
        declineReasons[reason] ?? "TRANSACTION_NOT_PERMITTED"
    }

    /// The kind of a JIT Funding `method`, or nil for one Marqeta's enumeration (`jit_funding_api.method`) does not
    /// list. Funding requests for a purchase, cash or a PIN debit are authorizations; the two balance inquiries are
    /// balance inquiries; every other listed method (clearings, reversals, refunds, advices, captures, credits…) is
    /// informative and only acknowledged.
    static func kind(ofMethod method: String) -> AuthorizationRequest.Kind? {
        if authorizationMethods.contains(method) { return .authorization }
        if method == "pgfs.authorization.incremental" { return .incremental }
        if method == "pgfs.balanceinquiry" || method == "pgfs.pindebit.balanceinquiry" { return .balanceInquiry }
        if informativeMethods.contains(method) { return .informative }
        return nil
    }

    /// Methods that ask to fund a purchase or a withdrawal.
    static let authorizationMethods: Set<String> = [
        "pgfs.authorization", "pgfs.authorization.cashback", "pgfs.auth_plus_capture", "pgfs.pindebit",
        "pgfs.pindebit.authorization", "pgfs.pindebit.atm.withdrawal", "pgfs.pindebit.quasi.cash",
        "pgfs.pindebit.cashback", "pgfs.atm.withdrawal", "pgfs.authorization.quasi.cash", "pgfs.billpayment",
        "pgfs.authorization.account_verification",
    ]

    /// The other methods of `jit_funding_api.method`: notices of what happened, acknowledged with HTTP 200.
    static let informativeMethods: Set<String> = [
        "pgfs.authorization.clearing", "pgfs.authorization.advice", "pgfs.authorization.capture",
        "pgfs.authorization.reversal", "pgfs.refund", "pgfs.refund.authorization", "pgfs.refund.authorization.reversal",
        "pgfs.refund.authorization.clearing", "pgfs.force_capture", "pgfs.authorization.capture.chargeback",
        "pgfs.authorization.capture.chargeback.reversal", "pgfs.pindebit.chargeback",
        "pgfs.pindebit.chargeback.reversal", "pgfs.pindebit.refund", "pgfs.pindebit.authorization.clearing",
        "pgfs.pindebit.authorization.reversal", "pgfs.dispute.credit", "pgfs.dispute.debit",
        "pgfs.directdeposit.credit", "pgfs.directdeposit.debit", "pgfs.directdeposit.credit.reversal",
        "pgfs.directdeposit.debit.reversal", "pgfs.adjustment.credit", "pgfs.adjustment.debit",
        "pgfs.auth_plus_capture.standin", "pgfs.authorization.standin", "pgfs.network.load",
        "pgfs.original.credit.authorization", "pgfs.original.credit.auth_plus_capture",
        "pgfs.original.credit.authorization.clearing", "pgfs.original.credit.authorization.reversal",
        "pgfs.billpayment.capture", "pgfs.billpayment.reversal", "pgfs.atm.clearing.withdrawal",
        "pgfs.authorization.clearing.quasi.cash", "pgfs.product.inquiry",
    ]

    // MARK: Reading

    static func read(_ body: Data, now: Date) throws -> ProviderAuthorization {
        guard let message = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw Problem(reason: "it is not a JSON object")
        }
        // A load event carries `gpa_order`, an unload event `gpa_order_unload` (core-api/gateway-jit-funding-messages).
        guard
            let order = (message["gpa_order"] as? [String: Any]) ?? (message["gpa_order_unload"] as? [String: Any]),
            let jit = order["jit_funding"] as? [String: Any]
        else {
            throw Problem(reason: "it has no gpa_order.jit_funding")
        }
        let jitToken = try token(jit["token"], "gpa_order.jit_funding.token")
        let method = try token(jit["method"], "gpa_order.jit_funding.method", max: 64)
        let userToken = try token(jit["user_token"], "gpa_order.jit_funding.user_token")
        guard let kind = kind(ofMethod: method) else {
            throw Problem(reason: "gpa_order.jit_funding.method \(printable(method)) is not one of Marqeta's methods")
        }
        let id = try token(message["token"], "token")
        let card = try token(message["card_token"], "card_token")
        guard
            let currency = ((message["currency_code"] as? String) ?? (order["currency_code"] as? String))?
                .uppercased(),
            Money.isCurrencyCode(currency)
        else {
            throw Problem(reason: "currency_code is not an ISO 4217 code")
        }
        let minor = try minorUnits(jit["amount"], currency: currency, field: "gpa_order.jit_funding.amount")
        guard minor > 0 || (kind != .authorization && kind != .incremental) else {
            throw Problem(reason: "gpa_order.jit_funding.amount is not positive")
        }
        let acceptor = message["card_acceptor"] as? [String: Any] ?? [:]
        let pos = message["pos"] as? [String: Any] ?? [:]
        let merchant = AuthorizationRequest.Merchant(
            name: (acceptor["name"] as? String).map { SafeText.scrub($0, maxLength: 100) },
            categoryCode: (acceptor["mcc"] as? String).flatMap { mcc in
                mcc.utf8.count == 4 && mcc.allSatisfy({ $0.isASCII && $0.isNumber }) ? mcc : nil
            },
            country: (acceptor["country_code"] as? String).flatMap(CountryCodes.alpha2),
            city: (acceptor["city"] as? String).map { SafeText.scrub($0, maxLength: 100) },
            networkID: (acceptor["mid"] as? String).flatMap { mid in
                mid.utf8.count <= 50 && mid.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) ? mid : nil
            })
        let request = AuthorizationRequest(
            id: id, providerKind: .marqeta, kind: kind, card: CardRef(id: card, customer: userToken),
            amount: Money(minorUnits: minor, currency: currency),
            amountAdjustable: kind == .authorization && (pos["partial_approval_capable"] as? Bool) == true,
            merchant: merchant,
            entryMode: (pos["pan_entry_mode"] as? String).map { SafeText.scrub($0, maxLength: 40) },
            networkRiskScore: riskScore(message))
        var echo = [
            Echo.token: jitToken, Echo.method: method, Echo.userToken: userToken,
            Echo.received: InternetDateTime.format(now),
        ]
        if let acting = jit["acting_user_token"] as? String, !acting.isEmpty {
            echo[Echo.actingUserToken] = acting
        }
        return ProviderAuthorization(request: request, echo: echo)
    }

    /// `fraud.network.transaction_risk_score` (an integer in Marqeta's example), when given.
    static func riskScore(_ message: [String: Any]) -> Int? {
        guard let fraud = message["fraud"] as? [String: Any], let network = fraud["network"] as? [String: Any] else {
            return nil
        }
        if let score = network["transaction_risk_score"] as? Int { return score }
        return (network["transaction_risk_score"] as? String).flatMap { Int($0) }
    }

    static func token(_ value: Any?, _ field: String, max: Int = MarqetaAPI.tokenMaxLength) throws -> String {
        guard let text = value as? String, !text.isEmpty, text.utf8.count <= max else {
            throw Problem(reason: "\(field) is missing or longer than \(max) characters")
        }
        return text
    }

    /// A decimal amount (a JSON number, or a string of one) in minor units of `currency`: exact, or refused.
    static func minorUnits(_ value: Any?, currency: String, field: String) throws -> Int64 {
        let decimal: Decimal?
        if let text = value as? String {
            decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        } else if let integer = value as? Int {
            decimal = Decimal(integer)
        } else if let double = value as? Double, double.isFinite {
            // The shortest text that reads back as the same double is the decimal Marqeta wrote.
            decimal = Decimal(string: "\(double)", locale: Locale(identifier: "en_US_POSIX"))
        } else {
            decimal = nil
        }
        guard var amount = decimal, amount >= 0 else { throw Problem(reason: "\(field) is not a decimal amount") }
        amount *= pow(Decimal(10), exponent(of: currency))
        var rounded = Decimal()
        NSDecimalRound(&rounded, &amount, 0, .plain)
        guard rounded == amount, rounded < Decimal(Int64.max) else {
            throw Problem(reason: "\(field) has more decimals than \(currency) has minor units")
        }
        return NSDecimalNumber(decimal: rounded).int64Value
    }

    // MARK: Writing

    static func answer(
        _ decision: AuthorizationDecision, to authorization: ProviderAuthorization
    ) throws
        -> AuthorizationAnswer
    {
        let request = authorization.request
        guard let token = authorization.echo[Echo.token], let method = authorization.echo[Echo.method],
            let user = authorization.echo[Echo.userToken]
        else {
            throw CardGatewayError(
                .invalidRequest, "the authorization was not read by the Marqeta adapter", providerKind: .marqeta)
        }
        let amount = decision.approved ? (decision.amount ?? request.amount) : request.amount
        var members: [(String, String)] = [
            ("token", quoted(token)), ("method", quoted(method)), ("user_token", quoted(user)),
        ]
        if let acting = authorization.echo[Echo.actingUserToken] {
            members.append(("acting_user_token", quoted(acting)))
        }
        members.append(("amount", decimal(amount)))
        if !decision.approved {
            let reason = decision.reason ?? .other
            members.append(("decline_reason", quoted(declineReason(reason))))
            members.append(("memo", quoted("declined: \(reason.rawValue)")))
        } else if request.kind == .balanceInquiry, let balance = decision.balance {
            members.append(("balances", balances(balance, at: authorization.echo[Echo.received])))
        }
        let object = "{" + members.map { "\(quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}"
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return AuthorizationAnswer(
            status: decision.approved ? .ok : declineStatus, headers: headers,
            body: Data("{\"jit_funding\":\(object)}".utf8))
    }

    /// `balances` as `jit_funding_api` defines it: `cardholder_balance` objects keyed by currency code.
    static func balances(_ balance: Money, at time: String?) -> String {
        let amount = decimal(balance)
        let members = [
            ("available_balance", amount), ("balances", "{}"), ("credit_balance", "0"),
            ("currency_code", quoted(balance.currency)),
            ("last_updated_time", quoted(time ?? InternetDateTime.format(Date()))), ("ledger_balance", amount),
            ("pending_credits", "0"),
        ]
        return "{\(quoted(balance.currency)):{"
            + members.map { "\(quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}}"
    }

    /// `money` as a JSON decimal number in its currency's exponent (`1250 USD` → `12.50`, `500 JPY` → `500`).
    static func decimal(_ money: Money) -> String {
        let places = exponent(of: money.currency)
        let magnitude = money.minorUnits.magnitude
        guard places > 0 else { return (money.minorUnits < 0 ? "-" : "") + String(magnitude) }
        var divisor: UInt64 = 1
        for _ in 0..<places { divisor *= 10 }
        let fraction = String(magnitude % divisor)
        return (money.minorUnits < 0 ? "-" : "") + "\(magnitude / divisor)."
            + String(repeating: "0", count: places - fraction.count) + fraction
    }

    static func quoted(_ text: String) -> String {
        guard let data = try? JSONEncoder().encode(text) else { return "\"\"" }
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: Tables

    /// ISO 4217 minor units of every currency whose exponent is not 2; every other currency has 2.
    static let exponents: [String: Int] = [
        "BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0, "RWF": 0, "UGX": 0,
        "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
        "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
        "CLF": 4, "UYW": 4,
    ]

    static func exponent(of currency: String) -> Int { exponents[currency] ?? 2 }

    static func printable(_ text: String) -> String { MarqetaWebhookVerifier.printable(text) }
}
