@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// Everything this adapter assumes about Adyen's Balance Platform Configuration API v2, in one place so that a
/// path, header or role name found to be wrong is corrected here and nowhere else.
///
/// Verified against Adyen's OpenAPI document `BalancePlatformService-v2.json` (paths, field names) and the
/// Adyen docs and libraries listed in `Providers/Adyen/README.md`. Items marked *unverified* are inferences.
enum AdyenAPI {
    // MARK: Base URLs

    /// `https://balanceplatform-api-test.adyen.com/bcl/v2` (the OpenAPI `servers` entry).
    static let testBaseURL = URL(string: "https://balanceplatform-api-test.adyen.com/bcl/v2")!
    /// `https://balanceplatform-api-live.adyen.com/bcl/v2` (no merchant-specific live prefix, unlike Checkout).
    static let liveBaseURL = URL(string: "https://balanceplatform-api-live.adyen.com/bcl/v2")!

    /// Documented environments: "sandbox" and "test" both name Adyen's test platform.
    static let environments: [String: URL] = ["sandbox": testBaseURL, "test": testBaseURL, "live": liveBaseURL]

    // MARK: Paths (relative to the base URL)

    /// The longest payment instrument or network token id accepted (Adyen's ids are 16–22 characters; the
    /// OpenAPI document sets no bound, so this one leaves room and refuses absurd input).
    static let idMaxLength = 128

    /// `POST /paymentInstruments` (operation `post-paymentInstruments`): creates a card or business account.
    static let paymentInstruments = "/paymentInstruments"

    /// `CardInfo.cardholderName`: "Maximum length: 26 characters".
    static let cardholderNameMaxLength = 26
    /// `PaymentInstrumentInfo.reference`: "maximum 150 characters".
    static let referenceMaxLength = 150
    /// No bound in the spec; Adyen's variants (`visadebit`, `mcprepaid`, …) are short. This refuses absurd input.
    static let brandVariantMaxLength = 64

    /// `CardInfo.brand` (`visa` or `mc`) of a brand variant such as `visadebit` or `mcprepaid`, by its prefix;
    /// nil for any other. *Unverified*: that every variant starts with its brand is inferred from Adyen's examples.
    static func brand(ofVariant variant: String) -> String? {
        let lower = variant.lowercased()
        if lower.hasPrefix("visa") { return "visa" }
        if lower.hasPrefix("mc") { return "mc" }
        return nil
    }

    /// `GET` / `PATCH /paymentInstruments/{id}` (operations `get-paymentInstruments-id`, `patch-paymentInstruments-id`).
    static func paymentInstrument(_ id: String) -> String {
        "/paymentInstruments/\(URLEncoding.pathSegment(id))"
    }

    /// `GET /balanceAccounts/{id}/paymentInstruments?offset=&limit=&status=` (operation
    /// `get-balanceAccounts-id-paymentInstruments`): `hasNext` / `hasPrevious` paging by offset.
    static func balanceAccountPaymentInstruments(_ balanceAccount: String) -> String {
        "/balanceAccounts/\(URLEncoding.pathSegment(balanceAccount))/paymentInstruments"
    }

    /// The page size range of the listing ("maximum 100 items"; Adyen's default when none is sent is 10).
    static let listLimitRange = 1...100

    /// `PaymentInstrument.status` words.
    static let instrumentStatuses = ["active", "inactive", "suspended", "closed"]

    /// `statusReason` words of `PaymentInstrumentUpdateRequest` (`other` needs a `statusComment`).
    static let instrumentStatusReasons = [
        "accountClosure", "damaged", "endOfLife", "expired", "lost", "other", "stolen", "suspectedFraud",
        "transactionRule",
    ]

    /// `GET` / `POST /paymentInstruments/{id}/networkTokenActivationData`.
    static func networkTokenActivationData(_ id: String) -> String {
        "/paymentInstruments/\(URLEncoding.pathSegment(id))/networkTokenActivationData"
    }

    /// `GET /paymentInstruments/{id}/networkTokens`.
    static func networkTokens(paymentInstrument id: String) -> String {
        "/paymentInstruments/\(URLEncoding.pathSegment(id))/networkTokens"
    }

    /// `GET` / `PATCH /networkTokens/{networkTokenId}`.
    static func networkToken(_ id: String) -> String {
        "/networkTokens/\(URLEncoding.pathSegment(id))"
    }

    // MARK: Card details and PIN (issue 40; Providers/Adyen/README.md, "Card details and PIN")

