@_spi(AdapterSupport) import CardGateway
import Foundation

// Codable mirrors of Bridge's JSON (OpenAPI schema names in the comments). Every field is optional at the
// decoding level so that undocumented or missing fields never break decoding; the mapping decides which
// missing fields make a response invalid. Unknown fields are ignored by `JSONDecoder`.

/// `PostCardPushProvisioningInput`. The spec lists `initiator` as required but never defines it; we do not
/// send it (Bridge's own examples do not either).
struct BridgeProvisioningInput: Encodable {
    struct ApplePay: Encodable {
        var encoding: String
        var leafCert: String
        var subordinateCert: String
        var nonce: String
        var nonceSignature: String

        enum CodingKeys: String, CodingKey {
            case encoding
            case leafCert = "leaf_cert"
            case subordinateCert = "subordinate_cert"
            case nonce
            case nonceSignature = "nonce_signature"
        }
    }

    struct GooglePay: Encodable {
        var clientWalletAccountID: String
        var clientDeviceID: String

        enum CodingKeys: String, CodingKey {
            case clientWalletAccountID = "client_wallet_account_id"
            case clientDeviceID = "client_device_id"
        }
    }

    var walletProvider: String
    var applePay: ApplePay?
    var googlePay: GooglePay?

    enum CodingKeys: String, CodingKey {
        case walletProvider = "wallet_provider"
        case applePay = "apple_pay"
        case googlePay = "google_pay"
    }
}

/// `CardPushProvisioningResponse`. `card_account_id`, `initiator`, `reason`, `created_at` and `status` are
/// listed as required by the spec but never defined: they are not decoded (nothing reads them).
struct BridgeProvisioningResponse: Decodable {
    struct ApplePay: Decodable {
        var activationData: String?
        var encryptedPassData: String?
        var ephemeralPublicKey: String?

        enum CodingKeys: String, CodingKey {
            case activationData = "activation_data"
            case encryptedPassData = "encrypted_pass_data"
            case ephemeralPublicKey = "ephemeral_public_key"
        }
    }

    struct GooglePay: Decodable {
        var opaquePaymentCard: String?

        enum CodingKeys: String, CodingKey {
            case opaquePaymentCard = "opaque_payment_card"
        }
    }

    // Only what the mapping reads is decoded, so an undocumented or re-typed extra field cannot fail a
    // provisioning whose wallet payload is fine.
    var walletProvider: String?
    var applePay: ApplePay?
    var googlePay: GooglePay?

    enum CodingKeys: String, CodingKey {
        case walletProvider = "wallet_provider"
        case applePay = "apple_pay"
        case googlePay = "google_pay"
    }
}

/// `CardAccount` (the fields the gateway uses).
struct BridgeCardAccount: Decodable {
    struct CardholderName: Decodable {
        var firstName: String?
        var middleName: String?
        var lastName: String?

        enum CodingKeys: String, CodingKey {
            case firstName = "first_name"
            case middleName = "middle_name"
            case lastName = "last_name"
        }
    }

    struct CardDetails: Decodable {
        var last4: String?
        var expiry: String?
        var bin: String?
        var pinStatus: String?

        enum CodingKeys: String, CodingKey {
            case last4 = "last_4"
            case expiry
            case bin
            case pinStatus = "pin_status"
        }
    }

    var id: String?
    var customerID: String?
    var clientReferenceID: String?
    var status: String?
    var statusReason: String?
    var cardholderName: CardholderName?
    var cardDetails: CardDetails?
    var freezes: [BridgeCardFreeze]?

    enum CodingKeys: String, CodingKey {
        case id
        case customerID = "customer_id"
        case clientReferenceID = "client_reference_id"
        case status
        case statusReason = "status_reason"
        case cardholderName = "cardholder_name"
        case cardDetails = "card_details"
        case freezes
    }
}

/// The answer of `GET /customers/{customerID}/card_accounts`.
struct BridgeCardAccountList: Decodable {
    var count: Int?
    var data: [BridgeCardAccount]
}

/// `PostCardAccountsInput` (no `crypto_account`: a Bridge-custodial funding setup).
struct BridgeCardAccountInput: Encodable {
    var currency: String
    var chain: String
    var clientReferenceID: String?
    var cardDesignShortname: String?

    enum CodingKeys: String, CodingKey {
        case currency
        case chain
        case clientReferenceID = "client_reference_id"
        case cardDesignShortname = "card_design_shortname"
    }
}

/// `CardFreeze`, also the body of the freeze (`status` freeze_created|freeze_replaced) and unfreeze
/// (`CardUnfreezeResponse`, `status` freeze_removed) answers.
struct BridgeCardFreeze: Decodable {
    var cardAccountID: String?
    var initiator: String?
    var reason: String?
    var reasonDetail: String?
    var startingAt: String?
    var endingAt: String?
    var createdAt: String?
    var status: String?

    enum CodingKeys: String, CodingKey {
        case cardAccountID = "card_account_id"
        case initiator
        case reason
        case reasonDetail = "reason_detail"
        case startingAt = "starting_at"
        case endingAt = "ending_at"
        case createdAt = "created_at"
        case status
    }
}

/// `PostCardFreezeInput`.
struct BridgeFreezeInput: Encodable {
    var initiator: String
    var reason: String
    var reasonDetail: String?
    var endingAt: String?

    enum CodingKeys: String, CodingKey {
        case initiator
        case reason
        case reasonDetail = "reason_detail"
        case endingAt = "ending_at"
    }
}

/// `PostCardUnfreezeInput`.
struct BridgeUnfreezeInput: Encodable {
    var initiator: String
}

/// `WebhookEvent`. `event_object` and `event_object_changes` stay loose: their shape depends on the category.
struct BridgeWebhookEvent: Decodable {
    var apiVersion: String?
    var eventID: String?
    var eventCategory: String?
    var eventType: String?
    var eventObjectID: String?
    var eventObjectStatus: String?
    var eventObject: JSONValue?
    var eventObjectChanges: JSONValue?
    var eventCreatedAt: String?

    enum CodingKeys: String, CodingKey {
        case apiVersion = "api_version"
        case eventID = "event_id"
        case eventCategory = "event_category"
        case eventType = "event_type"
        case eventObjectID = "event_object_id"
        case eventObjectStatus = "event_object_status"
        case eventObject = "event_object"
        case eventObjectChanges = "event_object_changes"
        case eventCreatedAt = "event_created_at"
    }
}

/// Dates as Bridge writes them: RFC 3339, with or without fractional seconds.
enum BridgeDates {
    static func parse(_ text: String?) -> Date? {
        guard let text, !text.isEmpty else { return nil }
        return InternetDateTime.parse(text)
    }

    static func format(_ date: Date) -> String {
        InternetDateTime.format(date, fractionalSeconds: true)
    }
}

/// `PostCardAccountEphemeralKeyInput`.
struct BridgeEphemeralKeyInput: Encodable {
    var clientNonce: String

    enum CodingKeys: String, CodingKey {
        case clientNonce = "client_nonce"
    }
}

/// `CardAccountEphemeralKeyResponse`.
struct BridgeEphemeralKeyResponse: Decodable {
    var ephemeralKey: String?

    enum CodingKeys: String, CodingKey {
        case ephemeralKey = "ephemeral_key"
    }
}

/// `CardPinUpdateResponse`.
struct BridgePINUpdateResponse: Decodable {
    var url: String?
}
