import AsyncHTTPClient
import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import ExampleSupport
import Foundation
import HTTPTypes
import NIOCore
import ProvisioningServerApp
import Testing

/// End to end with the providers' own adapters and simulators: the simulator plays the network (its signed message,
/// its deadline, its record of the answer), the provisioning server answers at `POST /authorizations/{instance}`,
/// and an `HTTPAuthorizationDecider` asks a decider endpoint on 127.0.0.1. A provider whose adapter does not declare
/// `.authorizations` yet is left out (its test case passes without running).
@Suite("provisioning-server: real-time authorizations from each provider's simulator", .timeLimit(.minutes(2)))
struct ProvisioningServerProviderAuthorizationTests {
    static let instances = [
        "stripe": EmbeddedSimulators.Instance.stripe, "adyen": EmbeddedSimulators.Instance.adyen,
        "marqeta": EmbeddedSimulators.Instance.marqeta, "lithic": EmbeddedSimulators.Instance.lithic,
    ]
    /// The seeded cards' currencies.
    static let currencies = ["stripe": "USD", "adyen": "EUR", "marqeta": "USD", "lithic": "USD"]

    @Test(
        "approve, decline by the decider and by a rule, a smaller amount where allowed, stand-ins for a slow or garbled decider, 401 without a decider call",
        arguments: ["stripe", "adyen", "marqeta", "lithic"])
    func endToEnd(kind: String) async throws {
        guard EmbeddedSimulators.answersAuthorizations(kind) else { return }
        let instance = try #require(Self.instances[kind])
        let currency = try #require(Self.currencies[kind])
        let card = try #require(SimulatedAuthorizations.defaultCard(kind))
        let decider = DeciderEndpoint(.answer(status: 200, body: #"{"approved": true}"#))
        try await decider.run { deciderURL in
            try await EmbeddedSimulators().run { running in
                var configuration = try running.configuration()
                // A budget of 5 s and a network that waits 15 s (Marqeta: its 7 s maximum): long enough that a loaded
                // machine cannot make the decider late; the exact timing is AuthorizationTests', on an injected clock.
                // Lithic declares a 2 s deadline, so its budget stays below it (1.5 s).
                configuration.providers[instance]?.authorizations = AuthorizationSettings(
                    standIn: .decline, budget: kind == "lithic" ? .milliseconds(1_500) : .seconds(5))
                let gateway = try CardGateway(
                    configuration: configuration, registry: ExampleRegistry.all,
                    transport: AsyncHTTPClientTransport())
                var serverConfiguration = ProvisioningServer.Configuration()
                serverConfiguration.authorizationDecider = try HTTPAuthorizationDecider(url: deciderURL)
                let server = ProvisioningServer(
                    gateway: gateway, directory: InMemoryCardDirectory(accounts: []),
                    configuration: serverConfiguration)
                let simulatorURL = try #require(running.handle(kind)).baseURL
                try await withLiveProvisioningServer(server) { port in
                    let url = "http://127.0.0.1:\(port)/authorizations/\(instance)"
                    func send(
                        _ merchant: String, mcc: String = "5411", amount: Int64 = 1_000, adjustable: Bool = false
                    ) async throws -> RecordedAuthorization {
                        let order = AuthorizationOrder(
                            url: url, card: card, amount: amount, currency: currency,
                            merchant: .init(name: merchant, categoryCode: mcc, country: "US", city: "Seattle"),
                            amountAdjustable: adjustable, deadlineMilliseconds: kind == "marqeta" ? 7_000 : 15_000)
                        let result = try await SimulatedAuthorizations.send(order, simulatorURL: simulatorURL)
                        #expect(result.status == 200, "\(result.text.prefix(300))")
                        return try RecordedAuthorization(kind: kind, json: result.json)
                    }

                    let approved = try await send("Corner Shop")
                    #expect(approved.approved, "\(approved.summary)")
                    #expect(!approved.timedOut)
                    #expect(decider.calls == 1)
                    let sent = try JSONValue.parse(try #require(decider.bodies.last))
                    #expect(sent["provider"]?.stringValue == kind)
                    #expect(sent["instance"]?.stringValue == instance)
                    #expect(sent["card"]?["id"]?.stringValue == card)
                    #expect(sent["amount"]?["minor"]?.intValue == 1_000)
                    #expect(sent["amount"]?["currency"]?.stringValue == currency)
                    #expect(sent["merchant"]?["categoryCode"]?.stringValue == "5411")
                    #expect(sent["merchant"]?["country"]?.stringValue == "US")
                    #expect(sent["id"]?.stringValue?.isEmpty == false)

                    decider.set(.answer(status: 200, body: #"{"approved": false, "reason": "insufficientFunds"}"#))
                    let declined = try await send("Corner Shop")
                    #expect(!declined.approved, "\(declined.summary)")
                    #expect(decider.calls == 2)

                    // The configuration's rule (MCC 7995) declines before the decider is asked.
                    decider.set(.answer(status: 200, body: #"{"approved": true}"#))
                    let ruled = try await send("Lucky Casino", mcc: "7995")
                    #expect(!ruled.approved, "\(ruled.summary)")
                    #expect(decider.calls == 2)

                    if kind != "adyen" {
                        decider.set(
                            .answer(
                                status: 200,
                                body: #"{"approved": true, "amount": {"currency": "\#(currency)", "minor": 600}}"#))
                        let reduced = try await send("Fuel Station", adjustable: true)
                        #expect(reduced.approved, "\(reduced.summary)")
                        #expect(reduced.approvedMinor == 600, "\(reduced.summary)")
                    }

                    decider.set(.answer(status: 200, body: "<html>oops</html>"))
                    let garbled = try await send("Corner Shop")
                    #expect(!garbled.approved, "\(garbled.summary)")
                    #expect(!garbled.timedOut, "\(garbled.summary)")

                    // A decider that never answers: the stand-in (decline) reaches the provider before its deadline.
                    decider.set(.hang)
                    let calls = decider.calls
                    let slow = try await send("Slow Diner")
                    #expect(!slow.approved, "\(slow.summary)")
                    #expect(!slow.timedOut, "the provider's own timeout decided: \(slow.summary)")
                    #expect(decider.calls == calls + 1)

                    // Not the provider's credentials: 401, and the decider is not asked.
                    decider.set(.answer(status: 200, body: #"{"approved": true}"#))
                    let before = decider.calls
                    var request = HTTPClientRequest(url: url)
                    request.method = .POST
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.headers.add(name: "Authorization", value: "Basic \(Data("someone:else".utf8).base64)")
                    request.headers.add(name: "Stripe-Signature", value: "t=1,v1=00")
                    request.body = .bytes(ByteBuffer(string: #"{"id":"evt_forged"}"#))
                    let forged = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                    #expect(forged.status.code == 401)
                    #expect(decider.calls == before)
                }
            }
        }
    }
}
