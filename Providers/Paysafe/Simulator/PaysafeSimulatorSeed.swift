import Foundation

extension PaysafeSimulator {
    /// The simulator's documented seed data. Every id is stable across runs and resets.
    public enum Seed: Sendable {
        /// An EU (ROW) customer with a card in every Paysafe status.
        public static let euCustomer = "cust-eu-1001"
        /// A US customer (US rules: no PIN at creation, state and T&C/e-disclosure flags required).
        public static let usCustomer = "cust-us-2001"
        /// An EU customer for whom card updates (status, PIN) and secure details demand SCA.
        public static let scaCustomer = "cust-sca-3001"
        /// Not a customer.
        public static let unknownCustomer = "cust-missing-9999"

        // EU customer's cards, one per status (MC unless named Visa).
        public static let activeCardID = "11111111-0000-4000-8000-000000000001"
        public static let activeVisaCardID = "11111111-0000-4000-8000-000000000002"
        public static let issuedCardID = "11111111-0000-4000-8000-000000000003"
        public static let digitalCardID = "11111111-0000-4000-8000-000000000004"
        public static let pendingCardID = "11111111-0000-4000-8000-000000000005"
        public static let appliedCardID = "11111111-0000-4000-8000-000000000006"
        public static let lockedCardID = "11111111-0000-4000-8000-000000000007"
        public static let suspendedCardID = "11111111-0000-4000-8000-000000000008"
        public static let cancelledCardID = "11111111-0000-4000-8000-000000000009"
        public static let expiredCardID = "11111111-0000-4000-8000-000000000010"
        public static let rejectedCardID = "11111111-0000-4000-8000-000000000011"
        /// ACTIVE Mastercard with a COMPLETED Apple Pay tokenization (dpanRef ``tokenizedDPANRef``).
        public static let tokenizedCardID = "11111111-0000-4000-8000-000000000012"
        public static let tokenizedDPANRef = "DAPLMC00002125433c0c34a2821f4f86866e7576963baf8b"

        // US customer's cards (Visa).
        public static let usActiveCardID = "22222222-0000-4000-8000-000000000001"
        public static let usIssuedCardID = "22222222-0000-4000-8000-000000000002"

        // SCA customer's cards.
        public static let scaActiveCardID = "33333333-0000-4000-8000-000000000001"
        public static let scaLockedCardID = "33333333-0000-4000-8000-000000000002"

        /// Seeded CVVs (activation checks last four + CVV). Every other seeded card has CVV `123`; cards created
        /// in the simulator get CVV ``createdCardCVV``.
        public static let issuedCardCVV = "456"
        public static let digitalCardCVV = "789"
        public static let usIssuedCardCVV = "321"
        public static let defaultCVV = "123"
        public static let createdCardCVV = "000"

        public static let issuedCardLastFour = "4403"
        public static let digitalCardLastFour = "1104"
        public static let usIssuedCardLastFour = "2202"

        /// Programs.
        public static let virtualMCProgram = "SKRILL-VIRTUAL-MC-EEA"
        public static let physicalMCProgram = "SKRILL-PHYSICAL-MC-EEA"
        public static let physicalVisaProgram = "SKRILL-PHYSICAL-VISA-EEA"
        public static let usVirtualProgram = "PAYSAFE-VIRTUAL-VISA-US"
        public static let usPhysicalProgram = "PAYSAFE-PHYSICAL-VISA-US"

        /// Failed activations before a card is SUSPENDED.
        public static let activationAttemptsBeforeSuspension = 3
        /// Attempts allowed per SCA event.
        public static let scaAllowableAttempts = 3
    }

    /// The credentials and secrets the simulator accepts.
    public struct Credentials: Sendable {
        public var clientID: String
        public var clientSecret: String
        /// The brand identity in the token path.
        public var brand: String
        /// Paysafe's HMAC secret key as Paysafe hands it over: the Base64 text of 256 bytes (what an integrator pastes as
        /// `webhookSecret`). The simulator's webhooks are signed with its decoded bytes, and so are the requests it
        /// checks when ``PaysafeSimulator/requireRequestSignature`` is on.
        public var webhookSecret: String
        /// Lifetime of issued access tokens, in seconds.
        public var tokenLifetime: Int

        public init(
            clientID: String, clientSecret: String, brand: String, webhookSecret: String, tokenLifetime: Int = 900
        ) {
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.brand = brand
            self.webhookSecret = webhookSecret
            self.tokenLifetime = tokenLifetime
        }

        public static let `default` = Credentials(
            clientID: "sim-client-id", clientSecret: "sim-client-secret", brand: "simbrand",
            webhookSecret: defaultWebhookSecret
        )

