import Foundation

extension StripeSimulator {
    /// The documented seed data.
    public enum Seed: Sendable {
        /// Jenny Rosen, with email and phone number.
        public static let cardholderID = "ich_1SimJennyRosen000000000"
        /// A cardholder with neither email nor phone number.
        public static let cardholderWithoutContactID = "ich_1SimNoContact0000000000"

        /// Active virtual Visa …4242, exp 08/2030, Apple Pay and Google Pay eligible, with a primary account
        /// identifier and tokens in every status.
        public static let activeCardID = "ic_1SimActiveEligible000000"
        public static let primaryAccountIdentifier = "V-3020110000000000004242"
        /// Active physical MasterCard …4444, exp 11/2031, both wallets eligible, `primary_account_identifier` null.
        public static let activeCardWithoutPrimaryAccountIdentifierID = "ic_1SimActiveNoPAI000000000"
        /// Inactive physical Visa …0005.
        public static let inactiveCardID = "ic_1SimInactive00000000000"
        /// Canceled virtual Visa …0077, `cancellation_reason` lost.
        public static let canceledCardID = "ic_1SimCanceledLost0000000"
        /// Active Visa …1111, both wallets ineligible: missing_agreement.
        public static let missingAgreementCardID = "ic_1SimMissingAgreement000"
        /// Active Visa …2222 of the cardholder without contact, both wallets ineligible: missing_cardholder_contact.
        public static let missingCardholderContactCardID = "ic_1SimMissingContact00000"
        /// Active MasterCard …3333 (eur), Apple Pay ineligible: unsupported_region; Google Pay eligible.
        public static let unsupportedRegionCardID = "ic_1SimUnsupportedRegion00"
        /// Active Visa …9995 whose writes (ephemeral keys, updates) fail inside Stripe with 500 api_error; the
        /// failure is saved under the idempotency key and replayed.
        public static let internalErrorCardID = "ic_1SimInternalError000000"

        /// Tokens of ``activeCardID``.
        public static let activeApplePayTokenID = "intok_1SimApplePayActive000"
        public static let suspendedGooglePayTokenID = "intok_1SimGooglePaySuspend0"
        public static let deletedApplePayTokenID = "intok_1SimApplePayDeleted00"
        public static let requestedGooglePayTokenID = "intok_1SimGooglePayRequest0"
        public static let activeSamsungPayTokenID = "intok_1SimSamsungPayActive0"
        /// Active Google Pay token of ``unsupportedRegionCardID``.
        public static let unsupportedRegionGooglePayTokenID = "intok_1SimRegionGoogleActiv"

        /// The only connected account accepted in `Stripe-Account`.
        public static let connectedAccountID = "acct_1SimConnected00000000"
        /// The version answered when a request sends no `Stripe-Version`.
        public static let accountAPIVersion = "2024-06-20"
        /// Ephemeral keys live this long.
        public static let ephemeralKeyLifetime: TimeInterval = 3600
    }
}

/// The documented seed (see ``StripeSimulator/Seed``).
enum StripeSimulatorSeedData {
    static let base: Int64 = 1_700_000_000

    static func cardholders() -> [(String, StripeSimulatorCardholder)] {
        [
            StripeSimulatorCardholder(
                id: StripeSimulator.Seed.cardholderID, name: "Jenny Rosen", email: "jenny.rosen@example.com",
                phoneNumber: "+18008675309", created: base),
            StripeSimulatorCardholder(
                id: StripeSimulator.Seed.cardholderWithoutContactID, name: "Sam Nocontact", email: nil,
                phoneNumber: nil, created: base + 10),
        ].map { ($0.id, $0) }
    }

