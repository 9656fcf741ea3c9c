import AdyenSimulator
import BridgeSimulator
import CardGateway
import CardGatewaySimulation
import ExampleSupport
import Foundation
import HTTPTypes
import PaysafeSimulator
import StripeSimulator
import Testing
import TrustPaymentsSimulator

/// Bad input at every public entry point, collected in one place per entry point: the library's `CardGateway`
/// API and configuration loader, and the `cardgateway` CLI (the provisioning server's collection is in
/// `ProvisioningServerBadInputTests`). Every case must be refused with a clear `invalidRequest` (or, for a
/// webhook whose body is not what was signed, `signatureInvalid`), never echo the bad value, and — the
/// simulators' journals prove it — send nothing to any provider.
enum BadInput {
    /// Ids that must never reach a provider's URL path or a header.
    static let ids: [(name: String, value: String)] = [
        ("empty", ""),
        ("oversized", String(repeating: "a", count: 4_096)),
        ("path traversal", "../../v1/cards"),
        ("dot segment", ".."),
        ("percent-encoded traversal", "%2e%2e%2fv1%2fcards"),
        ("backslash traversal", "..\\..\\v1"),
        ("CRLF", "ic_1\r\nX-Injected: yes"),
        ("NUL", "ic_1\u{0}x"),
        ("space", "ic 1"),
        ("query", "ic_1?expand=all"),
        ("not ASCII (what invalid UTF-8 decodes to)", "ic_\u{FFFD}1"),
    ]

    /// Values for a header-like context field (idempotency key, request id).
    static let headerValues: [(name: String, value: String)] = [
        ("empty", ""), ("CRLF", "key\r\nX-Injected: yes"), ("NUL", "key\u{0}"),
        ("oversized", String(repeating: "k", count: 300)),
        ("space", "a key"),
    ]

    static let leaf = BridgeSimulator.TestInputs.leafCertificate
    static let subordinate = BridgeSimulator.TestInputs.subordinateCertificate
    static let nonce = BridgeSimulator.TestInputs.nonce
    static let signature = BridgeSimulator.TestInputs.nonceSignature
    /// "hello world", Base64-decoded: bytes, but not a certificate.
    static let notDER = Data("hello world".utf8)

    /// Apple Pay inputs that are not what PassKit produces, with the field the error must name.
    static let applePayInputs: [(name: String, input: ApplePayProvisioningInput, field: String)] = [
        ("no certificates", .init(certificates: [], nonce: nonce, nonceSignature: signature), "input.certificates"),
        ("one certificate", .init(certificates: [leaf], nonce: nonce, nonceSignature: signature), "input.certificates"),
        (
            "three certificates",
            .init(certificates: [leaf, subordinate, subordinate], nonce: nonce, nonceSignature: signature),
            "input.certificates"
        ),
        (
            "an empty certificate", .init(certificates: [leaf, Data()], nonce: nonce, nonceSignature: signature),
            "input.certificates[1]"
        ),
        (
            "a non-DER certificate",
            .init(certificates: [notDER, subordinate], nonce: nonce, nonceSignature: signature), "input.certificates[0]"
        ),
        (
            "DER with trailing bytes",
            .init(certificates: [leaf + Data([0]), subordinate], nonce: nonce, nonceSignature: signature),
            "input.certificates[0]"
        ),
        (
            "a truncated certificate",
            .init(certificates: [leaf.prefix(leaf.count / 2), subordinate], nonce: nonce, nonceSignature: signature),
            "input.certificates[0]"
        ),
        (
            "an oversized certificate",
            .init(
                certificates: [Data(repeating: 0x30, count: 40_000), subordinate], nonce: nonce,
                nonceSignature: signature), "input.certificates[0]"
        ),
        (
            "an empty nonce", .init(certificates: [leaf, subordinate], nonce: Data(), nonceSignature: signature),
            "input.nonce"
        ),
        (
            "an empty signature", .init(certificates: [leaf, subordinate], nonce: nonce, nonceSignature: Data()),
            "input.nonceSignature"
        ),
        (
            "an oversized nonce",
            .init(
                certificates: [leaf, subordinate], nonce: Data(repeating: 1, count: 10_000), nonceSignature: signature),
            "input.nonce"
        ),
    ]

