import AdyenSimulator
import BridgeSimulator
import CardGateway
import CardGatewayAdyen
import CardGatewayBridge
import CardGatewayLithic
import CardGatewayMarqeta
import CardGatewayPaysafe
import CardGatewaySimulation
import CardGatewayStripe
import CardGatewayTrustPayments
import Foundation
import HTTPTypes
import LithicSimulator
import MarqetaSimulator
import PaysafeSimulator
import Synchronization
import StripeSimulator
import TrustPaymentsSimulator

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
    /// `paysafe`, `adyen`, `stripe`, `bridge`, `trustpayments`.
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
    /// A request header whose value the provider's answer repeats and the adapter checks (see ``ReplayTransport``).
    public var echoHeader: HTTPField.Name? = nil

    public var registry: ProviderRegistry {
        var registry = ProviderRegistry()
        registry.register(factory)
        return registry
    }
}

struct FixtureFailure: Error, CustomStringConvertible {
    var description: String
}

/// A value set once while recording (a token the SDK returned) and read by every replayed call.
final class Slot<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    func set(_ newValue: Value) { value.withLock { $0 = newValue } }
    func get() throws -> Value {
        guard let current = value.withLock({ $0 }) else {
            throw FixtureFailure(description: "the fixture was not prepared")
        }
        return current
    }
}

func cast<P>(_ provider: any CardProvider, _ type: P.Type) throws -> P {
    guard let typed = provider as? P else {
        throw FixtureFailure(description: "\(provider.descriptor.kind) is not \(P.self)")
    }
    return typed
}

/// The lookup, listing, issuance, status, PIN, program, wallet-token and provisioning operations from one set of
/// seeded ids; a nil input leaves its operation out.
struct CardOperations {
    var lookup: CardRef
    var listCustomer: String?
    var create: CreateCardRequest?
    var activation: ActivateCardRequest?
    var lockable: CardRef?
    var cancellable: CardRef?
    var pinChange: SetCardPINRequest?
    var programsCustomer: String?
    var tokensCard: CardRef?
    var token: String?
    var deletableToken: String?
    var offerCard: CardRef?
    var provisioning: [Wallet: ProvisioningInput] = [:]
    var confirmation: ProvisioningConfirmation?

