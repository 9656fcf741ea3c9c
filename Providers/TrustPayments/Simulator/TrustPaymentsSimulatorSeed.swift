import Foundation

extension TrustPaymentsSimulator {
    /// The simulator's documented seed: credentials, sites, test cards, amount triggers and stored transactions.
    public enum Seed: Sendable {
        /// The Webservices user (HTTP Basic username and `alias` on `/json/`).
        public static let webservicesUsername = "ws@cardgateway.test"
        /// The Webservices user's password.
        public static let webservicesPassword = "ws-sandbox-password"
        /// The Webservices JWT user (`iss` of request JWTs, `alias` on `/jwt/`; `aud` of response JWTs only when the
        /// simulator's credentials ask for it).
        public static let jwtUsername = "jwt@cardgateway.test"
        /// The JWT user's HS256 secret.
        public static let jwtSecret = "jwt-sandbox-secret-0123456789"
        /// The merchant's site: valid for the users above.
        public static let siteReference = "test_cardgateway12345"
        /// Another merchant's site: it exists, but not for these users (30006).
        public static let otherMerchantSiteReference = "test_othermerchant67890"
        /// An expiry date in the future for the test cards, as the SDK sends it (`MM/YYYY`).
        public static let expiryDate = "12/2034"

        /// Test card numbers and what the simulated bank answers for them (on ACCOUNTCHECK and AUTH unless said).
        public enum Card: Sendable {
            /// Visa, success (Trust Payments' documented success card).
            public static let visa = "4111111111111111"
            /// Mastercard, success (Trust Payments' documented success card).
            public static let mastercard = "5100000000000511"
            /// American Express, success; its security code has 4 digits.
            public static let amex = "340000000000611"
            /// Visa, declined: errorcode 70000.
            public static let declined = "4000000000000002"
            /// Visa, declined: errorcode 70000 (the card the official Python client's tests decline).
            public static let declinedOfficial = "4000000000000812"
            /// Visa, soft decline (strong customer authentication wanted): errorcode 71000.
            public static let softDecline = "4000000000000010"
            /// Visa, refer to issuer: errorcode 72000.
            public static let referral = "4000000000000028"
            /// Visa, bank system error: errorcode 60010.
            public static let bankError = "4000000000000036"
            /// Visa whose 3-D Secure authentication fails: THREEDQUERY answers 60022 (unauthenticated).
            public static let unauthenticated = "4000000000000044"
            /// Visa, manual investigation required: errorcode 60034.
            public static let manualInvestigation = "4000000000000051"
            /// Visa, success but suspended for review: settlestatus 2.
            public static let suspended = "4000000000000069"
            /// Visa, errorcode 0 but cancelled: settlestatus 3.
            public static let cancelled = "4000000000000077"
            /// Visa, unknown error: errorcode 99999.
            public static let unknownError = "4000000000000085"
        }

        /// `baseamount` values that decide an AUTH's outcome whatever the card (so merchant-initiated charges can
        /// be declined). 70000 and 60010 are Trust Payments' documented test-bank amounts; the others are this
        /// simulator's.
        public enum Amount: Sendable {
            /// 70000 (£700.00): declined, errorcode 70000 (documented test-bank amount).
            public static let declined: Int64 = 70000
            /// 60010 (£600.10): bank system error, errorcode 60010 (documented test-bank amount).
            public static let bankError: Int64 = 60010
            /// 71000: soft decline, errorcode 71000.
            public static let softDecline: Int64 = 71000
            /// 72000: refer to issuer, errorcode 72000.
            public static let referral: Int64 = 72000
            /// 60034: manual investigation required, errorcode 60034.
            public static let manualInvestigation: Int64 = 60034
            /// 99999: unknown error, errorcode 99999.
            public static let unknownError: Int64 = 99999
            /// 20002: authorised but suspended, settlestatus 2.
            public static let suspended: Int64 = 20002
            /// 30003: errorcode 0 but cancelled, settlestatus 3.
            public static let cancelled: Int64 = 30003
            /// 10100: authorised and already settled, settlestatus 100.
            public static let settled: Int64 = 10100
        }