    /// Google Pay ids that are not what Google's API produces.
    static let googlePayInputs: [(name: String, input: GooglePayProvisioningInput, field: String)] = [
        ("an empty device id", .init(clientDeviceID: "", clientWalletAccountID: "wallet-1"), "input.clientDeviceID"),
        (
            "CRLF in the device id", .init(clientDeviceID: "dev\r\nX: y", clientWalletAccountID: "wallet-1"),
            "input.clientDeviceID"
        ),
        (
            "NUL in the wallet account id", .init(clientDeviceID: "dev-1", clientWalletAccountID: "w\u{0}1"),
            "input.clientWalletAccountID"
        ),
        (
            "an oversized wallet account id",
            .init(clientDeviceID: "dev-1", clientWalletAccountID: String(repeating: "w", count: 1_000)),
            "input.clientWalletAccountID"
        ),
    ]

    /// JSON nested far deeper than any real document.
    static let deeplyNested = Data(
        (String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
    /// Bytes that are not UTF-8.
    static let invalidUTF8 = Data([0x7b, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d])

    /// Every request any simulator has received.
    static func sent(_ running: RunningSimulators) -> Int {
        running.handles.reduce(0) { $0 + $1.journal.entries().count }
    }
}

@Suite("Bad input: the library API", .timeLimit(.minutes(5)))
struct LibraryBadInputTests {
    typealias Instance = EmbeddedSimulators.Instance

    /// Expects `body` to throw `code` naming `field` (when given) without repeating `value`.
    static func expectRefused(
        _ what: String, code: CardGatewayError.Code = .invalidRequest, field: String? = nil, value: String? = nil,
        _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        do {
            try await body()
            Issue.record("\(what): accepted", sourceLocation: sourceLocation)
        } catch let error as CardGatewayError {
            #expect(error.code == code, "\(what): \(error.code) — \(error.message)", sourceLocation: sourceLocation)
            if let field {
                #expect(
                    error.fieldErrors.contains { $0.field == field },
                    "\(what): no error names \(field): \(error.fieldErrors)", sourceLocation: sourceLocation)
            }
            if let value, value.count > 3 {
                #expect(
                    !String(describing: error).contains(value), "\(what): the error repeats the bad value",
                    sourceLocation: sourceLocation)
            }
        } catch {
            Issue.record("\(what): not a CardGatewayError: \(type(of: error))", sourceLocation: sourceLocation)
        }
    }

