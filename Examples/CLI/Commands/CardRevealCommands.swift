import ArgumentParser
@_spi(AdapterSupport) import CardGateway
import Foundation

/// `cardgateway card reveal …`: card details, PIN reveal and PIN change without the backend seeing the clear data
/// (docs/CLI.md). The CLI stands where the bank's backend stands: it relays what the front end supplied
/// (a nonce, an encrypted session key…) and prints what the front end needs back. The material it prints is opaque
/// (encrypted, or a short-lived key, token or link for the provider's own front end), never a clear number or PIN;
/// this is the one place the CLI prints it, as it is the front end's relay.
struct CardRevealCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reveal",
        abstract:
            "Card details, PIN reveal and PIN change for the cardholder's front end (the backend never sees the clear data).",
        subcommands: [Offer.self, Details.self, PIN.self, ChangePIN.self]
    )

    /// The card and where its provider is: the card commands' option groups, `--customer` and the card id.
    struct CardOptions: ParsableArguments {
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option(help: "The customer the card belongs to (Paysafe, Bridge).") var customer: String?
        @Argument(help: "The card id at its provider.") var cardID: String

        var card: CardRef { CardRef(id: cardID, customer: customer) }
    }

    struct Offer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "How the card's provider offers a purpose (its flow, what the front end must supply, the public key to encrypt with)."
        )
        @OptionGroup var card: CardOptions
        @Option(help: "details, pin or change-pin.") var purpose: String

        func run() async throws {
            try await reportingErrors {
                let purpose = try CardRevealCommand.purpose(named: self.purpose)
                let offer = try await card.config.withGateway { gateway in
                    try await gateway.revealOffer(for: card.card, purpose: purpose, via: card.target.target)
                }
                try CLIOutput.json(RevealOfferJSON(offer))
            }
        }
    }

    struct Details: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A session to show the card's number, CVC and expiry in the front end.",
            discussion:
                "Client-nonce flows (Stripe, Bridge) take --nonce (and --api-version for Stripe); Adyen takes --encrypted-key; Marqeta, Lithic and Paysafe take nothing."
        )
        @OptionGroup var card: CardOptions
        @Option(help: "The nonce the provider's front-end library made (Stripe, Bridge).") var nonce: String?
        @Option(
            name: .customLong("api-version"),
            help: "The API version of the front-end library (Stripe's Stripe-Version).") var apiVersion: String?
        @Option(
            name: .customLong("encrypted-key"),
            help: "The app's session key encrypted with the offer's public key (Adyen).") var encryptedKey: String?

        func run() async throws {
            try await CardRevealCommand.session(
                card,
                RevealSessionRequest(
                    card: card.card, purpose: .cardDetails, clientNonce: nonce.map(Secret.init), apiVersion: apiVersion,
                    encryptedKey: encryptedKey.map(Secret.init))
            )
        }
    }

    struct PIN: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pin", abstract: "A session to show the card's PIN in the app.")
        @OptionGroup var card: CardOptions
        @Option(
            name: .customLong("encrypted-key"),
            help: "The app's session key encrypted with the offer's public key (Adyen).") var encryptedKey: String?

        func run() async throws {
            try await CardRevealCommand.session(
                card,
                RevealSessionRequest(card: card.card, purpose: .pinReveal, encryptedKey: encryptedKey.map(Secret.init)))
        }
    }

    struct ChangePIN: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "change-pin",
            abstract:
                "Change the card's PIN with a PIN block the app encrypted, or get the secure frame where the cardholder sets it.",
            discussion:
                "Adyen takes --encrypted-key, --encrypted-pin-block and --token, all three made by the app for this change (no PIN reveal first); Stripe takes --encrypted-pin-block; Bridge takes nothing and answers its PIN frame's link."
        )
        @OptionGroup var card: CardOptions
        @Option(
            name: .customLong("encrypted-key"),
            help: "The app's session key encrypted with the offer's public key (Adyen).") var encryptedKey: String?
        @Option(
            name: .customLong("encrypted-pin-block"),
            help:
                "The new PIN, encrypted by the front end: Adyen's PIN block under the app's session key; Stripe's PIN under Stripe's public key."
        ) var encryptedPINBlock: String?
        @Option(
            help:
                "The 16-digit token the app made and used to encrypt --encrypted-pin-block (Adyen's PinChangeRequest.token); no PIN reveal comes first."
        ) var token: String?

        func run() async throws {
            try await CardRevealCommand.session(
                card,
                RevealSessionRequest(
                    card: card.card, purpose: .pinChange, encryptedKey: encryptedKey.map(Secret.init),
                    encryptedPINBlock: encryptedPINBlock.map(Secret.init),
                    pinToken: token.map(Secret.init)
                )
            )
        }
    }

    /// The CLI's names for the purposes.
    static let purposeNames: KeyValuePairs<String, RevealPurpose> = [
        "details": .cardDetails, "pin": .pinReveal, "change-pin": .pinChange,
    ]

    static func purpose(named name: String) throws -> RevealPurpose {
        guard let purpose = purposeNames.first(where: { $0.key == name })?.value else {
            throw CLIUsageError(
                message:
                    "--purpose must be one of \(purposeNames.map(\.key).joined(separator: ", ")); got \"\(SafeText.scrub(name, maxLength: 32))\""
            )
        }
        return purpose
    }

    /// The command-line flag of each input.
    static func flag(of field: String) -> String {
        switch field {
        case RevealInput.clientNonce.rawValue: "--nonce"
        case RevealInput.encryptedKey.rawValue: "--encrypted-key"
        case RevealInput.encryptedPINBlock.rawValue: "--encrypted-pin-block"
        case RevealInput.pinToken.rawValue: "--token"
        case "apiVersion": "--api-version"
        case "card.id": "CARD_ID"
        case "card.customer": "--customer"
        default: field
        }
    }

    /// Checks the request against the flow the card's provider instance declares (read from its descriptor, without a
    /// call), so that a missing or extra input is a usage error naming its flag, before anything is sent; then asks the
    /// gateway (which checks again) and prints the session.
    static func session(_ card: CardOptions, _ request: RevealSessionRequest) async throws {
        try await reportingErrors {
            let session = try await card.config.withGateway { gateway in
                let target = card.target.target
                let instance = try gateway.resolve(target, operation: request.purpose.operation)
                if let flow = instance.descriptor.revealFlows[request.purpose] {
                    let problems = request.problems(in: flow).errors
                    if !problems.isEmpty {
                        let sentences = problems.map { "\(flag(of: $0.field)) \($0.message)" }
                        throw CLIUsageError(message: sentences.joined(separator: "; ") + " (\(instance.name))")
                    }
                }
                return try await gateway.revealSession(request, via: target)
            }
            try CLIOutput.json(RevealSessionJSON(session))
        }
    }
}

