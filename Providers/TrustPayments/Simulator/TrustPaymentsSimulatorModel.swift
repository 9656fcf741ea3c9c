import CardGatewaySimulation
import Foundation
import Synchronization

/// A card as the simulated gateway keeps it on a transaction.
struct SimulatedCard: Sendable, Equatable {
    var pan: String
    /// `MM/YYYY`.
    var expiryDate: String
    /// VISA, MASTERCARD, AMEX, DISCOVER.
    var paymentType: String

    var maskedPAN: String {
        let digits = Array(pan)
        guard digits.count > 10 else { return String(repeating: "#", count: digits.count) }
        return String(digits.prefix(6)) + String(repeating: "#", count: digits.count - 10) + String(digits.suffix(4))
    }

    var securityCodeLength: Int { paymentType == "AMEX" ? 4 : 3 }

    /// The payment type a card number's prefix shows, or nil for numbers the simulator does not issue.
    static func paymentType(forPAN pan: String) -> String? {
        if pan.hasPrefix("4") { return "VISA" }
        if pan.hasPrefix("34") || pan.hasPrefix("37") { return "AMEX" }
        if let two = Int(pan.prefix(2)), (51...55).contains(two) { return "MASTERCARD" }
        if let four = Int(pan.prefix(4)), (2221...2720).contains(four) { return "MASTERCARD" }
        if pan.hasPrefix("6011") || pan.hasPrefix("65") { return "DISCOVER" }
        return nil
    }

    static func luhnValid(_ pan: String) -> Bool {
        var sum = 0
        for (index, character) in pan.reversed().enumerated() {
            guard var digit = character.wholeNumberValue else { return false }
            if index % 2 == 1 {
                digit *= 2
                if digit > 9 { digit -= 9 }
            }
            sum += digit
        }
        return sum % 10 == 0
    }
}

/// One transaction the simulated gateway processed.
struct SimulatedTransaction: Sendable {
    var reference: String
    var siteReference: String
    var requestType: String
    var errorCode: String
    var settleStatus: String?
    var credentialsOnFile: String?
    /// Whether the card is on file on this transaction, so that it can be the parent of credentialsonfile 2: it
    /// succeeded and was flagged 1, or was flagged 2 on a parent that held the card on file.
    var holdsStoredCard: Bool
    var card: SimulatedCard?
    var baseAmount: String?
    var currency: String?
    var parent: String?
    var initiationReason: String?
}

/// The state and the rules of the simulated gateway, shared by `/json/`, `/jwt/` and the in-process SDK helper.
final class SimulatedGateway: Sendable {
    let credentials: TrustPaymentsSimulator.Credentials
    let clock: SimulationClock
    let transactions: SimulatorStore<String, SimulatedTransaction>
    let ids = DeterministicIDs(seed: 7)
    private let counter = Mutex(2_000_000)

    init(credentials: TrustPaymentsSimulator.Credentials, clock: SimulationClock) {
        self.credentials = credentials
        self.clock = clock
        self.transactions = SimulatorStore(Self.seedTransactions(credentials))
    }

    func reset() {
        transactions.reset(to: Self.seedTransactions(credentials))
        ids.reset()
        counter.withLock { $0 = 2_000_000 }
    }

    /// Every site the gateway knows: the merchant's and another merchant's.
    var knownSites: Set<String> {
        Set(credentials.siteReferences).union([TrustPaymentsSimulator.Seed.otherMerchantSiteReference])
    }

    /// A new reference in the `N-N-NNNNNNN` shape (`5-9-2000001`).
    func nextReference() -> String {
        let number = counter.withLock { value -> Int in
            value += 1
            return value
        }
        return "5-9-\(number)"
    }

    /// A gateway request reference in the docs' shape (`W42-4fq45cb0`).
    func gatewayRequestReference() -> String { ids.next(prefix: "W42-", length: 8) }

    func secrand() -> String { ids.next(prefix: "", length: 10) }

