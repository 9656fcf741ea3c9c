import Foundation

extension AdyenSimulator {
    /// The simulator's documented, deterministic seed data. `reset()` returns to exactly this.
    public enum Seed: Sendable {
        /// Active Visa, virtual, no network tokens yet: the card to provision in tests and demos.
        public static let activeVisaID = "PI32272223222C5GXTDWH3TTN"
        /// Active Mastercard, physical, with network tokens in every status (see the token ids below).
        public static let activeMastercardID = "PI3227C223222B5BPCMFXD2XG"
        /// Inactive Mastercard (physical, not yet activated).
        public static let inactiveMastercardID = "PI3227C223222B5FN65FN5NS9"
        /// Suspended Visa, `statusReason` `suspectedFraud`, one suspended network token.
        public static let suspendedVisaID = "PI32272223222B5F6VHBRH6WS"
        /// Closed Mastercard, `statusReason` `lost`, one closed network token.
        public static let closedMastercardID = "PI32272223222B5CMD3MQ3HXX"
        /// An active business account (`type` `bankAccount`): a payment instrument that is not a card.
        public static let bankAccountID = "PI32272223222B5CTCGQDNQX5"

        /// Active Visa, virtual, no network tokens: the card the lifecycle tests lock and unlock.
        public static let lockableVisaID = "PI32272223222C5LCKV5PL7QA"
        /// Active Mastercard, virtual, no network tokens: the card the lifecycle tests cancel.
        public static let cancellableMastercardID = "PI32272223222C5CNCM8RT2QB"
        /// Active Visa, virtual, with two active network tokens (``walletActiveTokenID``, ``walletDeletableTokenID``).
        public static let walletVisaID = "PI32272223222C5WLTV3KX9QC"

        /// The balance account every seeded instrument belongs to. Listed in seed order: the five cards above
        /// (active Visa, active and inactive Mastercard, suspended Visa, closed Mastercard), the business account,
        /// then the lockable, cancellable and wallet cards.
        public static let balanceAccountID = "BA32272223222B59CZ3T52DKZ"
        /// A balance account with no payment instruments (its listing is empty, not 404).
        public static let emptyBalanceAccountID = "BA32272223222B5EMPTY00000"
        /// The payment instrument group of the seeded cards.
        public static let paymentInstrumentGroupID = "PG3227C223222B5CMD3FJFKGZ"
        /// The balance platform named in webhooks.
        public static let balancePlatform = "SimulatedBalancePlatform"

        /// On the active Mastercard: `active`, `type` `wallet`, token requestor "Apple Pay".
        public static let activeApplePayTokenID = "NWTK00000000000000000000000001"
        /// On the active Mastercard: `inactive`, `type` `googlePay` (the docs-table style of `type`).
        public static let inactiveGooglePayTokenID = "NWTK00000000000000000000000002"
        /// On the active Mastercard: `suspended`, `type` `applePay`.
        public static let suspendedApplePayTokenID = "NWTK00000000000000000000000003"
        /// On the active Mastercard: `closed` (final), `type` `wallet`, token requestor "Google Pay".
        public static let closedGooglePayTokenID = "NWTK00000000000000000000000004"
        /// On the suspended Visa: `suspended`, `type` `wallet`, token requestor "Apple Pay".
        public static let suspendedCardTokenID = "NWTK00000000000000000000000005"
        /// On the closed Mastercard: `closed`, `type` `cof` (a card-on-file token, no wallet).
        public static let closedCardTokenID = "NWTK00000000000000000000000006"

        /// On the wallet Visa: `active`, `type` `wallet`, token requestor "Apple Pay" (to suspend and resume).
        public static let walletActiveTokenID = "NWTK00000000000000000000000007"
        /// On the wallet Visa: `active`, `type` `wallet`, token requestor "Google Pay" (to delete).
        public static let walletDeletableTokenID = "NWTK00000000000000000000000008"

        /// POSTs of `sdkOutput` after a GET of the activation data that complete the exchange: the last one creates
        /// an `active` network token (`type` `wallet`) on the instrument and answers a final `sdkInput`.
        public static let roundTripsToComplete = 2
        /// The token requestor of tokens the exchange creates is "Apple Pay", unless the decoded `sdkOutput` bytes
        /// of the completing POST contain this ASCII text (then "Google Pay").
        public static let googlePayMarker = "googlePay"
        /// How many bytes of the SHA-256 of the latest `sdkInput` an `sdkOutput` starts with
        /// (``AdyenSimulator/sdkOutput(answering:extra:)``).
        public static let sdkOutputDigestLength = 12

        /// When the seeded network tokens were created.
        public static let tokenCreationDate = Date(timeIntervalSince1970: 1_735_725_600)  // 2025-01-01T10:00:00Z