    @Test("bad ids at every operation of every provider are refused with invalidRequest, and nothing is sent")
    func ids() async throws {
        try await EmbeddedSimulators().run { running in
            let gateway = try running.gateway()
            // The journals count: one good read reaches its simulator.
            let before = BadInput.sent(running)
            _ = try await gateway.card(CardRef(id: StripeSimulator.Seed.activeCardID), via: .instance(Instance.stripe))
            #expect(BadInput.sent(running) == before + 1)

            let start = BadInput.sent(running)
            for (name, id) in BadInput.ids {
                for instance in [Instance.stripe, Instance.adyen] {
                    await Self.expectRefused("\(instance) card, \(name) id", value: id) {
                        _ = try await gateway.card(CardRef(id: id), via: .instance(instance))
                    }
                    await Self.expectRefused("\(instance) offer, \(name) id", value: id) {
                        _ = try await gateway.provisioningOffer(
                            for: CardRef(id: id), wallet: .applePay, via: .instance(instance))
                    }
                }
                await Self.expectRefused("bridge card, \(name) id", value: id) {
                    _ = try await gateway.card(
                        CardRef(id: id, customer: BridgeSimulator.Seed.customerID), via: .instance(Instance.bridge))
                }
                await Self.expectRefused("bridge card, \(name) customer", value: id) {
                    _ = try await gateway.card(
                        CardRef(id: BridgeSimulator.Seed.activeVisa, customer: id), via: .instance(Instance.bridge))
                }
                await Self.expectRefused("paysafe card, \(name) id", value: id) {
                    _ = try await gateway.card(
                        CardRef(id: id, customer: PaysafeSimulator.Seed.euCustomer), via: .instance(Instance.paysafe))
                }
                await Self.expectRefused("paysafe lock, \(name) id", value: id) {
                    _ = try await gateway.changeCardStatus(
                        CardStatusRequest(
                            card: CardRef(id: id, customer: PaysafeSimulator.Seed.euCustomer), intent: .lock,
                            comment: "test"),
                        via: .instance(Instance.paysafe)
                    )
                }
                await Self.expectRefused("paysafe Google Pay, \(name) id", value: id) {
                    _ = try await gateway.provision(
                        ProvisioningRequest(
                            card: CardRef(id: id, customer: PaysafeSimulator.Seed.euCustomer), wallet: .googlePay,
                            input: .googlePay(SampleInputs.googlePay)),
                        via: .instance(Instance.paysafe)
                    )
                }
                await Self.expectRefused("trust payments reuse session, \(name) reference", value: id) {
                    _ = try await gateway.clientSession(
                        ClientSessionRequest(
                            intent: .reuse(reference: id), amount: Money(minorUnits: 100, currency: "GBP")),
                        via: .instance(Instance.trustPayments)
                    )
                }
                await Self.expectRefused("trust payments charge, \(name) reference", value: id) {
                    _ = try await gateway.charge(
                        ChargeRequest(
                            reference: id, amount: Money(minorUnits: 100, currency: "GBP"),
                            initiator: .merchant(.unscheduled)),
                        via: .instance(Instance.trustPayments)
                    )
                }
            }
            #expect(BadInput.sent(running) == start, "a bad id reached a provider")
        }
    }

    @Test("malformed Apple Pay and Google Pay inputs are refused before any provider is asked")
    func provisioningInputs() async throws {
        try await EmbeddedSimulators().run { running in
            let gateway = try running.gateway()
            let start = BadInput.sent(running)
            let paysafeCard = CardRef(
                id: PaysafeSimulator.Seed.activeCardID, customer: PaysafeSimulator.Seed.euCustomer)
            let bridgeCard = CardRef(id: BridgeSimulator.Seed.activeVisa, customer: BridgeSimulator.Seed.customerID)
            for (name, input, field) in BadInput.applePayInputs {
                for (instance, card) in [(Instance.paysafe, paysafeCard), (Instance.bridge, bridgeCard)] {
                    await Self.expectRefused("\(instance) Apple Pay with \(name)", field: field) {
                        _ = try await gateway.provision(
                            ProvisioningRequest(card: card, wallet: .applePay, input: .applePay(input)),
                            via: .instance(instance))
                    }
                }
            }
            for (name, input, field) in BadInput.googlePayInputs {
                for (instance, card) in [(Instance.paysafe, paysafeCard), (Instance.bridge, bridgeCard)] {
                    await Self.expectRefused("\(instance) Google Pay with \(name)", field: field) {
                        _ = try await gateway.provision(
                            ProvisioningRequest(card: card, wallet: .googlePay, input: .googlePay(input)),
                            via: .instance(instance))
                    }
                }
            }
            for (name, version) in [
                ("empty", ""), ("CRLF", "2020-08-27\r\nX: y"), ("oversized", String(repeating: "9", count: 100)),
            ] {
                await Self.expectRefused(
                    "Stripe ephemeral key, \(name) API version", field: "input.apiVersion", value: version
                ) {
                    _ = try await gateway.provision(
                        ProvisioningRequest(
                            card: CardRef(id: StripeSimulator.Seed.activeCardID), wallet: .applePay,
                            input: .issuerSDKKey(apiVersion: version)),
                        via: .instance(Instance.stripe)
                    )
                }
            }
            await Self.expectRefused("Adyen relay with an empty SDK output", field: "input.sdkOutput") {
                _ = try await gateway.provision(
                    ProvisioningRequest(
                        card: CardRef(id: AdyenSimulator.Seed.activeVisaID), wallet: .applePay,
                        input: .issuerSDK(output: SensitiveData(Data()))),
                    via: .instance(Instance.adyen)
                )
            }
            #expect(BadInput.sent(running) == start, "a malformed provisioning input reached a provider")

            // The same chain, well formed, is accepted and reaches Bridge: the checks refuse only what is wrong.
            _ = try await gateway.provision(
                ProvisioningRequest(card: bridgeCard, wallet: .applePay, input: .applePay(SampleInputs.applePay)),
                via: .instance(Instance.bridge))
            #expect(BadInput.sent(running) > start)
        }
    }

