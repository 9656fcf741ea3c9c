@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes
import Synchronization

/// Card details and PIN on Adyen's Configuration API, without the backend seeing them (CardDetailsAndPIN.md;
/// `Providers/Adyen/README.md`, "Card details and PIN"). Every purpose is the ``RevealFlow/encryptedSessionKey``
/// flow:
///
/// 1. offer: `GET /publicKey?purpose=panReveal|pinReveal|pinChange&format=pem` gives an RSA public key and its
///    expiry date, cached per purpose and format until shortly before that date;
/// 2. the app makes an AES-256 key and encrypts it with that public key (and, to change the PIN, makes a 16-digit
///    token of its own and encrypts the new PIN as an ISO 9564 format 4 block with the AES key and that token: the
///    `token` of `PinChangeRequest` is "the 16-digit token that you used to generate the encryptedPinBlock", not a
///    PIN reveal's token, so no PIN is revealed to change one);
/// 3. session: the backend relays the encrypted key to `POST /paymentInstruments/reveal` (→ `encryptedData`),
///    `POST /pins/reveal` (→ `encryptedPinBlock`, `token`) or `POST /pins/change` (→ `status`) and hands back what
///    Adyen answers, which only the app's AES key opens.
///
/// Both steps first read the card (`GET /paymentInstruments/{id}`): a closed card is `invalidCardState` and a business
/// account `invalidRequest`, nothing more sent, so a client that skips the offer meets the same checks. A session is
/// sent once (`repeatability: .never`): Adyen's encrypted session key serves one request, so a session that may have
/// reached Adyen fails with `mayHaveReachedProvider` instead of being repeated.
///
/// Adyen's `GET /paymentInstruments/{id}/reveal`, which answers the clear number and CVC, is never called.
/// Encrypted values travel as Adyen shows them (hexadecimal); an app that gives Base64 has it converted to
/// hexadecimal before sending. Nothing here is ledgered, journaled or cached except the public keys.
extension AdyenProvider: CardReveal {
    /// The public key for `purpose` (asked of Adyen unless a cached one has more than
    /// ``AdyenAPI/publicKeyRefreshMargin`` left) and what the session request must carry, once the card is read
    /// and can be revealed (``revealableCard(_:context:)``).
    public func revealOffer(
        for card: CardRef, purpose: RevealPurpose, context: OperationContext
    ) async throws -> RevealOffer {
        try validate(cardID: card.id)
        guard let flow = descriptor.revealFlows[purpose] else {
            throw CardGatewayError(
                .unsupported, "Adyen offers no \(purpose)", provider: http.instance, providerKind: .adyen)
        }
        try await revealableCard(card, context: context)
        let key = try await revealPublicKey(for: purpose, format: "pem", context: context)
        return RevealOffer(card: card, purpose: purpose, flow: flow, publicKey: key)
    }

