import AdyenSimulator
import BridgeSimulator
@_spi(AdapterSupport) import CardGateway
import CardGatewaySimulation
import Foundation
import Synchronization
import Logging
import LithicSimulator
import MarqetaSimulator
import PaysafeSimulator
import StripeSimulator
import TrustPaymentsSimulator

/// The outcome of one demo step. Outcomes describe results (ids, statuses, sizes); they never hold card data,
/// payloads, keys or tokens.
public struct DemoStepResult: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable {
        case passed, failed, skipped
    }

    /// What the step does, e.g. `card service: lock a card`.
    public var name: String
    /// The provider instance the router chose (or that the step names).
    public var instance: String
    public var status: Status
    /// What happened: a short, safe sentence.
    public var outcome: String
    /// The `CardGatewayError` code when the step failed with one.
    public var errorCode: String?
    public var milliseconds: Double
}

/// Every step of `cardgateway demo`, in order.
public struct DemoReport: Sendable, Codable, Equatable {
    public var steps: [DemoStepResult]
    /// True when no step failed.
    public var passed: Bool { !steps.contains { $0.status == .failed } }
    public var failures: [DemoStepResult] { steps.filter { $0.status == .failed } }
}

/// The main job: every capability of every provider, through the router, against the embedded simulators.
///
/// No credentials and no network beyond loopback: the six simulators listen on ephemeral 127.0.0.1 ports for
/// the duration of the run. A step that fails is reported and the run goes on; the report says whether all passed.
public enum Demo: Sendable {
    /// Runs the demo.
    /// - Parameters:
    ///   - logger: the gateway's logger (it never logs secrets or card data); silent by default.
    ///   - beforeSteps: runs once the simulators listen, before the first step (tests inject faults here).
    ///   - progress: called when a step starts (`nil` result) and when it ends.
    ///   - makeGateway: builds the gateway over the running simulators (tests give it other stores).
    public static func run(
        logger: Logger = OperationContext.noopLogger,
        beforeSteps: @Sendable (RunningSimulators) async throws -> Void = { _ in },
        progress: @escaping @Sendable (_ name: String, _ result: DemoStepResult?) -> Void = { _, _ in },
        makeGateway: @Sendable (RunningSimulators, Logger) throws -> CardGateway = { running, logger in
            try running.gateway(logger: logger)
        }
    ) async throws -> DemoReport {
        let simulators = EmbeddedSimulators()
        return try await simulators.run { running in
            try await beforeSteps(running)
            var recorder = DemoRecorder(progress: progress)
            let gateway: CardGateway
            do {
                gateway = try makeGateway(running, logger)
            } catch {
                await recorder.step("configuration: load and validate", "-") { throw error }
                return recorder.report
            }
            await recorder.step("configuration: load and validate", "-") {
                "\(gateway.instances.count) provider instances, \(gateway.configuration.routes.count) routes"
            }
            await DemoSteps(gateway: gateway, simulators: simulators, running: running).run(&recorder)
            return recorder.report
        }
    }
}

/// Times and records steps.
struct DemoRecorder {
    let progress: @Sendable (String, DemoStepResult?) -> Void
    private(set) var report = DemoReport(steps: [])

    init(progress: @escaping @Sendable (String, DemoStepResult?) -> Void) {
        self.progress = progress
    }

    /// Runs one step; any error fails it (with its code when it is a `CardGatewayError`) and the demo goes on.
    mutating func step(_ name: String, _ instance: String, _ body: () async throws -> String) async {
        progress(name, nil)
        let clock = ContinuousClock()
        let start = clock.now
        var result: DemoStepResult
        do {
            let outcome = try await body()
            result = DemoStepResult(
                name: name, instance: instance, status: .passed, outcome: outcome, errorCode: nil, milliseconds: 0)
        } catch let error as CardGatewayError {
            result = DemoStepResult(
                name: name, instance: instance, status: .failed, outcome: error.description,
                errorCode: error.code.rawValue, milliseconds: 0)
        } catch let error as DemoExpectationFailure {
            result = DemoStepResult(
                name: name, instance: instance, status: .failed, outcome: error.message, errorCode: nil, milliseconds: 0
            )
        } catch {
            result = DemoStepResult(
                name: name, instance: instance, status: .failed, outcome: "unexpected \(type(of: error))",
                errorCode: nil, milliseconds: 0)
        }
        let elapsed = clock.now - start
        result.milliseconds = elapsed.timeInterval * 1000
        report.steps.append(result)
        progress(name, result)
    }

