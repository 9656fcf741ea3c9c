import Foundation

// The JSON bodies of Marqeta's Core API that the adapter sends and reads, field for field as the reference pages
// name them (snake_case on the wire). Fields the adapter does not use are not decoded; unknown fields are ignored.

/// The card resource (`GET /cards/{token}`, an entry of `GET /cards/user/{token}`, the answer to `POST /cards`).
/// The full PAN and CVV are never requested (`show_pan`, `show_cvv_number` are not sent), so they are not decoded.
struct MarqetaWireCard: Decodable, Sendable, Equatable {
    var token: String?
    var userToken: String?
    var cardProductToken: String?
    var lastFour: String?
    /// `MMYY`.
    var expiration: String?
    var expirationTime: String?
    var state: String?
    var stateReason: String?
    var fulfillmentStatus: String?
    /// `VIRTUAL_PAN`, `PHYSICAL_MSR`, `PHYSICAL_ICC`, `PHYSICAL_CONTACTLESS`, `PHYSICAL_COMBO`.
    var instrumentType: String?
    var createdTime: String?

    enum CodingKeys: String, CodingKey {
        case token, expiration, state
        case userToken = "user_token"
        case cardProductToken = "card_product_token"
        case lastFour = "last_four"
        case expirationTime = "expiration_time"
        case stateReason = "state_reason"
        case fulfillmentStatus = "fulfillment_status"
        case instrumentType = "instrument_type"
        case createdTime = "created_time"
    }
}

/// A page of a Marqeta listing: `count`, `start_index`, `end_index`, `is_more`, `data`.
struct MarqetaWirePage<Item: Decodable & Sendable>: Decodable, Sendable {
    var count: Int?
    var startIndex: Int?
    var endIndex: Int?
    var isMore: Bool?
    var data: [Item]?

    enum CodingKeys: String, CodingKey {
        case count, data
        case startIndex = "start_index"
        case endIndex = "end_index"
        case isMore = "is_more"
    }
}

/// `POST /cards`.
struct MarqetaWireCreateCard: Encodable, Sendable {
    /// The card's own token, which also makes the request idempotent (``MarqetaAPI/idempotencyToken(_:scope:)``).
    var token: String
    var userToken: String
    var cardProductToken: String

    enum CodingKeys: String, CodingKey {
        case token
        case userToken = "user_token"
        case cardProductToken = "card_product_token"
    }
}

/// `POST /cardtransitions`.
struct MarqetaWireCardTransitionRequest: Encodable, Sendable {
    /// The transition's own token, which also makes the request idempotent.
    var token: String
    var cardToken: String
    var state: String
    var channel: String
    var reasonCode: String
    var reason: String?

    enum CodingKeys: String, CodingKey {
        case token, state, channel, reason
        case cardToken = "card_token"
        case reasonCode = "reason_code"
    }
}

/// The answer to `POST /cardtransitions` (the Card Transitions object; only the fields the adapter reads).
struct MarqetaWireCardTransition: Decodable, Sendable {
    var token: String?
    var cardToken: String?
    var state: String?
    var type: String?

    enum CodingKeys: String, CodingKey {
        case token, state, type
        case cardToken = "card_token"
    }
}

/// `POST /digitalwalletprovisionrequests/applepay`: certificates, nonce and signature in standard Base64.
struct MarqetaWireApplePayRequest: Encodable, Sendable {
    var cardToken: String
    var deviceType: String
    var provisioningAppVersion: String
    var certificates: [String]
    var nonce: String
    var nonceSignature: String

    enum CodingKeys: String, CodingKey {
        case certificates, nonce
        case cardToken = "card_token"
        case deviceType = "device_type"
        case provisioningAppVersion = "provisioning_app_version"
        case nonceSignature = "nonce_signature"
    }
}

/// The Apple Pay answer: the three payload parts in Base64.
struct MarqetaWireApplePayResponse: Decodable, Sendable {
    var cardToken: String?
    var encryptedPassData: String?
    var activationData: String?
    var ephemeralPublicKey: String?

    enum CodingKeys: String, CodingKey {
        case cardToken = "card_token"
        case encryptedPassData = "encrypted_pass_data"
        case activationData = "activation_data"
        case ephemeralPublicKey = "ephemeral_public_key"
    }
}

