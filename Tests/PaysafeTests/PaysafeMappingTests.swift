import CardGateway
import CardGatewayPaysafe
import CardGatewayTesting
import Foundation
import Testing
import SharedTestSupport

@Suite("Paysafe mapping", .timeLimit(.minutes(5)))
struct PaysafeMappingTests {
    static let statuses: [(String, CardStatus)] = [
        ("ACTIVE", .active), ("ISSUED", .inactive), ("DIGITAL", .digital), ("PENDING", .pending), ("APPLIED", .pending),
        ("LOCKED", .locked), ("SUSPENDED", .suspended), ("CANCELLED", .cancelled), ("EXPIRED", .expired),
        ("REJECTED", .rejected),
        ("SOMETHING_NEW", .unknown),
    ]

    @Test("card status", arguments: statuses)
    func status(_ word: String, _ expected: CardStatus) async throws {
        let harness = try Harness.scripted([.json(200, Fixture.cardJSON(status: word))])
        let card = try await harness.provider.card(Fixture.ref, context: OperationContext())
        #expect(card.status == expected)
        #expect(card.providerStatus == word)
    }

    @Test("scheme", arguments: [("VISA", CardScheme.visa), ("MC", .mastercard), ("AMEX_LIKE", .unknown)])
    func scheme(_ word: String, _ expected: CardScheme) async throws {
        let harness = try Harness.scripted([.json(200, Fixture.cardJSON(scheme: word))])
        #expect(try await harness.provider.card(Fixture.ref, context: OperationContext()).scheme == expected)
    }

    @Test(
        "scheme from the BIN when Paysafe leaves it out",
        arguments: [
            ("533944", CardScheme.mastercard), ("411111", .visa), ("222100", .mastercard), ("601100", .unknown),
        ])
    func schemeFromBIN(_ bin: String, _ expected: CardScheme) async throws {
        let json = Fixture.cardJSON(scheme: nil).replacingOccurrences(
            of: "\"bin\":\"533944\"", with: "\"bin\":\"\(bin)\"")
        let harness = try Harness.scripted([.json(200, json)])
        #expect(try await harness.provider.card(Fixture.ref, context: OperationContext()).scheme == expected)
    }

    @Test("card type", arguments: [("PHYSICAL", CardType.physical), ("VIRTUAL", .virtual), ("UNKNOWN", .unknown)])
    func cardType(_ word: String, _ expected: CardType) async throws {
        let harness = try Harness.scripted([.json(200, Fixture.cardJSON(cardType: word))])
        #expect(try await harness.provider.card(Fixture.ref, context: OperationContext()).type == expected)
    }

    @Test("every card field")
    func cardFields() async throws {
        let extra =
            #","statusReason":"User locked","externalId":"ext-1","isPinSet":true,"someFutureField":{"nested":[1,2]}"#
        let harness = try Harness.scripted([
            .json(200, Fixture.cardJSON(status: "LOCKED", scheme: "MC", cardType: "PHYSICAL", extra: extra))
        ])
        let card = try await harness.provider.card(Fixture.ref, context: OperationContext())
        #expect(card.ref == CardRef(id: Fixture.cardID, customer: Fixture.customer))
        #expect(card.status == .locked)
        #expect(card.statusReason == "User locked")
        #expect(card.type == .physical)
        #expect(card.scheme == .mastercard)
        #expect(card.lastFour == "7009")
        #expect(card.bin == "533944")
        #expect(card.expiry == CardExpiry(month: 3, year: 2028))
        #expect(card.program == "SKRILL-VIRTUAL-MC-EEA")
        #expect(card.currency == "EUR")
        #expect(card.created == Date(timeIntervalSince1970: 1_566_656_122))
        #expect(card.walletTokens.isEmpty)
        #expect(card.availableActions.isEmpty)
    }

    @Test("expiry given as strings")
    func expiryStrings() async throws {
        let json = Fixture.cardJSON().replacingOccurrences(
            of: #"{"month":3,"year":2028}"#, with: #"{"month":"11","year":"29"}"#)
        let harness = try Harness.scripted([.json(200, json)])
        #expect(
            try await harness.provider.card(Fixture.ref, context: OperationContext()).expiry
                == CardExpiry(month: 11, year: 2029))
    }

    static let actions: [(String, CardAction)] = [
        ("ACTIVATE", .activate), ("CANCEL", .cancel), ("UNLOCK", .unlock), ("LOCK", .lock),
        ("SHOW_DETAILS", .showDetails),
        ("SHOW_PIN", .showPin), ("SET_PIN", .setPin), ("REPLACE", CardAction(rawValue: "REPLACE")),
    ]

