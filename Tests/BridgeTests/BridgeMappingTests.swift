@_spi(AdapterSupport) import CardGateway
@_spi(AdapterSupport) @testable import CardGatewayBridge
@_spi(AdapterSupport) import CardGatewayTesting
import Foundation
import HTTPTypes
import Testing
import SharedTestSupport

@Suite("Bridge adapter: configuration", .timeLimit(.minutes(5)))
struct BridgeConfigurationTests {
    @Test func factoryDeclaresKindEnvironmentsCredentialsAndOptions() throws {
        let factory = ProviderFactory.bridge
        #expect(factory.kind == .bridge)
        #expect(factory.kind.name == "bridge")
        #expect(factory.environments["sandbox"]?.absoluteString == "https://api.sandbox.bridge.xyz/v0")
        #expect(factory.environments["live"]?.absoluteString == "https://api.bridge.xyz/v0")
        #expect(factory.environments["production"]?.absoluteString == "https://api.bridge.xyz/v0")
        #expect(factory.environments.count == 3)
        #expect(factory.credentials.map(\.name) == ["apiKey", "webhookPublicKey"])
        #expect(factory.credentials.map(\.required) == [true, false])
        #expect(factory.options.map(\.name) == ["certificateEncoding", "cardChain"])
        #expect(Set(factory.options[0].allowedValues) == ["hex", "base64"])
        #expect(
            factory.descriptor.capabilities == [
                .cardLookup, .cardListing, .cardIssuance, .cardLocking, .walletProvisioning, .cardDetailsReveal,
                .pinChange, .webhooks,
            ])
        #expect(factory.descriptor.provisioningFlows == [.applePay: .encryptedPayload, .googlePay: .encryptedPayload])
        #expect(factory.descriptor.wallets == [.applePay, .googlePay])
        #expect(
            factory.descriptor.supports(.lockCard) && factory.descriptor.supports(.createCard)
                && factory.descriptor.supports(.listCards))
        #expect(!factory.descriptor.supports(.cancelCard))
        #expect(!factory.descriptor.supports(.charge))
    }

    private func load(_ options: String) throws -> GatewayConfiguration {
        let json = """
            {"providers":{"bridge-main":{"kind":"bridge","environment":"sandbox",
              "credentials":{"apiKey":"literal:\(BridgeFixtures.apiKey)"}\(options)}},
             "routes":[{"when":{"issuer":"bridge"},"use":"bridge-main"}]}
            """
        return try GatewayConfiguration.load(from: Data(json.utf8), registry: ProviderRegistry([.bridge]))
    }

    @Test func configurationLoadsWithDefaultAndExplicitEncoding() async throws {
        let plain = try load("")
        #expect(plain.providers["bridge-main"]?.baseURL.absoluteString == "https://api.sandbox.bridge.xyz/v0")
        let gateway = try CardGateway(
            configuration: plain, registry: ProviderRegistry([.bridge]), transport: ScriptedTransport([]))
        let provider = try #require(gateway.instance(named: "bridge-main")?.provider as? BridgeProvider)
        #expect(provider.certificateEncoding == .base64)

        let hex = try load(#","options":{"certificateEncoding":"hex"}"#)
        let hexGateway = try CardGateway(
            configuration: hex, registry: ProviderRegistry([.bridge]), transport: ScriptedTransport([]))
        let hexProvider = try #require(hexGateway.instance(named: "bridge-main")?.provider as? BridgeProvider)
        #expect(hexProvider.certificateEncoding == .hex)
    }

    @Test func configurationRefusesUnknownEncodingWithItsPath() {
        #expect {
            _ = try load(#","options":{"certificateEncoding":"base32"}"#)
        } throws: { error in
            guard let error = error as? CardGatewayError else { return false }
            return error.configurationProblems.contains {
                $0.path == "providers.bridge-main.options.certificateEncoding"
            }
        }
    }

    @Test func invalidWebhookKeyIsAConfigurationError() throws {
        let transport = ScriptedTransport([])
        let error = gatewayError {
            _ = try BridgeFixtures.provider(
                transport, webhookPublicKey: "-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----")
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("webhookPublicKey") == true)
    }

    @Test func emptyAPIKeyIsAConfigurationError() throws {
        let http = try ProviderHTTPClient.testing(
            kind: .bridge, baseURL: BridgeFixtures.baseURL, transport: ScriptedTransport([]))
        let error = gatewayError { _ = try BridgeProvider(http: http, apiKey: Secret("")) }
        #expect(error?.code == .invalidConfiguration)
    }
}

