import CardGateway
import CardGatewaySimulation
import Foundation
import Logging
import ProvisioningServerApp

// The demo's real-time authorization steps (docs/SERVER.md, "Real-time authorizations"): the provisioning server
// answers `POST /authorizations/{instance}` on 127.0.0.1 with a demo decider, and each provider's simulator plays the
// card network against it (`POST /__simulator/authorizations`), then shows what the provider recorded: Stripe's
// `request_history` reason, Adyen's decision or fallback, Marqeta's `gateway_log`, Lithic's ASA `result`.

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
    var authorizationProviders: [(kind: String, instance: String, currency: String)] {
        [
            ("stripe", Instance.stripe, "USD"), ("adyen", Instance.adyen, "EUR"), ("marqeta", Instance.marqeta, "USD"),
            ("lithic", Instance.lithic, "USD"),
        ]
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
        _ recorder: inout DemoRecorder, providers: [(kind: String, instance: String, currency: String)],
        running: RunningSimulators, port: Int
    ) async {
        for provider in providers {
            guard let handle = running.handle(provider.kind),
                let card = SimulatedAuthorizations.defaultCard(provider.kind)
            else { continue }
            let url = "http://127.0.0.1:\(port)/authorizations/\(provider.instance)"
            func order(_ merchant: String, mcc: String, amount: Int64, adjustable: Bool = false) -> AuthorizationOrder {
                AuthorizationOrder(
                    url: url, card: card, amount: amount, currency: provider.currency,
                    merchant: .init(name: merchant, categoryCode: mcc, country: "US", city: "Seattle"),
                    amountAdjustable: adjustable)
            }
            let send: (AuthorizationOrder) async throws -> RecordedAuthorization = { order in
                let result = try await SimulatedAuthorizations.send(order, simulatorURL: handle.baseURL)
                try expect(
                    (200..<300).contains(result.status),
                    "the simulator refused the order (HTTP \(result.status))")
                return try RecordedAuthorization(kind: provider.kind, json: result.json)
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
            if provider.kind == "adyen" {
                recorder.skip(
                    "authorization: approved for a smaller amount", provider.instance,
                    because: "not applicable: Adyen's relayed authorisation answer takes no partial amount")
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

/// What a provider recorded of one authorization, read from its simulator's answer (the demo's and the tests' one
/// reading of the four providers' records).
public struct RecordedAuthorization: Sendable {
    public var approved: Bool
    /// The approved amount in minor units, when the provider records one.
    public var approvedMinor: Int64?
    /// Whether the provider gave up waiting (its own fallback decided).
    public var timedOut: Bool
    /// A safe sentence: the provider's own words for the outcome.
    public var summary: String

    /// Reads `json`, the answer of `kind`'s simulator to `POST /__simulator/authorizations`.
    public init(kind: String, json: JSONValue?) throws {
        guard let json, case .object = json else {
            throw DemoExpectationFailure(message: "the simulator's answer is not a JSON object")
        }
        switch kind {
        case "stripe":
            // The issuing.authorization: the last request_history entry is this request's.
            let history = json["request_history"]?.arrayValue ?? []
            let last = history.last
            let reason = last?["reason"]?.stringValue ?? "?"
            approved = last?["approved"]?.boolValue ?? json["approved"]?.boolValue ?? false
            // The authorization's amount is what was held (request_history's is what was asked).
            approvedMinor = approved ? json["amount"]?.intValue.map(Int64.init) : nil
            timedOut = reason == "webhook_timeout"
            summary =
                "Stripe request_history: reason \(reason), approved \(approved), asked "
                + (last?["amount"]?.intValue.map(String.init) ?? "?")
                + (approvedMinor.map { ", held \($0)" } ?? "")
        case "adyen":
            let status = json["status"]?.stringValue ?? "?"
            let decidedBy = json["decidedBy"]?.stringValue ?? "?"
            approved = status == "Authorised"
            approvedMinor = nil
            timedOut = decidedBy == "fallback"
            summary = "Adyen: \(status), decided by \(decidedBy)"
        case "lithic":
            // Lithic's ASA record: result (APPROVED or a decline reason), detailed_result, approved_amount, attempts.
            let result = json["result"]?.stringValue ?? "?"
            let detailed = json["detailed_result"]?.stringValue
            approved = result == "APPROVED"
            timedOut = detailed == "CUSTOMER_ASA_TIMEOUT"
            approvedMinor = approved ? json["approved_amount"]?.intValue.map(Int64.init) : nil
            summary =
                "Lithic ASA: \(result)" + (detailed.map { ", detailed_result \($0)" } ?? "")
                + (approvedMinor.map { ", approved_amount \($0)" } ?? "")
        default:
            let log = json["gateway_log"]
            let state = json["state"]?.stringValue ?? "?"
            approved = state == "PENDING"
            timedOut = log?["timed_out"]?.boolValue ?? false
            approvedMinor = json["approved_amount"]?.numberValue.map { Int64(($0 * 100).rounded()) }
            let code = log?["response"]?["code"]?.stringValue ?? "none"
            summary =
                "Marqeta: \(state), gateway_log: HTTP \(code), timed_out \(timedOut)"
                + (json["approved_amount"]?.numberValue.map { ", approved_amount \($0)" } ?? "")
                + (json["decline_reason"]?.stringValue.map { ", decline_reason \($0)" } ?? "")
        }
    }
}
