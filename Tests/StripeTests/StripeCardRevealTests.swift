@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import Logging
import SharedTestSupport
import Testing

@testable import CardGatewayStripe
@testable import StripeSimulator

/// A gateway over the Stripe simulator, and a test acting as the front end (Stripe.js) beside it.
struct StripeRevealWorld: Sendable {
    let handle: SimulatorHandle
    let simulator: StripeSimulator
    let gateway: CardGateway
    let wire: WireRecorder
    let target = RouteTarget.key(RouteKey(issuer: "stripe"))

    static func run<R: Sendable>(
        logger: Logger = OperationContext.noopLogger, _ body: @Sendable (StripeRevealWorld) async throws -> R
    ) async throws -> R {
        let simulator = SimulatorFixture.simulator()
        return try await withSimulator(simulator) { handle in
            let json = """
                {"providers":{"stripe-sim":{"kind":"stripe","baseURL":"\(handle.baseURL.absoluteString)",
                  "credentials":{"secretKey":"literal:\(StripeSimulator.Credentials.default.testSecretKey)"},"maxAttempts":2}},
                 "routes":[{"when":{"issuer":"stripe"},"use":"stripe-sim"}]}
                """
            let registry = ProviderRegistry([.stripe])
            let configuration = try GatewayConfiguration.load(from: Data(json.utf8), registry: registry)
            let wire = WireRecorder(AsyncHTTPClientTransport())
            let gateway = try CardGateway(
                configuration: configuration, registry: registry, transport: wire, logger: logger,
                now: { simulator.simulationClock.now() }
            )
            return try await body(StripeRevealWorld(handle: handle, simulator: simulator, gateway: gateway, wire: wire))
        }
    }

    /// What Stripe.js's `createEphemeralKeyNonce` gives the front end (the format of Stripe's own example).
    static func nonce() -> Secret {
        Secret("ephkn_priv_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())
    }

    /// The front end's read of the card with the key and the nonce (the simulator's stand-in for Stripe.js's request).
    func read(
        _ card: String, secret: String, nonce: String?, version: String = StripeAPI.issuingElementsAPIVersion,
        expand: [String] = ["number", "cvc"]
    ) async throws -> RawResponse {
        var query = expand.map { "expand[]=\($0)" }
        if let nonce { query.append("nonce=\(nonce)") }
        return try await RawClient(handle: handle).send(
            .get, "/v1/issuing/cards/\(card)?" + query.joined(separator: "&"), headers: ["Stripe-Version": version],
            authorization: "Bearer \(secret)"
        )
    }

    func session(
        _ card: String, _ purpose: RevealPurpose = .cardDetails, nonce: Secret?, apiVersion: String? = nil,
        context: OperationContext = OperationContext()
    ) async throws -> RevealSession {
        try await gateway.revealSession(
            RevealSessionRequest(card: CardRef(id: card), purpose: purpose, clientNonce: nonce, apiVersion: apiVersion),
            via: target, context: context
        )
    }
}

@Suite("Stripe card details and PIN by Issuing Elements", .timeLimit(.minutes(5)))
struct StripeCardRevealTests {
    @Test("the descriptor declares card details and PIN reveal by client nonce, PIN change by an encrypted PIN")
    func descriptor() {
        #expect(
            StripeProvider.descriptor.revealFlows == [
                .cardDetails: .clientNonce, .pinReveal: .clientNonce, .pinChange: .encryptedPIN,
            ])
        #expect(StripeProvider.descriptor.capabilities.isSuperset(of: [.cardDetailsReveal, .pinReveal, .pinChange]))
        #expect(RevealFlow.encryptedPIN.inputs(for: .pinChange) == [.encryptedPINBlock])
    }

