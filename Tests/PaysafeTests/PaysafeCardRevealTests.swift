import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayPaysafe
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import PaysafeSimulator
import SharedTestSupport
import Testing

/// Card details by Paysafe's secure-details link, through a ``CardGateway`` configured like a program's: the wire
/// (`POST …/customers/{customerId}/prepaid/cards/{cardId}/secure-details`, bearer token, empty JSON body), a test acting
/// as the app opening the link (once: it is single-use and expires on the simulator's clock), SCA asked for and then
/// satisfied, inputs the flow does not take refused before any request, and nothing secret in the journal, logs or
/// errors.
@Suite("Paysafe card reveal", .timeLimit(.minutes(5)))
struct PaysafeCardRevealTests {
    typealias Seed = PaysafeSimulator.Seed
    static let start = Date(timeIntervalSince1970: 1_760_000_000)
    static let target = RouteTarget.key(RouteKey(issuer: "paysafe"))

    struct Live {
        let gateway: CardGateway
        let simulator: PaysafeSimulator
        let clock: SimulationClock
        let handle: SimulatorHandle
        let transport: RecordingTransport
        let capture: LogCapture

        var context: OperationContext { OperationContext(logger: capture.logger(label: "paysafe.reveal.test")) }
        var provider: PaysafeProvider {
            get throws { try #require(gateway.instance(named: "paysafe-sim")?.provider as? PaysafeProvider) }
        }

        /// What the app does with the link: opens it.
        func open(_ link: String) async throws -> (status: Int, body: String) {
            let url = try #require(URL(string: link))
            let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
            let authority = "\(components.host ?? ""):\(components.port ?? 80)"
            let path = components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
            let request = HTTPRequest(method: .get, scheme: "http", authority: authority, path: path)
            let response = try await AsyncHTTPClientTransport().send(request, body: nil, timeout: .seconds(30))
            return (Int(response.response.status.code), String(decoding: response.body, as: UTF8.self))
        }
    }

    static func run<R: Sendable>(maxAttempts: Int = 1, _ body: (Live) async throws -> R) async throws -> R {
        let clock = SimulationClock(fixed: start)
        let simulator = PaysafeSimulator(clock: clock)
        let credentials = PaysafeSimulator.Credentials.default
        return try await withSimulator(simulator) { handle in
            let json = """
                {"providers":{"paysafe-sim":{"kind":"paysafe","baseURL":"\(handle.baseURL.absoluteString)",
                  "credentials":{"clientID":"literal:\(credentials.clientID)","clientSecret":"literal:\(credentials.clientSecret)"},
                  "options":{"brand":"\(credentials.brand)","region":"ROW"},"maxAttempts":\(maxAttempts)}},
                 "routes":[{"when":{"issuer":"paysafe"},"use":"paysafe-sim"}]}
                """
            let registry = ProviderRegistry([.paysafe])
            let configuration = try GatewayConfiguration.load(from: Data(json.utf8), registry: registry)
            let capture = LogCapture()
            let transport = RecordingTransport(AsyncHTTPClientTransport())
            let gateway = try CardGateway(
                configuration: configuration, registry: registry, transport: transport,
                logger: capture.logger(label: "paysafe.gateway", level: .trace),
                now: { clock.now() }
            )
            return try await body(
                Live(
                    gateway: gateway, simulator: simulator, clock: clock, handle: handle, transport: transport,
                    capture: capture))
        }
    }

    static func ref(_ id: String, _ customer: String = Seed.euCustomer) -> CardRef {
        CardRef(id: id, customer: customer)
    }
    static func path(_ card: CardRef) -> String {
        "/digitalwallets/v1/customers/\(card.customer ?? "")/prepaid/cards/\(card.id)/secure-details"
    }

    @Test("the descriptor declares card details by secure link, and nothing for the PIN")
    func descriptor() {
        #expect(PaysafeProvider.providerDescriptor.capabilities.contains(.cardDetailsReveal))
        #expect(!PaysafeProvider.providerDescriptor.capabilities.contains(.pinReveal))
        #expect(!PaysafeProvider.providerDescriptor.capabilities.contains(.pinChange))
        #expect(PaysafeProvider.providerDescriptor.revealFlows == [.cardDetails: .secureLink])
    }

