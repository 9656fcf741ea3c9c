import CardGateway
import CardGatewaySimulation
import Foundation
import Logging
import ProvisioningServerApp

// The demo's real-time authorization steps (docs/SERVER.md, "Real-time authorizations"): the provisioning server
// answers `POST /authorizations/{instance}` on 127.0.0.1 with a demo decider, and the simulator of each room with a
// card network (``ExampleRoom/network``) plays it against the server (`POST /__simulator/authorizations`), then shows
// what the provider recorded, as the room reads it (Stripe's `request_history` reason, for one).

/// The demo's decider, keyed on the merchant's name: "Slow Diner" is never answered in time (the stand-in answers
/// the provider), "Fuel Station" is approved for 60.00 when the request allows a smaller amount, everything else in
/// full. The local rule (MCC 7995, gambling) declines before it is asked.
struct DemoAuthorizationDecider: AuthorizationDecider {
    static let slowMerchant = "Slow Diner"
    static let reducedMerchant = "Fuel Station"
    static let reducedMinor: Int64 = 6_000

    func decide(_ request: AuthorizationRequest) async throws -> AuthorizationDecision {
        switch request.merchant.name {
        case Self.slowMerchant?:
            // Far past any budget: the gateway stops waiting (and cancels this) at the budget's end.
            try await Task.sleep(for: .seconds(30))
            return .approve()
        case Self.reducedMerchant? where request.amountAdjustable:
            return .approve(amount: Money(minorUnits: Self.reducedMinor, currency: request.amount.currency))
        default:
            return .approve()
        }
    }
}

extension DemoSteps {
    /// The providers whose adapter declares `.authorizations`, with their instance and the demo card's currency.
    /// The rooms whose simulators play the card network, with the network, for instances that answer authorizations.
    var authorizationProviders: [(kind: String, instance: String, network: ExampleNetwork)] {
        simulators.rooms.compactMap { room -> (kind: String, instance: String, network: ExampleNetwork)? in
            let room = type(of: room)
            guard let network = room.network else { return nil }
            return (room.kind, room.instance, network)
        }
        .filter {
            gateway.instance(named: $0.instance)?.descriptor.capabilities.contains(.authorizations) == true
        }
    }

    func authorizations(_ recorder: inout DemoRecorder) async {
        let providers = authorizationProviders
        guard let running, !providers.isEmpty else { return }
        let server = ProvisioningServer(
            gateway: gateway, directory: InMemoryCardDirectory(accounts: DemoUsers.accounts),
            configuration: {
                var configuration = ProvisioningServer.Configuration()
                configuration.authorizationDecider = DemoAuthorizationDecider()
                return configuration
            }())
        do {
            try await withAuthorizationEndpoint(server) { port in
                await authorizationSteps(&recorder, providers: providers, running: running, port: port)
            }
        } catch {
            await recorder.step("authorizations: the decision endpoint", "-") { throw error }
        }
    }

    func authorizationSteps(
        _ recorder: inout DemoRecorder, providers: [(kind: String, instance: String, network: ExampleNetwork)],
        running: RunningSimulators, port: Int
    ) async {
        for provider in providers {
            guard let handle = running.handle(provider.kind) else { continue }
            let card = provider.network.defaultCard
            let url = "http://127.0.0.1:\(port)/authorizations/\(provider.instance)"
            func order(_ merchant: String, mcc: String, amount: Int64, adjustable: Bool = false) -> AuthorizationOrder {
                AuthorizationOrder(
                    url: url, card: card, amount: amount, currency: provider.network.currency,
                    merchant: .init(name: merchant, categoryCode: mcc, country: "US", city: "Seattle"),
                    amountAdjustable: adjustable)
            }
            let send: (AuthorizationOrder) async throws -> RecordedAuthorization = { order in
                let result = try await SimulatedAuthorizations.send(order, simulatorURL: handle.baseURL)
                try expect(
                    (200..<300).contains(result.status),
                    "the simulator refused the order (HTTP \(result.status))")
                guard let json = result.json, case .object = json else {
                    throw DemoExpectationFailure(message: "the simulator's answer is not a JSON object")
                }
                return try provider.network.record(json)
            }
            await recorder.step("authorization: approved by the decider", provider.instance) {
                let recorded = try await send(order("Corner Shop", mcc: "5411", amount: 1_250))
                try expect(recorded.approved, "not approved: \(recorded.summary)")
                return recorded.summary
            }
            await recorder.step("authorization: declined by a local rule (MCC 7995)", provider.instance) {
                let recorded = try await send(order("Lucky Casino", mcc: "7995", amount: 5_000))
                try expect(!recorded.approved, "not declined: \(recorded.summary)")
                try expect(!recorded.timedOut, "the provider timed out: \(recorded.summary)")
                return recorded.summary
            }
            if let reason = provider.network.noPartialApproval {
                recorder.skip("authorization: approved for a smaller amount", provider.instance, because: reason)
            } else {
                await recorder.step("authorization: approved for a smaller amount", provider.instance) {
                    let recorded = try await send(
                        order(DemoAuthorizationDecider.reducedMerchant, mcc: "5542", amount: 10_000, adjustable: true))
                    try expect(recorded.approved, "not approved: \(recorded.summary)")
                    try expect(
                        recorded.approvedMinor == DemoAuthorizationDecider.reducedMinor,
                        "not the smaller amount: \(recorded.summary)")
                    return recorded.summary
                }
            }
            await recorder.step("authorization: the stand-in answers for a slow decider", provider.instance) {
                let recorded = try await send(order(DemoAuthorizationDecider.slowMerchant, mcc: "5812", amount: 2_400))
                try expect(!recorded.approved, "the stand-in (decline) was not applied: \(recorded.summary)")
                try expect(!recorded.timedOut, "the provider timed out instead: \(recorded.summary)")
                return "stand-in decline before the provider's deadline; " + recorded.summary
            }
        }
    }
}

/// Runs `server` on 127.0.0.1 (a free port) for the duration of `body`.
public func withAuthorizationEndpoint<R: Sendable>(
    _ server: ProvisioningServer, _ body: (_ port: Int) async throws -> R
) async throws -> R {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let app = server.buildApplication(host: "127.0.0.1", port: 0) { port in continuation.yield(port) }
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            defer { continuation.finish() }
            try await app.run()
        }
        defer { group.cancelAll() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return try await body(port)
    }
}

extension RecordedAuthorization {
    /// What the simulator of `kind` answered (the provider's record of the authorization), read by its room's
    /// network (``ExampleNetwork/record``).
    public init(kind: String, json: JSONValue?) throws {
        guard let json, case .object = json else {
            throw DemoExpectationFailure(message: "the simulator's answer is not a JSON object")
        }
        guard let network = SimulatedAuthorizations.network(kind) else {
            throw DemoExpectationFailure(message: "no simulator of \(kind) plays the card network")
        }
        self = try network.record(json)
    }
}
