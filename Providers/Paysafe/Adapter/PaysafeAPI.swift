@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// Every Paysafe path, method and header this adapter uses, in one place so that an unverified one can be
/// corrected without hunting through the adapter.
///
/// Legend: **[C]** confirmed in Paysafe's documentation; **[U]** not found in the documentation — inferred from
/// the confirmed business pattern (`/customers/{customerId}/prepaid/...`) and the SDK's operation names.
/// Verify every [U] entry against Paysafe before production use.
enum PaysafeAPI {
    /// Every path starts with this prefix; the base URL is the bare host. [C]
    static let prefix = "/digitalwallets/v1"

    /// `POST /digitalwallets/v1/auth/brands/{brandIdentity}/token`, form body, Basic client credentials. [C]
    static func token(brand: String) -> String {
        "\(prefix)/auth/brands/\(URLEncoding.pathSegment(brand))/token"
    }

    /// `GET …/customers/{customerId}/prepaid/cards` (list) [C]; `POST` on the same path creates a card [U].
    static func cards(customer: String) -> String {
        "\(prefix)/customers/\(URLEncoding.pathSegment(customer))/prepaid/cards"
    }

    /// `GET …/cards/{cardId}?include=` [C]; `PATCH` on the same path updates the status [U] (the business API has no
    /// PIN change).
    static func card(customer: String, card: String) -> String {
        // ``cards(customer:)`` and the card's segment, written as one string.
        var path = ""
        let customer = URLEncoding.pathSegment(customer)
        let card = URLEncoding.pathSegment(card)
        path.reserveCapacity(prefix.utf8.count + customer.utf8.count + card.utf8.count + 32)
        path += prefix
        path += "/customers/"
        path += customer
        path += "/prepaid/cards/"
        path += card
        return path
    }

    /// The method of the card update (status). [U]
    static let updateCardMethod: HTTPRequest.Method = .patch

    /// `POST …/cards/{cardId}/activate`. [U]
    static func activate(customer: String, card: String) -> String {
        "\(self.card(customer: customer, card: card))/activate"
    }

    /// `GET …/customers/{customerId}/prepaid/programs`. [U]
    static func programs(customer: String) -> String {
        "\(prefix)/customers/\(URLEncoding.pathSegment(customer))/prepaid/programs"
    }

    /// `POST …/cards/{cardId}/tokenizations` → 201 (the user-facing path is [C]; the business one is [U]).
    /// The same path with ``updateTokenizationMethod`` marks a tokenization COMPLETED [U].
    static func tokenizations(customer: String, card: String) -> String {
        "\(self.card(customer: customer, card: card))/tokenizations"
    }

    /// The method that marks a tokenization COMPLETED (`PATCH`; Paysafe may use `PUT`). [U]
    static let updateTokenizationMethod: HTTPRequest.Method = .patch

    /// `POST …/cards/{cardId}/secure-details`: a short-lived URL showing PAN/CVV/expiry. The user-facing
    /// `POST /profile/prepaid/cards/{cardId}/secure-details` is [C]; this business form is [U].
    static func secureDetails(customer: String, card: String) -> String {
        "\(self.card(customer: customer, card: card))/secure-details"
    }

    /// `POST /digitalwallets/v1/sca/events/{eventId}/attempts` (business 1.0.0) [C], or
    /// `POST /digitalwallets/v2/sca/events/{eventId}/attempts` (business 2.0.0 shows `/v2/sca/...`; whether the
    /// v2 path sits under `/digitalwallets` is [U]).
    static func scaAttempts(eventID: String, version: PaysafeSCAAttemptPath) -> String {
        switch version {
        case .v1: return "\(prefix)/sca/events/\(URLEncoding.pathSegment(eventID))/attempts"
        case .v2: return "/digitalwallets/v2/sca/events/\(URLEncoding.pathSegment(eventID))/attempts"
        }
    }

    /// The header a repeated operation carries once its SCA challenge is solved. [C]
    static let scaAuthorizationHeader = HTTPField.Name("SCA-Authorization")!
    /// The header carrying the webhook's HMAC, `Base64(HMAC-SHA256(key, body))` (``PaysafeSignature``). [C]
    static let webhookSignatureHeader = HTTPField.Name("Signature")!
    /// The same header on a request Paysafe asks partners to sign. [C]
    static let requestSignatureHeader = webhookSignatureHeader
    /// Paysafe REST APIs repeat the error code in this header. [C for Paysafe's payment APIs, U for wallets]
    static let applicationStatusCodeHeader = HTTPField.Name("X-Application-Status-Code")!
    /// Headers that may carry a request id for support tickets, in order of preference. [U]
    static let requestIDHeaders = ["X-Request-Id", "X-Correlation-Id", "X-Internal-Correlation-Id"].compactMap {
        HTTPField.Name($0)
    }

    /// `include` values of list and get. [C]
    static let includeAll = "TOKENIZATIONS,AVAILABLE_ACTIONS"
}

/// Which SCA attempt path to call: business 1.0.0 (`/digitalwallets/v1/sca/...`, the default) or the 2.0.0
/// form (`/v2/sca/...`, placed under `/digitalwallets`, unverified).
public enum PaysafeSCAAttemptPath: String, Sendable, CaseIterable {
    case v1
    case v2
}

/// One business call, before the token is attached.
struct PaysafeCall: Sendable {
    var method: HTTPRequest.Method
    var path: String
    var query: [(name: String, value: String)]
    var body: Data?
    var operation: String
    /// Whether a solved SCA from the context goes with it: the operation's main request carries it, helper
    /// reads (the card fetched before an update) and the SCA attempt itself do not.
    var sendsSCA: Bool
    /// The write's name in the `signRequests` option; the request carries `Signature` when the option names it.
    var signing: PaysafeSignedOperation?

    init(
        _ method: HTTPRequest.Method, _ path: String, query: [(name: String, value: String)] = [], body: Data? = nil,
        operation: String,
        sendsSCA: Bool = true, signing: PaysafeSignedOperation? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.operation = operation
        self.sendsSCA = sendsSCA
        self.signing = signing
    }

    /// Reads are `.safe`; writes are `.never`: Paysafe documents no idempotency key, so a write is never
    /// repeated once it may have reached Paysafe.
    func request(sca: SCAAuthorization?) -> ProviderRequest {
        var headers = HTTPFields()
        if body != nil { headers[.contentType] = "application/json" }
        if let sca { headers[PaysafeAPI.scaAuthorizationHeader] = PaysafeSCA.authorizationHeaderValue(sca) }
        return ProviderRequest(
            method, path, query: query, headers: headers, body: body, repeatability: method == .get ? .safe : .never,
            operation: operation)
    }
}
