@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

// Card details and PIN change at Bridge (CardDetailsAndPIN.md, README "Card details and PIN").
//
// Card details (spec "Generate an Ephemeral Key to Reveal Card Details"; guide "Safely reveal card details to
// customers"): the front end makes a random secret and a timestamp and derives the nonce from them (HMAC-SHA256 of
// `nonce:{timestamp}` keyed by the secret); the backend relays the nonce (`POST …/ephemeral_keys {client_nonce}`) and
// hands back `ephemeral_key`, a one-time key valid five minutes; the front end calls Bridge with the key and the
// original secret and timestamp and is shown the number, security code and expiry. The backend never holds them, nor
// the secret the nonce was derived from.
//
// PIN change (spec "Create Card PIN Update URL"): `POST …/pin` answers a single-use, time-limited `url` of a secure
// frame where the cardholder sets the PIN. Bridge documents no PIN reveal.

extension BridgeProvider: CardReveal {
    /// Asks Bridge for the card account (`GET …/card_accounts/{id}`) and refuses one that is `pending` (not issued
    /// yet) or `inactive` (deactivated) with ``CardGatewayError/Code/invalidCardState``; an active or frozen account is
    /// offered. Card details last five minutes (Bridge's word); the PIN frame's lifetime is not documented.
    public func revealOffer(
        for card: CardRef, purpose: RevealPurpose, context: OperationContext
    ) async throws -> RevealOffer {
        guard let flow = descriptor.revealFlows[purpose] else {
            throw CardGatewayError(
                .unsupported, "Bridge offers no \(purpose)", provider: http.instance, providerKind: .bridge)
        }
        let account = try await revealableAccount(card, context: context)
        return RevealOffer(
            card: account.ref, purpose: purpose, flow: flow,
            sessionLifetime: purpose == .cardDetails ? .seconds(Int64(BridgeAPI.ephemeralKeyLifetime)) : nil
        )
    }

    /// Checks the card account as the offer does (a client may skip the offer), then: card details, `POST
    /// …/ephemeral_keys {"client_nonce": …}` → the key as ``RevealMaterial/ephemeralKey(id:secret:)`` (Bridge gives it
    /// no id), expiring five minutes after this call; PIN change, `POST …/pin` → the frame's URL as
    /// ``RevealMaterial/secureLink(_:)``.
    ///
    /// Each call sends a fresh `Idempotency-Key` (the operation's key is not used), so a new call makes a new key or
    /// URL, never Bridge's replay of an earlier one. The transport repeats a call that may have reached Bridge with the
    /// same key: Bridge answers a repeated key with the original response and no second operation (its idempotence
    /// page), so the repeat gets the key or URL the lost answer held, which nobody has used. The client nonce never
    /// appears in an error or a log line, even where Bridge's message echoes it.
    public func revealSession(_ request: RevealSessionRequest, context: OperationContext) async throws -> RevealSession
    {
        guard let flow = descriptor.revealFlows[request.purpose] else {
            throw CardGatewayError(
                .unsupported, "Bridge offers no \(request.purpose)", provider: http.instance, providerKind: .bridge)
        }
        var problems = request.problems(in: flow)
        let (customer, id) = collect(request.card, into: &problems)
        try problems.throwIfAny()
        guard let customer, let id else { throw CardGatewayError.invalidRequest("is required", field: "card.customer") }
        let ref = CardRef(id: id, customer: customer)
        let nonce = request.clientNonce?.revealedValue ?? ""
        do {
            return try await session(request, ref: ref, flow: flow, context: context)
        } catch var error as CardGatewayError where !nonce.isEmpty {
            error.message = error.message.replacingOccurrences(of: nonce, with: "<redacted>")
            error.fieldErrors = error.fieldErrors.map {
                CardGatewayError.FieldError(
                    field: $0.field, message: $0.message.replacingOccurrences(of: nonce, with: "<redacted>"))
            }
            throw error
        }
    }

