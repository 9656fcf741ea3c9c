import CardGatewaySimulation

/// The `error_code`s the simulator answers with, in Marqeta's shape: six digits, "the first three digits specify
/// the HTTP response code, and the last three digits represent the error" (Core API "Errors" page).
///
/// That rule is Marqeta's, and so are ``illegalTokenTransition`` and ``tokenAlreadyInState`` (the 422003 and 422004
/// of `POST /digitalwallettokentransitions`, developer-guides/troubleshooting-digital-wallet-token-lifecycle-errors;
/// which scenario answers which of the two is *unconfirmed*: Marqeta's per-scenario table was not retrievable). The
/// other codes are the simulator's own choice (*unconfirmed* against Marqeta's table), chosen so tests can tell the
/// refusals apart; see `Providers/Marqeta/README.md`.
public enum MarqetaSimulatorErrors: Sendable {
    /// A body that is not JSON, or a field missing or out of its allowable values (400).
    public static let invalidField = "400001"
    /// A card transition the card's state does not allow, e.g. from `TERMINATED` (400). *Unconfirmed*: no Marqeta
    /// source names the code of this refusal.
    public static let illegalCardTransition = "400600"
    /// A digital wallet token transition the token's state does not allow: the token is `TERMINATED` or
    /// `REQUEST_DECLINED` (422). Marqeta documents 422003 for a state mismatch with the token service provider and for
    /// generic token service provider errors.
    public static let illegalTokenTransition = "422003"
    /// A digital wallet token transition to the state the token is already in (422). Marqeta documents 422004 for a
    /// state mismatch with the token service provider; that this case answers it is *unconfirmed*.
    public static let tokenAlreadyInState = "422004"
    /// Provisioning a card that is not `ACTIVE` (400).
    public static let cardNotActive = "400610"
    /// A user or card product named in `POST /cards` that does not exist (400).
    public static let unknownReference = "400620"
    /// Missing or wrong application token / access token (401).
    public static let unauthorized = "401001"
    /// A card, user or digital wallet token that does not exist (404).
    public static let notFound = "404001"
    /// A `token` already associated with a different payload (409, the swagger's text). The code is *unconfirmed*.
    public static let duplicateToken = "409001"

    /// `<status>000` for injected faults and generic errors.
    public static func genericCode(_ status: Int) -> String { "\(status)000" }
}

/// A refusal in Marqeta's shape, thrown inside handlers.
struct MarqetaSimulatorFailure: Error {
    var response: SimulatedResponse
}

extension MarqetaSimulator {
    func invalid(_ message: String) -> MarqetaSimulatorFailure {
        failure(400, MarqetaSimulatorErrors.invalidField, message)
    }

    func failure(_ status: Int, _ code: String, _ message: String) -> MarqetaSimulatorFailure {
        MarqetaSimulatorFailure(response: errorBody(status, code, message))
    }

    func errorBody(_ status: Int, _ code: String, _ message: String) -> SimulatedResponse {
        .json(status, ["error_code": code, "error_message": message])
    }
}