    mutating func skip(_ name: String, _ instance: String, because reason: String) {
        let result = DemoStepResult(
            name: name, instance: instance, status: .skipped, outcome: reason, errorCode: nil, milliseconds: 0)
        report.steps.append(result)
        progress(name, result)
    }
}

/// A result the demo did not expect (the call itself succeeded).
struct DemoExpectationFailure: Error {
    var message: String
}

func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw DemoExpectationFailure(message: message()) }
}

/// The steps, provider by provider.
struct DemoSteps {
    let gateway: CardGateway
    let simulators: EmbeddedSimulators
    /// The simulators' addresses, for the steps that act as the app (card reveal); nil skips what needs them.
    var running: RunningSimulators? = nil
    typealias Instance = EmbeddedSimulators.Instance
    typealias Issuer = EmbeddedSimulators.Issuer

    func run(_ recorder: inout DemoRecorder) async {
        await routing(&recorder)
        await paysafe(&recorder)
        await adyen(&recorder)
        await stripe(&recorder)
        await bridge(&recorder)
        await trustPayments(&recorder)
        await marqeta(&recorder)
        await lithic(&recorder)
        await cardReveal(&recorder)
        await authorizations(&recorder)
        await webhooks(&recorder)
    }

    /// The route a key takes and why.
    func routing(_ recorder: inout DemoRecorder) async {
        for (key, expected) in [
            (RouteKey(issuer: Issuer.stripe, operation: .provision), Instance.stripe),
            (RouteKey(program: PaysafeSimulator.Seed.virtualMCProgram, operation: .createCard), Instance.paysafe),
            (RouteKey(issuer: Issuer.paysafe, operation: .charge), Instance.trustPayments),
        ] {
            await recorder.step(
                "routing: \(key.operation?.rawValue ?? "any") by \(key.issuer.map { "issuer \($0)" } ?? key.program.map { "program \($0)" } ?? "-")",
                expected
            ) {
                let explanation = gateway.explain(key)
                guard let match = explanation.match else { throw DemoExpectationFailure(message: "no route matched") }
                try expect(match.instance == expected, "routed to \(match.instance), expected \(expected)")
                return "routes[\(match.routeIndex)] matched; \(match.routeIndex) earlier route(s) skipped"
            }
        }
    }

    // MARK: Paysafe: card service, encrypted payloads, confirm

