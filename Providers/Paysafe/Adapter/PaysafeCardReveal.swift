@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// Card details for the cardholder without the backend seeing them (CardDetailsAndPIN.md): Paysafe's secure-details
/// link, in the normalised ``CardReveal`` API as ``RevealPurpose/cardDetails`` by ``RevealFlow/secureLink``.
///
/// Paysafe shows a card's PAN, CVV, expiry and cardholder name only in secure views (the card service's
/// `getSecureDetailsViews`), backed by a short-lived link: the user-facing API documents
/// `POST /profile/prepaid/cards/{cardId}/secure-details` ("a URL with a short expiration time") [C]; this adapter calls
/// the business form `…/customers/{customerId}/prepaid/cards/{cardId}/secure-details` [U]. The operation may require
/// SCA [C]: the session step then fails with `scaRequired` and the challenge; repeat it with `OperationContext.sca`.
/// The clear-data path (`GET …/cards/{cardId}/details`, PCI-DSS partners only) is never used. The PIN view
/// (`getSecurePinView`) is not offered: its HTTP endpoint is not documented (README, "Card details and PIN").
extension PaysafeProvider: CardReveal {
    /// Card statuses whose details are not offered: the card is gone (`CANCELLED`, `EXPIRED`, `REJECTED`) or not issued
    /// yet (`PENDING`, `APPLIED`). The adapter's own choice [U]: Paysafe documents no list.
    static let statusesWithoutDetails: Set<String> = ["CANCELLED", "EXPIRED", "REJECTED", "PENDING", "APPLIED"]

    /// Looks the card up (`GET …/cards/{cardId}`, without the SCA of the session step) and refuses a card in
    /// ``statusesWithoutDetails`` with `invalidCardState`. Offers ``RevealFlow/secureLink`` with `mayRequireSCA`.
    public func revealOffer(
        for card: CardRef, purpose: RevealPurpose, context: OperationContext
    ) async throws -> RevealOffer {
        try checkRevealPurpose(purpose)
        var problems = ValidationProblems()
        PaysafeValidation.cardID(card.id, field: "card.id", into: &problems)
        PaysafeValidation.customer(card.customer, field: "card.customer", into: &problems)
        try problems.throwIfAny()
        try await checkRevealable(card, context: context)
        return RevealOffer(card: card, purpose: purpose, flow: .secureLink, mayRequireSCA: true)
    }

    /// Reads the card (`GET …/cards/{cardId}`, without the session's SCA) and refuses one in ``statusesWithoutDetails``
    /// with `invalidCardState`: the offer and the session both check it, as a client may skip the offer.
    private func checkRevealable(_ card: CardRef, context: OperationContext) async throws {
        let current = try await fetchCard(card, context: context, primary: false)
        let status = current.providerStatus.uppercased()
        if Self.statusesWithoutDetails.contains(status) {
            throw CardGatewayError(
                .invalidCardState,
                "a Paysafe card in status \(SafeText.scrub(status, maxLength: 40)) has no details to show",
                provider: http.instance, providerKind: .paysafe
            )
        }
    }

    /// Checks the card's status as the offer does (a client may skip the offer), then
    /// `POST …/cards/{cardId}/secure-details` (empty JSON body [U]) → the link, as ``RevealMaterial/secureLink(_:)``, and
    /// its expiry when Paysafe gives one. Carries `SCA-Authorization` when the context holds a solved challenge. Sent
    /// once (`repeatability: .never`): a repeat would mint another link, so a call that may have reached Paysafe fails
    /// with `mayHaveReachedProvider` instead of being sent again; asking again makes a new link.
    public func revealSession(_ request: RevealSessionRequest, context: OperationContext) async throws -> RevealSession
    {
        try checkRevealPurpose(request.purpose)
        var problems = request.problems(in: .secureLink)
        var ids = ValidationProblems()
        PaysafeValidation.cardID(request.card.id, field: "card.id", into: &ids)
        PaysafeValidation.customer(request.card.customer, field: "card.customer", into: &ids)
        // Paysafe's own id checks, for the fields the flow's check has not already refused.
        let reported = Set(problems.errors.map(\.field))
        for error in ids.errors where !reported.contains(error.field) { problems.add(error.field, error.message) }
        try problems.throwIfAny()
        try await checkRevealable(request.card, context: context)
        let (link, expires) = try await secureDetailsLink(for: request.card, context: context)
        return RevealSession(
            card: request.card, purpose: request.purpose, flow: .secureLink, material: .secureLink(link),
            expires: expires)
    }

