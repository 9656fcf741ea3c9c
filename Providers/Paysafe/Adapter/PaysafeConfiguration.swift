import CardGateway
import Foundation

extension ProviderKind {
    /// Paysafe Embedded Wallets prepaid cards (`"kind": "paysafe"`).
    public static let paysafe = ProviderKind("paysafe")
}

/// Which Paysafe region the instance's credentials belong to. Paysafe issues separate brand ids and keys for
/// US and rest-of-world customers, and US customers follow their own creation rules (no PIN at creation,
/// mandatory state, terms and e-disclosure flags).
public enum PaysafeRegion: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Rest of world (EU rules).
    case row = "ROW"
    case us = "US"

    public var description: String { rawValue }
}

/// A Paysafe instance's `options`, decoded once when the configuration loads.
public struct PaysafeOptions: ProviderOptions, Equatable {
    /// The brand identity in the token path.
    public var brand: String
    public var region: PaysafeRegion
    /// Sent as `userAgent` in create and activate bodies.
    public var userAgent: String

    enum CodingKeys: String, CodingKey { case brand, region, userAgent }

    public static let specs: [OptionSpec] = [
        OptionSpec(CodingKeys.brand, type: .string, required: true, summary: "the brand identity in the token path"),
        OptionSpec(
            CodingKeys.region, type: .string, allowedValues: PaysafeRegion.allCases.map(\.rawValue),
            summary: "ROW (default) or US: US customers follow the US card rules"),
        OptionSpec(
            CodingKeys.userAgent, type: .string,
            summary: "sent as userAgent when creating and activating cards (default CardGateway)"),
    ]

    public init(brand: String, region: PaysafeRegion = .row, userAgent: String = "CardGateway") {
        self.brand = brand
        self.region = region
        self.userAgent = userAgent
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        brand = try container.decode(String.self, forKey: .brand)
        if brand.trimmingCharacters(in: .whitespaces).isEmpty {
            throw DecodingError.dataCorruptedError(
                forKey: .brand, in: container, debugDescription: "is required (the Paysafe brand identity)")
        }
        region = .row
        if let text = try container.decodeIfPresent(String.self, forKey: .region) {
            guard let parsed = PaysafeRegion(rawValue: text.uppercased()) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .region, in: container, debugDescription: "must be ROW or US")
            }
            region = parsed
        }
        userAgent =
            try container.decodeIfPresent(String.self, forKey: .userAgent).flatMap { $0.isEmpty ? nil : $0 }
            ?? "CardGateway"
    }
}

/// What a Paysafe instance needs.
public struct PaysafeConfiguration: Sendable, CustomStringConvertible {
    public var clientID: Secret
    public var clientSecret: Secret
    /// The HMAC key of the card status webhook; webhooks are refused when it is nil.
    public var webhookSecret: Secret?
    /// The brand identity in the token path.
    public var brand: String
    public var region: PaysafeRegion
    /// Sent as `userAgent` in create and activate bodies.
    public var userAgent: String
    /// How long before its expiry a token is replaced.
    public var tokenRefreshMargin: TimeInterval

    public init(
        clientID: Secret, clientSecret: Secret, webhookSecret: Secret? = nil, brand: String,
        region: PaysafeRegion = .row,
        userAgent: String = "CardGateway", tokenRefreshMargin: TimeInterval = 60
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.webhookSecret = webhookSecret
        self.brand = brand
        self.region = region
        self.userAgent = userAgent
        self.tokenRefreshMargin = tokenRefreshMargin
    }

    /// Reads the instance's credentials and options. Throws `invalidConfiguration` naming what is missing.
    public init(setup: ProviderSetup) throws {
        try self.init(setup: setup, options: setup.options(PaysafeOptions.self))
    }

    /// Reads the instance's credentials; the options come decoded.
    public init(setup: ProviderSetup, options: PaysafeOptions) throws {
        self.init(
            clientID: try setup.credential("clientID"), clientSecret: try setup.credential("clientSecret"),
            webhookSecret: setup.optionalCredential("webhookSecret"), brand: options.brand, region: options.region,
            userAgent: options.userAgent
        )
    }

    public var description: String {
        "PaysafeConfiguration(brand: \(brand), region: \(region), webhookSecret: \(webhookSecret == nil ? "none" : "<redacted>"))"
    }
}

extension ProviderFactory {
    /// Registers Paysafe: `registry.register(.paysafe)`.
    public static var paysafe: ProviderFactory {
        ProviderFactory(
            kind: .paysafe,
            descriptor: PaysafeProvider.providerDescriptor,
            environments: [
                "sandbox": URL(string: "https://sandbox.paysafe.com")!,
                "live": URL(string: "https://api.paysafe.com")!,
            ],
            credentials: [
                CredentialSpec("clientID", summary: "OAuth client id of the business (B2B) API key"),
                CredentialSpec("clientSecret", summary: "OAuth client secret"),
                CredentialSpec("webhookSecret", required: false, summary: "HMAC key of the card status webhook"),
            ],
            options: PaysafeOptions.self,
            make: { setup, options in try PaysafeProvider(setup: setup, options: options) }
        )
    }
}