    @Test("the front end reads the seeded card's number and CVC with the session's key and its own nonce")
    func frontEndReadsTheCard() async throws {
        try await StripeRevealWorld.run { world in
            let card = Seed.activeCardID
            let offer = try await world.gateway.revealOffer(
                for: CardRef(id: card), purpose: .cardDetails, via: world.target)
            #expect(offer.flow == .clientNonce)
            #expect(offer.requires == [.clientNonce])
            #expect(offer.apiVersion == "2020-03-02")
            #expect(offer.provider == "stripe-sim")
            // The offer looked the card up without asking for its number or CVC.
            let lookUp = try #require(world.wire.exchanges.last)
            #expect(lookUp.method == "GET")
            #expect(lookUp.path.hasPrefix("/v1/issuing/cards/\(card)"))
            #expect(!lookUp.path.contains("number") && !lookUp.path.contains("cvc"))

            let nonce = StripeRevealWorld.nonce()
            let session = try await world.session(card, nonce: nonce)
            #expect(session.flow == .clientNonce)
            #expect(session.provider == "stripe-sim")
            #expect(session.material.kind == "ephemeralKey")
            #expect(session.material.ephemeralKeyID?.hasPrefix("ephkey_") == true)
            let secret = try #require(session.material.ephemeralKeySecret?.revealedValue)
            #expect(secret.hasPrefix("ek_test_"))
            #expect(session.expires == simulatorEpoch.addingTimeInterval(StripeSimulator.Seed.ephemeralKeyLifetime))

            // On the wire: POST /v1/ephemeral_keys, form issuing_card + nonce, Stripe-Version, a fresh Idempotency-Key.
            let sent = try #require(world.wire.exchanges.last)
            #expect(sent.method == "POST")
            #expect(sent.path == "/v1/ephemeral_keys")
            let form = try #require(sent.requestBody.map { String(decoding: $0, as: UTF8.self) })
            #expect(form == "issuing_card=\(card)&nonce=\(nonce.revealedValue)")
            let entry = try #require(world.handle.journal.last)
            #expect(entry.method == "POST" && entry.path == "/v1/ephemeral_keys")
            #expect(entry.header("stripe-version") == "2020-03-02")
            #expect(entry.header("content-type") == "application/x-www-form-urlencoded")
            #expect(entry.header("authorization") == JournalEntry.maskedValue)
            #expect((entry.header("idempotency-key") ?? "").count >= 16)

            // The front end, with the secret and the nonce, reads what the backend never saw.
            let read = try await world.read(card, secret: secret, nonce: nonce.revealedValue)
            #expect(read.status == 200, "\(read.status)")
            let number = try #require(read.json?["number"]?.stringValue)
            #expect(number == world.simulator.cardNumber(of: card))
            #expect(number.hasSuffix("4242") && number.count == 16)
            #expect(read.json?["cvc"]?.stringValue == world.simulator.cvc(of: card))
            #expect(read.json?["exp_month"] == .number(8))
        }
    }

    @Test("the PIN: the front end reads pin.number (0000 in test mode) with a PIN reveal session")
    func frontEndReadsThePIN() async throws {
        try await StripeRevealWorld.run { world in
            // physical: the PIN is offered, the number is not
            let card = Seed.activeCardWithoutPrimaryAccountIdentifierID
            let offer = try await world.gateway.revealOffer(
                for: CardRef(id: card), purpose: .pinReveal, via: world.target)
            #expect(offer.flow == .clientNonce)
            let nonce = StripeRevealWorld.nonce()
            let session = try await world.session(card, .pinReveal, nonce: nonce)
            #expect(session.purpose == .pinReveal)
            let secret = try #require(session.material.ephemeralKeySecret?.revealedValue)
            let read = try await world.read(card, secret: secret, nonce: nonce.revealedValue, expand: ["pin.number"])
            #expect(read.status == 200)
            #expect(read.json?["pin"]?["number"]?.stringValue == StripeSimulator.testModePIN)
            // A physical card has no number or CVC to show, even when asked.
            let details = try await world.read(
                card, secret: secret, nonce: nonce.revealedValue, expand: ["number", "cvc"])
            #expect(details.status == 200)
            #expect(details.json?["number"] == nil && details.json?["cvc"] == nil)
        }
    }

