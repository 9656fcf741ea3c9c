import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import MarqetaSimulator
import SharedTestSupport
import Testing

@testable import CardGatewayMarqeta

/// Card details by a Marqeta.js client access token, through a ``CardGateway`` configured like a program's: the wire
/// (`POST /v3/users/auth/clientaccesstoken {"card_token"}`, Basic auth), a test acting as the front end reading the
/// card from the simulator with the token, the token's binding, single use and five-minute expiry on the simulator's
/// clock, inputs the flow does not take refused before any request, and nothing secret in the journal, logs or errors.
@Suite("Marqeta card reveal", .timeLimit(.minutes(5)))
struct MarqetaCardRevealTests {
    static let start = Date(timeIntervalSince1970: 1_760_000_000)
    static let target = RouteTarget.key(RouteKey(issuer: "marqeta"))

    struct Live {
        let gateway: CardGateway
        let simulator: MarqetaSimulator
        let handle: SimulatorHandle
        let transport: RecordingTransport
        let capture: LogCapture

        var clock: SimulationClock { simulator.simulationClock }
        var context: OperationContext { OperationContext(logger: capture.logger(label: "marqeta.reveal.test")) }

        /// What the front end does with the token: Marqeta.js fetches the card for its frames (the simulator's own
        /// route; Marqeta does not publish Marqeta.js's request).
        func frontEndRead(card: String, token: String?) async throws -> (status: Int, json: JSONValue?) {
            var fields = HTTPFields()
            if let token { fields[.authorization] = "Bearer " + token }
            let request = HTTPRequest(
                method: .get, scheme: "http", authority: "127.0.0.1:\(handle.port)",
                path: MarqetaSimulator.marqetaJSPath + "/" + card, headerFields: fields
            )
            let response = try await AsyncHTTPClientTransport().send(request, body: nil, timeout: .seconds(30))
            return (Int(response.response.status.code), try? JSONValue.parse(response.body))
        }
    }

    static func run<R: Sendable>(maxAttempts: Int = 1, _ body: (Live) async throws -> R) async throws -> R {
        let simulator = MarqetaSimulator(clock: SimulationClock(fixed: start))
        return try await withSimulator(simulator) { handle in
            let json = """
                {"providers":{"marqeta-sim":{"kind":"marqeta","baseURL":"\(handle.baseURL.absoluteString)",
                  "credentials":{"applicationToken":"literal:\(Seed.applicationToken)","accessToken":"literal:\(Seed.accessToken)"},
                  "maxAttempts":\(maxAttempts)}},
                 "routes":[{"when":{"issuer":"marqeta"},"use":"marqeta-sim"}]}
                """
            let registry = ProviderRegistry([.marqeta])
            let configuration = try GatewayConfiguration.load(from: Data(json.utf8), registry: registry)
            let capture = LogCapture()
            let transport = RecordingTransport(AsyncHTTPClientTransport())
            let gateway = try CardGateway(
                configuration: configuration, registry: registry, transport: transport,
                logger: capture.logger(label: "marqeta.gateway", level: .trace),
                now: { simulator.simulationClock.now() }
            )
            return try await body(
                Live(gateway: gateway, simulator: simulator, handle: handle, transport: transport, capture: capture))
        }
    }

    @Test("the descriptor declares card details by client access token, and nothing for the PIN")
    func descriptor() {
        #expect(MarqetaProvider.descriptor.capabilities.contains(.cardDetailsReveal))
        #expect(!MarqetaProvider.descriptor.capabilities.contains(.pinReveal))
        #expect(!MarqetaProvider.descriptor.capabilities.contains(.pinChange))
        #expect(MarqetaProvider.descriptor.revealFlows == [.cardDetails: .clientAccessToken])
    }

