@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// Every Bridge fact the adapter relies on, in one place so that a correction touches one file.
///
/// Sources: Bridge's OpenAPI ("Bridge API", server `/v0`), the mobile wallet provisioning guide, the
/// idempotence and webhook signature pages (see `Providers/Bridge/README.md`). Facts marked *unverified*
/// were not confirmed by Bridge's material and are our best reading.
enum BridgeAPI {
    // MARK: Hosts

    /// Production, from the OpenAPI `servers` entry.
    static let productionBaseURL = URL(string: "https://api.bridge.xyz/v0")!
    /// Sandbox, from the sandbox integration guide.
    static let sandboxBaseURL = URL(string: "https://api.sandbox.bridge.xyz/v0")!

    // MARK: Headers

    /// The API key header (OpenAPI security scheme `ApiKey`).
    static let apiKeyHeader = HTTPField.Name("Api-Key")!
    /// Required on every POST, never sent on GET (idempotence guide).
    static let idempotencyKeyHeader = HTTPField.Name("Idempotency-Key")!
    /// The webhook signature header: `t=<milliseconds>,v0=<Base64 RSA signature>`.
    static let webhookSignatureHeader = HTTPField.Name("X-Webhook-Signature")!
    /// Request-id headers we read for support tickets. *Unverified*: Bridge documents no request-id header.
    static let requestIDHeaders = ["Request-Id", "X-Request-Id"]

    // MARK: Paths (relative to the base URL, which carries `/v0`)

    static func cardAccount(customer: String, card: String) -> String {
        "/customers/\(URLEncoding.pathSegment(customer))/card_accounts/\(URLEncoding.pathSegment(card))"
    }

    static func provisioningRequest(customer: String, card: String) -> String {
        cardAccount(customer: customer, card: card) + "/create_mobile_wallet_provisioning_request"
    }

    static func freeze(customer: String, card: String) -> String {
        cardAccount(customer: customer, card: card) + "/freeze"
    }

    static func unfreeze(customer: String, card: String) -> String {
        cardAccount(customer: customer, card: card) + "/unfreeze"
    }

    /// `POST {client_nonce}` → `{ephemeral_key}`: a one-time key, valid five minutes, with which the front end reads the
    /// card's number, security code and expiry from Bridge (spec: "Generate an Ephemeral Key to Reveal Card Details";
    /// guide "Safely reveal card details to customers"). Idempotency-Key required.
    static func ephemeralKeys(customer: String, card: String) -> String {
        cardAccount(customer: customer, card: card) + "/ephemeral_keys"
    }
    /// "This key is only valid for 5 minutes" (spec, `CardAccountEphemeralKeyResponse.ephemeral_key`).
    static let ephemeralKeyLifetime: TimeInterval = 5 * 60

    /// `POST` (no body) → `{url}`: a "single-use, time-limited URL" of a secure frame where the cardholder sets the PIN
    /// (spec: "Create Card PIN Update URL"). Idempotency-Key required. Its lifetime is not documented.
    static func pinUpdateURL(customer: String, card: String) -> String {
        cardAccount(customer: customer, card: card) + "/pin"
    }

    /// `GET` lists a customer's card accounts (`{"count","data":[CardAccount]}`, no paging parameters);
    /// `POST` provisions one (one per customer, the spec says). From the spec (`PostCardAccountsInput`): it answers
    /// **201** with the `CardAccount`, and requires `currency` (`CardsCryptoCurrency`: only `usdc`; the cards
    /// guide's example sends `usdb`) and `chain` (`OfframpChainForCards`); `client_reference_id`,
    /// `crypto_account` and `card_design_shortname` are optional.
    static func cardAccounts(customer: String) -> String {
        "/customers/\(URLEncoding.pathSegment(customer))/card_accounts"
    }
    static let cardAccountCreatedStatus = 201
    /// `usdc` from the spec's enum, `usdb` from the cards guide's example (*unverified* against the live API).
    static let cardAccountCurrencies: Set<String> = ["usdc", "usdb"]
    /// Our bound on ``CardQuery/limit``: Bridge's list takes no limit and answers every account at once.
    static let listLimitRange = 1...100
    /// The simulator's 400 codes for a freeze or unfreeze the account's state does not allow. *Unverified*:
    /// Bridge documents no codes for these refusals; the adapter checks the state itself before writing.
    static let invalidStateCodes: Set<String> = ["card_account_not_active", "freeze_not_found"]
    static let cardAccountChains: Set<String> = [
        "arbitrum", "avalanche_c_chain", "base", "ethereum", "optimism", "polygon", "solana", "stellar",
    ]

    // MARK: Limits

    /// Schema `Id`: 1–42 characters.
    static let idMaxLength = 42
    /// Idempotency keys are replayed for 24 hours; a reuse after that is answered with 422.
    static let idempotencyWindow: TimeInterval = 24 * 60 * 60
    /// *Unverified*: Bridge documents no maximum key length; our keys are UUIDs (36) or 64 hex digits.
    static let idempotencyKeyMaxLength = 64

    // MARK: Webhooks

    /// Events signed longer ago than this are refused (the docs say "older than 10 minutes").
    static let webhookMaxAge: TimeInterval = 10 * 60
    /// Clock skew tolerated for timestamps in the future (our choice).
    static let webhookMaxFutureSkew: TimeInterval = 60
    /// The event category whose events describe card accounts.
    static let cardAccountCategory = "card_account"
}
