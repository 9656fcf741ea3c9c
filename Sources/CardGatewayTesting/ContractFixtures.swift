import CardGateway
import CardGatewaySimulation
import Foundation

/// What the contract suite needs to know about one adapter and its simulator: the factory, credentials the
/// simulator accepts, seeded ids, and a few provider-specific steps (signing a webhook, playing a client SDK).
///
/// ```swift
/// let subject = ContractSubject(
///     name: "stripe", factory: .stripe, credentials: ["secretKey": Secret(StripeSimulator.Seed.secretKey)],
///     simulator: StripeSimulator(),
///     fixtures: ContractFixtures(lookup: .init(existing: CardRef(id: "ic_active"), expectedStatus: .active, missing: CardRef(id: "ic_nope"))),
///     sensitiveValues: [StripeSimulator.Seed.webhookSecret])
/// let report = await ContractSuite.run(subject)
/// #expect(report.passed, "\(report)")
/// ```
public struct ContractSubject: Sendable {
    public var name: String
    public var factory: ProviderFactory
    public var credentials: [String: Secret]
    public var options: [String: JSONValue]
    public var simulator: any ProviderSimulator
    public var fixtures: ContractFixtures
    /// Secrets and card data (PANs, CVVs, PINs, webhook secrets…) that must never appear in logs or in an
    /// error's description. Configured credentials are checked automatically.
    public var sensitiveValues: [String]
    /// The credential store the adapter is built with (empty by default): seed it when a probe or fixture names
    /// references the adapter only accepts from its store.
    public var credentialStore: any CredentialReferenceStore

    public init(
        name: String, factory: ProviderFactory, credentials: [String: Secret], options: [String: JSONValue] = [:],
        simulator: any ProviderSimulator, fixtures: ContractFixtures, sensitiveValues: [String] = [],
        credentialStore: any CredentialReferenceStore = InMemoryCredentialReferenceStore()
    ) {
        self.credentialStore = credentialStore
        self.name = name
        self.factory = factory
        self.credentials = credentials
        self.options = options
        self.simulator = simulator
        self.fixtures = fixtures
        self.sensitiveValues = sensitiveValues
    }
}

/// The seeded data and provider-specific steps the scenarios use. Leave a group nil when the adapter does
/// not declare that capability.
public struct ContractFixtures: Sendable {
    public struct Lookup: Sendable {
        public var existing: CardRef
        public var expectedStatus: CardStatus
        public var expectedLastFour: String?
        public var missing: CardRef

        public init(existing: CardRef, expectedStatus: CardStatus, expectedLastFour: String? = nil, missing: CardRef) {
            self.existing = existing
            self.expectedStatus = expectedStatus
            self.expectedLastFour = expectedLastFour
            self.missing = missing
        }
    }

    /// Seeded cards for the card-management capabilities. Give what the adapter declares: the customer for
    /// ``Capability/cardListing`` and ``Capability/cardPrograms``, a create for ``Capability/cardIssuance``, and
    /// so on; a declared capability without its fixture fails the run unless it is waived.
    public struct CardManagement: Sendable {
        /// The customer whose cards are listed (must have at least two) and whose programs are read.
        public var customer: String
        /// A status some but not all of the customer's cards have, to filter on.
        public var filterStatus: CardStatus?
        public var createVirtual: CreateCardRequest?
        /// An activation that succeeds (a card in an activatable state and its printed data).
        public var activation: ActivateCardRequest?
        /// An active card to lock and unlock (left active).
        public var lockable: CardRef?
        /// An active card to cancel (left cancelled).
        public var cancellable: CardRef?
        /// A PIN change that succeeds.
        public var pinChange: SetCardPINRequest?

        public init(
            customer: String, filterStatus: CardStatus? = nil, createVirtual: CreateCardRequest? = nil,
            activation: ActivateCardRequest? = nil,
            lockable: CardRef? = nil, cancellable: CardRef? = nil, pinChange: SetCardPINRequest? = nil
        ) {
            self.customer = customer
            self.filterStatus = filterStatus
            self.createVirtual = createVirtual
            self.activation = activation
            self.lockable = lockable
            self.cancellable = cancellable
            self.pinChange = pinChange
        }
    }

