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

/// A write Paysafe may require a `Signature` header on (developer.paysafe.com/en/api-docs/embedded-wallets/request-signing/:
/// "endpoints that usually modify customer money balance or create new customers"; which card endpoints need it is
/// not published [U]). Named in the `signRequests` option.
public struct PaysafeSignedOperation: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }
    /// An operation this version knows; nil for any other name.
    public init?(rawValue: String) {
        guard let known = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = known
    }
    public var description: String { rawValue }

    /// `POST …/cards`.
    public static let createCard = PaysafeSignedOperation("createCard")
    /// `POST …/cards/{cardId}/activate`.
    public static let activateCard = PaysafeSignedOperation("activateCard")
    /// The card update (status), `PATCH …/cards/{cardId}`.
    public static let updateCard = PaysafeSignedOperation("updateCard")
    /// `POST …/cards/{cardId}/tokenizations`.
    public static let tokenize = PaysafeSignedOperation("tokenize")
    /// The tokenization's completion, `PATCH …/cards/{cardId}/tokenizations`.
    public static let completeTokenization = PaysafeSignedOperation("completeTokenization")
    /// `POST …/cards/{cardId}/secure-details`.
    public static let secureDetails = PaysafeSignedOperation("secureDetails")
    /// `POST …/sca/events/{eventId}/attempts`.
    public static let scaAttempt = PaysafeSignedOperation("scaAttempt")

    public static let allCases: [PaysafeSignedOperation] = [
        .createCard, .activateCard, .updateCard, .tokenize, .completeTokenization, .secureDetails, .scaAttempt,
    ]

    /// The `signRequests` option: `none` (or empty), `all` (every write above), or a comma-separated list of names.
    /// A failure naming the unknown names for anything else.
    public static func parse(_ text: String) -> Result<Set<PaysafeSignedOperation>, UnknownNames> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.lowercased() == "none" { return .success([]) }
        if trimmed.lowercased() == "all" { return .success(Set(allCases)) }
        var operations = Set<PaysafeSignedOperation>()
        var unknown: [String] = []
        for part in trimmed.split(separator: ",") {
            let name = part.trimmingCharacters(in: .whitespaces)
            if let operation = PaysafeSignedOperation(rawValue: name) {
                operations.insert(operation)
            } else {
                unknown.append(name)
            }
        }
        return unknown.isEmpty ? .success(operations) : .failure(UnknownNames(names: unknown))
    }

    /// Names in `signRequests` that are no operation.
    public struct UnknownNames: Error, Sendable, Equatable {
        public var names: [String]
    }
}

/// A Paysafe instance's `options`, decoded once when the configuration loads.
public struct PaysafeOptions: ProviderOptions, Equatable {
    /// The brand identity in the token path.
    public var brand: String
    public var region: PaysafeRegion
    /// Sent as `userAgent` in create, activate and update bodies (≤ 1,000 characters).
    public var userAgent: String
    /// The writes that carry Paysafe's `Signature` header (`signRequests`; none by default). Signing needs the
    /// `requestSigningSecret` credential.
    public var signedRequests: Set<PaysafeSignedOperation> = []

    /// Paysafe's limit on `userAgent` (`CardUpdateRequest`, `CardActivationRequest`: ≤ 1,000).
    public static let userAgentMaxLength = 1000

    enum CodingKeys: String, CodingKey { case brand, region, userAgent, signRequests }

    public static let specs: [OptionSpec] = [
        OptionSpec(CodingKeys.brand, type: .string, required: true, summary: "the brand identity in the token path"),
        OptionSpec(
            CodingKeys.region, type: .string, allowedValues: PaysafeRegion.allCases.map(\.rawValue),
            summary: "ROW (default) or US: US customers follow the US card rules"),
        OptionSpec(
            CodingKeys.userAgent, type: .string,
            summary:
                "sent as userAgent when creating, activating and updating cards, at most 1,000 characters (default CardGateway)"
        ),
        OptionSpec(
            CodingKeys.signRequests, type: .string,
            summary:
                "writes that carry Paysafe's Signature header: none (default), all, or a comma-separated list of createCard, activateCard, updateCard, tokenize, completeTokenization, secureDetails, scaAttempt; needs credentials.requestSigningSecret"
        ),
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
        if userAgent.count > Self.userAgentMaxLength {
            throw DecodingError.dataCorruptedError(
                forKey: .userAgent, in: container,
                debugDescription: "must be at most \(Self.userAgentMaxLength) characters (Paysafe's limit)")
        }
        if let text = try container.decodeIfPresent(String.self, forKey: .signRequests) {
            switch PaysafeSignedOperation.parse(text) {
            case .success(let operations): signedRequests = operations
            case .failure(let unknown):
                throw DecodingError.dataCorruptedError(
                    forKey: .signRequests, in: container,
                    debugDescription:
                        "names no operation: \(unknown.names.map { SafeText.scrub($0, maxLength: 40) }.joined(separator: ", ")); use none, all, or a comma-separated list of \(PaysafeSignedOperation.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
        }
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
    /// Sent as `userAgent` in create, activate and update bodies.
    public var userAgent: String
    /// How long before its expiry a token is replaced.
    public var tokenRefreshMargin: TimeInterval
    /// The writes that carry Paysafe's `Signature` header (none by default).
    public var signedRequests: Set<PaysafeSignedOperation> = []
    /// Paysafe's HMAC secret key for request signatures, the Base64 text as Paysafe gives it (required when
    /// ``signedRequests`` is not empty). Paysafe's page describes one key exchanged for webhooks and requests, so it
    /// may be the same reference as ``webhookSecret``.
    public var requestSigningSecret: Secret?

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
        signedRequests = options.signedRequests
        requestSigningSecret = setup.optionalCredential("requestSigningSecret")
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
                CredentialSpec(
                    "webhookSecret", required: false,
                    summary: "Paysafe's HMAC secret key for webhooks, the Base64 text as Paysafe gives it"),
                CredentialSpec(
                    "requestSigningSecret", required: false,
                    summary:
                        "Paysafe's HMAC secret key for request signatures (Base64 text); needed by options.signRequests"
                ),
            ],
            options: PaysafeOptions.self,
            make: { setup, options in try PaysafeProvider(setup: setup, options: options) }
        )
    }
}
