import ArgumentParser
import CardGateway
import Foundation

struct CardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "card", abstract: "Card management for any configured provider, through the router.",
        subcommands: [
            Get.self, List.self, Create.self, Activate.self, Lock.self, Unlock.self, Cancel.self, SetPIN.self,
            Programs.self, CardRevealCommand.self,
        ]
    )

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Look up one card.")
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option(help: "The customer the card belongs to (Paysafe, Bridge).") var customer: String?
        @Argument(help: "The card id at its provider.") var cardID: String

        func run() async throws {
            try await reportingErrors {
                try CLIOutput.json(
                    try await config.withGateway() { gateway in
                        try await gateway.card(CardRef(id: cardID, customer: customer), via: target.target)
                    })
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a customer's cards.")
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option var customer: String?
        @Option(help: "Only cards in these statuses (comma-separated: active, locked, …).") var status: String?
        @Option(help: "Only cards of this type (physical, virtual).") var type: String?
        @Option(
            help:
                "Cards per page, \(CardGateway.listLimitRange.lowerBound) to \(CardGateway.listLimitRange.upperBound).")
        var limit: Int?
        @Option(help: "The first record (providers that page by offset).") var offset: Int = 0
        @Option(help: "The page cursor a previous page gave as nextCursor (providers that page by cursor).") var cursor:
            String?
        @Flag(help: "Follow every page and print all the cards (at most \(List.maxPages) pages).") var all: Bool = false
        @Flag(help: "Include wallet tokens and available actions.") var include: Bool = false

        static let maxPages = 1_000

        func run() async throws {
            try await reportingErrors {
                var statuses: [CardStatus] = []
                for name in (status ?? "").split(separator: ",").map(String.init) {
                    guard let parsed = CardStatus(rawValue: name) else {
                        throw CLIUsageError(
                            message:
                                "unknown status \"\(name)\"; expected one of \(CardStatus.allCases.map(\.rawValue).joined(separator: ", "))"
                        )
                    }
                    statuses.append(parsed)
                }
                var types: [CardType] = []
                if let type {
                    guard let parsed = CardType(rawValue: type) else {
                        throw CLIUsageError(message: "unknown card type \"\(type)\"; expected physical or virtual")
                    }
                    types = [parsed]
                }
                if let limit, !CardGateway.listLimitRange.contains(limit) {
                    throw CLIUsageError(
                        message:
                            "--limit must be from \(CardGateway.listLimitRange.lowerBound) to \(CardGateway.listLimitRange.upperBound)"
                    )
                }
                if offset < 0 { throw CLIUsageError(message: "--offset must not be negative") }
                let query = CardQuery(
                    customer: customer, types: types, statuses: statuses, limit: limit, offset: offset, cursor: cursor,
                    includeWalletTokens: include,
                    includeAvailableActions: include
                )
                if !all {
                    try CLIOutput.json(
                        try await config.withGateway() { gateway in
                            try await gateway.listCards(query, via: target.target)
                        })
                    return
                }
                let cards = try await config.withGateway() { gateway in
                    var cards: [Card] = []
                    var next: CardQuery? = query
                    var pages = 0
                    while let current = next {
                        guard pages < List.maxPages else {
                            throw CLIUsageError(message: "the listing did not end within \(List.maxPages) pages")
                        }
                        let page = try await gateway.listCards(current, via: target.target)
                        cards += page.cards
                        next = current.next(after: page)
                        pages += 1
                    }
                    return cards
                }
                try CLIOutput.json(cards)
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a virtual or physical card on --program in --currency (both also route the request).")
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option var customer: String
        @Option(name: .customLong("type"), help: "virtual or physical.") var cardType: String = "virtual"
        @Option var mobile: String?
        @Option(name: .customLong("external-id")) var externalID: String?
        @Option(name: .customLong("cardholder-name"), help: "The name on the card (Adyen requires it).")
        var cardholderName: String?
        @Option(
            name: .customLong("issuing-country"),
            help: "The issuing country, ISO 3166-1 alpha-2 (Adyen requires it; default: the delivery address's).")
        var issuingCountry: String?
        @Option(help: "Delivery address line 1 (physical cards).") var address1: String?
        @Option var city: String?
        @Option(name: .customLong("country-code")) var countryCode: String?
        @Option(name: .customLong("postal-code")) var postalCode: String?
        @Option var state: String?
        @Flag(name: .customLong("accept-terms")) var acceptTerms: Bool = false
        @Flag(name: .customLong("accept-edisclosure")) var acceptEDisclosure: Bool = false

        func run() async throws {
            try await reportingErrors {
                guard let type = CardType(rawValue: cardType), type != .unknown else {
                    throw CLIUsageError(message: "--type must be virtual or physical")
                }
                // The card's program and currency are also what the request routes by.
                guard let cardProgram = target.program else {
                    throw CLIUsageError(message: "--program is required: the program to issue the card on")
                }
                guard let cardCurrency = target.currency else {
                    throw CLIUsageError(message: "--currency is required: the card's currency")
                }
                var address: DeliveryAddress?
                if let address1 {
                    address = DeliveryAddress(
                        address1: address1, city: city ?? "", countryCode: countryCode ?? "", state: state,
                        postalCode: postalCode ?? "")
                }
                let request = CreateCardRequest(
                    customer: customer, type: type, program: cardProgram, currency: cardCurrency, mobile: mobile,
                    externalID: externalID,
                    deliveryAddress: address, termsAndConditionsAccepted: acceptTerms ? true : nil,
                    eDisclosureAccepted: acceptEDisclosure ? true : nil,
                    cardholderName: cardholderName, issuingCountryCode: issuingCountry
                )
                try CLIOutput.json(
                    try await config.withGateway() { gateway in
                        try await gateway.createCard(request, via: target.target)
                    })
            }
        }
    }

    struct Activate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Activate a physical card with the data printed on it. The CVV is read from stdin.")
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option var customer: String?
        @Option(name: .customLong("last-four")) var lastFour: String
        @Argument var cardID: String

        func run() async throws {
            try await reportingErrors {
                guard let cvv = CLIStreams.firstInputLine(), !cvv.isEmpty else {
                    throw CLIUsageError(
                        message:
                            "pass the CVV on stdin (it is never taken as an argument, so it stays out of shell history)"
                    )
                }
                let request = ActivateCardRequest(
                    card: CardRef(id: cardID, customer: customer), lastFour: lastFour, cvv: Secret(cvv))
                try CLIOutput.json(
                    try await config.withGateway() { gateway in
                        try await gateway.activateCard(request, via: target.target)
                    })
            }
        }
    }

    struct StatusOptions: ParsableArguments {
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option(help: "The customer the card belongs to (Paysafe, Bridge).") var customer: String?
        @Option(help: "Why: \(CardStatusReason.allCases.map(\.rawValue).joined(separator: ", ")).") var reason: String?
        @Option(help: "Free text for the provider's record, where it has a place for one.") var comment: String?
        @Argument(help: "The card id at its provider.") var cardID: String

        func run(_ intent: CardStatusIntent) async throws {
            try await reportingErrors {
                let parsedReason = try parseReason(reason)
                let request = CardStatusRequest(
                    card: CardRef(id: cardID, customer: customer), intent: intent, reason: parsedReason,
                    comment: comment)
                try CLIOutput.json(
                    try await config.withGateway() { gateway in
                        try await gateway.changeCardStatus(request, via: target.target)
                    })
            }
        }
    }

    struct Lock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lock a card (reversible with unlock).")
        @OptionGroup var options: StatusOptions
        func run() async throws { try await options.run(.lock) }
    }

    struct Unlock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unlock a locked card.")
        @OptionGroup var options: StatusOptions
        func run() async throws { try await options.run(.unlock) }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel a card for good (no provider lets it be reopened).")
        @OptionGroup var options: StatusOptions
        func run() async throws { try await options.run(.cancel) }
    }

    struct SetPIN: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-pin", abstract: "Set a card's PIN, read from stdin.")
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option var customer: String?
        @Argument var cardID: String

        func run() async throws {
            try await reportingErrors {
                guard let value = CLIStreams.firstInputLine(), !value.isEmpty else {
                    throw CLIUsageError(
                        message: "pass the PIN on stdin (never as an argument, so it stays out of shell history)")
                }
                let request = SetCardPINRequest(card: CardRef(id: cardID, customer: customer), pin: Secret(value))
                try CLIOutput.json(
                    try await config.withGateway() { gateway in
                        try await gateway.setCardPIN(request, via: target.target)
                    })
            }
        }
    }

    struct Programs: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the card programs a customer may get a card on.")
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option var customer: String?

        func run() async throws {
            try await reportingErrors {
                try CLIOutput.json(
                    try await config.withGateway() { gateway in
                        try await gateway.programs(customer: customer, via: target.target)
                    })
            }
        }
    }
}