    @Test("an idempotency key or request id with a line break, a NUL or no length is refused for every operation")
    func contextValues() async throws {
        try await EmbeddedSimulators().run { running in
            let gateway = try running.gateway()
            let start = BadInput.sent(running)
            for (name, value) in BadInput.headerValues {
                await Self.expectRefused("idempotency key, \(name)", field: "idempotencyKey", value: value) {
                    _ = try await gateway.createCard(
                        CreateCardRequest(
                            customer: PaysafeSimulator.Seed.euCustomer, type: .virtual,
                            program: PaysafeSimulator.Seed.virtualMCProgram, currency: "EUR"),
                        via: .instance(Instance.paysafe), context: OperationContext(idempotencyKey: value)
                    )
                }
                await Self.expectRefused("request id, \(name)", field: "requestID", value: value) {
                    _ = try await gateway.card(
                        CardRef(id: StripeSimulator.Seed.activeCardID), via: .instance(Instance.stripe),
                        context: OperationContext(requestID: value))
                }
            }
            #expect(BadInput.sent(running) == start)
        }
    }

    @Test("webhook bodies that are empty, not UTF-8, deeply nested or oversized are refused, and yield no event")
    func webhooks() async throws {
        let simulators = EmbeddedSimulators()
        try await simulators.run { running in
            let gateway = try running.gateway()
            for instance in [Instance.paysafe, Instance.adyen, Instance.stripe, Instance.bridge] {
                let sample = try #require(try simulators.sampleWebhook(instance: instance))
                #expect(
                    try gateway.verifyWebhook(sample, instance: instance).isEmpty == false,
                    "\(instance): the genuine delivery is accepted")
                for (name, body) in [
                    ("empty", Data()), ("not UTF-8", BadInput.invalidUTF8), ("deeply nested", BadInput.deeplyNested),
                    ("oversized", Data(repeating: UInt8(ascii: "a"), count: 2 * 1024 * 1024)),
                ] {
                    await Self.expectRefused(
                        "\(instance) webhook, \(name) body under the genuine signature", code: .signatureInvalid
                    ) {
                        _ = try gateway.verifyWebhook(
                            WebhookDelivery(headers: sample.headers, body: body), instance: instance)
                    }
                    await Self.expectRefused(
                        "\(instance) webhook, \(name) body and no signature", code: .signatureInvalid
                    ) {
                        _ = try gateway.verifyWebhook(
                            WebhookDelivery(headers: HTTPFields(), body: body), instance: instance)
                    }
                }
            }
        }
    }

    @Test(
        "a configuration that is empty, not UTF-8, deeply nested or of the wrong shape is refused with invalidConfiguration"
    )
    func configuration() async throws {
        for (name, data) in [
            ("empty", Data()), ("not UTF-8", BadInput.invalidUTF8), ("deeply nested", BadInput.deeplyNested),
            (
                "deeply nested object",
                Data((String(repeating: #"{"a":"#, count: 50_000) + "1" + String(repeating: "}", count: 50_000)).utf8)
            ),
            ("an array", Data("[]".utf8)),
            ("a provider with a CRLF name", Data(#"{"providers":{"a\r\nb":{"kind":"stripe"}},"routes":[]}"#.utf8)),
        ] {
            await LibraryBadInputTests.expectRefused("configuration: \(name)", code: .invalidConfiguration) {
                _ = try GatewayConfiguration.load(from: data, registry: ExampleRegistry.all)
            }
        }
    }
}

@Suite("Bad input: the cardgateway CLI", .timeLimit(.minutes(5)))
struct CLIBadInputTests {
    @Test("bad ids, wallets, Base64 and certificates are refused with invalidRequest, and nothing is sent")
    func cli() async throws {
        try await withSimulatorConfiguration { config, running in
            let leaf = BadInput.leaf.base64EncodedString()
            let subordinate = BadInput.subordinate.base64EncodedString()
            let nonce = BadInput.nonce.base64EncodedString()
            let signature = BadInput.signature.base64EncodedString()
            let bridge = [
                "--config", config, "--provider", EmbeddedSimulators.Instance.bridge, "--customer",
                BridgeSimulator.Seed.customerID,
            ]
            func apple(_ certificates: [String], nonce: String = nonce) -> [String] {
                ["provision", "apple-pay"] + bridge + certificates.flatMap { ["--certificate", $0] } + [
                    "--nonce", nonce, "--nonce-signature", signature, BridgeSimulator.Seed.activeVisa,
                ]
            }
            var cases: [(String, [String])] = []
            for (name, id) in BadInput.ids where !id.isEmpty {
                cases.append(
                    (
                        "card get, \(name) id",
                        ["card", "get", "--config", config, "--provider", EmbeddedSimulators.Instance.stripe, "--", id]
                    ))
                cases.append(
                    (
                        "offer, \(name) id",
                        [
                            "provision", "offer", "--config", config, "--provider", EmbeddedSimulators.Instance.adyen,
                            "--wallet", "apple-pay", "--", id,
                        ]
                    ))
            }
            cases += [
                (
                    "card get, empty id",
                    ["card", "get", "--config", config, "--provider", EmbeddedSimulators.Instance.stripe, ""]
                ),
                (
                    "unknown wallet",
                    [
                        "provision", "offer", "--config", config, "--provider", EmbeddedSimulators.Instance.adyen,
                        "--wallet", "fruit-pay", AdyenSimulator.Seed.activeVisaID,
                    ]
                ),
                ("non-Base64 certificate", apple(["%%%not base64%%%", subordinate])),
                ("non-Base64 nonce", apple([leaf, subordinate], nonce: "not base64!")),
                ("no certificates", apple([])),
                ("one certificate", apple([leaf])),
                ("three certificates", apple([leaf, subordinate, subordinate])),
                (
                    "a non-DER certificate (hello world in Base64)",
                    apple([BadInput.notDER.base64EncodedString(), subordinate])
                ),
                (
                    "Google Pay device id with CRLF",
                    [
                        "provision", "google-pay", "--config", config, "--provider",
                        EmbeddedSimulators.Instance.paysafe, "--customer", PaysafeSimulator.Seed.euCustomer,
                        "--device-id", "dev\r\nX: y", "--wallet-account-id", "w-1", PaysafeSimulator.Seed.activeCardID,
                    ]
                ),
                (
                    "ephemeral key, CRLF API version",
                    [
                        "provision", "ephemeral-key", "--config", config, "--provider",
                        EmbeddedSimulators.Instance.stripe, "--api-version", "2020-08-27\r\nX: y",
                        StripeSimulator.Seed.activeCardID,
                    ]
                ),
            ]
            let start = BadInput.sent(running)
            for (name, arguments) in cases {
                let run = await runCLI(arguments)
                #expect(run.exitCode != 0, "\(name): exit code 0")
                let error = try? run.error()
                #expect(error?["code"]?.stringValue == "invalidRequest", "\(name): \(run.stderr.prefix(300))")
                #expect(error?["retryable"]?.boolValue == false, "\(name)")
                #expect(error?["mayHaveReachedProvider"]?.boolValue == false, "\(name)")
                #expect(!run.stderr.contains("\r\n"), "\(name): a line break reached the output")
            }
            #expect(BadInput.sent(running) == start, "a bad input reached a provider")
        }
    }
}