    static func cards() -> [(String, StripeSimulatorCard)] {
        typealias S = StripeSimulator.Seed
        let holder = S.cardholderID
        let cards = [
            StripeSimulatorCard(
                id: S.activeCardID, cardholderID: holder, status: "active", type: "virtual", brand: "Visa",
                last4: "4242",
                expMonth: 8, expYear: 2030, currency: "usd", created: base + 900, applePay: .eligible,
                googlePay: .eligible,
                primaryAccountIdentifier: S.primaryAccountIdentifier
            ),
            StripeSimulatorCard(
                id: S.activeCardWithoutPrimaryAccountIdentifierID, cardholderID: holder, status: "active",
                type: "physical",
                brand: "MasterCard", last4: "4444", expMonth: 11, expYear: 2031, currency: "usd", created: base + 800,
                applePay: .eligible, googlePay: .eligible, primaryAccountIdentifier: nil
            ),
            StripeSimulatorCard(
                id: S.inactiveCardID, cardholderID: holder, status: "inactive", type: "physical", brand: "Visa",
                last4: "0005",
                expMonth: 1, expYear: 2029, currency: "usd", created: base + 700, applePay: .eligible,
                googlePay: .eligible,
                primaryAccountIdentifier: nil
            ),
            StripeSimulatorCard(
                id: S.canceledCardID, cardholderID: holder, status: "canceled", type: "virtual", brand: "Visa",
                last4: "0077",
                expMonth: 3, expYear: 2028, currency: "usd", created: base + 600, cancellationReason: "lost",
                applePay: .eligible, googlePay: .eligible, primaryAccountIdentifier: "V-3020110000000000000077"
            ),
            StripeSimulatorCard(
                id: S.missingAgreementCardID, cardholderID: holder, status: "active", type: "virtual", brand: "Visa",
                last4: "1111",
                expMonth: 5, expYear: 2030, currency: "usd", created: base + 500,
                applePay: .ineligible("missing_agreement"), googlePay: .ineligible("missing_agreement"),
                primaryAccountIdentifier: nil
            ),
            StripeSimulatorCard(
                id: S.missingCardholderContactCardID, cardholderID: S.cardholderWithoutContactID, status: "active",
                type: "virtual",
                brand: "Visa", last4: "2222", expMonth: 6, expYear: 2030, currency: "usd", created: base + 400,
                applePay: .ineligible("missing_cardholder_contact"),
                googlePay: .ineligible("missing_cardholder_contact"),
                primaryAccountIdentifier: nil
            ),
            StripeSimulatorCard(
                id: S.unsupportedRegionCardID, cardholderID: holder, status: "active", type: "virtual",
                brand: "MasterCard",
                last4: "3333", expMonth: 7, expYear: 2030, currency: "eur", created: base + 300,
                applePay: .ineligible("unsupported_region"), googlePay: .eligible, primaryAccountIdentifier: nil
            ),
            StripeSimulatorCard(
                id: S.internalErrorCardID, cardholderID: holder, status: "active", type: "virtual", brand: "Visa",
                last4: "9995",
                expMonth: 9, expYear: 2030, currency: "usd", created: base + 200, applePay: .eligible,
                googlePay: .eligible,
                primaryAccountIdentifier: nil, failsInternally: true
            ),
        ]
        return cards.map { ($0.id, $0) }
    }

    static func tokens() -> [(String, StripeSimulatorToken)] {
        typealias S = StripeSimulator.Seed
        let tokens = [
            StripeSimulatorToken(
                id: S.activeApplePayTokenID, cardID: S.activeCardID, status: "active", walletProvider: "apple_pay",
                network: "visa", last4: "8801", deviceFingerprint: "fp_sim_iphone", created: base + 1000,
                networkUpdatedAt: base + 1001, deviceType: "phone"),
            StripeSimulatorToken(
                id: S.suspendedGooglePayTokenID, cardID: S.activeCardID, status: "suspended",
                walletProvider: "google_pay", network: "visa", last4: "8802", deviceFingerprint: "fp_sim_pixel",
                created: base + 1100, networkUpdatedAt: base + 1101, deviceType: "phone"),
            StripeSimulatorToken(
                id: S.deletedApplePayTokenID, cardID: S.activeCardID, status: "deleted", walletProvider: "apple_pay",
                network: "visa", last4: "8803", deviceFingerprint: "fp_sim_watch", created: base + 1200,
                networkUpdatedAt: base + 1201, deviceType: "watch"),
            StripeSimulatorToken(
                id: S.requestedGooglePayTokenID, cardID: S.activeCardID, status: "requested",
                walletProvider: "google_pay", network: "visa", last4: "8804", deviceFingerprint: nil,
                created: base + 1300, networkUpdatedAt: base + 1301, deviceType: "phone"),
            StripeSimulatorToken(
                id: S.activeSamsungPayTokenID, cardID: S.activeCardID, status: "active", walletProvider: "samsung_pay",
                network: "visa", last4: "8805", deviceFingerprint: "fp_sim_galaxy", created: base + 1400,
                networkUpdatedAt: base + 1401, deviceType: "phone"),
            StripeSimulatorToken(
                id: S.unsupportedRegionGooglePayTokenID, cardID: S.unsupportedRegionCardID, status: "active",
                walletProvider: "google_pay", network: "mastercard", last4: "8806", deviceFingerprint: "fp_sim_pixel",
                created: base + 1500, networkUpdatedAt: base + 1501, deviceType: "phone"),
        ]
        return tokens.map { ($0.id, $0) }
    }
}