    /// `GET /publicKey?purpose=&format=` (operation `get-publicKey`): an RSA public key and its
    /// `publicKeyExpiryDate`, to encrypt the app's AES session key with.
    static let publicKey = "/publicKey"
    /// `POST /paymentInstruments/reveal` (operation `post-paymentInstruments-reveal`): `{paymentInstrumentId,
    /// encryptedKey}` → `{encryptedData}`. (Never `GET /paymentInstruments/{id}/reveal`, which answers clear data.)
    static let paymentInstrumentsReveal = "/paymentInstruments/reveal"
    /// `POST /pins/reveal` (operation `post-pins-reveal`): `{paymentInstrumentId, encryptedKey}` → `{encryptedPinBlock, token}`.
    static let pinsReveal = "/pins/reveal"
    /// `POST /pins/change` (operation `post-pins-change`): `{paymentInstrumentId, encryptedKey, encryptedPinBlock,
    /// token}` → `{status}`.
    static let pinsChange = "/pins/change"

    /// The `purpose` query value of `GET /publicKey` for a purpose: `panReveal`, `pinReveal`, `pinChange` (the
    /// spec's "Possible values"; Adyen's default is `pinReveal`, so the adapter always sends it).
    static func publicKeyPurpose(_ purpose: RevealPurpose) -> String {
        switch purpose {
        case .pinReveal: "pinReveal"
        case .pinChange: "pinChange"
        default: "panReveal"
        }
    }

    /// The `format` values of `GET /publicKey` (`pem` is Adyen's default).
    static let publicKeyFormats = ["pem", "jwk"]
    /// A cached public key is handed out only while it has at least this long left (seconds), so an app never
    /// encrypts with a key that expires on the way.
    static let publicKeyRefreshMargin: TimeInterval = 300
    /// `token` of `RevealPinResponse` (the one Adyen made the revealed block with) and of `PinChangeRequest` ("The
    /// 16-digit token that you used to generate the encryptedPinBlock": the app's own, docs.adyen.com …/change-pin).
    static let pinTokenLength = 16
    /// An ISO 9564 format 4 PIN block is one AES block.
    static let pinBlockLength = 16
    /// The encrypted session key's length in bytes: an RSA ciphertext is as long as the key's modulus (2048 bits
    /// and more; the spec sets no bound, so this refuses only absurd input).
    static let encryptedKeyLengths = 128...1024

    /// The roles the three endpoints name ("To make this request, your API credential must have the following role").
    static let panRevealRole = "Bank Issuing PAN Reveal Webservice role"
    static let pinRevealRole = "Bank Issuing PIN Reveal Webservice role"
    static let pinChangeRole = "Bank Issuing PIN Change Webservice role"

    // MARK: Headers

    /// The API key header (the OpenAPI `ApiKeyAuth` scheme).
    static let apiKeyHeader = HTTPField.Name("X-API-Key")!
    /// Adyen's idempotency header on POST requests; Adyen echoes it in the response.
    static let idempotencyKeyHeader = HTTPField.Name("Idempotency-Key")!
    /// Adyen's documented maximum idempotency-key length.
    static let idempotencyKeyMaxLength = 64
    /// Balance Platform webhooks carry Base64(HMAC-SHA256(hex-decoded key, raw body)) in this header.
    static let hmacSignatureHeader = HTTPField.Name("HmacSignature")!
    /// A response header some Adyen APIs use for the request reference; read when the body has no `requestId`.
    static let pspReferenceHeader = HTTPField.Name("pspReference")!

    // MARK: Roles (for 403 `00_403` messages)

    /// The role Adyen's provisioning SDK docs name for the activation-data endpoints.
    static let activationDataRole = "Bank Issuing PaymentInstrument Network Token Activation Data role"
    /// The role Adyen's "Manage network tokens" page describes (its exact name is not in our sources: *unverified*).
    static let networkTokensRole =
        "network tokens role (permission to read and patch the NetworkTokens of the payment instruments the credential can access)"
    /// The error code Adyen answers when the credential lacks a role.
    static let missingRoleErrorCode = "00_403"

    // MARK: Webhooks

    static let networkTokenCreated = "balancePlatform.networkToken.created"
    static let networkTokenUpdated = "balancePlatform.networkToken.updated"
    /// `PaymentNotificationRequest` types (the "Card created" and "Card updated" examples of
    /// `BalancePlatformConfigurationNotification-v2.json`).
    static let paymentInstrumentCreated = "balancePlatform.paymentInstrument.created"
    static let paymentInstrumentUpdated = "balancePlatform.paymentInstrument.updated"
}

/// Which family of Adyen endpoints a request went to: decides which role a 403 names.
enum AdyenEndpointFamily: Sendable {
    case paymentInstrument
    case activationData
    case networkTokens
    /// `GET /publicKey` and `POST /paymentInstruments/reveal`.
    case panReveal
    /// `POST /pins/reveal`.
    case pinReveal
    /// `POST /pins/change`.
    case pinChange
}
