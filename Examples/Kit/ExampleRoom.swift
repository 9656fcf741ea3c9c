import CardGateway
import CardGatewaySimulation
import Foundation

/// What the example programs (`cardgateway`, the provisioning server, the demo, the benchmarks) ask of a provider's
/// room: its adapter, its instance in the built-in configuration, its embedded simulator, its sample inputs, its demo
/// steps, the card network its simulator plays and its benchmark subject. Each room implements it in
/// `Providers/<Name>/Examples` (`<Name>ExampleRoom`), and `ExampleRooms.all` in ExampleSupport lists them.
///
/// A room value holds one fresh simulator: ``EmbeddedSimulators`` makes one of each room per run.
public protocol ExampleRoom: Sendable {
    associatedtype Simulator: ProviderSimulator

    /// The adapter, as the example registry registers it (`.stripe`).
    static var factory: ProviderFactory { get }
    /// The provider in words, e.g. `Trust Payments`.
    static var displayName: String { get }
    /// The instance name in the built-in configuration, e.g. `us-issuing`.
    static var instance: String { get }
    /// The route key `issuer` that reaches the instance; nil when it is routed otherwise.
    static var issuer: String? { get }
    /// The built-in configuration's routes to the instance (`{"when": …, "use": instance}`); by default one route by
    /// ``issuer``. Routes by operation come before routes by key, whichever room they belong to.
    static var routes: [[String: Any]] { get }
    /// The route keys the demo's routing step explains, each expected to reach ``instance``. Default: none.
    static var demoRoutes: [RouteKey] { get }
    /// Wallet inputs (what PassKit and Google Pay hand the app) that every simulator accepts, when this room's
    /// simulator makes them. Default: nil.
    static var sampleWalletInputs: SampleWalletInputs? { get }
    /// The card network the simulator plays for real-time authorizations; nil when it plays none (the default).
    static var network: ExampleNetwork? { get }

    /// A room over a fresh simulator holding its documented seed data, on the real clock.
    init()

    /// This room's simulator.
    var simulator: Simulator { get }

    /// The instance's entry in the configuration document (`kind`, `environment`, `baseURL`, `description`,
    /// `credentials` as `literal:` references, `options`) for the simulator listening at `baseURL`.
    func instanceConfiguration(baseURL: String) -> [String: Any]

    /// The credentials the simulator's network sends with real-time authorizations, by credential name (plain
    /// values: the configuration writes them as `literal:` references). Default: none.
    var authorizationCredentials: [String: String] { get }

    /// One signed webhook delivery as the provider would POST it (headers in order, body); nil when the provider
    /// sends none the gateway verifies (the default).
    func sampleWebhook(now: Date) throws -> (headers: [(String, String)], body: Data)?

    /// Why the demo's webhook step is skipped when ``sampleWebhook(now:)`` gives nil.
    static var noWebhookReason: String { get }

    /// The room's own demo steps (lookup, provisioning, lifecycle…), recorded in order. Default: none.
    func demo(_ steps: DemoSteps, _ recorder: inout DemoRecorder) async

    /// The seeded card the demo's card reveal steps use (routed by ``via``); nil leaves the room out of them (the
    /// default).
    static var revealCard: CardRef? { get }

    /// The app's side of a reveal offer (the session it asks the backend for, and what its front end does with it);
    /// what the cardholder would see, last four digits at most. Default: the shared flows
    /// (``DemoSteps/appSide(_:via:)``).
    func revealAppSide(_ offer: RevealOffer, via: RouteTarget, steps: DemoSteps) async throws -> String

    /// The room's cards among the demo users' (the provisioning server's demo directory). Default: none.
    static var demoUserCards: [DemoUserCard] { get }

    /// What the benchmark package runs of the provider (`Providers/<Name>/Examples/<Name>ExampleBenchmark.swift`),
    /// over a fresh simulator of its own on each call; nil leaves the room out of the benchmarks (the default).
    static func benchmarkSubject() -> ProviderSubject?
    /// Whether the subject is in the benchmarks on a live simulator only (`e2e/`, `load/`), not the per-call ones
    /// (`adapter/`, `gateway/`, their thresholds). Default: false.
    static var benchmarkLiveOnly: Bool { get }
}

extension ExampleRoom {
    /// The adapter's kind name, e.g. `stripe` (the simulator's ``ProviderSimulator/kindName``).
    public static var kind: String { factory.kind.name }

    public static var routes: [[String: Any]] {
        guard let issuer else { return [] }
        return [["when": ["issuer": issuer], "use": instance]]
    }