    /// The card account, refused with ``CardGatewayError/Code/invalidCardState`` when it is `pending` (not issued yet)
    /// or `inactive` (deactivated): what the offer and the session step both check.
    private func revealableAccount(_ card: CardRef, context: OperationContext) async throws -> Card {
        let account = try await self.card(card, context: context)
        guard ["active", "frozen"].contains(account.providerStatus) else {
            let why = account.statusReason.flatMap { $0.isEmpty ? nil : " (\($0))" } ?? ""
            throw CardGatewayError(
                .invalidCardState,
                "the card account is \(account.providerStatus)\(why): Bridge shows or changes nothing of it",
                provider: http.instance, providerKind: .bridge
            )
        }
        return account
    }

    private func session(
        _ request: RevealSessionRequest, ref: CardRef, flow: RevealFlow, context: OperationContext
    ) async throws -> RevealSession {
        guard let customer = ref.customer else {
            throw CardGatewayError.invalidRequest("is required", field: "card.customer")
        }
        let id = ref.id
        _ = try await revealableAccount(ref, context: context)
        // A fresh key per call: the transport makes a random one when the operation has none.
        var requestContext = context
        requestContext.idempotencyKey = nil

        switch request.purpose {
        case .cardDetails:
            guard let nonce = request.clientNonce else {
                throw CardGatewayError.invalidRequest("is required", field: "clientNonce")
            }
            let response = try await calls.send(
                ProviderRequest(
                    .post, BridgeAPI.ephemeralKeys(customer: customer, card: id), headers: calls.headers(json: true),
                    body: try calls.encode(BridgeEphemeralKeyInput(clientNonce: nonce.revealedValue)),
                    repeatability: .idempotent(header: BridgeAPI.idempotencyKeyHeader, scope: "ephemeral_keys"),
                    operation: "create card details ephemeral key"
                ),
                context: requestContext
            )
            let decoded: BridgeEphemeralKeyResponse = try calls.decode(from: response, what: "ephemeral key")
            guard let key = decoded.ephemeralKey, !key.isEmpty else {
                throw calls.invalidResponse("Bridge's answer has no ephemeral_key", response)
            }
            context.logger.debug(
                "created a Bridge ephemeral key for card details", metadata: ["provider": .string(http.instance)])
            return RevealSession(
                card: ref, purpose: .cardDetails, flow: flow, material: .ephemeralKey(id: nil, secret: Secret(key)),
                expires: Date().addingTimeInterval(BridgeAPI.ephemeralKeyLifetime)
            )
        case .pinChange:
            let response = try await calls.send(
                ProviderRequest(
                    .post, BridgeAPI.pinUpdateURL(customer: customer, card: id), headers: calls.headers(),
                    repeatability: .idempotent(header: BridgeAPI.idempotencyKeyHeader, scope: "pin"),
                    operation: "create card PIN update URL"
                ),
                context: requestContext
            )
            let decoded: BridgePINUpdateResponse = try calls.decode(from: response, what: "PIN update URL")
            guard let text = decoded.url, let url = URL(string: text), Self.isFrameURL(url) else {
                throw calls.invalidResponse("Bridge's answer has no usable PIN update url (https expected)", response)
            }
            context.logger.debug("created a Bridge PIN update URL", metadata: ["provider": .string(http.instance)])
            return RevealSession(card: ref, purpose: .pinChange, flow: flow, material: .secureLink(Secret(text)))
        default:
            throw CardGatewayError(
                .unsupported, "Bridge offers no \(request.purpose)", provider: http.instance, providerKind: .bridge)
        }
    }

    /// An `https` URL with a host; plain `http` only on the loopback interface (a simulator on this machine).
    static func isFrameURL(_ url: URL) -> Bool {
        guard let host = url.host, !host.isEmpty else { return false }
        switch url.scheme?.lowercased() {
        case "https": return true
        case "http": return ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased())
        default: return false
        }
    }
}
