import Foundation

/// How one provider instance answers real-time authorizations: the instance's `authorizations` object,
/// `{"standIn": "decline", "budgetMilliseconds": 1500}`.
public struct AuthorizationSettings: Sendable, Equatable {
    /// What the gateway answers itself when the decider is late or fails.
    public struct StandIn: GrowableName {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }

        public static let approve = StandIn("approve")
        public static let decline = StandIn("decline")

        public static let allCases: [StandIn] = [.approve, .decline]
    }

    /// What the gateway answers when the provider's way back leaves no time to ask, by default: the provider's
    /// deadline less this margin is the decider's budget. Half a second covers writing the answer and its trip back
    /// to the provider over the internet, with room to spare.
    public static let defaultMargin: Duration = .milliseconds(500)

    /// The stand-in; ``StandIn/decline`` unless configured: no approval the integrator did not make or configure.
    public var standIn: StandIn
    /// How long the decider has, from the moment the delivery is read; nil for the provider's deadline less
    /// ``defaultMargin``.
    public var budget: Duration?

    public init(standIn: StandIn = .decline, budget: Duration? = nil) {
        self.standIn = standIn
        self.budget = budget
    }

    public static let `default` = AuthorizationSettings()

    /// The budget for a provider whose deadline is `deadline`: the configured one, or `deadline` less
    /// ``defaultMargin`` (and never less than a tenth of the deadline).
    public func budget(forDeadline deadline: Duration) -> Duration {
        if let budget { return budget }
        return max(deadline - Self.defaultMargin, deadline / 10)
    }
}

/// A local rule: declines an authorization that matches every condition it names, with its reason. Rules are the
/// configuration's `authorizationRules`, tried in order before the decider is asked, and the whole policy when
/// there is no decider (an authorization no rule declines is then approved).
///
/// ```json
/// "authorizationRules": [
///   {"name": "no gambling", "merchantCategories": ["7995"], "reason": "merchantCategoryBlocked"},
///   {"merchantCountries": ["KP", "IR"]},
///   {"amountAbove": {"currency": "USD", "minor": 50000}}
/// ]
/// ```
public struct AuthorizationRule: Sendable, Equatable {
    /// A name for logs and metrics; the rule's place (`authorizationRules[2]`) when none is given.
    public var name: String
    /// Merchant category codes (four digits) the rule matches.
    public var merchantCategories: Set<String>?
    /// Merchant countries (ISO 3166-1 alpha-2) the rule matches.
    public var merchantCountries: Set<String>?
    /// The rule matches an amount above this one, in this currency (amounts in other currencies do not match).
    public var amountAbove: Money?
    public var reason: AuthorizationDeclineReason

    public init(
        name: String, merchantCategories: Set<String>? = nil, merchantCountries: Set<String>? = nil,
        amountAbove: Money? = nil, reason: AuthorizationDeclineReason? = nil
    ) {
        self.name = name
        self.merchantCategories = merchantCategories
        self.merchantCountries = merchantCountries
        self.amountAbove = amountAbove
        self.reason =
            reason
            ?? (merchantCategories != nil
                ? .merchantCategoryBlocked
                : merchantCountries != nil
                    ? .merchantCountryBlocked : amountAbove != nil ? .amountLimitExceeded : .other)
    }

    /// True when `request` meets every condition the rule names (and the rule names at least one).
    public func matches(_ request: AuthorizationRequest) -> Bool {
        guard merchantCategories != nil || merchantCountries != nil || amountAbove != nil else { return false }
        if let categories = merchantCategories {
            guard let code = request.merchant.categoryCode, categories.contains(code) else { return false }
        }
        if let countries = merchantCountries {
            guard let country = request.merchant.country, countries.contains(country) else { return false }
        }
        if let limit = amountAbove {
            guard request.amount.currency == limit.currency, request.amount.minorUnits > limit.minorUnits else {
                return false
            }
        }
        return true
    }

    /// The first rule of `rules` that matches `request`.
    public static func firstMatch(
        in rules: [AuthorizationRule], for request: AuthorizationRequest
    )
        -> AuthorizationRule?
    {
        rules.first { $0.matches(request) }
    }
}

extension ConfigurationLoader {
    static let authorizationSettingsKeys: Set<String> = ["standIn", "budgetMilliseconds", "description"]
    static let authorizationRuleKeys: Set<String> = [
        "name", "merchantCategories", "merchantCountries", "amountAbove", "reason", "description",
    ]

