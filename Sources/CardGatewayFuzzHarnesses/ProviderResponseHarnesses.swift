import CardGateway
import CardGatewayAdyen
import CardGatewayBridge
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
    }

    enum Adyen {
        static let apiKey = "AQE1simulator-adyen-api-key-with-every-role-0001"
        static let hmacKeyHex = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
        static let activeVisa = "PI32272223222C5GXTDWH3TTN"
        static let activeToken = "NWTK00000000000000000000000001"
    }

    enum Paysafe {
        static let clientID = "sim-client-id"
        static let clientSecret = "sim-client-secret"
        static let brand = "simbrand"
        static let webhookSecret = "sim-webhook-secret"
        static let customer = "cust-eu-1001"
        static let activeCard = "11111111-0000-4000-8000-000000000001"
        static let issuedCard = "11111111-0000-4000-8000-000000000003"
        static let program = "SKRILL-VIRTUAL-MC-EEA"
    }

    enum Bridge {
        static let apiKey = "sk-test-bridge-simulator-7c1e"
        static let customer = "c0ffee0000004000800000000000a1a1"
        static let activeVisa = "ca0000000000400080000000000000a1"
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
            certificates: [Data([0x30, 0x82, 0x01, 0x0a] + Array(repeating: 0x41, count: 64)), Data([0x30, 0x82, 0x01, 0x0a] + Array(repeating: 0x42, count: 64))],
            nonce: Data([0x5a, 0x1c, 0x0e, 0x77]), nonceSignature: Data(repeating: 0x90, count: 64)
        )
    )
    static let googlePay = ProvisioningInput.googlePay(GooglePayProvisioningInput(clientDeviceID: "sim-device-1", clientWalletAccountID: "sim-wallet-account-1"))
}

extension ResponseHarness {
    public static let stripe = ResponseHarness(
        name: "stripe", factory: .stripe,
        credentials: ["secretKey": Secret(FuzzSeeds.Stripe.secretKey), "webhookSecret": Secret(FuzzSeeds.Stripe.webhookSecret)],
        operations: [
            .on("card", StripeProvider.self) { _ = try await $0.card(CardRef(id: FuzzSeeds.Stripe.activeCard), context: $1) },
            .on("offer", StripeProvider.self) { _ = try await $0.offer(for: CardRef(id: FuzzSeeds.Stripe.activeCard), wallet: .applePay, context: $1) },
            .on("provision", StripeProvider.self) {
                _ = try await $0.provision(
                    ProvisioningRequest(card: CardRef(id: FuzzSeeds.Stripe.activeCard), wallet: .applePay, input: .issuerSDKKey(apiVersion: "2020-08-27")), context: $1
                )
            },
            .on("listCards", StripeProvider.self) { _ = try await $0.listCards(context: $1) },
            .on("updateCardStatus", StripeProvider.self) { _ = try await $0.updateCardStatus(card: CardRef(id: FuzzSeeds.Stripe.inactiveCard), status: .active, context: $1) },
            .on("listTokens", StripeProvider.self) { _ = try await $0.listTokens(card: CardRef(id: FuzzSeeds.Stripe.activeCard), context: $1) },
            .on("token", StripeProvider.self) { _ = try await $0.token(id: FuzzSeeds.Stripe.activeToken, context: $1) },
            .on("updateToken", StripeProvider.self) { _ = try await $0.updateToken(id: FuzzSeeds.Stripe.activeToken, status: .suspended, context: $1) },
            .on("revokeEphemeralKey", StripeProvider.self) { try await $0.revokeEphemeralKey(id: "ephkey_1SimFuzz", context: $1) },
        ]
    )

