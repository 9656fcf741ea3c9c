import CardGateway
import Foundation
import HTTPTypes

/// Secure details and SCA: the link to the card's details, and SCA attempts.
extension PaysafeProvider {
    /// A short-lived link that shows the card's PAN, CVV and expiry to the cardholder in the app. The library
    /// never returns card details in plain text; this link (a ``Secret``) is for the app's secure view only.
    /// Paysafe may require SCA: the error then carries the challenge; repeat with `OperationContext.sca`.
    public func secureDetailsAccess(for ref: CardRef, context: OperationContext) async throws -> PaysafeSecureDetailsAccess {
        var problems = ValidationProblems()
        PaysafeValidation.cardID(ref.id, field: "card.id", into: &problems)
        PaysafeValidation.customer(ref.customer, field: "card.customer", into: &problems)
        try problems.throwIfAny()
        let requested = now()
        let response = try await perform(
            PaysafeCall(
                .post, PaysafeAPI.secureDetails(customer: ref.customer ?? "", card: ref.id), body: try encode(PaysafeWireSecureDetailsRequest()),
                operation: "get a secure-details link"
            ),
            context: context
        )
        let wire = try decode(PaysafeWireSecureDetails.self, from: response, what: "secure details")
        guard let link = [wire.url, wire.secureDetailsUrl, wire.token].compactMap({ $0 }).first(where: { !$0.isEmpty }) else {
            throw invalidResponse("Paysafe's secure-details answer has no URL", response: response)
        }
        var expires = [wire.expirationTime, wire.expiresAt, wire.expiryTime].compactMap { $0 }.lazy.compactMap(PaysafeMapping.date).first
        if expires == nil, let seconds = wire.expiresIn?.value { expires = requested.addingTimeInterval(TimeInterval(seconds)) }
        return PaysafeSecureDetailsAccess(card: ref, url: Secret(link), expires: expires)
    }

    /// Reports the outcome of an outsourced SCA challenge the partner ran itself (`POST /sca/events/{eventId}/attempts`),
    /// so that the operation can be repeated with `OperationContext.sca`.
    ///
    /// - Parameters:
    ///   - method: `PASSWORD`, `PIN`, `PASSKEYS`, `OTP`, `PUSH_NOTIFICATION` or `BIOMETRIC`.
    ///   - channel: `SMS`, `EMAIL`, `AUTHENTICATOR`, `PUSH_NOTIFICATION`, `REDIRECT`, or nil.
    ///   - status: the outcome the partner observed (`VERIFIED` by default).
    ///   - path: the 1.0.0 path (default) or the 2.0.0 `/v2/sca/...` path.
    public func submitSCAAttempt(
        eventID: String, walletOperationID: String, method: String, channel: String?, status: PaysafeSCAAttemptStatus = .verified,
        path: PaysafeSCAAttemptPath = .v1, context: OperationContext
    ) async throws -> PaysafeSCAAttemptResult {
        var problems = ValidationProblems()
        problems.require(!PaysafeValidation.isBlank(eventID), "eventID", "is required")
        problems.require(!PaysafeValidation.isBlank(walletOperationID), "walletOperationID", "is required")
        problems.require(!PaysafeValidation.isBlank(method), "method", "is required (for example OTP)")
        if let channel { problems.require(!PaysafeValidation.isBlank(channel), "channel", "must not be blank when given") }
        try problems.throwIfAny()
        let wire = PaysafeWireSCAAttemptRequest(
            walletOperationId: walletOperationID, verification: .init(method: method.uppercased(), channel: channel?.uppercased()),
            status: status == .verified ? nil : status.rawValue
        )
        let response = try await perform(
            PaysafeCall(.post, PaysafeAPI.scaAttempts(eventID: eventID, version: path), body: try encode(wire), operation: "submit an SCA attempt", sendsSCA: false),
            context: context
        )
        let attempt = try decode(PaysafeWireSCAAttempt.self, from: response, what: "SCA attempt")
        return PaysafeSCAAttemptResult(
            id: attempt.id?.value, eventID: attempt.eventId ?? eventID, walletOperationID: attempt.walletOperationId ?? walletOperationID,
            status: attempt.status ?? status.rawValue, statusReason: attempt.statusReason,
            allowableAttempts: attempt.allowableAttempts?.value, currentAttempts: attempt.currentAttempts?.value
        )
    }
}

/// A short-lived link to Paysafe's secure view of the card's PAN, CVV, expiry and cardholder name. The link
/// itself is a ``Secret``: its description never shows it, so it cannot end up in a log by accident.
public struct PaysafeSecureDetailsAccess: Sendable, Equatable, CustomStringConvertible {
    public var card: CardRef
    /// The link (or token) to hand to the app's secure view; reveal it only to send it to the app.
    public var url: Secret
    /// When the link stops working, when Paysafe says.
    public var expires: Date?

    public init(card: CardRef, url: Secret, expires: Date?) {
        self.card = card
        self.url = url
        self.expires = expires
    }

    public var description: String {
        "PaysafeSecureDetailsAccess(card: \(card), url: <redacted>, expires: \(expires.map { "\($0)" } ?? "-"))"
    }
}