    /// Relays what the app supplied to Adyen's endpoint for the purpose and returns Adyen's encrypted answer.
    /// Refused before anything is sent: a card id that is not an Adyen id, a missing input or one the purpose does
    /// not take, an encrypted key or PIN block that is neither hexadecimal nor Base64 or has the wrong length, a token
    /// that is not 16 digits; then the card is read and checked as the offer checks it (``revealableCard(_:context:)``).
    /// The session request itself is sent once: should it fail on the way, the error has `mayHaveReachedProvider`
    /// and the app makes a new session key.
    public func revealSession(_ request: RevealSessionRequest, context: OperationContext) async throws -> RevealSession
    {
        guard let flow = descriptor.revealFlows[request.purpose] else {
            throw CardGatewayError(
                .unsupported, "Adyen offers no \(request.purpose)", provider: http.instance, providerKind: .adyen)
        }
        var problems = request.problems(in: flow)
        ProviderIDs.check(
            request.card.id, field: "card.id", what: "an Adyen payment instrument id", maxLength: AdyenAPI.idMaxLength,
            into: &problems)
        let encryptedKey = request.encryptedKey.flatMap {
            Self.wireHex($0.revealedValue, lengths: AdyenAPI.encryptedKeyLengths)
        }
        if let given = request.encryptedKey, !given.isEmpty {
            problems.require(
                encryptedKey != nil, "encryptedKey",
                "must be the RSA-encrypted session key in hexadecimal (or Base64), \(AdyenAPI.encryptedKeyLengths.lowerBound) to \(AdyenAPI.encryptedKeyLengths.upperBound) bytes"
            )
        }
        let pinBlock = request.encryptedPINBlock.flatMap {
            Self.wireHex($0.revealedValue, lengths: AdyenAPI.pinBlockLength...AdyenAPI.pinBlockLength)
        }
        if let given = request.encryptedPINBlock, !given.isEmpty {
            problems.require(
                pinBlock != nil, "encryptedPINBlock",
                "must be one encrypted ISO 9564 format 4 block (\(AdyenAPI.pinBlockLength) bytes) in hexadecimal (or Base64)"
            )
        }
        if let token = request.pinToken, !token.isEmpty {
            problems.require(
                token.revealedValue.count == AdyenAPI.pinTokenLength
                    && token.revealedValue.unicodeScalars.allSatisfy { ("0"..."9").contains($0) },
                "pinToken",
                "must be the \(AdyenAPI.pinTokenLength)-digit token the app used to make the encryptedPINBlock"
            )
        }
        try problems.throwIfAny()
        try await revealableCard(request.card, context: context)
        // Checked above: the flow's inputs are present.
        let key = encryptedKey ?? ""
        let secrets =
            [request.encryptedKey, request.encryptedPINBlock, request.pinToken].compactMap { $0?.revealedValue } + [
                key, pinBlock ?? "",
            ]

        switch request.purpose {
        case .pinReveal:
            let body = try calls.encode(AdyenWireRevealRequest(paymentInstrumentId: request.card.id, encryptedKey: key))
            let response = try await sendReveal(
                ProviderRequest(
                    .post, AdyenAPI.pinsReveal, headers: calls.headers(json: true), body: body, repeatability: .never,
                    operation: "reveal pin"),
                family: .pinReveal, secrets: secrets, context: context
            )
            let answer = try calls.decode(AdyenWireRevealPinResponse.self, from: response, what: "PIN reveal")
            guard let block = answer.encryptedPinBlock, !block.isEmpty, let token = answer.token, !token.isEmpty else {
                throw calls.invalidResponse("Adyen's PIN reveal has no encryptedPinBlock or token", response)
            }
            return RevealSession(
                card: request.card, purpose: .pinReveal, flow: flow,
                material: .encryptedPINBlock(Secret(block), token: Secret(token)))
        case .pinChange:
            let body = try calls.encode(
                AdyenWirePinChangeRequest(
                    paymentInstrumentId: request.card.id, encryptedKey: key, encryptedPinBlock: pinBlock ?? "",
                    token: request.pinToken?.revealedValue ?? ""
                ))
            // A change is a write whose token the app made for this one block: never repeated by the client (nor is a
            // reveal: the encrypted session key is single-use).
            let response = try await sendReveal(
                ProviderRequest(
                    .post, AdyenAPI.pinsChange, headers: calls.headers(json: true), body: body, repeatability: .never,
                    operation: "change pin"),
                family: .pinChange, secrets: secrets, context: context
            )
            let answer = try calls.decode(AdyenWirePinChangeResponse.self, from: response, what: "PIN change")
            guard let status = answer.status, !status.isEmpty else {
                throw calls.invalidResponse("Adyen's PIN change has no status", response)
            }
            return RevealSession(
                card: request.card, purpose: .pinChange, flow: flow,
                material: .pinChange(PINChangeStatus(rawValue: status)))
        default:
            let body = try calls.encode(AdyenWireRevealRequest(paymentInstrumentId: request.card.id, encryptedKey: key))
            let response = try await sendReveal(
                ProviderRequest(
                    .post, AdyenAPI.paymentInstrumentsReveal, headers: calls.headers(json: true), body: body,
                    repeatability: .never, operation: "reveal card details"
                ),
                family: .panReveal, secrets: secrets, context: context
            )
            let answer = try calls.decode(
                AdyenWirePaymentInstrumentRevealResponse.self, from: response, what: "card details reveal")
            guard let data = answer.encryptedData, !data.isEmpty else {
                throw calls.invalidResponse("Adyen's card details reveal has no encryptedData", response)
            }
            return RevealSession(
                card: request.card, purpose: request.purpose, flow: flow, material: .encryptedData(Secret(data)))
        }
    }