    static func seedTransactions(_ credentials: TrustPaymentsSimulator.Credentials) -> [(String, SimulatedTransaction)]
    {
        typealias Seed = TrustPaymentsSimulator.Seed
        let site = credentials.siteReferences.first ?? Seed.siteReference
        func card(_ pan: String, _ type: String) -> SimulatedCard {
            SimulatedCard(pan: pan, expiryDate: Seed.expiryDate, paymentType: type)
        }
        func transaction(
            _ reference: String, _ type: String, _ card: SimulatedCard, errorCode: String = "0", cof: String,
            stored: Bool,
            site: String = site
        ) -> (String, SimulatedTransaction) {
            (
                reference,
                SimulatedTransaction(
                    reference: reference, siteReference: site, requestType: type, errorCode: errorCode,
                    settleStatus: errorCode == "0" ? "100" : "3", credentialsOnFile: cof, holdsStoredCard: stored,
                    card: card,
                    baseAmount: type == "AUTH" ? "1050" : "0", currency: "GBP", parent: nil, initiationReason: nil
                )
            )
        }
        let visa = card(Seed.Card.visa, "VISA")
        return [
            transaction(Seed.Transaction.storedVisaAccountCheck, "ACCOUNTCHECK", visa, cof: "1", stored: true),
            transaction(Seed.Transaction.storedVisaAuth, "AUTH", visa, cof: "1", stored: true),
            transaction(
                Seed.Transaction.storedAmexAccountCheck, "ACCOUNTCHECK", card(Seed.Card.amex, "AMEX"), cof: "1",
                stored: true),
            transaction(
                Seed.Transaction.storedMastercardAuth, "AUTH", card(Seed.Card.mastercard, "MASTERCARD"), cof: "1",
                stored: true),
            transaction(Seed.Transaction.unstoredAuth, "AUTH", visa, cof: "0", stored: false),
            transaction(
                Seed.Transaction.declinedAccountCheck, "ACCOUNTCHECK", card(Seed.Card.declined, "VISA"),
                errorCode: "70000", cof: "1", stored: false),
            transaction(
                Seed.Transaction.otherMerchantStored, "ACCOUNTCHECK", visa, cof: "1", stored: true,
                site: Seed.otherMerchantSiteReference),
        ]
    }

    // MARK: Processing

    static let supportedRequestTypes: Set<String> = ["ACCOUNTCHECK", "THREEDQUERY", "AUTH"]
    static let supportedAccountTypes: Set<String> = ["ECOM", "MOTO", "RECUR"]

    /// An element for an error that stopped a request before any transaction was made.
    func errorElement(_ code: String, data: [String], requestType: String = "ERROR") -> [String: Any] {
        [
            "errorcode": code, "errormessage": GatewayMessages.message(code), "errordata": data,
            "requesttypedescription": requestType, "transactionstartedtimestamp": timestamp(),
        ]
    }