    /// An instance's `"authorizations"` object; nil after reporting a problem.
    mutating func loadAuthorizationSettings(
        _ value: JSONValue, factory: ProviderFactory, path: String
    ) -> AuthorizationSettings? {
        guard let object = value.objectValue else {
            problem(path, "must be an object with standIn and budgetMilliseconds, not \(value.typeName)")
            return nil
        }
        checkUnknownKeys(object, allowed: Self.authorizationSettingsKeys, path: path)
        var valid = object.keys.allSatisfy(Self.authorizationSettingsKeys.contains)
        guard factory.descriptor.capabilities.contains(.authorizations) else {
            problem(path, "\(factory.kind.name) does not answer real-time authorizations")
            return nil
        }
        var settings = AuthorizationSettings.default
        if let standIn = object["standIn"] {
            if let text = standIn.stringValue, let known = AuthorizationSettings.StandIn(rawValue: text) {
                settings.standIn = known
            } else {
                problem("\(path).standIn", "must be \"approve\" or \"decline\"")
                valid = false
            }
        }
        if let budgetValue = object["budgetMilliseconds"] {
            let deadline = factory.descriptor.authorizationDeadline ?? .seconds(60)
            let limit = Int((deadline.timeInterval * 1000).rounded())
            if let milliseconds = budgetValue.intValue, milliseconds >= 1, milliseconds < limit {
                settings.budget = .milliseconds(milliseconds)
            } else {
                problem(
                    "\(path).budgetMilliseconds",
                    "must be a whole number of milliseconds from 1 to \(limit - 1), below \(factory.kind.name)'s deadline of \(limit) ms"
                )
                valid = false
            }
        }
        return valid ? settings : nil
    }

    /// The top-level `"authorizationRules"` array; nil after reporting a problem.
    mutating func loadAuthorizationRules(_ value: JSONValue) -> [AuthorizationRule]? {
        guard let array = value.arrayValue else {
            problem("authorizationRules", "must be an array of rules, not \(value.typeName)")
            return nil
        }
        var rules: [AuthorizationRule] = []
        var valid = true
        for (index, element) in array.enumerated() {
            let path = "authorizationRules[\(index)]"
            if let rule = loadAuthorizationRule(element, path: path) {
                rules.append(rule)
            } else {
                valid = false
            }
        }
        return valid ? rules : nil
    }

    private mutating func loadAuthorizationRule(_ value: JSONValue, path: String) -> AuthorizationRule? {
        guard let object = value.objectValue else {
            problem(path, "must be an object, not \(value.typeName)")
            return nil
        }
        checkUnknownKeys(object, allowed: Self.authorizationRuleKeys, path: path)
        var valid = object.keys.allSatisfy(Self.authorizationRuleKeys.contains)
        var name = path
        if let nameValue = object["name"] {
            if let text = nameValue.stringValue, !text.isEmpty, text.count <= 100 {
                name = text
            } else {
                problem("\(path).name", "must be a string of 1 to 100 characters")
                valid = false
            }
        }
        let categories = loadCodes(
            object["merchantCategories"], path: "\(path).merchantCategories", what: "four-digit merchant category codes"
        ) { $0.utf8.count == 4 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
        let countries = loadCodes(
            object["merchantCountries"], path: "\(path).merchantCountries",
            what: "ISO 3166-1 alpha-2 country codes such as GB"
        ) { $0.utf8.count == 2 && $0.allSatisfy { $0.isASCII && $0.isUppercase } }
        if categories == .some(nil) || countries == .some(nil) { valid = false }
        var amount: Money?
        if let amountValue = object["amountAbove"] {
            if let amountObject = amountValue.objectValue, Set(amountObject.keys) == ["currency", "minor"],
                let currency = amountObject["currency"]?.stringValue, Money.isCurrencyCode(currency),
                let minor = amountObject["minor"]?.intValue, minor >= 0
            {
                amount = Money(minorUnits: Int64(minor), currency: currency)
            } else {
                problem(
                    "\(path).amountAbove",
                    "must be {\"currency\": an ISO 4217 code such as USD, \"minor\": a whole number of minor units, 0 or more}"
                )
                valid = false
            }
        }
        var reason: AuthorizationDeclineReason?
        if let reasonValue = object["reason"] {
            if let text = reasonValue.stringValue, let known = AuthorizationDeclineReason(rawValue: text) {
                reason = known
            } else {
                problem(
                    "\(path).reason",
                    "must be one of \(AuthorizationDeclineReason.allCases.map(\.rawValue).joined(separator: ", "))")
                valid = false
            }
        }
        if object["merchantCategories"] == nil && object["merchantCountries"] == nil && object["amountAbove"] == nil {
            problem(path, "names no condition: give merchantCategories, merchantCountries or amountAbove")
            valid = false
        }
        guard valid else { return nil }
        return AuthorizationRule(
            name: name, merchantCategories: categories ?? nil, merchantCountries: countries ?? nil,
            amountAbove: amount, reason: reason)
    }

    /// nil when absent; .some(nil) after reporting a problem; the set otherwise.
    private mutating func loadCodes(
        _ value: JSONValue?, path: String, what: String, isValid: (String) -> Bool
    ) -> Set<String>?? {
        guard let value else { return nil }
        guard let array = value.arrayValue, !array.isEmpty else {
            problem(path, "must be a non-empty array of \(what)")
            return .some(nil)
        }
        var codes = Set<String>()
        for (index, element) in array.enumerated() {
            guard let text = element.stringValue, isValid(text) else {
                problem("\(path)[\(index)]", "must be one of the \(what)")
                return .some(nil)
            }
            codes.insert(text)
        }
        return .some(codes)
    }
}
