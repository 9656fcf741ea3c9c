import Foundation

/// An issuing cardholder as the simulator keeps it.
struct SimCardholder: Sendable, Equatable {
    var id: String
    var name: String
    var email: String?
    var phoneNumber: String?
    var created: Int64
}

/// Wallet eligibility for one wallet.
struct SimWalletEligibility: Sendable, Equatable {
    var eligible: Bool
    var ineligibleReason: String?

    static let eligible = SimWalletEligibility(eligible: true, ineligibleReason: nil)
    static func ineligible(_ reason: String) -> SimWalletEligibility {
        SimWalletEligibility(eligible: false, ineligibleReason: reason)
    }
}

/// An issuing card as the simulator keeps it.
struct SimCard: Sendable {
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
    var applePay: SimWalletEligibility
    var googlePay: SimWalletEligibility
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
struct SimToken: Sendable, Equatable {
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
struct SimEphemeralKey: Sendable, Equatable {
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

/// The documented seed (see ``StripeSimulator/Seed``).
enum SimSeed {
    static let base: Int64 = 1_700_000_000

    static func cardholders() -> [(String, SimCardholder)] {
        [
            SimCardholder(
                id: StripeSimulator.Seed.cardholderID, name: "Jenny Rosen", email: "jenny.rosen@example.com",
                phoneNumber: "+18008675309", created: base),
            SimCardholder(
                id: StripeSimulator.Seed.cardholderWithoutContactID, name: "Sam Nocontact", email: nil,
                phoneNumber: nil, created: base + 10),
        ].map { ($0.id, $0) }
    }

    static func cards() -> [(String, SimCard)] {
        typealias S = StripeSimulator.Seed
        let holder = S.cardholderID
        let cards = [
            SimCard(
                id: S.activeCardID, cardholderID: holder, status: "active", type: "virtual", brand: "Visa",
                last4: "4242",
                expMonth: 8, expYear: 2030, currency: "usd", created: base + 900, applePay: .eligible,
                googlePay: .eligible,
                primaryAccountIdentifier: S.primaryAccountIdentifier
            ),
            SimCard(
                id: S.activeCardWithoutPrimaryAccountIdentifierID, cardholderID: holder, status: "active",
                type: "physical",
                brand: "MasterCard", last4: "4444", expMonth: 11, expYear: 2031, currency: "usd", created: base + 800,
                applePay: .eligible, googlePay: .eligible, primaryAccountIdentifier: nil
            ),
            SimCard(
                id: S.inactiveCardID, cardholderID: holder, status: "inactive", type: "physical", brand: "Visa",
                last4: "0005",
                expMonth: 1, expYear: 2029, currency: "usd", created: base + 700, applePay: .eligible,
                googlePay: .eligible,
                primaryAccountIdentifier: nil
            ),
            SimCard(
                id: S.canceledCardID, cardholderID: holder, status: "canceled", type: "virtual", brand: "Visa",
                last4: "0077",
                expMonth: 3, expYear: 2028, currency: "usd", created: base + 600, cancellationReason: "lost",
                applePay: .eligible, googlePay: .eligible, primaryAccountIdentifier: "V-3020110000000000000077"
            ),
            SimCard(
                id: S.missingAgreementCardID, cardholderID: holder, status: "active", type: "virtual", brand: "Visa",
                last4: "1111",
                expMonth: 5, expYear: 2030, currency: "usd", created: base + 500,
                applePay: .ineligible("missing_agreement"), googlePay: .ineligible("missing_agreement"),
                primaryAccountIdentifier: nil
            ),
            SimCard(
                id: S.missingCardholderContactCardID, cardholderID: S.cardholderWithoutContactID, status: "active",
                type: "virtual",
                brand: "Visa", last4: "2222", expMonth: 6, expYear: 2030, currency: "usd", created: base + 400,
                applePay: .ineligible("missing_cardholder_contact"),
                googlePay: .ineligible("missing_cardholder_contact"),
                primaryAccountIdentifier: nil
            ),
            SimCard(
                id: S.unsupportedRegionCardID, cardholderID: holder, status: "active", type: "virtual",
                brand: "MasterCard",
                last4: "3333", expMonth: 7, expYear: 2030, currency: "eur", created: base + 300,
                applePay: .ineligible("unsupported_region"), googlePay: .eligible, primaryAccountIdentifier: nil
            ),
            SimCard(
                id: S.internalErrorCardID, cardholderID: holder, status: "active", type: "virtual", brand: "Visa",
                last4: "9995",
                expMonth: 9, expYear: 2030, currency: "usd", created: base + 200, applePay: .eligible,
                googlePay: .eligible,
                primaryAccountIdentifier: nil, failsInternally: true
            ),
        ]
        return cards.map { ($0.id, $0) }
    }

    static func tokens() -> [(String, SimToken)] {
        typealias S = StripeSimulator.Seed
        let tokens = [
            SimToken(
                id: S.activeApplePayTokenID, cardID: S.activeCardID, status: "active", walletProvider: "apple_pay",
                network: "visa", last4: "8801", deviceFingerprint: "fp_sim_iphone", created: base + 1000,
                networkUpdatedAt: base + 1001, deviceType: "phone"),
            SimToken(
                id: S.suspendedGooglePayTokenID, cardID: S.activeCardID, status: "suspended",
                walletProvider: "google_pay", network: "visa", last4: "8802", deviceFingerprint: "fp_sim_pixel",
                created: base + 1100, networkUpdatedAt: base + 1101, deviceType: "phone"),
            SimToken(
                id: S.deletedApplePayTokenID, cardID: S.activeCardID, status: "deleted", walletProvider: "apple_pay",
                network: "visa", last4: "8803", deviceFingerprint: "fp_sim_watch", created: base + 1200,
                networkUpdatedAt: base + 1201, deviceType: "watch"),
            SimToken(
                id: S.requestedGooglePayTokenID, cardID: S.activeCardID, status: "requested",
                walletProvider: "google_pay", network: "visa", last4: "8804", deviceFingerprint: nil,
                created: base + 1300, networkUpdatedAt: base + 1301, deviceType: "phone"),
            SimToken(
                id: S.activeSamsungPayTokenID, cardID: S.activeCardID, status: "active", walletProvider: "samsung_pay",
                network: "visa", last4: "8805", deviceFingerprint: "fp_sim_galaxy", created: base + 1400,
                networkUpdatedAt: base + 1401, deviceType: "phone"),
            SimToken(
                id: S.unsupportedRegionGooglePayTokenID, cardID: S.unsupportedRegionCardID, status: "active",
                walletProvider: "google_pay", network: "mastercard", last4: "8806", deviceFingerprint: "fp_sim_pixel",
                created: base + 1500, networkUpdatedAt: base + 1501, deviceType: "phone"),
        ]
        return tokens.map { ($0.id, $0) }
    }
}
