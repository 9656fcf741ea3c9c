import CardGateway
import CardGatewaySimulation
import Foundation
import HTTPTypes
import Synchronization

// What the benchmark package (Benchmarks/, target ProviderFixtures) runs of a room: its adapter against its simulator
// and every operation the adapter implements. Each room gives its subject in `<Name>ExampleBenchmark.swift`
// (``ExampleRoom/benchmarkSubject()``); the benchmarks name them `adapter/<kind>/<operation>`, `gateway/…`, `e2e/…`
// and `load/…`.

/// One operation of an adapter, driven through its public protocol API.
public struct BenchOperation: Sendable {
    /// The operation's part of the benchmark name: `adapter/<kind>/<name>`.
    public var name: String
    /// Run once against the simulator before the operation is recorded (unrecorded), for inputs that need a live
    /// answer first (a Trust Payments SDK result).
    public var prepare: (@Sendable (any CardProvider) async throws -> Void)?
    public var run: @Sendable (any CardProvider, OperationContext) async throws -> Void

    public init(
        _ name: String, prepare: (@Sendable (any CardProvider) async throws -> Void)? = nil,
        run: @escaping @Sendable (any CardProvider, OperationContext) async throws -> Void
    ) {
        self.name = name
        self.prepare = prepare
        self.run = run
    }
}

/// One provider: how to build its adapter against its simulator, and every operation its adapter implements.
public struct ProviderSubject: Sendable {
    /// The adapter's kind name, e.g. `stripe`.
    public var kind: String
    public var factory: ProviderFactory
    public var credentials: [String: Secret]
    public var options: [String: JSONValue]
    public var simulator: any ProviderSimulator
    public var credentialStore: any CredentialReferenceStore
    /// In the order they are recorded (a final change such as cancel or delete after what needs the object).
    public var operations: [BenchOperation]
    /// The representative operation of the end-to-end benchmarks (card lookup; Trust Payments' charge).
    public var representative: String
    /// The same operation through `CardGateway`.
    public var throughGateway: @Sendable (CardGateway, RouteTarget, OperationContext) async throws -> Void
    /// A request header whose value the provider's answer repeats and the adapter checks (see the benchmark
    /// package's `ReplayTransport`).
    public var echoHeader: HTTPField.Name? = nil

    public init(
        kind: String, factory: ProviderFactory, credentials: [String: Secret], options: [String: JSONValue],
        simulator: any ProviderSimulator, credentialStore: any CredentialReferenceStore, operations: [BenchOperation],
        representative: String,
        throughGateway: @escaping @Sendable (CardGateway, RouteTarget, OperationContext) async throws -> Void,
        echoHeader: HTTPField.Name? = nil
    ) {
        self.kind = kind
        self.factory = factory
        self.credentials = credentials
        self.options = options
        self.simulator = simulator
        self.credentialStore = credentialStore
        self.operations = operations
        self.representative = representative
        self.throughGateway = throughGateway
        self.echoHeader = echoHeader
    }

    /// The card lookup through `CardGateway`: the representative operation of most subjects.
    public static func lookupThroughGateway(
        _ card: CardRef
    ) -> @Sendable (CardGateway, RouteTarget, OperationContext) async throws -> Void {
        { gateway, target, context in _ = try await gateway.card(card, via: target, context: context) }
    }

    public var registry: ProviderRegistry {
        var registry = ProviderRegistry()
        registry.register(factory)
        return registry
    }
}

/// A benchmark subject used before it was prepared, or a provider that is not the adapter it was built as.
struct ExampleBenchmarkFailure: Error, CustomStringConvertible {
    var description: String
}

/// A value set once while recording (a token the SDK returned) and read by every replayed call.
public final class BenchmarkSlot<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    public init() {}
    public func set(_ newValue: Value) { value.withLock { $0 = newValue } }
    public func get() throws -> Value {
        guard let current = value.withLock({ $0 }) else {
            throw ExampleBenchmarkFailure(description: "the fixture was not prepared")
        }
        return current
    }
}

extension BenchOperation {
    /// The adapter as one of its protocols (`(any CardLookup).self`); throws when it does not implement it.
    public static func cast<P>(_ provider: any CardProvider, _ type: P.Type) throws -> P {
        guard let typed = provider as? P else {
            throw ExampleBenchmarkFailure(description: "\(provider.descriptor.kind) is not \(P.self)")
        }
        return typed
    }
}

private func cast<P>(_ provider: any CardProvider, _ type: P.Type) throws -> P {
    try BenchOperation.cast(provider, type)
}

/// The lookup, listing, issuance, status, PIN, program, wallet-token and provisioning operations from one set of
/// seeded ids; a nil input leaves its operation out.
public struct CardOperations: Sendable {
    public var lookup: CardRef
    public var listCustomer: String?
    public var create: CreateCardRequest?
    public var activation: ActivateCardRequest?
    public var lockable: CardRef?
    public var cancellable: CardRef?
    public var pinChange: SetCardPINRequest?
    public var programsCustomer: String?
    public var tokensCard: CardRef?
    public var token: String?
    public var deletableToken: String?
    public var offerCard: CardRef?
    public var provisioning: [Wallet: ProvisioningInput] = [:]
    public var confirmation: ProvisioningConfirmation?

