import CardGatewaySimulation
import Crypto
import Foundation

extension MarqetaSimulator {
    /// A card transition webhook as Marqeta publishes one (developer-guides/mq-eu-synchronizing-dwts-card-state,
    /// "Transitioning cards"): `{"cards": [ … ]}`, each object a `card_transition_response` (every member the
    /// document requires: the card's `pan` masked, `barcode`, `expiration`, …, and `validations.user` as Marqeta's
    /// example shows it), with the webhook's Basic credentials and `X-Marqeta-Signature`.
    public func signedCardTransitionWebhook(
        card: String, state cardState: String, type: String, reasonCode: String = "14",
        secret: String = Seed.webhookSecret, username: String = Seed.webhookUsername,
        password: String = Seed.webhookPassword
    ) -> (headers: [(String, String)], body: Data) {
        let stored = state.cards.get(card) ?? Seed.cards[0]
        let event: [String: Any] = [
            "token": "ct_"
                + String(ByteEncoding.hex(SHA256.hash(data: Data("\(card)|\(cardState)|\(type)".utf8))).prefix(24)),
            "card_token": card, "user_token": stored.userToken, "state": cardState, "type": type,
            "reason": "Card \(cardState.lowercased())", "reason_code": reasonCode, "channel": "API",
            "fulfillment_status": stored.fulfillmentStatus, "card_product_token": stored.cardProductToken,
            "last_four": stored.lastFour, "pan": stored.maskedPAN, "barcode": stored.barcode, "pin_is_set": false,
            "expiration": stored.expiration, "expiration_time": Self.expirationTime(stored.expiration),
            "validations": [
                "user": ["birth_date": false, "phone": false, "random_name_line1_postfix": false, "ssn": false]
            ],
            "created_time": SimulatorDateTime.format(simulationClock.now()),
        ]
        return signed(
            body: Self.webhookBody(category: Self.cardTransitionCategory, event), secret: secret, username: username,
            password: password)
    }

    /// A digital wallet token transition webhook: `{"digitalwallettokentransitions": [ … ]}`, each object a
    /// `digital_wallet_token_transition_response` whose `digital_wallet_token` is the document's
    /// `digital_wallet_token_hash` (`token`, `card_token`). The category key is **unconfirmed** (no Marqeta page
    /// publishes a whole body; it is the plural of the `digitalwallettokentransition` event type).
    public func signedTokenTransitionWebhook(
        token: String, state tokenState: String, type: String
    ) -> (headers: [(String, String)], body: Data) {
        let card = state.tokens.get(token)?.cardToken ?? Seed.walletCard
        let event: [String: Any] = [
            "token": "dwtt_"
                + String(ByteEncoding.hex(SHA256.hash(data: Data("\(token)|\(tokenState)".utf8))).prefix(24)),
            "state": tokenState, "type": type, "channel": "TOKEN_SERVICE_PROVIDER",
            "fulfillment_status": tokenState == "REQUESTED" ? "DECISION_YELLOW" : "PROVISIONED",
            "created_time": SimulatorDateTime.format(simulationClock.now()),
            "digital_wallet_token": ["token": token, "card_token": card],
        ]
        return signed(body: Self.webhookBody(category: Self.tokenTransitionCategory, event))
    }

    /// The key of card transition webhooks: `cards` (Marqeta's published example).
    public static let cardTransitionCategory = "cards"
    /// The key of digital wallet token transition webhooks (unconfirmed, see above).
    public static let tokenTransitionCategory = "digitalwallettokentransitions"

    static func webhookBody(category: String, _ event: [String: Any]) -> Data {
        (try? JSONSerialization.data(
            withJSONObject: [category: [event]], options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }

    /// Signs any body as the simulator's webhook would: Basic credentials and `X-Marqeta-Signature`.
    public func signed(
        body: Data, secret: String = Seed.webhookSecret, username: String = Seed.webhookUsername,
        password: String = Seed.webhookPassword
    ) -> (headers: [(String, String)], body: Data) {
        let authorization = SimulatorHTTP.basicAuthorization(user: username, password: password)
        return (
            [
                ("Content-Type", "application/json"), ("Authorization", authorization),
                ("X-Marqeta-Signature", Self.signature(body, secret: secret)),
            ], body
        )
    }

    /// Lower-case hex HMAC-SHA256 of `body` keyed with `secret`'s UTF-8 bytes.
    public static func signature(_ body: Data, secret: String) -> String {
        ByteEncoding.hex(HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8))))
    }
}
