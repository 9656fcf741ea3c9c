import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import Foundation
import HTTPTypes

/// A simulated card network's authorization, sent by a provider's embedded simulator to any URL: what
/// `cardgateway authorize` and the demo use. The simulator's control path `POST /__simulator/authorizations` takes an
/// ``AuthorizationOrder``, sends the provider's signed message to the order's URL under the provider's deadline, and
/// answers with what the provider records of it (Stripe's `request_history`, for one). The rooms whose simulators play
/// a network say so in ``ExampleRoom/network``.
public enum SimulatedAuthorizations {
    /// What the simulator answered: its status and the provider's recorded outcome (JSON).
    public struct Result: Sendable {
        public var status: Int
        public var body: Data

        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The recorded outcome, parsed; nil when the body is not JSON.
        public var json: JSONValue? { try? JSONValue.parse(body) }
    }

    /// The providers whose simulators can play the network, by kind name, in the rooms' order.
    public static var kinds: [String] { ExampleRooms.all.filter { $0.network != nil }.map { $0.kind } }

    /// The room of `kind`, when its simulator plays the network.
    public static func room(_ kind: String) -> (any ExampleRoom.Type)? {
        ExampleRooms.all.first { $0.kind == kind && $0.network != nil }
    }

    /// The network `kind`'s simulator plays.
    public static func network(_ kind: String) -> ExampleNetwork? { room(kind)?.network }

    /// A seeded active card of `kind`'s simulator, used when no card is named.
    public static func defaultCard(_ kind: String) -> String? { network(kind)?.defaultCard }

    /// The embedded simulator of `kind`, when it plays the network.
    public static func simulator(_ kind: String, in simulators: EmbeddedSimulators) -> (any ProviderSimulator)? {
        simulators.rooms.first { type(of: $0).kind == kind && type(of: $0).network != nil }?.simulator
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