        /// Transactions present at start (and after reset), on ``siteReference``.
        public enum Transaction: Sendable {
            /// A successful ACCOUNTCHECK that stored a Visa (credentialsonfile 1): a parent for C and D, not for A.
            public static let storedVisaAccountCheck = "1-9-1000001"
            /// A successful AUTH that stored a Visa (credentialsonfile 1): a parent for A, C and D.
            public static let storedVisaAuth = "1-9-1000002"
            /// A successful ACCOUNTCHECK that stored an American Express card (credentialsonfile 1).
            public static let storedAmexAccountCheck = "1-9-1000003"
            /// A successful AUTH that stored a Mastercard (credentialsonfile 1).
            public static let storedMastercardAuth = "1-9-1000004"
            /// A successful AUTH that did not store its card (credentialsonfile 0): refused as a parent (20033).
            public static let unstoredAuth = "1-9-1000005"
            /// A declined ACCOUNTCHECK (70000) flagged credentialsonfile 1: refused as a parent (20033).
            public static let declinedAccountCheck = "1-9-1000006"
            /// A stored Visa ACCOUNTCHECK on the other merchant's site: not found from this site (20004).
            public static let otherMerchantStored = "1-9-1000007"
        }
    }
}

/// What the simulated bank does with a card.
struct TrustPaymentsSimulatorCardBehaviour: Sendable {
    /// The errorcode for ACCOUNTCHECK and AUTH.
    var errorCode = "0"
    /// The errorcode for THREEDQUERY.
    var threeDQueryErrorCode = "0"
    /// The settlestatus of a successful ACCOUNTCHECK or AUTH.
    var settleStatus = "0"

    static func forCard(_ pan: String) -> TrustPaymentsSimulatorCardBehaviour {
        typealias Card = TrustPaymentsSimulator.Seed.Card
        switch pan {
        case Card.declined, Card.declinedOfficial: return TrustPaymentsSimulatorCardBehaviour(errorCode: "70000")
        case Card.softDecline: return TrustPaymentsSimulatorCardBehaviour(errorCode: "71000")
        case Card.referral: return TrustPaymentsSimulatorCardBehaviour(errorCode: "72000")
        case Card.bankError: return TrustPaymentsSimulatorCardBehaviour(errorCode: "60010")
        case Card.unauthenticated: return TrustPaymentsSimulatorCardBehaviour(threeDQueryErrorCode: "60022")
        case Card.manualInvestigation: return TrustPaymentsSimulatorCardBehaviour(errorCode: "60034")
        case Card.suspended: return TrustPaymentsSimulatorCardBehaviour(settleStatus: "2")
        case Card.cancelled: return TrustPaymentsSimulatorCardBehaviour(settleStatus: "3")
        case Card.unknownError: return TrustPaymentsSimulatorCardBehaviour(errorCode: "99999")
        default: return TrustPaymentsSimulatorCardBehaviour()
        }
    }

    /// The outcome an AUTH's amount forces, if any: (errorcode, settlestatus).
    static func forAmount(_ amount: Int64) -> (errorCode: String, settleStatus: String)? {
        typealias Amount = TrustPaymentsSimulator.Seed.Amount
        switch amount {
        case Amount.declined: return ("70000", "3")
        case Amount.bankError: return ("60010", "3")
        case Amount.softDecline: return ("71000", "3")
        case Amount.referral: return ("72000", "3")
        case Amount.manualInvestigation: return ("60034", "3")
        case Amount.unknownError: return ("99999", "3")
        case Amount.suspended: return ("0", "2")
        case Amount.cancelled: return ("0", "3")
        case Amount.settled: return ("0", "100")
        default: return nil
        }
    }
}
