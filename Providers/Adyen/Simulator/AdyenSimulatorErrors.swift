import CardGatewaySimulation
import Foundation

/// The `errorCode`s and problem types the simulator answers with.
///
/// Adyen documents `00_401`, `00_403`, `00_404`, `00_500` (generic) and `30_031` (an example 422) for this API. The
/// other codes below are the simulator's own choice, shaped like Adyen's `30_xxx` validation codes; they are
/// *not* verified against Adyen and exist so tests can tell the refusals apart.
public enum AdyenSimulatorErrors: Sendable {
    /// Unknown payment instrument or network token (404).
    public static let notFound = "00_404"
    /// Activation data for a payment instrument that is not a card (422). Simulator's choice.
    public static let notACard = "30_101"
    /// Activation data for an instrument that is not active (422). Simulator's choice.
    public static let instrumentNotActive = "30_102"
    /// A POST of `sdkOutput` with no exchange in progress for the instrument (no GET first, or already completed) (422).
    /// Simulator's choice.
    public static let noExchange = "30_103"
    /// `sdkOutput` is not standard Base64 (422, `invalidFields` names it). Simulator's choice.
    public static let invalidSDKOutput = "30_104"
    /// `sdkOutput` that does not answer the session's latest `sdkInput` (422). Simulator's choice.
    public static let staleSDKOutput = "30_110"
    /// A required field is missing (422). Simulator's choice.
    public static let missingField = "30_105"
    /// PATCH with a status other than active, suspended, closed (422). Simulator's choice.
    public static let invalidTokenStatus = "30_106"
    /// PATCH of a closed network token: closed is final (422). Simulator's choice.
    public static let tokenClosed = "30_107"
    /// An `Idempotency-Key` reused with a different request (422) or still in progress (409). Adyen's Checkout
    /// error code "Request already processed or in progress"; unverified for this API.
    public static let idempotencyConflict = "704"
    /// An empty or longer than 64 characters `Idempotency-Key` (422). Simulator's choice.
    public static let invalidIdempotencyKey = "30_108"
    /// A PATCH body that is not a JSON object (422: that operation lists no 400). Simulator's choice.
    public static let bodyNotAnObject = "30_109"

    /// PATCH of a closed payment instrument: closed is final (422). Simulator's choice.
    public static let instrumentClosed = "30_111"
    /// PATCH of a payment instrument with an invalid or unsupported field (422, `invalidFields` names them).
    /// Simulator's choice.
    public static let invalidInstrumentUpdate = "30_112"
    /// A listing query parameter out of range (422, `invalidFields` names it). Simulator's choice.
    public static let invalidQuery = "30_113"

    /// `POST /paymentInstruments` with missing or invalid fields (422, `invalidFields` names them). Simulator's choice.
    public static let invalidInstrumentCreate = "30_114"
    /// `POST /paymentInstruments` naming a balance account that does not exist (404). Simulator's choice: Adyen's
    /// answer for this case is not documented.
    public static let unknownBalanceAccount = "30_115"

    /// Card details and PIN: an `encryptedKey` that the current public key of the purpose does not decrypt to an
    /// AES-256 key (another purpose's key, an expired key, not hexadecimal) (422). Simulator's choice.
    public static let invalidEncryptedKey = "30_120"
    /// Card details and PIN: an `encryptedKey` already used once (422). Simulator's choice.
    public static let sessionKeyUsed = "30_121"
    /// `POST /pins/change` with a `token` that is not 16 digits (422). Simulator's choice.
    public static let invalidPINToken = "30_122"
    /// `POST /pins/change` with an `encryptedPinBlock` that does not decipher to an ISO 9564 format 4 PIN field under
    /// the session key and token (422). Simulator's choice.
    public static let invalidPINBlock = "30_123"
    /// `POST /pins/change` with a `token` already used for a change (422). Simulator's choice.
    public static let pinTokenUsed = "30_124"

    /// `00_<status>` for faults and generic errors (Adyen's generic examples use `00_400`, `00_401`, `00_403`,
    /// `00_404`, `00_500`).
    public static func genericCode(_ status: Int) -> String { "00_\(status)" }

    static func title(_ status: Int) -> String {
        switch status {
        case 400: return "Bad request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not found"
        case 409: return "Conflict"
        case 422: return "Unprocessable entity"
        case 429: return "Too many requests"
        case 500...599: return "An internal error happened"
        default: return "Error"
        }
    }

    static func typeURI(_ status: Int) -> String {
        switch status {
        case 400: return "https://docs.adyen.com/errors/general/bad-request"
        case 401, 403: return "https://docs.adyen.com/errors/security/unauthorized"
        case 404: return "https://docs.adyen.com/errors/general/not-found"
        case 422: return "https://docs.adyen.com/errors/general/invalid-field-value"
        case 500...599: return "https://docs.adyen.com/errors/general/internal"
        default: return "https://docs.adyen.com/errors/general/request-error"
        }
    }
}

extension AdyenSimulator {
    func failure(
        _ status: Int, _ errorCode: String, _ title: String, _ detail: String,
        invalidFields: [(String, String, String)] = [], key: String? = nil
    ) -> AdyenSimulatorFailure {
        var response = restError(
            status: status, errorCode: errorCode, title: title, detail: detail, invalidFields: invalidFields)
        if let key { response = response.withHeader("Idempotency-Key", key) }
        return AdyenSimulatorFailure(response: response)
    }

    /// A `RestServiceError` body.
    func restError(
        status: Int, errorCode: String, title: String, detail: String, invalidFields: [(String, String, String)] = []
    ) -> SimulatedResponse {
        var object: [String: Any] = [
            "type": AdyenSimulatorErrors.typeURI(status), "title": title, "status": status, "detail": detail,
            "errorCode": errorCode,
            "requestId": state.ids.next(prefix: "", length: 16).uppercased(),
        ]
        if !invalidFields.isEmpty {
            object["invalidFields"] = invalidFields.map { ["name": $0.0, "value": $0.1, "message": $0.2] }
        }
        return .json(status, object)
    }
}

/// A refusal in Adyen's shape, thrown inside handlers.
struct AdyenSimulatorFailure: Error {
    var response: SimulatedResponse
}
