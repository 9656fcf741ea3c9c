import AsyncHTTPClient
import CardGateway
import CardGatewaySimulation
import Foundation
import LithicSimulator
import SharedTestSupport
import Testing

@_spi(AdapterSupport) @testable import CardGatewayLithic

/// Card details and PIN setting by embed sessions: the session request on the wire, the material handed back, and the
/// frames the simulator serves with it (single use per type).
@Suite("Lithic card reveal", .timeLimit(.minutes(5)))
struct LithicCardRevealTests {
    @Test("card details: POST /embed CARD_EMBED with target_origin; the session opens each frame type once")
    func cardDetails() async throws {
        try await LithicFixture.withHarness { h in
            let offer = try await h.provider.revealOffer(
                for: CardRef(id: Seed.activeCard), purpose: .cardDetails, context: h.context)
            #expect(offer.flow == .clientAccessToken && offer.sessionLifetime == .seconds(600))
            let session = try await h.provider.revealSession(
                RevealSessionRequest(card: CardRef(id: Seed.activeCard), purpose: .cardDetails), context: h.context)
            let token = try #require(session.material.clientAccessToken)
            let post = try #require(h.handle.journal.entries().last { $0.method == "POST" })
            #expect(post.path == "/v1/cards/\(Seed.activeCard)/embed")
            #expect(h.json(post)?["type"]?.stringValue == "CARD_EMBED")
            #expect(h.json(post)?["target_origin"]?.stringValue == "https://cardholder.example")
            let base = h.handle.baseURL.absoluteString
            let first = try await Self.get("\(base)/v1/embed?session=\(token.revealedValue)&type=PAN")
            #expect(first.status == 200 && first.body.contains("4242"))
            let again = try await Self.get("\(base)/v1/embed?session=\(token.revealedValue)&type=PAN")
            #expect(again.status == 401)
            let pin = try await Self.get("\(base)/v1/embed?session=\(token.revealedValue)&type=PIN_SETTING")
            #expect(pin.status == 401)
            #expect(!String(describing: session).contains(token.revealedValue))
        }
    }

    @Test("PIN setting: PIN_SETTING_EMBED, answered as the PIN frame's URL on the instance's base")
    func pinSetting() async throws {
        try await LithicFixture.withHarness { h in
            let session = try await h.provider.revealSession(
                RevealSessionRequest(card: CardRef(id: Seed.activeCard), purpose: .pinChange), context: h.context)
            let link = try #require(session.material.secureLink)
            #expect(link.revealedValue.hasPrefix(h.handle.baseURL.absoluteString + "/v1/embed?session="))
            #expect(link.revealedValue.hasSuffix("&type=PIN_SETTING"))
            let frame = try await Self.get(link.revealedValue)
            #expect(frame.status == 200 && frame.body.contains("PIN_SETTING"))
        }
    }

    @Test(
        "a CLOSED card is invalidCardState, PIN reveal unsupported, a missing origin invalidConfiguration, without a session"
    )
    func refusals() async throws {
        try await LithicFixture.withHarness { h in
            let closed = await gatewayError {
                _ = try await h.provider.revealSession(
                    RevealSessionRequest(card: CardRef(id: Seed.closedCard), purpose: .cardDetails), context: h.context)
            }
            #expect(closed?.code == .invalidCardState)
            let reveal = await gatewayError {
                _ = try await h.provider.revealOffer(
                    for: CardRef(id: Seed.activeCard), purpose: .pinReveal, context: h.context)
            }
            #expect(reveal?.code == .unsupported)
            let (unconfigured, transport) = try LithicFixture.scripted([], options: LithicOptions())
            let missing = await gatewayError {
                _ = try await unconfigured.revealSession(
                    RevealSessionRequest(card: CardRef(id: Seed.activeCard), purpose: .cardDetails),
                    context: OperationContext())
            }
            #expect(missing?.code == .invalidConfiguration && transport.requests.isEmpty)
            #expect(!h.handle.journal.entries().contains { $0.path.hasSuffix("/embed") })
        }
    }

    static func get(_ url: String) async throws -> (status: Int, body: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body))
    }
}