    @Test("offer and session on the wire; the app opens the link once and sees the last four only")
    func detailsEndToEnd() async throws {
        try await Self.run { live in
            let card = Self.ref(Seed.activeCardID)
            let offer = try await live.gateway.revealOffer(
                for: card, purpose: .cardDetails, via: Self.target, context: live.context)
            #expect(offer.provider == "paysafe-sim")
            #expect(offer.flow == .secureLink)
            #expect(offer.requires.isEmpty)
            #expect(offer.mayRequireSCA)
            #expect(offer.publicKey == nil)
            // The offer reads the card; it asks for no link.
            #expect(
                live.handle.journal.entries().filter { !$0.path.hasSuffix("/token") }.map { "\($0.method) \($0.path)" }
                    == [
                        "GET /digitalwallets/v1/customers/\(Seed.euCustomer)/prepaid/cards/\(Seed.activeCardID)"
                    ])

            let session = try await live.gateway.revealSession(
                RevealSessionRequest(card: card, purpose: .cardDetails), via: Self.target, context: live.context)
            #expect(session.provider == "paysafe-sim")
            #expect(session.flow == .secureLink)
            #expect(session.material.kind == "secureLink")
            #expect(session.expires == live.clock.now().addingTimeInterval(PaysafeSimulator.secureLinkLifetime))
            let link = try #require(session.material.secureLink?.revealedValue)
            #expect(link.hasPrefix("http://127.0.0.1:\(live.handle.port)\(PaysafeSimulator.secureViewPath)?"))

            let sent = try #require(live.transport.requests.last)
            #expect(sent.method == "POST")
            #expect(sent.pathWithoutQuery == Self.path(card))
            #expect(sent.header("Authorization")?.hasPrefix("Bearer psat_") == true)
            #expect(sent.header("Content-Type") == "application/json")
            #expect(sent.header("SCA-Authorization") == nil)
            #expect(sent.jsonBody == .object([:]))
            #expect(live.handle.journal.last?.responseStatus == 200)

            // The app opens the link: the card's last four, its expiry, the cardholder; no number, no CVV.
            let page = try await live.open(link)
            #expect(page.status == 200)
            #expect(page.body.contains("•••• •••• •••• 7009"))
            #expect(page.body.contains("Maria Ivanova"))
            #expect(!page.body.contains("533944"))
            #expect(!page.body.contains("cvv"))
            let again = try await live.open(link)
            #expect(again.status == 410, "the link works once")
            #expect(live.simulator.openSecureLinks == 0)
        }
    }

