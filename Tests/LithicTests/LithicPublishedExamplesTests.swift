import CardGateway
import CardGatewayTesting
import Foundation
import HTTPTypes
import SharedTestSupport
import Testing

@_spi(AdapterSupport) @testable import CardGatewayLithic

/// Lithic's own examples (in its OpenAPI document, `Fixtures/lithic-openapi.json`) as the authority: the adapter
/// reads the published answers and webhook payloads, and writes the published request bodies byte for byte where the
/// document gives one for what the adapter sends.
@Suite("Lithic's published examples", .timeLimit(.minutes(5)))
struct LithicPublishedExamplesTests {
    static let documentData = (try? Data(contentsOf: PublishedShape.fixtureURL("lithic-openapi.json"))) ?? Data()

    /// The value at a path of keys in the document.
    static func at(_ keys: String...) -> Any? {
        var node: Any? = try? JSONSerialization.jsonObject(with: documentData)
        for key in keys { node = (node as? [String: Any])?[key] }
        return node
    }

    static func json(_ value: Any?) throws -> Data {
        try JSONSerialization.data(withJSONObject: try #require(value), options: [.sortedKeys])
    }

    @Test("the Create card and Update card answers (pci_card_response) read as cards; PAN and CVV never surface")
    func cardAnswers() throws {
        for (path, method) in [("/v1/cards", "post"), ("/v1/cards/{card_token}", "patch")] {
            let example = Self.at(
                "paths", path, method, "responses", "200", "content", "application/json", "example")
            let body = try Self.json(example)
            let wire = try JSONDecoder().decode(LithicWireCard.self, from: body)
            let card = try LithicMapping.card(wire, requested: nil)
            #expect(card.status == .active && card.providerStatus == "OPEN", "\(path)")
            #expect(card.type == .virtual)
            #expect(card.lastFour?.count == 4 && card.expiry?.year == 2027)
            #expect(card.ref.customer == "f3f4918c-dee9-464d-a819-4aa42901d624")
            #expect(card.created == Date(timeIntervalSince1970: 1_624_920_795))
            let text = "\(card)" + String(describing: card.ref)
            #expect(!text.contains("4111111289144142") && !text.contains("776") && !text.contains("742"))
        }
    }

    @Test("the tokenizations listing and Get tokenization examples read as an active Apple Pay token")
    func tokenizations() throws {
        let list = Self.at(
            "paths", "/v1/tokenizations", "get", "responses", "200", "content", "application/json", "example")
        let page = try JSONDecoder().decode(LithicWirePage<LithicWireTokenization>.self, from: try Self.json(list))
        #expect(page.hasMore == false)
        let token = try #require(page.data?.first.flatMap(LithicMapping.walletToken))
        #expect(token.id == "3e9a10da-11be-4a62-a510-d43548bfcec1")
        #expect(token.status == .active && token.wallet == .applePay)
        // "2023-08-28T15:57:14.578051": UTC without a zone designator, microseconds kept to the millisecond.
        let created = try #require(token.created)
        #expect(abs(created.timeIntervalSince1970 - 1_693_238_234.578051) < 0.001)
        let single = Self.at(
            "paths", "/v1/tokenizations/{tokenization_token}", "get", "responses", "200", "content", "application/json",
            "example")
        let wire = try JSONDecoder().decode(LithicWireTokenization.self, from: try Self.json(single))
        #expect(LithicMapping.walletToken(wire)?.id == token.id)
    }

    @Test("the card-updated and tokenization-updated examples, as their webhooks carry them, become events")
    func webhookExamples() throws {
        let events = LithicWebhookEvents(instance: "lithic", logger: OperationContext.noopLogger)
        var cardUpdated = try #require(
            (Self.at("components", "schemas", "card-updated", "examples") as? [Any])?.first
                as? [String: Any])
        cardUpdated["event_type"] = "card.updated"
        let change = try #require(
            try events.events(id: "msg_1", body: try Self.json(cardUpdated)).first?.event.cardStatusChanged)
        #expect(change.oldStatus == .locked && change.newStatus == .active)
        #expect(change.card.id == "00000000-0000-0000-0000-000000000000")
        for (schema, type) in [
            ("tokenization-updated", "tokenization.updated"),
            ("digital-wallet-tokenization-updated", "digital_wallet.tokenization_updated"),
        ] {
            var payload = try #require(
                (Self.at("components", "schemas", schema, "examples") as? [Any])?.first
                    as? [String: Any])
            payload["event_type"] = type
            let event = try #require(try events.events(id: "msg_2", body: try Self.json(payload)).first)
            let updated = try #require(event.event.walletTokenUpdated)
            #expect(updated.card.id == "00000000-0000-0000-0000-000000000001")
            #expect(updated.token.id == "3e9a10da-11be-4a62-a510-d43548bfcec1" && updated.token.status == .active)
            #expect(event.occurredAt != nil && event.providerType == type)
        }
    }

    @Test("the adapter's Google Pay provision and CARD_EMBED session bodies are the document's examples")
    func requestExamples() async throws {
        let (provider, transport) = try LithicFixture.scripted(
            [
                .json(200, #"{"provisioning_payload":"eyJhIjoxfQ=="}"#),
                .json(200, #"{"token":"c0000000-0000-4000-8000-000000000001","state":"OPEN"}"#),
                .json(200, #"{"session":"eyJhb..."}"#),
            ], options: LithicOptions(embedTargetOrigin: "https://example.com"))
        let google =
            Self.at(
                "paths", "/v1/cards/{card_token}/provision", "post", "requestBody", "content", "application/json",
                "examples", "provisionGoogleCard", "value") as? [String: Any]
        let device = try #require(google?["client_device_id"] as? String)
        let account = try #require(google?["client_wallet_account_id"] as? String)
        _ = try await provider.provision(
            ProvisioningRequest(
                card: CardRef(id: "c0000000-0000-4000-8000-000000000001"), wallet: .googlePay,
                input: .googlePay(GooglePayProvisioningInput(clientDeviceID: device, clientWalletAccountID: account))),
            context: OperationContext())
        _ = try await provider.revealSession(
            RevealSessionRequest(card: CardRef(id: "c0000000-0000-4000-8000-000000000001"), purpose: .cardDetails),
            context: OperationContext())
        let sent = transport.requests
        try #require(sent.count == 3)
        let embed = Self.at(
            "paths", "/v1/cards/{card_token}/embed", "post", "requestBody", "content", "application/json", "examples",
            "cardEmbed", "value")
        func canonical(_ data: Data?) throws -> Data {
            try Self.json(try JSONSerialization.jsonObject(with: try #require(data)))
        }
        #expect(try canonical(sent[0].body) == Self.json(google))
        #expect(try canonical(sent[2].body) == Self.json(embed))
        #expect(sent[0].header("Authorization") == Seed.apiKey)
    }
}
