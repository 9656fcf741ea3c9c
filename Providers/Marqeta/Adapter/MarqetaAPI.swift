@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// Everything this adapter assumes about Marqeta's Core API (v3), in one place, so that a path, field or code found
/// to be wrong is corrected here and nowhere else. Each endpoint cites its reference page in
/// `Providers/Marqeta/README.md`; the facts that page could not confirm are listed there as *unverified*.
enum MarqetaAPI {
    // MARK: Base URLs

    /// `https://sandbox-api.marqeta.com/v3`: the public sandbox (Marqeta's "Core API quick start"). Production base
    /// URLs are given to each program by Marqeta, so a production instance names its `baseURL` in configuration.
    static let sandboxBaseURL = URL(string: "https://sandbox-api.marqeta.com/v3")!

    /// Documented environments: only the shared sandbox has a public URL.
    static let environments: [String: URL] = ["sandbox": sandboxBaseURL]

    // MARK: Tokens (ids)

    /// Marqeta tokens (card, user, digital wallet token, transition) are "1–36 chars".
    static let tokenMaxLength = 36

    // MARK: Paths (relative to the base URL)

    /// `GET /cards/{token}` (Retrieve card).
    static func card(_ token: String) -> String { "/cards/\(URLEncoding.pathSegment(token))" }

    /// `POST /cards` (Create card): `user_token`, `card_product_token`.
    static let cards = "/cards"

    /// `GET /cards/user/{token}?count=&start_index=` (List cards by user): `count`, `start_index`, `end_index`,
    /// `is_more`, `data`.
    static func cardsByUser(_ token: String) -> String { "/cards/user/\(URLEncoding.pathSegment(token))" }

    /// The page sizes this adapter sends as `count`. *Unverified*: Marqeta's maximum `count` for this listing.
    static let listCountRange = 1...100

    /// `POST /cardtransitions` (Create card transition): `card_token`, `state`, `channel`, `reason_code`, `reason`.
    static let cardTransitions = "/cardtransitions"

    /// `POST /digitalwalletprovisionrequests/applepay`.
    static let applePayProvisioning = "/digitalwalletprovisionrequests/applepay"
    /// `POST /digitalwalletprovisionrequests/androidpay`.
    static let googlePayProvisioning = "/digitalwalletprovisionrequests/androidpay"
    /// `POST /digitalwalletprovisionrequests/samsungpay` ("limited in availability").
    static let samsungPayProvisioning = "/digitalwalletprovisionrequests/samsungpay"

    /// `GET /digitalwallettokens/card/{card_token}` (List digital wallet tokens for card), paged like the cards.
    static func walletTokensByCard(_ token: String) -> String {
        "/digitalwallettokens/card/\(URLEncoding.pathSegment(token))"
    }

    /// `POST /digitalwallettokentransitions`: `digital_wallet_token.token`, `digital_wallet_token.card_token`,
    /// `channel`, `state`, `reason_code`, `reason`.
    static let walletTokenTransitions = "/digitalwallettokentransitions"

    /// `POST /users/auth/clientaccesstoken` (Create client access token): `card_token`; answers `token`, `card_token`,
    /// `created`, `expires`. For Marqeta.js, which shows the card in secure frames (``MarqetaProvider/revealSession(_:context:)``).
    static let clientAccessToken = "/users/auth/clientaccesstoken"
    /// "Unredeemed client access tokens expire after five minutes" (Create client access token).
    static let clientAccessTokenLifetime = Duration.seconds(300)

    /// The page size the adapter reads wallet tokens with (it reads every page).
    static let walletTokenPageSize = 50
    /// The most pages a wallet-token listing follows before it is refused as endless.
    static let maxWalletTokenPages = 20

    // MARK: Values

    /// `channel` of every transition the adapter makes: "Use this value when creating a card transition with an API
    /// POST request".
    static let apiChannel = "API"

    /// Card `state` words (`UNACTIVATED`, `ACTIVE`, `SUSPENDED`, `TERMINATED`, and `LIMITED` on some programs).
    enum CardState {
        static let unactivated = "UNACTIVATED"
        static let active = "ACTIVE"
        static let suspended = "SUSPENDED"
        static let terminated = "TERMINATED"
        static let limited = "LIMITED"
    }

