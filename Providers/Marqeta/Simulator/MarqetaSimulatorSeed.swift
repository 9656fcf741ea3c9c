import Foundation

extension MarqetaSimulator {
    /// The simulator's documented seed: one user with cards in every state, an empty user, two card products and
    /// digital wallet tokens in several states. Listed in `Providers/Marqeta/README.md`.
    public enum Seed {
        /// The HTTP Basic username the simulator accepts.
        public static let applicationToken = "sim-marqeta-application-token-0001"
        /// The HTTP Basic password the simulator accepts (an admin access token).
        public static let accessToken = "sim-marqeta-admin-access-token-0000001"
        /// The Basic credentials the simulator's webhooks carry.
        public static let webhookUsername = "cardgateway-webhook-user"
        public static let webhookPassword = "Sim-Webhook-Passw0rd!-0001"
        /// The webhook `secret` that signs `X-Marqeta-Signature`.
        public static let webhookSecret = "sim-marqeta-webhook-secret-0001"
        /// The program gateway funding source's `basic_auth_username`: the Basic username the simulator's JIT Funding
        /// requests carry (the integrator's `authorizationUsername`).
        public static let authorizationUsername = "cardgateway-jit-gateway"
        /// Its `basic_auth_password` (20–100 characters with upper and lower case letters, digits and symbols, as
        /// `gateway_program_funding_source_request` asks): the integrator's `authorizationPassword`.
        public static let authorizationPassword = "Sim-JIT-Gateway-Passw0rd!-0001"
        /// The program gateway funding source's token, masked as Marqeta shows it in `funding_source_token`.
        public static let gatewayFundingSource = "**********0001"

        /// The user with seven cards.
        public static let userToken = "user_sim_0001"
        /// A user with no cards (to create one for).
        public static let emptyUserToken = "user_sim_empty_0002"
        public static let users = [userToken, emptyUserToken]

        /// A card product issuing virtual cards, active upon issue.
        public static let virtualProduct = "cp_sim_virtual_0001"
        /// A card product issuing physical (chip) cards, `UNACTIVATED` until activated.
        public static let physicalProduct = "cp_sim_physical_0002"
        public static let cardProducts = [virtualProduct: "VIRTUAL_PAN", physicalProduct: "PHYSICAL_ICC"]

        /// `ACTIVE`, last four 4242: eligible for every wallet; one Apple Pay token.
        public static let activeCard = "card_sim_active_0001"
        /// `ACTIVE`: to lock and unlock.
        public static let lockableCard = "card_sim_lockable_0002"
        /// `ACTIVE`: to cancel.
        public static let cancellableCard = "card_sim_cancellable_0003"
        /// `SUSPENDED`: not eligible for wallets.
        public static let suspendedCard = "card_sim_suspended_0004"
        /// `UNACTIVATED` physical card.
        public static let unactivatedCard = "card_sim_unactivated_0005"
        /// `TERMINATED`: final.
        public static let terminatedCard = "card_sim_terminated_0006"
        /// `ACTIVE`, with tokens in several states.
        public static let walletCard = "card_sim_wallet_0007"

        /// `ACTIVE` Apple Pay token of ``walletCard``.
        public static let activeToken = "dwt_sim_active_apple_0001"
        /// `ACTIVE` Google Pay token of ``walletCard`` (to terminate).
        public static let deletableToken = "dwt_sim_deletable_google_0002"
        /// `TERMINATED` Samsung Pay token of ``walletCard``: final.
        public static let terminatedToken = "dwt_sim_terminated_samsung_0003"
        /// `SUSPENDED` Google Pay token of ``walletCard``.
        public static let suspendedToken = "dwt_sim_suspended_google_0004"
        /// `ACTIVE` Apple Pay token of ``activeCard``.
        public static let eligibleCardToken = "dwt_sim_eligible_apple_0005"

        static let created = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01T00:00:00Z

        static let cards: [MarqetaSimulatorCard] = [
            card(activeCard, "4242", "ACTIVE", "VIRTUAL_PAN", 1),
            card(lockableCard, "1881", "ACTIVE", "VIRTUAL_PAN", 2),
            card(cancellableCard, "0005", "ACTIVE", "VIRTUAL_PAN", 3),
            card(suspendedCard, "3156", "SUSPENDED", "VIRTUAL_PAN", 4),
            card(unactivatedCard, "9424", "UNACTIVATED", "PHYSICAL_ICC", 5),
            card(terminatedCard, "0077", "TERMINATED", "VIRTUAL_PAN", 6),
            card(walletCard, "6789", "ACTIVE", "VIRTUAL_PAN", 7),
        ]

        static let walletTokens: [MarqetaSimulatorWalletToken] = [
            token(activeToken, walletCard, "ACTIVE", "APPLE_PAY", 1),
            token(deletableToken, walletCard, "ACTIVE", "ANDROID_PAY", 2, device: "WATCH"),
            token(terminatedToken, walletCard, "TERMINATED", "SAMSUNG_PAY", 3),
            token(suspendedToken, walletCard, "SUSPENDED", "ANDROID_PAY", 4, device: "TABLET"),
            token(eligibleCardToken, activeCard, "ACTIVE", "APPLE_PAY", 5),
        ]

        /// Seeded tokens were created a minute apart, in `sequence` order (lists answer newest first).
        private static func token(
            _ token: String, _ card: String, _ state: String, _ requestor: String, _ sequence: Int,
            device: String = "MOBILE_PHONE"
        ) -> MarqetaSimulatorWalletToken {
            let time = created.addingTimeInterval(Double(sequence) * 60)
            return MarqetaSimulatorWalletToken(
                token: token, cardToken: card, state: state, requestor: requestor, deviceType: device, created: time,
                lastModified: time, sequence: sequence
            )
        }

        /// Seeded cards were created (and last modified) a minute apart, in `sequence` order.
        private static func card(
            _ token: String, _ lastFour: String, _ state: String, _ type: String, _ sequence: Int
        ) -> MarqetaSimulatorCard {
            let time = created.addingTimeInterval(Double(sequence) * 60)
            return MarqetaSimulatorCard(
                token: token, userToken: userToken,
                cardProductToken: type == "VIRTUAL_PAN" ? virtualProduct : physicalProduct, lastFour: lastFour,
                expiration: "1229", state: state,
                stateReason: state == "ACTIVE" ? "" : "Seeded \(state.lowercased()) card", instrumentType: type,
                created: time, lastModified: time, sequence: sequence
            )
        }
    }

    /// Inputs a test wallet would give (not real Apple or Google data).
    public enum TestInputs {
        public static let leafCertificate =
            Data("simulated Apple leaf certificate (DER stand-in)".utf8) + Data([0x30, 0x82, 0x01, 0x0a])
        public static let subordinateCertificate =
            Data("simulated Apple sub-CA certificate (DER stand-in)".utf8) + Data([0x30, 0x82, 0x02, 0x0b])
        public static let nonce = Data([0x4e, 0x6f, 0x6e, 0x63, 0x65, 0x21, 0x9a, 0x01])
        public static let nonceSignature = Data("simulated nonce signature".utf8) + Data([0xfe, 0xed])
        public static let googleDeviceID = "sim-google-device-0001"
        public static let googleWalletAccountID = "sim-google-wallet-account-0001"
        /// Samsung `device_id`: at most 24 characters.
        public static let samsungDeviceID = "sim-samsung-device-01"
        public static let samsungWalletUserID = "sim-samsung-wallet-user-0001"
    }
}
