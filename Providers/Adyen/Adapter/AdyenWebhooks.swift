@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

extension AdyenProvider {
    /// Verifies a Balance Platform configuration webhook and turns network token notifications into events.
    ///
    /// The `HmacSignature` header (any case) must be Base64(HMAC-SHA256(key: hex-decoded `hmacKey`, message:
    /// the raw body bytes)), compared in constant time before the body is parsed. Adyen signs no timestamp, so
    /// `now` is not used and a replayed delivery verifies again: de-duplicate on the event id, which is
    /// `data.id`, `type` and `timestamp` joined by `|`.
    ///
    /// `balancePlatform.networkToken.created` → `.walletTokenCreated`, `.updated` → `.walletTokenUpdated`, both
    /// with Adyen's `decision`. Other notification types verify but produce no events.
    public func verify(_ delivery: WebhookDelivery, now: Date) throws -> [GatewayEvent] {
        guard let hmacKey else {
            throw CardGatewayError(
                .invalidConfiguration,
                "providers.\(http.instance).credentials.hmacKey is needed to verify Adyen webhooks",
                provider: http.instance, providerKind: .adyen
            )
        }
        let values = delivery.headers[values: AdyenAPI.hmacSignatureHeader]
        guard values.count == 1, let header = values.first else {
            throw signatureInvalid(
                values.isEmpty ? "the HmacSignature header is missing" : "more than one HmacSignature header")
        }
        guard let signature = ByteEncoding.decodeBase64(header.trimmingCharacters(in: .whitespaces)) else {
            throw signatureInvalid("the HmacSignature header is not Base64")
        }
        guard
            MessageAuthentication.verifyHMACSHA256(
                signature: signature, key: hmacKey.revealedBytes, message: delivery.body)
        else {
            throw signatureInvalid("the HmacSignature does not match the body")
        }

        let envelope: AdyenWireNotificationType
        do { envelope = try JSONDecoder().decode(AdyenWireNotificationType.self, from: delivery.body) } catch {
            throw malformed("the notification is not a JSON object")
        }
        guard let type = envelope.type, type == AdyenAPI.networkTokenCreated || type == AdyenAPI.networkTokenUpdated
        else {
            return []
        }
        let notification: AdyenWireNotification
        do { notification = try JSONDecoder().decode(AdyenWireNotification.self, from: delivery.body) } catch {
            throw malformed("the \(type) notification could not be read (\(DecodingProblem.describe(error)))")
        }
        guard let data = notification.data else { throw malformed("the \(type) notification has no data") }
        guard let tokenID = data.id, !tokenID.isEmpty else {
            throw malformed("the \(type) notification has no data.id")
        }
        guard let instrument = data.paymentInstrumentId, !instrument.isEmpty else {
            throw malformed("the \(type) notification has no data.paymentInstrumentId")
        }
        let token = WalletToken(
            id: tokenID,
            wallet: AdyenMapping.wallet(
                tokenType: data.type, walletType: data.wallet?.type, tokenRequestorName: data.tokenRequestor?.name),
            status: AdyenMapping.tokenStatus(data.status),
            providerStatus: data.status ?? "",
            lastFour: data.tokenLastFour
        )
        let tokenEvent = WalletTokenEvent(card: CardRef(id: instrument), token: token, decision: data.decision)
        let eventID = [tokenID, type, notification.timestamp ?? ""].joined(separator: "|")
        return [
            GatewayEvent(
                id: eventID, providerKind: .adyen, occurredAt: AdyenMapping.date(notification.timestamp),
                providerType: type,
                event: type == AdyenAPI.networkTokenCreated
                    ? .walletTokenCreated(tokenEvent) : .walletTokenUpdated(tokenEvent)
            )
        ]
    }

    private func signatureInvalid(_ message: String) -> CardGatewayError {
        CardGatewayError(
            .signatureInvalid, "Adyen webhook refused: \(message)", provider: http.instance, providerKind: .adyen)
    }

    private func malformed(_ message: String) -> CardGatewayError {
        CardGatewayError(.invalidResponse, "Adyen webhook: \(message)", provider: http.instance, providerKind: .adyen)
    }
}