    public static var demoRoutes: [RouteKey] { [] }
    public static var sampleWalletInputs: SampleWalletInputs? { nil }
    public static var network: ExampleNetwork? { nil }
    public var authorizationCredentials: [String: String] { [:] }
    public func sampleWebhook(now: Date) throws -> (headers: [(String, String)], body: Data)? { nil }
    public static var noWebhookReason: String { "\(displayName) sends no webhook the gateway verifies" }
    public func demo(_ steps: DemoSteps, _ recorder: inout DemoRecorder) async {}
    public static var revealCard: CardRef? { nil }
    public static var demoUserCards: [DemoUserCard] { [] }
    public static func benchmarkSubject() -> ProviderSubject? { nil }
    public static var benchmarkLiveOnly: Bool { false }
    public func revealAppSide(_ offer: RevealOffer, via: RouteTarget, steps: DemoSteps) async throws -> String {
        try await steps.appSide(offer, via: via)
    }

    /// The route to the instance by ``issuer``: what the demo's steps use; any key when the room has no issuer.
    public static var via: RouteTarget { .key(RouteKey(issuer: issuer)) }

    /// A `literal:` secret reference: for simulators and tests only (a real configuration names `env:` or `file:`).
    public static func literal(_ value: String) -> String { "literal:" + value }
}

/// What PassKit and Google Pay's push provisioning API hand the app, standing in for the phone.
public struct SampleWalletInputs: Sendable {
    public var applePay: ApplePayProvisioningInput
    public var googlePay: GooglePayProvisioningInput

    public init(applePay: ApplePayProvisioningInput, googlePay: GooglePayProvisioningInput) {
        self.applePay = applePay
        self.googlePay = googlePay
    }
}

/// The inputs the example programs pass to provisioning: rooms add theirs (`SampleInputs.stripeSDKAPIVersion`…), and
/// ExampleSupport the wallet inputs of ``ExampleRoom/sampleWalletInputs``.
public enum SampleInputs: Sendable {}

/// The card network a room's simulator plays (`POST /__simulator/authorizations`): the card and currency the demo and
/// `cardgateway authorize` use, and how to read what the provider recorded of an authorization.
public struct ExampleNetwork: Sendable {
    /// A seeded active card, used when no card is named.
    public var defaultCard: String
    /// The currency of the demo's orders.
    public var currency: String
    /// Why the demo's partial-approval step does not apply; nil when the provider takes a partial amount.
    public var noPartialApproval: String?
    /// The provider's approval as a fixed answer (body and headers), what the authorization benchmark's bare route
    /// answers to every request without reading it.
    public var approval: (body: String, headers: [String: String])
    /// Reads the simulator's answer (the provider's record of the authorization).
    public var record: @Sendable (JSONValue) throws -> RecordedAuthorization

    public init(
        defaultCard: String, currency: String, noPartialApproval: String? = nil,
        approval: (body: String, headers: [String: String]),
        record: @escaping @Sendable (JSONValue) throws -> RecordedAuthorization
    ) {
        self.defaultCard = defaultCard
        self.currency = currency
        self.noPartialApproval = noPartialApproval
        self.approval = approval
        self.record = record
    }
}

/// What a provider recorded of one simulated authorization: whether it approved, the amount it approved, whether
/// it gave up waiting, and a one-line summary.
public struct RecordedAuthorization: Sendable {
    public var approved: Bool
    public var approvedMinor: Int64?
    public var timedOut: Bool
    public var summary: String

    public init(approved: Bool, approvedMinor: Int64?, timedOut: Bool, summary: String) {
        self.approved = approved
        self.approvedMinor = approvedMinor
        self.timedOut = timedOut
        self.summary = summary
    }
}

/// One card of a demo user (ExampleSupport's `DemoUsers`): the user, the public id the app uses, the provider's card,
/// its name in the app and the wallets offered. The route is the room's ``ExampleRoom/via``.
public struct DemoUserCard: Sendable {
    /// The demo users.
    public static let alice = "alice"
    public static let bob = "bob"

    public var user: String
    public var id: String
    public var ref: CardRef
    public var displayName: String
    public var wallets: [Wallet]

    public init(
        user: String, id: String, ref: CardRef, displayName: String, wallets: [Wallet] = [.applePay, .googlePay]
    ) {
        self.user = user
        self.id = id
        self.ref = ref
        self.displayName = displayName
        self.wallets = wallets
    }
}
