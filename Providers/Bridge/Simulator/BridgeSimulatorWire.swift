import CardGatewaySimulation
import Foundation

/// The simulator's JSON, with the field names of Bridge's OpenAPI schemas; date-times with milliseconds in UTC
/// (`2024-01-31T23:59:59.123Z`).
enum BridgeSimulatorWire {
    /// `CardAccount`.
    static func cardAccount(_ account: BridgeSimulatorCardAccount) -> [String: Any] {
        var name: [String: Any] = ["first_name": account.firstName, "last_name": account.lastName]
        if let middle = account.middleName { name["middle_name"] = middle }
        var object: [String: Any] = [
            "id": account.id,
            "customer_id": account.customerID,
            "client_reference_id": account.clientReferenceID,
            "status": account.status,
            "cardholder_name": name,
            "card_details": [
                "last_4": account.last4, "expiry": account.expiry, "bin": account.bin, "pin_status": "ok",
            ],
            "balances": [
                "available": ["amount": account.availableBalance, "currency": account.currency],
                "hold": ["amount": "0.00", "currency": account.currency],
            ],
            "freezes": account.freezes.map { freeze($0, cardAccountID: account.id) },
        ]
        if let reason = account.statusReason { object["status_reason"] = reason }
        return object
    }

    /// `CardFreeze` (without the processing `status`, which only the freeze and unfreeze answers carry).
    static func freeze(_ freeze: BridgeSimulatorCardAccount.Freeze, cardAccountID: String) -> [String: Any] {
        var object: [String: Any] = [
            "card_account_id": cardAccountID,
            "initiator": freeze.initiator,
            "reason": freeze.reason,
            "starting_at": SimulatorDateTime.format(freeze.startingAt, fraction: .milliseconds),
            "created_at": SimulatorDateTime.format(freeze.createdAt, fraction: .milliseconds),
        ]
        if let detail = freeze.reasonDetail { object["reason_detail"] = detail }
        if let ending = freeze.endingAt {
            object["ending_at"] = SimulatorDateTime.format(ending, fraction: .milliseconds)
        }
        return object
    }
}