    @Test("offer and session on the wire; the front end reads the card with the token")
    func detailsEndToEnd() async throws {
        try await Self.run { live in
            let card = CardRef(id: Seed.activeCard)
            let offer = try await live.gateway.revealOffer(
                for: card, purpose: .cardDetails, via: Self.target, context: live.context)
            #expect(offer.provider == "marqeta-sim")
            #expect(offer.flow == .clientAccessToken)
            #expect(offer.requires.isEmpty)
            #expect(offer.sessionLifetime == .seconds(300))
            #expect(offer.mayRequireSCA == false)
            #expect(offer.publicKey == nil)
            // The offer reads the card and asks for no token.
            #expect(
                live.handle.journal.entries().map { "\($0.method) \($0.path)" } == ["GET /v3/cards/\(Seed.activeCard)"])

            let session = try await live.gateway.revealSession(
                RevealSessionRequest(card: card, purpose: .cardDetails), via: Self.target, context: live.context)
            #expect(session.provider == "marqeta-sim")
            #expect(session.flow == .clientAccessToken)
            #expect(session.material.kind == "clientAccessToken")
            #expect(session.expires == live.clock.now().addingTimeInterval(300))
            let token = try #require(session.material.clientAccessToken?.revealedValue)
            #expect(!token.isEmpty)

            // The request as sent: method, path, Basic credentials, JSON, and exactly `{"card_token"}`.
            let sent = try #require(live.transport.requests.last)
            #expect(sent.method == "POST")
            #expect(sent.pathWithoutQuery == "/v3/users/auth/clientaccesstoken")
            #expect(sent.header("Authorization") == MarqetaHarness.expectedAuthorization)
            #expect(sent.header("Content-Type") == "application/json")
            #expect(sent.header("Accept") == "application/json")
            #expect(sent.jsonBody == .object(["card_token": .string(Seed.activeCard)]))
            let entry = try #require(live.handle.journal.last)
            #expect(
                entry.method == "POST" && entry.path == "/v3/users/auth/clientaccesstoken"
                    && entry.responseStatus == 201)

