import CardGateway
import Foundation

/// Trust Payments' words to the core's model.
extension TrustPaymentsProvider {
    static func isAmex(_ credential: StoredCredential) -> Bool {
        credential.scheme == .amex || credential.brand?.uppercased() == "AMEX"
    }

    /// `paymenttypedescription` → scheme. VISA, MASTERCARD and AMEX are confirmed; the debit and regional names
    /// (DELTA, ELECTRON, PURCHASING, VPAY, MAESTRO, MASTERCARDDEBIT, DISCOVER) are [U].
    public static func scheme(forPaymentType paymentType: String?) -> CardScheme {
        switch paymentType?.uppercased() {
        case "VISA", "DELTA", "ELECTRON", "PURCHASING", "VPAY", "VISADEBIT": return .visa
        case "MASTERCARD", "MASTERCARDDEBIT", "MAESTRO": return .mastercard
        case "AMEX": return .amex
        case "DISCOVER": return .discover
        default: return .unknown
        }
    }

    /// An AUTH element's `settlestatus` → the charge's status; nil for a status Trust Payments does not document
    /// for an accepted charge.
    static func chargeStatus(settleStatus: String) -> ChargeStatus? {
        if TrustPaymentsAPI.SettleStatus.authorised.contains(settleStatus) { return .authorised }
        if settleStatus == TrustPaymentsAPI.SettleStatus.settled { return .settled }
        if settleStatus == TrustPaymentsAPI.SettleStatus.suspended { return .suspended }
        return nil
    }
}
