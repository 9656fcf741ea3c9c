import Foundation

extension LithicSimulator {
    /// The simulator's documented seed: one account with cards in every state, an empty account, a card program and
    /// tokenizations in several statuses. Tokens are UUIDs, as Lithic's are. Listed in `Providers/Lithic/README.md`.
    public enum Seed {
        /// The API key the simulator accepts (the whole `Authorization` header).
        public static let apiKey = "sim-lithic-api-key-00000000000000000001"
        /// The event subscription's secret (`whsec_` and Base64 of 32 bytes) that signs the simulator's webhooks.
        public static let webhookSecret = "whsec_" + Data(repeating: 0x5A, count: 32).base64EncodedString()
        /// The Auth Stream Access HMAC secret (`GET /v1/auth_stream/secret`) that signs ASA requests.
        public static let asaSecret = "whsec_" + Data((0..<32).map { UInt8($0 * 7 & 0xFF) }).base64EncodedString()

        /// The account with seven cards.
        public static let accountToken = "a0000000-0000-4000-8000-000000000001"
        /// An account with no cards (to create one for).
        public static let emptyAccountToken = "a0000000-0000-4000-8000-000000000002"
        public static let accounts = [accountToken, emptyAccountToken]

        /// The program's card program (BIN range).
        public static let cardProgram = "b0000000-0000-4000-8000-000000000001"

        /// `OPEN`, last four 4242: eligible for every wallet; one Apple Pay tokenization.
        public static let activeCard = "c0000000-0000-4000-8000-000000000001"
        /// `OPEN`: to pause and resume.
        public static let lockableCard = "c0000000-0000-4000-8000-000000000002"
        /// `OPEN`: to close.
        public static let cancellableCard = "c0000000-0000-4000-8000-000000000003"
        /// `PAUSED`: not eligible for wallets.
        public static let pausedCard = "c0000000-0000-4000-8000-000000000004"
        /// `PENDING_ACTIVATION` physical card.
        public static let pendingCard = "c0000000-0000-4000-8000-000000000005"
        /// `CLOSED`: final.
        public static let closedCard = "c0000000-0000-4000-8000-000000000006"
        /// `OPEN`, with tokenizations in several statuses.
        public static let walletCard = "c0000000-0000-4000-8000-000000000007"
        /// A well-formed card token the simulator does not know.
        public static let missingCard = "c0000000-0000-4000-8000-000000009999"

        /// `ACTIVE` Apple Pay tokenization of ``walletCard``.
        public static let activeToken = "70000000-0000-4000-8000-000000000001"
        /// `ACTIVE` Google Pay tokenization of ``walletCard`` (to deactivate).
        public static let deletableToken = "70000000-0000-4000-8000-000000000002"
        /// `DEACTIVATED` Samsung Pay tokenization of ``walletCard``: final.
        public static let deactivatedToken = "70000000-0000-4000-8000-000000000003"
        /// `PAUSED` Google Pay tokenization of ``walletCard``.
        public static let pausedToken = "70000000-0000-4000-8000-000000000004"
        /// `ACTIVE` Apple Pay tokenization of ``activeCard``.
        public static let activeCardToken = "70000000-0000-4000-8000-000000000005"

        /// Inputs the tests and the demo provision with (stand-ins for what PassKit and the Android wallets give).
        public enum TestInputs {
            public static let leafCertificate =
                Data("simulated Apple leaf certificate (DER stand-in)".utf8) + Data([0x30, 0x82, 0x01, 0x0a])
            public static let subordinateCertificate =
                Data("simulated Apple sub-CA certificate (DER stand-in)".utf8) + Data([0x30, 0x82, 0x02, 0x0b])
            public static let nonce = Data([0x4e, 0x6f, 0x6e, 0x63, 0x65, 0x21, 0x9a, 0x01])
            public static let nonceSignature = Data("simulated nonce signature".utf8) + Data([0xfe, 0xed])
            public static let googleDeviceID = "sim-google-device-0001"
            public static let googleWalletAccountID = "sim-google-wallet-account-0001"
            public static let samsungDeviceID = "sim-samsung-device-01"
            public static let samsungWalletUserID = "sim-samsung-wallet-user-0001"
        }

        /// When the seed was created: 2025-01-01T00:00:00Z, one minute apart.
        static let epoch = Date(timeIntervalSince1970: 1_735_689_600)

        static var cards: [LithicSimulatorCard] {
            let rows: [(String, String, String, String, String?)] = [
                (activeCard, "OPEN", "4242", "VIRTUAL", nil),
                (lockableCard, "OPEN", "1002", "VIRTUAL", nil),
                (cancellableCard, "OPEN", "1003", "VIRTUAL", nil),
                (pausedCard, "PAUSED", "1004", "VIRTUAL", "SUSPICIOUS_ACTIVITY"),
                (pendingCard, "PENDING_ACTIVATION", "1005", "PHYSICAL", nil),
                (closedCard, "CLOSED", "1006", "VIRTUAL", "LOST"),
                (walletCard, "OPEN", "1007", "VIRTUAL", nil),
            ]
            return rows.enumerated().map { index, row in
                LithicSimulatorCard(
                    token: row.0, accountToken: accountToken, cardProgramToken: cardProgram, state: row.1,
                    substatus: row.4, lastFour: row.2, type: row.3, expMonth: "08", expYear: "2030",
                    memo: "Sim card \(index + 1)", created: epoch.addingTimeInterval(Double(index) * 60),
                    sequence: index + 1)
            }
        }

        static var tokenizations: [LithicSimulatorTokenization] {
            let rows: [(String, String, String, String)] = [
                (activeToken, walletCard, "ACTIVE", "APPLE_PAY"),
                (deletableToken, walletCard, "ACTIVE", "GOOGLE_PAY"),
                (deactivatedToken, walletCard, "DEACTIVATED", "SAMSUNG_PAY"),
                (pausedToken, walletCard, "PAUSED", "GOOGLE_PAY"),
                (activeCardToken, activeCard, "ACTIVE", "APPLE_PAY"),
            ]
            return rows.enumerated().map { index, row in
                let created = epoch.addingTimeInterval(3600 + Double(index) * 60)
                return LithicSimulatorTokenization(
                    token: row.0, cardToken: row.1, accountToken: accountToken, status: row.2, requestor: row.3,
                    created: created, updated: created, sequence: index + 1)
            }
        }
    }
}
