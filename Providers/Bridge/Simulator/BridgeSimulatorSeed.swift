import Foundation

extension BridgeSimulator {
    /// The documented seed: every value the simulator starts with (and returns to on reset).
    public enum Seed: Sendable {
        /// The API key the simulator accepts by default (`Api-Key` header).
        public static let apiKey = "sk-test-bridge-simulator-7c1e"

        /// Ada Lovelace: owns every card account below except ``otherCustomerActiveVisa``.
        public static let customerID = "c0ffee0000004000800000000000a1a1"
        /// Grace Hopper: owns ``otherCustomerActiveVisa``.
        public static let otherCustomerID = "c0ffee0000004000800000000000b2b2"

        /// A customer with no card account yet (to provision one: Bridge allows one per customer).
        public static let customerWithoutCardID = "c0ffee0000004000800000000000c3c3"
        /// Active Visa, BIN 44325280, last four 1269, expiry 10/29.
        public static let activeVisa = "ca0000000000400080000000000000a1"
        /// Active Mastercard, BIN 53999100, last four 5676, expiry 04/30.
        public static let activeMastercard = "ca0000000000400080000000000000a2"
        /// Pending Visa, BIN 44325280, last four 7891.
        public static let pendingVisa = "ca0000000000400080000000000000a3"
        /// Inactive Mastercard (2-series BIN 22230010), last four 9011.
        public static let inactiveMastercard = "ca0000000000400080000000000000a4"
        /// Frozen by the customer (lost_or_stolen) Visa, last four 1231.
        public static let frozenByCustomer = "ca0000000000400080000000000000a5"
        /// Frozen by the developer (suspected_fraud) Mastercard, last four 2233.
        public static let frozenByDeveloper = "ca0000000000400080000000000000a6"
        /// Active Visa of ``otherCustomerID``, last four 5569.
        public static let otherCustomerActiveVisa = "ca0000000000400080000000000000b1"

        /// The instant seeded freezes were placed: 2026-01-01T00:00:00Z.
        public static let seedDate = Date(timeIntervalSince1970: 1_767_225_600)

        public static let customers: [BridgeSimulatorCustomer] = [
            BridgeSimulatorCustomer(id: customerID, firstName: "Ada", lastName: "Lovelace"),
            BridgeSimulatorCustomer(id: otherCustomerID, firstName: "Grace", lastName: "Hopper"),
            BridgeSimulatorCustomer(id: customerWithoutCardID, firstName: "Katherine", lastName: "Johnson"),
        ]

        public static let cardAccounts: [BridgeSimulatorCardAccount] = [
            BridgeSimulatorCardAccount(
                id: activeVisa, customerID: customerID, clientReferenceID: "ada-visa-1", status: "active",
                firstName: "Ada", middleName: "King", lastName: "Lovelace", pan: "4432528000121269", expiry: "10/29"
            ),
            BridgeSimulatorCardAccount(
                id: activeMastercard, customerID: customerID, clientReferenceID: "ada-mc-1", status: "active",
                firstName: "Ada", lastName: "Lovelace", pan: "5399910000345676", expiry: "04/30"
            ),
            BridgeSimulatorCardAccount(
                id: pendingVisa, customerID: customerID, clientReferenceID: "ada-visa-2", status: "pending",
                statusReason: "card issuance in progress", firstName: "Ada", lastName: "Lovelace",
                pan: "4432528000567891", expiry: "11/29"
            ),
            BridgeSimulatorCardAccount(
                id: inactiveMastercard, customerID: customerID, clientReferenceID: "ada-mc-2", status: "inactive",
                statusReason: "card account deactivated", firstName: "Ada", lastName: "Lovelace",
                pan: "2223001000789011", expiry: "12/29"
            ),
            BridgeSimulatorCardAccount(
                id: frozenByCustomer, customerID: customerID, clientReferenceID: "ada-visa-3", status: "frozen",
                firstName: "Ada", lastName: "Lovelace", pan: "4432528000901231", expiry: "01/30",
                freezes: [
                    .init(initiator: "customer", reason: "lost_or_stolen", startingAt: seedDate, createdAt: seedDate)
                ]
            ),
            BridgeSimulatorCardAccount(
                id: frozenByDeveloper, customerID: customerID, clientReferenceID: "ada-mc-3", status: "frozen",
                firstName: "Ada", lastName: "Lovelace", pan: "5399910000112233", expiry: "02/30",
                freezes: [
                    .init(
                        initiator: "developer", reason: "suspected_fraud", reasonDetail: "chargeback pattern",
                        startingAt: seedDate, createdAt: seedDate)
                ]
            ),
            BridgeSimulatorCardAccount(
                id: otherCustomerActiveVisa, customerID: otherCustomerID, clientReferenceID: "grace-visa-1",
                status: "active",
                firstName: "Grace", middleName: "Brewster", lastName: "Hopper", pan: "4432528000445569", expiry: "09/31"
            ),
        ]

        /// The simulator's fixed P-256 key standing in for the wallet's encryption key: `encrypted_pass_data` is
        /// AES-256-GCM under a key derived (ANSI X9.63, SHA-256) from ECDH between this key and the response's
        /// `ephemeral_public_key`. Raw private scalar, 32 bytes (test value, never a real key).
        public static let passEncryptionPrivateKeyRaw = Data(
            (0..<32).map { UInt8(truncatingIfNeeded: 0x21 &+ $0 &* 7) })
        /// The `sharedInfo` of the X9.63 derivation (modelled on Apple's ECC_V2 scheme).
        public static let passEncryptionSharedInfo = Data([0x0d]) + Data("id-aes256-GCM".utf8) + Data("Apple".utf8)
        /// The key under which Google opaque payment cards are sealed (AES-256-GCM), as a passphrase hashed with SHA-256.
        public static let opaquePaymentCardSecret = "bridge-simulator-opc-key"
        /// The HMAC key that derives `activation_data` from the card account id and the nonce.
        public static let activationSecret = "bridge-simulator-activation-key"
    }
}

extension BridgeSimulator {
    /// Provisioning inputs the simulator accepts, for tests and example programs (not Apple's or Google's data).
    ///
    /// The certificates are real X.509 certificates in DER, made with swift-certificates: "Simulator Leaf" issued by
    /// "Simulator Subordinate CA", itself issued by a "Simulator Root CA" that is not published; fixed P-256 keys,
    /// ECDSA-SHA256 signatures (randomised, so the bytes differ from one process to the next), valid 2026 to 2036.
    /// They chain to no real authority.
    public enum TestInputs: Sendable {
        /// "Simulator Leaf" (PassKit `certificates[0]`).
        public static let leafCertificate = BridgeSimulatorCertificates.seedChain.leaf
        /// "Simulator Subordinate CA" (PassKit `certificates[1]`).
        public static let subordinateCertificate = BridgeSimulatorCertificates.seedChain.subordinate
        public static let nonce = Data([0x5a, 0x1c, 0x0e, 0x77])
        public static let nonceSignature = Data((0..<64).map { UInt8(truncatingIfNeeded: 0x90 &+ $0 &* 5) })
        public static let googleWalletAccountID = "sim-wallet-account-1"
        public static let googleDeviceID = "sim-device-1"

    }
}
