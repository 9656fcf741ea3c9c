@_spi(AdapterSupport) import CardGateway
import CardGatewayFuzzSupport
import CardGatewayMarqeta
import Foundation
import HTTPTypes

// The Marqeta room's fuzz harnesses (docs/RELIABILITY.md, "Fuzzing"): `marqeta-responses` and `marqeta-webhooks`.

extension FuzzSeeds {
    /// Providers/Marqeta/Simulator/MarqetaSimulatorSeed.swift.
    enum Marqeta {
        static let applicationToken = "sim-marqeta-application-token-0001"
        static let accessToken = "sim-marqeta-admin-access-token-0000001"
        static let webhookUsername = "cardgateway-webhook-user"
        static let webhookPassword = "Sim-Webhook-Passw0rd!-0001"
        static let webhookSecret = "sim-marqeta-webhook-secret-0001"
        static let user = "user_sim_0001"
        static let emptyUser = "user_sim_empty_0002"
        static let virtualProduct = "cp_sim_virtual_0001"
        static let activeCard = "card_sim_active_0001"
        static let lockableCard = "card_sim_lockable_0002"
        static let cancellableCard = "card_sim_cancellable_0003"
        static let suspendedCard = "card_sim_suspended_0004"
        static let walletCard = "card_sim_wallet_0007"
        static let activeToken = "dwt_sim_active_apple_0001"
        static let appVersion = "cardgateway-fuzz 1.0"
        static let googleDeviceID = "sim-google-device-0001"
        static let googleWalletAccountID = "sim-google-wallet-account-0001"
        static let samsungDeviceID = "sim-samsung-device-01"
        static let samsungWalletUserID = "sim-samsung-wallet-user-0001"
    }
}

extension FuzzFixed {
    static func marqetaCard(_ token: String, state: String) -> FixedAnswer {
        FixedAnswer(
            .get, "/cards/\(token)",
            #"{"token":"\#(token)","user_token":"user_sim_0001","card_product_token":"cp_sim_virtual_0001","last_four":"1881","expiration":"1229","state":"\#(state)","instrument_type":"VIRTUAL_PAN","created_time":"2025-01-01T00:02:00Z"}"#
        )
    }

    static func marqetaTokens(card: String, token: String, state: String) -> FixedAnswer {
        FixedAnswer(
            .get, "/digitalwallettokens/card/\(card)",
            #"{"count":1,"start_index":0,"end_index":0,"is_more":false,"data":[{"token":"\#(token)","card_token":"\#(card)","state":"\#(state)","created_time":"2025-01-01T00:01:00Z","token_service_provider":{"token_requestor_name":"APPLE_PAY","token_reference_id":"DAPLMC0000FUZZ0001"}}]}"#
        )
    }
}

