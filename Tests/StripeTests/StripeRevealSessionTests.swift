import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import Logging
import SharedTestSupport
import Testing

@testable import CardGatewayStripe
@testable import StripeSimulator

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
