import CardGatewaySimulation
import Foundation
import Synchronization

/// A card as the simulated gateway keeps it on a transaction.
struct TrustPaymentsSimulatorCard: Sendable, Equatable {
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
struct TrustPaymentsSimulatorTransaction: Sendable {
    var reference: String
    var siteReference: String
    var requestType: String
    var errorCode: String
    var settleStatus: String?
    var credentialsOnFile: String?
    /// Whether the card is on file on this transaction, so that it can be the parent of credentialsonfile 2: it
    /// succeeded and was flagged 1, or was flagged 2 on a parent that held the card on file.
    var holdsStoredCard: Bool
    var card: TrustPaymentsSimulatorCard?
    var baseAmount: String?
    var currency: String?
    var parent: String?
    var initiationReason: String?
}

/// The state and the rules of the simulated gateway, shared by `/json/`, `/jwt/` and the in-process SDK helper.
final class TrustPaymentsSimulatorGateway: Sendable {
    let credentials: TrustPaymentsSimulator.Credentials
    let clock: SimulationClock
    let transactions: SimulatorStore<String, TrustPaymentsSimulatorTransaction>
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

    static func seedTransactions(
        _ credentials: TrustPaymentsSimulator.Credentials
    ) -> [(String, TrustPaymentsSimulatorTransaction)] {
        typealias Seed = TrustPaymentsSimulator.Seed
        let site = credentials.siteReferences.first ?? Seed.siteReference
        func card(_ pan: String, _ type: String) -> TrustPaymentsSimulatorCard {
            TrustPaymentsSimulatorCard(pan: pan, expiryDate: Seed.expiryDate, paymentType: type)
        }
        func transaction(
            _ reference: String, _ type: String, _ card: TrustPaymentsSimulatorCard, errorCode: String = "0",
            cof: String,
            stored: Bool,
            site: String = site
        ) -> (String, TrustPaymentsSimulatorTransaction) {
            (
                reference,
                TrustPaymentsSimulatorTransaction(
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
}
