import ArgumentParser
import CardGateway
import Foundation
import HTTPTypes

struct CredentialsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credentials", abstract: "Cards on file: SDK sessions, result verification, charges.",
        subcommands: [Session.self, Verify.self, Charge.self])

    struct Session: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mint a session for the provider's mobile SDK: --store --consent, or --reuse REFERENCE.")
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @OptionGroup var credentialStore: CredentialStoreOptions
        @Flag(help: "Check and store the card.") var store: Bool = false
        @Flag(help: "The cardholder consented to keeping the card on file (required with --store).") var consent: Bool =
            false
        @Option(help: "Pay with this stored credential reference.") var reuse: String?
        @Option(help: "Amount in minor units; --currency gives its currency (and routes the request).") var amount:
            Int64

        func run() async throws {
            try await reportingErrors {
                let intent: ClientSessionRequest.Intent
                switch (store, reuse) {
                case (true, nil):
                    intent = .store(
                        consent: consent
                            ? CardholderConsent(recordedAt: Date(), evidence: "cardgateway-cli --consent") : nil)
                case (false, let reference?): intent = .reuse(reference: reference)
                default: throw CLIUsageError(message: "give exactly one of --store or --reuse REFERENCE")
                }
                guard let currency = target.currency else {
                    throw CLIUsageError(message: "--currency is required with --amount")
                }
                let session = try await config.withGateway(credentialStore: credentialStore.store) { gateway in
                    try await gateway.clientSession(
                        ClientSessionRequest(intent: intent, amount: Money(minorUnits: amount, currency: currency)),
                        via: target.target
                    )
                }
                try CLIOutput.json(ClientSessionJSON(session))
            }
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify the SDK's result JWT and print the stored credential.")
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @OptionGroup var credentialStore: CredentialStoreOptions
        @Argument(help: "The response JWT (or - to read it from stdin).") var jwt: String

        func run() async throws {
            try await reportingErrors {
                let token = jwt == "-" ? (CLIStreams.firstInputLine() ?? "") : jwt
                try CLIOutput.json(
                    try await config.withGateway(credentialStore: credentialStore.store) { gateway in
                        try await gateway.verifyResult(Secret(token), via: target.target)
                    })
            }
        }
    }

    struct Charge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Charge a stored credential, merchant-initiated.")
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @OptionGroup var credentialStore: CredentialStoreOptions
        @Argument var reference: String
        @Option(help: "Amount in minor units; --currency gives its currency (and routes the request).") var amount:
            Int64
        @Option(help: "unscheduled, reauthorisation or delayed.") var reason: String
        @Option(
            name: .customLong("idempotency-key"),
            help:
                "The charge's idempotency key: a repeat with the same key gets the recorded outcome and is never charged twice (across instances with a postgres store)."
        )
        var idempotencyKey: String?

        func run() async throws {
            try await reportingErrors {
                guard let parsed = MerchantInitiatedReason(rawValue: reason) else {
                    throw CLIUsageError(message: "--reason must be unscheduled, reauthorisation or delayed")
                }
                guard let currency = target.currency else {
                    throw CLIUsageError(message: "--currency is required with --amount")
                }
                let request = ChargeRequest(
                    reference: reference, amount: Money(minorUnits: amount, currency: currency),
                    initiator: .merchant(parsed))
                try CLIOutput.json(
                    try await config.withGateway(credentialStore: credentialStore.store) { gateway in
                        try await gateway.charge(
                            request, via: target.target, context: OperationContext(idempotencyKey: idempotencyKey))
                    })
            }
        }
    }
}

struct WebhookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhook", abstract: "Verify webhooks.", subcommands: [Verify.self])

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a delivery (body on stdin) for a provider instance and print its events.")
        @OptionGroup var config: ConfigOptions
        @Option(name: .customLong("provider"), help: "The provider instance the webhook was sent to.") var providerName:
            String
        @Option(name: .customLong("header"), help: "A header as 'Name: value'; repeat.") var headers: [String] = []

        func run() async throws {
            try await reportingErrors {
                var fields = HTTPFields()
                for header in headers {
                    let parts = header.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2,
                        let name = HTTPField.Name(String(parts[0]).trimmingCharacters(in: .whitespaces))
                    else {
                        throw CLIUsageError(message: "--header must look like 'Name: value'")
                    }
                    fields.append(HTTPField(name: name, value: String(parts[1]).trimmingCharacters(in: .whitespaces)))
                }
                let body = CLIStreams.current.stdin()
                let events = try config.gateway().verifyWebhook(
                    WebhookDelivery(headers: fields, body: body), instance: providerName)
                try CLIOutput.json(events.map(GatewayEventJSON.init))
            }
        }
    }
}