    @Test("available actions (object form)", arguments: actions)
    func actionObjects(_ word: String, _ expected: CardAction) async throws {
        let harness = try Harness.scripted([
            .json(200, Fixture.cardJSON(extra: #","availableActions":[{"action":"\#(word)"}]"#))
        ])
        #expect(
            try await harness.provider.card(Fixture.ref, context: OperationContext()).availableActions == [expected])
    }

    @Test("available actions (string form)")
    func actionStrings() async throws {
        let harness = try Harness.scripted([
            .json(200, Fixture.cardJSON(extra: #","availableActions":["LOCK","SHOW_DETAILS"]"#))
        ])
        #expect(
            try await harness.provider.card(Fixture.ref, context: OperationContext()).availableActions == [
                .lock, .showDetails,
            ])
    }

    @Test("tokenizations: wallet, status, dpanRef, walletId")
    func tokenizations() async throws {
        let list = #"""
            ,"tokenizations":{"mobileWallets":[
              {"dpanRef":"DAPLMC0001","walletType":"APPLE_PAY","status":"COMPLETED"},
              {"dpanRef":"DGOOG0002","walletId":"NMZlGi8","walletType":"GOOGLE_PAY","status":"INITIATED"},
              {"walletType":"SAMSUNG_PAY","status":"WEIRD"},
              {"walletType":"OTHER"}]}
            """#
        let harness = try Harness.scripted([.json(200, Fixture.cardJSON(extra: list))])
        let tokens = try await harness.provider.card(Fixture.ref, context: OperationContext()).walletTokens
        try #require(tokens.count == 4)
        #expect(tokens[0].wallet == .applePay)
        #expect(tokens[0].status == .active)
        #expect(tokens[0].providerStatus == "COMPLETED")
        #expect(tokens[0].deviceAccountReference == "DAPLMC0001")
        #expect(tokens[0].id == "DAPLMC0001")
        #expect(tokens[0].network == .mastercard)
        #expect(tokens[0].lastFour == "7009")
        #expect(tokens[1].wallet == .googlePay)
        #expect(tokens[1].status == .requested)
        #expect(tokens[1].walletID == "NMZlGi8")
        #expect(tokens[2].wallet == .samsungPay)
        #expect(tokens[2].status == .unknown)
        #expect(tokens[3].wallet == nil)
    }

    @Test("tokenizations as a bare array")
    func tokenizationArray() async throws {
        let harness = try Harness.scripted([
            .json(
                200,
                Fixture.cardJSON(
                    extra: #","tokenizations":[{"dpanRef":"D1","walletType":"APPLE_PAY","status":"COMPLETED"}]"#))
        ])
        #expect(
            try await harness.provider.card(Fixture.ref, context: OperationContext()).walletTokens.map(\.id) == ["D1"])
    }

    @Test("a card without cardId or status is an invalid response", arguments: ["cardId", "status"])
    func missingRequired(_ field: String) async throws {
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(Fixture.cardJSON().utf8)) as? [String: Any])
        object.removeValue(forKey: field)
        let harness = try Harness.scripted([
            .response(status: 200, body: try JSONSerialization.data(withJSONObject: object))
        ])
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: OperationContext()) }
        #expect(error?.code == .invalidResponse)
        #expect(error?.message.contains(field) == true)
        #expect(error?.mayHaveReachedProvider == true)
    }

    @Test("a body that is not JSON is an invalid response")
    func notJSON() async throws {
        let harness = try Harness.scripted([.response(status: 200, body: Data("<html>".utf8))])
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: OperationContext()) }
        #expect(error?.code == .invalidResponse)
    }

    @Test("list: cards and paging meta")
    func listPaging() async throws {
        let body =
            #"{"cards":[\#(Fixture.cardJSON()),\#(Fixture.cardJSON(status: "LOCKED"))],"meta":{"numberOfRecords":5,"limit":2,"page":2}}"#
        let harness = try Harness.scripted([.json(200, body)])
        let page = try await harness.provider.listCards(
            CardQuery(customer: Fixture.customer, limit: 2, offset: 2), context: OperationContext())
        #expect(page.cards.map(\.status) == [.active, .locked])
        #expect(page.total == 5)
        #expect(page.limit == 2)
        #expect(page.page == 2)
        #expect(page.offset == 2)
        #expect(page.hasMore)
    }

    @Test("list without meta")
    func listWithoutMeta() async throws {
        let harness = try Harness.scripted([.json(200, #"{"cards":[]}"#)])
        let page = try await harness.provider.listCards(
            CardQuery(customer: Fixture.customer), context: OperationContext())
        #expect(page.cards.isEmpty)
        #expect(page.total == nil)
        #expect(!page.hasMore)
    }

    @Test("list without cards is an invalid response")
    func listWithoutCards() async throws {
        let harness = try Harness.scripted([.json(200, #"{"meta":{"numberOfRecords":0}}"#)])
        let error = await gatewayError {
            _ = try await harness.provider.listCards(CardQuery(customer: Fixture.customer), context: OperationContext())
        }
        #expect(error?.code == .invalidResponse)
    }

    @Test("programs: every field, and the default allowableCards")
    func programs() async throws {
        let body = #"""
            {"programs":[
              {"name":"SKRILL-VIRTUAL-MC-EEA","cardType":"VIRTUAL","scheme":"MC","currencies":["EUR","BGN"],"allowableCards":3},
              {"name":"SKRILL-PHYSICAL-VISA-EEA","cardType":"PHYSICAL","scheme":"VISA","currencies":["EUR"],"isDigital":true}]}
            """#
        let harness = try Harness.scripted([.json(200, body)])
        let programs = try await harness.provider.programs(customer: Fixture.customer, context: OperationContext())
        #expect(
            programs == [
                CardProgram(
                    name: "SKRILL-VIRTUAL-MC-EEA", type: .virtual, scheme: .mastercard, currencies: ["EUR", "BGN"],
                    allowableCards: 3),
                CardProgram(
                    name: "SKRILL-PHYSICAL-VISA-EEA", type: .physical, scheme: .visa, currencies: ["EUR"],
                    allowableCards: 1, isDigital: true),
            ])
    }

    static let activation = Data([0x01, 0x02, 0x03, 0xFF])
    static let passData = Data((0..<64).map { UInt8($0) })
    static let ephemeral = Data([0x04] + (1...64).map { UInt8($0) })

    static func appleRequest() -> ProvisioningRequest {
        ProvisioningRequest(
            card: Fixture.ref, wallet: .applePay,
            input: .applePay(
                ApplePayProvisioningInput(
                    certificates: [Data([0x30, 0x82, 0x01]), Data([0x30, 0x82, 0x02])], nonce: Data([0xAB, 0xCD]),
                    nonceSignature: Data([0x99, 0x00])
                )))
    }

    @Test(
        "Apple Pay tokenization → ApplePayPayload (Base64 decoded)",
        arguments: [
            ("CARD_NETWORK_VISA", CardScheme.visa), ("CARD_NETWORK_MASTERCARD", .mastercard),
            ("CARD_NETWORK_OTHER", .unknown),
        ])
    func appleTokenization(_ network: String, _ scheme: CardScheme) async throws {
        let body = #"""
            {"activationData":"\#(Self.activation.base64EncodedString())","encryptedPassData":"\#(Self.passData.base64EncodedString())",\#
            "ephemeralPublicKey":"\#(Self.ephemeral.base64EncodedString())","cardNetwork":"\#(network)","tokenProvider":"TOKEN_PROVIDER_VISA",\#
            "customer":{"name":"Jane Doe","city":"Sofia"},"cardLastDigits":"7009"}
            """#
        let harness = try Harness.scripted([.json(201, body)])
        let response = try await harness.provider.provision(Self.appleRequest(), context: OperationContext())
        guard let payload = response.applePay else { Issue.record("expected an Apple Pay payload"); return }
        #expect(payload.activationData.revealedBytes == Self.activation)
        #expect(payload.encryptedPassData.revealedBytes == Self.passData)
        #expect(payload.ephemeralPublicKey.revealedBytes == Self.ephemeral)
        #expect(payload.network == scheme)
        #expect(payload.tokenProvider == "TOKEN_PROVIDER_VISA")
    }

    @Test(
        "Apple Pay tokenization missing a blob is an invalid response",
        arguments: ["activationData", "encryptedPassData", "ephemeralPublicKey"])
    func appleMissing(_ field: String) async throws {
        var object: [String: Any] = [
            "activationData": Self.activation.base64EncodedString(),
            "encryptedPassData": Self.passData.base64EncodedString(),
            "ephemeralPublicKey": Self.ephemeral.base64EncodedString(), "cardNetwork": "CARD_NETWORK_VISA",
            "tokenProvider": "TOKEN_PROVIDER_VISA",
        ]
        object.removeValue(forKey: field)
        let harness = try Harness.scripted([
            .response(status: 201, body: try JSONSerialization.data(withJSONObject: object))
        ])
        let error = await gatewayError {
            _ = try await harness.provider.provision(Self.appleRequest(), context: OperationContext())
        }
        #expect(error?.code == .invalidResponse)
        #expect(error?.message.contains(field) == true)
    }

    @Test("Apple Pay tokenization with a non-Base64 blob is an invalid response")
    func appleNotBase64() async throws {
        let body =
            #"{"activationData":"***","encryptedPassData":"AAAA","ephemeralPublicKey":"AAAA","cardNetwork":"CARD_NETWORK_VISA","tokenProvider":"TOKEN_PROVIDER_VISA"}"#
        let harness = try Harness.scripted([.json(201, body)])
        let error = await gatewayError {
            _ = try await harness.provider.provision(Self.appleRequest(), context: OperationContext())
        }
        #expect(error?.code == .invalidResponse)
    }

    @Test(
        "tokenization without cardNetwork or tokenProvider is an invalid response",
        arguments: ["cardNetwork", "tokenProvider"])
    func tokenizationRequired(_ field: String) async throws {
        var object: [String: Any] = [
            "opaquePaymentCard": "AQID", "cardNetwork": "CARD_NETWORK_MASTERCARD",
            "tokenProvider": "TOKEN_PROVIDER_MASTERCARD",
        ]
        object.removeValue(forKey: field)
        let harness = try Harness.scripted([
            .response(status: 201, body: try JSONSerialization.data(withJSONObject: object))
        ])
        let request = ProvisioningRequest(
            card: Fixture.ref, wallet: .googlePay,
            input: .googlePay(.init(clientDeviceID: "dev", clientWalletAccountID: "acct")))
        let error = await gatewayError {
            _ = try await harness.provider.provision(request, context: OperationContext())
        }
        #expect(error?.code == .invalidResponse)
        #expect(error?.message.contains(field) == true)
    }

    @Test(
        "Google Pay tokenization → GooglePayPayload, the opaque payment card passed as-is (its UTF-8 bytes, not decoded)"
    )
    func googleTokenization() async throws {
        // Not Base64 on purpose: Paysafe says to pass the value as it is, so nothing may try to decode it.
        let opaqueText = "eyJvcGMiOiJ2MSJ9.opaque~card_value-1"
        let opaque = Data(opaqueText.utf8)
        let body =
            #"{"opaquePaymentCard":"\#(opaqueText)","cardNetwork":"CARD_NETWORK_MASTERCARD","tokenProvider":"TOKEN_PROVIDER_MASTERCARD","cardLastDigits":"7009"}"#
        let harness = try Harness.scripted([.json(201, body)])
        let request = ProvisioningRequest(
            card: Fixture.ref, wallet: .googlePay,
            input: .googlePay(.init(clientDeviceID: "dev", clientWalletAccountID: "acct")))
        let response = try await harness.provider.provision(request, context: OperationContext())
        guard let payload = response.googlePay else { Issue.record("expected a Google Pay payload"); return }
        #expect(payload.opaquePaymentCard.revealedBytes == opaque)
        #expect(payload.network == .mastercard)
        #expect(payload.tokenProvider == "TOKEN_PROVIDER_MASTERCARD")
        #expect(payload.lastFour == "7009")
    }

    @Test("Google Pay tokenization without opaquePaymentCard is an invalid response")
    func googleMissing() async throws {
        let harness = try Harness.scripted([
            .json(201, #"{"cardNetwork":"CARD_NETWORK_VISA","tokenProvider":"TOKEN_PROVIDER_VISA"}"#)
        ])
        let request = ProvisioningRequest(
            card: Fixture.ref, wallet: .googlePay,
            input: .googlePay(.init(clientDeviceID: "dev", clientWalletAccountID: "acct")))
        let error = await gatewayError {
            _ = try await harness.provider.provision(request, context: OperationContext())
        }
        #expect(error?.code == .invalidResponse)
    }

    @Test(
        "offer: eligibility by status",
        arguments: [
            ("ACTIVE", true), ("DIGITAL", true), ("ISSUED", false), ("LOCKED", false), ("SUSPENDED", false),
            ("CANCELLED", false),
            ("EXPIRED", false), ("PENDING", false), ("APPLIED", false), ("REJECTED", false),
        ])
    func offerEligibility(_ status: String, _ eligible: Bool) async throws {
        let harness = try Harness.scripted([.json(200, Fixture.cardJSON(status: status))])
        let offer = try await harness.provider.offer(for: Fixture.ref, wallet: .applePay, context: OperationContext())
        #expect(offer.eligible == eligible)
        #expect(offer.flow == .encryptedPayload)
        #expect(offer.ineligibleReason?.code == (eligible ? nil : "cardNotActive"))
    }

    @Test("offer: network, last four, expiry and the wallet's existing tokens")
    func offerDetails() async throws {
        let extra =
            #","tokenizations":{"mobileWallets":[{"dpanRef":"DAPL1","walletType":"APPLE_PAY","status":"COMPLETED"},{"dpanRef":"DGOO1","walletType":"GOOGLE_PAY","status":"COMPLETED"}]}"#
        let harness = try Harness.scripted([.json(200, Fixture.cardJSON(scheme: "VISA", extra: extra))])
        let offer = try await harness.provider.offer(for: Fixture.ref, wallet: .applePay, context: OperationContext())
        #expect(offer.eligible)
        #expect(offer.network == .visa)
        #expect(offer.lastFour == "7009")
        #expect(offer.expiry == CardExpiry(month: 3, year: 2028))
        #expect(offer.existingTokens.map(\.id) == ["DAPL1"])
        #expect(offer.existingTokens.first?.status == .active)
    }

    @Test("offer for Samsung Pay is not supported")
    func offerSamsung() async throws {
        let harness = try Harness.scripted([.json(200, Fixture.cardJSON())])
        let offer = try await harness.provider.offer(for: Fixture.ref, wallet: .samsungPay, context: OperationContext())
        #expect(!offer.eligible)
        #expect(offer.ineligibleReason?.code == "walletNotSupported")
        #expect(offer.flow == nil)
    }

    @Test("secure details: URL as a Secret, expiry parsed")
    func secureDetails() async throws {
        let harness = try Harness.scripted([
            .json(200, Fixture.cardJSON()),
            .json(200, #"{"url":"https://cards.paysafe.example/view/abc123","expirationTime":"2025-06-15T15:10:00Z"}"#),
        ])
        let access = try await harness.provider.secureDetailsAccess(for: Fixture.ref, context: OperationContext())
        #expect(access.url.revealedValue == "https://cards.paysafe.example/view/abc123")
        #expect(access.expires == PaysafeTestDates.iso("2025-06-15T15:10:00Z"))
        #expect(!access.description.contains("abc123"))
        #expect(!"\(access)".contains("paysafe.example"))
    }

    @Test("secure details with expiresIn seconds")
    func secureDetailsExpiresIn() async throws {
        let harness = try Harness.scripted([
            .json(200, Fixture.cardJSON()), .json(200, #"{"url":"https://x.example/v","expiresIn":120}"#),
        ])
        let access = try await harness.provider.secureDetailsAccess(for: Fixture.ref, context: OperationContext())
        #expect(access.expires == harness.clock.now().addingTimeInterval(120))
    }

    @Test("secure details without a URL is an invalid response")
    func secureDetailsMissing() async throws {
        let harness = try Harness.scripted([.json(200, Fixture.cardJSON()), .json(200, #"{"expiresIn":120}"#)])
        let error = await gatewayError {
            _ = try await harness.provider.secureDetailsAccess(for: Fixture.ref, context: OperationContext())
        }
        #expect(error?.code == .invalidResponse)
    }

    @Test("the transition table (inferred)")
    func transitions() {
        let allowed: Set<String> = [
            "ACTIVE>LOCKED", "ACTIVE>CANCELLED", "LOCKED>ACTIVE", "LOCKED>CANCELLED", "DIGITAL>ACTIVE",
            "DIGITAL>CANCELLED", "DIGITAL>LOCKED",
        ]
        let all = [
            "ACTIVE", "ISSUED", "DIGITAL", "PENDING", "APPLIED", "LOCKED", "SUSPENDED", "CANCELLED", "EXPIRED",
            "REJECTED",
        ]
        for from in all {
            for to in all {
                #expect(
                    PaysafeCardTransitions.isAllowed(from: from, to: to) == allowed.contains("\(from)>\(to)"),
                    "\(from) → \(to)")
            }
        }
    }
}

enum PaysafeTestDates {
    static func iso(_ text: String) -> Date? { ISO8601DateFormatter().date(from: text) }
}
