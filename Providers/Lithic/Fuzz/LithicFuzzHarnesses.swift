import CardGateway
import CardGatewayFuzzSupport
import CardGatewayLithic
import Foundation
import HTTPTypes

// The Lithic room's fuzz harnesses (docs/RELIABILITY.md, "Fuzzing"): `lithic-responses` and `lithic-webhooks`.

extension FuzzSeeds {
    /// Providers/Lithic/Simulator/LithicSimulatorSeed.swift.
    enum Lithic {
        static let apiKey = "sim-lithic-api-key-00000000000000000001"
        /// `whsec_` and Base64 of 32 bytes 0x5A.
        static let webhookSecret = "whsec_" + Data(repeating: 0x5A, count: 32).base64EncodedString()
        static let account = "a0000000-0000-4000-8000-000000000001"
        static let emptyAccount = "a0000000-0000-4000-8000-000000000002"
        static let cardProgram = "b0000000-0000-4000-8000-000000000001"
        static let activeCard = "c0000000-0000-4000-8000-000000000001"
        static let lockableCard = "c0000000-0000-4000-8000-000000000002"
        static let cancellableCard = "c0000000-0000-4000-8000-000000000003"
        static let pausedCard = "c0000000-0000-4000-8000-000000000004"
        static let walletCard = "c0000000-0000-4000-8000-000000000007"
        static let activeToken = "70000000-0000-4000-8000-000000000001"
        static let googleDeviceID = "sim-google-device-0001"
        static let googleWalletAccountID = "sim-google-wallet-account-0001"
        static let samsungDeviceID = "sim-samsung-device-01"
        static let samsungWalletUserID = "sim-samsung-wallet-user-0001"
    }
}

extension FuzzFixed {
    static func lithicCard(_ token: String, state: String) -> FixedAnswer {
        FixedAnswer(
            .get, "/v1/cards/\(token)",
            #"{"token":"\#(token)","account_token":"a0000000-0000-4000-8000-000000000001","card_program_token":"b0000000-0000-4000-8000-000000000001","cardholder_currency":"USD","created":"2025-01-01T00:01:00Z","exp_month":"12","exp_year":"2029","funding":null,"hostname":"","last_four":"1002","memo":"","pin_status":"NOT_SET","spend_limit":0,"spend_limit_duration":"TRANSACTION","state":"\#(state)","type":"VIRTUAL","replacement_for":null,"pending_commands":[]}"#
        )
    }

    static func lithicTokens(card: String, token: String, status: String) -> FixedAnswer {
        FixedAnswer(
            .get, "/v1/tokenizations",
            #"{"data":[{"token":"\#(token)","card_token":"\#(card)","account_token":"a0000000-0000-4000-8000-000000000001","status":"\#(status)","token_requestor_name":"APPLE_PAY","token_unique_reference":"DM4MMC0000FUZZ0001","tokenization_channel":"DIGITAL_WALLET","dpan":null,"device_id":"0000fuzz","created_at":"2025-01-01T00:01:00.000000Z","updated_at":"2025-01-01T00:01:00.000000Z","events":[]}],"has_more":false}"#
        )
    }
}