    var operations: [BenchOperation] {
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

private let lookupThroughGateway:
    @Sendable (CardRef) -> @Sendable (CardGateway, RouteTarget, OperationContext) async throws -> Void = { card in
        { gateway, target, context in _ = try await gateway.card(card, via: target, context: context) }
    }

extension ProviderSubject {
    /// The five providers of the per-call benchmarks, each with a fresh simulator.
    public static func all() -> [ProviderSubject] { [paysafe(), adyen(), stripe(), bridge(), trustPayments()] }

    public static func named(_ kind: String) -> ProviderSubject? {
        switch kind {
        case "marqeta": return marqeta()
        case "lithic": return lithic()
        default: return all().first { $0.kind == kind }
        }
    }

    /// The providers of the per-call benchmarks (adapter/, gateway/, their thresholds).
    public static let kinds = ["paysafe", "adyen", "stripe", "bridge", "trustpayments"]

    /// The providers of the benchmarks on a live simulator (e2e/, load/): all seven.
    public static let liveKinds = kinds + ["marqeta", "lithic"]

    /// Every benchmarked operation of one provider, by name (without building a simulator's answers).
    public static func operationNames(_ kind: String) -> [String] { named(kind)?.operations.map(\.name) ?? [] }

    static func paysafe() -> ProviderSubject {
        typealias Seed = PaysafeSimulator.Seed
        let eu = Seed.euCustomer
        let credentials = PaysafeSimulator.Credentials.default
        let apple = ApplePayProvisioningInput(
            certificates: [
                Data((0..<64).map { UInt8(($0 * 5 + 1) & 0xFF) }), Data((0..<64).map { UInt8(($0 * 9 + 2) & 0xFF) }),
            ],
            nonce: Data([0x5E, 0xC2, 0x7A, 0x11, 0x0B, 0x93, 0x44, 0x2D]),
            nonceSignature: Data((0..<32).map { UInt8(($0 * 3 + 7) & 0xFF) })
        )
        let lookup = CardRef(id: Seed.activeCardID, customer: eu)
        let cards = CardOperations(
            lookup: lookup, listCustomer: eu,
            create: CreateCardRequest(
                customer: eu, type: .virtual, program: Seed.virtualMCProgram, currency: "EUR", pin: Secret("8246")),
            activation: ActivateCardRequest(
                card: CardRef(id: Seed.issuedCardID, customer: eu), lastFour: Seed.issuedCardLastFour,
                cvv: Secret(Seed.issuedCardCVV)),
            lockable: CardRef(id: Seed.activeVisaCardID, customer: eu),
            cancellable: CardRef(id: Seed.digitalCardID, customer: eu),
            pinChange: SetCardPINRequest(card: CardRef(id: Seed.activeVisaCardID, customer: eu), pin: Secret("5081")),
            programsCustomer: eu,
            tokensCard: CardRef(id: Seed.tokenizedCardID, customer: eu),
            offerCard: lookup,
            provisioning: [
                .applePay: .applePay(apple),
                .googlePay: .googlePay(
                    GooglePayProvisioningInput(
                        clientDeviceID: "WNkcsfZPiKfa5PrH3jilkQYT", clientWalletAccountID: "40exmLiWV1iV55ZVstOAiMf7")),
            ],
            confirmation: ProvisioningConfirmation(
                card: lookup, wallet: .applePay, deviceAccountReference: "DAPLMC0000CONTRACT0001")
        )
        return ProviderSubject(
            kind: "paysafe", factory: .paysafe,
            credentials: [
                "clientID": Secret(credentials.clientID), "clientSecret": Secret(credentials.clientSecret),
                "webhookSecret": Secret(credentials.webhookSecret),
            ],
            options: ["brand": .string(credentials.brand), "region": .string("ROW")],
            simulator: PaysafeSimulator(), credentialStore: InMemoryCredentialReferenceStore(),
            operations: cards.operations,
            representative: "card", throughGateway: lookupThroughGateway(lookup)
        )
    }

    static func adyen() -> ProviderSubject {
        typealias Seed = AdyenSimulator.Seed
        typealias Keys = AdyenSimulator.Credentials
        let lookup = CardRef(id: Seed.activeVisaID)
        let cards = CardOperations(
            lookup: lookup, listCustomer: Seed.balanceAccountID,
            create: CreateCardRequest(
                customer: Seed.balanceAccountID, type: .virtual, program: "visadebit", currency: "EUR",
                cardholderName: "Bench Cardholder", issuingCountryCode: "NL"
            ),
            lockable: CardRef(id: Seed.lockableVisaID), cancellable: CardRef(id: Seed.cancellableMastercardID),
            tokensCard: CardRef(id: Seed.walletVisaID), token: Seed.walletActiveTokenID,
            deletableToken: Seed.walletDeletableTokenID,
            offerCard: lookup,
            // The relay's first round (start): what every relay begins with.
            provisioning: [.applePay: .issuerSDK(output: nil), .googlePay: .issuerSDK(output: nil)]
        )
        return ProviderSubject(
            kind: "adyen", factory: .adyen,
            credentials: ["apiKey": Secret(Keys.apiKey), "hmacKey": Secret(Keys.hmacKeyHex)], options: [:],
            simulator: AdyenSimulator(), credentialStore: InMemoryCredentialReferenceStore(),
            operations: cards.operations,
            representative: "card", throughGateway: lookupThroughGateway(lookup)
        )
    }

    static func stripe() -> ProviderSubject {
        typealias Seed = StripeSimulator.Seed
        let credentials = StripeSimulator.Credentials.default
        let lookup = CardRef(id: Seed.activeCardID)
        let sdkKey = ProvisioningInput.issuerSDKKey(apiVersion: "2020-08-27")
        let cards = CardOperations(
            lookup: lookup, listCustomer: Seed.cardholderID,
            create: CreateCardRequest(customer: Seed.cardholderID, type: .virtual, program: "", currency: "USD"),
            lockable: CardRef(id: Seed.activeCardWithoutPrimaryAccountIdentifierID),
            cancellable: CardRef(id: Seed.missingAgreementCardID),
            tokensCard: lookup, token: Seed.activeApplePayTokenID, deletableToken: Seed.activeSamsungPayTokenID,
            offerCard: lookup, provisioning: [.applePay: sdkKey, .googlePay: sdkKey]
        )
        return ProviderSubject(
            kind: "stripe", factory: .stripe,
            credentials: [
                "secretKey": Secret(credentials.testSecretKey), "webhookSecret": Secret(credentials.webhookSecret),
            ], options: [:],
            simulator: StripeSimulator(), credentialStore: InMemoryCredentialReferenceStore(),
            operations: cards.operations,
            representative: "card", throughGateway: lookupThroughGateway(lookup)
        )
    }

    static func bridge() -> ProviderSubject {
        typealias Seed = BridgeSimulator.Seed
        typealias Inputs = BridgeSimulator.TestInputs
        let simulator = BridgeSimulator()
        let lookup = CardRef(id: Seed.activeVisa, customer: Seed.customerID)
        let apple = ProvisioningInput.applePay(
            ApplePayProvisioningInput(
                certificates: [Inputs.leafCertificate, Inputs.subordinateCertificate], nonce: Inputs.nonce,
                nonceSignature: Inputs.nonceSignature
            ))
        let google = ProvisioningInput.googlePay(
            GooglePayProvisioningInput(
                clientDeviceID: Inputs.googleDeviceID, clientWalletAccountID: Inputs.googleWalletAccountID))
        let cards = CardOperations(
            lookup: lookup, listCustomer: Seed.customerID,
            create: CreateCardRequest(
                customer: Seed.customerWithoutCardID, type: .virtual, program: "", currency: "USDC"),
            lockable: CardRef(id: Seed.activeMastercard, customer: Seed.customerID),
            offerCard: lookup, provisioning: [.applePay: apple, .googlePay: google],
            confirmation: ProvisioningConfirmation(
                card: lookup, wallet: .applePay, deviceAccountReference: "DAR-bench-1")
        )
        return ProviderSubject(
            kind: "bridge", factory: .bridge,
            credentials: ["apiKey": Secret(Seed.apiKey), "webhookPublicKey": Secret(simulator.webhookPublicKeyPEM)],
            options: ["certificateEncoding": .string("base64"), "cardChain": .string("base")],
            simulator: simulator, credentialStore: InMemoryCredentialReferenceStore(), operations: cards.operations,
            representative: "card", throughGateway: lookupThroughGateway(lookup)
        )
    }

    /// Marqeta: the card lookup (the live benchmarks' representative) and the listing.
    static func marqeta() -> ProviderSubject {
        typealias Seed = MarqetaSimulator.Seed
        let lookup = CardRef(id: Seed.activeCard)
        let cards = CardOperations(lookup: lookup, listCustomer: Seed.userToken)
        return ProviderSubject(
            kind: "marqeta", factory: .marqeta,
            credentials: ["applicationToken": Secret(Seed.applicationToken), "accessToken": Secret(Seed.accessToken)],
            options: [:],
            simulator: MarqetaSimulator(), credentialStore: InMemoryCredentialReferenceStore(),
            operations: cards.operations,
            representative: "card", throughGateway: lookupThroughGateway(lookup)
        )
    }

    /// Lithic: the card lookup (the live benchmarks' representative) and the listing.
    static func lithic() -> ProviderSubject {
        typealias Seed = LithicSimulator.Seed
        let lookup = CardRef(id: Seed.activeCard)
        let cards = CardOperations(lookup: lookup, listCustomer: Seed.accountToken)
        return ProviderSubject(
            kind: "lithic", factory: .lithic, credentials: ["apiKey": Secret(Seed.apiKey)], options: [:],
            simulator: LithicSimulator(), credentialStore: InMemoryCredentialReferenceStore(),
            operations: cards.operations,
            representative: "card", throughGateway: lookupThroughGateway(lookup)
        )
    }

    static func trustPayments() -> ProviderSubject {
        typealias Seed = TrustPaymentsSimulator.Seed
        let simulator = TrustPaymentsSimulator()
        let gbp = Money(minorUnits: 1050, currency: "GBP")
        let storeSession = ClientSessionRequest(
            intent: .store(consent: CardholderConsent(recordedAt: Date(), evidence: "bench terms v1")), amount: gbp)
        let charge = ChargeRequest(
            reference: Seed.Transaction.storedVisaAuth, amount: gbp, initiator: .merchant(.unscheduled))
        let sdkResult = Slot<Secret>()
        let operations = [
            BenchOperation("client-session") { provider, context in
                _ = try await cast(provider, (any StoredCredentials).self).clientSession(storeSession, context: context)
            },
            BenchOperation(
                "verify-result",
                prepare: { provider in
                    let session = try await cast(provider, (any StoredCredentials).self).clientSession(
                        storeSession, context: OperationContext())
                    sdkResult.set(
                        Secret(
                            try await simulator.sdkPayment(
                                sessionJWT: session.token.revealedValue, pan: Seed.Card.visa,
                                expiryDate: Seed.expiryDate, securityCode: "123"
                            )))
                }
            ) { provider, context in
                _ = try await cast(provider, (any StoredCredentials).self).verifyResult(
                    try sdkResult.get(), context: context)
            },
            BenchOperation("charge") { provider, context in
                _ = try await cast(provider, (any StoredCredentials).self).charge(charge, context: context)
            },
        ]
        return ProviderSubject(
            kind: "trustpayments", factory: .trustpayments,
            credentials: [
                "webservicesUsername": Secret(Seed.webservicesUsername),
                "webservicesPassword": Secret(Seed.webservicesPassword),
                "jwtUsername": Secret(Seed.jwtUsername), "jwtSecret": Secret(Seed.jwtSecret),
            ],
            options: ["siteReference": .string(Seed.siteReference)],
            simulator: simulator,
            // The seeded transaction the charge uses, as the instance's store would hold it.
            credentialStore: InMemoryCredentialReferenceStore([
                StoredCredential(
                    reference: Seed.Transaction.storedVisaAuth, provider: "bench-trustpayments",
                    maskedPAN: "411111######1111", brand: "VISA", scheme: .visa, created: Date())
            ]),
            operations: operations, representative: "charge",
            throughGateway: { gateway, target, context in
                _ = try await gateway.charge(charge, via: target, context: context)
            },
            // Each charge sends a fresh requestreference, which the answer must repeat.
            echoHeader: HTTPField.Name("REQUESTREFERENCE")
        )
    }
}