    /// A short-lived link that shows the card's PAN, CVV and expiry to the cardholder in the app: the session step of
    /// ``revealSession(_:context:)`` for ``RevealPurpose/cardDetails``, in Paysafe's own type. The library never returns
    /// card details in plain text; this link (a ``Secret``) is for the app's secure view only. Paysafe may require SCA:
    /// the error then carries the challenge; repeat with `OperationContext.sca`.
    public func secureDetailsAccess(
        for ref: CardRef, context: OperationContext
    ) async throws -> PaysafeSecureDetailsAccess {
        var problems = ValidationProblems()
        PaysafeValidation.cardID(ref.id, field: "card.id", into: &problems)
        PaysafeValidation.customer(ref.customer, field: "card.customer", into: &problems)
        try problems.throwIfAny()
        try await checkRevealable(ref, context: context)
        let (link, expires) = try await secureDetailsLink(for: ref, context: context)
        return PaysafeSecureDetailsAccess(card: ref, url: link, expires: expires)
    }

    /// The request and its answer: the first non-empty of `url`, `secureDetailsUrl` [U names], and the
    /// expiry from `expirationTime`, `expiresAt`, `expiryTime` or `expiresIn` seconds [U names].
    private func secureDetailsLink(for ref: CardRef, context: OperationContext) async throws -> (Secret, Date?) {
        let requested = now()
        let response = try await perform(
            PaysafeCall(
                .post, PaysafeAPI.secureDetails(customer: ref.customer ?? "", card: ref.id),
                body: try encode(PaysafeWireSecureDetailsRequest()),
                operation: "get a secure-details link", signing: .secureDetails
            ),
            context: context
        )
        let wire = try calls.decode(PaysafeWireSecureDetails.self, from: response, what: "secure details")
        guard let link = [wire.url, wire.secureDetailsUrl].compactMap({ $0 }).first(where: { !$0.isEmpty })
        else {
            throw calls.invalidResponse("Paysafe's secure-details answer has no URL", response)
        }
        // The link shows the card's number to the cardholder: only over TLS (never quoted: it is a bearer link).
        guard let url = URL(string: link), Self.isSecureLink(url) else {
            throw calls.invalidResponse(
                "Paysafe's secure-details answer has no usable URL (https expected)", response)
        }
        var expires = [wire.expirationTime, wire.expiresAt, wire.expiryTime].compactMap { $0 }.lazy.compactMap(
            PaysafeMapping.date
        ).first
        if expires == nil, let seconds = wire.expiresIn?.value {
            expires = requested.addingTimeInterval(TimeInterval(seconds))
        }
        return (Secret(link), expires)
    }

    /// An `https` URL with a host; plain `http` only on the loopback interface (a simulator on this machine), as
    /// Bridge's PIN frame URL is checked.
    static func isSecureLink(_ url: URL) -> Bool {
        guard let host = url.host, !host.isEmpty else { return false }
        switch url.scheme?.lowercased() {
        case "https": return true
        case "http": return ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased())
        default: return false
        }
    }

    private func checkRevealPurpose(_ purpose: RevealPurpose) throws {
        guard purpose == .cardDetails else {
            throw CardGatewayError(
                .unsupported,
                "Paysafe shows card details by a secure-details link; \(purpose) is not offered (no documented PIN view endpoint)",
                provider: http.instance, providerKind: .paysafe
            )
        }
    }
}

/// A short-lived link to Paysafe's secure view of the card's PAN, CVV, expiry and cardholder name. The link
/// itself is a ``Secret``: its description never shows it, so it cannot end up in a log by accident.
public struct PaysafeSecureDetailsAccess: Sendable, Equatable, CustomStringConvertible {
    public var card: CardRef
    /// The link to hand to the app's secure view (https); reveal it only to send it to the app.
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