    func paysafe(_ recorder: inout DemoRecorder) async {
        typealias Seed = PaysafeSimulator.Seed
        let via = RouteTarget.key(RouteKey(issuer: Issuer.paysafe))
        let customer = Seed.euCustomer
        let name = Instance.paysafe

        await recorder.step("card service: list a customer's cards", name) {
            let page = try await gateway.listCards(CardQuery(customer: customer, limit: 50), via: via)
            try expect(!page.cards.isEmpty, "the seeded customer has no cards")
            let statuses = Dictionary(grouping: page.cards, by: \.status).map { "\($0.value.count) \($0.key.rawValue)" }
                .sorted()
            return "\(page.cards.count) cards of \(customer): \(statuses.joined(separator: ", "))"
        }
        await recorder.step("card service: card programs", name) {
            let programs = try await gateway.programs(customer: customer, via: via)
            try expect(!programs.isEmpty, "no programs")
            return programs.map(\.name).joined(separator: ", ")
        }
        await recorder.step("card service: create a virtual card (routed by program)", name) {
            let request = CreateCardRequest(
                customer: customer, type: .virtual, program: Seed.virtualMCProgram, currency: "EUR")
            let card = try await gateway.createCard(request, via: .key(RouteKey(program: Seed.virtualMCProgram)))
            try expect(card.type == .virtual, "created a \(card.type.rawValue) card")
            return
                "\(card.ref.id): \(card.status.rawValue) virtual \(card.scheme.rawValue) ending \(card.lastFour ?? "?")"
        }
        await recorder.step("card service: create a physical card", name) {
            let request = CreateCardRequest(
                customer: customer, type: .physical, program: Seed.physicalMCProgram, currency: "EUR",
                deliveryAddress: DeliveryAddress(
                    address1: "Tsarigradsko Shose 73", city: "Sofia", countryCode: "BG", state: nil, postalCode: "1000")
            )
            let card = try await gateway.createCard(request, via: .key(RouteKey(program: Seed.physicalMCProgram)))
            try expect(card.type == .physical, "created a \(card.type.rawValue) card")
            return "\(card.ref.id): \(card.status.rawValue) physical card, to be activated on arrival"
        }
        await recorder.step("card service: activate a physical card", name) {
            // The cardholder types the last four digits and the CVV printed on the card.
            let request = ActivateCardRequest(
                card: CardRef(id: Seed.issuedCardID, customer: customer), lastFour: Seed.issuedCardLastFour,
                cvv: Secret(Seed.issuedCardCVV))
            let card = try await gateway.activateCard(request, via: via)
            try expect(card.status == .active, "the card is \(card.status.rawValue) after activation")
            return "\(card.ref.id) is active"
        }
        await lifecycle(
            &recorder, name: name, via: via, lockable: CardRef(id: Seed.activeVisaCardID, customer: customer),
            token: (card: CardRef(id: Seed.tokenizedCardID, customer: customer), id: Seed.tokenizedDPANRef)
        )
        let eligible = CardRef(id: Seed.activeCardID, customer: customer)
        await offerAndProvision(
            &recorder, name: name, via: via, card: eligible,
            inputs: [
                .applePay: [.applePay(SampleInputs.applePay)], .googlePay: [.googlePay(SampleInputs.googlePay)],
            ])
        await recorder.step("Apple Pay: offer for a locked card", name) {
            let offer = try await gateway.provisioningOffer(
                for: CardRef(id: Seed.lockedCardID, customer: customer), wallet: .applePay, via: via)
            try expect(!offer.eligible, "a locked card was offered")
            return "not offered: \(offer.ineligibleReason?.code ?? "no reason given")"
        }
        await confirm(&recorder, name: name, via: via, card: eligible, reference: "DAPLMC0000DEMO000000000000000001")
    }

    // MARK: Adyen: issuer SDK relay over two round trips

    func adyen(_ recorder: inout DemoRecorder) async {
        typealias Seed = AdyenSimulator.Seed
        let via = RouteTarget.key(RouteKey(issuer: Issuer.adyen))
        let card = CardRef(id: Seed.activeVisaID)
        await lookup(&recorder, name: Instance.adyen, via: via, card: card)
        // The app's SDK answers each sdkInput in turn: a start, then one output per round trip (filled in from the
        // previous response by `offerAndProvision`).
        func relay(_ wallet: Wallet) -> [ProvisioningInput] {
            [.issuerSDK(output: nil)]
                + (1...Seed.roundTripsToComplete).map { _ in .issuerSDK(output: SensitiveData(Data())) }
        }
        await offerAndProvision(
            &recorder, name: Instance.adyen, via: via, card: card,
            inputs: [.applePay: relay(.applePay), .googlePay: relay(.googlePay)])
        await lifecycle(
            &recorder, name: Instance.adyen, via: via, lockable: CardRef(id: Seed.lockableVisaID),
            token: (card: CardRef(id: Seed.walletVisaID), id: Seed.walletActiveTokenID)
        )
    }

    // MARK: Stripe: ephemeral keys for the issuer SDK

    func stripe(_ recorder: inout DemoRecorder) async {
        let via = RouteTarget.key(RouteKey(issuer: Issuer.stripe))
        let card = CardRef(id: StripeSimulator.Seed.activeCardID)
        await lookup(&recorder, name: Instance.stripe, via: via, card: card)
        let key = [ProvisioningInput.issuerSDKKey(apiVersion: SampleInputs.stripeSDKAPIVersion)]
        await offerAndProvision(
            &recorder, name: Instance.stripe, via: via, card: card, inputs: [.applePay: key, .googlePay: key])
        await lifecycle(
            &recorder, name: Instance.stripe, via: via,
            lockable: CardRef(id: StripeSimulator.Seed.activeCardWithoutPrimaryAccountIdentifierID),
            token: (card: card, id: StripeSimulator.Seed.activeApplePayTokenID)
        )
    }

