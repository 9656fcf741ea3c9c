import CardGateway
import Foundation

/// Every path, field value and constant of the Trust Payments wire that the adapter relies on, in one place.
///
/// Sources: the official Python client `securetrading` 1.0.26 (config.py, api.py, httpclient.py, converter.py,
/// requestobject.py), the official Swift SDK (`SecureTrading/swift-payments`), and the Trust Payments docs named in
/// `../shared/providers/trustpayments.md`. Items marked `[U]` are not confirmed by those sources.
enum TrustPaymentsAPI {
    /// The Webservices JSON endpoint (`datacenterpath` in the Python client).
    static let jsonPath = "/json/"
    /// The mobile SDK's endpoint (`POST https://{host}/jwt/`), used only by the simulator and the SDK.
    static let jwtPath = "/jwt/"

    /// The JSON interface version (`jsonversion` in the Python client).
    static let version = "1.00"
    /// What we put in `libraryversion` (the Python client sends `python_<version>`).
    static let libraryVersion = "swift_cardgateway_1.0"
    /// What we put in each request's `versioninfo` (the Python client sends `Python::<py>::<lib>::<platform>`).
    static let versionInfo = "Swift::6::CardGateway::1.0"

    /// Headers the Python client sends on every Webservices POST.
    static let contentType = "application/json;charset=utf-8"
    static let accept = "application/json"
    /// The request-reference header the Python client sends next to the body's `requestreference`.
    static let requestReferenceHeader = "REQUESTREFERENCE"

    /// The Webservices request bodies' encoder: keys sorted (the bytes do not depend on declaration order, so a body
    /// is the same for the same request) and slashes unescaped (as Python's `json.dumps`, which the official client
    /// writes its bodies with, leaves them). An absent optional field is left out, as the Python client leaves out a
    /// key it was not given.
    static let bodyEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Documented hosts: EU (`.net`, the Python client's default) and US (`.us`).
    static let euHost = URL(string: "https://webservices.securetrading.net")!
    static let usHost = URL(string: "https://webservices.securetrading.us")!

    static let accountTypeECOM = "ECOM"

    /// `credentialsonfile`: 1 = store (cardholder consented), 2 = use previously stored credentials.
    static let credentialsOnFileStore = "1"
    static let credentialsOnFileReuse = "2"

    /// `initiationreason` letters for merchant-initiated transactions (A, C, D are documented; the letters for
    /// resubmission and no-show were not retrieved and are not used).
    static func initiationReason(_ reason: MerchantInitiatedReasonCode) -> String { reason.rawValue }

    /// `parenttransactionreference`: "Alphanumeric & hyphens (25)" (tokenization docs).
    static let transactionReferenceMaxLength = 25

    /// How long a minted session JWT is meant to be used: the legacy JavaScript-library docs ask for payment
    /// within 15 minutes of `iat`. [U] for the mobile SDK.
    static let sessionLifetime: TimeInterval = 15 * 60

    /// How far in the future a response JWT's `iat` may be (clock skew between the gateway and us).
    static let allowedFutureSkew: TimeInterval = 60

    /// The request types a client session asks for.
    enum RequestType {
        static let accountCheck = "ACCOUNTCHECK"
        static let threeDQuery = "THREEDQUERY"
        static let auth = "AUTH"
    }

    /// `settlestatus` values: 0 pending, 1 pending (manual override), 2 suspended, 3 cancelled, 10 settling,
    /// 100 settled.
    enum SettleStatus {
        static let cancelled = "3"
        static let suspended = "2"
        static let authorised: Set<String> = ["0", "1", "10"]
        static let settled = "100"
    }
}

/// The `initiationreason` letters.
enum MerchantInitiatedReasonCode: String {
    /// Re-authorisation: the parent must be a successful AUTH, not an ACCOUNTCHECK.
    case reauthorisation = "A"
    /// Unscheduled: the parent may be a successful AUTH or ACCOUNTCHECK.
    case unscheduled = "C"
    /// Delayed charges.
    case delayed = "D"

    init?(_ reason: MerchantInitiatedReason) {
        switch reason {
        case .reauthorisation: self = .reauthorisation
        case .unscheduled: self = .unscheduled
        case .delayed: self = .delayed
        default: return nil
        }
    }
}
