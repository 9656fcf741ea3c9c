import Foundation

/// `non_pci_card_response` (and `pci_card_response` without `pan` and `cvv`, which the adapter never reads).
struct LithicWireCard: Decodable, Sendable {
    var token: String?
    var accountToken: String?
    var cardProgramToken: String?
    var created: String?
    var expMonth: String?
    var expYear: String?
    var lastFour: String?
    var memo: String?
    var state: String?
    var substatus: String?
    var type: String?
    var pinStatus: String?

    enum CodingKeys: String, CodingKey {
        case token, created, memo, state, substatus, type
        case accountToken = "account_token"
        case cardProgramToken = "card_program_token"
        case expMonth = "exp_month"
        case expYear = "exp_year"
        case lastFour = "last_four"
        case pinStatus = "pin_status"
    }
}

/// A page of `GET /v1/cards` or `GET /v1/tokenizations`: `data`, `has_more`.
struct LithicWirePage<Item: Decodable & Sendable>: Decodable, Sendable {
    var data: [Item]?
    var hasMore: Bool?

    enum CodingKeys: String, CodingKey {
        case data
        case hasMore = "has_more"
    }
}

/// The body of `POST /v1/cards`.
struct LithicWireCreateCard: Encodable, Sendable {
    var type: String
    var accountToken: String?
    var cardProgramToken: String?
    var memo: String?

    enum CodingKeys: String, CodingKey {
        case type, memo
        case accountToken = "account_token"
        case cardProgramToken = "card_program_token"
    }
}

/// The body of `PATCH /v1/cards/{card_token}` the adapter sends: `state`, and `substatus` and `comment` when given.
struct LithicWireUpdateCard: Encodable, Sendable {
    var state: String
    var substatus: String?
    var comment: String?
}

/// `tokenization`.
struct LithicWireTokenization: Decodable, Sendable {
    var token: String?
    var cardToken: String?
    var accountToken: String?
    var status: String?
    var tokenRequestorName: String?
    var createdAt: String?
    var deviceID: String?

    enum CodingKeys: String, CodingKey {
        case token, status
        case cardToken = "card_token"
        case accountToken = "account_token"
        case tokenRequestorName = "token_requestor_name"
        case createdAt = "created_at"
        case deviceID = "device_id"
    }
}

/// `error`: `{message, debugging_request_id}`.
struct LithicWireError: Decodable, Sendable {
    var message: String?
    var debuggingRequestID: String?

    enum CodingKeys: String, CodingKey {
        case message
        case debuggingRequestID = "debugging_request_id"
    }
}