@Suite("Bridge adapter: card accounts", .timeLimit(.minutes(5)))
struct BridgeCardAccountTests {
    @Test func cardRequestOnTheWire() async throws {
        let transport = ScriptedTransport([.json(200, BridgeFixtures.cardAccountJSON())])
        let provider = try BridgeFixtures.provider(transport)
        _ = try await provider.card(BridgeFixtures.ref, context: OperationContext())
        let request = try #require(transport.requests.first)
        #expect(transport.requestCount == 1)
        #expect(request.method == "GET")
        #expect(request.path == "/v0/customers/\(BridgeFixtures.customer)/card_accounts/\(BridgeFixtures.cardAccount)")
        #expect(request.request.authority == "api.sandbox.bridge.xyz")
        #expect(request.request.scheme == "https")
        #expect(request.header("Api-Key") == BridgeFixtures.apiKey)
        #expect(request.header("Idempotency-Key") == nil)
        #expect(request.header("Authorization") == nil)
        #expect(request.body == nil)
    }

    @Test func cardAccountMapsEveryField() async throws {
        let transport = ScriptedTransport([.json(200, BridgeFixtures.cardAccountJSON())])
        let card = try await BridgeFixtures.provider(transport).card(BridgeFixtures.ref, context: OperationContext())
        #expect(card.ref == BridgeFixtures.ref)
        #expect(card.status == .active)
        #expect(card.providerStatus == "active")
        #expect(card.statusReason == nil)
        #expect(card.cardholderName == "Ada King Lovelace")
        #expect(card.lastFour == "1264")
        #expect(card.expiry == CardExpiry(month: 10, year: 2029))
        #expect(card.bin == "44325280")
        #expect(card.scheme == .visa)
        #expect(card.walletTokens.isEmpty)
        #expect(card.availableActions == [.lock])
    }