    @Test("the front end names its Stripe.js version: the key is minted with it and works only with it")
    func apiVersionFromTheFrontEnd() async throws {
        try await StripeRevealWorld.run { world in
            let nonce = StripeRevealWorld.nonce()
            let session = try await world.session(Seed.activeCardID, nonce: nonce, apiVersion: "2024-06-20")
            #expect(world.handle.journal.last?.header("stripe-version") == "2024-06-20")
            let secret = try #require(session.material.ephemeralKeySecret?.revealedValue)
            let other = try await world.read(
                Seed.activeCardID, secret: secret, nonce: nonce.revealedValue, version: "2020-03-02")
            #expect(other.status == 400)
            #expect(other.error("param") == "Stripe-Version")
            #expect(
                try await world.read(
                    Seed.activeCardID, secret: secret, nonce: nonce.revealedValue, version: "2024-06-20"
                ).status == 200)
        }
    }

    @Test("the simulator refuses another nonce, another card, an expired key, a key without nonce and a reused nonce")
    func refusals() async throws {
        try await StripeRevealWorld.run { world in
            let card = Seed.activeCardID
            let nonce = StripeRevealWorld.nonce()
            let session = try await world.session(card, nonce: nonce)
            let secret = try #require(session.material.ephemeralKeySecret?.revealedValue)

            let wrongNonce = try await world.read(card, secret: secret, nonce: StripeRevealWorld.nonce().revealedValue)
            #expect(wrongNonce.status == 403)
            let noNonce = try await world.read(card, secret: secret, nonce: nil)
            #expect(noNonce.status == 403)
            let otherCard = try await world.read(
                Seed.unsupportedRegionCardID, secret: secret, nonce: nonce.revealedValue)
            #expect(otherCard.status == 403)
            let unknownKey = try await world.read(card, secret: "ek_test_notakey", nonce: nonce.revealedValue)
            #expect(unknownKey.status == 401)
            let otherExpansion = try await world.read(
                card, secret: secret, nonce: nonce.revealedValue, expand: ["cardholder"])
            #expect(otherExpansion.status == 400)
            #expect(!otherExpansion.text.contains(world.simulator.cardNumber(of: card) ?? "none"))

            // A nonce makes one key: the second session with it is refused by Stripe (mapped as an invalid request).
            let reused = await gatewayError { _ = try await world.session(card, nonce: nonce) }
            #expect(reused?.code == .invalidRequest)
            #expect(reused?.provider == "stripe-sim")

            // A push-provisioning key (no nonce) does not show card details.
            let provisioning = try await world.gateway.provision(
                ProvisioningRequest(
                    card: CardRef(id: card), wallet: .applePay, input: .issuerSDKKey(apiVersion: "2020-03-02")),
                via: world.target
            )
            let key = try #require(provisioning.ephemeralKey)
            let keySecret = try #require(try JSONValue.parse(key.rawJSON.revealedBytes)["secret"]?.stringValue)
            #expect(try await world.read(card, secret: keySecret, nonce: nonce.revealedValue).status == 403)

            // Expiry, on the simulator's clock.
            #expect(try await world.read(card, secret: secret, nonce: nonce.revealedValue).status == 200)
            world.simulator.simulationClock.advance(by: StripeSimulator.Seed.ephemeralKeyLifetime)
            let expired = try await world.read(card, secret: secret, nonce: nonce.revealedValue)
            #expect(expired.status == 401)
            #expect(expired.error("code") == "api_key_expired")
        }
    }

    @Test("the offer refuses a canceled card, and card details of a physical card")
    func offerRefusals() async throws {
        try await StripeRevealWorld.run { world in
            let canceled = await gatewayError {
                _ = try await world.gateway.revealOffer(
                    for: CardRef(id: Seed.canceledCardID), purpose: .cardDetails, via: world.target)
            }
            #expect(canceled?.code == .invalidCardState)
            let physical = await gatewayError {
                _ = try await world.gateway.revealOffer(
                    for: CardRef(id: Seed.activeCardWithoutPrimaryAccountIdentifierID), purpose: .cardDetails,
                    via: world.target)
            }
            #expect(physical?.code == .invalidCardState)
            let change = await gatewayError {
                _ = try await world.gateway.revealOffer(
                    for: CardRef(id: Seed.canceledCardID), purpose: .pinChange, via: world.target)
            }
            #expect(change?.code == .invalidCardState)
            let unknown = await gatewayError {
                _ = try await world.gateway.revealOffer(
                    for: CardRef(id: "ic_1SimNoSuchCard0000000000"), purpose: .cardDetails, via: world.target)
            }
            #expect(unknown?.code == .notFound)
        }
    }

    @Test("a missing or malformed input is refused before any request")
    func refusedBeforeSending() async throws {
        try await StripeRevealWorld.run { world in
            let missing = await gatewayError { _ = try await world.session(Seed.activeCardID, nonce: nil) }
            #expect(missing?.code == .invalidRequest)
            let empty = await gatewayError { _ = try await world.session(Seed.activeCardID, nonce: Secret("")) }
            #expect(empty?.code == .invalidRequest)
            let version = await gatewayError {
                _ = try await world.session(
                    Seed.activeCardID, nonce: StripeRevealWorld.nonce(), apiVersion: "yesterday")
            }
            #expect(version?.code == .invalidRequest)
            // Stripe: "specify an API version of 2020-03-02 or later" (docs.stripe.com/issuing/elements).
            for older in ["2020-02-28", "2019-12-03", "2017-08-15.preview"] {
                let old = await gatewayError {
                    _ = try await world.session(Seed.activeCardID, nonce: StripeRevealWorld.nonce(), apiVersion: older)
                }
                #expect(old?.code == .invalidRequest, "\(older)")
                #expect(old?.fieldErrors.map(\.field) == ["apiVersion"], "\(older)")
                #expect(old?.message.contains("2020-03-02") == true, "\(older)")
            }
            let long = await gatewayError {
                _ = try await world.session(Seed.activeCardID, nonce: Secret(String(repeating: "n", count: 5001)))
            }
            #expect(long?.code == .invalidRequest)
            let encryptedKey = await gatewayError {
                _ = try await world.gateway.revealSession(
                    RevealSessionRequest(
                        card: CardRef(id: Seed.activeCardID), purpose: .cardDetails,
                        clientNonce: StripeRevealWorld.nonce(), encryptedKey: Secret("QUJD")),
                    via: world.target
                )
            }
            #expect(encryptedKey?.code == .invalidRequest)
            let badID = await gatewayError {
                _ = try await world.session("ic_1/../x", nonce: StripeRevealWorld.nonce())
            }
            #expect(badID?.code == .invalidRequest)
            #expect(world.handle.journal.count == 0)
            #expect(world.wire.count == 0)
        }
    }

    @Test("a repeat makes a new key, even under the same operation key: a session is never replayed")
    func repeatMakesANewKey() async throws {
        try await StripeRevealWorld.run { world in
            let context = OperationContext(idempotencyKey: "reveal-once")
            let first = try await world.session(Seed.activeCardID, nonce: StripeRevealWorld.nonce(), context: context)
            let second = try await world.session(Seed.activeCardID, nonce: StripeRevealWorld.nonce(), context: context)
            #expect(first.material.ephemeralKeySecret != second.material.ephemeralKeySecret)
            #expect(first.material.ephemeralKeyID != second.material.ephemeralKeyID)
            let keys = world.handle.journal.entries(method: "POST", pathContains: "/v1/ephemeral_keys").compactMap {
                $0.header("idempotency-key")
            }
            #expect(keys.count == 2 && Set(keys).count == 2)
            #expect(world.handle.journal.entries().allSatisfy { $0.handling == .executed })
        }
    }

    @Test(
        "scripted: Stripe's example key becomes the session; a replayed key, a key of another card or one without secret is refused"
    )
    func scriptedAnswers() async throws {
        let card = "ic_1GWQp6EESaYspYZ9uSEZOcq9"
        let request = RevealSessionRequest(
            card: CardRef(id: card), purpose: .cardDetails, clientNonce: Secret("ephkn_priv_scripted1"))
        let transport = ScriptedTransport([
            .stripe(200, Fixture.card(id: card)), .stripe(200, Fixture.ephemeralKey(card: card)),
        ])
        let session = try await Fixture.provider(transport).revealSession(
            request, context: OperationContext(idempotencyKey: "op-1"))
        #expect(session.material.ephemeralKeySecret?.revealedValue == Fixture.ephemeralSecret)
        #expect(session.material.ephemeralKeyID == "ephkey_1G4V6eEEs6YsaMZ2P1diLWdj")
        #expect(session.expires == Date(timeIntervalSince1970: 1_586_560_428))
        #expect(transport.requests.count == 2)
        #expect(transport.requests.first?.request.method == .get)
        #expect(transport.requests.first?.pathWithoutQuery == "/v1/issuing/cards/\(card)")
        let sent = try #require(transport.requests.last)
        #expect(sent.request.method == .post && sent.pathWithoutQuery == "/v1/ephemeral_keys")
        #expect(sent.bodyText == "issuing_card=\(card)&nonce=ephkn_priv_scripted1")
        #expect(sent.header("Stripe-Version") == "2020-03-02")
        #expect(
            sent.header("Idempotency-Key")
                != IdempotencyKeys.derive(operationKey: "op-1", scope: "ephemeral_key", maxLength: 255))

        for reply in [
            ScriptedReply.stripe(200, Fixture.ephemeralKey(card: card), extra: ["Idempotent-Replayed": "true"]),
            .stripe(200, Fixture.ephemeralKey(card: "ic_other")),
            .stripe(200, Fixture.ephemeralKey(card: card, secret: nil)),
        ] {
            let error = await gatewayError {
                _ = try await Fixture.provider(ScriptedTransport([.stripe(200, Fixture.card(id: card)), reply]))
                    .revealSession(request, context: OperationContext())
            }
            #expect(error?.code == .invalidResponse)
            #expect(
                !(error?.message.contains("ephkn_priv_scripted1") ?? true)
                    && !(error?.message.contains(Fixture.ephemeralSecret) ?? true))
        }
    }

    @Test("nothing sensitive in the journal, the logs, errors or descriptions")
    func redaction() async throws {
        let capture = LogCapture()
        let logger = capture.logger(level: .trace)
        let (needles, journal) = try await StripeRevealWorld.run(logger: logger) {
            world -> ([String], [JournalEntry]) in
            let context = OperationContext(logger: logger, requestID: "req-reveal")
            var needles: [String] = [StripeSimulator.Credentials.default.testSecretKey]
            var described: [String] = []
            for (card, purpose) in [(Seed.activeCardID, RevealPurpose.cardDetails), (Seed.activeCardID, .pinReveal)] {
                let offer = try await world.gateway.revealOffer(
                    for: CardRef(id: card), purpose: purpose, via: world.target, context: context)
                let nonce = StripeRevealWorld.nonce()
                let request = RevealSessionRequest(card: CardRef(id: card), purpose: purpose, clientNonce: nonce)
                let session = try await world.gateway.revealSession(request, via: world.target, context: context)
                let secret = try #require(session.material.ephemeralKeySecret?.revealedValue)
                needles += [nonce.revealedValue, secret]
                let read = try await world.read(
                    card, secret: secret, nonce: nonce.revealedValue, expand: ["number", "cvc", "pin.number"])
                #expect(read.status == 200)
                needles += [read.json?["number"]?.stringValue, read.json?["cvc"]?.stringValue].compactMap { $0 }
                described += [
                    String(describing: offer), String(describing: request), String(reflecting: request),
                    String(describing: session),
                    String(reflecting: session), String(describing: session.material),
                ]
            }
            // Failures: a reused nonce and an unknown card (Stripe's errors), a canceled card (the offer's).
            let nonce = StripeRevealWorld.nonce()
            needles.append(nonce.revealedValue)
            let kept = try await world.session(Seed.activeCardID, nonce: nonce, context: context)
            needles += [kept.material.ephemeralKeySecret?.revealedValue].compactMap { $0 }
            let reused = await gatewayError {
                _ = try await world.session(Seed.activeCardID, nonce: nonce, context: context)
            }
            let unknown = await gatewayError {
                _ = try await world.session(
                    "ic_1SimNoSuchCard0000000000", nonce: StripeRevealWorld.nonce(), context: context)
            }
            let canceled = await gatewayError {
                _ = try await world.gateway.revealOffer(
                    for: CardRef(id: Seed.canceledCardID), purpose: .cardDetails, via: world.target, context: context)
            }
            for error in [reused, unknown, canceled] {
                let error = try #require(error)
                described += [error.description, String(reflecting: error), error.message]
            }
            #expect(leakedNeedles(needles, in: described.joined(separator: "\n")).isEmpty, "leaked into descriptions")
            return (needles, world.handle.journal.entries())
        }
        #expect(needles.count >= 9)
        #expect(!journal.isEmpty)
        let encoder = JSONEncoder()
        let journalText = try journal.map {
            String(decoding: try encoder.encode($0), as: UTF8.self) + " " + $0.path + ($0.query ?? "")
        }.joined(separator: "\n")
        #expect(leakedNeedles(needles, in: journalText).isEmpty, "leaked into the journal")
        #expect(
            journal.contains {
                $0.bodyText.contains("nonce=" + JournalEntry.maskedValue) || $0.bodyText.contains("nonce=%3Cmasked%3E")
            })
        #expect(!capture.all.isEmpty, "the flow logged something to check")
        #expect(leakedNeedles(needles, in: capture.text).isEmpty, "leaked into logs")
        // The rule for short needles finds a CVC by its name and not a number that merely equals it.
        #expect(leakedNeedles(["388"], in: #"{"cvc":"388","id":"a388b"}"#) == ["388"])
        #expect(leakedNeedles(["388"], in: "cvc=388\nCVV 388") == ["388"])
        #expect(leakedNeedles(["388"], in: "duration_ms=388 id=a388b cvc=3880 \"388\"").isEmpty)
    }
}

