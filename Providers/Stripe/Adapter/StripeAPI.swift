@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// Every Stripe path, header and documented limit the adapter relies on, in one place so that a fact found
/// wrong can be corrected here. Sources: ../shared/providers/stripe.md (docs.stripe.com API reference,
/// stripe-python 16.1.0). Facts marked "unverified" are inferred from client libraries, not from Stripe's docs.
enum StripeAPI {
    /// The one documented host for test and live mode; the key decides the mode.
    static let baseURL = URL(string: "https://api.stripe.com")!

    // MARK: Paths

    static let ephemeralKeys = "/v1/ephemeral_keys"
    static let issuingCards = "/v1/issuing/cards"
    static func issuingCard(_ id: String) -> String { "/v1/issuing/cards/\(URLEncoding.pathSegment(id))" }
    /// Issuing tokens: parts of this API are marked "preview" in Stripe's reference.
    static let issuingTokens = "/v1/issuing/tokens"
    static func issuingToken(_ id: String) -> String { "/v1/issuing/tokens/\(URLEncoding.pathSegment(id))" }

    // MARK: Headers

    static let stripeVersionHeader = HTTPField.Name("Stripe-Version")!
    static let stripeAccountHeader = HTTPField.Name("Stripe-Account")!
    static let idempotencyKeyHeader = HTTPField.Name("Idempotency-Key")!
    /// The request id Stripe puts on every response (`req_…`).
    static let requestIDHeader = "Request-Id"
    /// Stripe's own advice on repeating a request: `true` or `false`.
    static let shouldRetryHeader = "Stripe-Should-Retry"
    /// Set to `true` on a response Stripe replays for an idempotency key it has seen.
    static let idempotentReplayedHeader = "Idempotent-Replayed"
    static let signatureHeader = HTTPField.Name("Stripe-Signature")!
    /// Stripe's wait for the answer to `issuing_authorization.request`: "If you don't approve or decline the
    /// issuing_authorization.request within 2 seconds, Stripe uses your webhook timeout settings"
    /// (docs.stripe.com/issuing/purchases/authorizations, /issuing/controls/real-time-authorizations).
    static let authorizationDeadline: Duration = .seconds(2)

    // MARK: Issuing Elements (card details and PIN, StripeCardReveal.swift)

    /// The `Stripe-Version` a reveal key is minted with when the front end names none. Stripe's Issuing Elements guide
    /// (docs.stripe.com/issuing/elements): "When creating ephemeral keys, specify an API version of `2020-03-02` or
    /// later and include the ephemeral key nonce".
    static let issuingElementsAPIVersion = "2020-03-02"
    /// `nonce` of `POST /v1/ephemeral_keys`: "Max length: 5000" (Stripe's OpenAPI, as the generated clients publish it).
    static let nonceMaxLength = 5000
    /// `pin[encrypted_number]` of `POST /v1/issuing/cards/{card}`: "The card's desired new PIN, encrypted under Stripe's
    /// public key", `maxLength` 5000 (Stripe's OpenAPI, `encrypted_pin_param`, in
    /// ../shared/specs/stripe-spec3-issuing-subset-2022-04-12.json; the PIN management guide, "Encrypting PINs").
    static let encryptedPINMaxLength = 5000

    // MARK: Limits

    /// Stripe accepts idempotency keys of up to 255 characters.
    static let idempotencyKeyMaxLength = 255
    /// stripe-python `Webhook.DEFAULT_TOLERANCE`: signatures older (or, here, newer) than this are refused.
    static let webhookTolerance: TimeInterval = 300
    /// `limit` on list endpoints: 1…100.
    static let listLimitRange = 1...100
    /// How many pages of tokens `offer` reads at most (100 tokens each).
    static let maxTokenPages = 10
    /// More `v1` entries than this in one `Stripe-Signature` header are refused (a roll has two).
    static let maxSignatures = 16

    // MARK: Values

    /// `issuing.card.status` values.
    static let cardStatuses: Set<String> = ["active", "inactive", "canceled"]
    /// `cancellation_reason` accepted by `POST /v1/issuing/cards/{id}` (the object also reports
    /// design_rejected and fulfillment_error, set by Stripe).
    static let settableCancellationReasons: Set<String> = ["lost", "stolen"]
    /// `status` accepted by `POST /v1/issuing/tokens/{id}`.
    static let settableTokenStatuses: Set<String> = ["active", "suspended", "deleted"]

    /// Whether `card.cardholder` is expandable. The generated stripe-python 16.1.0 type declares it as an
    /// embedded `Cardholder`, not an `ExpandableField`, so the adapter does not send `expand[]=cardholder`
    /// (Stripe refuses expanding non-expandable properties; unverified against the live API). The decoder
    /// accepts an id or an object either way.
    static let expandCardholder = false
}

/// Stripe's API-version strings: `YYYY-MM-DD`, optionally followed by `.name` (stripe-python 16.1.0 pins
/// `2026-10-28.endive`; the iOS SDK asks for `2020-08-27`), and then by any beta flags as Stripe's
/// libraries append them (`2024-09-30.acacia; issuing_push_beta=v1`). Anything else, and anything that could
/// break the header (CR, LF, control characters), is refused.
enum StripeAPIVersion {
    static func isValid(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 256 else { return false }
        let sections = text.split(separator: ";", omittingEmptySubsequences: false)
        guard let base = sections.first, isValidBase(base) else { return false }
        return sections.dropFirst().allSatisfy { flag in
            let pair = flag.trimmingCharacters(in: .whitespaces).split(
                separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return pair.count == 2 && pair.allSatisfy { !$0.isEmpty && $0.allSatisfy(isToken) }
        }
    }

    private static func isToken(_ character: Character) -> Bool {
        character.isASCII
            && (character.isLetter || character.isNumber || character == "_" || character == "-" || character == ".")
    }

    private static func isValidBase(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let date = parts.first else { return false }
        let dateParts = date.split(separator: "-", omittingEmptySubsequences: false)
        guard dateParts.count == 3, dateParts[0].count == 4, dateParts[1].count == 2, dateParts[2].count == 2,
            dateParts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let month = Int(dateParts[1]), let day = Int(dateParts[2]), (1...12).contains(month), (1...31).contains(day)
        else { return false }
        if parts.count == 2 {
            let name = parts[1]
            guard !name.isEmpty, name.count <= 64,
                name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
            else { return false }
        }
        return true
    }

    /// Whether `version` is `minimum` or a later version, compared by the date that starts it (`YYYY-MM-DD`, the same
    /// width in every valid version, so the text order is the date order). Assumes both are valid.
    static func isAtLeast(_ version: String, _ minimum: String) -> Bool {
        version.prefix(10) >= minimum.prefix(10)
    }
}