        static var instruments: [(String, AdyenSimulatorInstrument)] {
            [
                card(
                    activeVisaID, status: "active", reason: nil, brand: "visa", variant: "visadebit",
                    formFactor: "virtual", bin: "491761", lastFour: "4321", month: "03", year: "2030",
                    name: "Sam Hopper"),
                card(
                    activeMastercardID, status: "active", reason: nil, brand: "mc", variant: "mcdebit",
                    formFactor: "physical", bin: "555544", lastFour: "1234", month: "08", year: "2029",
                    name: "Alex Rivera"),
                card(
                    inactiveMastercardID, status: "inactive", reason: nil, brand: "mc", variant: "mcprepaid",
                    formFactor: "physical", bin: "555544", lastFour: "5678", month: "11", year: "2029",
                    name: "Jo Bloggs"),
                card(
                    suspendedVisaID, status: "suspended", reason: "suspectedFraud", brand: "visa", variant: "visadebit",
                    formFactor: "virtual", bin: "491761", lastFour: "8765", month: "01", year: "2028", name: "Kim Lee"),
                card(
                    closedMastercardID, status: "closed", reason: "lost", brand: "mc", variant: "mcdebit",
                    formFactor: "physical", bin: "555544", lastFour: "2468", month: "06", year: "2027",
                    name: "Pat Morgan"),
                (
                    bankAccountID,
                    AdyenSimulatorInstrument(
                        id: bankAccountID, type: "bankAccount", status: "active", statusReason: nil,
                        description: "Business account",
                        card: nil, iban: "NL20ADYB2017000035"
                    )
                ),
                card(
                    lockableVisaID, status: "active", reason: nil, brand: "visa", variant: "visadebit",
                    formFactor: "virtual", bin: "491761", lastFour: "1357", month: "05", year: "2030", name: "Lee Park"),
                card(
                    cancellableMastercardID, status: "active", reason: nil, brand: "mc", variant: "mcdebit",
                    formFactor: "virtual", bin: "555544", lastFour: "9753", month: "09", year: "2030", name: "Ana Silva"
                ),
                card(
                    walletVisaID, status: "active", reason: nil, brand: "visa", variant: "visadebit",
                    formFactor: "virtual", bin: "491761", lastFour: "2580", month: "12", year: "2030", name: "Max Weber"
                ),
            ]
        }

        static var tokens: [(String, AdyenSimulatorNetworkToken)] {
            [
                token(
                    activeApplePayTokenID, on: activeMastercardID, status: "active", type: "wallet",
                    requestor: "Apple Pay", lastFour: "0001", variant: "mcdebit"),
                token(
                    inactiveGooglePayTokenID, on: activeMastercardID, status: "inactive", type: "googlePay",
                    requestor: nil, lastFour: "0002", variant: "mcdebit"),
                token(
                    suspendedApplePayTokenID, on: activeMastercardID, status: "suspended", type: "applePay",
                    requestor: nil, lastFour: "0003", variant: "mcdebit"),
                token(
                    closedGooglePayTokenID, on: activeMastercardID, status: "closed", type: "wallet",
                    requestor: "Google Pay", lastFour: "0004", variant: "mcdebit"),
                token(
                    suspendedCardTokenID, on: suspendedVisaID, status: "suspended", type: "wallet",
                    requestor: "Apple Pay", lastFour: "0005", variant: "visadebit"),
                token(
                    closedCardTokenID, on: closedMastercardID, status: "closed", type: "cof",
                    requestor: "Merchant Token Service", lastFour: "0006", variant: "mcdebit"),
                token(
                    walletActiveTokenID, on: walletVisaID, status: "active", type: "wallet", requestor: "Apple Pay",
                    lastFour: "0007", variant: "visadebit"),
                token(
                    walletDeletableTokenID, on: walletVisaID, status: "active", type: "wallet", requestor: "Google Pay",
                    lastFour: "0008", variant: "visadebit"),
            ]
        }

        private static func card(
            _ id: String, status: String, reason: String?, brand: String, variant: String, formFactor: String,
            bin: String,
            lastFour: String, month: String, year: String, name: String
        ) -> (String, AdyenSimulatorInstrument) {
            let card = AdyenSimulatorCard(
                brand: brand, brandVariant: variant, cardholderName: name, formFactor: formFactor, bin: bin,
                lastFour: lastFour,
                expiryMonth: month, expiryYear: year
            )
            return (
                id,
                AdyenSimulatorInstrument(
                    id: id, type: "card", status: status, statusReason: reason, description: "\(name)'s card",
                    card: card, iban: nil)
            )
        }

        private static func token(
            _ id: String, on instrument: String, status: String, type: String, requestor: String?, lastFour: String,
            variant: String
        ) -> (String, AdyenSimulatorNetworkToken) {
            (
                id,
                AdyenSimulatorNetworkToken(
                    id: id, paymentInstrumentID: instrument, status: status, type: type, brandVariant: variant,
                    tokenLastFour: lastFour,
                    creationDate: tokenCreationDate, tokenRequestorName: requestor,
                    deviceOS: type == "cof"
                        ? nil : (requestor == "Google Pay" || type == "googlePay" ? "android" : "ios")
                )
            )
        }
    }
}