/// The session step on its own (a client may skip the offer), calls that may have reached Stripe, and the PIN change.
@Suite("Stripe reveal sessions and PIN change", .timeLimit(.minutes(5)))
struct StripeRevealSessionTests {
    /// A ciphertext shaped like the one in Stripe's PIN management guide (`eyJhbGciOiJSU0...`, a compact JWE whose
    /// header names an RSA algorithm); opaque to the backend and to the simulator.
    static let ciphertext =
        "eyJhbGciOiJSU0EtT0FFUC0yNTYiLCJlbmMiOiJBMjU2R0NNIn0.c2ltdWxhdGVkLWtleQ.aXYtMTIzNDU2.Y2lwaGVydGV4dA.dGFnLTEyMw"

    func ephemeralKeyPosts(_ world: StripeRevealWorld) -> Int {
        world.handle.journal.entries(method: "POST", pathContains: "/v1/ephemeral_keys").count
    }

    @Test("the session step refuses a canceled card, and card details of a physical card, before minting a key")
    func sessionChecksTheCard() async throws {
        try await StripeRevealWorld.run { world in
            for (card, purpose) in [
                (Seed.canceledCardID, RevealPurpose.cardDetails), (Seed.canceledCardID, .pinReveal),
                (Seed.activeCardWithoutPrimaryAccountIdentifierID, .cardDetails),
            ] {
                let error = await gatewayError {
                    _ = try await world.session(card, purpose, nonce: StripeRevealWorld.nonce())
                }
                #expect(error?.code == .invalidCardState, "\(card) \(purpose)")
                #expect(error?.mayHaveReachedProvider == false)
            }
            #expect(ephemeralKeyPosts(world) == 0)
            #expect(world.handle.journal.entries(method: "GET", pathContains: "/v1/issuing/cards/").count == 3)
            // The PIN of a physical card is shown.
            _ = try await world.session(
                Seed.activeCardWithoutPrimaryAccountIdentifierID, .pinReveal, nonce: StripeRevealWorld.nonce())
            #expect(ephemeralKeyPosts(world) == 1)
        }
    }

