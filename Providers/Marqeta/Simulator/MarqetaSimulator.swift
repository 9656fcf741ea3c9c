import CardGatewaySimulation
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A stand-in for Marqeta's Core API (`/v3`) for what the gateway uses: cards (retrieve, list by user, create), card
/// transitions, Apple Pay, Google Pay and Samsung Pay push-provisioning requests, digital wallet tokens (list by
/// card) and their transitions, and signed webhooks. HTTP Basic (application token, access token) is checked on
/// every request; errors are Marqeta's `{"error_code", "error_message"}`. Illegal transitions are refused as
/// Marqeta's state machines refuse them: `TERMINATED` is final for cards and tokens, and `REQUEST_DECLINED` for
/// tokens.
///
/// Seed data and credentials: ``Seed``; the error codes it chooses: ``MarqetaSimulatorErrors``.
public struct MarqetaSimulator: ProviderSimulator {
    /// `"marqeta"`.
    public var kindName: String { "marqeta" }
    /// `"/v3"`, as in Marqeta's base URLs.
    public var basePath: String { "/v3" }
    public var clock: SimulationClock? { simulationClock }
    /// Basic credentials and webhook signatures are masked in the journal.
    public var sensitiveHeaderNames: Set<String> { ["authorization", "x-marqeta-signature"] }
    /// Apple's certificates, nonce and signature are masked in the journal (names as the journal folds them).
    public var sensitiveBodyFields: Set<String> { ["nonce", "noncesignature"] }

    public let simulationClock: SimulationClock
    let state: MarqetaSimulatorState

    public init(clock: SimulationClock = SimulationClock()) {
        self.simulationClock = clock
        self.state = MarqetaSimulatorState(clock: clock)
    }

    /// Back to the documented seed.
    public func reset() async { state.reset() }

    /// SHA-256 hex digests of the bytes the last Apple Pay provisioning request carried, Base64-decoded:
    /// certificates in order, then the nonce, then the nonce signature. The journal masks those fields.
    public var lastApplePayDigests: [String] { state.lastApplePayDigests.withLock { $0 } }

    /// A card's current state, or nil.
    public func cardState(_ token: String) -> String? { state.cards.get(token)?.state }
    /// A digital wallet token's current state, or nil.
    public func tokenState(_ token: String) -> String? { state.tokens.get(token)?.state }

    // MARK: Routes

    public func registerRoutes(on router: Router<SimulatorContext>) {
        let base = basePath
        router.get("\(base)/cards/user/:token") { request, context in
            await self.handle(request, context) { _ in try self.listCards(request, context) }
        }
        router.get("\(base)/cards/:token") { request, context in
            await self.handle(request, context) { _ in try self.getCard(context) }
        }
        router.post("\(base)/cards") { request, context in
            await self.handle(request, context) { body in try self.createCard(body) }
        }
        router.post("\(base)/cardtransitions") { request, context in
            await self.handle(request, context) { body in try self.cardTransition(body) }
        }
        router.post("\(base)/digitalwalletprovisionrequests/applepay") { request, context in
            await self.handle(request, context) { body in try self.provisionApple(body) }
        }
        router.post("\(base)/digitalwalletprovisionrequests/androidpay") { request, context in
            await self.handle(request, context) { body in try self.provisionGoogle(body) }
        }
        router.post("\(base)/digitalwalletprovisionrequests/samsungpay") { request, context in
            await self.handle(request, context) { body in try self.provisionSamsung(body) }
        }
        router.get("\(base)/digitalwallettokens/card/:token") { request, context in
            await self.handle(request, context) { _ in try self.listTokens(request, context) }
        }
        router.post("\(base)/digitalwallettokentransitions") { request, context in
            await self.handle(request, context) { body in try self.tokenTransition(body) }
        }
        // Card details and PIN (handlers in MarqetaSimulatorCardReveal.swift).
        router.post("\(basePath)/users/auth/clientaccesstoken") { request, context in
            await self.handle(request, context) { body in try self.createClientAccessToken(body) }
        }
        router.get("\(Self.marqetaJSPath)/:card_token") { request, context in
            self.readCardForFrames(request, card: context.parameters.get("card_token") ?? "").hummingbirdResponse
        }
    }

    /// Marqeta's error body for an injected fault, an unknown route or a handler error.
    public func faultResponse(status: Int, message: String) -> SimulatedResponse {
        errorBody(status, MarqetaSimulatorErrors.genericCode(status), message)
    }

    // MARK: Handling

    func handle(
        _ request: Request, _ context: SimulatorContext, _ body: (Data) throws -> SimulatedResponse
    ) async -> Response {
        do {
            try authorize(request)
            let buffer = try await request.body.collect(upTo: 1 << 20)
            return try body(Data(buffer.readableBytesView)).hummingbirdResponse
        } catch let error as MarqetaSimulatorFailure {
            return error.response.hummingbirdResponse
        } catch {
            return faultResponse(status: 400, message: "The request could not be read.").hummingbirdResponse
        }
    }

    /// HTTP Basic: the application token and the access token, compared in constant time.
    private func authorize(_ request: Request) throws {
        guard
            SimulatorHTTP.basicCredentialsMatch(
                request.headers[.authorization], user: Seed.applicationToken, password: Seed.accessToken)
        else {
            throw failure(
                401, MarqetaSimulatorErrors.unauthorized,
                "Authentication failed: check the application token and access token")
        }
    }

}
