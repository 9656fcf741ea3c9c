import CardGateway
import Crypto
import Foundation
import HTTPTypes
import Logging
import _CryptoExtras

/// Bridge webhook verification and normalisation.
enum BridgeWebhooks {
    /// `X-Webhook-Signature: t=<milliseconds>,v0=<Base64 signature>`, parsed.
    struct SignatureHeader: Equatable {
        var timestampMilliseconds: Int64
        var signatures: [Data]
    }

    /// Parses the header; nil when it is malformed (no `t`, a non-numeric `t`, no `v0`, or a `v0` that is not
    /// strict Base64). Unknown keys are ignored so that a future scheme can be added beside `v0`.
    static func parseHeader(_ value: String) -> SignatureHeader? {
        var timestamp: Int64?
        var signatures: [Data] = []
        for part in value.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = part.trimmingCharacters(in: .whitespaces).split(
                separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { return nil }
            let key = String(pair[0])
            let text = String(pair[1])
            switch key {
            case "t":
                guard timestamp == nil, !text.isEmpty, text.count <= 16, text.allSatisfy({ $0.isASCII && $0.isNumber }),
                    let milliseconds = Int64(text)
                else { return nil }
                timestamp = milliseconds
            case "v0":
                guard let signature = ByteEncoding.decodeBase64(text), !signature.isEmpty else { return nil }
                signatures.append(signature)
            default:
                continue
            }
        }
        guard let timestamp, !signatures.isEmpty else { return nil }
        return SignatureHeader(timestampMilliseconds: timestamp, signatures: signatures)
    }

    /// What Bridge's RSA key signs: the SHA-256 digest of `"<t>.<raw body>"`, as bytes. Bridge's own
    /// verification steps hash the joined data and hand that digest to an RSA-SHA256 verifier, which hashes
    /// it once more, so the signature covers SHA-256(SHA-256(data)). Passing these 32 bytes as `Data` (not as a
    /// `Digest`) to swift-crypto's RSA API gives that second pass; Bridge's published test vector checks it.
    static func signedMessage(timestampMilliseconds: Int64, body: Data) -> Data {
        var joined = Data("\(timestampMilliseconds).".utf8)
        joined.append(body)
        return Data(SHA256.hash(data: joined))
    }

    static func verify(
        _ delivery: WebhookDelivery, key: _RSA.Signing.PublicKey, now: Date,
        logger: Logger = OperationContext.noopLogger
    ) throws -> [GatewayEvent] {
        guard let value = delivery.headers[BridgeAPI.webhookSignatureHeader] else {
            throw CardGatewayError.signatureInvalid("the Bridge webhook has no X-Webhook-Signature header")
        }
        guard let header = parseHeader(value) else {
            throw CardGatewayError.signatureInvalid(
                "the X-Webhook-Signature header is not of the form t=<milliseconds>,v0=<Base64 signature>")
        }
        let signed = signedMessage(timestampMilliseconds: header.timestampMilliseconds, body: delivery.body)
        let valid = header.signatures.contains { signature in
            key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: signed, padding: .insecurePKCS1v1_5)
        }
        guard valid else {
            throw CardGatewayError.signatureInvalid(
                "the Bridge webhook signature does not match the body and the endpoint's public key")
        }
        let signedAt = Date(timeIntervalSince1970: Double(header.timestampMilliseconds) / 1000)
        let age = now.timeIntervalSince(signedAt)
        guard age <= BridgeAPI.webhookMaxAge else {
            throw CardGatewayError.signatureInvalid(
                "the Bridge webhook was signed \(Int(age)) seconds ago, more than the 10 minutes allowed")
        }
        guard -age <= BridgeAPI.webhookMaxFutureSkew else {
            throw CardGatewayError.signatureInvalid(
                "the Bridge webhook timestamp is \(Int(-age)) seconds in the future")
        }
        return try events(from: delivery.body, logger: logger)
    }

    /// The normalised events in a verified body.
    static func events(from body: Data, logger: Logger = OperationContext.noopLogger) throws -> [GatewayEvent] {
        let event: BridgeWebhookEvent
        do {
            event = try JSONDecoder().decode(BridgeWebhookEvent.self, from: body)
        } catch {
            throw CardGatewayError(
                .invalidResponse, "the Bridge webhook body is not a Bridge event object", providerKind: .bridge)
        }
        guard let eventID = event.eventID, !eventID.isEmpty else {
            throw CardGatewayError(.invalidResponse, "the Bridge webhook event has no event_id", providerKind: .bridge)
        }
        // A category or type we do not map (Bridge documents more than its spec lists, e.g. `card_dispute`, and adds
        // new ones) is not an error: the delivery is authentic, it just says nothing the gateway acts on.
        guard event.eventCategory == BridgeAPI.cardAccountCategory else {
            logger.debug(
                "bridge webhook of an unmapped category ignored",
                metadata: [
                    "bridge.event_category": .string(SafeText.scrub(event.eventCategory ?? "", maxLength: 40)),
                    "bridge.event_type": .string(SafeText.scrub(event.eventType ?? "", maxLength: 60)),
                ])
            return []
        }
        let object = event.eventObject
        guard let cardID = event.eventObjectID ?? object?["id"]?.stringValue, !cardID.isEmpty else {
            throw CardGatewayError(
                .invalidResponse, "the Bridge card_account event names no card account", providerKind: .bridge)
        }
        // Without a status the event says nothing about the card's state (Bridge documents none such).
        guard let newStatus = object?["status"]?.stringValue ?? event.eventObjectStatus else { return [] }
        let freezes = (object?["freezes"]?.arrayValue ?? []).map { freeze in
            BridgeCardFreeze(initiator: freeze["initiator"]?.stringValue, reason: freeze["reason"]?.stringValue)
        }
        let oldStatus = previousStatus(event.eventObjectChanges?["status"])
        let change = CardStatusChange(
            card: CardRef(id: cardID, customer: object?["customer_id"]?.stringValue),
            oldStatus: oldStatus.map { BridgeMapping.cardStatus($0, freezes: []) },
            newStatus: BridgeMapping.cardStatus(newStatus, freezes: freezes),
            providerOldStatus: oldStatus,
            providerNewStatus: newStatus
        )
        return [
            GatewayEvent(
                id: eventID, providerKind: .bridge, occurredAt: BridgeDates.parse(event.eventCreatedAt),
                providerType: event.eventType ?? "", event: .cardStatusChanged(change)
            )
        ]
    }

    /// The status before the change, from `event_object_changes.status`: `[old, new]` (*unverified*: Bridge's
    /// examples show before/after pairs), or a single previous value.
    static func previousStatus(_ value: JSONValue?) -> String? {
        guard let value else { return nil }
        if let pair = value.arrayValue { return pair.first?.stringValue }
        if let text = value.stringValue { return text }
        if let object = value.objectValue {
            return (object["previous"] ?? object["old"] ?? object["from"])?.stringValue
        }
        return nil
    }
}
