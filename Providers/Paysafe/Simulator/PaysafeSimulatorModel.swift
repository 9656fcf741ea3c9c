import Foundation

// The simulator's own records. They mirror what Paysafe keeps, not the adapter's types.

struct SimCustomer: Sendable {
    var id: String
    /// "ROW" or "US".
    var region: String
    /// Card updates and secure details ask for SCA.
    var requiresSCA: Bool
    var name: String
    var mobile: String
    var address1: String
    var city: String
    var countryCode: String
    var state: String?
    var postalCode: String
}

struct SimProgram: Sendable {
    var name: String
    var cardType: String
    var scheme: String
    var currencies: [String]
    var allowableCards: Int
    var isDigital: Bool
    var region: String
}

struct SimTokenization: Sendable {
    var dpanRef: String?
    var walletId: String?
    var walletType: String
    var status: String
    var created: Date
}

struct SimCard: Sendable {
    var cardId: String
    var customerId: String
    var status: String
    var statusReason: String?
    var cardType: String
    var scheme: String
    var programName: String
    var currency: String
    var bin: String
    var lastFour: String
    var expiryMonth: Int
    var expiryYear: Int
    var mobile: String?
    var createdDate: Date
    var activationDate: Date?
    var accountId: String
    var externalId: String?
    var deliveryAddress: [String: String]?
    var cvv: String
    var pin: String?
    var tokenizations: [SimTokenization] = []
    var failedActivations: Int = 0
}

struct SimAccessToken: Sendable {
    var brand: String
    var expires: Date
}

struct SimSCAEvent: Sendable {
    enum Status: String, Sendable {
        case pending = "PENDING"
        case verified = "VERIFIED"
        case rejected = "REJECTED"
        case failed = "FAILED"
        case used = "USED"
    }

    var eventId: String
    var walletOperationId: String
    var customerId: String
    /// What the challenge guards ("PATCH <cardId>", "SECURE-DETAILS <cardId>").
    var operation: String
    var status: Status
    var created: Date
    var expires: Date
    var attempts: Int
}

/// One request as the engine sees it, whatever carried it.
struct SimRequest: Sendable {
    var method: String
    var parameters: [String: String]
    var query: [(name: String, value: String)]
    /// Lower-cased names.
    var headers: [String: String]
    var body: Data
    /// The request's authority (`Host`): the simulator's own address, for the links it answers.
    var authority: String = ""

    func parameter(_ name: String) -> String { parameters[name] ?? "" }
    func header(_ name: String) -> String? { headers[name.lowercased()] }
    func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// The body as a JSON object. Top-level `null` members are dropped: Paysafe treats an explicit null like an
    /// absent optional field (its own CardRequest example sends `"cardPin": null`).
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?.filter { !($0.value is NSNull) }
    }
}
