import Foundation

/// A payment instrument as the simulator keeps it.
struct SimulatedInstrument: Sendable {
    var id: String
    /// `card` or `bankAccount`.
    var type: String
    var status: String
    var statusReason: String?
    var statusComment: String? = nil
    var description: String?
    var card: SimulatedCard?
    var iban: String?
    var balanceAccountID: String = AdyenSimulator.Seed.balanceAccountID
    /// ISO 3166-1 alpha-2; the seed's instruments are issued in the Netherlands.
    var issuingCountryCode: String = "NL"

    /// The OpenAPI `PaymentInstrument`.
    var json: [String: Any] {
        var object: [String: Any] = [
            "id": id,
            "balanceAccountId": balanceAccountID,
            "issuingCountryCode": issuingCountryCode,
            "type": type,
            "status": status,
        ]
        if let statusReason { object["statusReason"] = statusReason }
        if let statusComment { object["statusComment"] = statusComment }
        if let description { object["description"] = description }
        if let card {
            object["paymentInstrumentGroupId"] = AdyenSimulator.Seed.paymentInstrumentGroupID
            object["card"] = card.json
        }
        if let iban { object["bankAccount"] = ["type": "iban", "iban": iban] }
        return object
    }
}

/// The OpenAPI `Card` of a payment instrument (no PAN or CVC: Adyen masks them outside single-use cards).
struct SimulatedCard: Sendable {
    var brand: String
    var brandVariant: String
    var cardholderName: String
    var formFactor: String
    var bin: String
    var lastFour: String
    var expiryMonth: String
    var expiryYear: String

    var json: [String: Any] {
        [
            "brand": brand, "brandVariant": brandVariant, "cardholderName": cardholderName, "formFactor": formFactor,
            "bin": bin, "lastFour": lastFour, "expiration": ["month": expiryMonth, "year": expiryYear],
            // Masked, as Adyen's published GET example shows it (`************3548`); the full number is only ever
            // revealed by a separate call the gateway does not make.
            "number": String(repeating: "*", count: 12) + lastFour,
            "threeDSecure": "fullySupported", "usage": "multiUse",
        ]
    }
}

/// A network token as the simulator keeps it.
struct SimulatedNetworkToken: Sendable {
    var id: String
    var paymentInstrumentID: String
    /// `active`, `inactive`, `suspended`, `closed`.
    var status: String
    /// `wallet`, `cof`, or a wallet name (`applePay`, `googlePay`) as Adyen's docs table shows it.
    var type: String
    var brandVariant: String
    var tokenLastFour: String
    var creationDate: Date
    var tokenRequestorName: String?
    var deviceOS: String?

    /// The OpenAPI `NetworkToken`.
    var json: [String: Any] {
        var object: [String: Any] = [
            "id": id, "paymentInstrumentId": paymentInstrumentID, "status": status, "type": type,
            "brandVariant": brandVariant,
            "tokenLastFour": tokenLastFour, "creationDate": AdyenSimulator.timestamp(creationDate),
        ]
        if let deviceOS { object["device"] = ["formFactor": "mobile_phone", "osName": deviceOS] }
        if let tokenRequestorName {
            object["tokenRequestor"] = [
                "id": tokenRequestorName == "Google Pay" ? "50110030273" : "40010030273", "name": tokenRequestorName,
            ]
        }
        return object
    }

    /// The wallet name for webhooks (`wallet.type`), when the token belongs to one.
    var walletType: String? {
        if type == "applePay" || type == "googlePay" { return type }
        switch tokenRequestorName {
        case "Apple Pay": return "applePay"
        case "Google Pay": return "googlePay"
        default: return nil
        }
    }
}

/// One instrument's activation-data exchange: started by a GET, advanced by each POST.
struct SimulatedExchange: Sendable {
    /// Counts GETs of this instrument's activation data since the last reset (each starts a new session).
    var session: Int
    /// POSTs answered in this session.
    var round: Int
    /// Set once the exchange completed; a further POST needs a new GET.
    var completed: Bool
    /// The `sdkInput` answered last: the next `sdkOutput` must answer exactly this one
    /// (``AdyenSimulator/sdkOutput(answering:extra:)``), so a stale or replayed-elsewhere blob is refused.
    var lastInput: Data
}