    // MARK: Bridge: encrypted payloads

    func bridge(_ recorder: inout DemoRecorder) async {
        typealias Seed = BridgeSimulator.Seed
        let via = RouteTarget.key(RouteKey(issuer: Issuer.bridge))
        let card = CardRef(id: Seed.activeVisa, customer: Seed.customerID)
        await lookup(&recorder, name: Instance.bridge, via: via, card: card)
        await offerAndProvision(
            &recorder, name: Instance.bridge, via: via, card: card,
            inputs: [
                .applePay: [.applePay(SampleInputs.applePay)], .googlePay: [.googlePay(SampleInputs.googlePay)],
            ])
        // No confirm step: Bridge records nothing when the wallet reports success.
        await lifecycle(
            &recorder, name: Instance.bridge, via: via,
            lockable: CardRef(id: Seed.activeMastercard, customer: Seed.customerID), token: nil)
    }

    // MARK: Marqeta: encrypted payload for all three wallets, card and token transitions

    func marqeta(_ recorder: inout DemoRecorder) async {
        typealias Seed = MarqetaSimulator.Seed
        typealias Inputs = MarqetaSimulator.TestInputs
        let via = RouteTarget.key(RouteKey(issuer: Issuer.marqeta))
        let card = CardRef(id: Seed.activeCard)
        await lookup(&recorder, name: Instance.marqeta, via: via, card: card)
        let samsung = SamsungPayProvisioningInput(
            deviceID: Inputs.samsungDeviceID, walletUserID: Inputs.samsungWalletUserID)
        // Each wallet from another kind of device, as the app reports it (Marqeta's device_type).
        await offerAndProvision(
            &recorder, name: Instance.marqeta, via: via, card: card,
            inputs: [
                .applePay: [.applePay(SampleInputs.applePay)], .googlePay: [.googlePay(SampleInputs.googlePay)],
                .samsungPay: [.samsungPay(samsung)],
            ],
            devices: [.applePay: .watch, .googlePay: .tablet, .samsungPay: .mobilePhone]
        )
        // No confirm step: Marqeta records nothing when the wallet reports success (token transitions follow as webhooks).
        await lifecycle(
            &recorder, name: Instance.marqeta, via: via, lockable: CardRef(id: Seed.lockableCard),
            token: (card: CardRef(id: Seed.walletCard), id: Seed.activeToken)
        )
    }

    // MARK: Lithic: encrypted payload for all three wallets, card state and tokenization actions

    func lithic(_ recorder: inout DemoRecorder) async {
        typealias Seed = LithicSimulator.Seed
        let via = RouteTarget.key(RouteKey(issuer: Issuer.lithic))
        let card = CardRef(id: Seed.activeCard)
        await lookup(&recorder, name: Instance.lithic, via: via, card: card)
        let samsung = SamsungPayProvisioningInput(
            deviceID: Seed.TestInputs.samsungDeviceID, walletUserID: Seed.TestInputs.samsungWalletUserID)
        await offerAndProvision(
            &recorder, name: Instance.lithic, via: via, card: card,
            inputs: [
                .applePay: [.applePay(SampleInputs.applePay)], .googlePay: [.googlePay(SampleInputs.googlePay)],
                .samsungPay: [.samsungPay(samsung)],
            ]
        )
        // No confirm step: Lithic records nothing when the wallet reports success (tokenization.* events follow).
        await lifecycle(
            &recorder, name: Instance.lithic, via: via, lockable: CardRef(id: Seed.lockableCard),
            token: (card: CardRef(id: Seed.walletCard), id: Seed.activeToken)
        )
    }

    // MARK: Trust Payments: store, verify, charge, reuse

