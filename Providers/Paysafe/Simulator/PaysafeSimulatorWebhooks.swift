import CardGatewaySimulation
import Foundation

/// Signed webhook deliveries, as Paysafe sends them (docs.paysafe.com/api/embedded-wallets/webhooks): a compact JSON
/// body with the published fields and `Signature: Base64(HMAC-SHA256(key, body))`, the key being the Base64-decoded
/// webhook secret (developer.paysafe.com/en/api-docs/embedded-wallets/request-signing/).
extension PaysafeSimulator {
    /// A card status event (`POST /prepaid/card/status/events`): `{id, cardId, customerId, oldStatus, newStatus}`.
    public func signedWebhook(
        cardID: String, customerID: String? = Seed.euCustomer, oldStatus: String? = "ACTIVE",
        newStatus: String = "LOCKED", eventID: String? = nil
    ) -> (headers: [(String, String)], body: Data) {
        var object: [String: Any] = ["id": eventID ?? engine.ids.uuid(), "cardId": cardID, "newStatus": newStatus]
        if let customerID { object["customerId"] = customerID }
        if let oldStatus { object["oldStatus"] = oldStatus }
        return engine.signed(object)
    }

    /// A card token event (`POST /prepaid/card/token/events`), `CardTokenUpdateEvent`: `{id, cardId, customerId,
    /// result, tokenAction, eventId, eventTimestamp}`. `tokenAction` is one of `TOKEN_FROZEN`, `TOKEN_UNFROZEN`,
    /// `TOKEN_CANCELLED`, `TOKEN_REISSUED`; `eventTimestamp` is the simulation clock's now unless given.
    public func signedTokenWebhook(
        cardID: String, customerID: String = Seed.euCustomer, tokenAction: String = "TOKEN_FROZEN",
        result: String? = "SUCCESS", id: String? = nil, eventID: String? = nil, eventTimestamp: Date? = nil
    ) -> (headers: [(String, String)], body: Data) {
        var object: [String: Any] = [
            "id": id ?? engine.ids.uuid(), "cardId": cardID, "customerId": customerID, "tokenAction": tokenAction,
            "eventTimestamp": SimulatorDateTime.format(eventTimestamp ?? simulationClock.now()),
        ]
        if let result { object["result"] = result }
        if let eventID { object["eventId"] = eventID }
        return engine.signed(object)
    }
}

extension PaysafeSimulatorEngine {
    /// The object as compact JSON and its headers, `Signature` computed Paysafe's way over those exact bytes.
    func signed(_ object: [String: Any]) -> (headers: [(String, String)], body: Data) {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return (
            [
                ("Content-Type", "application/json"),
                ("Signature", Wire.signature(secret: credentials.webhookSecret, message: body) ?? ""),
            ], body
        )
    }
}
