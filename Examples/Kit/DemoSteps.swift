@_spi(AdapterSupport) import CardGateway
import CardGatewaySimulation
import Foundation
import Synchronization

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

/// Times and records steps.
public struct DemoRecorder {
    let progress: @Sendable (String, DemoStepResult?) -> Void
    public private(set) var report = DemoReport(steps: [])

    public init(progress: @escaping @Sendable (String, DemoStepResult?) -> Void) {
        self.progress = progress
    }

    /// Runs one step; any error fails it (with its code when it is a `CardGatewayError`) and the demo goes on.
    public mutating func step(_ name: String, _ instance: String, _ body: () async throws -> String) async {
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

    public mutating func skip(_ name: String, _ instance: String, because reason: String) {
        let result = DemoStepResult(
            name: name, instance: instance, status: .skipped, outcome: reason, errorCode: nil, milliseconds: 0)
        report.steps.append(result)
        progress(name, result)
    }
}

/// A result the demo did not expect (the call itself succeeded).
public struct DemoExpectationFailure: Error {
    public var message: String

    public init(message: String) {
        self.message = message
    }
}

/// Fails the step with `message` unless `condition` holds.
public func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw DemoExpectationFailure(message: message()) }
}

/// The steps, provider by provider.
public struct DemoSteps: Sendable {
    public let gateway: CardGateway
    public let simulators: EmbeddedSimulators
    /// The simulators' addresses, for the steps that act as the app (card reveal); nil skips what needs them.
    public var running: RunningSimulators? = nil
    public typealias Instance = EmbeddedSimulators.Instance
    public typealias Issuer = EmbeddedSimulators.Issuer

    public init(gateway: CardGateway, simulators: EmbeddedSimulators, running: RunningSimulators? = nil) {
        self.gateway = gateway
        self.simulators = simulators
        self.running = running
    }

    /// What PassKit and Google Pay hand the app, from the room whose simulator makes them; nil when no room does.
    public var samples: SampleWalletInputs? {
        simulators.rooms.lazy.compactMap { type(of: $0).sampleWalletInputs }.first
    }

    /// Each wallet's inputs from ``samples``: Apple Pay's certificates and nonce, Google Pay's device and account.
    public var walletInputs: [Wallet: [ProvisioningInput]] {
        guard let samples else { return [:] }
        return [.applePay: [.applePay(samples.applePay)], .googlePay: [.googlePay(samples.googlePay)]]
    }

    // MARK: Shared steps

    /// A lock/unlock round trip and a wallet token's suspend/resume, for what the instance declares; a step it
    /// cannot do is shown as skipped with the reason.
    public func lifecycle(
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

    public func lookup(_ recorder: inout DemoRecorder, name: String, via: RouteTarget, card: CardRef) async {
        await recorder.step("card: look up", name) {
            let found = try await gateway.card(card, via: via)
            return "\(found.ref.id): \(found.status.rawValue) \(found.scheme.rawValue) ending \(found.lastFour ?? "?")"
        }
    }

    /// An offer, then provisioning with each input in turn (one input per round trip), per wallet. `answer` is the
    /// app's issuer SDK: what it hands back for the input of the round before.
    public func offerAndProvision(
        _ recorder: inout DemoRecorder, name: String, via: RouteTarget, card: CardRef,
        inputs: [Wallet: [ProvisioningInput]],
        devices: [Wallet: ProvisioningDeviceType] = [:],
        answer: (@Sendable (Wallet, SensitiveData) -> SensitiveData)? = nil
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
                if planned.issuerSDKOutput != nil, let answer, let sdkInput = previous.value?.issuerSDKInput {
                    input = .issuerSDK(output: answer(wallet, sdkInput))
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

    public func confirm(
        _ recorder: inout DemoRecorder, name: String, via: RouteTarget, card: CardRef, reference: String
    ) async {
        await recorder.step("Apple Pay: confirm", name) {
            try await gateway.confirmProvisioning(
                ProvisioningConfirmation(card: card, wallet: .applePay, deviceAccountReference: reference), via: via)
            return "the provider knows the card is in the wallet"
        }
    }

    /// Sizes and ids only: never the bytes.
    public func describe(_ response: ProvisioningResponse) -> String {
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

    public func describe(_ event: GatewayEvent) -> String {
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
    public var title: String {
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
    public var title: String {
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
public final class Carried<Value: Sendable>: Sendable {
    private let storage = Mutex<Value?>(nil)

    public init() {}

    public var value: Value? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
