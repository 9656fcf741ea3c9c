import CardGatewaySimulation
import Crypto
import Foundation

extension AdyenSimulator {
    /// Sent when provisioning of a network token is initiated.
    public static let networkTokenCreated = "balancePlatform.networkToken.created"
    /// Sent when a network token's status changes during provisioning.
    public static let networkTokenUpdated = "balancePlatform.networkToken.updated"

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
            "type": type, "environment": "test", "timestamp": Self.timestamp(simulationClock.now()), "data": data,
        ]
        let body =
            (try? JSONSerialization.data(withJSONObject: envelope, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        return signedWebhook(body: body)
    }

    /// Signs any body as Adyen signs Balance Platform webhooks.
    public func signedWebhook(body: Data) -> (headers: [(String, String)], body: Data) {
        ([("Content-Type", "application/json"), ("HmacSignature", hmacSignature(for: body))], body)
    }

    /// Base64(HMAC-SHA256(key: hex-decoded HMAC key, message: body)).
    public func hmacSignature(for body: Data) -> String {
        let key = SymmetricKey(data: ByteEncoding.decodeHex(credentials.hmacKeyHex) ?? Data())
        return Data(HMAC<SHA256>.authenticationCode(for: body, using: key)).base64EncodedString()
    }
}
