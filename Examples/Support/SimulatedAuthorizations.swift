import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import Foundation
import HTTPTypes

/// A simulated card network's authorization, sent by a provider's embedded simulator to any URL: what
/// `cardgateway authorize` and the demo use. The simulator's control path `POST /__simulator/authorizations` takes an
/// ``AuthorizationOrder``, sends the provider's signed message to the order's URL under the provider's deadline, and
/// answers with what the provider records of it (Stripe's `request_history`, Adyen's outcome and fallback, Marqeta's
/// `gateway_log`).
public enum SimulatedAuthorizations {
    /// What the simulator answered: its status and the provider's recorded outcome (JSON).
    public struct Result: Sendable {
        public var status: Int
        public var body: Data

        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The recorded outcome, parsed; nil when the body is not JSON.
        public var json: JSONValue? { try? JSONValue.parse(body) }
    }

    /// The providers whose simulators can play the network, by kind name.
    public static let kinds = ["stripe", "adyen", "marqeta", "lithic"]

    /// A seeded active card of `kind`'s simulator, used when no card is named.
    public static func defaultCard(_ kind: String) -> String? {
        switch kind {
        case "stripe": return "ic_1SimActiveEligible000000"
        case "adyen": return "PI32272223222C5GXTDWH3TTN"
        case "marqeta": return "card_sim_active_0001"
        case "lithic": return "c0000000-0000-4000-8000-000000000001"
        default: return nil
        }
    }

    /// The embedded simulator of `kind`.
    public static func simulator(_ kind: String, in simulators: EmbeddedSimulators) -> (any ProviderSimulator)? {
        switch kind {
        case "stripe": return simulators.stripe
        case "adyen": return simulators.adyen
        case "marqeta": return simulators.marqeta
        case "lithic": return simulators.lithic
        default: return nil
        }
    }

    /// Posts `order` to the simulator at `simulatorURL`'s control path and returns its answer. The simulator waits
    /// for the integrator's endpoint up to the provider's deadline, so this waits a little longer.
    public static func send(
        _ order: AuthorizationOrder, simulatorURL: URL, transport: any HTTPTransport = AsyncHTTPClientTransport()
    ) async throws -> Result {
        guard let scheme = simulatorURL.scheme, let host = simulatorURL.host else {
            throw CardGatewayError(.invalidConfiguration, "the simulator URL is not an absolute URL")
        }
        let authority = simulatorURL.port.map { "\(host):\($0)" } ?? host
        var request = HTTPRequest(
            method: .post, scheme: scheme, authority: authority, path: SimulatorControlPath.authorizations)
        request.headerFields[.contentType] = "application/json"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let response = try await transport.send(request, body: try encoder.encode(order), timeout: .seconds(15))
        return Result(status: response.response.status.code, body: response.body)
    }
}
