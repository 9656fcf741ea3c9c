import CardGateway
import Foundation

/// Stripe's words into the gateway's model, and back. Every mapping is a small table the tests cover row by row.
enum StripeMapping {
    // MARK: Cards

    /// `issuing.card.status`: active, inactive (the status a new card has), canceled (final).
    static func cardStatus(_ status: String) -> CardStatus {
        switch status {
        case "active": return .active
        case "inactive": return .inactive
        case "canceled": return .cancelled
        default: return .unknown
        }
    }

    /// The status value `POST /v1/issuing/cards/{id}` takes for a gateway status, nil when Stripe has none.
    static func stripeCardStatus(_ status: CardStatus) -> String? {
        switch status {
        case .active: return "active"
        case .inactive: return "inactive"
        case .cancelled: return "canceled"
        default: return nil
        }
    }

    static func cardType(_ type: String?) -> CardType {
        switch type {
        case "physical": return .physical
        case "virtual": return .virtual
        default: return .unknown
        }
    }

    static func stripeCardType(_ type: CardType) -> String? {
        switch type {
        case .physical: return "physical"
        case .virtual: return "virtual"
        default: return nil
        }
    }

    /// `issuing.card.brand` ("Visa", "MasterCard") and `issuing.token.network` ("visa", "mastercard").
    static func scheme(_ brand: String?) -> CardScheme {
        switch brand?.lowercased() {
        case "visa": return .visa
        case "mastercard": return .mastercard
        default: return .unknown
        }
    }

    static func card(_ wire: StripeCardWire) -> Card {
        let expiry: CardExpiry? = {
            guard let month = wire.expMonth, let year = wire.expYear, (1...12).contains(month), year > 0 else {
                return nil
            }
            return CardExpiry(month: month, year: year)
        }()
        var cardholderName: String?
        if case .object(let cardholder) = wire.cardholder { cardholderName = cardholder.name }
        return Card(
            ref: CardRef(id: wire.id),
            status: cardStatus(wire.status),
            providerStatus: wire.status,
            statusReason: wire.cancellationReason,
            type: cardType(wire.type),
            scheme: scheme(wire.brand),
            lastFour: wire.last4,
            expiry: expiry,
            currency: wire.currency?.uppercased(),
            cardholderName: cardholderName,
            created: wire.created.map(date)
        )
    }

    /// The `cancellation_reason` Stripe takes for a normalised reason: lost and stolen; nil for the others (Stripe's
    /// reason is optional, so they are not sent).
    static func cancellationReason(_ reason: CardStatusReason?) -> String? {
        guard let reason else { return nil }
        switch reason {
        case .lost: return "lost"
        case .stolen: return "stolen"
        default: return nil
        }
    }

    // MARK: Tokens

    /// Why Stripe would refuse moving a token in `status` to `target`, nil when it allows it: requested tokens can
    /// only be deleted, deleted ones nothing (final).
    static func tokenTransitionRefusal(from status: String, to target: WalletTokenStatus) -> String? {
        switch (status, target) {
        case ("active", _), ("suspended", _): return nil
        case ("requested", .deleted): return nil
        case ("requested", _): return "a requested Stripe token is not activated yet: it can only be deleted"
        case ("deleted", _): return "the token is deleted at Stripe, which is final"
        default: return "the token is \(SafeText.scrub(status, maxLength: 32)) at Stripe"
        }
    }

    /// `issuing.token.status`: requested (not yet activated), active, suspended, deleted (final).
    static func tokenStatus(_ status: String) -> WalletTokenStatus {
        switch status {
        case "requested": return .requested
        case "active": return .active
        case "suspended": return .suspended
        case "deleted": return .deleted
        default: return .unknown
        }
    }

    static func stripeTokenStatus(_ status: WalletTokenStatus) -> String? {
        switch status {
        case .active: return "active"
        case .suspended: return "suspended"
        case .deleted: return "deleted"
        default: return nil
        }
    }

    /// `issuing.token.wallet_provider`: apple_pay, google_pay, samsung_pay or null.
    static func wallet(_ provider: String?) -> Wallet? {
        switch provider {
        case "apple_pay": return .applePay
        case "google_pay": return .googlePay
        case "samsung_pay": return .samsungPay
        default: return nil
        }
    }

    static func token(_ wire: StripeTokenWire) -> WalletToken {
        WalletToken(
            id: wire.id,
            wallet: wallet(wire.walletProvider),
            status: tokenStatus(wire.status),
            providerStatus: wire.status,
            lastFour: wire.last4,
            network: wire.network.map { scheme($0) },
            created: wire.created.map(date)
        )
    }

    // MARK: Wallet eligibility

    /// Stripe's `ineligible_reason`, kept as the reason's code, with a sentence of our own.
    static func ineligibility(_ reason: String?, wallet: Wallet) -> IneligibilityReason {
        let name = wallet == .applePay ? "Apple Pay" : wallet == .googlePay ? "Google Pay" : wallet.rawValue
        switch reason {
        case "missing_agreement":
            return IneligibilityReason(
                code: "missing_agreement", message: "the platform has not accepted the \(name) terms at Stripe")
        case "missing_cardholder_contact":
            return IneligibilityReason(
                code: "missing_cardholder_contact",
                message: "the cardholder has neither a phone number nor an email address for \(name) verification")
        case "unsupported_region":
            return IneligibilityReason(
                code: "unsupported_region", message: "\(name) is not supported in the card's region")
        case .some(let other):
            return IneligibilityReason(
                code: SafeText.scrub(other, maxLength: 64), message: "Stripe marks the card ineligible for \(name)")
        case .none:
            return IneligibilityReason(
                code: "ineligible", message: "Stripe marks the card ineligible for \(name) without a reason")
        }
    }

    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}