/// `POST /digitalwalletprovisionrequests/androidpay`.
struct MarqetaWireGooglePayRequest: Encodable, Sendable {
    var cardToken: String
    var deviceType: String
    var provisioningAppVersion: String
    var walletAccountID: String
    var deviceID: String

    enum CodingKeys: String, CodingKey {
        case cardToken = "card_token"
        case deviceType = "device_type"
        case provisioningAppVersion = "provisioning_app_version"
        case walletAccountID = "wallet_account_id"
        case deviceID = "device_id"
    }
}

/// `POST /digitalwalletprovisionrequests/samsungpay`.
struct MarqetaWireSamsungPayRequest: Encodable, Sendable {
    var cardToken: String
    var deviceType: String
    var provisioningAppVersion: String
    var walletUserID: String
    var deviceID: String

    enum CodingKeys: String, CodingKey {
        case cardToken = "card_token"
        case deviceType = "device_type"
        case provisioningAppVersion = "provisioning_app_version"
        case walletUserID = "wallet_user_id"
        case deviceID = "device_id"
    }
}

/// The Google Pay answer (`digital_wallet_android_pay_provision_response`): `push_tokenize_request_data`.
struct MarqetaWirePushProvisionResponse: Decodable, Sendable {
    var cardToken: String?
    var pushTokenizeRequestData: PushTokenizeRequestData?

    struct PushTokenizeRequestData: Decodable, Sendable {
        var displayName: String?
        var lastDigits: String?
        var network: String?
        var tokenServiceProvider: String?
        /// Opaque to the backend: handed to the wallet's push-tokenize call as it is.
        var opaquePaymentCard: String?

        enum CodingKeys: String, CodingKey {
            case network
            case displayName = "display_name"
            case lastDigits = "last_digits"
            case tokenServiceProvider = "token_service_provider"
            case opaquePaymentCard = "opaque_payment_card"
        }
    }

    enum CodingKeys: String, CodingKey {
        case cardToken = "card_token"
        case pushTokenizeRequestData = "push_tokenize_request_data"
    }
}

/// The Samsung Pay answer (`digital_wallet_samsung_pay_provision_response`): `push_tokenize_request_data` of type
/// `samsung_push_tokenize_request_data`, which has no `opaque_payment_card`.
struct MarqetaWireSamsungPayResponse: Decodable, Sendable {
    var cardToken: String?
    var pushTokenizeRequestData: PushTokenizeRequestData?

    struct PushTokenizeRequestData: Decodable, Sendable {
        var displayName: String?
        var lastDigits: String?
        var network: String?
        var tokenServiceProvider: String?
        /// Encrypted card data for Samsung's SDK: handed to the wallet as it is.
        var extraProvisionPayload: String?
        var cardType: String?

        enum CodingKeys: String, CodingKey {
            case network
            case displayName = "display_name"
            case lastDigits = "last_digits"
            case tokenServiceProvider = "token_service_provider"
            case extraProvisionPayload = "extra_provision_payload"
            case cardType = "card_type"
        }
    }

    enum CodingKeys: String, CodingKey {
        case cardToken = "card_token"
        case pushTokenizeRequestData = "push_tokenize_request_data"
    }
}

/// A digital wallet token (an entry of `GET /digitalwallettokens/card/{card_token}`).
struct MarqetaWireWalletToken: Decodable, Sendable, Equatable {
    var token: String?
    var cardToken: String?
    var state: String?
    var stateReason: String?
    var createdTime: String?
    var tokenServiceProvider: TokenServiceProvider?

    struct TokenServiceProvider: Decodable, Sendable, Equatable {
        /// `APPLE_PAY`, `ANDROID_PAY`, `SAMSUNG_PAY`, …
        var tokenRequestorName: String?
        var tokenReferenceID: String?

        enum CodingKeys: String, CodingKey {
            case tokenRequestorName = "token_requestor_name"
            case tokenReferenceID = "token_reference_id"
        }
    }

    enum CodingKeys: String, CodingKey {
        case token, state
        case cardToken = "card_token"
        case stateReason = "state_reason"
        case createdTime = "created_time"
        case tokenServiceProvider = "token_service_provider"
    }
}

/// `POST /digitalwallettokentransitions`.
struct MarqetaWireWalletTokenTransitionRequest: Encodable, Sendable {
    struct Token: Encodable, Sendable {
        var token: String
        var cardToken: String

        enum CodingKeys: String, CodingKey {
            case token
            case cardToken = "card_token"
        }
    }