    /// Adyen's public key for `purpose` in `format` (`pem` or `jwk`), from the cache while it has more than
    /// ``AdyenAPI/publicKeyRefreshMargin`` left, else from `GET /publicKey`. A key without a readable expiry date is
    /// returned but not cached.
    public func revealPublicKey(
        for purpose: RevealPurpose, format: String, context: OperationContext
    ) async throws -> RevealPublicKey {
        guard AdyenAPI.publicKeyFormats.contains(format) else {
            throw CardGatewayError(
                .invalidRequest, "format must be pem or jwk", provider: http.instance, providerKind: .adyen)
        }
        let wirePurpose = AdyenAPI.publicKeyPurpose(purpose)
        let cacheKey = "\(wirePurpose) \(format)"
        if let cached = revealKeys.key(cacheKey, at: now()) { return cached }
        let response = try await send(
            ProviderRequest(
                .get, AdyenAPI.publicKey, query: [("purpose", wirePurpose), ("format", format)],
                headers: calls.headers(),
                operation: "get public key"
            ),
            family: Self.revealFamily(purpose), context: context
        )
        let answer = try calls.decode(AdyenWirePublicKeyResponse.self, from: response, what: "public key")
        guard let value = answer.publicKey, !value.isEmpty else {
            throw calls.invalidResponse("Adyen's public key answer has no publicKey", response)
        }
        let expires = answer.publicKeyExpiryDate.flatMap(Self.expiryDate)
        let key = RevealPublicKey(format: format, value: value, expires: expires)
        if let expires {
            revealKeys.store(key, as: cacheKey, until: expires.addingTimeInterval(-AdyenAPI.publicKeyRefreshMargin))
        }
        return key
    }

    /// The card of a reveal, read and checked: a closed card (`cancelled`) is `invalidCardState`, a payment
    /// instrument that is not a card `invalidRequest`. Other statuses are left to Adyen, which documents none that
    /// it refuses.
    func revealableCard(_ card: CardRef, context: OperationContext) async throws {
        let found = try await self.card(card, context: context)
        guard found.status != .cancelled else {
            throw CardGatewayError(
                .invalidCardState,
                "the Adyen card is \(SafeText.scrub(found.providerStatus, maxLength: 40)): nothing of it can be revealed or changed",
                provider: http.instance, providerKind: .adyen
            )
        }
    }

    /// Which role a 403 names: `GET /publicKey` needs the role of the purpose it asks for (`panReveal`,
    /// `pinReveal`, `pinChange`).
    static func revealFamily(_ purpose: RevealPurpose) -> AdyenEndpointFamily {
        switch purpose {
        case .pinReveal: .pinReveal
        case .pinChange: .pinChange
        default: .panReveal
        }
    }

    /// Sends a reveal request and maps a refusal, redacting the app's values should Adyen ever echo one.
    private func sendReveal(
        _ request: ProviderRequest, family: AdyenEndpointFamily, secrets: [String], context: OperationContext
    ) async throws -> ProviderResponse {
        try await calls.send(request, context: context) { response, _ in
            error(for: response, family: family, redacting: secrets)
        }
    }

    /// `text` as the hexadecimal Adyen takes when it is hexadecimal already (sent as given), or its Base64 decoded
    /// and written in capital hexadecimal (as Adyen's examples show it); nil unless it decodes to a length in `lengths`.
    static func wireHex(_ text: String, lengths: ClosedRange<Int>) -> String? {
        let isHex =
            !text.isEmpty && text.count % 2 == 0 && text.unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit }
        if isHex, let bytes = ByteEncoding.decodeHex(text), lengths.contains(bytes.count) { return text }
        guard !isHex, let bytes = ByteEncoding.decodeBase64(text), lengths.contains(bytes.count) else { return nil }
        return ByteEncoding.hex(bytes).uppercased()
    }

    /// `publicKeyExpiryDate`: a date-time (ISO 8601, with or without fractions) or a date (`2023-12-12`, as the
    /// spec's example shows), read as the start of that day in UTC (the earliest it can mean).
    static func expiryDate(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.count == 10 { return InternetDateTime.parse(trimmed + "T00:00:00Z") }
        return AdyenMapping.date(trimmed)
    }
}

/// Adyen's public keys, per purpose and format, each until its refresh time. Shared by every copy of the adapter.
final class AdyenRevealKeyCache: Sendable {
    private let entries = Mutex<[String: (key: RevealPublicKey, until: Date)]>([:])

    /// The key stored as `name`, while `now` is before its refresh time.
    func key(_ name: String, at now: Date) -> RevealPublicKey? {
        entries.withLock { entries in
            guard let entry = entries[name] else { return nil }
            guard now < entry.until else {
                entries[name] = nil
                return nil
            }
            return entry.key
        }
    }

    func store(_ key: RevealPublicKey, as name: String, until: Date) {
        entries.withLock { $0[name] = (key, until) }
    }
}
