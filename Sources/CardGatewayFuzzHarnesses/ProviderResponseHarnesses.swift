import CardGateway
import CardGatewayAdyen
import CardGatewayBridge
import CardGatewayLithic
import CardGatewayMarqeta
import CardGatewayPaysafe
import CardGatewayStripe
import CardGatewayTrustPayments
import Foundation

/// The ids, credentials and inputs the response harnesses use. They are the simulators' published seed values
/// (test values, not secrets of anyone's), so that the same operations recorded against the simulators give
/// the seed corpus real answers.
enum FuzzSeeds {
    enum Stripe {
        static let secretKey = "sk_test_CardGatewaySimulator000000000000"
        static let webhookSecret = "whsec_CardGatewaySimulatorSigningSecret00"
        static let activeCard = "ic_1SimActiveEligible000000"
        static let inactiveCard = "ic_1SimInactive00000000000"
        static let activeToken = "intok_1SimApplePayActive000"
        static let cardholder = "ich_1SimJennyRosen000000000"
        static let lockableCard = "ic_1SimActiveNoPAI000000000"
        static let cancellableCard = "ic_1SimMissingAgreement000"
        static let deletableToken = "intok_1SimSamsungPayActive0"
    }

    enum Adyen {
        static let apiKey = "AQE1simulator-adyen-api-key-with-every-role-0001"
        static let hmacKeyHex = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
        static let activeVisa = "PI32272223222C5GXTDWH3TTN"
        static let activeToken = "NWTK00000000000000000000000001"
        static let balanceAccount = "BA32272223222B59CZ3T52DKZ"
        static let lockableVisa = "PI32272223222C5LCKV5PL7QA"
        static let suspendedVisa = "PI32272223222B5F6VHBRH6WS"
        static let cancellableMastercard = "PI32272223222C5CNCM8RT2QB"
        static let walletVisa = "PI32272223222C5WLTV3KX9QC"
        static let walletActiveToken = "NWTK00000000000000000000000007"
    }

    enum Paysafe {
        static let clientID = "sim-client-id"
        static let clientSecret = "sim-client-secret"
        static let brand = "simbrand"
        /// The simulator's default: 256 bytes in Base64, as Paysafe issues its HMAC secrets.
        static let webhookSecret =
            "splldXZP3uLK5eavTh3uL2XezNFHOaDwDmGN5v1CMb7acawR+1mXouemwN/RN58vAuCgH0kocXeKji6byWxV80WuoctoWDVoDbMlWPKT+qfqDrP9lzhlwN3xcYbVwchBScxg53LIkhSWlsp11Faw06Pj/M09xGMj9mVp76Dwwyqj+hysEVePWgf5GW2sbw9M179yRlEuguG4gT68trKCwlZZjFtCP5daJihcH5E1AMHYXHjK0BBsWos1eOhj9MRV5xxNOqMr9D9BhzG+incBQ5E4iHBzaPLzIr7DkzGXSd09LyCNB265KhBe351TnqcmkSn204+Tu8POO+koO72Yzg=="
        static let customer = "cust-eu-1001"
        static let activeCard = "11111111-0000-4000-8000-000000000001"
        static let issuedCard = "11111111-0000-4000-8000-000000000003"
        static let program = "SKRILL-VIRTUAL-MC-EEA"
        static let activeVisaCard = "11111111-0000-4000-8000-000000000002"
        static let digitalCard = "11111111-0000-4000-8000-000000000004"
        static let lockedCard = "11111111-0000-4000-8000-000000000007"
        static let tokenizedCard = "11111111-0000-4000-8000-000000000012"
    }

    enum Bridge {
        static let apiKey = "sk-test-bridge-simulator-7c1e"
        static let customer = "c0ffee0000004000800000000000a1a1"
        static let customerWithoutCard = "c0ffee0000004000800000000000c3c3"
        static let activeVisa = "ca0000000000400080000000000000a1"
        static let activeMastercard = "ca0000000000400080000000000000a2"
        static let frozenByDeveloper = "ca0000000000400080000000000000a6"
    }

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

