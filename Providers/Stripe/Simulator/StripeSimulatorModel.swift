import Foundation

/// An issuing cardholder as the simulator keeps it.
struct StripeSimulatorCardholder: Sendable, Equatable {
    var id: String
    var name: String
    var email: String?
    var phoneNumber: String?
    var created: Int64
}

/// Wallet eligibility for one wallet.
struct StripeSimulatorWalletEligibility: Sendable, Equatable {
    var eligible: Bool
    var ineligibleReason: String?

    static let eligible = StripeSimulatorWalletEligibility(eligible: true, ineligibleReason: nil)
    static func ineligible(_ reason: String) -> StripeSimulatorWalletEligibility {
        StripeSimulatorWalletEligibility(eligible: false, ineligibleReason: reason)
    }
}

/// An issuing card as the simulator keeps it.
struct StripeSimulatorCard: Sendable {
    var id: String
    var cardholderID: String
    var status: String
    var type: String
    var brand: String
    var last4: String
    var expMonth: Int64
    var expYear: Int64
    var currency: String
    var created: Int64
    var cancellationReason: String?
    var applePay: StripeSimulatorWalletEligibility
    var googlePay: StripeSimulatorWalletEligibility
    var primaryAccountIdentifier: String?
    var metadata: [(String, String)] = []
    /// Seeded cards whose writes fail inside Stripe (500 api_error, saved under the idempotency key).
    var failsInternally: Bool = false
    /// `personalization_design`: the id of the card's personalization design (unexpanded), or nil.
    var personalizationDesign: String? = nil
    /// Every `pin[encrypted_number]` the card was updated with, oldest first (never rendered).
    var encryptedPINs: [String] = []
}

/// An issuing token as the simulator keeps it.
struct StripeSimulatorToken: Sendable, Equatable {
    var id: String
    var cardID: String
    var status: String
    var walletProvider: String?
    var network: String
    var last4: String
    var deviceFingerprint: String?
    var created: Int64
    var networkUpdatedAt: Int64
    var deviceType: String
}

/// An ephemeral key.
struct StripeSimulatorEphemeralKey: Sendable, Equatable {
    var id: String
    var secret: String
    var cardID: String
    var created: Int64
    var expires: Int64
    var livemode: Bool
    var apiVersion: String
    var revoked: Bool
    /// The Stripe.js nonce the key was created with (Issuing Elements), nil for a key without one (push provisioning).
    var nonce: String? = nil
}
