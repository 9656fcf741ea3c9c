import CardGatewaySimulation
import Crypto
import Foundation

extension MarqetaSimulator {
    /// A webhook as Marqeta would deliver it for a card transition: `{"cardtransitions": [ … ]}`, with the webhook's
    /// Basic credentials and `X-Marqeta-Signature` (hex HMAC-SHA256 of the body with the secret).
    public func signedCardTransitionWebhook(
        card: String, state cardState: String, type: String, secret: String = Seed.webhookSecret,
        username: String = Seed.webhookUsername,
        password: String = Seed.webhookPassword
    ) -> (headers: [(String, String)], body: Data) {
        let stored = state.cards.get(card)
        let event: [String: Any] = [
            "token": "ct_" + String(Self.hex(SHA256.hash(data: Data("\(card)|\(cardState)|\(type)".utf8))).prefix(24)),
            "card_token": card,
            "user_token": stored?.userToken ?? Seed.userToken, "state": cardState, "type": type, "channel": "API",
            "created_time": Self.timestamp(simulationClock.now()),
        ]
        let body =
            (try? JSONSerialization.data(
                withJSONObject: ["cardtransitions": [event]], options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        return signed(body: body, secret: secret, username: username, password: password)
    }

    /// A webhook for a digital wallet token transition: `{"digitalwallettokentransitions": [ … ]}`.
    public func signedTokenTransitionWebhook(
        token: String, state tokenState: String, type: String
    ) -> (headers: [(String, String)], body: Data) {
        var dwt = state.tokens.get(token)?.json() ?? ["token": token, "card_token": Seed.walletCard]
        dwt["state"] = tokenState
        let event: [String: Any] = [
            "token": "dwtt_" + String(Self.hex(SHA256.hash(data: Data("\(token)|\(tokenState)".utf8))).prefix(24)),
            "state": tokenState, "type": type,
            "channel": "TOKEN_SERVICE_PROVIDER", "created_time": Self.timestamp(simulationClock.now()),
            "digital_wallet_token": dwt,
        ]
        let body =
            (try? JSONSerialization.data(
                withJSONObject: ["digitalwallettokentransitions": [event]],
                options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return signed(body: body)
    }

    /// Signs any body as the simulator's webhook would: Basic credentials and `X-Marqeta-Signature`.
    public func signed(
        body: Data, secret: String = Seed.webhookSecret, username: String = Seed.webhookUsername,
        password: String = Seed.webhookPassword
    ) -> (headers: [(String, String)], body: Data) {
        let authorization = "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
        return (
            [
                ("Content-Type", "application/json"), ("Authorization", authorization),
                ("X-Marqeta-Signature", Self.signature(body, secret: secret)),
            ], body
        )
    }

    /// Lower-case hex HMAC-SHA256 of `body` keyed with `secret`'s UTF-8 bytes.
    public static func signature(_ body: Data, secret: String) -> String {
        hex(HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8))))
    }
}