extension ResponseHarness {
    /// Lithic: every operation of the adapter, with the simulator's seed values. The transitions read first (the
    /// card, the card's tokenizations); those reads get a valid fixed answer in a state the transition starts from.
    public static let lithic = ResponseHarness(
        name: "lithic", factory: .lithic,
        credentials: [
            "apiKey": Secret(FuzzSeeds.Lithic.apiKey), "webhookSecret": Secret(FuzzSeeds.Lithic.webhookSecret),
        ],
        operations: [
            .on("card", LithicProvider.self) {
                _ = try await $0.card(CardRef(id: FuzzSeeds.Lithic.activeCard), context: $1)
            },
            .on("listCards", LithicProvider.self) {
                _ = try await $0.listCards(CardQuery(customer: FuzzSeeds.Lithic.account, limit: 3), context: $1)
            },
            .on("createCard", LithicProvider.self) {
                _ = try await $0.createCard(
                    CreateCardRequest(
                        customer: FuzzSeeds.Lithic.emptyAccount, type: .virtual, program: FuzzSeeds.Lithic.cardProgram,
                        currency: "USD"), context: $1)
            },
            .on(
                "lock", LithicProvider.self, fixed: [FuzzFixed.lithicCard(FuzzSeeds.Lithic.lockableCard, state: "OPEN")]
            ) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(
                        card: CardRef(id: FuzzSeeds.Lithic.lockableCard), intent: .lock, reason: .suspectedFraud),
                    context: $1)
            },
            .on(
                "unlock", LithicProvider.self,
                fixed: [FuzzFixed.lithicCard(FuzzSeeds.Lithic.pausedCard, state: "PAUSED")]
            ) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(card: CardRef(id: FuzzSeeds.Lithic.pausedCard), intent: .unlock), context: $1)
            },
            .on(
                "cancel", LithicProvider.self,
                fixed: [FuzzFixed.lithicCard(FuzzSeeds.Lithic.cancellableCard, state: "OPEN")]
            ) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(
                        card: CardRef(id: FuzzSeeds.Lithic.cancellableCard), intent: .cancel, reason: .lost,
                        comment: "fuzz"), context: $1)
            },
            .on("walletTokens", LithicProvider.self) {
                _ = try await $0.walletTokens(of: CardRef(id: FuzzSeeds.Lithic.walletCard), context: $1)
            },
            .on(
                "changeWalletToken", LithicProvider.self,
                fixed: [
                    FuzzFixed.lithicTokens(
                        card: FuzzSeeds.Lithic.walletCard, token: FuzzSeeds.Lithic.activeToken, status: "ACTIVE")
                ]
            ) {
                _ = try await $0.changeWalletToken(
                    WalletTokenRequest(
                        card: CardRef(id: FuzzSeeds.Lithic.walletCard), token: FuzzSeeds.Lithic.activeToken,
                        intent: .suspend, reason: .suspectedFraud), context: $1)
            },
            .on("provisionApplePay", LithicProvider.self) {
                _ = try await $0.provision(
                    ProvisioningRequest(
                        card: CardRef(id: FuzzSeeds.Lithic.activeCard), wallet: .applePay, input: FuzzSeeds.applePay),
                    context: $1)
            },
            .on("provisionGooglePay", LithicProvider.self) {
                let input = ProvisioningInput.googlePay(
                    GooglePayProvisioningInput(
                        clientDeviceID: FuzzSeeds.Lithic.googleDeviceID,
                        clientWalletAccountID: FuzzSeeds.Lithic.googleWalletAccountID))
                _ = try await $0.provision(
                    ProvisioningRequest(
                        card: CardRef(id: FuzzSeeds.Lithic.activeCard), wallet: .googlePay, input: input),
                    context: $1)
            },
            .on("provisionSamsungPay", LithicProvider.self) {
                let input = ProvisioningInput.samsungPay(
                    SamsungPayProvisioningInput(
                        deviceID: FuzzSeeds.Lithic.samsungDeviceID, walletUserID: FuzzSeeds.Lithic.samsungWalletUserID))
                _ = try await $0.provision(
                    ProvisioningRequest(
                        card: CardRef(id: FuzzSeeds.Lithic.activeCard), wallet: .samsungPay, input: input), context: $1)
            },
        ]
    )
}

extension WebhookHarness {
    /// Standard Webhooks: `webhook-signature: v1,<Base64 HMAC-SHA256("{webhook-id}.{webhook-timestamp}.{body}")>`
    /// keyed with the Base64-decoded part of the `whsec_…` secret. Every delivery carries a fixed `webhook-id` and
    /// `webhook-timestamp` (``FuzzClock/now``), so the signature check and the parser behind it are what the input
    /// reaches.
    public static let lithic = WebhookHarness(
        name: "lithic", headerName: "webhook-signature",
        fixedHeaders: HTTPFields([
            HTTPField(name: HTTPField.Name("webhook-id")!, value: lithicWebhookID),
            HTTPField(
                name: HTTPField.Name("webhook-timestamp")!, value: String(Int64(FuzzClock.now.timeIntervalSince1970))),
        ]),
        sign: { body in
            let key = Data(base64Encoded: String(FuzzSeeds.Lithic.webhookSecret.dropFirst("whsec_".count))) ?? Data()
            let message =
                Data("\(lithicWebhookID).\(Int64(FuzzClock.now.timeIntervalSince1970)).".utf8) + body
            return "v1," + hmacSHA256(key: key, message: message).base64EncodedString()
        },
        makeVerifier: { try webhookVerifier(.lithic) }
    )
    /// The `webhook-id` of every Lithic delivery.
    static let lithicWebhookID = "msg_fuzz0000000000000000000001"
}

extension FuzzTarget {
    /// `lithic-responses` and `lithic-webhooks`.
    package static let lithic: [FuzzTarget] = [.responses(.lithic), .webhooks(.lithic)]
}