    @Test("the link expires on the simulator's clock; a repeat makes a new link")
    func expiryAndRepeat() async throws {
        try await Self.run { live in
            let request = RevealSessionRequest(card: Self.ref(Seed.lockedCardID), purpose: .cardDetails)
            let first = try #require(
                try await live.gateway.revealSession(request, via: Self.target).material.secureLink?.revealedValue)
            let second = try #require(
                try await live.gateway.revealSession(request, via: Self.target).material.secureLink?.revealedValue)
            #expect(first != second, "a repeat must make a new session, never replay the first")
            #expect(live.handle.journal.entries(method: "POST", pathContains: "/secure-details").count == 2)
            live.clock.advance(by: PaysafeSimulator.secureLinkLifetime - 1)
            #expect(try await live.open(first).status == 200)
            live.clock.advance(by: 1)
            #expect(try await live.open(second).status == 410, "an expired link is refused")
            let forged = try await live.open(first.replacingOccurrences(of: "=sd_", with: "=sd_x"))
            #expect(forged.status == 404)
        }
    }

    @Test("SCA required, then satisfied: the challenge in the error, the repeat carries SCA-Authorization")
    func strongCustomerAuthentication() async throws {
        try await Self.run { live in
            let card = Self.ref(Seed.scaActiveCardID, Seed.scaCustomer)
            let offer = try await live.gateway.revealOffer(for: card, purpose: .cardDetails, via: Self.target)
            #expect(offer.mayRequireSCA)
            let request = RevealSessionRequest(card: card, purpose: .cardDetails)
            let error = await gatewayError { _ = try await live.gateway.revealSession(request, via: Self.target) }
            #expect(error?.code == .scaRequired)
            #expect(error?.provider == "paysafe-sim")
            let challenge = try #require(error?.scaChallenge)
            #expect(challenge.mode == "OUTSOURCED")
            #expect(
                live.handle.journal.entries(method: "POST", pathContains: "/secure-details").map(\.responseStatus) == [
                    401
                ])

            let attempt = try await live.provider.submitSCAAttempt(
                eventID: challenge.eventID, walletOperationID: challenge.walletOperationID, method: "OTP",
                channel: "SMS", context: OperationContext()
            )
            #expect(attempt.isVerified)
            let session = try await live.gateway.revealSession(
                request, via: Self.target, context: OperationContext(sca: challenge.authorization))
            let sent = try #require(live.transport.requests.last)
            #expect(sent.pathWithoutQuery == Self.path(card))
            let header = try #require(
                sent.header("SCA-Authorization").flatMap { Data(base64Encoded: $0) }.flatMap {
                    try? JSONValue.parse($0)
                })
            #expect(header["scaDetails"]?["eventId"]?.stringValue == challenge.eventID)
            #expect(header["scaDetails"]?["walletOperationId"]?.stringValue == challenge.walletOperationID)
            #expect(
                live.handle.journal.entries(method: "POST", pathContains: "/secure-details").map(\.responseStatus) == [
                    401, 200,
                ])
            #expect(live.handle.journal.last?.header("sca-authorization") == JournalEntry.maskedValue)

            let page = try await live.open(try #require(session.material.secureLink?.revealedValue))
            #expect(page.status == 200)
            #expect(page.body.contains("•••• •••• •••• 3301"))
            // The solved challenge is used up: the same authorization again is a new challenge.
            let reused = await gatewayError {
                _ = try await live.gateway.revealSession(
                    request, via: Self.target, context: OperationContext(sca: challenge.authorization))
            }
            #expect(reused?.code == .scaRequired)
            #expect(reused?.scaChallenge?.eventID != challenge.eventID)
        }
    }

    @Test("inputs the flow does not take, other purposes and bad references are refused before any request")
    func refusedBeforeSending() async throws {
        try await Self.run { live in
            let card = Self.ref(Seed.activeCardID)
            let refusals: [(RevealSessionRequest, CardGatewayError.Code)] = [
                (
                    RevealSessionRequest(
                        card: card, purpose: .cardDetails, clientNonce: Secret("nonce-from-a-library")), .invalidRequest
                ),
                (
                    RevealSessionRequest(card: card, purpose: .cardDetails, encryptedKey: Secret("ZW5jcnlwdGVk")),
                    .invalidRequest
                ),
                (RevealSessionRequest(card: card, purpose: .cardDetails, pinToken: Secret("t")), .invalidRequest),
                (RevealSessionRequest(card: CardRef(id: Seed.activeCardID), purpose: .cardDetails), .invalidRequest),
                (RevealSessionRequest(card: Self.ref(""), purpose: .cardDetails), .invalidRequest),
                (RevealSessionRequest(card: card, purpose: .pinReveal), .unsupported),
                (RevealSessionRequest(card: card, purpose: .pinChange), .unsupported),
            ]
            for (request, code) in refusals {
                let error = await gatewayError { _ = try await live.gateway.revealSession(request, via: Self.target) }
                #expect(error?.code == code, "\(request): \(String(describing: error))")
            }
            let noCustomer = await gatewayError {
                _ = try await live.gateway.revealOffer(
                    for: CardRef(id: Seed.activeCardID), purpose: .cardDetails, via: Self.target)
            }
            #expect(noCustomer?.code == .invalidRequest)
            #expect(noCustomer?.fieldErrors.map(\.field) == ["card.customer"])
            let pinOffer = await gatewayError {
                _ = try await live.gateway.revealOffer(for: card, purpose: .pinReveal, via: Self.target)
            }
            #expect(pinOffer?.code == .unsupported)
            let direct = await gatewayError {
                _ = try await live.provider.revealSession(
                    RevealSessionRequest(card: card, purpose: .cardDetails, clientNonce: Secret("n")),
                    context: OperationContext())
            }
            #expect(direct?.code == .invalidRequest)
            #expect(direct?.fieldErrors.map(\.field) == ["clientNonce"])
            let emptyID = await gatewayError {
                _ = try await live.provider.revealSession(
                    RevealSessionRequest(card: CardRef(id: "", customer: nil), purpose: .cardDetails),
                    context: OperationContext())
            }
            #expect(
                emptyID?.fieldErrors.map(\.field) == ["card.id", "card.customer"],
                "each field once: \(String(describing: emptyID?.fieldErrors))")
            let directPIN = await gatewayError {
                _ = try await live.provider.revealOffer(for: card, purpose: .pinReveal, context: OperationContext())
            }
            #expect(directPIN?.code == .unsupported)
            #expect(live.handle.journal.count == 0)
            #expect(live.transport.requests.isEmpty)
        }
    }

    @Test("a cancelled or not yet issued card is refused at the offer, before any link is asked for")
    func refusedCards() async throws {
        try await Self.run { live in
            for id in [Seed.cancelledCardID, Seed.expiredCardID, Seed.pendingCardID] {
                let error = await gatewayError {
                    _ = try await live.gateway.revealOffer(for: Self.ref(id), purpose: .cardDetails, via: Self.target)
                }
                #expect(error?.code == .invalidCardState, "\(id)")
            }
            let missing = await gatewayError {
                _ = try await live.gateway.revealOffer(
                    for: Self.ref("11111111-0000-4000-8000-999999999999"), purpose: .cardDetails, via: Self.target)
            }
            #expect(missing?.code == .notFound)
            #expect(live.handle.journal.entries(pathContains: "/secure-details").isEmpty)
        }
    }

    @Test("the session checks the card's status as the offer does (a client may skip the offer): no link is asked for")
    func sessionChecksStatus() async throws {
        try await Self.run { live in
            for id in [Seed.cancelledCardID, Seed.expiredCardID, Seed.rejectedCardID, Seed.pendingCardID] {
                let error = await gatewayError {
                    _ = try await live.gateway.revealSession(
                        RevealSessionRequest(card: Self.ref(id), purpose: .cardDetails), via: Self.target,
                        context: live.context)
                }
                #expect(error?.code == .invalidCardState, "\(id)")
                let wrapped = await gatewayError {
                    _ = try await live.provider.secureDetailsAccess(for: Self.ref(id), context: OperationContext())
                }
                #expect(wrapped?.code == .invalidCardState, "\(id)")
            }
            #expect(live.handle.journal.entries(pathContains: "/secure-details").isEmpty)
            #expect(live.transport.requests.allSatisfy { $0.method == "GET" || $0.path.hasSuffix("/token") })
        }
    }

    @Test("a session request dropped after Paysafe read it is not sent again: mayHaveReachedProvider, one request")
    func droppedSessionIsNotRetried() async throws {
        try await Self.run(maxAttempts: 3) { live in
            let card = Self.ref(Seed.activeCardID)
            live.handle.faults.inject(
                FaultRule(count: 1, pathPrefix: Self.path(card), method: "POST", action: .dropConnection))
            let error = await gatewayError {
                _ = try await live.gateway.revealSession(
                    RevealSessionRequest(card: card, purpose: .cardDetails), via: Self.target, context: live.context)
            }
            #expect(error?.code == .transport, "\(String(describing: error?.code))")
            #expect(error?.mayHaveReachedProvider == true)
            #expect(error?.isRetryable == false)
            let posts = live.transport.requests.filter { $0.method == "POST" && $0.pathWithoutQuery == Self.path(card) }
            #expect(posts.count == 1, "a repeat would mint another link")
            #expect(live.handle.faults.pending.isEmpty, "the fault was consumed by the one request")
        }
    }

    @Test("the secureDetailsAccess wrapper gives the same link as the session step")
    func wrapper() async throws {
        try await Self.run { live in
            let access = try await live.provider.secureDetailsAccess(
                for: Self.ref(Seed.activeCardID), context: OperationContext())
            #expect(access.expires == live.clock.now().addingTimeInterval(PaysafeSimulator.secureLinkLifetime))
            #expect(!access.description.contains(access.url.revealedValue))
            #expect(try await live.open(access.url.revealedValue).status == 200)
        }
    }

    @Test("no link, token or SCA authorization in the journal, the logs, errors or descriptions")
    func nothingSensitive() async throws {
        try await Self.run { live in
            var secrets: [String] = []
            var texts: [String] = []
            let card = Self.ref(Seed.scaActiveCardID, Seed.scaCustomer)
            _ = try await live.gateway.revealOffer(
                for: card, purpose: .cardDetails, via: Self.target, context: live.context)
            let request = RevealSessionRequest(card: card, purpose: .cardDetails)
            let error = await gatewayError {
                _ = try await live.gateway.revealSession(request, via: Self.target, context: live.context)
            }
            texts += [String(describing: error), error?.message ?? ""]
            let challenge = try #require(error?.scaChallenge)
            _ = try await live.provider.submitSCAAttempt(
                eventID: challenge.eventID, walletOperationID: challenge.walletOperationID, method: "OTP",
                channel: "SMS", context: live.context
            )
            let context = OperationContext(
                logger: live.capture.logger(label: "paysafe.reveal.test"), sca: challenge.authorization)
            let session = try await live.gateway.revealSession(request, via: Self.target, context: context)
            let link = try #require(session.material.secureLink?.revealedValue)
            let token = try #require(
                URLComponents(string: link)?.queryItems?.first { $0.name == PaysafeSimulator.secureViewTokenName }?
                    .value)
            secrets += [link, token, try #require(live.transport.requests.last?.header("SCA-Authorization"))]
            texts += ["\(session)", "\(session.material)", String(describing: session.material.secureLink)]
            _ = try await live.open(link)
            _ = try await live.open(link)
            let plain = try await live.gateway.revealSession(
                RevealSessionRequest(card: Self.ref(Seed.activeCardID), purpose: .cardDetails), via: Self.target,
                context: live.context)
            secrets.append(try #require(plain.material.secureLink?.revealedValue))
            texts.append("\(plain)")

            #expect(token.hasPrefix("sd_") && token.count > 20)
            let entries = live.handle.journal.entries()
            let journal = String(decoding: try JSONEncoder().encode(entries), as: UTF8.self)
            let views = entries.filter { $0.path.hasPrefix(PaysafeSimulator.secureViewPath) }
            #expect(views.count == 2)
            #expect(
                views.allSatisfy {
                    $0.query?.contains(JournalEntry.maskedValue) == true || $0.query?.contains("%3Cmasked%3E") == true
                })
            #expect(!live.capture.all.isEmpty, "the gateway logged at trace level")
            for secret in secrets {
                #expect(!journal.contains(secret), "a secret reached the journal")
                #expect(live.capture.leaks(of: [secret]).isEmpty, "a secret reached the logs")
                #expect(!texts.contains { $0.contains(secret) }, "a secret reached a description or an error")
            }
        }
    }

    @Test(
        "the secure link must be https (plain http only on loopback); another is invalidResponse, never quoted",
        arguments: [
            ("https://secure.paysafe.example/view?t=abc", true), ("http://127.0.0.1:8080/view?t=abc", true),
            ("http://secure.paysafe.example/view?t=abc", false), ("ftp://secure.paysafe.example/view", false),
            ("sd_token_without_a_scheme", false), ("https:///no-host", false),
        ])
    func secureLinkScheme(link: String, accepted: Bool) async throws {
        let harness = try Harness.make { request in
            request.method == "GET"
                ? .json(200, Fixture.cardJSON(status: "ACTIVE"))
                : .json(200, #"{"url":"\#(link)","expirationTime":"2030-01-01T00:00:00Z"}"#)
        }
        let request = RevealSessionRequest(card: Fixture.ref, purpose: .cardDetails)
        if accepted {
            let session = try await harness.provider.revealSession(request, context: OperationContext())
            #expect(session.material.secureLink?.revealedValue == link)
        } else {
            let error = await gatewayError {
                _ = try await harness.provider.revealSession(request, context: OperationContext())
            }
            #expect(error?.code == .invalidResponse)
            #expect(error?.message.contains("https") == true)
            #expect(error?.description.contains(link) == false)
        }
        #expect(harness.businessRequests.map(\.method) == ["GET", "POST"])
    }
}