            // The front end reads the card with the token: the seeded card's last four, never a whole number.
            let read = try await live.frontEndRead(card: Seed.activeCard, token: token)
            #expect(read.status == 200)
            #expect(read.json?["card_token"]?.stringValue == Seed.activeCard)
            #expect(read.json?["last_four"]?.stringValue == "4242")
            #expect(read.json?["pan"]?.stringValue == "111111______4242")
        }
    }

    @Test("the token works once, for its card only; a repeat makes a new token")
    func singleUseAndBound() async throws {
        try await Self.run { live in
            let request = RevealSessionRequest(card: CardRef(id: Seed.activeCard), purpose: .cardDetails)
            let first = try #require(
                try await live.gateway.revealSession(request, via: Self.target).material.clientAccessToken?
                    .revealedValue)
            let second = try #require(
                try await live.gateway.revealSession(request, via: Self.target).material.clientAccessToken?
                    .revealedValue)
            #expect(first != second, "a repeat must make a new session, never replay the first")
            #expect(
                live.handle.journal.entries(method: "POST", pathContains: "/users/auth/clientaccesstoken").count == 2)
            #expect(live.simulator.openClientAccessTokens == 2)

            let otherCard = try await live.frontEndRead(card: Seed.lockableCard, token: first)
            #expect(otherCard.status == 403)
            #expect(otherCard.json?["error_code"]?.stringValue == MarqetaSimulator.clientAccessTokenWrongCard)
            #expect(try await live.frontEndRead(card: Seed.activeCard, token: first).status == 200)
            let reused = try await live.frontEndRead(card: Seed.activeCard, token: first)
            #expect(reused.status == 401)
            #expect(reused.json?["error_code"]?.stringValue == MarqetaSimulator.clientAccessTokenRefused)
            #expect(try await live.frontEndRead(card: Seed.activeCard, token: "cat_sim_unknown").status == 401)
            #expect(try await live.frontEndRead(card: Seed.activeCard, token: nil).status == 401)
            #expect(try await live.frontEndRead(card: Seed.activeCard, token: second).status == 200)
        }
    }

    @Test("the token expires five minutes after it was made, on the simulator's clock")
    func expiry() async throws {
        try await Self.run { live in
            let request = RevealSessionRequest(card: CardRef(id: Seed.activeCard), purpose: .cardDetails)
            let early = try #require(
                try await live.gateway.revealSession(request, via: Self.target).material.clientAccessToken?
                    .revealedValue)
            let late = try #require(
                try await live.gateway.revealSession(request, via: Self.target).material.clientAccessToken?
                    .revealedValue)
            live.clock.advance(by: 299)
            #expect(try await live.frontEndRead(card: Seed.activeCard, token: early).status == 200)
            live.clock.advance(by: 1)
            let expired = try await live.frontEndRead(card: Seed.activeCard, token: late)
            #expect(expired.status == 401)
            #expect(expired.json?["error_code"]?.stringValue == MarqetaSimulator.clientAccessTokenRefused)
            #expect(live.simulator.openClientAccessTokens == 0)
        }
    }

    @Test("inputs the flow does not take, other purposes and bad ids are refused before any request")
    func refusedBeforeSending() async throws {
        try await Self.run { live in
            let card = CardRef(id: Seed.activeCard)
            let refusals: [(RevealSessionRequest, CardGatewayError.Code)] = [
                (
                    RevealSessionRequest(
                        card: card, purpose: .cardDetails, clientNonce: Secret("nonce-from-a-library")), .invalidRequest
                ),
                (
                    RevealSessionRequest(card: card, purpose: .cardDetails, encryptedKey: Secret("ZW5jcnlwdGVk")),
                    .invalidRequest
                ),
                (
                    RevealSessionRequest(
                        card: card, purpose: .cardDetails, encryptedPINBlock: Secret("YmxvY2s="), pinToken: Secret("t")),
                    .invalidRequest
                ),
                (RevealSessionRequest(card: CardRef(id: ""), purpose: .cardDetails), .invalidRequest),
                (RevealSessionRequest(card: CardRef(id: "card\u{7}"), purpose: .cardDetails), .invalidRequest),
                (RevealSessionRequest(card: card, purpose: .pinReveal), .unsupported),
                (RevealSessionRequest(card: card, purpose: .pinChange), .unsupported),
            ]
            for (request, code) in refusals {
                let error = await gatewayError { _ = try await live.gateway.revealSession(request, via: Self.target) }
                #expect(error?.code == code, "\(request): \(String(describing: error))")
            }
            let pinOffer = await gatewayError {
                _ = try await live.gateway.revealOffer(for: card, purpose: .pinReveal, via: Self.target)
            }
            #expect(pinOffer?.code == .unsupported)
            // The adapter refuses too when called directly (a token longer than Marqeta's 36 characters).
            let provider = try #require(live.gateway.instance(named: "marqeta-sim")?.provider as? MarqetaProvider)
            let long = await gatewayError {
                _ = try await provider.revealSession(
                    RevealSessionRequest(card: CardRef(id: String(repeating: "c", count: 37)), purpose: .cardDetails),
                    context: OperationContext())
            }
            #expect(long?.code == .invalidRequest)
            let direct = await gatewayError {
                _ = try await provider.revealSession(
                    RevealSessionRequest(card: card, purpose: .cardDetails, clientNonce: Secret("n")),
                    context: OperationContext())
            }
            #expect(direct?.code == .invalidRequest)
            #expect(live.handle.journal.count == 0)
            #expect(live.transport.requests.isEmpty)
        }
    }

    @Test("a terminated card is refused at the offer; Marqeta's errors are mapped at the session")
    func refusalsFromTheCard() async throws {
        try await Self.run { live in
            let terminated = await gatewayError {
                _ = try await live.gateway.revealOffer(
                    for: CardRef(id: Seed.terminatedCard), purpose: .cardDetails, via: Self.target)
            }
            #expect(terminated?.code == .invalidCardState)
            let missing = await gatewayError {
                _ = try await live.gateway.revealOffer(
                    for: CardRef(id: "card_sim_unknown_9999"), purpose: .cardDetails, via: Self.target)
            }
            #expect(missing?.code == .notFound)
            #expect(live.handle.journal.entries(pathContains: "clientaccesstoken").isEmpty)
        }
    }

    @Test("the session checks what the offer checks: a terminated or unknown card gets no client access token")
    func sessionChecksTheCard() async throws {
        try await Self.run { live in
            let terminated = await gatewayError {
                _ = try await live.gateway.revealSession(
                    RevealSessionRequest(card: CardRef(id: Seed.terminatedCard), purpose: .cardDetails),
                    via: Self.target)
            }
            #expect(terminated?.code == .invalidCardState)
            let unknown = await gatewayError {
                _ = try await live.gateway.revealSession(
                    RevealSessionRequest(card: CardRef(id: "card_sim_unknown_9999"), purpose: .cardDetails),
                    via: Self.target)
            }
            #expect(unknown?.code == .notFound)
            #expect(unknown?.httpStatus == 404)
            // Each session read its card, and neither asked Marqeta for a token.
            #expect(
                live.handle.journal.entries().map { "\($0.method) \($0.path)" } == [
                    "GET /v3/cards/\(Seed.terminatedCard)", "GET /v3/cards/card_sim_unknown_9999",
                ])
            #expect(live.simulator.openClientAccessTokens == 0)
        }
    }

    @Test("a token request that may have reached Marqeta is not repeated: one call, mayHaveReachedProvider")
    func droppedTokenRequestIsNotRetried() async throws {
        // Three attempts allowed: a `.safe` request would be sent again after the dropped connection.
        try await Self.run(maxAttempts: 3) { live in
            live.handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/v3/users/auth/clientaccesstoken", method: "POST", action: .dropConnection))
            let error = await gatewayError {
                _ = try await live.gateway.revealSession(
                    RevealSessionRequest(card: CardRef(id: Seed.activeCard), purpose: .cardDetails),
                    via: Self.target)
            }
            #expect(error != nil)
            #expect(error?.mayHaveReachedProvider == true)
            #expect(error?.isRetryable == false)
            // The simulator read the request (journaled with no answer, status 0) and got it once.
            let posts = live.handle.journal.entries(method: "POST", pathContains: "/users/auth/clientaccesstoken")
            #expect(posts.count == 1)
            #expect(posts.first?.responseStatus == 0)
            #expect(live.transport.requests.filter { $0.method == "POST" }.count == 1)
        }
    }

    @Test("no token in the journal, the logs, errors or descriptions")
    func nothingSensitive() async throws {
        try await Self.run { live in
            var tokens: [String] = []
            var texts: [String] = []
            let card = CardRef(id: Seed.activeCard)
            _ = try await live.gateway.revealOffer(
                for: card, purpose: .cardDetails, via: Self.target, context: live.context)
            for _ in 0..<2 {
                let session = try await live.gateway.revealSession(
                    RevealSessionRequest(card: card, purpose: .cardDetails), via: Self.target, context: live.context)
                let token = try #require(session.material.clientAccessToken?.revealedValue)
                tokens.append(token)
                texts += ["\(session)", "\(session.material)", String(describing: session.material.clientAccessToken)]
                _ = try await live.frontEndRead(card: Seed.activeCard, token: token)
            }
            // Refusals carry no token either: a reused token, a token for another card.
            _ = try await live.frontEndRead(card: Seed.activeCard, token: tokens[0])
            _ = try await live.frontEndRead(card: Seed.lockableCard, token: tokens[1])
            let error = await gatewayError {
                _ = try await live.gateway.revealSession(
                    RevealSessionRequest(card: card, purpose: .cardDetails, clientNonce: Secret(tokens[0])),
                    via: Self.target, context: live.context)
            }
            texts.append(String(describing: error))
            texts.append(error?.message ?? "")

            #expect(tokens.count == 2 && tokens.allSatisfy { $0.count >= 16 })
            let journal = String(decoding: try JSONEncoder().encode(live.handle.journal.entries()), as: UTF8.self)
            #expect(live.handle.journal.entries(pathContains: MarqetaSimulator.marqetaJSPath).count == 4)
            #expect(
                live.handle.journal.entries(pathContains: MarqetaSimulator.marqetaJSPath).allSatisfy {
                    $0.header("authorization") == JournalEntry.maskedValue
                })
            #expect(!live.capture.all.isEmpty, "the gateway logged at trace level")
            for token in tokens {
                #expect(!journal.contains(token), "a client access token reached the journal")
                #expect(live.capture.leaks(of: [token]).isEmpty, "a client access token reached the logs")
                #expect(
                    !texts.contains { $0.contains(token) }, "a client access token reached a description or an error")
            }
        }
    }
}
