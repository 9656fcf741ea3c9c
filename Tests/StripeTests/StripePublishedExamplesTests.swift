import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import SharedTestSupport
import Testing

@testable import CardGatewayStripe
@testable import StripeSimulator

/// Stripe's own example objects (`Fixtures/stripe-fixtures3-issuing.json`, from stripe/openapi's fixtures3) decoded by
/// the adapter, and the simulator's objects checked to carry every published field with the same JSON type, so a
/// simulator that drifts from Stripe's shape fails here rather than in a customer's integration.
@Suite("Stripe published examples", .timeLimit(.minutes(5)))
struct StripePublishedExamplesTests {
    static func published(_ resource: String) throws -> JSONValue {
        try #require(try PublishedShape.fixture("stripe-fixtures3-issuing.json")["resources"]?[resource])
    }

    static func text(_ value: JSONValue) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    @Test("the adapter decodes Stripe's published issuing.card and issuing.token")
    func adapterDecodesPublishedObjects() async throws {
        let card = try Self.published("issuing.card")
        let token = try Self.published("issuing.token")
        let transport = ScriptedTransport([.stripe(200, try Self.text(card)), .stripe(200, try Self.text(token))])
        let provider = try Fixture.provider(transport)
        let decoded = try await provider.card(
            CardRef(id: try #require(card["id"]?.stringValue)), context: OperationContext())
        #expect(decoded.lastFour == "4242")
        #expect(decoded.expiry == CardExpiry(month: 8, year: 2030))
        #expect(decoded.status == .active)
        #expect(decoded.scheme == .visa)
        #expect(decoded.cardholderName == "Jenny Rosen")
        #expect(decoded.currency == "USD")
        let decodedToken = try await provider.token(
            id: try #require(token["id"]?.stringValue), context: OperationContext())
        #expect(decodedToken.id == "intok_1Pgc78B7WZ01zgkW7VstwAxg")
        #expect(decodedToken.token.status == .active)
        #expect(decodedToken.token.wallet == .applePay)
        #expect(decodedToken.card.id == "ic_1Pgag5B7WZ01zgkWephORn8N")
    }

    @Test(
        "the simulator's card, cardholder, token and ephemeral key carry every published field with the same JSON type")
    func simulatorCarriesThePublishedShape() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let raw = RawClient(handle: handle)
            let card = try await raw.send(.get, "/v1/issuing/cards/\(Seed.activeCardID)")
            let cardJSON = try #require(card.json)
            #expect(PublishedShape.differences(cardJSON, from: try Self.published("issuing.card")) == [])
            #expect(
                PublishedShape.differences(
                    try #require(cardJSON["cardholder"]), from: try Self.published("issuing.cardholder")) == [])
            let token = try await raw.send(.get, "/v1/issuing/tokens/\(Seed.activeApplePayTokenID)")
            #expect(
                PublishedShape.differences(try #require(token.json), from: try Self.published("issuing.token")) == [])
            let key = try await raw.send(
                .post, "/v1/ephemeral_keys", form: "issuing_card=\(Seed.activeCardID)",
                headers: ["Stripe-Version": "2020-08-27"])
            #expect(key.status == 200)
            #expect(PublishedShape.differences(try #require(key.json), from: try Self.published("ephemeral_key")) == [])

            // The lifecycle answers: a created card, a card in a list, a status change, a token change.
            let created = try await raw.send(
                .post, "/v1/issuing/cards", form: "cardholder=\(Seed.cardholderID)&currency=usd&type=virtual")
            #expect(created.status == 200)
            #expect(
                PublishedShape.differences(try #require(created.json), from: try Self.published("issuing.card")) == [])
            let list = try await raw.send(.get, "/v1/issuing/cards?cardholder=\(Seed.cardholderID)&limit=2")
            let listed = try #require(list.json?["data"]?.arrayValue?.first)
            #expect(PublishedShape.differences(listed, from: try Self.published("issuing.card")) == [])
            let locked = try await raw.send(
                .post, "/v1/issuing/cards/\(Seed.activeCardWithoutPrimaryAccountIdentifierID)", form: "status=inactive")
            #expect(locked.status == 200)
            #expect(
                PublishedShape.differences(try #require(locked.json), from: try Self.published("issuing.card")) == [])
            let suspended = try await raw.send(
                .post, "/v1/issuing/tokens/\(Seed.activeApplePayTokenID)", form: "status=suspended")
            #expect(suspended.status == 200)
            #expect(
                PublishedShape.differences(try #require(suspended.json), from: try Self.published("issuing.token"))
                    == [])
        }
    }

    @Test("the shape check itself fails on a missing field and on a changed type")
    func shapeCheckCanFail() throws {
        let published = try Self.published("issuing.card")
        guard case .object(var object) = published else { throw CardGatewayError(.invalidResponse, "not an object") }
        object["lifecycle_controls"] = nil
        object["last4"] = .number(4242)
        let problems = PublishedShape.differences(.object(object), from: published)
        #expect(problems.contains("$.lifecycle_controls is missing"))
        #expect(problems.contains("$.last4 is a number, the published example has a string"))
    }

    @Test(
        "POST /v1/ephemeral_keys takes issuing_card with a Stripe.js nonce, as Stripe's Issuing Elements guide sends; a nonce alone or with another scope is refused"
    )
    func ephemeralKeyWithNonce() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let raw = RawClient(handle: handle)
            let version = ["Stripe-Version": "2020-08-27"]
            let both = try await raw.send(
                .post, "/v1/ephemeral_keys", form: "issuing_card=\(Seed.activeCardID)&nonce=ephkn_pub_1SimNonce",
                headers: version)
            #expect(both.status == 200, "\(both.text)")
            #expect(both.json?["secret"]?.stringValue?.hasPrefix("ek_test_") == true)
            let nonceAlone = try await raw.send(
                .post, "/v1/ephemeral_keys", form: "nonce=ephkn_pub_1SimNonce", headers: version)
            #expect(nonceAlone.status == 400)
            let twoScopes = try await raw.send(
                .post, "/v1/ephemeral_keys", form: "issuing_card=\(Seed.activeCardID)&customer=cus_1", headers: version)
            #expect(twoScopes.status == 400)
        }
    }
}
