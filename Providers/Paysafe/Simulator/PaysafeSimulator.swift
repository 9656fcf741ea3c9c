import CardGatewaySimulation
import Foundation
import HTTPTypes
import Hummingbird

/// A stateful stand-in for Paysafe Embedded Wallets' business prepaid-card API on 127.0.0.1.
///
/// It speaks Paysafe's wire format: the brand token endpoint (Basic client credentials → bearer token with an
/// expiry on the simulation clock), the card service under `/digitalwallets/v1/customers/{customerId}/prepaid`
/// (list with filters and paging, get with includes, create, activate, status/PIN update with the transition
/// table, programs, tokenize, tokenization completion, secure details), outsourced SCA (a 401 challenge for
/// the SCA customer, satisfied once after `POST /digitalwallets/v1/sca/events/{eventId}/attempts`), errors in
/// Paysafe's `{"error":{…}}` shape, and signed status and token webhooks (Paysafe's signature scheme). Paysafe documents no idempotency key, so the
/// simulator de-duplicates nothing. Seed data: ``Seed``; accepted secrets: ``Credentials/default``.
public struct PaysafeSimulator: ProviderSimulator {
    public let kindName = "paysafe"
    public let basePath = ""
    public let credentials: Credentials
    /// Whether every business write (`POST`, `PUT`, `PATCH` but the token request) must carry Paysafe's request
    /// `Signature`: `Base64(HMAC-SHA256(key, body))`, or of the URL path when there is no body, the key being the
    /// Base64-decoded ``Credentials/webhookSecret`` (Paysafe's page describes one HMAC secret per partner). A missing
    /// or wrong one is answered `400` with the simulator's own code `SIM-SIGNATURE-INVALID` (Paysafe's answer is not
    /// published). Off by default: which card endpoints Paysafe signs is not published either.
    public let requireRequestSignature: Bool
    let simulationClock: SimulationClock
    let engine: PaysafeSimulatorEngine

    public init(
        clock: SimulationClock = SimulationClock(), credentials: Credentials = .default,
        requireRequestSignature: Bool = false
    ) {
        self.simulationClock = clock
        self.credentials = credentials
        self.requireRequestSignature = requireRequestSignature
        self.engine = PaysafeSimulatorEngine(credentials: credentials, clock: clock)
    }

    public var clock: SimulationClock? { simulationClock }

    /// Bearer tokens, client credentials and SCA authorizations are masked in the journal.
    public var sensitiveHeaderNames: Set<String> { ["authorization", "sca-authorization"] }
    /// The secure view's token (in the link's query) is masked in the journal.
    public var sensitiveBodyFields: Set<String> { ["securedetailstoken"] }

    public func reset() async {
        engine.reset()
    }

    /// Paysafe's own error body.
    public func faultResponse(status: Int, message: String) -> SimulatedResponse {
        PaysafeSimulatorErrors.error(status, String(status), message)
    }

    public func registerRoutes(on router: Router<SimulatorContext>) {
        let v1 = "/digitalwallets/v1"
        let customer = "\(v1)/customers/:customerId/prepaid"
        let card = "\(customer)/cards/:cardId"
        let engine = self.engine
        router.on(RouterPath("\(v1)/auth/brands/:brand/token"), method: .post) { request, context in
            Self.simulated(request, context, names: ["brand"], handler: engine.issueToken)
        }
        route(router, .get, "\(customer)/cards", engine.listCards)
        route(router, .post, "\(customer)/cards", engine.createCard)
        route(router, .get, card, engine.getCard)
        route(router, .patch, card, engine.updateCard)
        route(router, .post, "\(card)/activate", engine.activateCard)
        route(router, .get, "\(customer)/programs", engine.programs)
        route(router, .post, "\(card)/tokenizations", engine.tokenize)
        route(router, .patch, "\(card)/tokenizations", engine.updateTokenization)
        route(router, .put, "\(card)/tokenizations", engine.updateTokenization)
        route(router, .post, "\(card)/secure-details", engine.secureDetails)
        route(router, .get, Self.secureViewPath, engine.secureView)
        route(router, .post, "\(v1)/sca/events/:eventId/attempts", engine.scaAttempt)
        route(router, .post, "/digitalwallets/v2/sca/events/:eventId/attempts", engine.scaAttempt)
    }

    private func route(
        _ router: Router<SimulatorContext>, _ method: HTTPRequest.Method, _ path: String,
        _ handler: @escaping @Sendable (PaysafeSimulatorRequest) -> SimulatedResponse
    ) {
        let names = path.split(separator: "/").filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) }
        let checksSignature = requireRequestSignature && [.post, .put, .patch].contains(method)
        let secret = credentials.webhookSecret
        router.on(RouterPath(path), method: method) { request, context in
            Self.simulated(request, context, names: names) { simulated in
                if checksSignature {
                    let message = simulated.body.isEmpty ? Data(request.uri.path.utf8) : simulated.body
                    let expected = PaysafeSimulatorWire.signature(secret: secret, message: message)
                    guard let expected, let given = simulated.header("signature"), given == expected else {
                        return PaysafeSimulatorErrors.error(
                            400, "SIM-SIGNATURE-INVALID",
                            "The Signature header is missing or does not match the request (simulator's own code).")
                    }
                }
                return handler(simulated)
            }
        }
    }

    private static func simulated(
        _ request: Request, _ context: SimulatorContext, names: [String],
        handler: (PaysafeSimulatorRequest) -> SimulatedResponse
    ) -> Response {
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        var parameters: [String: String] = [:]
        for name in names { parameters[name] = context.parameters.get(name) }
        let simulated = PaysafeSimulatorRequest(
            method: request.method.rawValue, parameters: parameters,
            query: SimulatorHTTP.queryItems(request.uri.query), headers: headers,
            body: context.requestBody, authority: request.head.authority ?? ""
        )
        return handler(simulated).hummingbirdResponse
    }
}