    @Test("a key request dropped after Stripe read it is not repeated: one call, mayHaveReachedProvider, not retryable")
    func droppedKeyRequestIsNotRepeated() async throws {
        try await StripeRevealWorld.run { world in
            // One drop only: a repeat would succeed and show as a second call.
            world.handle.faults.inject(
                FaultRule(count: 1, pathPrefix: "/v1/ephemeral_keys", method: "POST", action: .dropConnection))
            let error = await gatewayError {
                _ = try await world.session(Seed.activeCardID, nonce: StripeRevealWorld.nonce())
            }
            #expect(error?.code == .transport)
            #expect(error?.mayHaveReachedProvider == true)
            #expect(error?.isRetryable == false)
            #expect(ephemeralKeyPosts(world) == 1)
            #expect(world.handle.journal.last?.handling == .faulted)
        }
    }

    @Test("a 500 from inside Stripe's key request is not repeated either (the configuration allows two attempts)")
    func serverErrorIsNotRepeated() async throws {
        try await StripeRevealWorld.run { world in
            let error = await gatewayError {
                _ = try await world.session(Seed.internalErrorCardID, nonce: StripeRevealWorld.nonce())
            }
            #expect(error?.code == .providerUnavailable)
            #expect(error?.mayHaveReachedProvider == true)
            #expect(error?.isRetryable == false)
            #expect(ephemeralKeyPosts(world) == 1)
        }
    }

