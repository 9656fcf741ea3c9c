@_spi(AdapterSupport) import CardGateway
import CardGatewayFuzzSupport
import CardGatewayStripe
import Foundation

// The Stripe room's fuzz harnesses (docs/RELIABILITY.md, "Fuzzing"): `stripe-responses` and `stripe-webhooks`.

extension FuzzSeeds {
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
}

extension FuzzFixed {
    static func stripeCard(_ id: String, status: String) -> FixedAnswer {
        FixedAnswer(
            .get, "/v1/issuing/cards/\(id)",
            #"{"id":"\#(id)","object":"issuing.card","brand":"Visa","cancellation_reason":null,"cardholder":"ich_1SimJennyRosen000000000","created":1700000900,"currency":"usd","exp_month":8,"exp_year":2030,"last4":"4242","livemode":false,"status":"\#(status)","type":"virtual"}"#
        )
    }

    static func stripeToken(_ id: String, card: String) -> FixedAnswer {
        FixedAnswer(
            .get, "/v1/issuing/tokens/\(id)",
            #"{"id":"\#(id)","object":"issuing.token","card":"\#(card)","created":1700001000,"last4":"8801","livemode":false,"network":"visa","status":"active","wallet_provider":"samsung_pay"}"#
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
            // Slots 3 to 8 fuzzed Stripe's own calls (listCards(_:) with Stripe's query, updateCardStatus, listTokens,
            // token(id:), updateToken, revokeEphemeralKey) until they left the public API. Each slot keeps its place (the
            // corpus's first byte names it) and, but the last, its name, and now reaches the same request and response
            // decoding through the neutral API.
            // GET /v1/issuing/cards without a filter: CardListing with an empty query sends Stripe's list call as it is.
            .on("listCards", StripeProvider.self) { _ = try await $0.listCards(CardQuery(), context: $1) },
            // POST /v1/issuing/cards/{id} status=active: unlock is exactly that update, with no read before it.
            .on("updateCardStatus", StripeProvider.self) {
                _ = try await $0.changeStatus(
                    CardStatusRequest(card: CardRef(id: FuzzSeeds.Stripe.inactiveCard), intent: .unlock), context: $1)
            },
            // GET /v1/issuing/tokens?card=…: WalletTokenListing's first page.
            .on("listTokens", StripeProvider.self) {
                _ = try await $0.walletTokens(of: CardRef(id: FuzzSeeds.Stripe.activeCard), context: $1)
            },
            // GET /v1/issuing/tokens/{id}: WalletTokenControl reads the token first. The request names a card the
            // token is not on, so for the simulator's answer the read is all it sends (notFound after it).
            .on("token", StripeProvider.self) {
                _ = try await $0.changeWalletToken(
                    WalletTokenRequest(
                        card: CardRef(id: FuzzSeeds.Stripe.inactiveCard), token: FuzzSeeds.Stripe.activeToken,
                        intent: .suspend), context: $1)
            },
            // POST /v1/issuing/tokens/{id} status=suspended, after a fixed read of the active token.
            .on(
                "updateToken", StripeProvider.self,
                fixed: [FuzzFixed.stripeToken(FuzzSeeds.Stripe.activeToken, card: FuzzSeeds.Stripe.activeCard)]
            ) {
                _ = try await $0.changeWalletToken(
                    WalletTokenRequest(
                        card: CardRef(id: FuzzSeeds.Stripe.activeCard), token: FuzzSeeds.Stripe.activeToken,
                        intent: .suspend), context: $1)
            },
            // Stripe's ephemeral key answer (StripeEphemeralKeyWire), which revoking decoded: the card-details reveal
            // session mints one bound to the front end's nonce, after a fixed read of the card. The seed recorded for
            // revoking (`revokeEphemeralKey-404`, Stripe's error answer) answers this slot now.
            .on(
                "revealSession", StripeProvider.self,
                fixed: [FuzzFixed.stripeCard(FuzzSeeds.Stripe.activeCard, status: "active")]
            ) {
                _ = try await $0.revealSession(
                    RevealSessionRequest(
                        card: CardRef(id: FuzzSeeds.Stripe.activeCard), purpose: .cardDetails,
                        clientNonce: Secret("ephemeral_key_nonce_fuzz")), context: $1)
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
}

extension WebhookHarness {
    /// `Stripe-Signature: t=<seconds>,v1=<hex HMAC-SHA256("t.body", whsec_…)>`.
    public static let stripe = WebhookHarness(
        name: "stripe", headerName: "Stripe-Signature",
        sign: { body in
            let timestamp = Int64(FuzzClock.now.timeIntervalSince1970)
            let mac = hmacSHA256(
                key: Data(FuzzSeeds.Stripe.webhookSecret.utf8), message: Data("\(timestamp).".utf8) + body)
            return "t=\(timestamp),v1=\(ByteEncoding.hex(mac))"
        }, makeVerifier: { try webhookVerifier(.stripe) })
}

extension FuzzTarget {
    /// `stripe-responses` and `stripe-webhooks`.
    package static let stripe: [FuzzTarget] = [.responses(.stripe), .webhooks(.stripe)]
}