    /// Seeded wallet tokens for ``Capability/walletTokenListing`` and ``Capability/walletTokenControl``.
    public struct WalletTokenFixtures: Sendable {
        /// A card with the tokens below.
        public var card: CardRef
        /// An active token the listing must show; with ``Capability/walletTokenControl``, suspended and resumed
        /// (left active).
        public var token: String
        /// Another active token, deleted (left deleted); required with ``Capability/walletTokenControl``.
        public var deletable: String?

        public init(card: CardRef, token: String, deletable: String? = nil) {
            self.card = card
            self.token = token
            self.deletable = deletable
        }
    }

    public struct Provisioning: Sendable {
        /// A card every declared wallet can be added to.
        public var eligible: CardRef
        /// A card that cannot be added (e.g. not active), when the simulator seeds one.
        public var ineligible: CardRef?
        /// The round trips to run per wallet, in order (an issuer-SDK relay has several).
        public var inputs: [Wallet: [ProvisioningInput]]
        /// A confirmation to send after provisioning, when the provider records one.
        public var confirmation: ProvisioningConfirmation?
        /// Plays the wallet or issuer SDK between rounds: turns a planned input into the one to send, given the
        /// previous round's response (nil before the first round). An issuer-SDK relay needs it when each output
        /// must answer the input before it. Nil sends the planned inputs as they are.
        public var answer:
            (@Sendable (_ planned: ProvisioningInput, _ previous: ProvisioningResponse?) -> ProvisioningInput)?

        public init(
            eligible: CardRef, ineligible: CardRef?, inputs: [Wallet: [ProvisioningInput]],
            confirmation: ProvisioningConfirmation? = nil,
            answer: (
                @Sendable (_ planned: ProvisioningInput, _ previous: ProvisioningResponse?) -> ProvisioningInput
            )? = nil
        ) {
            self.eligible = eligible
            self.ineligible = ineligible
            self.inputs = inputs
            self.confirmation = confirmation
            self.answer = answer
        }
    }

    public struct StoredCredentialFixtures: Sendable {
        public var storeSession: ClientSessionRequest
        /// Plays the provider's client SDK: turns a session into the result token the app would post back.
        public var completeInSDK: @Sendable (ClientSession, SimulatorHandle) async throws -> Secret
        public var chargeAmount: Money

        public init(
            storeSession: ClientSessionRequest, chargeAmount: Money,
            completeInSDK: @escaping @Sendable (ClientSession, SimulatorHandle) async throws -> Secret
        ) {
            self.storeSession = storeSession
            self.chargeAmount = chargeAmount
            self.completeInSDK = completeInSDK
        }
    }

    public enum WebhookVariant: Sendable, CaseIterable {
        case valid
        /// The body changed after signing.
        case tampered
        /// Signed with a timestamp older than the provider's tolerance.
        case stale
        /// Signed with a secret or key the adapter was not configured with.
        case wrongSecret
    }

    public struct Webhooks: Sendable {
        /// A delivery of the given variant, as the provider (the simulator) would send it.
        public var delivery: @Sendable (WebhookVariant, Date) throws -> WebhookDelivery
        /// False for providers that sign no timestamp (staleness cannot be checked).
        public var signsTimestamp: Bool

        public init(
            signsTimestamp: Bool, delivery: @escaping @Sendable (WebhookVariant, Date) throws -> WebhookDelivery
        ) {
            self.signsTimestamp = signsTimestamp
            self.delivery = delivery
        }
    }

    /// A provider-specific error scenario (invalid state, SCA…).
    public struct ErrorScenario: Sendable {
        public var name: String
        public var expected: CardGatewayError.Code
        public var run: @Sendable (any CardProvider, OperationContext) async throws -> Void

