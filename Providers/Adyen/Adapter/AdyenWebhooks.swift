@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

extension AdyenProvider {
    /// Verifies a Balance Platform configuration webhook and turns card and network token notifications into events.
    ///
    /// The `HmacSignature` header (any case) must be Base64(HMAC-SHA256(key: hex-decoded `hmacKey`, message:
    /// the raw body bytes)), compared in constant time before the body is parsed. Adyen signs no timestamp, so
    /// `now` is not used and a replayed delivery verifies again: de-duplicate on the event id, which is
    /// `data.id` (or `data.paymentInstrument.id`), `type` and `timestamp` joined by `|`.
    ///
    /// - `balancePlatform.paymentInstrument.updated` and `.created` (`PaymentNotificationRequest`) of a card →
    ///   `.cardStatusChanged` with the instrument's status now. Adyen's body holds the instrument as it is after the
    ///   change and no earlier status, so `oldStatus` is nil; a created card is a change from no status to its
    ///   first one. A business account (`type` `bankAccount`) or an instrument without a `status` gives no event.
    /// - `balancePlatform.networkToken.created` → `.walletTokenCreated`, `.updated` → `.walletTokenUpdated`, both
    ///   with Adyen's `decision`.
    ///
    /// Other notification types verify but produce no events.
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
        switch envelope.type {
        case AdyenAPI.networkTokenCreated?, AdyenAPI.networkTokenUpdated?:
            return try networkTokenEvents(delivery.body)
        case AdyenAPI.paymentInstrumentCreated?, AdyenAPI.paymentInstrumentUpdated?:
            return try paymentInstrumentEvents(delivery.body)
        default:
            return []
        }
    }

    /// `NetworkTokenNotificationRequest` → a wallet token event.
    private func networkTokenEvents(_ body: Data) throws -> [GatewayEvent] {
        let notification: AdyenWireNotification
        do { notification = try JSONDecoder().decode(AdyenWireNotification.self, from: body) } catch {
            throw malformed("the network token notification could not be read (\(DecodingProblem.describe(error)))")
        }
        let type = notification.type ?? ""
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

    /// `PaymentNotificationRequest` of a card → a card status change (the status the instrument has now).
    private func paymentInstrumentEvents(_ body: Data) throws -> [GatewayEvent] {
        let notification: AdyenWirePaymentNotification
        do { notification = try JSONDecoder().decode(AdyenWirePaymentNotification.self, from: body) } catch {
            throw malformed(
                "the payment instrument notification could not be read (\(DecodingProblem.describe(error)))")
        }
        let type = notification.type ?? ""
        guard let instrument = notification.data?.paymentInstrument else {
            throw malformed("the \(type) notification has no data.paymentInstrument")
        }
        guard !instrument.id.isEmpty else { throw malformed("the \(type) notification has no paymentInstrument.id") }
        // A business account is no card; an instrument without a status says nothing about one.
        guard instrument.type == "card" || (instrument.type == nil && instrument.card != nil),
            let status = instrument.status, !status.isEmpty
        else { return [] }
        let customer = instrument.balanceAccountId.flatMap { $0.isEmpty ? nil : $0 }
        let change = CardStatusChange(
            card: CardRef(id: instrument.id, customer: customer), oldStatus: nil,
            newStatus: AdyenMapping.cardStatus(status), providerOldStatus: nil, providerNewStatus: status
        )
        let eventID = [instrument.id, type, notification.timestamp ?? ""].joined(separator: "|")
        return [
            GatewayEvent(
                id: eventID, providerKind: .adyen, occurredAt: AdyenMapping.date(notification.timestamp),
                providerType: type, event: .cardStatusChanged(change)
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