    /// The transition's own token, which also makes the request idempotent.
    var token: String
    var digitalWalletToken: Token
    var channel: String
    var state: String
    var reasonCode: String

    enum CodingKeys: String, CodingKey {
        case token, channel, state
        case digitalWalletToken = "digital_wallet_token"
        case reasonCode = "reason_code"
    }
}

/// The answer to `POST /digitalwallettokentransitions`.
struct MarqetaWireWalletTokenTransition: Decodable, Sendable {
    var token: String?
    var state: String?
    var digitalWalletToken: MarqetaWireWalletToken?

    enum CodingKeys: String, CodingKey {
        case token, state
        case digitalWalletToken = "digital_wallet_token"
    }
}

/// Marqeta's error body: `{"error_code": "...", "error_message": "..."}`.
struct MarqetaWireError: Decodable, Sendable {
    var errorCode: String?
    var errorMessage: String?

    enum CodingKeys: String, CodingKey {
        case errorCode = "error_code"
        case errorMessage = "error_message"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        errorMessage = try? container.decodeIfPresent(String.self, forKey: .errorMessage)
        // Some answers carry the code as a number; both are kept as text.
        if let text = try? container.decodeIfPresent(String.self, forKey: .errorCode) {
            errorCode = text
        } else if let number = try? container.decodeIfPresent(Int.self, forKey: .errorCode) {
            errorCode = String(number)
        } else {
            errorCode = nil
        }
    }
}

/// A webhook delivery: a JSON object with one array per event category. The categories the adapter reads, each under
/// the key Marqeta publishes for it (Providers/Marqeta/README.md, "Webhooks", has the sources):
/// - `cards`: card transitions (developer-guides/mq-eu-synchronizing-dwts-card-state, "Transitioning cards");
///   `cardtransitions` is read too (unconfirmed: the adapter's earlier reading, the plural of the `cardtransition`
///   event type, as `threedstransitions` is published for `threedstransition`);
/// - `digitalwallettokentransitions`: digital wallet token transitions (unconfirmed: no Marqeta page publishes a whole
///   body; the plural of the `digitalwallettokentransition` event type).
/// Each object is a `card_transition_response` / `digital_wallet_token_transition_response` (the document's names).
struct MarqetaWireWebhook: Decodable, Sendable {
    var cards: [CardTransitionEvent]?
    var cardtransitions: [CardTransitionEvent]?
    var digitalwallettokentransitions: [WalletTokenTransitionEvent]?

    /// The top-level keys the adapter reads.
    static let knownCategories: Set<String> = ["cards", "cardtransitions", "digitalwallettokentransitions"]

    struct CardTransitionEvent: Decodable, Sendable {
        var token: String?
        var cardToken: String?
        var userToken: String?
        var state: String?
        var type: String?
        var createdTime: String?

        enum CodingKeys: String, CodingKey {
            case token, state, type
            case cardToken = "card_token"
            case userToken = "user_token"
            case createdTime = "created_time"
        }
    }

    /// `digital_wallet_token_transition_response`: `digital_wallet_token` is a `digital_wallet_token_hash` (`token`
    /// required, `card_token` optional); a fuller token object is read as well.
    struct WalletTokenTransitionEvent: Decodable, Sendable {
        var token: String?
        var type: String?
        var state: String?
        var createdTime: String?
        var digitalWalletToken: MarqetaWireWalletToken?

        enum CodingKeys: String, CodingKey {
            case token, type, state
            case createdTime = "created_time"
            case digitalWalletToken = "digital_wallet_token"
        }
    }
}

/// `client_access_token_request`: `card_token` (required, 1–255) and `application_token` (optional, not sent: the
/// application is the one the request authenticates as).
struct MarqetaWireClientAccessTokenRequest: Encodable, Sendable {
    var cardToken: String

    enum CodingKeys: String, CodingKey {
        case cardToken = "card_token"
    }
}

/// `client_access_token_response`: `created` and `expires` are required (`yyyy-MM-ddTHH:mm:ssZ`), `token` and
/// `card_token` optional in the document. `application` is not read.
struct MarqetaWireClientAccessToken: Decodable, Sendable {
    var token: String?
    var cardToken: String?
    var created: String?
    var expires: String?

    enum CodingKeys: String, CodingKey {
        case token, created, expires
        case cardToken = "card_token"
    }
}
