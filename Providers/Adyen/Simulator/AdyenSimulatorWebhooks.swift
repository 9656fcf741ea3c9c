import CardGatewaySimulation
import Crypto
import Foundation

extension AdyenSimulator {
    /// Sent when provisioning of a network token is initiated.
    public static let networkTokenCreated = "balancePlatform.networkToken.created"
    /// Sent when a network token's status changes during provisioning.
    public static let networkTokenUpdated = "balancePlatform.networkToken.updated"

    /// Sent when a payment instrument is created (`POST /paymentInstruments`).
    public static let paymentInstrumentCreated = "balancePlatform.paymentInstrument.created"
    /// Sent when a payment instrument is updated (`PATCH /paymentInstruments/{id}`: lock, unlock, cancel).
    public static let paymentInstrumentUpdated = "balancePlatform.paymentInstrument.updated"

    /// A webhook the simulator sent: the type, the headers (`Content-Type`, `HmacSignature`) and the exact body.
    public struct SentWebhook: Sendable {
        public var type: String
        public var headers: [(String, String)]
        public var body: Data
    }

    /// The webhooks the simulator sent since it started (or was reset), oldest first: a
    /// `balancePlatform.paymentInstrument.created` for every card `POST /paymentInstruments` created and a
    /// `balancePlatform.paymentInstrument.updated` for every successful `PATCH /paymentInstruments/{id}` (lock,
    /// unlock, cancel), each signed as Adyen signs them. An idempotent replay sends none. The simulator keeps them
    /// for the test or demo to deliver (it calls no endpoint itself).
    public func sentWebhooks() -> [SentWebhook] {
        state.outbox.withLock { $0 }
    }

    /// Records `webhook` as sent.
    func send(_ webhook: SentWebhook) {
        state.outbox.withLock { $0.append(webhook) }
    }

    /// A `PaymentNotificationRequest` for the stored payment instrument `id`, signed (nil when there is none): the
    /// shape of the "Card created" and "Card updated" examples in Adyen's
    /// `BalancePlatformConfigurationNotification-v2.json`, `{data: {balancePlatform, paymentInstrument}, environment,
    /// timestamp, type}`, with the instrument as `GET /paymentInstruments/{id}` answers it.
    public func signedPaymentInstrumentWebhook(
        type: String = paymentInstrumentUpdated, instrument id: String
    ) -> (headers: [(String, String)], body: Data)? {
        guard let stored = state.instruments.get(id) else { return nil }
        let webhook = paymentInstrumentWebhook(type: type, instrument: stored)
        return (webhook.headers, webhook.body)
    }

    func paymentInstrumentWebhook(type: String, instrument: AdyenSimulatorInstrument) -> SentWebhook {
        let envelope: [String: Any] = [
            "data": ["balancePlatform": Seed.balancePlatform, "paymentInstrument": instrument.json],
            "environment": "test",
            "timestamp": SimulatorDateTime.format(simulationClock.now(), timeZone: AdyenSimulator.timeZone),
            "type": type,
        ]
        let body =
            (try? JSONSerialization.data(withJSONObject: envelope, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        return SentWebhook(type: type, headers: signedWebhook(body: body).headers, body: body)
    }

    /// A Balance Platform webhook as Adyen would deliver it for a network token: a
    /// `NetworkTokenNotificationRequest` body built from the stored token (or defaults when `token` is unknown),
    /// and the `HmacSignature` header over the exact body bytes with the simulator's HMAC key.
    ///
    /// - Parameters:
    ///   - type: ``networkTokenCreated``, ``networkTokenUpdated`` or any other notification type.
    ///   - token: the network token id (`data.id`).
    ///   - decision: `approved`, `declined` or `requiresAuthentication`.
    public func signedWebhook(
        type: String, token: String, decision: String = "approved"
    ) -> (headers: [(String, String)], body: Data) {
        let stored = state.tokens.get(token)
        var data: [String: Any] = [
            "id": token,
            "paymentInstrumentId": stored?.paymentInstrumentID ?? Seed.activeMastercardID,
            "balancePlatform": Seed.balancePlatform,
            "status": stored?.status ?? "active",
            "decision": decision,
            "type": stored?.type == "cof" ? "cof" : "wallet",
            "tokenLastFour": stored?.tokenLastFour ?? "0000",
            "authenticationApplied": false,
        ]
        let walletType = stored?.walletType ?? "applePay"
        if stored?.type != "cof" {
            data["wallet"] = [
                "type": walletType, "provisioningMethod": "push", "deviceScore": "4", "accountScore": "5",
            ]
            data["tokenRequestor"] = [
                "id": walletType == "googlePay" ? "50110030273" : "40010030273",
                "name": walletType == "googlePay" ? "Google Pay" : "Apple Pay",
            ]
        }
        let envelope: [String: Any] = [
            "type": type, "environment": "test",
            "timestamp": SimulatorDateTime.format(simulationClock.now(), timeZone: AdyenSimulator.timeZone),
            "data": data,
        ]
        let body =
            (try? JSONSerialization.data(withJSONObject: envelope, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        return signedWebhook(body: body)
    }

    /// Signs any body as Adyen signs Balance Platform webhooks: `HmacSignature` = ``hmacSignature(for:)``, the
    /// scheme of Adyen's "Verify HMAC signatures" page and of its Python library's `generate_payload_sig`.
    public func signedWebhook(body: Data) -> (headers: [(String, String)], body: Data) {
        ([("Content-Type", "application/json"), ("HmacSignature", hmacSignature(for: body))], body)
    }

    /// Base64(HMAC-SHA256(key: hex-decoded HMAC key, message: body)).
    public func hmacSignature(for body: Data) -> String {
        let key = SymmetricKey(data: ByteEncoding.decodeHex(credentials.hmacKeyHex) ?? Data())
        return Data(HMAC<SHA256>.authenticationCode(for: body, using: key)).base64EncodedString()
    }
}
