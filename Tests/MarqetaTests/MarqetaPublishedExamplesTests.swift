import CardGateway
import CardGatewayTesting
import Foundation
import SharedTestSupport
import Testing

@testable import CardGatewayMarqeta

/// The adapter against Marqeta's own example bodies (Fixtures/README.md: copied from Marqeta's OpenAPI description,
/// the "Sample request/response body" boxes of marqeta.com/docs/core-api; quirks kept as published). One test per
/// operation: the adapter reads the example answer through its public API over a scripted transport, and every
/// request it builds names only members the example request (or, where said, Marqeta's document) has.
@Suite("Marqeta's published examples", .timeLimit(.minutes(5)))
struct MarqetaPublishedExamplesTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures")

    static func fixture(_ name: String) throws -> Data { try Data(contentsOf: directory.appendingPathComponent(name)) }
    static func text(_ name: String) throws -> String { String(decoding: try fixture(name), as: UTF8.self) }

    /// Every key path of a JSON object ("digital_wallet_token.token"); arrays are not entered (their key is listed).
    static func keyPaths(_ value: JSONValue, prefix: String = "") -> Set<String> {
        guard case .object(let members) = value else { return [] }
        var paths: Set<String> = []
        for (key, member) in members {
            let path = prefix.isEmpty ? key : prefix + "." + key
            paths.insert(path)
            paths.formUnion(keyPaths(member, prefix: path))
        }
        return paths
    }

    /// The members of `sent` that the example request `fixture` does not have.
    static func membersBeyond(_ fixture: String, sent: Data?) throws -> Set<String> {
        let example = keyPaths(try JSONValue.parse(try Self.fixture(fixture)))
        let built = keyPaths(try JSONValue.parse(try #require(sent)))
        return built.subtracting(example)
    }

    @Test("GET /cards/{token}: the example card is read (UNACTIVATED, physical, its last four)")
    func card() async throws {
        let (provider, transport) = try MarqetaFixture.scripted([
            .json(200, try Self.text("get-cards-token.response-200.json"))
        ])
        let card = try await provider.card(CardRef(id: "mytestcard01"), context: OperationContext())
        #expect(transport.requests.map(\.pathWithoutQuery) == ["/v3/cards/mytestcard01"])
        #expect(card.id == "mytestcard01")
        #expect(card.customer == "my_user_01")
        #expect(card.status == .inactive)
        #expect(card.providerStatus == "UNACTIVATED")
        #expect(card.type == .physical)
        #expect(card.lastFour == "8949")
        #expect(card.program == "my_cardproduct_01")
        #expect(card.created == MarqetaMapping.date("2022-02-14T18:48:10Z"))
    }

    @Test("GET /cards/user/{token}: the example page is read, three cards, no more pages")
    func cardsByUser() async throws {
        let (provider, transport) = try MarqetaFixture.scripted([
            .json(200, try Self.text("get-cards-user-token.response-200.json"))
        ])
        let page = try await provider.listCards(CardQuery(customer: "my_user_01"), context: OperationContext())
        #expect(transport.requests.map(\.pathWithoutQuery) == ["/v3/cards/user/my_user_01"])
        #expect(page.cards.map(\.id) == ["my_user_01_card_01", "my_user_01_card_02", "my_user-01-child_01_card_01"])
        #expect(page.cards.map(\.status) == [.suspended, .inactive, .inactive])
        #expect(page.cards.map(\.lastFour) == ["2160", "1865", "2810"])
        #expect(page.hasMore == false)
    }

    @Test("POST /cards: the example answer is the created card; the request names only the example's members")
    func createCard() async throws {
        let (provider, transport) = try MarqetaFixture.scripted([
            .json(201, try Self.text("post-cards.response-201.json"))
        ])
        let card = try await provider.createCard(
            CreateCardRequest(customer: "my_user_01", type: .physical, program: "my_cardproduct_01", currency: "USD"),
            context: OperationContext())
        #expect(card.id == "my_test_card_01")
        #expect(card.status == .active)
        // Marqeta's quirk, kept: `last_four` 6270 beside a `pan` ending 6720. The adapter reads `last_four`.
        #expect(card.lastFour == "6270")
        let sent = try #require(transport.requests.first)
        #expect(sent.method == "POST" && sent.pathWithoutQuery == "/v3/cards")
        #expect(try Self.membersBeyond("post-cards.request.json", sent: sent.body) == [])
    }

    @Test("POST /cardtransitions: the example answer completes an unlock of the listed SUSPENDED card")
    func cardTransition() async throws {
        // The card as the listing example shows it (`my_user_01_card_01`, SUSPENDED), then the transition example.
        let listed = try #require(
            try JSONValue.parse(try Self.fixture("get-cards-user-token.response-200.json"))["data"]?.arrayValue?.first)
        let (provider, transport) = try MarqetaFixture.scripted([
            .json(200, String(decoding: try JSONEncoder().encode(listed), as: UTF8.self)),
            .json(201, try Self.text("post-cardtransitions.response-201.json")),
        ])
        let card = try await provider.changeStatus(
            CardStatusRequest(card: CardRef(id: "my_user_01_card_01"), intent: .unlock, comment: "found it"),
            context: OperationContext())
        #expect(card.status == .active)
        #expect(card.providerStatus == "ACTIVE")
        #expect(
            transport.requests.map { "\($0.method) \($0.pathWithoutQuery)" } == [
                "GET /v3/cards/my_user_01_card_01", "POST /v3/cardtransitions",
            ])
        #expect(try Self.membersBeyond("post-cardtransitions.request.json", sent: transport.requests.last?.body) == [])
        let sent = try #require(transport.requests.last?.jsonBody)
        #expect(sent["state"]?.stringValue == "ACTIVE")
        #expect(sent["channel"]?.stringValue == "API")
    }

    @Test(
        "POST /digitalwalletprovisionrequests/applepay: the example answer decodes; its placeholder parts are refused")
    func applePay() async throws {
        let answer = try JSONDecoder().decode(
            MarqetaWireApplePayResponse.self,
            from: try Self.fixture("post-digitalwalletprovisionrequests-applepay.response-201.json"))
        #expect(answer.activationData?.isEmpty == false)
        #expect(answer.encryptedPassData?.isEmpty == false)
        #expect(answer.ephemeralPublicKey?.isEmpty == false)

        let (provider, transport) = try MarqetaFixture.scripted([
            .json(201, try Self.text("post-digitalwalletprovisionrequests-applepay.response-201.json"))
        ])
        let input = ProvisioningInput.applePay(
            ApplePayProvisioningInput(
                certificates: [Data([1]), Data([2])], nonce: Data([3]), nonceSignature: Data([4])))
        // Marqeta's example shows elided placeholders ("my_activation_data_VERF..."), not Base64: the adapter does not
        // hand the wallet bytes it cannot decode (README, "Unverified facts": the parts' encoding).
        let error = await gatewayError {
            _ = try await provider.provision(
                ProvisioningRequest(card: CardRef(id: "my_card_token_1234"), wallet: .applePay, input: input),
                context: OperationContext())
        }
        #expect(error?.code == .invalidResponse)
        #expect(!(error?.message.contains("VERF") ?? true))
        #expect(
            try Self.membersBeyond(
                "post-digitalwalletprovisionrequests-applepay.request.json", sent: transport.requests.first?.body) == []
        )
    }

    @Test("POST /digitalwalletprovisionrequests/androidpay: the example answer becomes the Google payload")
    func googlePay() async throws {
        let (provider, transport) = try MarqetaFixture.scripted([
            .json(201, try Self.text("post-digitalwalletprovisionrequests-androidpay.response-201.json"))
        ])
        let response = try await provider.provision(
            ProvisioningRequest(
                card: CardRef(id: "my_card_token_0987"), wallet: .googlePay,
                input: .googlePay(
                    GooglePayProvisioningInput(
                        clientDeviceID: "my_device_id_r51j", clientWalletAccountID: "my_wallet_account_id_sr51"))),
            context: OperationContext())
        let payload = try #require(response.googlePay)
        #expect(payload.opaquePaymentCard.revealedBytes == Data("my_opaque_payment_card_RUza...".utf8))
        #expect(payload.network == .visa)  // "Visa", as published
        #expect(payload.lastFour == "3264")
        #expect(payload.tokenProvider == "TOKEN_PROVIDER_VISA")
        #expect(payload.displayName == "Visa Card")
        #expect(
            try Self.membersBeyond(
                "post-digitalwalletprovisionrequests-androidpay.request.json", sent: transport.requests.first?.body)
                == [])
    }

    @Test(
        "GET /digitalwallettokens/card/{card_token}: the example token is read; its requestor names no wallet we know")
    func walletTokens() async throws {
        // The example says `is_more: true` with `count` 1: a second page (empty) ends the listing.
        let (provider, transport) = try MarqetaFixture.scripted([
            .json(200, try Self.text("get-digitalwallettokens-card-card_token.response-200.json")),
            .json(200, #"{"count":0,"start_index":1,"end_index":0,"is_more":false,"data":[]}"#),
        ])
        let tokens = try await provider.walletTokens(of: CardRef(id: "my_card_token_1989"), context: OperationContext())
        #expect(tokens.map(\.id) == ["my_token_0000"])
        #expect(tokens.map(\.status) == [.active])
        #expect(tokens.first?.wallet == nil)  // "Token Requestor Name", as published
        #expect(tokens.first?.created == MarqetaMapping.date("2025-10-03T18:55:45Z"))
        #expect(
            transport.requests.allSatisfy { $0.pathWithoutQuery == "/v3/digitalwallettokens/card/my_card_token_1989" })
    }

    @Test(
        "POST /digitalwallettokentransitions: the example answer ({token}-only digital_wallet_token) completes a resume"
    )
    func walletTokenTransition() async throws {
        // The listing example, its token renamed to the transition example's and SUSPENDED, then the transition.
        var listing = try #require(
            try JSONValue.parse(try Self.fixture("get-digitalwallettokens-card-card_token.response-200.json"))
                .objectValue)
        var token = try #require(listing["data"]?.arrayValue?.first?.objectValue)
        token["token"] = .string("my_digital_wallet_token_0987")
        token["state"] = .string("SUSPENDED")
        listing["data"] = .array([.object(token)])
        listing["is_more"] = .bool(false)
        let (provider, transport) = try MarqetaFixture.scripted([
            .json(200, String(decoding: try JSONEncoder().encode(JSONValue.object(listing)), as: UTF8.self)),
            .json(201, try Self.text("post-digitalwallettokentransitions.response-201.json")),
        ])
        let result = try await provider.changeWalletToken(
            WalletTokenRequest(
                card: CardRef(id: "my_card_token_1989"), token: "my_digital_wallet_token_0987", intent: .resume),
            context: OperationContext())
        #expect(result.id == "my_digital_wallet_token_0987")
        #expect(result.status == .active)
        #expect(result.providerStatus == "ACTIVE")
        // Beyond the example request: `digital_wallet_token.card_token` and `channel`, both members of Marqeta's
        // `digital_wallet_token_transition_request` (checked by MarqetaSpecConformanceTests).
        #expect(
            try Self.membersBeyond(
                "post-digitalwallettokentransitions.request.json", sent: transport.requests.last?.body)
                == ["digital_wallet_token.card_token", "channel"])
    }

    @Test("POST /users/auth/clientaccesstoken: the example answer ({created, expires, token}) is the session")
    func clientAccessToken() async throws {
        let (provider, transport) = try MarqetaFixture.scripted([
            .json(200, try Self.text("get-cards-token.response-200.json")),
            .json(201, try Self.text("post-users-auth-clientaccesstoken.response-201.json")),
        ])
        let session = try await provider.revealSession(
            RevealSessionRequest(card: CardRef(id: "mytestcard01"), purpose: .cardDetails), context: OperationContext())
        let published = try #require(
            try JSONValue.parse(try Self.fixture("post-users-auth-clientaccesstoken.response-201.json"))["token"]?
                .stringValue)
        #expect(session.material.clientAccessToken?.revealedValue == published)
        #expect(session.expires == MarqetaMapping.date("2022-07-29T12:05:00Z"))
        #expect(
            transport.requests.map { "\($0.method) \($0.pathWithoutQuery)" } == [
                "GET /v3/cards/mytestcard01", "POST /v3/users/auth/clientaccesstoken",
            ])
        #expect(
            try Self.membersBeyond(
                "post-users-auth-clientaccesstoken.request.json", sent: transport.requests.last?.body) == [])
    }

    @Test("Samsung Pay (no published example: hand-written) and the error body")
    func samsungAndErrors() async throws {
        let (provider, transport) = try MarqetaFixture.scripted([.json(201, try Self.text("samsungpay-response.json"))])
        let payload = try #require(
            try await provider.provision(
                ProvisioningRequest(
                    card: CardRef(id: "my_card_01"), wallet: .samsungPay,
                    input: .samsungPay(SamsungPayProvisioningInput(deviceID: "d", walletUserID: "w"))),
                context: OperationContext()
            ).samsungPay)
        #expect(payload.extraProvisionPayload.revealedBytes == Data("c2Ftc3VuZyBlbmNyeXB0ZWQgY2FyZCBkYXRh".utf8))
        #expect(payload.network == .visa)
        #expect(payload.cardType == "DEBIT")
        #expect(try Self.membersBeyond("samsungpay-request.json", sent: transport.requests.first?.body) == [])
        // A wallet-token transition the token's state does not allow: 422 with 422003/422004
        // (developer-guides/troubleshooting-digital-wallet-token-lifecycle-errors).
        let error = MarqetaErrors.error(
            for: ProviderResponse(status: 422, headers: [:], body: try Self.fixture("error.json")), instance: "mq")
        #expect(error.providerCode == "422004")
        #expect(error.code == .invalidCardState)
    }
}