    enum TrustPayments {
        static let webservicesUsername = "ws@cardgateway.test"
        static let webservicesPassword = "ws-sandbox-password"
        static let jwtUsername = "jwt@cardgateway.test"
        static let jwtSecret = "jwt-sandbox-secret-0123456789"
        static let siteReference = "test_cardgateway12345"
        static let storedVisaAuth = "1-9-1000002"
    }

    /// Apple Pay input of plausible shape: two DER-looking certificates, a nonce and its signature.
    static let applePay = ProvisioningInput.applePay(
        ApplePayProvisioningInput(
            certificates: [
                Data([0x30, 0x82, 0x01, 0x0a] + Array(repeating: 0x41, count: 64)),
                Data([0x30, 0x82, 0x01, 0x0a] + Array(repeating: 0x42, count: 64)),
            ],
            nonce: Data([0x5a, 0x1c, 0x0e, 0x77]), nonceSignature: Data(repeating: 0x90, count: 64)
        )
    )
    static let googlePay = ProvisioningInput.googlePay(
        GooglePayProvisioningInput(clientDeviceID: "sim-device-1", clientWalletAccountID: "sim-wallet-account-1"))
}

/// Valid answers to the reads an operation makes before its write (``FixedAnswer``), in the shape of the
/// simulators' answers (the corpus's `card-200` and `token-200` files).
enum FuzzFixed {
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

    static func adyenInstrument(_ id: String, status: String) -> FixedAnswer {
        FixedAnswer(
            .get, "/paymentInstruments/\(id)",
            #"{"balanceAccountId":"BA32272223222B59CZ3T52DKZ","card":{"bin":"491761","brand":"visa","brandVariant":"visadebit","cardholderName":"Sam Hopper","expiration":{"month":"03","year":"2030"},"formFactor":"virtual","lastFour":"4321"},"id":"\#(id)","issuingCountryCode":"NL","status":"\#(status)","type":"card"}"#
        )
    }

    static func adyenNetworkToken(_ id: String, instrument: String) -> FixedAnswer {
        FixedAnswer(
            .get, "/networkTokens/\(id)",
            #"{"token":{"brandVariant":"visadebit","creationDate":"2025-01-01T11:00:00+01:00","device":{"formFactor":"mobile_phone","osName":"ios"},"id":"\#(id)","paymentInstrumentId":"\#(instrument)","status":"active","tokenLastFour":"0007","tokenRequestor":{"id":"40010030273","name":"Apple Pay"},"type":"wallet"}}"#
        )
    }

    static func stripeToken(_ id: String, card: String) -> FixedAnswer {
        FixedAnswer(
            .get, "/v1/issuing/tokens/\(id)",
            #"{"id":"\#(id)","object":"issuing.token","card":"\#(card)","created":1700001000,"last4":"8801","livemode":false,"network":"visa","status":"active","wallet_provider":"samsung_pay"}"#
        )
    }

    static func bridgeAccount(_ id: String, status: String, freezes: String = "[]") -> FixedAnswer {
        FixedAnswer(
            .get, "/card_accounts/\(id)",
            #"{"card_details":{"bin":"44325280","expiry":"10/29","last_4":"1269"},"cardholder_name":{"first_name":"Ada","last_name":"Lovelace"},"customer_id":"c0ffee0000004000800000000000a1a1","freezes":\#(freezes),"id":"\#(id)","status":"\#(status)"}"#
        )
    }

    static func paysafeCard(_ id: String, status: String) -> FixedAnswer {
        FixedAnswer(
            .get, "/cards/\(id)",
            #"{"accountId":"127623001","bin":"533944","cardId":"\#(id)","cardType":"VIRTUAL","createdDate":"2023-11-15T22:13:20Z","currency":"EUR","customerId":"cust-eu-1001","expiry":{"month":4,"year":2029},"isPinSet":false,"lastFour":"4242","programName":"SKRILL-VIRTUAL-MC-EEA","scheme":"VISA","status":"\#(status)","tokenizations":{"mobileWallets":[]}}"#
        )
    }
}

