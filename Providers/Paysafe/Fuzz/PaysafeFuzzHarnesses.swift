import CardGateway
import CardGatewayFuzzSupport
import CardGatewayPaysafe
import Foundation

// The Paysafe room's fuzz harnesses (docs/RELIABILITY.md, "Fuzzing"): `paysafe-responses` and `paysafe-webhooks`.

extension FuzzSeeds {
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
}

extension FuzzFixed {
    static func paysafeCard(_ id: String, status: String) -> FixedAnswer {
        FixedAnswer(
            .get, "/cards/\(id)",
            #"{"accountId":"127623001","bin":"533944","cardId":"\#(id)","cardType":"VIRTUAL","createdDate":"2023-11-15T22:13:20Z","currency":"EUR","customerId":"cust-eu-1001","expiry":{"month":4,"year":2029},"isPinSet":false,"lastFour":"4242","programName":"SKRILL-VIRTUAL-MC-EEA","scheme":"VISA","status":"\#(status)","tokenizations":{"mobileWallets":[]}}"#
        )
    }
}

extension ResponseHarness {
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
}

extension WebhookHarness {
    /// `Signature: Base64(HMAC-SHA256(body, Base64-decoded secret))`, Paysafe's published scheme.
    public static let paysafe = WebhookHarness(
        name: "paysafe", headerName: "Signature",
        sign: { body in
            hmacSHA256(key: Data(base64Encoded: FuzzSeeds.Paysafe.webhookSecret) ?? Data(), message: body)
                .base64EncodedString()
        }, makeVerifier: { try webhookVerifier(.paysafe) })
}

extension FuzzTarget {
    /// `paysafe-responses` and `paysafe-webhooks`.
    package static let paysafe: [FuzzTarget] = [.responses(.paysafe), .webhooks(.paysafe)]
}
