import CardGateway
import CardGatewayPaysafe
import CardGatewayTesting
import Crypto
import Foundation
import HTTPTypes
import PaysafeSimulator
import Testing

/// Paysafe's request-signing page (developer.paysafe.com/en/api-docs/embedded-wallets/request-signing/), as printed:
/// its example HMAC secret key and the signatures it gives for two bodies under that key. These are the tests'
/// authority: nothing here signs them again.
enum PaysafePage {
    /// The page's example secret, printed over six lines of 64 characters.
    static let secretLines = [
        "Y+83Kt6imrf2eQBVojCfVAx9iDNwtgN7UzZydbpqUgNq3WzgJOhiNpdAF5b9UJ4Y",
        "mf++HMgdrgClOmwfq8qItCNcVaCT/MPhMGYgiMb+oLtc2K3nmJxvPxTR6caFalI8",
        "qKr6BgX0K1tqKDka2xJZhUZXCVjBsBmKJLT/XQ0+cTSGUfLOwOF+jo0Mgm8oHYnI",
        "dOTYlA1XIDJH867WhK8iWe54SONltkRZgNxejUoygtvwdUVxKKa+Mm57RXpH6pI7",
        "qh3gkKxcwlrUJ1LhkMLxSNwr78WH4zAd/ILHfEFWORJHgNilzyqyBMZutCtPHhDI",
        "Bnzkgqfgv1eE6EcDozRT+Q==",
    ]
    static let secret = secretLines.joined()
    static let compactBody = Data(#"{"id":1,"name":"John Smith"}"#.utf8)
    static let compactSignature = "cQPmKNg51k2mAcp8y6eh2oOl0OSbDwbK+chWLuifUxU="
    static let prettyBody = Data("{\n  \"id\": 1,\n  \"name\": \"John Smith\"\n}".utf8)
    static let prettySignature = "lwjnjjixwi/ZX/IBvuH1P6ng6GLycHaUuF648jny4O0="

    /// Paysafe's scheme computed here, independently of the adapter and the simulator (Crypto's HMAC under the
    /// Base64-decoded secret), for bodies the page gives no signature for.
    static func signature(_ body: Data, secret: String = secret) -> String {
        let key = Data(base64Encoded: secret.filter { !$0.isWhitespace })!
        return Data(HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: key))).base64EncodedString()
    }
}

@Suite("Paysafe webhooks and configuration", .timeLimit(.minutes(5)))
struct PaysafeWebhookTests {
    /// A status event with the fields Paysafe publishes (`POST /prepaid/card/status/events`).
    static let body = Data(
        #"{"id":"evt-100","cardId":"f16ba382-eb42-481a-b08f-c57bdc9aae24","customerId":"cust-eu-1","oldStatus":"ACTIVE","newStatus":"LOCKED"}"#
            .utf8)

    /// `CardTokenUpdateEvent`'s example, as docs.paysafe.com/api/embedded-wallets/webhooks/schemas/cardtokenupdateevent
    /// prints it.
    static let publishedTokenEvent = Data(
        """
        {
        "id": "af5c8b52-0afd-4799-85ab-fe659a076932",
        "cardId": "af5c8b52-0afd-4799-85ab-fe659a076932",
        "customerId": "string",
        "result": "string",
        "tokenAction": "TOKEN_UNFROZEN",
        "eventId": "14450949864",
        "eventTimestamp": "2021-07-15T17:54:12Z"
        }
        """.utf8)

    static func delivery(_ body: Data = body, signature: String?) -> WebhookDelivery {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let signature { headers[HTTPField.Name("Signature")!] = signature }
        return WebhookDelivery(headers: headers, body: body)
    }

    static func signed(_ body: Data) -> WebhookDelivery { delivery(body, signature: PaysafePage.signature(body)) }

    static func provider(webhookSecret: String? = Fixture.webhookSecret) throws -> PaysafeProvider {
        try Harness.make(webhookSecret: webhookSecret) { _ in nil }.provider
    }

    // MARK: The page's vectors