extension ResponseHarness {
    public static let stripe = ResponseHarness(
        name: "stripe", factory: .stripe,
        credentials: [
            "secretKey": Secret(FuzzSeeds.Stripe.secretKey), "webhookSecret": Secret(FuzzSeeds.Stripe.webhookSecret),
        ],
        operations: [
            .on("card", StripeProvider.self) {
                _ = try await $0.card(CardRef(id: FuzzSeeds.Stripe.activeCard), context: $1)
            },
            .on("offer", StripeProvider.self) {
                _ = try await $0.offer(for: CardRef(id: FuzzSeeds.Stripe.activeCard), wallet: .applePay, context: $1)
            },
            .on("provision", StripeProvider.self) {
                _ = try await $0.provision(
                    ProvisioningRequest(
                        card: CardRef(id: FuzzSeeds.Stripe.activeCard), wallet: .applePay,
                        input: .issuerSDKKey(apiVersion: "2020-08-27")), context: $1
                )
            },
            .on("listCards", StripeProvider.self) { _ = try await $0.listCards(context: $1) },
            .on("updateCardStatus", StripeProvider.self) {
                _ = try await $0.updateCardStatus(
                    card: CardRef(id: FuzzSeeds.Stripe.inactiveCard), status: .active, context: $1)
            },
            .on("listTokens", StripeProvider.self) {
                _ = try await $0.listTokens(card: CardRef(id: FuzzSeeds.Stripe.activeCard), context: $1)
            },
            .on("token", StripeProvider.self) { _ = try await $0.token(id: FuzzSeeds.Stripe.activeToken, context: $1) },
            .on("updateToken", StripeProvider.self) {
                _ = try await $0.updateToken(id: FuzzSeeds.Stripe.activeToken, status: .suspended, context: $1)
            },
            .on("revokeEphemeralKey", StripeProvider.self) {
                try await $0.revokeEphemeralKey(id: "ephkey_1SimFuzz", context: $1)
            },
            // The normalised lifecycle (CardListing, CardIssuance, CardStatusControl, WalletTokenListing, WalletTokenControl).
            .on("listCardsPage", StripeProvider.self) {
                _ = try await $0.listCards(CardQuery(customer: FuzzSeeds.Stripe.cardholder, limit: 2), context: $1)
            },
            .on("createCard", StripeProvider.self) {
                _ = try await $0.createCard(
                    CreateCardRequest(
                        customer: FuzzSeeds.Stripe.cardholder, type: .virtual, program: "", currency: "USD"),
                    context: $1)
            },
            .on("lock", StripeProvider.self) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(
                        card: CardRef(id: FuzzSeeds.Stripe.lockableCard), intent: .lock, reason: .suspectedFraud),
                    context: $1)
            },
            .on("unlock", StripeProvider.self) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(card: CardRef(id: FuzzSeeds.Stripe.lockableCard), intent: .unlock), context: $1)
            },
            .on("cancel", StripeProvider.self) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(
                        card: CardRef(id: FuzzSeeds.Stripe.cancellableCard), intent: .cancel, reason: .lost),
                    context: $1)
            },
            .on("walletTokens", StripeProvider.self) {
                _ = try await $0.walletTokens(of: CardRef(id: FuzzSeeds.Stripe.activeCard), context: $1)
            },
            .on(
                "changeWalletToken", StripeProvider.self,
                fixed: [FuzzFixed.stripeToken(FuzzSeeds.Stripe.deletableToken, card: FuzzSeeds.Stripe.activeCard)]
            ) {
                _ = try await $0.changeWalletToken(
                    WalletTokenRequest(
                        card: CardRef(id: FuzzSeeds.Stripe.activeCard), token: FuzzSeeds.Stripe.deletableToken,
                        intent: .delete), context: $1)
            },
        ]
    )

    public static let adyen = ResponseHarness(
        name: "adyen", factory: .adyen,
        credentials: ["apiKey": Secret(FuzzSeeds.Adyen.apiKey), "hmacKey": Secret(FuzzSeeds.Adyen.hmacKeyHex)],
        operations: [
            .on("card", AdyenProvider.self) {
                _ = try await $0.card(CardRef(id: FuzzSeeds.Adyen.activeVisa), context: $1)
            },
            .on("networkTokens", AdyenProvider.self) {
                _ = try await $0.networkTokens(for: CardRef(id: FuzzSeeds.Adyen.activeVisa), context: $1)
            },
            .on("networkToken", AdyenProvider.self) {
                _ = try await $0.networkToken(id: FuzzSeeds.Adyen.activeToken, context: $1)
            },
            .on("updateNetworkToken", AdyenProvider.self) {
                try await $0.updateNetworkToken(id: FuzzSeeds.Adyen.activeToken, status: .suspended, context: $1)
            },
            .on("offer", AdyenProvider.self) {
                _ = try await $0.offer(for: CardRef(id: FuzzSeeds.Adyen.activeVisa), wallet: .googlePay, context: $1)
            },
            .on("provisionStart", AdyenProvider.self) {
                _ = try await $0.provision(
                    ProvisioningRequest(
                        card: CardRef(id: FuzzSeeds.Adyen.activeVisa), wallet: .applePay, input: .issuerSDK(output: nil)
                    ), context: $1)
            },
            .on("provisionRelay", AdyenProvider.self) {
                _ = try await $0.provision(
                    ProvisioningRequest(
                        card: CardRef(id: FuzzSeeds.Adyen.activeVisa), wallet: .applePay,
                        input: .issuerSDK(output: SensitiveData(Data("sdk-output".utf8)))),
                    context: $1
                )
            },
            // The normalised lifecycle (CardListing, CardIssuance, CardStatusControl, WalletTokenListing, WalletTokenControl).
            .on("listCards", AdyenProvider.self) {
                _ = try await $0.listCards(CardQuery(customer: FuzzSeeds.Adyen.balanceAccount, limit: 2), context: $1)
            },
            .on("createCard", AdyenProvider.self) {
                _ = try await $0.createCard(
                    CreateCardRequest(
                        customer: FuzzSeeds.Adyen.balanceAccount, type: .virtual, program: "visadebit", currency: "EUR",
                        cardholderName: "Fuzz Cardholder", issuingCountryCode: "NL"
                    ),
                    context: $1
                )
            },
            .on(
                "lock", AdyenProvider.self,
                fixed: [FuzzFixed.adyenInstrument(FuzzSeeds.Adyen.lockableVisa, status: "active")]
            ) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(
                        card: CardRef(id: FuzzSeeds.Adyen.lockableVisa), intent: .lock, reason: .suspectedFraud),
                    context: $1)
            },
            .on(
                "unlock", AdyenProvider.self,
                fixed: [FuzzFixed.adyenInstrument(FuzzSeeds.Adyen.suspendedVisa, status: "suspended")]
            ) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(card: CardRef(id: FuzzSeeds.Adyen.suspendedVisa), intent: .unlock), context: $1)
            },
            .on(
                "cancel", AdyenProvider.self,
                fixed: [FuzzFixed.adyenInstrument(FuzzSeeds.Adyen.cancellableMastercard, status: "active")]
            ) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(
                        card: CardRef(id: FuzzSeeds.Adyen.cancellableMastercard), intent: .cancel, reason: .stolen),
                    context: $1)
            },
            .on("walletTokens", AdyenProvider.self) {
                _ = try await $0.walletTokens(of: CardRef(id: FuzzSeeds.Adyen.walletVisa), context: $1)
            },
            .on(
                "changeWalletToken", AdyenProvider.self,
                fixed: [
                    FuzzFixed.adyenNetworkToken(
                        FuzzSeeds.Adyen.walletActiveToken, instrument: FuzzSeeds.Adyen.walletVisa)
                ]
            ) {
                _ = try await $0.changeWalletToken(
                    WalletTokenRequest(
                        card: CardRef(id: FuzzSeeds.Adyen.walletVisa), token: FuzzSeeds.Adyen.walletActiveToken,
                        intent: .suspend), context: $1
                )
            },
        ]
    )

    public static let paysafe = ResponseHarness(
        name: "paysafe", factory: .paysafe,
        credentials: [
            "clientID": Secret(FuzzSeeds.Paysafe.clientID), "clientSecret": Secret(FuzzSeeds.Paysafe.clientSecret),
            "webhookSecret": Secret(FuzzSeeds.Paysafe.webhookSecret),
        ],
        options: ["brand": .string(FuzzSeeds.Paysafe.brand), "region": .string("ROW")],
        operations: [
            .on("card", PaysafeProvider.self) {
                _ = try await $0.card(
                    CardRef(id: FuzzSeeds.Paysafe.activeCard, customer: FuzzSeeds.Paysafe.customer), context: $1)
            },
            .on("listCards", PaysafeProvider.self) {
                _ = try await $0.listCards(
                    CardQuery(
                        customer: FuzzSeeds.Paysafe.customer, limit: 5, includeWalletTokens: true,
                        includeAvailableActions: true), context: $1)
            },
            .on("createCard", PaysafeProvider.self) {
                _ = try await $0.createCard(
                    CreateCardRequest(
                        customer: FuzzSeeds.Paysafe.customer, type: .virtual, program: FuzzSeeds.Paysafe.program,
                        currency: "EUR"), context: $1)
            },
            .on("activateCard", PaysafeProvider.self) {
                _ = try await $0.activateCard(
                    ActivateCardRequest(
                        card: CardRef(id: FuzzSeeds.Paysafe.issuedCard, customer: FuzzSeeds.Paysafe.customer),
                        lastFour: "4403", cvv: Secret("123")), context: $1
                )
            },
            .on("programs", PaysafeProvider.self) {
                _ = try await $0.programs(customer: FuzzSeeds.Paysafe.customer, context: $1)
            },
            .on("offer", PaysafeProvider.self) {
                _ = try await $0.offer(
                    for: CardRef(id: FuzzSeeds.Paysafe.activeCard, customer: FuzzSeeds.Paysafe.customer),
                    wallet: .applePay, context: $1)
            },
            .on("provisionApplePay", PaysafeProvider.self) {
                _ = try await $0.provision(
                    ProvisioningRequest(
                        card: CardRef(id: FuzzSeeds.Paysafe.activeCard, customer: FuzzSeeds.Paysafe.customer),
                        wallet: .applePay, input: FuzzSeeds.applePay), context: $1
                )
            },
            .on("provisionGooglePay", PaysafeProvider.self) {
                _ = try await $0.provision(
                    ProvisioningRequest(
                        card: CardRef(id: FuzzSeeds.Paysafe.activeCard, customer: FuzzSeeds.Paysafe.customer),
                        wallet: .googlePay, input: FuzzSeeds.googlePay), context: $1
                )
            },
            .on("confirm", PaysafeProvider.self) {
                try await $0.confirm(
                    ProvisioningConfirmation(
                        card: CardRef(id: FuzzSeeds.Paysafe.activeCard, customer: FuzzSeeds.Paysafe.customer),
                        wallet: .applePay, deviceAccountReference: "DAR-fuzz-1"),
                    context: $1
                )
            },
            .on("secureDetails", PaysafeProvider.self) {
                _ = try await $0.secureDetailsAccess(
                    for: CardRef(id: FuzzSeeds.Paysafe.activeCard, customer: FuzzSeeds.Paysafe.customer), context: $1)
            },
            .on("scaAttempt", PaysafeProvider.self) {
                _ = try await $0.submitSCAAttempt(
                    eventID: "evt-fuzz-1", walletOperationID: "op-fuzz-1", method: "OTP", channel: "SMS", context: $1)
            },
            // The normalised lifecycle (CardStatusControl, WalletTokenListing): the card is read, then updated.
            .on("walletTokens", PaysafeProvider.self) {
                _ = try await $0.walletTokens(
                    of: CardRef(id: FuzzSeeds.Paysafe.tokenizedCard, customer: FuzzSeeds.Paysafe.customer), context: $1)
            },
            .on(
                "lock", PaysafeProvider.self,
                fixed: [FuzzFixed.paysafeCard(FuzzSeeds.Paysafe.activeVisaCard, status: "ACTIVE")]
            ) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(
                        card: CardRef(id: FuzzSeeds.Paysafe.activeVisaCard, customer: FuzzSeeds.Paysafe.customer),
                        intent: .lock, reason: .suspectedFraud), context: $1
                )
            },
            .on(
                "unlock", PaysafeProvider.self,
                fixed: [FuzzFixed.paysafeCard(FuzzSeeds.Paysafe.lockedCard, status: "LOCKED")]
            ) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(
                        card: CardRef(id: FuzzSeeds.Paysafe.lockedCard, customer: FuzzSeeds.Paysafe.customer),
                        intent: .unlock), context: $1)
            },
            .on(
                "cancel", PaysafeProvider.self,
                fixed: [FuzzFixed.paysafeCard(FuzzSeeds.Paysafe.digitalCard, status: "ACTIVE")]
            ) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(
                        card: CardRef(id: FuzzSeeds.Paysafe.digitalCard, customer: FuzzSeeds.Paysafe.customer),
                        intent: .cancel, reason: .lost), context: $1
                )
            },
        ],
        tokenPathSuffix: "/token",
        tokenAnswer: Data(
            #"{"access_token":"fuzz-access-token","expires_in":900,"token_type":"Bearer","scope":"cards"}"#.utf8)
    )

    public static let bridge = ResponseHarness(
        name: "bridge", factory: .bridge,
        credentials: [
            "apiKey": Secret(FuzzSeeds.Bridge.apiKey), "webhookPublicKey": Secret(FuzzKeys.bridgeWebhookPublicKeyPEM),
        ],
        options: ["certificateEncoding": .string("base64"), "cardChain": .string("base")],
        operations: [
            .on("card", BridgeProvider.self) {
                _ = try await $0.card(
                    CardRef(id: FuzzSeeds.Bridge.activeVisa, customer: FuzzSeeds.Bridge.customer), context: $1)
            },
            .on("offer", BridgeProvider.self) {
                _ = try await $0.offer(
                    for: CardRef(id: FuzzSeeds.Bridge.activeVisa, customer: FuzzSeeds.Bridge.customer),
                    wallet: .applePay, context: $1)
            },
            .on("provisionApplePay", BridgeProvider.self) {
                _ = try await $0.provision(
                    ProvisioningRequest(
                        card: CardRef(id: FuzzSeeds.Bridge.activeVisa, customer: FuzzSeeds.Bridge.customer),
                        wallet: .applePay, input: FuzzSeeds.applePay), context: $1
                )
            },
            .on("provisionGooglePay", BridgeProvider.self) {
                _ = try await $0.provision(
                    ProvisioningRequest(
                        card: CardRef(id: FuzzSeeds.Bridge.activeVisa, customer: FuzzSeeds.Bridge.customer),
                        wallet: .googlePay, input: FuzzSeeds.googlePay), context: $1
                )
            },
            // Where `confirm` was: Bridge's confirm sends nothing, so it fuzzed nothing (HarnessReachTests).
            .on("listCards", BridgeProvider.self) {
                _ = try await $0.listCards(CardQuery(customer: FuzzSeeds.Bridge.customer, limit: 2), context: $1)
            },
            .on("freeze", BridgeProvider.self) {
                _ = try await $0.freeze(
                    card: CardRef(id: FuzzSeeds.Bridge.activeVisa, customer: FuzzSeeds.Bridge.customer),
                    reason: .suspectedFraud, context: $1)
            },
            .on("unfreeze", BridgeProvider.self) {
                _ = try await $0.unfreeze(
                    card: CardRef(id: FuzzSeeds.Bridge.activeVisa, customer: FuzzSeeds.Bridge.customer), context: $1)
            },
            // The normalised lifecycle: issuance, lock and unlock (listing is above; Bridge has no cancellation or token resource).
            .on("createCard", BridgeProvider.self) {
                _ = try await $0.createCard(
                    CreateCardRequest(
                        customer: FuzzSeeds.Bridge.customerWithoutCard, type: .virtual, program: "", currency: "USDC"),
                    context: $1)
            },
            .on(
                "lock", BridgeProvider.self,
                fixed: [FuzzFixed.bridgeAccount(FuzzSeeds.Bridge.activeMastercard, status: "active")]
            ) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(
                        card: CardRef(id: FuzzSeeds.Bridge.activeMastercard, customer: FuzzSeeds.Bridge.customer),
                        intent: .lock, reason: .suspectedFraud), context: $1
                )
            },
            .on(
                "unlock", BridgeProvider.self,
                fixed: [
                    FuzzFixed.bridgeAccount(
                        FuzzSeeds.Bridge.frozenByDeveloper, status: "frozen",
                        freezes:
                            #"[{"card_account_id":"\#(FuzzSeeds.Bridge.frozenByDeveloper)","initiator":"developer","reason":"suspected_fraud"}]"#
                    )
                ]
            ) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(
                        card: CardRef(id: FuzzSeeds.Bridge.frozenByDeveloper, customer: FuzzSeeds.Bridge.customer),
                        intent: .unlock), context: $1)
            },
        ]
    )

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

    public static let trustPayments = ResponseHarness(
        name: "trustpayments", factory: .trustpayments,
        credentials: FuzzSeeds.TrustPayments.credentials,
        options: ["siteReference": .string(FuzzSeeds.TrustPayments.siteReference)],
        operations: [
            .on("chargeMerchantInitiated", TrustPaymentsProvider.self) {
                _ = try await $0.charge(
                    ChargeRequest(
                        reference: FuzzSeeds.TrustPayments.storedVisaAuth,
                        amount: Money(minorUnits: 1050, currency: "GBP"), initiator: .merchant(.unscheduled)),
                    context: $1
                )
            },
            .on("chargeReauthorisation", TrustPaymentsProvider.self) {
                _ = try await $0.charge(
                    ChargeRequest(
                        reference: FuzzSeeds.TrustPayments.storedVisaAuth,
                        amount: Money(minorUnits: 250, currency: "GBP"), initiator: .merchant(.reauthorisation)),
                    context: $1
                )
            },
        ],
        storedCredentials: [
            StoredCredential(
                reference: FuzzSeeds.TrustPayments.storedVisaAuth, provider: "fuzz-trustpayments",
                maskedPAN: "411111######1111", brand: "VISA", scheme: .visa,
                created: FuzzClock.now
            )
        ]
    )

    /// Every response harness.
    public static let all: [ResponseHarness] = [
        .paysafe, .adyen, .stripe, .bridge, .trustPayments, .marqeta, .lithic,
    ]
}

extension FuzzSeeds.TrustPayments {
    static var credentials: [String: Secret] {
        [
            "webservicesUsername": Secret(webservicesUsername), "webservicesPassword": Secret(webservicesPassword),
            "jwtUsername": Secret(jwtUsername), "jwtSecret": Secret(jwtSecret),
        ]
    }
}
