import CardGatewaySimulation
import Crypto
import Foundation
import _CryptoExtras

extension BridgeSimulator {
    /// `WebhookEvent.event_object_status` values the spec allows.
    static let webhookObjectStatuses: Set<String> = [
        "not_started", "incomplete", "active", "rejected", "under_review", "manual_review", "awaiting_ubo", "approved",
        "awaiting_funds", "funds_received", "payment_submitted", "payment_processed", "in_review", "canceled", "error",
        "returned", "refunded", "undeliverable",
    ]

    /// The public half of the webhook signing key, in PEM: configure it as the adapter's `webhookPublicKey`.
    public var webhookPublicKeyPEM: String { webhookKey.publicKey.pemRepresentation }

    /// Signs `body` as Bridge delivers webhooks: `X-Webhook-Signature: t=<milliseconds>,v0=<Base64 signature>`,
    /// an RSA PKCS#1 v1.5 signature with SHA-256 over the SHA-256 digest of `"<t>.<body>"`.
    /// - Parameters:
    ///   - body: the raw event JSON.
    ///   - date: the signing time (`t`); the simulator clock's now by default.
    public func signedWebhook(body: Data, at date: Date? = nil) throws -> (headers: [(String, String)], body: Data) {
        try sign(body, at: date, with: webhookKey)
    }

    private func sign(
        _ body: Data, at date: Date?, with key: _RSA.Signing.PrivateKey
    ) throws -> (headers: [(String, String)], body: Data) {
        let milliseconds = Int64(((date ?? simulationClock.now()).timeIntervalSince1970 * 1000).rounded())
        // Like Bridge: the RSA-SHA256 signature covers the SHA-256 digest of "<t>.<body>" (two hash passes).
        var joined = Data("\(milliseconds).".utf8)
        joined.append(body)
        let signature = try key.signature(for: Data(SHA256.hash(data: joined)), padding: .insecurePKCS1v1_5)
        return (
            headers: [
                ("Content-Type", "application/json"),
                ("X-Webhook-Signature", "t=\(milliseconds),v0=\(signature.rawRepresentation.base64EncodedString())"),
            ],
            body: body
        )
    }

    /// `body` signed like ``signedWebhook(body:at:)`` but with a second key that is not the endpoint's: a forged
    /// delivery, for tests that a verifier refuses it.
    public func forgedWebhook(body: Data, at date: Date? = nil) throws -> (headers: [(String, String)], body: Data) {
        try sign(body, at: date, with: BridgeSimulatorWebhookKey.forger)
    }

    /// A signed event in Bridge's envelope (`WebhookEvent`).
    /// - Parameters:
    ///   - category: `event_category`, e.g. `card_account`.
    ///   - type: `event_type`, prefixed by the category, e.g. `card_account.updated.status_transitioned`.
    ///   - objectID: `event_object_id`.
    ///   - object: `event_object`, a JSON object.
    ///   - changes: `event_object_changes`, e.g. `["status": ["active", "frozen"]]` (before, after).
    ///   - date: when it was created and signed; the simulator clock's now by default.
    public func signedWebhook(
        category: String, type: String, objectID: String, object: [String: Any], changes: [String: Any] = [:],
        at date: Date? = nil
    ) throws -> (headers: [(String, String)], body: Data) {
        let when = date ?? simulationClock.now()
        var envelope: [String: Any] = [
            "api_version": "v0",
            "event_id": ids.next(prefix: "evt", length: 29),
            "event_developer_id": "dev_simulator",
            "event_sequence": ids.nextInt(in: 1...1_000_000),
            "event_category": category,
            "event_type": type,
            "event_object_id": objectID,
            "event_object": object,
            "event_object_changes": changes,
            "event_created_at": SimulatorDateTime.format(when, fraction: .milliseconds),
        ]
        // `event_object_status` is an enum in the spec that lacks the card statuses; it is sent only with its values.
        if let status = object["status"] as? String, Self.webhookObjectStatuses.contains(status) {
            envelope["event_object_status"] = status
        }
        let body = try JSONSerialization.data(
            withJSONObject: envelope, options: [.sortedKeys, .withoutEscapingSlashes])
        return try signedWebhook(body: body, at: when)
    }

    /// A signed `card_account` event carrying the account's current state; nil when the account is unknown.
    /// - Parameters:
    ///   - cardAccountID: the account.
    ///   - previousStatus: the status before the change, sent as `event_object_changes.status: [previous, current]`.
    ///   - type: `event_type`.
    ///   - date: when it was created and signed.
    public func signedCardAccountWebhook(
        cardAccountID: String, previousStatus: String? = nil, type: String = "card_account.updated.status_transitioned",
        at date: Date? = nil
    ) throws -> (headers: [(String, String)], body: Data)? {
        guard let account = accounts.get(cardAccountID) else { return nil }
        let object = BridgeSimulatorWire.cardAccount(account)
        var changes: [String: Any] = [:]
        if let previousStatus { changes["status"] = [previousStatus, account.status] }
        return try signedWebhook(
            category: "card_account", type: type, objectID: account.id, object: object, changes: changes, at: date)
    }

    /// Decrypts an `encrypted_pass_data` the simulator produced (ECDH with the response's
    /// `ephemeral_public_key`), so tests can check the payload is real ciphertext over the card data.
    public static func openEncryptedPassData(_ encryptedPassData: Data, ephemeralPublicKey: Data) throws -> Data {
        try BridgeSimulatorPayloads.openApple(
            encryptedPassData: encryptedPassData, ephemeralPublicKey: ephemeralPublicKey)
    }

    /// Decrypts an `opaque_payment_card` the simulator produced (its Base64url text already decoded).
    public static func openOpaquePaymentCard(_ opaquePaymentCard: Data) throws -> Data {
        try BridgeSimulatorPayloads.openGoogle(opaquePaymentCard)
    }
}