    public static let adyen = ResponseHarness(
        name: "adyen", factory: .adyen,
        credentials: ["apiKey": Secret(FuzzSeeds.Adyen.apiKey), "hmacKey": Secret(FuzzSeeds.Adyen.hmacKeyHex)],
        operations: [
            .on("card", AdyenProvider.self) { _ = try await $0.card(CardRef(id: FuzzSeeds.Adyen.activeVisa), context: $1) },
            .on("networkTokens", AdyenProvider.self) { _ = try await $0.networkTokens(for: CardRef(id: FuzzSeeds.Adyen.activeVisa), context: $1) },
            .on("networkToken", AdyenProvider.self) { _ = try await $0.networkToken(id: FuzzSeeds.Adyen.activeToken, context: $1) },
            .on("updateNetworkToken", AdyenProvider.self) { try await $0.updateNetworkToken(id: FuzzSeeds.Adyen.activeToken, status: .suspended, context: $1) },
            .on("offer", AdyenProvider.self) { _ = try await $0.offer(for: CardRef(id: FuzzSeeds.Adyen.activeVisa), wallet: .googlePay, context: $1) },
            .on("provisionStart", AdyenProvider.self) {
                _ = try await $0.provision(ProvisioningRequest(card: CardRef(id: FuzzSeeds.Adyen.activeVisa), wallet: .applePay, input: .issuerSDK(output: nil)), context: $1)
            },
            .on("provisionRelay", AdyenProvider.self) {
                _ = try await $0.provision(
                    ProvisioningRequest(card: CardRef(id: FuzzSeeds.Adyen.activeVisa), wallet: .applePay, input: .issuerSDK(output: SensitiveData(Data("sdk-output".utf8)))),
                    context: $1
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
            .on("card", PaysafeProvider.self) { _ = try await $0.card(CardRef(id: FuzzSeeds.Paysafe.activeCard, customer: FuzzSeeds.Paysafe.customer), context: $1) },
            .on("listCards", PaysafeProvider.self) {
                _ = try await $0.listCards(CardQuery(customer: FuzzSeeds.Paysafe.customer, limit: 5, includeWalletTokens: true, includeAvailableActions: true), context: $1)
            },
            .on("createCard", PaysafeProvider.self) {
                _ = try await $0.createCard(CreateCardRequest(customer: FuzzSeeds.Paysafe.customer, type: .virtual, program: FuzzSeeds.Paysafe.program, currency: "EUR"), context: $1)
            },
            .on("activateCard", PaysafeProvider.self) {
                _ = try await $0.activateCard(
                    ActivateCardRequest(card: CardRef(id: FuzzSeeds.Paysafe.issuedCard, customer: FuzzSeeds.Paysafe.customer), lastFour: "4403", cvv: Secret("123")), context: $1
                )
            },
            .on("updateCard", PaysafeProvider.self) {
                _ = try await $0.updateCard(
                    UpdateCardRequest(card: CardRef(id: FuzzSeeds.Paysafe.activeCard, customer: FuzzSeeds.Paysafe.customer), change: .status(.inactive, reason: "fuzz")), context: $1
                )
            },
            .on("programs", PaysafeProvider.self) { _ = try await $0.programs(customer: FuzzSeeds.Paysafe.customer, context: $1) },
            .on("offer", PaysafeProvider.self) {
                _ = try await $0.offer(for: CardRef(id: FuzzSeeds.Paysafe.activeCard, customer: FuzzSeeds.Paysafe.customer), wallet: .applePay, context: $1)
            },
            .on("provisionApplePay", PaysafeProvider.self) {
                _ = try await $0.provision(
                    ProvisioningRequest(card: CardRef(id: FuzzSeeds.Paysafe.activeCard, customer: FuzzSeeds.Paysafe.customer), wallet: .applePay, input: FuzzSeeds.applePay), context: $1
                )
            },
            .on("provisionGooglePay", PaysafeProvider.self) {
                _ = try await $0.provision(
                    ProvisioningRequest(card: CardRef(id: FuzzSeeds.Paysafe.activeCard, customer: FuzzSeeds.Paysafe.customer), wallet: .googlePay, input: FuzzSeeds.googlePay), context: $1
                )
            },
            .on("confirm", PaysafeProvider.self) {
                try await $0.confirm(
                    ProvisioningConfirmation(card: CardRef(id: FuzzSeeds.Paysafe.activeCard, customer: FuzzSeeds.Paysafe.customer), wallet: .applePay, deviceAccountReference: "DAR-fuzz-1"),
                    context: $1
                )
            },
            .on("secureDetails", PaysafeProvider.self) {
                _ = try await $0.secureDetailsAccess(for: CardRef(id: FuzzSeeds.Paysafe.activeCard, customer: FuzzSeeds.Paysafe.customer), context: $1)
            },
            .on("scaAttempt", PaysafeProvider.self) {
                _ = try await $0.submitSCAAttempt(eventID: "evt-fuzz-1", walletOperationID: "op-fuzz-1", method: "OTP", channel: "SMS", context: $1)
            },
        ],
        tokenPathSuffix: "/token",
        tokenAnswer: Data(#"{"access_token":"fuzz-access-token","expires_in":900,"token_type":"Bearer","scope":"cards"}"#.utf8)
    )

    public static let bridge = ResponseHarness(
        name: "bridge", factory: .bridge,
        credentials: ["apiKey": Secret(FuzzSeeds.Bridge.apiKey), "webhookPublicKey": Secret(FuzzKeys.bridgeWebhookPublicKeyPEM)],
        options: ["certificateEncoding": .string("base64")],
        operations: [
            .on("card", BridgeProvider.self) { _ = try await $0.card(CardRef(id: FuzzSeeds.Bridge.activeVisa, customer: FuzzSeeds.Bridge.customer), context: $1) },
            .on("offer", BridgeProvider.self) {
                _ = try await $0.offer(for: CardRef(id: FuzzSeeds.Bridge.activeVisa, customer: FuzzSeeds.Bridge.customer), wallet: .applePay, context: $1)
            },
            .on("provisionApplePay", BridgeProvider.self) {
                _ = try await $0.provision(
                    ProvisioningRequest(card: CardRef(id: FuzzSeeds.Bridge.activeVisa, customer: FuzzSeeds.Bridge.customer), wallet: .applePay, input: FuzzSeeds.applePay), context: $1
                )
            },
            .on("provisionGooglePay", BridgeProvider.self) {
                _ = try await $0.provision(
                    ProvisioningRequest(card: CardRef(id: FuzzSeeds.Bridge.activeVisa, customer: FuzzSeeds.Bridge.customer), wallet: .googlePay, input: FuzzSeeds.googlePay), context: $1
                )
            },
            .on("confirm", BridgeProvider.self) {
                try await $0.confirm(
                    ProvisioningConfirmation(card: CardRef(id: FuzzSeeds.Bridge.activeVisa, customer: FuzzSeeds.Bridge.customer), wallet: .applePay, deviceAccountReference: "DAR-fuzz-1"),
                    context: $1
                )
            },
            .on("freeze", BridgeProvider.self) {
                _ = try await $0.freeze(card: CardRef(id: FuzzSeeds.Bridge.activeVisa, customer: FuzzSeeds.Bridge.customer), reason: .suspectedFraud, context: $1)
            },
            .on("unfreeze", BridgeProvider.self) {
                _ = try await $0.unfreeze(card: CardRef(id: FuzzSeeds.Bridge.activeVisa, customer: FuzzSeeds.Bridge.customer), context: $1)
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
                    ChargeRequest(reference: FuzzSeeds.TrustPayments.storedVisaAuth, amount: Money(minorUnits: 1050, currency: "GBP"), initiator: .merchant(.unscheduled)),
                    context: $1
                )
            },
            .on("chargeReauthorisation", TrustPaymentsProvider.self) {
                _ = try await $0.charge(
                    ChargeRequest(reference: FuzzSeeds.TrustPayments.storedVisaAuth, amount: Money(minorUnits: 250, currency: "GBP"), initiator: .merchant(.reauthorisation)),
                    context: $1
                )
            },
        ],
        storedCredentials: [
            StoredCredential(
                reference: FuzzSeeds.TrustPayments.storedVisaAuth, provider: "fuzz-trustpayments", maskedPAN: "411111######1111", brand: "VISA", scheme: .visa,
                created: FuzzClock.now
            )
        ]
    )

    /// Every response harness.
    public static let all: [ResponseHarness] = [.paysafe, .adyen, .stripe, .bridge, .trustPayments]
}

extension FuzzSeeds.TrustPayments {
    static var credentials: [String: Secret] {
        [
            "webservicesUsername": Secret(webservicesUsername), "webservicesPassword": Secret(webservicesPassword),
            "jwtUsername": Secret(jwtUsername), "jwtSecret": Secret(jwtSecret),
        ]
    }
}
