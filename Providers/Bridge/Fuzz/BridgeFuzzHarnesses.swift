import CardGateway
import CardGatewayBridge
import CardGatewayFuzzSupport
import Crypto
import Foundation
import _CryptoExtras

// The Bridge room's fuzz harnesses (docs/RELIABILITY.md, "Fuzzing"): `bridge-responses` and `bridge-webhooks`.

extension FuzzSeeds {
    enum Bridge {
        static let apiKey = "sk-test-bridge-simulator-7c1e"
        static let customer = "c0ffee0000004000800000000000a1a1"
        static let customerWithoutCard = "c0ffee0000004000800000000000c3c3"
        static let activeVisa = "ca0000000000400080000000000000a1"
        static let activeMastercard = "ca0000000000400080000000000000a2"
        static let frozenByDeveloper = "ca0000000000400080000000000000a6"
    }
}

extension FuzzFixed {
    static func bridgeAccount(_ id: String, status: String, freezes: String = "[]") -> FixedAnswer {
        FixedAnswer(
            .get, "/card_accounts/\(id)",
            #"{"card_details":{"bin":"44325280","expiry":"10/29","last_4":"1269"},"cardholder_name":{"first_name":"Ada","last_name":"Lovelace"},"customer_id":"c0ffee0000004000800000000000a1a1","freezes":\#(freezes),"id":"\#(id)","status":"\#(status)"}"#
        )
    }
}

extension ResponseHarness {
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
}

extension WebhookHarness {
    /// `X-Webhook-Signature: t=<milliseconds>,v0=<Base64 RSA PKCS#1 v1.5 SHA-256 signature of SHA-256("t.body")>`.
    public static let bridge = WebhookHarness(
        name: "bridge", headerName: "X-Webhook-Signature",
        sign: { body in
            let milliseconds = Int64(FuzzClock.now.timeIntervalSince1970 * 1000)
            let digest = Data(SHA256.hash(data: Data("\(milliseconds).".utf8) + body))
            guard
                let signature = try? FuzzKeys.bridgeWebhookPrivateKey.signature(
                    for: digest, padding: .insecurePKCS1v1_5)
            else { return "" }
            return "t=\(milliseconds),v0=\(signature.rawRepresentation.base64EncodedString())"
        }, makeVerifier: { try webhookVerifier(.bridge) })
}

extension FuzzTarget {
    /// `bridge-responses` and `bridge-webhooks`.
    package static let bridge: [FuzzTarget] = [.responses(.bridge), .webhooks(.bridge)]
}

/// A fixed RSA key made for the fuzz harnesses only (it signs nothing outside them): the Bridge webhook
/// harness signs each input with it so that the parser behind the signature check is reached.
package enum FuzzKeys {
    static let bridgeWebhookPrivateKeyPEM = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEowIBAAKCAQEAlzKR2VPmaGaygj3PBjEuDd84hg54uxpjX+nk1bluprqm6ftn
        e5us17LA3/lcBw6laBNfu2PS3mjf7Zn53/pDx/1tmLjwPUZatMJmH1P6TY8UzRs2
        8GupI2elpRDAFLwZfogfjgdoZVdDxZWlBpFyR+cTBQGIHIU/pWIw8dicbEvhVYSV
        BGUJMQHCEfIL8sk1S7EWTIZOKEcVk/5y6nFY+yePif55ACPb1gViim8Z6D9Zuau6
        avLiD0xFZ+zD2HZQI14PQpakDIpg9G4gzF8Bz4BP/D86u4VQQ795nYPwV+VZ0MqJ
        oni6Pl/TUYgxNmMqNG/gWePajwM73ZSYH9lkxwIDAQABAoIBAAFmQooS4/iIaN/1
        DqkvF5MVIk+fVqLVGGNwej6KkQ20TfVMTirBB/ncetfti28c9zAY69/Frp3lEILT
        5K7JaETIPYLB3ireHwQAjh0SJqyLEi8a2fo3BrIOgOAsIxURJVkiW7PlNV4DqkLX
        QgTi6kzLdjUzxFBx+a1NiopWY7d7yFn4Ic/gnJjnAImjIvcB8peJA77t/XWDNOBC
        7CszdIaA+G+QbLK/XSCjjgvW+zbEc9j544G3agOvFiJaDbtDSatxJlzwTse9R64W
        TH8E5/1MI1tIWZ+fD/0Oh02dq3u9NnL76vNt5Mau5MZ2+QrLDS8C6tWqV02tdHOp
        tf2jQcECgYEAxRC3f19MWswo4z35xIFIcQKgXrH3YFSLhCBO8wsLOu9I0tjeRaZ6
        xwMWCUZ2oBwUFUxNE19766g7qSfOjIsqI0alMRE1JTl8oE4r5H0XUt9hlBS5He+6
        5xIY8F0Z0DiqbTva8TWoUhrcmkny8Hq/Rf5gUIg07kG8w0HBsqfWPYcCgYEAxGo5
        ueeSEL9X8jknzW4w4Uh9SLkFi4jcq19WF+ZdTxt1ppUIDEYv4hPZn+ryBUZEx1OR
        NueZPyPwxQeB8wgQPezlhYzjeAnblDj588OONm52lHN8/XLlX8+4NGP6b+csqL44
        quG9f8RbCfOkoG8zQs6dZocUo0iNGyJvpEEzbsECgYAMtEwwIPOqMtk79SXh/jeu
        WW3/TNfW1Px9kxuj3YVm0kBOn36M3POzWsaT6IADSGwfB2E8q34wrhLSj+dn9hzM
        U2SY6jQT50Xai8+Wll3nkNEYm9FnVaol9Wu4KzhbzRtnmWE/BaeJS4QHSlcoG7Gz
        EHgjGPTYm1JRAC89lkZghwKBgQC6EoAZdB3WK88fM7JXVVqNMeUubcmpBME4wJqJ
        Db274aG1bF4xcpSOMovqieM5x/YEd1CMmR9+x4eiwJgFKtBoOfK+cFhWMdCJPOje
        W5ZwTnmb7UStvpk6CUjSqRxpwrF2Mq7wg+bIEbbFWMHPE0mWsrI+nR2aCnNTD26A
        Rxx4gQKBgG+/FMwmjvEi0+ovX0jw8YH5XrUGH/b9r9QJMjBWzQmv+/xJDQmiCRC8
        AJe6mjx4r2prLxyi29Leb4iZdD0aQwQnitkUfaSgk5oU3CzNT7YAHGAnzRcMXsDS
        Ho0cyE2C5W+TAcL6EwdgfDqOHvpLQx0+f4wGyJ36stwrS3OsPBqe
        -----END RSA PRIVATE KEY-----
        """

    package static let bridgeWebhookPrivateKey: _RSA.Signing.PrivateKey = {
        do { return try _RSA.Signing.PrivateKey(pemRepresentation: bridgeWebhookPrivateKeyPEM) } catch {
            fatalError("the fuzz harnesses' fixed RSA key does not load: \(error)")
        }
    }()

    package static var bridgeWebhookPublicKeyPEM: String { bridgeWebhookPrivateKey.publicKey.pemRepresentation }
}