extension ResponseHarness {
    /// Marqeta: every operation of the adapter, with the simulator's seed values. The transitions read first (the
    /// card, the card's token list); those reads get a valid fixed answer in a state the transition starts from.
    public static let marqeta = ResponseHarness(
        name: "marqeta", factory: .marqeta,
        credentials: [
            "applicationToken": Secret(FuzzSeeds.Marqeta.applicationToken),
            "accessToken": Secret(FuzzSeeds.Marqeta.accessToken),
            "webhookUsername": Secret(FuzzSeeds.Marqeta.webhookUsername),
            "webhookPassword": Secret(FuzzSeeds.Marqeta.webhookPassword),
            "webhookSecret": Secret(FuzzSeeds.Marqeta.webhookSecret),
        ],
        options: ["provisioningAppVersion": .string(FuzzSeeds.Marqeta.appVersion)],
        operations: [
            .on("card", MarqetaProvider.self) {
                _ = try await $0.card(CardRef(id: FuzzSeeds.Marqeta.activeCard), context: $1)
            },
            .on("listCards", MarqetaProvider.self) {
                _ = try await $0.listCards(CardQuery(customer: FuzzSeeds.Marqeta.user, limit: 3), context: $1)
            },
            .on("createCard", MarqetaProvider.self) {
                _ = try await $0.createCard(
                    CreateCardRequest(
                        customer: FuzzSeeds.Marqeta.emptyUser, type: .virtual,
                        program: FuzzSeeds.Marqeta.virtualProduct, currency: "USD"), context: $1)
            },
            .on(
                "lock", MarqetaProvider.self,
                fixed: [FuzzFixed.marqetaCard(FuzzSeeds.Marqeta.lockableCard, state: "ACTIVE")]
            ) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(
                        card: CardRef(id: FuzzSeeds.Marqeta.lockableCard), intent: .lock, reason: .suspectedFraud),
                    context: $1)
            },
            .on(
                "unlock", MarqetaProvider.self,
                fixed: [FuzzFixed.marqetaCard(FuzzSeeds.Marqeta.suspendedCard, state: "SUSPENDED")]
            ) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(card: CardRef(id: FuzzSeeds.Marqeta.suspendedCard), intent: .unlock), context: $1)
            },
            .on(
                "cancel", MarqetaProvider.self,
                fixed: [FuzzFixed.marqetaCard(FuzzSeeds.Marqeta.cancellableCard, state: "ACTIVE")]
            ) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(
                        card: CardRef(id: FuzzSeeds.Marqeta.cancellableCard), intent: .cancel, reason: .lost,
                        comment: "fuzz"), context: $1
                )
            },
            .on("walletTokens", MarqetaProvider.self) {
                _ = try await $0.walletTokens(of: CardRef(id: FuzzSeeds.Marqeta.walletCard), context: $1)
            },
            .on(
                "changeWalletToken", MarqetaProvider.self,
                fixed: [
                    FuzzFixed.marqetaTokens(
                        card: FuzzSeeds.Marqeta.walletCard, token: FuzzSeeds.Marqeta.activeToken, state: "ACTIVE")
                ]
            ) {
                _ = try await $0.changeWalletToken(
                    WalletTokenRequest(
                        card: CardRef(id: FuzzSeeds.Marqeta.walletCard), token: FuzzSeeds.Marqeta.activeToken,
                        intent: .suspend, reason: .suspectedFraud), context: $1
                )
            },
            .on("offer", MarqetaProvider.self) {
                _ = try await $0.offer(for: CardRef(id: FuzzSeeds.Marqeta.activeCard), wallet: .applePay, context: $1)
            },
            .on("provisionApplePay", MarqetaProvider.self) {
                _ = try await $0.provision(
                    ProvisioningRequest(
                        card: CardRef(id: FuzzSeeds.Marqeta.activeCard), wallet: .applePay, input: FuzzSeeds.applePay),
                    context: $1)
            },
            .on("provisionGooglePay", MarqetaProvider.self) {
                let input = ProvisioningInput.googlePay(
                    GooglePayProvisioningInput(
                        clientDeviceID: FuzzSeeds.Marqeta.googleDeviceID,
                        clientWalletAccountID: FuzzSeeds.Marqeta.googleWalletAccountID)
                )
                _ = try await $0.provision(
                    ProvisioningRequest(
                        card: CardRef(id: FuzzSeeds.Marqeta.activeCard), wallet: .googlePay, input: input), context: $1)
            },
            .on("provisionSamsungPay", MarqetaProvider.self) {
                let input = ProvisioningInput.samsungPay(
                    SamsungPayProvisioningInput(
                        deviceID: FuzzSeeds.Marqeta.samsungDeviceID, walletUserID: FuzzSeeds.Marqeta.samsungWalletUserID
                    )
                )
                _ = try await $0.provision(
                    ProvisioningRequest(
                        card: CardRef(id: FuzzSeeds.Marqeta.activeCard), wallet: .samsungPay, input: input), context: $1
                )
            },
        ]
    )
}

extension WebhookHarness {
    /// `X-Marqeta-Signature: hex(HMAC-SHA256(body, secret))`. The verifier is configured as a production one would
    /// be, with the webhook's secret and its HTTP Basic pair; every delivery carries the right `Authorization`, so
    /// the signature check and the parser behind it are what the input reaches. (The Basic check is a constant-time
    /// comparison of a fixed string; a wrong pair is refused before the signature is looked at.)
    public static let marqeta = WebhookHarness(
        name: "marqeta", headerName: "X-Marqeta-Signature",
        fixedHeaders: HTTPFields([
            HTTPField(
                name: .authorization,
                value: HeaderAuthentication.basicValue(
                    username: FuzzSeeds.Marqeta.webhookUsername, password: FuzzSeeds.Marqeta.webhookPassword)
            )
        ]),
        sign: { body in ByteEncoding.hex(hmacSHA256(key: Data(FuzzSeeds.Marqeta.webhookSecret.utf8), message: body)) },
        makeVerifier: { try webhookVerifier(.marqeta) }
    )
}

extension FuzzTarget {
    /// `marqeta-responses` and `marqeta-webhooks`.
    package static let marqeta: [FuzzTarget] = [.responses(.marqeta), .webhooks(.marqeta)]
}