    @Test(arguments: [
        ("active", "[]", CardStatus.active, nil as String?),
        ("pending", "[]", .pending, nil),
        ("inactive", "[]", .inactive, nil),
        ("frozen", #"[{"initiator":"customer","reason":"lost_or_stolen"}]"#, .locked, "lost_or_stolen"),
        ("frozen", #"[{"initiator":"developer","reason":"suspected_fraud"}]"#, .suspended, "suspected_fraud"),
        ("frozen", #"[{"initiator":"bridge","reason":"other"}]"#, .suspended, "other"),
        (
            "frozen",
            #"[{"initiator":"customer","reason":"planned_inactivity"},{"initiator":"developer","reason":"suspicious_activity"}]"#,
            .suspended, "planned_inactivity, suspicious_activity"
        ),
        (
            "frozen",
            #"[{"initiator":"customer","reason":"lost_or_stolen"},{"initiator":"customer","reason":"other"}]"#, .locked,
            "lost_or_stolen, other"
        ),
        ("frozen", "[]", .suspended, nil),
        ("closed_for_good", "[]", .unknown, nil),
    ])
    func statusMapping(providerStatus: String, freezes: String, expected: CardStatus, reason: String?) async throws {
        let transport = ScriptedTransport([
            .json(200, BridgeFixtures.cardAccountJSON(status: providerStatus, freezes: freezes))
        ])
        let card = try await BridgeFixtures.provider(transport).card(BridgeFixtures.ref, context: OperationContext())
        #expect(card.status == expected)
        #expect(card.providerStatus == providerStatus)
        #expect(card.statusReason == reason)
    }

    @Test(
        "a freeze Bridge placed (initiator bridge, or one Bridge adds later) is a lock nobody can lift through the API: no unlock offered"
    )
    func bridgeFreezeOffersNoUnlock() async throws {
        for (freezes, actions) in [
            (#"[{"initiator":"bridge","reason":"other"}]"#, [CardAction]()),
            (#"[{"initiator":"customer","reason":"other"},{"initiator":"bridge","reason":"suspected_fraud"}]"#, []),
            (#"[{"initiator":"compliance_team","reason":"other"}]"#, []),
            (#"[{"initiator":"developer","reason":"other"}]"#, [.unlock]),
            (#"[{"initiator":"customer","reason":"other"}]"#, [.unlock]),
        ] {
            let transport = ScriptedTransport([
                .json(200, BridgeFixtures.cardAccountJSON(status: "frozen", freezes: freezes))
            ])
            let card = try await BridgeFixtures.provider(transport).card(
                BridgeFixtures.ref, context: OperationContext())
            #expect(card.availableActions == actions, "\(freezes)")
            #expect(
                card.status
                    == (freezes.contains("bridge") || freezes.contains("compliance") || freezes.contains("developer")
                        ? .suspended : .locked))
        }
    }

    @Test func statusReasonIsKeptForUnfrozenAccounts() async throws {
        let transport = ScriptedTransport([
            .json(200, BridgeFixtures.cardAccountJSON(status: "inactive", statusReason: "awaiting activation"))
        ])
        let card = try await BridgeFixtures.provider(transport).card(BridgeFixtures.ref, context: OperationContext())
        #expect(card.statusReason == "awaiting activation")
    }

    @Test(arguments: [
        ("44325280", CardScheme.visa), ("41111111", .visa), ("51234567", .mastercard), ("55000000", .mastercard),
        ("22210000", .mastercard), ("27209999", .mastercard), ("27210000", .unknown), ("37000000", .amex),
        ("60110000", .discover), ("99999999", .unknown), ("", .unknown),
    ])
    func schemeFromBIN(bin: String, scheme: CardScheme) async throws {
        let transport = ScriptedTransport([.json(200, BridgeFixtures.cardAccountJSON(bin: bin))])
        let card = try await BridgeFixtures.provider(transport).card(BridgeFixtures.ref, context: OperationContext())
        #expect(card.scheme == scheme)
    }

    @Test(arguments: [
        ("10/29", CardExpiry(month: 10, year: 2029) as CardExpiry?), ("01/30", CardExpiry(month: 1, year: 2030)),
        ("12/2031", CardExpiry(month: 12, year: 2031)), ("13/29", nil), ("1029", nil), ("", nil), ("ab/cd", nil),
    ])
    func expiryParsing(text: String, expected: CardExpiry?) async throws {
        let transport = ScriptedTransport([.json(200, BridgeFixtures.cardAccountJSON(expiry: text))])
        let card = try await BridgeFixtures.provider(transport).card(BridgeFixtures.ref, context: OperationContext())
        #expect(card.expiry == expected)
    }

    @Test func minimalAccountDecodes() async throws {
        let transport = ScriptedTransport([.json(200, #"{"id":"abc","status":"pending"}"#)])
        let card = try await BridgeFixtures.provider(transport).card(BridgeFixtures.ref, context: OperationContext())
        #expect(card.ref == CardRef(id: "abc", customer: BridgeFixtures.customer))
        #expect(card.status == .pending)
        #expect(card.lastFour == nil)
        #expect(card.scheme == .unknown)
        #expect(card.cardholderName == nil)
    }

    @Test(arguments: [
        #"{"status":"active"}"#, #"{"id":"abc"}"#, #"{"id":"","status":"active"}"#, "not json", "[1,2]",
        #"{"id":5,"status":"active"}"#,
    ])
    func invalidAccountsAreInvalidResponses(body: String) async throws {
        let transport = ScriptedTransport([.json(200, body, headers: ["X-Request-Id": "req-77"])])
        let provider = try BridgeFixtures.provider(transport)
        let error = await gatewayError { _ = try await provider.card(BridgeFixtures.ref, context: OperationContext()) }
        #expect(error?.code == .invalidResponse)
        #expect(error?.httpStatus == 200)
        #expect(error?.requestID == "req-77")
    }

    @Test func everyOperationRequiresTheCustomer() async throws {
        let transport = ScriptedTransport([])
        let provider = try BridgeFixtures.provider(transport)
        let noCustomer = CardRef(id: BridgeFixtures.cardAccount)
        let context = OperationContext()
        let errors: [CardGatewayError?] = [
            await gatewayError { _ = try await provider.card(noCustomer, context: context) },
            await gatewayError { _ = try await provider.offer(for: noCustomer, wallet: .applePay, context: context) },
            await gatewayError {
                _ = try await provider.provision(
                    ProvisioningRequest(card: noCustomer, wallet: .applePay, input: BridgeFixtures.appleInput),
                    context: context)
            },
            await gatewayError {
                _ = try await provider.freeze(card: noCustomer, reason: .lostOrStolen, context: context)
            },
            await gatewayError { _ = try await provider.unfreeze(card: noCustomer, context: context) },
            await gatewayError {
                try await provider.confirm(
                    ProvisioningConfirmation(card: noCustomer, wallet: .applePay, deviceAccountReference: "dar"),
                    context: context)
            },
        ]
        for error in errors {
            #expect(error?.code == .invalidRequest)
            #expect(error?.fieldErrors.map(\.field) == ["card.customer"])
        }
        #expect(transport.requestCount == 0)
    }

    @Test func idsAreCheckedAgainstTheSpecLength() async throws {
        let transport = ScriptedTransport([])
        let provider = try BridgeFixtures.provider(transport)
        let long = String(repeating: "a", count: 43)
        let error = await gatewayError {
            _ = try await provider.card(CardRef(id: long, customer: ""), context: OperationContext())
        }
        #expect(error?.fieldErrors.map(\.field) == ["card.customer", "card.id"])
        let dots = await gatewayError {
            _ = try await provider.card(CardRef(id: "..", customer: "."), context: OperationContext())
        }
        #expect(
            dots?.fieldErrors.map(\.field) == ["card.customer", "card.id"], "dot segments would name another resource")
        #expect(transport.requestCount == 0)
    }

    @Test func idsArePathEscaped() async throws {
        let transport = ScriptedTransport([.json(200, #"{"id":"a:b","status":"active"}"#)])
        _ = try await BridgeFixtures.provider(transport).card(
            CardRef(id: "a:b", customer: "c[1]"), context: OperationContext())
        #expect(transport.requests.first?.path == "/v0/customers/c%5B1%5D/card_accounts/a%3Ab")
    }

    @Test func idsThatChangeThePathAreRefused() async throws {
        let transport = ScriptedTransport([])
        let error = await gatewayError {
            _ = try await BridgeFixtures.provider(transport).card(
                CardRef(id: "a/b", customer: "c d"), context: OperationContext())
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.fieldErrors.map(\.field) == ["card.customer", "card.id"])
        #expect(transport.requestCount == 0)
    }
}

@Suite("Bridge adapter: card numbers' networks and expiry dates, edge texts", .timeLimit(.minutes(5)))
struct BridgeSchemeAndExpiryTests {
    @Test("the network from the first digits; anything but ASCII digits, or fewer than four, is unknown")
    func schemes() {
        let cases: [(String?, CardScheme)] = [
            (nil, .unknown), ("", .unknown), ("411", .unknown), ("4111", .visa), ("34001234", .amex),
            ("65001234", .discover),
            ("22201234", .unknown), ("22211234", .mastercard), ("4111 1111", .unknown), ("411a", .unknown),
            ("١١١١", .unknown), ("4\u{301}111", .unknown), ("+4111", .unknown),
        ]
        for (bin, scheme) in cases { #expect(BridgeMapping.scheme(bin: bin) == scheme, "\(String(reflecting: bin))") }
    }

    @Test("an expiry is two characters, a slash, then two or four, each an integer, the month 1 to 12")
    func expiries() {
        let cases: [(String?, CardExpiry?)] = [
            (nil, nil), ("", nil), ("12/25", CardExpiry(month: 12, year: 25)),
            ("01/2030", CardExpiry(month: 1, year: 2030)),
            ("-1/25", nil), ("1/2/3", nil), ("12//5", nil), ("13/25", nil), ("00/25", nil), ("1/25", nil),
            ("12/025", nil),
            ("12/\u{301}25", nil), ("1\u{301}/25", nil), ("١٢/25", nil), (" 1/25", nil), ("12/25 ", nil),
        ]
        for (text, expiry) in cases { #expect(BridgeMapping.expiry(text) == expiry, "\(String(reflecting: text))") }
    }
}

@Suite("Bridge adapter: cardholder names", .timeLimit(.minutes(5)))
struct BridgeCardholderNameTests {
    @Test("names are trimmed of CharacterSet.whitespaces and joined by a space")
    func trimmedAndJoined() {
        #expect(
            BridgeMapping.cardholderName(.init(firstName: " Jenny\t", middleName: "\u{3000}", lastName: "Rosen "))
                == "Jenny Rosen")
        #expect(BridgeMapping.cardholderName(.init(firstName: " ", middleName: nil, lastName: "\t")) == nil)
        #expect(BridgeMapping.cardholderName(nil) == nil)
        #expect(
            BridgeMapping.cardholderName(
                .init(firstName: "\u{00A0}Jenny\u{2003}", middleName: "van der", lastName: "O'Brien"))
                == "Jenny van der O'Brien")
        // Line breaks are not in the set: they stay.
        #expect(BridgeMapping.cardholderName(.init(firstName: "Jenny\n", middleName: nil, lastName: nil)) == "Jenny\n")
    }
}

@Suite("Bridge adapter: offers", .timeLimit(.minutes(5)))
struct BridgeOfferTests {
    @Test func activeCardIsEligible() async throws {
        let transport = ScriptedTransport([.json(200, BridgeFixtures.cardAccountJSON())])
        let offer = try await BridgeFixtures.provider(transport).offer(
            for: BridgeFixtures.ref, wallet: .applePay, context: OperationContext())
        #expect(offer.eligible)
        #expect(offer.ineligibleReason == nil)
        #expect(offer.flow == .encryptedPayload)
        #expect(offer.wallet == .applePay)
        #expect(offer.card == BridgeFixtures.ref)
        #expect(offer.cardholderName == "Ada King Lovelace")
        #expect(offer.lastFour == "1264")
        #expect(offer.network == .visa)
        #expect(offer.expiry == CardExpiry(month: 10, year: 2029))
        #expect(offer.primaryAccountIdentifier == nil)
        #expect(offer.existingTokens.isEmpty)
        #expect(transport.requests.first?.method == "GET")
    }

    @Test(arguments: ["pending", "inactive", "frozen"])
    func onlyActiveAccountsAreEligible(status: String) async throws {
        let transport = ScriptedTransport([
            .json(
                200,
                BridgeFixtures.cardAccountJSON(status: status, freezes: #"[{"initiator":"customer","reason":"other"}]"#)
            )
        ])
        let offer = try await BridgeFixtures.provider(transport).offer(
            for: BridgeFixtures.ref, wallet: .googlePay, context: OperationContext())
        #expect(!offer.eligible)
        #expect(offer.ineligibleReason?.code == "cardNotActive")
        #expect(offer.ineligibleReason?.message.contains(status) == true)
        if status == "frozen" {
            #expect(offer.ineligibleReason?.message.contains("(other)") == true, "a frozen account says why")
        }
        #expect(offer.flow == .encryptedPayload)
    }

    @Test func samsungPayIsNotSupported() async throws {
        let transport = ScriptedTransport([.json(200, BridgeFixtures.cardAccountJSON())])
        let offer = try await BridgeFixtures.provider(transport).offer(
            for: BridgeFixtures.ref, wallet: .samsungPay, context: OperationContext())
        #expect(!offer.eligible)
        #expect(offer.ineligibleReason?.code == "walletNotSupported")
        #expect(offer.flow == nil)
    }
}

@Suite("Bridge adapter: freezes", .timeLimit(.minutes(5)))
struct BridgeFreezeTests {
    @Test func freezeOnTheWire() async throws {
        let transport = ScriptedTransport([
            .json(
                200,
                """
                {"card_account_id":"\(BridgeFixtures.cardAccount)","initiator":"developer","reason":"lost_or_stolen",\
                "starting_at":"2026-01-02T03:04:05.000Z","created_at":"2026-01-02T03:04:05Z","status":"freeze_created"}
                """)
        ])
        let result = try await BridgeFixtures.provider(transport).freeze(
            card: BridgeFixtures.ref, reason: .lostOrStolen, context: OperationContext())
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(
            request.path
                == "/v0/customers/\(BridgeFixtures.customer)/card_accounts/\(BridgeFixtures.cardAccount)/freeze")
        #expect(request.bodyText == #"{"initiator":"developer","reason":"lost_or_stolen"}"#)
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("Api-Key") == BridgeFixtures.apiKey)
        let key = try #require(request.header("Idempotency-Key"))
        #expect(UUID(uuidString: key) != nil)
        #expect(result.status == "freeze_created")
        #expect(result.initiator == "developer")
        #expect(result.reason == "lost_or_stolen")
        #expect(result.card == BridgeFixtures.ref)
        #expect(result.startingAt == Date(timeIntervalSince1970: 1_767_323_045))
        #expect(result.createdAt == Date(timeIntervalSince1970: 1_767_323_045))
        #expect(result.endingAt == nil)
    }

    @Test("one operation key used for different freezes gives different keys; the same freeze, the same key")
    func freezeKeysFollowTheParameters() async throws {
        let answer = """
            {"card_account_id":"\(BridgeFixtures.cardAccount)","initiator":"developer","reason":"lost_or_stolen",\
            "starting_at":"2026-01-02T03:04:05.000Z","created_at":"2026-01-02T03:04:05Z","status":"freeze_created"}
            """
        let transport = ScriptedTransport(handler: { _ in .json(200, answer) })
        let provider = try BridgeFixtures.provider(transport)
        let context = OperationContext(idempotencyKey: "support-ticket-9")
        _ = try await provider.freeze(card: BridgeFixtures.ref, reason: .lostOrStolen, context: context)
        _ = try await provider.freeze(card: BridgeFixtures.ref, reason: .lostOrStolen, context: context)
        _ = try await provider.freeze(
            card: BridgeFixtures.ref, reason: .lostOrStolen, reasonDetail: "left on a train", context: context)
        _ = try await provider.unfreeze(card: BridgeFixtures.ref, initiator: .developer, context: context)
        _ = try await provider.unfreeze(card: BridgeFixtures.ref, initiator: .customer, context: context)
        let keys = transport.requests.compactMap { $0.header("Idempotency-Key") }
        #expect(keys.count == 5)
        #expect(keys[0] == keys[1])
        #expect(Set(keys).count == 4)
    }

    @Test func freezeByTheCustomerWithDetailAndEnd() async throws {
        let transport = ScriptedTransport([.json(200, #"{"status":"freeze_replaced"}"#)])
        let result = try await BridgeFixtures.provider(transport).freeze(
            card: BridgeFixtures.ref, reason: .plannedInactivity, initiator: .customer, reasonDetail: "travelling",
            endingAt: Date(timeIntervalSince1970: 1_767_323_045), context: OperationContext()
        )
        #expect(
            transport.requests.first?.bodyText
                == #"{"ending_at":"2026-01-02T03:04:05.000Z","initiator":"customer","reason":"planned_inactivity","reason_detail":"travelling"}"#
        )
        #expect(result.status == "freeze_replaced")
    }

    @Test func unfreezeOnTheWire() async throws {
        let transport = ScriptedTransport([
            .json(200, #"{"initiator":"customer","reason":"lost_or_stolen","status":"freeze_removed"}"#)
        ])
        let result = try await BridgeFixtures.provider(transport).unfreeze(
            card: BridgeFixtures.ref, initiator: .customer, context: OperationContext())
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.path.hasSuffix("/card_accounts/\(BridgeFixtures.cardAccount)/unfreeze"))
        #expect(request.bodyText == #"{"initiator":"customer"}"#)
        #expect(request.header("Idempotency-Key") != nil)
        #expect(result.status == "freeze_removed")
    }

    @Test func freezeRetriesWithTheSameKey() async throws {
        let transport = ScriptedTransport([
            .json(500, #"{"errors":[{"code":"unexpected","message":"try again"}]}"#),
            .json(200, #"{"status":"freeze_created"}"#),
        ])
        _ = try await BridgeFixtures.provider(transport).freeze(
            card: BridgeFixtures.ref, reason: .other, context: OperationContext())
        let keys = transport.requests.compactMap { $0.header("Idempotency-Key") }
        #expect(keys.count == 2)
        #expect(Set(keys).count == 1)
    }
}