        public init(
            name: String, expected: CardGatewayError.Code,
            run: @escaping @Sendable (any CardProvider, OperationContext) async throws -> Void
        ) {
            self.name = name
            self.expected = expected
            self.run = run
        }
    }

    public var lookup: Lookup?
    public var cards: CardManagement?
    public var walletTokens: WalletTokenFixtures?
    public var provisioning: Provisioning?
    public var storedCredentials: StoredCredentialFixtures?
    public var webhooks: Webhooks?
    /// Card details and PIN (`ContractSuite+CardReveal.swift`); set after `init`.
    public var reveal: Reveal? = nil
    /// Real-time authorizations (`ContractSuite+Authorizations.swift`); set after `init`.
    public var authorizations: Authorizations? = nil
    /// One read-like call the error scenarios inject faults into. Defaults to looking up `lookup.existing`.
    public var probe: (@Sendable (any CardProvider, OperationContext) async throws -> Void)?
    public var extraErrorScenarios: [ErrorScenario]
    /// Capabilities deliberately left untested, each with the reason. A capability the descriptor declares but
    /// whose fixtures are missing fails the run unless it is waived here, so an adapter cannot pass without
    /// being tested.
    public var waived: [Capability: String]
    /// Wallets the adapter provisions but whose provisioning inputs are deliberately not given, with the reason.
    public var waivedWallets: [Wallet: String]
    /// Why the error scenarios cannot run (no probe operation), when they deliberately do not.
    public var waivedErrors: String?

    public init(
        lookup: Lookup? = nil, cards: CardManagement? = nil, walletTokens: WalletTokenFixtures? = nil,
        provisioning: Provisioning? = nil,
        storedCredentials: StoredCredentialFixtures? = nil, webhooks: Webhooks? = nil,
        probe: (@Sendable (any CardProvider, OperationContext) async throws -> Void)? = nil,
        extraErrorScenarios: [ErrorScenario] = [],
        waived: [Capability: String] = [:], waivedWallets: [Wallet: String] = [:], waivedErrors: String? = nil
    ) {
        self.waived = waived
        self.waivedWallets = waivedWallets
        self.waivedErrors = waivedErrors
        self.lookup = lookup
        self.cards = cards
        self.walletTokens = walletTokens
        self.provisioning = provisioning
        self.storedCredentials = storedCredentials
        self.webhooks = webhooks
        self.probe = probe
        self.extraErrorScenarios = extraErrorScenarios
    }
}

/// The outcome of a contract run.
public struct ContractReport: Sendable, CustomStringConvertible {
    public enum Outcome: Sendable, Equatable {
        case passed
        case failed([String])
        case skipped(String)
    }

    public struct Scenario: Sendable {
        public var name: String
        public var outcome: Outcome
    }

    public var subject: String
    public var scenarios: [Scenario]

    /// Every failure, as "scenario: message".
    public var failures: [String] {
        scenarios.flatMap { scenario -> [String] in
            if case .failed(let messages) = scenario.outcome { return messages.map { "\(scenario.name): \($0)" } }
            return []
        }
    }

    public var passed: Bool { failures.isEmpty && scenarios.contains { $0.outcome == .passed } }
    public var passedCount: Int { scenarios.filter { $0.outcome == .passed }.count }

    public func outcome(of name: String) -> Outcome? { scenarios.first { $0.name == name }?.outcome }

    public var description: String {
        var lines = [
            "contract \(subject): \(passedCount) passed, \(failures.count) failures, \(scenarios.filter { if case .skipped = $0.outcome { return true } else { return false } }.count) skipped"
        ]
        for scenario in scenarios {
            switch scenario.outcome {
            case .passed: lines.append("  ✔ \(scenario.name)")
            case .skipped(let why): lines.append("  – \(scenario.name) (skipped: \(why))")
            case .failed(let messages): lines.append("  ✘ \(scenario.name)"); lines += messages.map { "      \($0)" }
            }
        }
        return lines.joined(separator: "\n")
    }
}
