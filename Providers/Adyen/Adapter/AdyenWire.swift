import Foundation

// Wire types mirroring Adyen's JSON (OpenAPI `BalancePlatformService-v2.json` and
// `BalancePlatformConfigurationNotification-v2.json`). Only the fields the adapter reads are declared, so that
// fields Adyen adds never break decoding; every field the spec does not mark required is optional.

/// `PaymentInstrument` (required in the spec: `id`, `balanceAccountId`, `issuingCountryCode`, `type`; we need
/// only `id`).
struct AdyenWirePaymentInstrument: Decodable, Sendable {
    var id: String
    var balanceAccountId: String?
    var type: String?
    var status: String?
    var statusReason: String?
    var statusComment: String?
    var issuingCountryCode: String?
    var card: AdyenWireCard?
}

/// `Card`. The spec requires `brand`, `brandVariant`, `cardholderName`, `formFactor`; the adapter tolerates any of
/// them missing (it maps to `unknown` or nil) because none is needed to act safely.
struct AdyenWireCard: Decodable, Sendable {
    var brand: String?
    var brandVariant: String?
    var cardholderName: String?
    var formFactor: String?
    var lastFour: String?
    var bin: String?
    var expiration: AdyenWireExpiry?
}

/// `Expiry`: month and year are strings in the spec.
struct AdyenWireExpiry: Decodable, Sendable {
    var month: String?
    var year: String?
}

/// `NetworkToken`.
struct AdyenWireNetworkToken: Decodable, Sendable {
    /// Optional in the OpenAPI: a token without one is skipped in lists and refused when fetched by id.
    var id: String?
    var paymentInstrumentId: String?
    var status: String?
    var tokenLastFour: String?
    var creationDate: String?
    var brandVariant: String?
    /// `wallet` / `cof` in the OpenAPI; `applePay` / `googlePay` in Adyen's "Manage network tokens" table.
    var type: String?
    var tokenRequestor: AdyenWireTokenRequestor?
}

/// `NetworkTokenRequestor`.
struct AdyenWireTokenRequestor: Decodable, Sendable {
    var id: String?
    var name: String?
}

/// `ListNetworkTokensResponse`.
struct AdyenWireListNetworkTokensResponse: Decodable, Sendable {
    var networkTokens: [AdyenWireNetworkToken]?
}

/// `GetNetworkTokenResponse` (`token` required).
struct AdyenWireGetNetworkTokenResponse: Decodable, Sendable {
    var token: AdyenWireNetworkToken
}

/// `NetworkTokenActivationDataResponse`.
struct AdyenWireActivationDataResponse: Decodable, Sendable {
    var sdkInput: String?
}

/// `NetworkTokenActivationDataRequest`.
struct AdyenWireActivationDataRequest: Encodable, Sendable {
    var sdkOutput: String
}

/// `UpdateNetworkTokenRequest`.
struct AdyenWireUpdateNetworkTokenRequest: Encodable, Sendable {
    var status: String
}

/// `RestServiceError` (RFC 7807). Every field is optional here so that a partial error body still maps; the
/// `value` of `invalidFields` is deliberately not decoded (it may echo card data).
struct AdyenWireRestServiceError: Decodable, Sendable {
    var type: String?
    var title: String?
    var status: Int?
    var detail: String?
    var errorCode: String?
    var requestId: String?
    var invalidFields: [AdyenWireInvalidField]?
}

/// `InvalidField` without its `value`.
struct AdyenWireInvalidField: Decodable, Sendable {
    var name: String?
    var message: String?
}

/// `NetworkTokenNotificationRequest` (required: `environment`, `type`, `data`); decoded only after the
/// signature is checked, and only when `type` is one of the network token types.
struct AdyenWireNotification: Decodable, Sendable {
    var type: String?
    var environment: String?
    var timestamp: String?
    var data: AdyenWireNetworkTokenNotificationData?
}

/// `NetworkTokenNotificationDataV2`.
struct AdyenWireNetworkTokenNotificationData: Decodable, Sendable {
    var id: String?
    var paymentInstrumentId: String?
    var balancePlatform: String?
    /// A free string in the spec.
    var status: String?
    var decision: String?
    var type: String?
    var tokenLastFour: String?
    var wallet: AdyenWireWallet?
    var tokenRequestor: AdyenWireTokenRequestor?
}

/// `Wallet` (its `type` is deprecated in v2 in favour of `tokenRequestor.name`, but still sent).
struct AdyenWireWallet: Decodable, Sendable {
    var type: String?
    var provisioningMethod: String?
}

/// `PaymentNotificationRequest` (required: `environment`, `type`, `data`), the body of
/// `balancePlatform.paymentInstrument.created` and `.updated`; decoded only after the signature is checked.
struct AdyenWirePaymentNotification: Decodable, Sendable {
    var type: String?
    var environment: String?
    var timestamp: String?
    var data: AdyenWirePaymentInstrumentNotificationData?
}