    func timestamp() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: clock.now())
    }

    /// Processes one request (one element of the envelope's `request`, or a JWT payload with the SDK's card
    /// fields) and returns its response elements: one per request type, stopping at the first that fails.
    func process(_ request: [String: Any], allowedSites: Set<String>, operatorName: String) -> [[String: Any]] {
        // Request types.
        var types: [String] = []
        if let list = request["requesttypedescriptions"] as? [Any] {
            types = list.compactMap { $0 as? String }
            if types.count != list.count { types = [] }
        } else if let single = request["requesttypedescription"] as? String {
            types = [single]
        }
        guard !types.isEmpty else { return [errorElement("60018", data: ["None"])] }
        if let unsupported = types.first(where: { !Self.supportedRequestTypes.contains($0) }) {
            return [errorElement("60018", data: [unsupported])]
        }

        // Site.
        var invalid: [String] = []
        func text(_ name: String) -> String? {
            guard let value = request[name] else { return nil }
            guard let string = value as? String else {
                invalid.append(name)
                return nil
            }
            return string.isEmpty ? nil : string
        }
        guard let site = text("sitereference") else { return [errorElement("30000", data: ["sitereference"])] }
        guard knownSites.contains(site) else { return [errorElement("30001", data: ["sitereference"])] }
        guard allowedSites.contains(site) else { return [errorElement("30006", data: ["sitereference"])] }

        // Fields.
        let accountType = text("accounttypedescription")
        if accountType.map({ !Self.supportedAccountTypes.contains($0) }) ?? true {
            invalid.append("accounttypedescription")
        }
        let currency = text("currencyiso3a")
        if currency.map({ $0.utf8.count != 3 || !$0.allSatisfy { $0.isASCII && $0.isUppercase } }) ?? true {
            invalid.append("currencyiso3a")
        }
        var amount: Int64?
        if let base = text("baseamount") {
            if base.allSatisfy(\.isASCII), base.allSatisfy(\.isNumber), let value = Int64(base) {
                amount = value
            } else {
                invalid.append("baseamount")
            }
        } else if let main = text("mainamount") {
            let parts = main.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count == 2, parts[1].count == 2, let units = Int64(parts[0]), let cents = Int64(parts[1]),
                units >= 0
            {
                amount = units * 100 + cents
            } else {
                invalid.append("mainamount")
            }
        } else {
            invalid.append("baseamount")
        }
        if let amount, amount == 0, types.contains(where: { $0 != "ACCOUNTCHECK" }) { invalid.append("baseamount") }
        let credentialsOnFile = text("credentialsonfile")
        if let credentialsOnFile, !["0", "1", "2"].contains(credentialsOnFile) { invalid.append("credentialsonfile") }
        let initiationReason = text("initiationreason")
        if let initiationReason, !["A", "C", "D"].contains(initiationReason) || credentialsOnFile != "2" {
            invalid.append("initiationreason")
        }
        let parentReference = text("parenttransactionreference")
        let orderReference = text("orderreference")
        let securityCode = text("securitycode")
        if let securityCode, !(securityCode.allSatisfy { $0.isASCII && $0.isNumber }) { invalid.append("securitycode") }

        // The card: from the parent, or from the request.
        var card: SimulatedCard?
        var parentHoldsStoredCard = false
        let pan = text("pan")
        // Without a parent the card must be in the request (credentialsonfile 2 without a parent is 20004 below).
        if pan == nil, parentReference == nil, credentialsOnFile != "2" {
            invalid.append("pan")
        }
        if let pan {
            let digits = pan.filter { $0 != " " }
            let type = SimulatedCard.paymentType(forPAN: digits)
            if !(12...19).contains(digits.count) || !digits.allSatisfy({ $0.isASCII && $0.isNumber })
                || !SimulatedCard.luhnValid(digits) || type == nil
            {
                invalid.append("pan")
            } else if let given = text("paymenttypedescription"), given.uppercased() != type {
                invalid.append("paymenttypedescription")
            }
            var expiry = text("expirydate")
            if expiry == nil, let month = text("expirymonth"), let year = text("expiryyear") {
                expiry = "\(month)/\(year)"
            }
            if let expiry, isValidExpiry(expiry) {
                if let type, !invalid.contains("pan") {
                    card = SimulatedCard(pan: digits, expiryDate: normalisedExpiry(expiry), paymentType: type)
                }
            } else {
                invalid.append("expirydate")
            }
            if let securityCode, let type, securityCode.count != (type == "AMEX" ? 4 : 3) {
                invalid.append("securitycode")
            }
            if securityCode == nil, accountType == "ECOM", credentialsOnFile != "2" { invalid.append("securitycode") }
        }
        if !invalid.isEmpty {
            var seen = Set<String>()
            return [errorElement("30000", data: invalid.filter { seen.insert($0).inserted })]
        }

        if credentialsOnFile == "2" && parentReference == nil {
            return [errorElement("20004", data: ["parenttransactionreference"], requestType: types[0])]
        }
        if let parentReference {
            guard let parent = transactions.get(parentReference), parent.siteReference == site else {
                return [errorElement("20004", data: ["parenttransactionreference"], requestType: types[0])]
            }
            if credentialsOnFile == "2" {
                let usable = parent.errorCode == "0" && parent.settleStatus != "3" && parent.holdsStoredCard
                let rightType = initiationReason != "A" || parent.requestType == "AUTH"
                guard usable, rightType else {
                    return [errorElement("20033", data: ["parenttransactionreference"], requestType: types[0])]
                }
            }
            guard let parentCard = parent.card else {
                return [errorElement("20033", data: ["parenttransactionreference"], requestType: types[0])]
            }
            if card == nil {
                card = parentCard
                if let securityCode, securityCode.count != parentCard.securityCodeLength {
                    return [errorElement("30000", data: ["securitycode"])]
                }
            }
            parentHoldsStoredCard = parent.holdsStoredCard
        }
        guard let card, let amount, let currency, let accountType else {
            return [errorElement("60025", data: ["request"])]
        }

        // The chain: each type is a transaction; a later one's parent is the earlier one.
        var elements: [[String: Any]] = []
        var previous = parentReference
        let behaviour = CardBehaviour.forCard(card.pan)
        for type in types {
            var errorCode: String
            var settleStatus: String?
            switch type {
            case "THREEDQUERY":
                errorCode = behaviour.threeDQueryErrorCode
                settleStatus = nil
            default:
                errorCode = behaviour.errorCode
                settleStatus = errorCode == "0" ? behaviour.settleStatus : "3"
                if type == "AUTH", errorCode == "0", let forced = CardBehaviour.forAmount(amount) {
                    errorCode = forced.errorCode
                    settleStatus = forced.settleStatus
                }
            }
            let succeeded = errorCode == "0" && settleStatus != "3"
            let stored = succeeded && (credentialsOnFile == "1" || (credentialsOnFile == "2" && parentHoldsStoredCard))
            let reference = nextReference()
            transactions.put(
                reference,
                SimulatedTransaction(
                    reference: reference, siteReference: site, requestType: type, errorCode: errorCode,
                    settleStatus: settleStatus,
                    credentialsOnFile: credentialsOnFile, holdsStoredCard: stored, card: card,
                    baseAmount: String(amount), currency: currency,
                    parent: previous, initiationReason: initiationReason
                ))

            var element: [String: Any] = [
                "transactionreference": reference, "requesttypedescription": type, "errorcode": errorCode,
                "errormessage": GatewayMessages.message(errorCode), "errordata": [String](),
                "maskedpan": card.maskedPAN,
                "paymenttypedescription": card.paymentType, "accounttypedescription": accountType,
                "baseamount": String(amount),
                "currencyiso3a": currency, "sitereference": site, "transactionstartedtimestamp": timestamp(),
                "livestatus": "0",
                "operatorname": operatorName, "dccenabled": "0", "issuercountryiso2a": "GB",
                "merchantname": "CardGateway simulated merchant",
            ]
            if let settleStatus { element["settlestatus"] = settleStatus }
            if let previous { element["parenttransactionreference"] = previous }
            if let credentialsOnFile { element["credentialsonfile"] = credentialsOnFile }
            if let initiationReason { element["initiationreason"] = initiationReason }
            if let orderReference { element["orderreference"] = orderReference }
            if let requestReference = request["requestreference"] as? String {
                element["requestreference"] = requestReference
            }
            switch type {
            case "THREEDQUERY":
                element["enrolled"] = "Y"
                element["status"] = errorCode == "0" ? "Y" : "N"
                element["threedversion"] = "2.2.0"
                if errorCode == "0" { element["eci"] = "05" }
            default:
                element["acquirerresponsecode"] = errorCode == "0" ? "00" : "05"
                element["authcode"] = errorCode == "0" ? "TEST\(reference.suffix(2))" : "DECLINED"
                if securityCode != nil { element["securityresponsesecuritycode"] = "2" }
            }
            elements.append(element)
            if errorCode != "0" { break }
            previous = reference
        }
        return elements
    }

    private func isValidExpiry(_ text: String) -> Bool {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let month = Int(parts[0]), let rawYear = Int(parts[1]), (1...12).contains(month),
            parts[1].count == 4 || parts[1].count == 2
        else { return false }
        let year = rawYear < 100 ? 2000 + rawYear : rawYear
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let now = calendar.dateComponents([.year, .month], from: clock.now())
        guard let currentYear = now.year, let currentMonth = now.month else { return false }
        return year > currentYear || (year == currentYear && month >= currentMonth)
    }

    private func normalisedExpiry(_ text: String) -> String {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let month = Int(parts[0]), let year = Int(parts[1]) else { return text }
        return String(format: "%02d/%04d", month, year < 100 ? 2000 + year : year)
    }
}