    @Test("a nonce Stripe's error echoes reaches neither the error nor the logs")
    func nonceNeverInErrorsOrLogs() async throws {
        let capture = LogCapture()
        let logger = capture.logger(level: .trace)
        // Short nonces, which no general rule for opaque words would catch.
        let nonces = ["ephkn_priv_a1b2c3", "ephkn_pub_shortnonce"]
        try await StripeRevealWorld.run(logger: logger) { world in
            let context = OperationContext(logger: logger, requestID: "req-nonce")
            for nonce in nonces {
                world.handle.faults.inject(
                    FaultRule(
                        count: 1, pathPrefix: "/v1/ephemeral_keys", method: "POST",
                        action: .status(400, retryAfterSeconds: nil, message: "No such nonce: '\(nonce)'")))
                let error = try #require(
                    await gatewayError {
                        _ = try await world.session(Seed.activeCardID, nonce: Secret(nonce), context: context)
                    })
                #expect(error.code == .invalidRequest)
                #expect(error.message.contains("No such nonce"), "Stripe's message is kept, the nonce is not")
                let texts = [
                    error.description, String(reflecting: error), error.message,
                    error.fieldErrors.map(\.description).joined(),
                ]
                #expect(leakedNeedles([nonce], in: texts.joined(separator: "\n")).isEmpty, "leaked into the error")
            }
            // A PIN change whose ciphertext Stripe's error echoes.
            world.handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/v1/issuing/cards/", method: "POST",
                    action: .status(400, retryAfterSeconds: nil, message: "Invalid PIN: \(Self.ciphertext.prefix(20))")
                ))
            let short = String(Self.ciphertext.prefix(20))
            let pinError = try #require(
                await gatewayError {
                    _ = try await world.gateway.revealSession(
                        RevealSessionRequest(
                            card: CardRef(id: Seed.activeCardID), purpose: .pinChange,
                            encryptedPINBlock: Secret(short)),
                        via: world.target, context: context)
                })
            #expect(pinError.code == .invalidRequest)
            #expect(!pinError.description.contains(short))
        }
        #expect(!capture.all.isEmpty, "the flow logged something to check")
        #expect(leakedNeedles(nonces, in: capture.text).isEmpty, "leaked into logs")
        #expect(StripeProvider.redacting(["ab"], in: "xabyab") == "x<redacted>y<redacted>")
    }

    @Test("PIN change: the offer asks for the encrypted PIN; the session relays it as pin[encrypted_number], once")
    func pinChangeOnTheWire() async throws {
        try await StripeRevealWorld.run { world in
            let card = Seed.activeCardID
            let offer = try await world.gateway.revealOffer(
                for: CardRef(id: card), purpose: .pinChange, via: world.target)
            #expect(offer.flow == .encryptedPIN)
            #expect(offer.requires == [.encryptedPINBlock])
            #expect(offer.apiVersion == nil)

            let session = try await world.gateway.revealSession(
                RevealSessionRequest(
                    card: CardRef(id: card), purpose: .pinChange, encryptedPINBlock: Secret(Self.ciphertext)),
                via: world.target, context: OperationContext(idempotencyKey: "pin-op"))
            #expect(session.flow == .encryptedPIN)
            #expect(session.material.kind == "pinChange")
            #expect(session.material.pinChangeStatus == .completed)
            #expect(session.provider == "stripe-sim")

            // On the wire: the card read (the session's own check), then the update with the ciphertext only.
            let exchanges = world.wire.exchanges.suffix(2)
            #expect(exchanges.map(\.method) == ["GET", "POST"])
            let sent = try #require(exchanges.last)
            #expect(sent.path == "/v1/issuing/cards/\(card)")
            #expect(
                sent.requestBody.map { String(decoding: $0, as: UTF8.self) }
                    == "pin[encrypted_number]=\(Self.ciphertext)")
            #expect(sent.status == 200)
            #expect(!(sent.responseBody.map { String(decoding: $0, as: UTF8.self) } ?? "").contains(Self.ciphertext))
            let entry = try #require(world.handle.journal.last)
            #expect(entry.method == "POST" && entry.path == "/v1/issuing/cards/\(card)")
            #expect((entry.header("idempotency-key") ?? "").count >= 16)
            #expect(
                entry.header("idempotency-key")
                    != IdempotencyKeys.derive(operationKey: "pin-op", scope: "pin", maxLength: 255))
            #expect(!entry.bodyText.contains(Self.ciphertext), "the journal masks the ciphertext")
            #expect(world.simulator.cards.get(card)?.encryptedPINs == [Self.ciphertext])
        }
    }

    @Test("PIN change refusals: inputs before any request; a canceled card after the read only; a drop is not repeated")
    func pinChangeRefusals() async throws {
        try await StripeRevealWorld.run { world in
            let card = CardRef(id: Seed.activeCardID)
            let bad: [RevealSessionRequest] = [
                RevealSessionRequest(card: card, purpose: .pinChange),
                RevealSessionRequest(card: card, purpose: .pinChange, encryptedPINBlock: Secret("")),
                RevealSessionRequest(
                    card: card, purpose: .pinChange, clientNonce: StripeRevealWorld.nonce(),
                    encryptedPINBlock: Secret(Self.ciphertext)),
                RevealSessionRequest(
                    card: card, purpose: .pinChange, apiVersion: "2024-06-20",
                    encryptedPINBlock: Secret(Self.ciphertext)
                ),
                RevealSessionRequest(
                    card: card, purpose: .pinChange, encryptedPINBlock: Secret(String(repeating: "A", count: 5001))),
            ]
            for request in bad {
                let error = await gatewayError { _ = try await world.gateway.revealSession(request, via: world.target) }
                #expect(error?.code == .invalidRequest)
            }
            #expect(world.handle.journal.count == 0)

            let canceled = await gatewayError {
                _ = try await world.gateway.revealSession(
                    RevealSessionRequest(
                        card: CardRef(id: Seed.canceledCardID), purpose: .pinChange,
                        encryptedPINBlock: Secret(Self.ciphertext)),
                    via: world.target)
            }
            #expect(canceled?.code == .invalidCardState)
            #expect(world.handle.journal.entries(method: "POST", pathContains: "/v1/issuing/cards").isEmpty)

            world.handle.faults.inject(
                FaultRule(count: 1, pathPrefix: "/v1/issuing/cards/", method: "POST", action: .dropConnection))
            let dropped = await gatewayError {
                _ = try await world.gateway.revealSession(
                    RevealSessionRequest(card: card, purpose: .pinChange, encryptedPINBlock: Secret(Self.ciphertext)),
                    via: world.target)
            }
            #expect(dropped?.mayHaveReachedProvider == true)
            #expect(dropped?.isRetryable == false)
            #expect(world.handle.journal.entries(method: "POST", pathContains: "/v1/issuing/cards").count == 1)
            #expect(world.simulator.cards.get(Seed.activeCardID)?.encryptedPINs == [])
        }
    }
}