/// `card reveal offer`'s output.
struct RevealOfferJSON: Encodable {
    struct PublicKey: Encodable {
        var format: String
        var value: String
        var expires: Date?
    }

    var card: String
    var customer: String?
    var provider: String?
    var purpose: String
    var flow: String
    var requires: [String]
    var publicKey: PublicKey?
    var apiVersion: String?
    /// Seconds.
    var sessionLifetime: Double?
    var mayRequireSCA: Bool

    init(_ offer: RevealOffer) {
        card = offer.card.id
        customer = offer.card.customer
        provider = offer.provider
        purpose = offer.purpose.rawValue
        flow = offer.flow.rawValue
        requires = offer.requires.map(\.rawValue)
        publicKey = offer.publicKey.map { PublicKey(format: $0.format, value: $0.value, expires: $0.expires) }
        apiVersion = offer.apiVersion
        sessionLifetime = offer.sessionLifetime?.timeInterval
        mayRequireSCA = offer.mayRequireSCA
    }
}

/// `card reveal details|pin|change-pin`'s output: the material's fields revealed, for the front end.
struct RevealSessionJSON: Encodable {
    var card: String
    var customer: String?
    var provider: String?
    var purpose: String
    var flow: String
    var kind: String
    var ephemeralKeyID: String?
    var ephemeralKeySecret: String?
    var encryptedData: String?
    var encryptedPINBlock: String?
    var pinToken: String?
    var pinChangeStatus: String?
    var clientAccessToken: String?
    var secureLink: String?
    var expires: Date?

    init(_ session: RevealSession) {
        let material = session.material
        card = session.card.id
        customer = session.card.customer
        provider = session.provider
        purpose = session.purpose.rawValue
        flow = session.flow.rawValue
        kind = material.kind
        ephemeralKeyID = material.ephemeralKeyID
        ephemeralKeySecret = material.ephemeralKeySecret?.revealedValue
        encryptedData = material.encryptedData?.revealedValue
        encryptedPINBlock = material.encryptedPINBlock?.revealedValue
        pinToken = material.pinToken?.revealedValue
        pinChangeStatus = material.pinChangeStatus?.rawValue
        clientAccessToken = material.clientAccessToken?.revealedValue
        secureLink = material.secureLink?.revealedValue
        expires = session.expires
    }
}
