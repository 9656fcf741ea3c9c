@_spi(AdapterSupport) import CardGateway
import CardGatewayAdyen
import CardGatewayFuzzSupport
import Foundation

// The Adyen room's fuzz harnesses (docs/RELIABILITY.md, "Fuzzing"): `adyen-responses` and `adyen-webhooks`.

extension FuzzSeeds {
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
}

extension FuzzFixed {
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
}

extension ResponseHarness {
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
}

extension WebhookHarness {
    /// `HmacSignature: Base64(HMAC-SHA256(body, hex-decoded key))`.
    public static let adyen = WebhookHarness(
        name: "adyen", headerName: "HmacSignature",
        sign: { body in
            hmacSHA256(key: ByteEncoding.decodeHex(FuzzSeeds.Adyen.hmacKeyHex) ?? Data(), message: body)
                .base64EncodedString()
        }, makeVerifier: { try webhookVerifier(.adyen) })
}

extension FuzzTarget {
    /// `adyen-responses` and `adyen-webhooks`.
    package static let adyen: [FuzzTarget] = [.responses(.adyen), .webhooks(.adyen)]
}
