import CardGateway
import CardGatewayTesting
import Foundation
import Testing

@testable import CardGatewayMarqeta

/// The adapter's wire types against the Marqeta wire examples in Fixtures/ (see its README: no published example body
/// was retrievable, so they are hand-written and each is checked against Marqeta's Core API document by
/// `MarqetaSimulatorShapeTests`): every response decodes and maps, and every request the adapter builds has exactly
/// the example's field names.
@Suite("Marqeta published examples", .timeLimit(.minutes(5)))
struct MarqetaPublishedExamplesTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures")

    static func fixture(_ name: String) throws -> Data { try Data(contentsOf: directory.appendingPathComponent(name)) }

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

    static func sameFields(_ built: Data, _ fixture: String) throws -> Bool {
        let expected = keyPaths(try JSONValue.parse(try Self.fixture(fixture)))
        let actual = keyPaths(try JSONValue.parse(built))
        return expected == actual
    }

    @Test("card and card list decode and map (MMYY expiry, instrument type, state)")
    func cards() throws {
        let wire = try JSONDecoder().decode(MarqetaWireCard.self, from: Self.fixture("card.json"))
        let card = try MarqetaMapping.card(wire, requested: nil)
        #expect(card.id == "my_card_01")
        #expect(card.customer == "my_user_01")
        #expect(card.status == .active)
        #expect(card.type == .physical)
        #expect(card.expiry == CardExpiry(month: 1, year: 2029))
        #expect(card.lastFour == "5678")
        #expect(card.program == "my_cardproduct_01")
        #expect(card.created != nil)
        let page = try JSONDecoder().decode(
            MarqetaWirePage<MarqetaWireCard>.self, from: Self.fixture("cards-by-user.json"))
        #expect(page.isMore == false)
        #expect(try page.data?.map { try MarqetaMapping.card($0, requested: nil).status } == [.inactive])
    }

    @Test("requests the adapter builds carry exactly the reference's fields")
    func requests() throws {
        let provider = try MarqetaFixture.scripted([]).0
        #expect(
            try Self.sameFields(
                provider.encode(MarqetaWireCreateCard(token: "t", userToken: "u", cardProductToken: "p")),
                "createcard-request.json"))
        #expect(
            try Self.sameFields(
                provider.encode(
                    MarqetaWireCardTransitionRequest(
                        token: "t", cardToken: "c", state: "SUSPENDED", channel: "API", reasonCode: "10", reason: "r")),
                "cardtransition-request.json"
            ))
        #expect(
            try Self.sameFields(
                provider.encode(
                    MarqetaWireApplePayRequest(
                        cardToken: "c", deviceType: "MOBILE_PHONE", provisioningAppVersion: "1", certificates: ["a"],
                        nonce: "n", nonceSignature: "s")),
                "applepay-request.json"
            ))
        #expect(
            try Self.sameFields(
                provider.encode(
                    MarqetaWireGooglePayRequest(
                        cardToken: "c", deviceType: "MOBILE_PHONE", provisioningAppVersion: "1", walletAccountID: "w",
                        deviceID: "d")),
                "androidpay-request.json"
            ))
        #expect(
            try Self.sameFields(
                provider.encode(
                    MarqetaWireSamsungPayRequest(
                        cardToken: "c", deviceType: "MOBILE_PHONE", provisioningAppVersion: "1", walletUserID: "w",
                        deviceID: "d")),
                "samsungpay-request.json"
            ))
        #expect(
            try Self.sameFields(
                provider.encode(
                    MarqetaWireWalletTokenTransitionRequest(
                        token: "t", digitalWalletToken: .init(token: "t", cardToken: "c"), channel: "API",
                        state: "SUSPENDED", reasonCode: "06"
                    )),
                "digitalwallettokentransition-request.json"
            ))
    }

    @Test("provisioning answers decode into the model's payloads; Samsung's is Samsung's own")
    func provisioningAnswers() async throws {
        let apple = try String(decoding: Self.fixture("applepay-response.json"), as: UTF8.self)
        let google = try String(decoding: Self.fixture("androidpay-response.json"), as: UTF8.self)
        let samsung = try String(decoding: Self.fixture("samsungpay-response.json"), as: UTF8.self)
        let (provider, _) = try MarqetaFixture.scripted([.json(201, apple), .json(201, google), .json(201, samsung)])
        let card = CardRef(id: "my_card_01")
        let appleInput = ProvisioningInput.applePay(
            ApplePayProvisioningInput(certificates: [Data([1])], nonce: Data([2]), nonceSignature: Data([3])))
        guard
            let payload = try await provider.provision(
                ProvisioningRequest(card: card, wallet: .applePay, input: appleInput), context: OperationContext()
            ).applePay
        else {
            Issue.record("not an Apple payload")
            return
        }
        #expect(payload.encryptedPassData.revealedBytes == Data("encrypted pass data".utf8))
        #expect(payload.activationData.revealedBytes == Data("activation data".utf8))
        #expect(payload.ephemeralPublicKey.revealedBytes == Data("ephemeral public key".utf8))

        let googleInput = ProvisioningInput.googlePay(
            GooglePayProvisioningInput(clientDeviceID: "d", clientWalletAccountID: "w"))
        guard
            let push = try await provider.provision(
                ProvisioningRequest(card: card, wallet: .googlePay, input: googleInput), context: OperationContext()
            ).googlePay
        else {
            Issue.record("not a Google payload")
            return
        }
        #expect(push.opaquePaymentCard.revealedBytes == Data("eyJvcGFxdWUiOiJwYXltZW50IGNhcmQifQ==".utf8))
        #expect(push.network == .visa)
        #expect(push.lastFour == "5678")
        #expect(push.tokenProvider == "TOKEN_PROVIDER_VISA")

        // `digital_wallet_samsung_pay_provision_response`: `samsung_push_tokenize_request_data`, no opaque_payment_card.
        let samsungInput = ProvisioningInput.samsungPay(SamsungPayProvisioningInput(deviceID: "d", walletUserID: "w"))
        guard
            let samsungPayload = try await provider.provision(
                ProvisioningRequest(card: card, wallet: .samsungPay, input: samsungInput), context: OperationContext()
            ).samsungPay
        else {
            Issue.record("not a Samsung payload")
            return
        }
        #expect(samsungPayload.extraProvisionPayload.revealedBytes == Data("c2Ftc3VuZyBlbmNyeXB0ZWQgY2FyZCBkYXRh".utf8))
        #expect(samsungPayload.network == .visa)
        #expect(samsungPayload.cardType == "DEBIT")
        #expect(samsungPayload.tokenProvider == "VI")
        #expect(samsungPayload.displayName == "Visa Card")
        #expect(samsungPayload.lastFour == "5678")
    }

    @Test("digital wallet tokens, the transition answer and the error body")
    func tokensAndErrors() throws {
        let page = try JSONDecoder().decode(
            MarqetaWirePage<MarqetaWireWalletToken>.self, from: Self.fixture("digitalwallettokens-by-card.json"))
        let tokens = (page.data ?? []).compactMap(MarqetaMapping.walletToken)
        #expect(tokens.map(\.id) == ["my_dwt_01", "my_dwt_02"])
        #expect(tokens.map(\.status) == [.active, .deleted])
        #expect(tokens.map(\.wallet) == [.applePay, .googlePay])
        let transition = try JSONDecoder().decode(
            MarqetaWireCardTransition.self, from: Self.fixture("cardtransition-response.json"))
        #expect(transition.state == "SUSPENDED")
        #expect(transition.cardToken == "my_card_01")
        #expect(transition.token == "my_transition_01")
        let tokenTransition = try JSONDecoder().decode(
            MarqetaWireWalletTokenTransition.self, from: Self.fixture("digitalwallettokentransition-response.json"))
        #expect(tokenTransition.state == "SUSPENDED")
        #expect(tokenTransition.token == "my_dwt_transition_01")
        #expect(tokenTransition.digitalWalletToken?.token == "my_dwt_01")
        #expect(tokenTransition.digitalWalletToken?.cardToken == "my_card_01")
        // A wallet-token transition the token's state does not allow: 422 with 422003/422004
        // (developer-guides/troubleshooting-digital-wallet-token-lifecycle-errors).
        let error = MarqetaErrors.error(
            for: ProviderResponse(status: 422, headers: [:], body: try Self.fixture("error.json")), instance: "mq")
        #expect(error.providerCode == "422004")
        #expect(error.code == .invalidCardState)
    }
}
