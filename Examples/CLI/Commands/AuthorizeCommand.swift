import ArgumentParser
import CardGateway
import CardGatewaySimulation
import ExampleSupport
import Foundation

/// `cardgateway authorize`: a provider's simulator plays the card network and sends one simulated real-time
/// authorization, signed as the provider signs it, to any URL; prints what the provider records of the answer.
struct AuthorizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authorize",
        abstract: "Send a simulated real-time authorization to any URL, as a provider's network would.",
        discussion: """
            Starts the provider's embedded simulator (or uses a running one, --simulator URL, e.g. from \
            `cardgateway simulate`), which sends the provider's authorization message for the card to --url, \
            signed or authenticated with the simulator's seed credentials (see the provider's README), and waits \
            up to the provider's deadline. Prints the provider's recorded outcome as JSON (Stripe's request_history, \
            for one). Test your own endpoint with it:

              cardgateway authorize --provider stripe --url http://127.0.0.1:8080/authorizations/us-issuing \\
                --amount 1250 --currency USD --mcc 5411 --country US
            """
    )

    @Option(
        help: ArgumentHelp(
            "The provider whose network to play: \(SimulatedAuthorizations.kinds.joined(separator: ", ")).")
    )
    var provider: String
    @Option(help: "Where to send it (https://, or http:// on loopback).") var url: String
    @Option(help: "The amount in minor units (1250 is 12.50 USD).") var amount: Int64
    @Option(help: "ISO 4217, upper case.") var currency: String = "USD"
    @Option(help: "The merchant category code (four digits).") var mcc: String?
    @Option(help: "The merchant's country, ISO 3166-1 alpha-2.") var country: String?
    @Option(name: .customLong("merchant-name"), help: "The merchant's name.") var merchantName: String = "Corner Shop"
    @Option(help: "The merchant's city.") var city: String?
    @Option(help: "The card's id at the provider. Default: the simulator's seeded active card.") var card: String?
    @Option(help: "authorization (default), or a kind the provider's simulator documents.") var kind: String?
    @Option(
        name: .customLong("amount-adjustable"),
        help:
            "true or false: whether the answer may approve less (where the provider allows it). Default: the simulator's."
    )
    var amountAdjustable: Bool?
    @Option(
        name: .customLong("deadline-ms"),
        help: "How long the network waits, in milliseconds (at most the provider's deadline). Default: the provider's.")
    var deadlineMilliseconds: Int?
    @Option(
        help: "A running simulator's base URL (cardgateway simulate) instead of an embedded one.")
    var simulator: String?

    var order: AuthorizationOrder {
        AuthorizationOrder(
            url: url, card: card ?? SimulatedAuthorizations.defaultCard(provider) ?? "", amount: amount,
            currency: currency,
            merchant: AuthorizationOrder.Merchant(name: merchantName, categoryCode: mcc, country: country, city: city),
            kind: kind, amountAdjustable: amountAdjustable, deadlineMilliseconds: deadlineMilliseconds)
    }

    func validate() throws {
        guard SimulatedAuthorizations.kinds.contains(provider) else {
            throw ValidationError(
                "--provider must be one of \(SimulatedAuthorizations.kinds.joined(separator: ", "))")
        }
        if let mcc, mcc.count != 4 || !mcc.allSatisfy(\.isASCII) || !mcc.allSatisfy(\.isNumber) {
            throw ValidationError("--mcc must be four digits")
        }
        if let country, country.count != 2 || !country.allSatisfy({ $0.isASCII && $0.isUppercase }) {
            throw ValidationError("--country must be ISO 3166-1 alpha-2, upper case")
        }
        if let simulator, URL(string: simulator)?.host == nil {
            throw ValidationError("--simulator must be a simulator's base URL")
        }
        let problems = order.problems
        if !problems.isEmpty { throw ValidationError(problems.joined(separator: "; ")) }
    }

    func run() async throws {
        try await reportingErrors {
            let order = self.order
            let result: SimulatedAuthorizations.Result
            if let simulator, let base = URL(string: simulator) {
                result = try await SimulatedAuthorizations.send(order, simulatorURL: base)
            } else {
                let simulators = EmbeddedSimulators()
                guard let embedded = SimulatedAuthorizations.simulator(provider, in: simulators) else {
                    throw CLIUsageError(message: "no simulator for \(provider)")
                }
                result = try await withSimulators([embedded]) { handles in
                    try await SimulatedAuthorizations.send(order, simulatorURL: handles[0].baseURL)
                }
            }
            guard (200..<300).contains(result.status) else {
                throw CardGatewayError(
                    .invalidRequest,
                    "the \(provider) simulator refused the order (HTTP \(result.status)): \(SafeText.scrub(result.text, maxLength: 300))",
                    provider: provider)
            }
            CLIStreams.current.stdout(result.body + Data("\n".utf8))
        }
    }
}
