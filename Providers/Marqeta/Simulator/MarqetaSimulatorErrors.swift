/// The `error_code`s the simulator answers with, in Marqeta's shape: six digits, "the first three digits specify
/// the HTTP response code, and the last three digits represent the error" (Core API "Errors" page).
///
/// Only that rule is Marqeta's; the individual codes below are the simulator's own choice (*unverified* against
/// Marqeta's table), chosen so tests can tell the refusals apart. ``MarqetaSimulatorErrors/illegalCardTransition``
/// and ``MarqetaSimulatorErrors/illegalTokenTransition`` are the codes the adapter maps to `invalidCardState`.
public enum MarqetaSimulatorErrors: Sendable {
    /// A body that is not JSON, or a field missing or out of its allowable values (400).
    public static let invalidField = "400001"
    /// A card transition the card's state does not allow, e.g. from `TERMINATED` (400).
    public static let illegalCardTransition = "400600"
    /// A digital wallet token transition the token's state does not allow, e.g. from `TERMINATED` (400).
    public static let illegalTokenTransition = "400601"
    /// Provisioning a card that is not `ACTIVE` (400).
    public static let cardNotActive = "400610"
    /// A user or card product named in `POST /cards` that does not exist (400).
    public static let unknownReference = "400620"
    /// Missing or wrong application token / access token (401).
    public static let unauthorized = "401001"
    /// A card, user or digital wallet token that does not exist (404).
    public static let notFound = "404001"
    /// A `token` given on create that is already taken (409).
    public static let duplicateToken = "409001"

    /// `<status>000` for injected faults and generic errors.
    public static func genericCode(_ status: Int) -> String { "\(status)000" }
}