/// `--reason`, one of ``CardStatusReason``'s names; nil when not given.
func parseReason(_ text: String?) throws -> CardStatusReason? {
    guard let text else { return nil }
    guard let reason = CardStatusReason(rawValue: text) else {
        throw CLIUsageError(
            message:
                "unknown reason \"\(text)\"; expected one of \(CardStatusReason.allCases.map(\.rawValue).joined(separator: ", "))"
        )
    }
    return reason
}

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "A card's wallet tokens (Apple Pay, Google Pay…), for any configured provider, through the router.",
        subcommands: [List.self, Suspend.self, Resume.self, Delete.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a card's wallet tokens.")
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option(help: "The customer the card belongs to (Paysafe, Bridge).") var customer: String?
        @Option(help: "The card id at its provider.") var card: String

        func run() async throws {
            try await reportingErrors {
                try CLIOutput.json(
                    try await config.withGateway() { gateway in
                        try await gateway.walletTokens(of: CardRef(id: card, customer: customer), via: target.target)
                    })
            }
        }
    }

    struct ChangeOptions: ParsableArguments {
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option(help: "The customer the card belongs to (Paysafe, Bridge).") var customer: String?
        @Option(help: "The card the token belongs to.") var card: String
        @Option(help: "Why: \(CardStatusReason.allCases.map(\.rawValue).joined(separator: ", ")).") var reason: String?
        @Argument(help: "The token id, as token list gives it.") var tokenID: String

        func run(_ intent: WalletTokenIntent) async throws {
            try await reportingErrors {
                let parsedReason = try parseReason(reason)
                let request = WalletTokenRequest(
                    card: CardRef(id: card, customer: customer), token: tokenID, intent: intent, reason: parsedReason)
                try CLIOutput.json(
                    try await config.withGateway() { gateway in
                        try await gateway.changeWalletToken(request, via: target.target)
                    })
            }
        }
    }

    struct Suspend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Suspend a wallet token (reversible with resume).")
        @OptionGroup var options: ChangeOptions
        func run() async throws { try await options.run(.suspend) }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Resume a suspended wallet token.")
        @OptionGroup var options: ChangeOptions
        func run() async throws { try await options.run(.resume) }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a wallet token for good.")
        @OptionGroup var options: ChangeOptions
        func run() async throws { try await options.run(.delete) }
    }
}