    func trustPayments(_ recorder: inout DemoRecorder) async {
        typealias Seed = TrustPaymentsSimulator.Seed
        // Stored-credential operations route by operation; any key reaches the Trust Payments instance.
        let via = RouteTarget.key(RouteKey(currency: "GBP"))
        let name = Instance.trustPayments
        let amount = Money(minorUnits: 1050, currency: "GBP")
        // Each step's result is carried to the next in a locked box, never in a var captured by the async closures.
        let session = Carried<ClientSession>()
        let resultJWT = Carried<Secret>()
        let stored = Carried<StoredCredential>()

        await recorder.step("credentials on file: session to store a card", name) {
            let request = ClientSessionRequest(
                intent: .store(
                    consent: CardholderConsent(recordedAt: Date(), evidence: "demo: save-card checkbox, terms v1")),
                amount: amount)
            let minted = try await gateway.clientSession(request, via: via)
            session.value = minted
            return "session JWT for the mobile SDK"
                + (minted.expires.map { ", expires \(InternetDateTime.format($0))" } ?? "")
        }
        await recorder.step("credentials on file: the mobile SDK pays (simulated)", name) {
            guard let session = session.value else {
                throw DemoExpectationFailure(message: "no session from the previous step")
            }
            // What the Trust Payments mobile SDK does on the phone with the card the cardholder typed.
            let jwt = try await simulators.trustPayments.sdkPayment(
                sessionJWT: session.token.revealedValue, pan: Seed.Card.visa, expiryDate: Seed.expiryDate,
                securityCode: "123")
            resultJWT.value = Secret(jwt)
            return "the SDK returned a signed response JWT"
        }
        await recorder.step("credentials on file: verify the SDK's result", name) {
            guard let resultJWT = resultJWT.value else {
                throw DemoExpectationFailure(message: "no SDK result from the previous step")
            }
            let credential = try await gateway.verifyResult(resultJWT, customer: "demo-customer-1", via: via)
            stored.value = credential
            return
                "stored reference \(credential.reference): \(credential.brand ?? credential.scheme.rawValue) \(credential.maskedPAN)"
        }
        await recorder.step("credentials on file: merchant-initiated charge", name) {
            guard let stored = stored.value else {
                throw DemoExpectationFailure(message: "no stored credential from the previous step")
            }
            let result = try await gateway.charge(
                ChargeRequest(reference: stored.reference, amount: amount, initiator: .merchant(.unscheduled)), via: via
            )
            try expect(
                result.status == .authorised || result.status == .settled, "the charge is \(result.status.rawValue)")
            return
                "\(result.status.rawValue) \(result.amount.minorUnits) \(result.amount.currency), transaction \(result.transactionReference)"
        }
        await recorder.step("credentials on file: session to pay with the stored card", name) {
            guard let stored = stored.value else {
                throw DemoExpectationFailure(message: "no stored credential from an earlier step")
            }
            let minted = try await gateway.clientSession(
                ClientSessionRequest(intent: .reuse(reference: stored.reference), amount: amount), via: via)
            return "session JWT for a cardholder-initiated payment"
                + (minted.securityCodeLength.map { " (security code of \($0) digits)" } ?? "")
        }
    }

    // MARK: Webhooks

    func webhooks(_ recorder: inout DemoRecorder) async {
        for name in [
            Instance.paysafe, Instance.adyen, Instance.stripe, Instance.bridge, Instance.trustPayments,
            Instance.marqeta, Instance.lithic,
        ] {
            let delivery: WebhookDelivery?
            do {
                delivery = try simulators.sampleWebhook(instance: name)
            } catch {
                await recorder.step("webhook: verify a signed delivery", name) { throw error }
                continue
            }
            guard let delivery else {
                recorder.skip(
                    "webhook: verify a signed delivery", name,
                    because: "Trust Payments sends no webhook the gateway verifies")
                continue
            }
            await recorder.step("webhook: verify a signed delivery", name) {
                let events = try gateway.verifyWebhook(delivery, instance: name)
                try expect(!events.isEmpty, "no events")
                var tampered = delivery
                tampered.body.append(contentsOf: Array(" ".utf8))
                do {
                    _ = try gateway.verifyWebhook(tampered, instance: name)
                    throw DemoExpectationFailure(message: "a tampered body was accepted")
                } catch let error as CardGatewayError where error.code == .signatureInvalid {}
                return events.map { describe($0) }.joined(separator: "; ") + "; a tampered copy is refused"
            }
        }
    }

    // MARK: Shared steps

