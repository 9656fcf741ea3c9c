import CardGateway
import Foundation
import HTTPTypes

/// Stripe's webhook signature: `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, where each `v1` is
/// the lower-case hex HMAC-SHA256 of `"{t}.{raw body}"` keyed with the endpoint secret's UTF-8 bytes
/// (`whsec_…` as a whole). Several `v1` values arrive while a secret is being rolled.
struct StripeWebhookVerifier: Sendable {
    var secrets: [Secret]
    var tolerance: TimeInterval

    /// The parsed header.
    struct SignatureHeader: Equatable {
        var timestamp: Int64
        var signatures: [String]
    }

    /// Parses the header as Stripe's libraries do: the first `t`, every `v1`, and items that are not
    /// `key=value` or have another key ignored. The first `t` must be whole seconds and each `v1` short.
    static func parse(_ header: String) -> SignatureHeader? {
        var timestamp: Int64?
        var signatures: [String] = []
        for item in header.split(separator: ",", omittingEmptySubsequences: false) {
            // Optional whitespace around an item is HTTP's (RFC 9110: spaces and tabs).
            var pair = item
            while pair.first == " " || pair.first == "\t" { pair.removeFirst() }
            while pair.last == " " || pair.last == "\t" { pair.removeLast() }
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let key = pair[..<equals]
            let value = String(pair[pair.index(after: equals)...])
            switch key {
            case "t":
                guard timestamp == nil else { continue }
                guard value.utf8.count <= 12, value.allSatisfy({ $0.isASCII && $0.isNumber }),
                    let seconds = Int64(value), seconds > 0
                else { return nil }
                timestamp = seconds
            case "v1":
                guard !value.isEmpty, value.utf8.count <= 128 else { return nil }
                signatures.append(value)
            default:
                continue  // v0 (test-mode legacy scheme) and future schemes are ignored, as Stripe's libraries do
            }
        }
        guard let timestamp, !signatures.isEmpty, signatures.count <= StripeAPI.maxSignatures else { return nil }
        return SignatureHeader(timestamp: timestamp, signatures: signatures)
    }

    /// The `v1` value for `body` signed at `timestamp` with `secret`.
    static func signature(body: Data, timestamp: Int64, secret: Secret) -> String {
        var message = Data("\(timestamp).".utf8)
        message.append(body)
        return ByteEncoding.hex(MessageAuthentication.hmacSHA256(key: secret, message: message))
    }

    /// The bytes of a `v1` value written in lower-case hex; nil for anything else.
    static func lowerCaseHex(_ text: String) -> Data? {
        guard
            text.utf8.allSatisfy({
                ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
            })
        else {
            return nil
        }
        return ByteEncoding.decodeHex(text)
    }

    /// Throws `signatureInvalid` unless the delivery carries a fresh signature by one of the secrets.
    func verify(_ delivery: WebhookDelivery, now: Date) throws {
        guard let header = delivery.headers[StripeAPI.signatureHeader] else {
            throw CardGatewayError.signatureInvalid("the Stripe-Signature header is missing")
        }
        guard let parsed = Self.parse(header) else {
            throw CardGatewayError.signatureInvalid("the Stripe-Signature header is malformed")
        }
        // Like Stripe's libraries, only age is limited: a timestamp ahead of this clock is accepted (only the
        // secret's holder can sign one, and a clock that runs behind must not drop real deliveries).
        let age = now.timeIntervalSince1970 - TimeInterval(parsed.timestamp)
        guard age <= tolerance else {
            throw CardGatewayError.signatureInvalid("the Stripe signature timestamp is older than \(Int(tolerance)) s")
        }
        var message = Data("\(parsed.timestamp).".utf8)
        message.append(delivery.body)
        // Stripe's libraries compare the lower-case hex text, so only lower-case hex can match; every candidate is
        // checked against every secret (no early exit).
        let candidates = parsed.signatures.compactMap(Self.lowerCaseHex)
        var matched = false
        for secret in secrets {
            for candidate in candidates
            where MessageAuthentication.verifyHMACSHA256(signature: candidate, key: secret, message: message) {
                matched = true
            }
        }
        guard matched else {
            throw CardGatewayError.signatureInvalid("no Stripe signature matches the configured webhook secrets")
        }
    }
}

/// Verified Stripe events into normalised ones.
enum StripeEvents {
    static func events(from body: Data) throws -> [GatewayEvent] {
        let decoder = StripeJSON.decoder()
        let header: StripeEventHeaderWire
        do { header = try decoder.decode(StripeEventHeaderWire.self, from: body) } catch {
            throw CardGatewayError.invalidRequest("the webhook body is not a Stripe event")
        }
        let occurred = header.created.map(StripeMapping.date)
        switch header.type {
        case "issuing_card.created", "issuing_card.updated":
            let event: StripeEventWire<StripeCardWire>
            do { event = try decoder.decode(StripeEventWire<StripeCardWire>.self, from: body) } catch {
                throw CardGatewayError.invalidRequest("the \(header.type) event does not carry an issuing card")
            }
            let card = event.data.object
            let old = event.data.previousAttributes?.status
            let change = CardStatusChange(
                card: CardRef(id: card.id), oldStatus: old.map(StripeMapping.cardStatus),
                newStatus: StripeMapping.cardStatus(card.status), providerOldStatus: old, providerNewStatus: card.status
            )
            return [
                GatewayEvent(
                    id: event.id, providerKind: .stripe, occurredAt: occurred, providerType: event.type,
                    event: .cardStatusChanged(change))
            ]
        case "issuing_token.created", "issuing_token.updated":
            let event: StripeEventWire<StripeTokenWire>
            do { event = try decoder.decode(StripeEventWire<StripeTokenWire>.self, from: body) } catch {
                throw CardGatewayError.invalidRequest("the \(header.type) event does not carry an issuing token")
            }
            let token = event.data.object
            let tokenEvent = WalletTokenEvent(card: CardRef(id: token.card.id), token: StripeMapping.token(token))
            let kind: GatewayEvent.Kind =
                header.type == "issuing_token.created"
                ? .walletTokenCreated(tokenEvent) : .walletTokenUpdated(tokenEvent)
            return [
                GatewayEvent(
                    id: event.id, providerKind: .stripe, occurredAt: occurred, providerType: event.type, event: kind)
            ]
        default:
            return []
        }
    }
}
