@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// The floor under every `gateway/<kind>/card`: a gateway of the same shape as ``ProviderSubject/makeGateway(baseURL:transport:)``'s
/// (three routes, the third matching by issuer, every default) over an issuer that does no provider's work. With
/// `sending`, the issuer sends one GET through the ``ProviderHTTPClient`` the gateway made for it (idempotency,
/// retry, breaker, bulkhead, attempt telemetry and log steps, request building) to a transport that answers `{}`, and
/// ignores the answer; without, it answers at once. What is left of a provider's call above these two is its
/// adapter's own work: building its request, reading its answer, mapping it.
public enum FloorFixtures {
    public static let card = CardRef(id: "ic_floor_0001")
    public static let target = RouteTarget.key(RouteKey(issuer: "floor"))

    public static func gateway(sending: Bool) throws -> CardGateway {
        let kind = ProviderKind("constant-issuer")
        let descriptor = ProviderDescriptor(kind: kind, capabilities: [.cardLookup])
        let registry = ProviderRegistry([
            ProviderFactory(kind: kind, descriptor: descriptor, environments: [:], credentials: [], options: []) {
                setup in
                ConstantIssuer(descriptor: descriptor, http: sending ? setup.http : nil)
            }
        ])
        let instance = ProviderInstanceConfiguration(
            name: "floor", kind: kind, environment: nil, baseURL: URL(string: "https://issuer.example/v1")!,
            credentials: [:], options: [:]
        )
        let configuration = GatewayConfiguration(
            providers: ["floor": instance],
            routes: [
                Route(when: .init(issuers: ["floor-eu"]), use: "floor"),
                Route(
                    when: .init(bins: [
                        BINRange(low: "44000000", high: "44009999"), BINRange(low: "510510", high: "510510"),
                    ]), use: "floor"),
                Route(when: .init(issuers: ["floor"]), use: "floor"),
            ]
        )
        return try CardGateway(configuration: configuration, registry: registry, transport: ConstantTransport())
    }
}

/// See ``FloorFixtures``.
struct ConstantIssuer: CardLookup {
    let descriptor: ProviderDescriptor
    let http: ProviderHTTPClient?

    func card(_ ref: CardRef, context: OperationContext) async throws -> Card {
        if let http {
            let request = ProviderRequest(.get, "/cards/" + URLEncoding.pathSegment(ref.id), operation: "get card")
            let response = try await http.send(request, context: context)
            guard response.isSuccess else {
                throw CardGatewayError(.invalidResponse, "the floor's transport answered \(response.status)")
            }
        }
        return Card(
            ref: ref, status: .active, providerStatus: "ACTIVE", type: .virtual, scheme: .visa, lastFour: "4242")
    }
}

/// A 200 with an empty JSON object, whatever was asked.
struct ConstantTransport: HTTPTransport {
    func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        TransportResponse(
            response: HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]), body: Data("{}".utf8)
        )
    }
}
