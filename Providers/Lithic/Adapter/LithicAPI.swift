@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// Everything this adapter assumes about Lithic's API, in one place, each fact with its source in Lithic's OpenAPI
/// document (`../shared/specs/lithic-openapi.yml`, "the document") or the `lithic` Python client; the list with the
/// unconfirmed ones is in `Providers/Lithic/README.md`.
enum LithicAPI {
    // MARK: Base URLs

    /// `https://sandbox.lithic.com`: the document's `servers`.
    static let sandboxBaseURL = URL(string: "https://sandbox.lithic.com")!
    /// `https://api.lithic.com`: the `lithic` client's `ENVIRONMENTS["production"]` (`lithic/_client.py`).
    static let productionBaseURL = URL(string: "https://api.lithic.com")!

    static let environments: [String: URL] = ["sandbox": sandboxBaseURL, "production": productionBaseURL]

    // MARK: Tokens (ids)

    /// Lithic's tokens are UUIDs (`format: uuid` on `card_token`, `account_token`, `tokenization_token`).
    static let tokenMaxLength = 36

    // MARK: Paths

    /// `GET /v1/cards` (List cards: `account_token`, `state`, `page_size`, `starting_after`; answers `data`,
    /// `has_more`) and `POST /v1/cards` (Create card).
    static let cards = "/v1/cards"

    /// `GET` and `PATCH /v1/cards/{card_token}`.
    static func card(_ token: String) -> String { "/v1/cards/\(URLEncoding.pathSegment(token))" }

    /// `POST /v1/cards/{card_token}/provision` (Provision card (Digital Wallet)).
    static func provision(_ token: String) -> String { card(token) + "/provision" }

    /// `POST /v1/cards/{card_token}/embed` (Create card embed session).
    static func embed(_ token: String) -> String { card(token) + "/embed" }

    /// `GET /v1/tokenizations` (`card_token`, `page_size`, `starting_after`; answers `data`, `has_more`).
    static let tokenizations = "/v1/tokenizations"

    /// `GET /v1/tokenizations/{tokenization_token}`.
    static func tokenization(_ token: String) -> String { "/v1/tokenizations/\(URLEncoding.pathSegment(token))" }

    /// `POST /v1/tokenizations/{tokenization_token}/pause`, `/unpause`, `/deactivate`: 200 with no body.
    static func tokenizationAction(_ token: String, _ action: String) -> String { tokenization(token) + "/" + action }

    /// `page_size` (the `pageSize` parameter): 1–100, 50 by default.
    static let pageSizeRange = 1...100
    /// The page size the adapter reads tokenizations with (it reads every page).
    static let tokenizationPageSize = 100
    /// The most pages a tokenization listing follows before it is refused as endless.
    static let maxTokenizationPages = 20

    // MARK: Values

    /// Card `state` (`non_pci_card_response.state`).
    enum CardState {
        static let open = "OPEN"
        static let paused = "PAUSED"
        static let closed = "CLOSED"
        static let pendingActivation = "PENDING_ACTIVATION"
        static let pendingFulfillment = "PENDING_FULFILLMENT"
        static let all = [closed, open, paused, pendingActivation, pendingFulfillment]
    }

    /// Tokenization `status` (`tokenization.status`).
    enum TokenStatus {
        static let active = "ACTIVE"
        static let deactivated = "DEACTIVATED"
        static let inactive = "INACTIVE"
        static let paused = "PAUSED"
        static let pending2FA = "PENDING_2FA"
        static let pendingActivation = "PENDING_ACTIVATION"
        static let unknown = "UNKNOWN"
    }

    /// `substatus` of `PATCH /v1/cards/{card_token}` for the normalised reason (the document's enumeration).
    static func substatus(_ reason: CardStatusReason?) -> String? {
        switch reason {
        case .lost?: return "LOST"
        case .stolen?: return "COMPROMISED"
        case .suspectedFraud?: return "SUSPICIOUS_ACTIVITY"
        case .damaged?: return "DAMAGED"
        case .cardholderRequest?: return "END_USER_REQUEST"
        case .other?: return "OTHER"
        default: return nil
        }
    }

    // MARK: Headers

    /// `Idempotency-Key` (the `idempotencyKey` parameter of `POST /v1/cards`, `format: uuid`).
    static let idempotencyKeyHeader = HTTPField.Name("Idempotency-Key")!

    /// A UUID-shaped idempotency key derived from the operation's key and `scope` (fresh per call without one), so a
    /// retry sends the same key and the document's `format: uuid` holds.
    static func idempotencyKey(_ context: OperationContext, scope: String) -> String {
        let hex = IdempotencyKeys.derive(operationKey: context.idempotencyKey, scope: "lithic." + scope, maxLength: 64)
        let digits = Array(hex.filter(\.isHexDigit).lowercased().prefix(32))
        guard digits.count == 32 else { return UUID().uuidString.lowercased() }
        var out = ""
        for (index, digit) in digits.enumerated() {
            if [8, 12, 16, 20].contains(index) { out.append("-") }
            // Version 4 and the RFC 4122 variant, so the key is a well-formed UUID.
            if index == 12 {
                out.append("4")
            } else if index == 16 {
                out.append(["8", "9", "a", "b"][Int(String(digit), radix: 16)! % 4])
            } else {
                out.append(digit)
            }
        }
        return out
    }
}
