import CardGateway

/// The card status changes a customer may request through the update call.
///
/// **Inferred, not confirmed.** Paysafe's "Update prepaid card" table lost its check marks in the copy we
/// have; only "DIGITAL → ACTIVE (By PIN & CHIP)" survived. The rows below are the project's reading of it,
/// consistent with the status descriptions (LOCKED is reversible by UNLOCK, CANCELLED is irreversible, DIGITAL
/// is a not-yet-activated physical card). Paysafe stays the authority: a change it refuses is mapped from its
/// error. This is the only place the table lives; correct it here.
///
/// | from \ to | ACTIVE | CANCELLED | LOCKED |
/// |-----------|--------|-----------|--------|
/// | ACTIVE    | –      | yes       | yes    |
/// | LOCKED    | yes    | yes       | –      |
/// | DIGITAL   | yes (by PIN & CHIP) | yes | yes |
///
/// Activation (ISSUED or DIGITAL → ACTIVE with last four and CVV) is a separate call, not an update.
public enum PaysafeCardTransitions: Sendable {
    /// Paysafe status words: from → the statuses it may be changed to.
    public static let allowed: [String: Set<String>] = [
        "ACTIVE": ["LOCKED", "CANCELLED"],
        "LOCKED": ["ACTIVE", "CANCELLED"],
        "DIGITAL": ["ACTIVE", "CANCELLED", "LOCKED"],
    ]

    /// Whether a card in Paysafe status `from` may be updated to Paysafe status `to`.
    public static func isAllowed(from: String, to: String) -> Bool {
        allowed[from.uppercased()]?.contains(to.uppercased()) ?? false
    }

    /// The statuses activation starts from. [C]
    public static let activatableStatuses: Set<String> = ["ISSUED", "DIGITAL"]

    /// The Paysafe status word an update to `status` sends, or nil when no update can reach it.
    public static func targetStatus(for status: CardStatus) -> String? {
        switch status {
        case .active: return "ACTIVE"
        case .locked: return "LOCKED"
        case .cancelled: return "CANCELLED"
        default: return nil
        }
    }
}