    @Test(
        "the page's two signatures verify under the page's key (the bodies then are no card event)",
        arguments: [
            (PaysafePage.compactBody, PaysafePage.compactSignature),
            (PaysafePage.prettyBody, PaysafePage.prettySignature),
        ])
    func pageVectors(body: Data, signature: String) throws {
        let error = try #require(throws: CardGatewayError.self) {
            try Self.provider(webhookSecret: PaysafePage.secret).verify(
                Self.delivery(body, signature: signature), now: Date())
        }
        // Past the signature check: the body is read, and is neither of Paysafe's card events.
        #expect(error.code == .invalidResponse)
        #expect(error.message.contains("neither a card status event (newStatus) nor a card token event (tokenAction)"))
    }

    @Test(
        "the page's secret is accepted wrapped as the page prints it (line breaks, or spaces where the lines break)",
        arguments: ["\n", "\r\n", " "])
    func wrappedSecret(separator: String) throws {
        let wrapped = PaysafePage.secretLines.joined(separator: separator) + "\n"
        let error = try #require(throws: CardGatewayError.self) {
            try Self.provider(webhookSecret: wrapped).verify(
                Self.delivery(PaysafePage.compactBody, signature: PaysafePage.compactSignature), now: Date())
        }
        #expect(error.code == .invalidResponse)
    }

    @Test("each page signature belongs to its own body: swapped, both are refused")
    func swappedVectors() throws {
        let provider = try Self.provider(webhookSecret: PaysafePage.secret)
        for (body, signature) in [
            (PaysafePage.compactBody, PaysafePage.prettySignature),
            (PaysafePage.prettyBody, PaysafePage.compactSignature),
        ] {
            let error = try #require(throws: CardGatewayError.self) {
                try provider.verify(Self.delivery(body, signature: signature), now: Date())
            }
            #expect(error.code == .signatureInvalid)
        }
    }

    @Test("the page's signature under another key is refused")
    func pageVectorWrongKey() throws {
        let error = try #require(throws: CardGatewayError.self) {
            try Self.provider(webhookSecret: PaysafeSimulator.Credentials.default.webhookSecret).verify(
                Self.delivery(PaysafePage.compactBody, signature: PaysafePage.compactSignature), now: Date())
        }
        #expect(error.code == .signatureInvalid)
    }

    @Test("the page's body tampered with is refused")
    func pageVectorTampered() throws {
        let tampered = Data(#"{"id":2,"name":"John Smith"}"#.utf8)
        let error = try #require(throws: CardGatewayError.self) {
            try Self.provider(webhookSecret: PaysafePage.secret).verify(
                Self.delivery(tampered, signature: PaysafePage.compactSignature), now: Date())
        }
        #expect(error.code == .signatureInvalid)
    }

    @Test("the secret's text as the key (the old reading) does not verify the page's vector")
    func textKeyIsNotTheKey() throws {
        // A secret whose text is the page's but which is not Base64 (a character removed): refused as configuration,
        // never used as a text key.
        let error = try #require(throws: CardGatewayError.self) {
            try Self.provider(webhookSecret: String(PaysafePage.secret.dropFirst())).verify(
                Self.delivery(PaysafePage.compactBody, signature: PaysafePage.compactSignature), now: Date())
        }
        #expect(error.code == .invalidConfiguration)
    }

    @Test("hex of the page's signature is refused: Paysafe's encoding is Base64 only")
    func hexRefused() throws {
        let bytes = try #require(Data(base64Encoded: PaysafePage.compactSignature))
        for hex in [
            bytes.map { String(format: "%02x", $0) }.joined(), bytes.map { String(format: "%02X", $0) }.joined(),
        ] {
            let error = try #require(throws: CardGatewayError.self) {
                try Self.provider(webhookSecret: PaysafePage.secret).verify(
                    Self.delivery(PaysafePage.compactBody, signature: hex), now: Date())
            }
            #expect(error.code == .signatureInvalid)
        }
    }

    @Test(
        "a secret that is not Base64 is invalidConfiguration saying what to paste, never quoting it",
        arguments: ["sim-webhook-secret", "not base64!", "abc", "====", "   "])
    func secretNotBase64(secret: String) throws {
        let error = try #require(throws: CardGatewayError.self) {
            try Self.provider(webhookSecret: secret).verify(
                Self.delivery(PaysafePage.compactBody, signature: PaysafePage.compactSignature), now: Date())
        }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("credentials.webhookSecret"))
        #expect(error.message.contains("Base64"))
        if secret.count > 4 { #expect(!error.description.contains(secret)) }
    }

    // MARK: Events

    @Test("a status event gives cardStatusChanged")
    func statusEvent() throws {
        let events = try Self.provider().verify(Self.signed(Self.body), now: Date())
        #expect(events.count == 1)
        let event = try #require(events.first)
        #expect(event.id == "evt-100")
        #expect(event.providerKind == .paysafe)
        #expect(event.providerType == "prepaid.card.status")
        #expect(event.occurredAt == nil)
        #expect(
            event.event
                == .cardStatusChanged(
                    CardStatusChange(
                        card: CardRef(id: Fixture.cardID, customer: Fixture.customer), oldStatus: .active,
                        newStatus: .locked,
                        providerOldStatus: "ACTIVE", providerNewStatus: "LOCKED"
                    )))
    }

    @Test("the published CardTokenUpdateEvent example gives walletTokensChanged for its card, dated by eventTimestamp")
    func publishedTokenEvent() throws {
        let events = try Self.provider().verify(Self.signed(Self.publishedTokenEvent), now: Date())
        let event = try #require(events.first)
        #expect(events.count == 1)
        #expect(event.id == "af5c8b52-0afd-4799-85ab-fe659a076932")
        #expect(event.providerType == "prepaid.card.token")
        #expect(event.occurredAt == Date(timeIntervalSince1970: 1_626_371_652))
        #expect(event.event.name == .walletTokensChanged)
        #expect(
            event.event.walletTokensChanged
                == WalletTokensChange(
                    card: CardRef(id: "af5c8b52-0afd-4799-85ab-fe659a076932", customer: "string"), status: .active,
                    providerAction: "TOKEN_UNFROZEN", providerResult: "string"))
    }

    @Test(
        "each token action maps to a token status",
        arguments: [
            ("TOKEN_FROZEN", WalletTokenStatus.suspended), ("TOKEN_UNFROZEN", .active), ("TOKEN_CANCELLED", .deleted),
            ("TOKEN_REISSUED", .active),
        ])
    func tokenActions(action: String, status: WalletTokenStatus) throws {
        let body = Data(
            #"{"id":"5c4e3a52-8ad1-4f0e-9b44-2f3a0c7d9e11","cardId":"\#(Fixture.cardID)","customerId":"cust-eu-1","tokenAction":"\#(action)"}"#
                .utf8)
        let event = try #require(try Self.provider().verify(Self.signed(body), now: Date()).first)
        #expect(event.event.walletTokensChanged?.status == status)
        #expect(event.event.walletTokensChanged?.providerAction == action)
        #expect(event.event.walletTokensChanged?.card == Fixture.ref)
        #expect(event.occurredAt == nil)
    }

    @Test("an action this version does not know keeps its word and no status")
    func unknownTokenAction() throws {
        let body = Data(
            #"{"id":"e1","cardId":"\#(Fixture.cardID)","customerId":"cust-eu-1","tokenAction":"TOKEN_MIGRATED"}"#.utf8)
        let change = try #require(
            try Self.provider().verify(Self.signed(body), now: Date()).first?.event.walletTokensChanged)
        #expect(change.status == nil)
        #expect(change.providerAction == "TOKEN_MIGRATED")
    }

    @Test(
        "a signed body that is no card event, or misses a required field, is invalidResponse naming the problem",
        arguments: [
            (#"{"id":"evt-1","cardId":"c"}"#, "neither a card status event (newStatus) nor a card token event"),
            (#"{"id":"evt-1","newStatus":"LOCKED"}"#, "cardId"),
            (#"{"id":"evt-1","cardId":"c","tokenAction":"TOKEN_FROZEN"}"#, "customerId"),
            (#"[1,2]"#, "not a JSON object"),
            (#"not json"#, "not a JSON object"),
        ])
    func invalidBodies(body: String, problem: String) throws {
        let data = Data(body.utf8)
        let error = try #require(throws: CardGatewayError.self) {
            try Self.provider().verify(Self.signed(data), now: Date())
        }
        #expect(error.code == .invalidResponse)
        #expect(error.message.contains(problem), "\(error.message)")
    }

    @Test(
        "a missing, empty or malformed Signature header is refused",
        arguments: [nil, "", "zz", "sha256=abc", String(repeating: "g", count: 64), String(repeating: "A", count: 43)])
    func missingHeader(_ signature: String?) throws {
        let error = try #require(throws: CardGatewayError.self) {
            try Self.provider().verify(Self.delivery(signature: signature), now: Date())
        }
        #expect(error.code == .signatureInvalid)
    }

    @Test("without a webhook secret, webhooks are a configuration error")
    func noSecret() throws {
        let error = try #require(throws: CardGatewayError.self) {
            try Self.provider(webhookSecret: nil).verify(Self.signed(Self.body), now: Date())
        }
        #expect(error.code == .invalidConfiguration)
    }

    @Test("the secret never appears in errors")
    func secretNotInErrors() throws {
        let error = try #require(throws: CardGatewayError.self) {
            try Self.provider().verify(Self.delivery(signature: "00"), now: Date())
        }
        #expect(!error.description.contains(Fixture.webhookSecret))
    }

    // MARK: The simulator signs Paysafe's way

    @Test("the simulator's status and token webhooks carry Paysafe's signature, computed here independently")
    func simulatorSignsPaysafesWay() throws {
        let simulator = PaysafeSimulator()
        let secret = PaysafeSimulator.Credentials.default.webhookSecret
        #expect(
            Data(base64Encoded: secret)?.count == 256, "the simulator's secret is 256 bytes in Base64, as Paysafe's")
        let status = simulator.signedWebhook(
            cardID: PaysafeSimulator.Seed.activeCardID, oldStatus: "ACTIVE", newStatus: "LOCKED", eventID: "evt-9")
        let token = simulator.signedTokenWebhook(
            cardID: PaysafeSimulator.Seed.tokenizedCardID, tokenAction: "TOKEN_CANCELLED", id: "chg-1")
        for signed in [status, token] {
            let header = try #require(signed.headers.first { $0.0 == "Signature" }?.1)
            #expect(header == PaysafePage.signature(signed.body, secret: secret))
        }
        let tokenObject = try #require(try JSONSerialization.jsonObject(with: token.body) as? [String: Any])
        #expect(
            Set(tokenObject.keys).isSubset(
                of: ["id", "cardId", "customerId", "result", "tokenAction", "eventId", "eventTimestamp"]))
        #expect(tokenObject["tokenAction"] as? String == "TOKEN_CANCELLED")

        let provider = try Self.provider(webhookSecret: secret)
        let event = try #require(
            try provider.verify(
                Self.delivery(token.body, signature: token.headers.first { $0.0 == "Signature" }?.1), now: Date()
            )
            .first)
        #expect(event.id == "chg-1")
        #expect(event.event.walletTokensChanged?.status == .deleted)
        #expect(event.event.walletTokensChanged?.card.id == PaysafeSimulator.Seed.tokenizedCardID)
    }

    // MARK: Configuration

    static let configJSON = #"""
        {"providers":{"ps":{"kind":"paysafe","environment":"sandbox",
          "credentials":{"clientID":"literal:cid","clientSecret":"literal:csecret","webhookSecret":"literal:wsecret"},
          "options":{"brand":"acme","region":"US","userAgent":"MyApp/2"}}},"routes":[]}
        """#

    @Test("the factory: environments, credentials, options and the descriptor")
    func factory() throws {
        let factory = ProviderFactory.paysafe
        #expect(factory.kind == .paysafe)
        #expect(factory.environments["sandbox"]?.absoluteString == "https://sandbox.paysafe.com")
        #expect(factory.environments["live"]?.absoluteString == "https://api.paysafe.com")
        #expect(
            factory.credentials.map(\.name) == ["clientID", "clientSecret", "webhookSecret", "requestSigningSecret"])
        #expect(factory.credentials.map(\.required) == [true, true, false, false])
        #expect(factory.options.map(\.name) == ["brand", "region", "userAgent", "signRequests"])
        #expect(factory.options.first { $0.name == "region" }?.allowedValues == ["ROW", "US"])
        // The card service without its PIN change: "Pin change is an unavailable action for Business APIs".
        #expect(
            factory.descriptor.capabilities
                == Capability.cardService.subtracting([.cardPIN]).union([
                    .cardLookup, .walletTokenListing, .walletProvisioning, .webhooks, .cardDetailsReveal,
                ]))
        #expect(factory.descriptor.revealFlows == [.cardDetails: .secureLink])
        #expect(factory.descriptor.provisioningFlows == [.applePay: .encryptedPayload, .googlePay: .encryptedPayload])
    }

    @Test("loading configuration builds a Paysafe adapter with its options")
    func loadConfiguration() throws {
        var registry = ProviderRegistry()
        registry.register(.paysafe)
        let configuration = try GatewayConfiguration.load(from: Data(Self.configJSON.utf8), registry: registry)
        let gateway = try CardGateway(
            configuration: configuration, registry: registry, transport: ScriptedTransport([]))
        let provider = try #require(gateway.instance(named: "ps")?.provider as? PaysafeProvider)
        #expect(provider.configuration.brand == "acme")
        #expect(provider.configuration.region == .us)
        #expect(provider.configuration.userAgent == "MyApp/2")
        #expect(provider.configuration.clientID.revealedValue == "cid")
        #expect(provider.configuration.webhookSecret?.revealedValue == "wsecret")
        #expect(!provider.configuration.description.contains("wsecret"))
    }

    @Test("a missing brand is reported with its path")
    func missingBrand() throws {
        var registry = ProviderRegistry()
        registry.register(.paysafe)
        let json = Self.configJSON.replacingOccurrences(of: #""brand":"acme","#, with: "")
        let error = try #require(throws: CardGatewayError.self) {
            try GatewayConfiguration.load(from: Data(json.utf8), registry: registry)
        }
        #expect(error.configurationProblems.contains { $0.path.contains("providers.ps.options") })
    }

    @Test("the default region is ROW and the default userAgent CardGateway")
    func defaults() throws {
        var registry = ProviderRegistry()
        registry.register(.paysafe)
        let json = Self.configJSON.replacingOccurrences(of: #","region":"US","userAgent":"MyApp/2""#, with: "")
        let configuration = try GatewayConfiguration.load(from: Data(json.utf8), registry: registry)
        let gateway = try CardGateway(
            configuration: configuration, registry: registry, transport: ScriptedTransport([]))
        let provider = try #require(gateway.instance(named: "ps")?.provider as? PaysafeProvider)
        #expect(provider.configuration.region == .row)
        #expect(provider.configuration.userAgent == "CardGateway")
    }

    @Test("userAgent over Paysafe's 1,000 characters is refused when the configuration loads")
    func userAgentTooLong() throws {
        var registry = ProviderRegistry()
        registry.register(.paysafe)
        let json = Self.configJSON.replacingOccurrences(of: "MyApp/2", with: String(repeating: "a", count: 1001))
        let error = try #require(throws: CardGatewayError.self) {
            try GatewayConfiguration.load(from: Data(json.utf8), registry: registry)
        }
        #expect(error.configurationProblems.contains { $0.path.contains("providers.ps.options") })
    }

    @Test(
        "signRequests: none, all, or a list of writes; an unknown name is refused at load",
        arguments: ["none", "all", "createCard, updateCard", "scaAttempt"])
    func signRequests(text: String) throws {
        let expected: Set<PaysafeSignedOperation> =
            switch text {
            case "none": []
            case "all": Set(PaysafeSignedOperation.allCases)
            case "scaAttempt": [.scaAttempt]
            default: [.createCard, .updateCard]
            }
        var registry = ProviderRegistry()
        registry.register(.paysafe)
        let json = Self.configJSON.replacingOccurrences(
            of: #""userAgent":"MyApp/2""#, with: #""userAgent":"MyApp/2","signRequests":"\#(text)""#
        ).replacingOccurrences(
            of: #""webhookSecret":"literal:wsecret""#,
            with: #""webhookSecret":"literal:wsecret","requestSigningSecret":"literal:\#(PaysafePage.secret)""#)
        let configuration = try GatewayConfiguration.load(from: Data(json.utf8), registry: registry)
        let gateway = try CardGateway(
            configuration: configuration, registry: registry, transport: ScriptedTransport([]))
        let provider = try #require(gateway.instance(named: "ps")?.provider as? PaysafeProvider)
        #expect(provider.configuration.signedRequests == expected)
        #expect(!provider.configuration.description.contains(PaysafePage.secret))

        let unknown = Self.configJSON.replacingOccurrences(
            of: #""userAgent":"MyApp/2""#, with: #""userAgent":"MyApp/2","signRequests":"createCard,deleteEverything""#)
        let error = try #require(throws: CardGatewayError.self) {
            try GatewayConfiguration.load(from: Data(unknown.utf8), registry: registry)
        }
        #expect(error.configurationProblems.contains { $0.path.contains("providers.ps.options") })
    }
}