    /// A lock/unlock round trip and a wallet token's suspend/resume, for what the instance declares; a step it
    /// cannot do is shown as skipped with the reason.
    func lifecycle(
        _ recorder: inout DemoRecorder, name: String, via: RouteTarget, lockable: CardRef?,
        token: (card: CardRef, id: String)?
    ) async {
        let descriptor = gateway.instance(named: name)?.descriptor
        let capabilities = descriptor?.capabilities ?? []
        let kind = descriptor?.kind.name ?? name
        if let lockable, capabilities.contains(.cardLocking) {
            await recorder.step("lifecycle: lock a card", name) {
                let card = try await gateway.lockCard(lockable, reason: .cardholderRequest, via: via)
                try expect(
                    [.locked, .suspended, .inactive].contains(card.status),
                    "the card is \(card.status.rawValue) after the lock")
                return "\(card.ref.id) is \(card.status.rawValue) (\(kind): \(card.providerStatus))"
            }
            await recorder.step("lifecycle: unlock it", name) {
                let card = try await gateway.unlockCard(lockable, via: via)
                try expect(card.status == .active, "the card is \(card.status.rawValue) after the unlock")
                return "\(card.ref.id) is active again (\(kind): \(card.providerStatus))"
            }
        } else {
            recorder.skip("lifecycle: lock and unlock", name, because: "\(kind) declares no card lock")
        }
        guard let token, capabilities.contains(.walletTokenListing) else {
            recorder.skip("lifecycle: wallet tokens", name, because: "\(kind) does not list wallet tokens")
            return
        }
        await recorder.step("lifecycle: list a card's wallet tokens", name) {
            let tokens = try await gateway.walletTokens(of: token.card, via: via)
            try expect(tokens.contains { $0.id == token.id }, "token \(token.id) is not among the card's tokens")
            let summary = tokens.map { "\($0.wallet?.rawValue ?? "wallet?") \($0.status.rawValue)" }
            return "\(tokens.count) token(s) on \(token.card.id): \(summary.joined(separator: ", "))"
        }
        guard capabilities.contains(.walletTokenControl) else {
            recorder.skip(
                "lifecycle: suspend and resume a wallet token", name,
                because: "\(kind) has no wallet-token control in its API")
            return
        }
        await recorder.step("lifecycle: suspend a wallet token", name) {
            let suspended = try await gateway.changeWalletToken(
                WalletTokenRequest(card: token.card, token: token.id, intent: .suspend, reason: .lost), via: via)
            try expect(suspended.status == .suspended, "the token is \(suspended.status.rawValue) after the suspension")
            return "\(suspended.id) is suspended (\(kind): \(suspended.providerStatus))"
        }
        await recorder.step("lifecycle: resume it", name) {
            let resumed = try await gateway.changeWalletToken(
                WalletTokenRequest(card: token.card, token: token.id, intent: .resume), via: via)
            try expect(resumed.status == .active, "the token is \(resumed.status.rawValue) after the resumption")
            return "\(resumed.id) is active again (\(kind): \(resumed.providerStatus))"
        }
    }

    func lookup(_ recorder: inout DemoRecorder, name: String, via: RouteTarget, card: CardRef) async {
        await recorder.step("card: look up", name) {
            let found = try await gateway.card(card, via: via)
            return "\(found.ref.id): \(found.status.rawValue) \(found.scheme.rawValue) ending \(found.lastFour ?? "?")"
        }
    }