    /// Digital wallet token `state` words.
    enum TokenState {
        static let requested = "REQUESTED"
        static let requestDeclined = "REQUEST_DECLINED"
        static let active = "ACTIVE"
        static let suspended = "SUSPENDED"
        static let terminated = "TERMINATED"
    }

    /// `device_type` values of the provisioning requests: every value of the `device_type` enumeration of
    /// `digital_wallet_apple_pay_provision_request`, `…_android_pay_…` and `…_samsung_pay_…` in Marqeta's Core API
    /// document (the reference pages list the first three only).
    static let deviceTypes = [
        "MOBILE_PHONE", "WATCH", "TABLET", "WEARABLE_DEVICE", "HOUSEHOLD_DEVICE", "AUTOMOBILE_DEVICE",
    ]
    /// The `device_type` sent when neither the request nor the instance names one.
    static let defaultDeviceType = "MOBILE_PHONE"

    /// Marqeta's `device_type` for the device the app reports; nil for a kind Marqeta does not list.
    static func deviceType(_ kind: ProvisioningDeviceType) -> String? {
        switch kind {
        case .mobilePhone: return "MOBILE_PHONE"
        case .watch: return "WATCH"
        case .tablet: return "TABLET"
        case .wearable: return "WEARABLE_DEVICE"
        case .household: return "HOUSEHOLD_DEVICE"
        case .automobile: return "AUTOMOBILE_DEVICE"
        default: return nil
        }
    }

    /// `provisioning_app_version`: 1–50 characters.
    static let appVersionMaxLength = 50
    /// `device_id` of Google Pay and Samsung Pay: 1–24 characters.
    static let deviceIDMaxLength = 24
    /// Google Pay `wallet_account_id` and Samsung Pay `wallet_user_id`: 1–50 characters.
    static let walletIDMaxLength = 50

    /// `reason_code` of a transition, by the normalised reason. Marqeta's list: `01` requested by you, `06`
    /// suspicious activity, `10` reported lost, `23` reported stolen, `31` other. *Unverified*: `06`, `10`, `23` and
    /// `31` are read from the card transition object's enumeration and Marqeta's reason-code table as remembered,
    /// not from a page fetched for this adapter (see the README).
    static func reasonCode(_ reason: CardStatusReason?) -> String {
        switch reason {
        case .lost?: return "10"
        case .stolen?: return "23"
        case .suspectedFraud?: return "06"
        case .damaged?, .other?: return "31"
        default: return "01"
        }
    }

    /// `reason` free text: "255 char max".
    static let reasonMaxLength = 255

    // MARK: Headers

    /// The webhook signature header: lower-case hex HMAC of the raw body with the webhook's `secret` (the
    /// "Signature verification" guide's Ruby sample).
    static let signatureHeader = HTTPField.Name("X-Marqeta-Signature")!

    /// Error codes this adapter reads as a card transition the card's state does not allow. *Unverified*: no Marqeta
    /// source lists them (the adapter reads the card first, so Marqeta refuses a transition only on a race).
    static let invalidTransitionCodes: Set<String> = ["400600", "400601"]

    /// Codes of a digital wallet token transition refused because the token's state at Marqeta and at the token
    /// service provider do not allow it (HTTP 422; developer-guides/troubleshooting-digital-wallet-token-lifecycle-
    /// errors).
    static let walletTokenStateCodes: Set<String> = ["422003", "422004"]

    // MARK: Idempotency

    /// Marqeta de-duplicates a `POST` by the `token` its body carries (1–36 characters): the same token with the same
    /// body answers the first object again, with another body 409 (core-api/idempotency). The adapter sends one on
    /// card creation and on card and digital wallet token transitions, derived from the operation's idempotency key
    /// and `scope` (so a retry, or another gateway on the same ledger, sends the same token and body), or fresh per
    /// call without one.
    static func idempotencyToken(_ context: OperationContext, scope: String) -> String {
        IdempotencyKeys.derive(
            operationKey: context.idempotencyKey, scope: "marqeta." + scope, maxLength: tokenMaxLength)
    }
}