        /// 256 bytes in Base64, as `openssl rand 256 -base64` prints them (on one line).
        public static let defaultWebhookSecret =
            "splldXZP3uLK5eavTh3uL2XezNFHOaDwDmGN5v1CMb7acawR+1mXouemwN/RN58vAuCgH0kocXeKji6byWxV80WuoctoWDVoDbMlWPKT+qfqDrP9lzhlwN3xcYbVwchBScxg53LIkhSWlsp11Faw06Pj/M09xGMj9mVp76Dwwyqj+hysEVePWgf5GW2sbw9M179yRlEuguG4gT68trKCwlZZjFtCP5daJihcH5E1AMHYXHjK0BBsWos1eOhj9MRV5xxNOqMr9D9BhzG+incBQ5E4iHBzaPLzIr7DkzGXSd09LyCNB265KhBe351TnqcmkSn204+Tu8POO+koO72Yzg=="

    }
}

enum PaysafeSimulatorSeedData {
    static let epoch = Date(timeIntervalSince1970: 1_700_000_000)

    static let customers: [PaysafeSimulatorCustomer] = [
        PaysafeSimulatorCustomer(
            id: PaysafeSimulator.Seed.euCustomer, region: "ROW", requiresSCA: false, name: "Maria Ivanova",
            mobile: "+359 888333333",
            address1: "Tsarigradsko Shose 73", city: "Sofia", countryCode: "BG", state: nil, postalCode: "1000"
        ),
        PaysafeSimulatorCustomer(
            id: PaysafeSimulator.Seed.usCustomer, region: "US", requiresSCA: false, name: "John Smith",
            mobile: "+1 2125550100",
            address1: "1 Main Street", city: "New York", countryCode: "US", state: "NY", postalCode: "10001"
        ),
        PaysafeSimulatorCustomer(
            id: PaysafeSimulator.Seed.scaCustomer, region: "ROW", requiresSCA: true, name: "Anna Schmidt",
            mobile: "+49 15112345678",
            address1: "Unter den Linden 1", city: "Berlin", countryCode: "DE", state: nil, postalCode: "10117"
        ),
    ]

    static let programs: [PaysafeSimulatorProgram] = [
        PaysafeSimulatorProgram(
            name: PaysafeSimulator.Seed.virtualMCProgram, cardType: "VIRTUAL", scheme: "MC",
            currencies: ["EUR", "BGN", "GBP"], allowableCards: 20, isDigital: false, region: "ROW"),
        PaysafeSimulatorProgram(
            name: PaysafeSimulator.Seed.physicalMCProgram, cardType: "PHYSICAL", scheme: "MC",
            currencies: ["EUR", "BGN"], allowableCards: 10, isDigital: false, region: "ROW"),
        PaysafeSimulatorProgram(
            name: PaysafeSimulator.Seed.physicalVisaProgram, cardType: "PHYSICAL", scheme: "VISA", currencies: ["EUR"],
            allowableCards: 10, isDigital: true, region: "ROW"),
        PaysafeSimulatorProgram(
            name: PaysafeSimulator.Seed.usVirtualProgram, cardType: "VIRTUAL", scheme: "VISA", currencies: ["USD"],
            allowableCards: 3, isDigital: false, region: "US"),
        PaysafeSimulatorProgram(
            name: PaysafeSimulator.Seed.usPhysicalProgram, cardType: "PHYSICAL", scheme: "VISA", currencies: ["USD"],
            allowableCards: 2, isDigital: false, region: "US"),
    ]

    static func card(
        _ id: String, customer: String, status: String, scheme: String, type: String, lastFour: String,
        cvv: String = PaysafeSimulator.Seed.defaultCVV,
        currency: String = "EUR", statusReason: String? = nil, tokenizations: [PaysafeSimulatorTokenization] = [],
        index: Int
    ) -> PaysafeSimulatorCard {
        let program: String
        switch (type, scheme, currency) {
        case ("VIRTUAL", _, "USD"): program = PaysafeSimulator.Seed.usVirtualProgram
        case ("PHYSICAL", _, "USD"): program = PaysafeSimulator.Seed.usPhysicalProgram
        case ("PHYSICAL", "VISA", _): program = PaysafeSimulator.Seed.physicalVisaProgram
        case ("PHYSICAL", _, _): program = PaysafeSimulator.Seed.physicalMCProgram
        default: program = PaysafeSimulator.Seed.virtualMCProgram
        }
        return PaysafeSimulatorCard(
            cardId: id, customerId: customer, status: status, statusReason: statusReason, cardType: type,
            scheme: scheme,
            programName: program, currency: currency, bin: scheme == "VISA" ? "453978" : "533944", lastFour: lastFour,
            expiryMonth: status == "EXPIRED" ? 1 : 3 + index % 9, expiryYear: status == "EXPIRED" ? 2023 : 2029,
            mobile: nil, createdDate: epoch.addingTimeInterval(TimeInterval(index) * 86_400),
            activationDate: ["ACTIVE", "LOCKED", "SUSPENDED"].contains(status)
                ? epoch.addingTimeInterval(TimeInterval(index) * 86_400 + 3600) : nil,
            accountId: String(127_623_000 + index), externalId: nil,
            deliveryAddress: type != "PHYSICAL"
                ? nil
                : currency == "USD"
                    ? [
                        "address1": "1 Main Street", "city": "New York", "countryCode": "US", "state": "NY",
                        "postalCode": "10001",
                    ]
                    : [
                        "address1": "Tsarigradsko Shose 73", "city": "Sofia", "countryCode": "BG", "postalCode": "1000",
                    ],
            cvv: cvv, pin: type == "PHYSICAL" ? "1234" : nil, tokenizations: tokenizations
        )
    }