/// `PaymentInstrumentNotificationData`: `balancePlatform` and the whole `paymentInstrument` as it is now (the
/// document gives no earlier status).
struct AdyenWirePaymentInstrumentNotificationData: Decodable, Sendable {
    var balancePlatform: String?
    var paymentInstrument: AdyenWirePaymentInstrument?
}

/// Just the envelope type, read first so that unknown notification types are skipped without decoding `data`.
struct AdyenWireNotificationType: Decodable, Sendable {
    var type: String?
}

/// `PaginatedPaymentInstrumentsResponse` (all three fields required in the spec; tolerated missing here, an absent
/// `hasNext` reads as the last page).
struct AdyenWirePaginatedPaymentInstruments: Decodable, Sendable {
    var hasNext: Bool?
    var hasPrevious: Bool?
    var paymentInstruments: [AdyenWirePaymentInstrument]?
}

/// The status part of `PaymentInstrumentUpdateRequest` (`PATCH /paymentInstruments/{id}`).
struct AdyenWireUpdatePaymentInstrumentRequest: Encodable, Sendable {
    var status: String
    var statusReason: String?
    var statusComment: String?
}

/// `PaymentInstrumentInfo` for a card (`POST /paymentInstruments`; required: `balanceAccountId`,
/// `issuingCountryCode`, `type`). `status` is not sent, so Adyen's default applies.
struct AdyenWireCreatePaymentInstrumentRequest: Encodable, Sendable {
    var type: String
    var balanceAccountId: String
    var issuingCountryCode: String
    var reference: String?
    var card: AdyenWireCardInfo
}

/// `CardInfo` (required: `brand`, `brandVariant`, `cardholderName`, `formFactor`).
struct AdyenWireCardInfo: Encodable, Sendable {
    var brand: String
    var brandVariant: String
    var cardholderName: String
    var formFactor: String
    var deliveryContact: AdyenWireDeliveryContact?
}

/// `DeliveryContact` (required: `address`, `name`).
struct AdyenWireDeliveryContact: Encodable, Sendable {
    var name: AdyenWireName
    var address: AdyenWireDeliveryAddress
}

/// `Name` (both required, at most 80 characters each).
struct AdyenWireName: Encodable, Sendable {
    var firstName: String
    var lastName: String
}

/// `DeliveryAddress` (required: `country`).
struct AdyenWireDeliveryAddress: Encodable, Sendable {
    var city: String
    var country: String
    var line1: String
    var line2: String?
    var line3: String?
    var postalCode: String
    var stateOrProvince: String?
}

// MARK: Card details and PIN (the spec's "Manage card PIN" and `post-paymentInstruments-reveal`)

/// `PublicKeyResponse` (both required in the spec; tolerated missing here, and refused as `invalidResponse` by the
/// adapter when `publicKey` is).
struct AdyenWirePublicKeyResponse: Decodable, Sendable {
    var publicKey: String?
    /// A date in the spec's example (`2023-12-12`); a date-time is read too.
    var publicKeyExpiryDate: String?
}

/// `PaymentInstrumentRevealRequest` and `RevealPinRequest` (both fields required).
struct AdyenWireRevealRequest: Encodable, Sendable {
    var paymentInstrumentId: String
    var encryptedKey: String
}

/// `PaymentInstrumentRevealResponse` (`encryptedData` required).
struct AdyenWirePaymentInstrumentRevealResponse: Decodable, Sendable {
    var encryptedData: String?
}

/// `RevealPinResponse` (both required).
struct AdyenWireRevealPinResponse: Decodable, Sendable {
    var encryptedPinBlock: String?
    var token: String?
}

/// `PinChangeRequest` (every field required).
struct AdyenWirePinChangeRequest: Encodable, Sendable {
    var paymentInstrumentId: String
    var encryptedKey: String
    var encryptedPinBlock: String
    var token: String
}

/// `PinChangeResponse` (`status` required: `completed`, `pending` or `unavailable`).
struct AdyenWirePinChangeResponse: Decodable, Sendable {
    var status: String?
}

/// The members of `RelayedAuthorisationRequest` the adapter reads (the others are ignored).
struct AdyenWireRelayedAuthorisation: Decodable {
    struct Amount: Decodable {
        var currency: String?
        var value: Int64?
    }
    struct Reference: Decodable {
        var id: String?
    }
    struct Instrument: Decodable {
        var id: String?
        var balanceAccountId: String?
    }
    struct MerchantData: Decodable {
        struct NameLocation: Decodable {
            var city: String?
            var country: String?
            var name: String?
        }
        var mcc: String?
        var merchantId: String?
        var nameLocation: NameLocation?
    }

    var type: String?
    var id: String?
    var amount: Amount?
    var originalAmount: Amount?
    var balanceAccount: Reference?
    var paymentInstrument: Instrument?
    var merchantData: MerchantData?
    var entryMode: String?
    var schemeRiskScore: Int?
}

/// `RelayedAuthorisationResponse` as the adapter writes it (no `reference` or `metadata`).
struct AdyenWireRelayedAuthorisationResponse: Encodable {
    struct Decision: Encodable {
        var refusalReason: String?
        var status: String
    }
    var authorisationDecision: Decision
}