    public init(
        lookup: CardRef, listCustomer: String? = nil, create: CreateCardRequest? = nil,
        activation: ActivateCardRequest? = nil, lockable: CardRef? = nil, cancellable: CardRef? = nil,
        pinChange: SetCardPINRequest? = nil, programsCustomer: String? = nil, tokensCard: CardRef? = nil,
        token: String? = nil, deletableToken: String? = nil, offerCard: CardRef? = nil,
        provisioning: [Wallet: ProvisioningInput] = [:], confirmation: ProvisioningConfirmation? = nil
    ) {
        self.lookup = lookup
        self.listCustomer = listCustomer
        self.create = create
        self.activation = activation
        self.lockable = lockable
        self.cancellable = cancellable
        self.pinChange = pinChange
        self.programsCustomer = programsCustomer
        self.tokensCard = tokensCard
        self.token = token
        self.deletableToken = deletableToken
        self.offerCard = offerCard
        self.provisioning = provisioning
        self.confirmation = confirmation
    }

    public var operations: [BenchOperation] {
        var ops: [BenchOperation] = []
        let lookup = self.lookup
        ops.append(
            BenchOperation("card") { provider, context in
                _ = try await cast(provider, (any CardLookup).self).card(lookup, context: context)
            })
        if let customer = listCustomer {
            ops.append(
                BenchOperation("list-cards") { provider, context in
                    _ = try await cast(provider, (any CardListing).self).listCards(
                        CardQuery(customer: customer, limit: 10), context: context)
                })
        }
        if let programsCustomer {
            ops.append(
                BenchOperation("programs") { provider, context in
                    _ = try await cast(provider, (any CardPrograms).self).programs(
                        customer: programsCustomer, context: context)
                })
        }
        if let create {
            ops.append(
                BenchOperation("create-card") { provider, context in
                    _ = try await cast(provider, (any CardIssuance).self).createCard(create, context: context)
                })
        }
        if let activation {
            ops.append(
                BenchOperation("activate-card") { provider, context in
                    _ = try await cast(provider, (any CardActivation).self).activateCard(activation, context: context)
                })
        }
        if let lockable {
            ops.append(
                BenchOperation("lock-card") { provider, context in
                    _ = try await cast(provider, (any CardStatusControl).self).changeStatus(
                        CardStatusRequest(card: lockable, intent: .lock), context: context)
                })
            ops.append(
                BenchOperation("unlock-card") { provider, context in
                    _ = try await cast(provider, (any CardStatusControl).self).changeStatus(
                        CardStatusRequest(card: lockable, intent: .unlock), context: context)
                })
        }
        if let pinChange {
            ops.append(
                BenchOperation("set-pin") { provider, context in
                    _ = try await cast(provider, (any CardPINManagement).self).setPIN(pinChange, context: context)
                })
        }
        if let tokensCard {
            ops.append(
                BenchOperation("list-wallet-tokens") { provider, context in
                    _ = try await cast(provider, (any WalletTokenListing).self).walletTokens(
                        of: tokensCard, context: context)
                })
            if let token {
                ops.append(
                    BenchOperation("suspend-wallet-token") { provider, context in
                        _ = try await cast(provider, (any WalletTokenControl).self).changeWalletToken(
                            WalletTokenRequest(card: tokensCard, token: token, intent: .suspend), context: context)
                    })
                ops.append(
                    BenchOperation("resume-wallet-token") { provider, context in
                        _ = try await cast(provider, (any WalletTokenControl).self).changeWalletToken(
                            WalletTokenRequest(card: tokensCard, token: token, intent: .resume), context: context)
                    })
            }
            if let deletableToken {
                ops.append(
                    BenchOperation("delete-wallet-token") { provider, context in
                        _ = try await cast(provider, (any WalletTokenControl).self).changeWalletToken(
                            WalletTokenRequest(card: tokensCard, token: deletableToken, intent: .delete),
                            context: context)
                    })
            }
        }
        if let offerCard {
            for (wallet, input) in provisioning.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                let label = Self.label(wallet)
                ops.append(
                    BenchOperation("offer-\(label)") { provider, context in
                        _ = try await cast(provider, (any WalletProvisioning).self).offer(
                            for: offerCard, wallet: wallet, context: context)
                    })
                ops.append(
                    BenchOperation("provision-\(label)-\(Self.label(input.flow))") { provider, context in
                        _ = try await cast(provider, (any WalletProvisioning).self).provision(
                            ProvisioningRequest(card: offerCard, wallet: wallet, input: input), context: context)
                    })
            }
            if let confirmation {
                ops.append(
                    BenchOperation("confirm-provisioning") { provider, context in
                        try await cast(provider, (any WalletProvisioning).self).confirm(confirmation, context: context)
                    })
            }
        }
        if let cancellable {
            ops.append(
                BenchOperation("cancel-card") { provider, context in
                    _ = try await cast(provider, (any CardStatusControl).self).changeStatus(
                        CardStatusRequest(card: cancellable, intent: .cancel), context: context)
                })
        }
        return ops
    }

    /// `applePay` → `apple-pay`.
    static func label(_ wallet: Wallet) -> String { kebab(wallet.rawValue) }
    static func label(_ flow: ProvisioningFlow) -> String {
        switch flow {
        case .encryptedPayload: return "encrypted-payload"
        case .issuerSDKRelay: return "sdk-relay"
        case .issuerSDKKey: return "sdk-key"
        default: return kebab(flow.rawValue)
        }
    }

    static func kebab(_ text: String) -> String {
        var out = ""
        for character in text {
            if character.isUppercase {
                out += "-" + character.lowercased()
            } else {
                out.append(character)
            }
        }
        return out
    }
}
