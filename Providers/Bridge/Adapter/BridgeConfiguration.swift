import CardGateway
import Foundation
import HTTPTypes
import Logging
import _CryptoExtras

extension ProviderKind {
    /// Bridge (bridge.xyz) card accounts.
    public static let bridge = ProviderKind("bridge")
}

extension ProviderFactory {
    /// Registers Bridge: `registry.register(.bridge)`.
    ///
    /// - Environments: `sandbox` (https://api.sandbox.bridge.xyz/v0), `live` and `production`
    ///   (https://api.bridge.xyz/v0).
    /// - Credentials: `apiKey` (required, sent as `Api-Key`), `webhookPublicKey` (optional: the webhook
    ///   endpoint's RSA public key, PEM).
    /// - Options: `certificateEncoding` `"hex"` or `"base64"` (default `"base64"`): how Apple's certificates,
    ///   nonce and signature are encoded on the wire. The adapter always sends `encoding` explicitly.
    public static var bridge: ProviderFactory {
        ProviderFactory(
            kind: .bridge,
            descriptor: BridgeProvider.standardDescriptor,
            environments: [
                "sandbox": BridgeAPI.sandboxBaseURL,
                "live": BridgeAPI.productionBaseURL,
                "production": BridgeAPI.productionBaseURL,
            ],
            credentials: [
                CredentialSpec("apiKey", required: true, summary: "the Bridge API key, sent in the Api-Key header"),
                CredentialSpec(
                    "webhookPublicKey", required: false,
                    summary: "the webhook endpoint's public key (PEM) that verifies X-Webhook-Signature"),
            ],
            options: BridgeOptions.self,
            make: { setup, options in try BridgeProvider(setup: setup, options: options) }
        )
    }
}

/// A Bridge instance's `options`, decoded once when the configuration loads.
public struct BridgeOptions: ProviderOptions, Equatable {
    public var certificateEncoding: BridgeCertificateEncoding
    /// The `chain` new card accounts are funded on (Bridge's `OfframpChainForCards`); card issuance needs it.
    public var cardChain: String?

    enum CodingKeys: String, CodingKey { case certificateEncoding, cardChain }

    public static let specs: [OptionSpec] = [
        OptionSpec(
            CodingKeys.certificateEncoding, type: .string,
            allowedValues: BridgeCertificateEncoding.allCases.map(\.rawValue),
            summary: "how Apple Pay certificates, nonce and nonce signature are encoded for Bridge (default base64)"
        ),
        OptionSpec(
            CodingKeys.cardChain, type: .string, allowedValues: BridgeAPI.cardAccountChains.sorted(),
            summary: "the chain new card accounts are funded on (Bridge's chain); needed to create cards"
        ),
    ]

    public init(certificateEncoding: BridgeCertificateEncoding = .base64, cardChain: String? = nil) {
        self.certificateEncoding = certificateEncoding
        self.cardChain = cardChain
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let chain = try container.decodeIfPresent(String.self, forKey: .cardChain) {
            guard BridgeAPI.cardAccountChains.contains(chain) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .cardChain, in: container,
                    debugDescription: "must be one of \(BridgeAPI.cardAccountChains.sorted().joined(separator: ", "))"
                )
            }
            cardChain = chain
        } else {
            cardChain = nil
        }
        guard let text = try container.decodeIfPresent(String.self, forKey: .certificateEncoding) else {
            certificateEncoding = .base64
            return
        }
        guard let encoding = BridgeCertificateEncoding(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .certificateEncoding, in: container, debugDescription: "must be hex or base64")
        }
        certificateEncoding = encoding
    }
}

/// How the adapter encodes Apple's bytes in `apple_pay` (Bridge's `encoding` field).
public enum BridgeCertificateEncoding: String, Sendable, CaseIterable, Codable {
    /// Lower-case hexadecimal (Bridge's default when `encoding` is omitted).
    case hex
    /// Standard Base64 with padding.
    case base64
}

/// Why a card account is frozen (`CardFreezeReason`).
public enum BridgeFreezeReason: String, Sendable, CaseIterable, Codable {
    case lostOrStolen = "lost_or_stolen"
    case suspiciousActivity = "suspicious_activity"
    case plannedInactivity = "planned_inactivity"
    case suspectedFraud = "suspected_fraud"
    case other
}

/// Who placed a freeze (`CardFreezeInitiator`). Each initiator has at most one active freeze; unfreezing
/// removes that initiator's freeze only.
public enum BridgeFreezeInitiator: String, Sendable, CaseIterable, Codable {
    /// Our platform (the API key's owner).
    case developer
    /// The cardholder (a freeze the app placed on their behalf).
    case customer
}

/// Bridge's answer to a freeze or an unfreeze.
public struct BridgeFreezeResult: Sendable, Equatable {
    public var card: CardRef
    /// `freeze_created`, `freeze_replaced` or `freeze_removed`, verbatim.
    public var status: String?
    public var initiator: String?
    public var reason: String?
    public var reasonDetail: String?
    public var startingAt: Date?
    public var endingAt: Date?
    public var createdAt: Date?

    public init(
        card: CardRef, status: String?, initiator: String?, reason: String?, reasonDetail: String? = nil,
        startingAt: Date? = nil, endingAt: Date? = nil, createdAt: Date? = nil
    ) {
        self.card = card
        self.status = status
        self.initiator = initiator
        self.reason = reason
        self.reasonDetail = reasonDetail
        self.startingAt = startingAt
        self.endingAt = endingAt
        self.createdAt = createdAt
    }
}