    static var cards: [PaysafeSimulatorCard] {
        typealias S = PaysafeSimulator.Seed
        let eu = S.euCustomer
        return [
            card(
                S.activeCardID, customer: eu, status: "ACTIVE", scheme: "MC", type: "VIRTUAL", lastFour: "7009",
                index: 1),
            card(
                S.activeVisaCardID, customer: eu, status: "ACTIVE", scheme: "VISA", type: "VIRTUAL", lastFour: "4242",
                index: 2),
            card(
                S.issuedCardID, customer: eu, status: "ISSUED", scheme: "MC", type: "PHYSICAL",
                lastFour: S.issuedCardLastFour, cvv: S.issuedCardCVV, index: 3),
            card(
                S.digitalCardID, customer: eu, status: "DIGITAL", scheme: "VISA", type: "PHYSICAL",
                lastFour: S.digitalCardLastFour, cvv: S.digitalCardCVV, index: 4),
            card(
                S.pendingCardID, customer: eu, status: "PENDING", scheme: "MC", type: "PHYSICAL", lastFour: "5505",
                index: 5),
            card(
                S.appliedCardID, customer: eu, status: "APPLIED", scheme: "MC", type: "VIRTUAL", lastFour: "6606",
                index: 6),
            card(
                S.lockedCardID, customer: eu, status: "LOCKED", scheme: "VISA", type: "VIRTUAL", lastFour: "7707",
                statusReason: "Locked by the customer", index: 7),
            card(
                S.suspendedCardID, customer: eu, status: "SUSPENDED", scheme: "MC", type: "PHYSICAL", lastFour: "8808",
                statusReason: "Wrong activation data", index: 8),
            card(
                S.cancelledCardID, customer: eu, status: "CANCELLED", scheme: "VISA", type: "VIRTUAL", lastFour: "9909",
                statusReason: "Cancelled by the customer", index: 9),
            card(
                S.expiredCardID, customer: eu, status: "EXPIRED", scheme: "MC", type: "VIRTUAL", lastFour: "1010",
                index: 10),
            card(
                S.rejectedCardID, customer: eu, status: "REJECTED", scheme: "VISA", type: "PHYSICAL", lastFour: "1111",
                statusReason: "Validation failed", index: 11),
            card(
                S.tokenizedCardID, customer: eu, status: "ACTIVE", scheme: "MC", type: "VIRTUAL", lastFour: "1212",
                tokenizations: [
                    PaysafeSimulatorTokenization(
                        dpanRef: S.tokenizedDPANRef, walletId: nil, walletType: "APPLE_PAY", status: "COMPLETED",
                        created: epoch)
                ],
                index: 12
            ),
            card(
                S.usActiveCardID, customer: S.usCustomer, status: "ACTIVE", scheme: "VISA", type: "VIRTUAL",
                lastFour: "2201", currency: "USD", index: 13),
            card(
                S.usIssuedCardID, customer: S.usCustomer, status: "ISSUED", scheme: "VISA", type: "PHYSICAL",
                lastFour: S.usIssuedCardLastFour, cvv: S.usIssuedCardCVV, currency: "USD", index: 14),
            card(
                S.scaActiveCardID, customer: S.scaCustomer, status: "ACTIVE", scheme: "MC", type: "VIRTUAL",
                lastFour: "3301", index: 15),
            card(
                S.scaLockedCardID, customer: S.scaCustomer, status: "LOCKED", scheme: "VISA", type: "VIRTUAL",
                lastFour: "3302", index: 16),
        ]
    }
}
