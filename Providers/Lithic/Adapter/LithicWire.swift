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

/// The members of the webhook payloads the adapter reads.
struct LithicWireWebhook: Decodable, Sendable {
    struct PreviousFields: Decodable, Sendable {
        var state: String?
    }

    var eventType: String?
    var cardToken: String?
    var state: String?
    var previousFields: PreviousFields?
    var created: String?
    var tokenization: LithicWireTokenization?

    enum CodingKeys: String, CodingKey {
        case state, created, tokenization
        case eventType = "event_type"
        case cardToken = "card_token"
        case previousFields = "previous_fields"
    }
}

/// The members of the `authorization` schema the adapter reads.
struct LithicWireASARequest: Decodable, Sendable {
    struct Amount: Decodable, Sendable {
        var amount: Int64?
        var currency: String?
    }
    struct Amounts: Decodable, Sendable {
        var cardholder: Amount?
        var merchant: Amount?
    }
    struct Card: Decodable, Sendable {
        var token: String?
    }
    struct Merchant: Decodable, Sendable {
        var descriptor: String?
        var mcc: String?
        var city: String?
        var country: String?
        var acceptorID: String?

        enum CodingKeys: String, CodingKey {
            case descriptor, mcc, city, country
            case acceptorID = "acceptor_id"
        }
    }
    struct POS: Decodable, Sendable {
        struct EntryMode: Decodable, Sendable {
            var pan: String?
        }
        struct Terminal: Decodable, Sendable {
            var partialApprovalCapable: Bool?

            enum CodingKeys: String, CodingKey {
                case partialApprovalCapable = "partial_approval_capable"
            }
        }
        var entryMode: EntryMode?
        var terminal: Terminal?

        enum CodingKeys: String, CodingKey {
            case terminal
            case entryMode = "entry_mode"
        }
    }

    var eventType: String?
    var token: String?
    var status: String?
    var card: Card?
    var amounts: Amounts?
    var merchant: Merchant?
    var pos: POS?
    var networkRiskScore: Int?

    enum CodingKeys: String, CodingKey {
        case token, status, card, amounts, merchant, pos
        case eventType = "event_type"
        case networkRiskScore = "network_risk_score"
    }
}

/// `create-embed-session-request`: `type` and `target_origin` (required); `expiration` and `max_pin_length` not sent
/// (Lithic's defaults: ten minutes, eight digits).
struct LithicWireEmbedRequest: Encodable, Sendable {
    var type: String
    var targetOrigin: String

    enum CodingKeys: String, CodingKey {
        case type
        case targetOrigin = "target_origin"
    }
}

/// `embed-session-response`: `session`.
struct LithicWireEmbedSession: Decodable, Sendable {
    var session: String?
}

/// The body of `POST /v1/cards/{card_token}/provision`.
struct LithicWireProvisionRequest: Encodable, Sendable {
    var digitalWallet: String
    var certificate: String?
    var nonce: String?
    var nonceSignature: String?
    var clientDeviceID: String?
    var clientWalletAccountID: String?

    enum CodingKeys: String, CodingKey {
        case certificate, nonce
        case digitalWallet = "digital_wallet"
        case nonceSignature = "nonce_signature"
        case clientDeviceID = "client_device_id"
        case clientWalletAccountID = "client_wallet_account_id"
    }
}

/// The answer: `provisioning_payload`, a Base64 string (Google, Samsung) or Apple's object.
struct LithicWireProvisionResponse: Decodable, Sendable {
    enum Payload: Decodable, Sendable {
        case text(String)
        case apple(Apple)

        struct Apple: Decodable, Sendable {
            var activationData: String?
            var encryptedData: String?
            var ephemeralPublicKey: String?
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .text(text)
            } else {
                self = .apple(try container.decode(Apple.self))
            }
        }
    }

    var provisioningPayload: Payload?

    enum CodingKeys: String, CodingKey {
        case provisioningPayload = "provisioning_payload"
    }
}
