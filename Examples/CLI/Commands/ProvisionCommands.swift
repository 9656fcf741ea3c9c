import ArgumentParser
import CardGateway
import Foundation

struct ProvisionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "provision", abstract: "Add cards to Apple Pay, Google Pay and Samsung Pay.",
        subcommands: [
            Offer.self, ApplePay.self, GooglePay.self, SamsungPay.self, IssuerSDK.self, EphemeralKey.self, Confirm.self,
        ]
    )

    static func wallet(_ text: String) throws -> Wallet {
        guard let wallet = Wallet(parsing: text) else {
            throw CLIUsageError(message: "unknown wallet \"\(text)\"; expected apple-pay, google-pay or samsung-pay")
        }
        return wallet
    }

    static func base64(_ text: String, _ option: String) throws -> Data {
        guard let data = ByteEncoding.decodeBase64(text), !data.isEmpty else {
            throw CLIUsageError(message: "\(option) must be standard Base64")
        }
        return data
    }

    static func provision(
        _ config: ConfigOptions, _ target: TargetOptions, card: CardRef, wallet: Wallet, input: ProvisioningInput,
        device: DeviceOptions? = nil
    ) async throws {
        let request = ProvisioningRequest(
            card: card, wallet: wallet, input: input, deviceType: try device?.type(), appVersion: device?.appVersion)
        let response = try await config.withGateway() { gateway in
            try await gateway.provision(request, via: target.target)
        }
        try CLIOutput.json(ProvisioningResponseJSON(response))
    }

    /// The device the card is added on and the app's version, as the app reports them (Marqeta's `device_type` and
    /// `provisioning_app_version`); the provider instance's options apply where they are left out.
    struct DeviceOptions: ParsableArguments {
        @Option(
            name: .customLong("device-type"), help: "mobile-phone, watch, tablet, wearable, household or automobile.")
        var deviceType: String?
        @Option(name: .customLong("app-version"), help: "The version of the app that provisions.") var appVersion:
            String?

        func type() throws -> ProvisioningDeviceType? {
            guard let deviceType else { return nil }
            guard let kind = ProvisioningDeviceType(parsing: deviceType) else {
                throw CLIUsageError(
                    message:
                        "unknown device type \"\(deviceType)\"; expected mobile-phone, watch, tablet, wearable, household or automobile"
                )
            }
            return kind
        }
    }

    struct Offer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Whether a card can be added to a wallet, by which flow, and what the wallet sheet needs.")
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option var customer: String?
        @Option(help: "apple-pay, google-pay or samsung-pay.") var wallet: String
        @Argument var cardID: String

        func run() async throws {
            try await reportingErrors {
                let offer = try await config.withGateway() { gateway in
                    try await gateway.provisioningOffer(
                        for: CardRef(id: cardID, customer: customer), wallet: try ProvisionCommand.wallet(wallet),
                        via: target.target)
                }
                try CLIOutput.json(offer)
            }
        }
    }

    struct ApplePay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "apple-pay",
            abstract:
                "Encrypted-payload provisioning for Apple Pay: PassKit's certificates (leaf first), nonce and signature."
        )
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option var customer: String?
        @Option(
            name: .customLong("certificate"),
            help: "A certificate from PassKit's chain, Base64 DER; repeat, leaf first.") var certificates: [String] = []
        @Option(help: "Base64.") var nonce: String
        @Option(name: .customLong("nonce-signature"), help: "Base64.") var nonceSignature: String
        @OptionGroup var device: ProvisionCommand.DeviceOptions
        @Argument var cardID: String

        func run() async throws {
            try await reportingErrors {
                let input = ApplePayProvisioningInput(
                    certificates: try certificates.map { try ProvisionCommand.base64($0, "--certificate") },
                    nonce: try ProvisionCommand.base64(nonce, "--nonce"),
                    nonceSignature: try ProvisionCommand.base64(nonceSignature, "--nonce-signature")
                )
                try await ProvisionCommand.provision(
                    config, target, card: CardRef(id: cardID, customer: customer), wallet: .applePay,
                    input: .applePay(input), device: device)
            }
        }
    }

    struct GooglePay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "google-pay", abstract: "Encrypted-payload provisioning for Google Pay.")
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option var customer: String?
        @Option(name: .customLong("device-id")) var deviceID: String
        @Option(name: .customLong("wallet-account-id")) var walletAccountID: String
        @OptionGroup var device: ProvisionCommand.DeviceOptions
        @Argument var cardID: String

        func run() async throws {
            try await reportingErrors {
                let input = GooglePayProvisioningInput(clientDeviceID: deviceID, clientWalletAccountID: walletAccountID)
                try await ProvisionCommand.provision(
                    config, target, card: CardRef(id: cardID, customer: customer), wallet: .googlePay,
                    input: .googlePay(input), device: device
                )
            }
        }
    }

    struct SamsungPay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "samsung-pay",
            abstract:
                "Encrypted-payload provisioning for Samsung Pay: Samsung's device id and wallet user id; prints the extra provision payload, network, card type and token provider."
        )
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option var customer: String?
        @Option(name: .customLong("device-id")) var deviceID: String
        @Option(
            name: [.customLong("wallet-user-id"), .customLong("wallet-account-id")], help: "Samsung's wallet user id.")
        var walletUserID: String
        @OptionGroup var device: ProvisionCommand.DeviceOptions
        @Argument var cardID: String

        func run() async throws {
            try await reportingErrors {
                let input = SamsungPayProvisioningInput(deviceID: deviceID, walletUserID: walletUserID)
                try await ProvisionCommand.provision(
                    config, target, card: CardRef(id: cardID, customer: customer), wallet: .samsungPay,
                    input: .samsungPay(input), device: device
                )
            }
        }
    }

    struct IssuerSDK: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "issuer-sdk",
            abstract: "One round trip of an issuer-SDK relay (Adyen): without --sdk-output it starts the exchange.")
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option var customer: String?
        @Option(help: "apple-pay or google-pay.") var wallet: String = "apple-pay"
        @Option(name: .customLong("sdk-output"), help: "The SDK's output, Base64.") var sdkOutput: String?
        @Argument var cardID: String

        func run() async throws {
            try await reportingErrors {
                let output = try sdkOutput.map { SensitiveData(try ProvisionCommand.base64($0, "--sdk-output")) }
                try await ProvisionCommand.provision(
                    config, target, card: CardRef(id: cardID, customer: customer),
                    wallet: try ProvisionCommand.wallet(wallet), input: .issuerSDK(output: output))
            }
        }
    }

    struct EphemeralKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ephemeral-key",
            abstract: "Mint an issuer-SDK key (Stripe) pinned to the API version the app's SDK asked for.")
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option var customer: String?
        @Option(help: "apple-pay or google-pay.") var wallet: String = "apple-pay"
        @Option(name: .customLong("api-version")) var apiVersion: String
        @Argument var cardID: String

        func run() async throws {
            try await reportingErrors {
                try await ProvisionCommand.provision(
                    config, target, card: CardRef(id: cardID, customer: customer),
                    wallet: try ProvisionCommand.wallet(wallet), input: .issuerSDKKey(apiVersion: apiVersion))
            }
        }
    }

    struct Confirm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Tell the provider the wallet reported success.")
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option var customer: String?
        @Option var wallet: String
        @Option(name: .customLong("device-account-reference")) var deviceAccountReference: String
        @Option(name: .customLong("wallet-id")) var walletID: String?
        @Argument var cardID: String

        func run() async throws {
            try await reportingErrors {
                let confirmation = ProvisioningConfirmation(
                    card: CardRef(id: cardID, customer: customer), wallet: try ProvisionCommand.wallet(wallet),
                    deviceAccountReference: deviceAccountReference, walletID: walletID)
                try await config.withGateway() { gateway in
                    try await gateway.confirmProvisioning(confirmation, via: target.target)
                }
                try CLIOutput.json(["confirmed": true])
            }
        }
    }
}