    /// An offer, then provisioning with each input in turn (one input per round trip), per wallet.
    func offerAndProvision(
        _ recorder: inout DemoRecorder, name: String, via: RouteTarget, card: CardRef,
        inputs: [Wallet: [ProvisioningInput]],
        devices: [Wallet: ProvisioningDeviceType] = [:]
    ) async {
        for wallet in Wallet.allCases {
            guard let rounds = inputs[wallet] else { continue }
            await recorder.step("\(wallet.title): offer", name) {
                let offer = try await gateway.provisioningOffer(for: card, wallet: wallet, via: via)
                try expect(offer.eligible, "not eligible: \(offer.ineligibleReason?.code ?? "no reason given")")
                return
                    "eligible by \(offer.flow?.rawValue ?? "an unnamed flow"), \(offer.network.rawValue) ending \(offer.lastFour ?? "?")"
            }
            let relayed = rounds.count - 1
            let previous = Carried<ProvisioningResponse>()
            for (index, planned) in rounds.enumerated() {
                var input = planned
                // An issuer SDK's output answers the input it was handed in the round before.
                if planned.issuerSDKOutput != nil, let sdkInput = previous.value?.issuerSDKInput {
                    input = .issuerSDK(output: SampleInputs.issuerSDKOutput(wallet: wallet, answering: sdkInput))
                }
                let label: String
                switch (input.kind, input.issuerSDKOutput) {
                case (.issuerSDK, .none): label = "provision: start the issuer SDK relay"
                case (.issuerSDK, _): label = "provision: relay the SDK's output (round trip \(index) of \(relayed))"
                default: label = devices[wallet].map { "provision from a \($0.title)" } ?? "provision"
                }
                await recorder.step("\(wallet.title): \(label)", name) {
                    let request = ProvisioningRequest(
                        card: card, wallet: wallet, input: input, deviceType: devices[wallet])
                    let response = try await gateway.provision(request, via: via)
                    previous.value = response
                    return describe(response)
                }
            }
        }
    }

    func confirm(_ recorder: inout DemoRecorder, name: String, via: RouteTarget, card: CardRef, reference: String) async
    {
        await recorder.step("Apple Pay: confirm", name) {
            try await gateway.confirmProvisioning(
                ProvisioningConfirmation(card: card, wallet: .applePay, deviceAccountReference: reference), via: via)
            return "the provider knows the card is in the wallet"
        }
    }

    /// Sizes and ids only: never the bytes.
    func describe(_ response: ProvisioningResponse) -> String {
        if let payload = response.applePay {
            return
                "encrypted pass data (\(payload.encryptedPassData.count) bytes), activation data (\(payload.activationData.count) bytes), ephemeral key (\(payload.ephemeralPublicKey.count) bytes)"
        } else if let payload = response.googlePay {
            return "opaque payment card (\(payload.opaquePaymentCard.count) bytes)"
                + (payload.tokenProvider.map { " for \($0)" } ?? "")
        } else if let payload = response.samsungPay {
            return "extra provision payload (\(payload.extraProvisionPayload.count) bytes)"
                + (payload.cardType.map { ", \($0) card" } ?? "")
                + (payload.tokenProvider.map { " for \($0)" } ?? "")
        } else if let input = response.issuerSDKInput {
            return "\(input.count) bytes for the issuer SDK"
        } else if let key = response.ephemeralKey {
            return "ephemeral key \(key.id), expires \(InternetDateTime.format(key.expires))"
        } else {
            return "a \(response.kind) answer"
        }
    }

    func describe(_ event: GatewayEvent) -> String {
        if let change = event.event.cardStatusChanged {
            return "card \(change.card.id) \(change.oldStatus?.rawValue ?? "?") → \(change.newStatus.rawValue)"
        } else if let token = event.event.walletTokenCreated {
            return "\((token.token.wallet?.title ?? "wallet")) token created for \(token.card.id)"
        } else if let token = event.event.walletTokenUpdated {
            return
                "\((token.token.wallet?.title ?? "wallet")) token \(token.token.status.rawValue) for \(token.card.id)"
        } else if let credential = event.event.credentialStored {
            return "credential \(credential.reference) stored"
        } else {
            return "\(event.event.name) (\(event.providerType))"
        }
    }
}

extension ProvisioningDeviceType {
    /// The device kind in words.
    var title: String {
        switch self {
        case .mobilePhone: return "phone"
        case .watch: return "watch"
        case .tablet: return "tablet"
        default: return rawValue
        }
    }
}

extension Wallet {
    /// The wallet's product name.
    var title: String {
        switch self {
        case .applePay: return "Apple Pay"
        case .googlePay: return "Google Pay"
        case .samsungPay: return "Samsung Pay"
        default: return rawValue
        }
    }
}

/// What one demo step hands to the next (the session to pay with, the response of a relay's round before…), behind a
/// lock: a var captured and assigned by the steps' async closures corrupted the heap intermittently.
final class Carried<Value: Sendable>: Sendable {
    private let storage = Mutex<Value?>(nil)

    var value: Value? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
