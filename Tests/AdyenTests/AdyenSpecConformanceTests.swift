import AdyenSimulator
import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import Foundation
import HTTPTypes
import SharedTestSupport
import Testing

@testable import CardGatewayAdyen

/// The adapter's requests and the simulator's answers, on the wire, validated against Adyen's published OpenAPI
/// documents (committed in `Tests/AdyenTests/Fixtures`) by `scripts/spec-conformance.py` with the `jsonschema`
/// package: every operation the adapter uses (`Providers/Adyen/Adapter/AdyenAPI.swift`), its success and error
/// answers, and the configuration webhooks. Objects are closed (no member the document does not define).
@Suite("Adyen adapter and simulator against Adyen's OpenAPI documents", .timeLimit(.minutes(5)))
struct AdyenSpecConformanceTests {
    typealias Seed = AdyenSimulator.Seed

    static func run(_ exchanges: [SpecExchange] = []) -> SpecConformanceRun {
        SpecConformanceRun(
            provider: "adyen",
            documents: [
                "service": PublishedShape.fixtureURL("adyen-BalancePlatformService-v2.json").path,
                "notifications": PublishedShape.fixtureURL("adyen-BalancePlatformConfigurationNotification-v2.json")
                    .path,
                "relayed": PublishedShape.fixtureURL("adyen-BalancePlatformRelayedAuthorisationNotification-v4.json")
                    .path,
            ],
            basePath: "/bcl/v2", exchanges: exchanges
        )
    }

    /// Every operation the adapter sends, with the statuses driven below (`METHOD /template STATUS`).
    static let operations: Set<String> = [
        "POST /paymentInstruments 200",
        "GET /paymentInstruments/{id} 200",
        "PATCH /paymentInstruments/{id} 200",
        "GET /balanceAccounts/{id}/paymentInstruments 200",
        "GET /paymentInstruments/{id}/networkTokenActivationData 200",
        "POST /paymentInstruments/{id}/networkTokenActivationData 200",
        "GET /paymentInstruments/{id}/networkTokens 200",
        "GET /networkTokens/{networkTokenId} 200",
        "PATCH /networkTokens/{networkTokenId} 202",
        // Errors: 401, 403, 404 (undeclared: checked as RestServiceError), 422, 500, 400.
        "GET /paymentInstruments/{id} 401",
        "GET /paymentInstruments/{id}/networkTokenActivationData 403",
        "GET /paymentInstruments/{id} 404",
        "GET /networkTokens/{networkTokenId} 404",
        "POST /paymentInstruments 404",
        "PATCH /paymentInstruments/{id} 422",
        "POST /paymentInstruments 422",
        "POST /paymentInstruments/{id}/networkTokenActivationData 422",
        "GET /balanceAccounts/{id}/paymentInstruments 422",
        "PATCH /networkTokens/{networkTokenId} 422",
        "GET /paymentInstruments/{id} 500",
        "SCHEMA NetworkTokenNotificationRequest",
        "SCHEMA PaymentNotificationRequest",
        // Card details and PIN (issue 40): the public keys (pem and jwk), the three sessions and their refusals.
        "GET /publicKey 200",
        "POST /paymentInstruments/reveal 200",
        "POST /pins/reveal 200",
        "POST /pins/change 200",
        "GET /publicKey 403",
        "POST /paymentInstruments/reveal 422",
        "POST /pins/change 422",
        // Relayed authorisation (issue 47): the simulator's messages and the adapter's answers.
        "SCHEMA RelayedAuthorisationRequest",
        "SCHEMA RelayedAuthorisationResponse",
    ]

    /// Drives every operation through the adapter (its requests are checked too), then the error answers the adapter
    /// cannot provoke through raw requests (only their answers are checked).
    /// The webhooks the simulator sent while the adapter drove it (a card created twice, locked, unlocked and
    /// cancelled) are checked against `PaymentNotificationRequest`.
    static func exchanges() async throws -> [SpecExchange] {
        let simulator = AdyenSimulator()
        return try await withSimulator(simulator) { handle in
            let wire = WireRecorder(AsyncHTTPClientTransport())
            let provider = try SimulatorFixture.provider(handle, transport: wire, retry: .none)
            let context = OperationContext()

            // Cards: lookup, listing (every page), issuance (virtual and physical), lock / unlock / cancel.
            for id in [
                Seed.activeVisaID, Seed.activeMastercardID, Seed.inactiveMastercardID, Seed.suspendedVisaID,
                Seed.closedMastercardID,
            ] {
                _ = try await provider.card(CardRef(id: id), context: context)
            }
            var query: CardQuery? = CardQuery(customer: Seed.balanceAccountID, limit: 2)
            while let current = query {
                let page = try await provider.listCards(current, context: context)
                query = current.next(after: page)
            }
            _ = try await provider.listCards(CardQuery(customer: Seed.emptyBalanceAccountID), context: context)
            _ = try await provider.createCard(
                CreateCardRequest(
                    customer: Seed.balanceAccountID, type: .virtual, program: "visadebit", currency: "EUR",
                    externalID: "order-77",
                    cardholderName: "Sam Hopper", issuingCountryCode: "NL"
                ),
                context: context
            )
            _ = try await provider.createCard(
                CreateCardRequest(
                    customer: Seed.balanceAccountID, type: .physical, program: "mcdebit", currency: "EUR",
                    deliveryAddress: DeliveryAddress(
                        address1: "Simon Carmiggeltstraat 6", address2: "50", city: "Amsterdam", countryCode: "NL",
                        postalCode: "1011 DJ"),
                    cardholderName: "Sam Hopper"
                ),
                context: context
            )
            _ = try await provider.changeStatus(
                CardStatusRequest(card: CardRef(id: Seed.lockableVisaID), intent: .lock, reason: .lost),
                context: context)
            _ = try await provider.changeStatus(
                CardStatusRequest(card: CardRef(id: Seed.lockableVisaID), intent: .unlock), context: context)
            _ = try await provider.changeStatus(
                CardStatusRequest(
                    card: CardRef(id: Seed.cancellableMastercardID), intent: .cancel, reason: .other,
                    comment: "replaced"), context: context)

            // Wallet tokens: listing, suspend / resume / delete, lookup.
            let wallet = CardRef(id: Seed.walletVisaID)
            _ = try await provider.walletTokens(of: wallet, context: context)
            _ = try await provider.walletTokens(of: CardRef(id: Seed.activeVisaID), context: context)
            _ = try await provider.changeWalletToken(
                WalletTokenRequest(card: wallet, token: Seed.walletActiveTokenID, intent: .suspend), context: context)
            _ = try await provider.changeWalletToken(
                WalletTokenRequest(card: wallet, token: Seed.walletActiveTokenID, intent: .resume), context: context)
            _ = try await provider.changeWalletToken(
                WalletTokenRequest(card: wallet, token: Seed.walletDeletableTokenID, intent: .delete), context: context)
            for token in [
                Seed.activeApplePayTokenID, Seed.inactiveGooglePayTokenID, Seed.suspendedApplePayTokenID,
                Seed.closedGooglePayTokenID,
            ] {
                _ = try await provider.networkToken(id: token, context: context)
            }

            // Provisioning: the offer, then the activation-data relay to its end.
            let card = CardRef(id: Seed.activeVisaID)
            _ = try await provider.offer(for: card, wallet: .applePay, context: context)
            var last = try await provider.provision(
                ProvisioningRequest(card: card, wallet: .applePay, input: .issuerSDK(output: nil)), context: context)
            for _ in 0..<Seed.roundTripsToComplete {
                guard let input = last.issuerSDKInput else { break }
                let output = AdyenSimulator.sdkOutput(answering: input.revealedBytes, extra: Data())
                last = try await provider.provision(
                    ProvisioningRequest(
                        card: card, wallet: .applePay, input: .issuerSDK(output: SensitiveData(output))),
                    context: context)
            }

            // Errors the adapter provokes itself: unknown ids, a closed card, an unknown balance account.
            _ = try? await provider.card(CardRef(id: "PI3227C223222B5UNKNOWN0000"), context: context)
            _ = try? await provider.networkToken(id: "NWTK99999999999999999999999999", context: context)
            _ = try? await provider.createCard(
                CreateCardRequest(
                    customer: "BA3227C223222B5UNKNOWN000", type: .virtual, program: "visadebit", currency: "EUR",
                    cardholderName: "Sam Hopper", issuingCountryCode: "NL"),
                context: context
            )
            handle.faults.inject(FaultRule(count: 1, action: .status(500, retryAfterSeconds: nil, message: "boom")))
            _ = try? await provider.card(card, context: context)
            let wrongKey = try SimulatorFixture.provider(handle, apiKey: "wrong", transport: wire, retry: .none)
            _ = try? await wrongKey.card(card, context: context)
            let noRole = try SimulatorFixture.provider(
                handle, apiKey: AdyenSimulator.Credentials.apiKeyWithoutActivationRole, transport: wire, retry: .none)
            _ = try? await noRole.provision(
                ProvisioningRequest(card: card, wallet: .applePay, input: .issuerSDK(output: nil)), context: context)

            // Card details and PIN: the app's side is the simulator's (AdyenSimulatorApp), the relay the adapter's.
            let detailsOffer = try await provider.revealOffer(for: card, purpose: .cardDetails, context: context)
            _ = try await provider.revealPublicKey(for: .cardDetails, format: "jwk", context: context)
            let details = try AdyenSimulatorApp.session(publicKeyPEM: detailsOffer.publicKey?.value ?? "")
            let detailsRequest = RevealSessionRequest(
                card: card, purpose: .cardDetails, encryptedKey: Secret(details.encryptedKey))
            _ = try await provider.revealSession(detailsRequest, context: context)
            _ = try? await provider.revealSession(detailsRequest, context: context)
            let pinOffer = try await provider.revealOffer(for: card, purpose: .pinReveal, context: context)
            let pin = try AdyenSimulatorApp.session(publicKeyPEM: pinOffer.publicKey?.value ?? "")
            _ = try await provider.revealSession(
                RevealSessionRequest(card: card, purpose: .pinReveal, encryptedKey: Secret(pin.encryptedKey)),
                context: context)
            let changeOffer = try await provider.revealOffer(for: card, purpose: .pinChange, context: context)
            let change = try AdyenSimulatorApp.session(publicKeyPEM: changeOffer.publicKey?.value ?? "")
            let block = try AdyenSimulatorApp.pinChange(pin: "2580", key: change.key)
            _ = try await provider.revealSession(
                RevealSessionRequest(
                    card: card, purpose: .pinChange, encryptedKey: Secret(change.encryptedKey),
                    encryptedPINBlock: Secret(block.encryptedPinBlock), pinToken: Secret(block.token)),
                context: context
            )
            let again = try AdyenSimulatorApp.session(publicKeyPEM: changeOffer.publicKey?.value ?? "")
            _ = try? await provider.revealSession(
                RevealSessionRequest(
                    card: card, purpose: .pinChange, encryptedKey: Secret(again.encryptedKey),
                    encryptedPINBlock: Secret(block.encryptedPinBlock), pinToken: Secret(block.token)),
                context: context
            )
            _ = try? await noRole.revealOffer(for: card, purpose: .pinChange, context: context)

            // Errors only a deliberately wrong request provokes (raw HTTP: the answers are checked, not the requests).
            let raw = RawClient(handle: handle)
            let path = "/paymentInstruments/\(Seed.activeMastercardID)/networkTokenActivationData"
            var rawReplies: [(String, String, String, RawClient.Reply, String?)] = []
            func send(_ name: String, _ method: HTTPRequest.Method, _ path: String, body: String? = nil) async throws {
                let reply = try await raw.send(method, path, body: body.map { Data($0.utf8) })
                rawReplies.append((name, method.rawValue, "/bcl/v2" + path, reply, body))
            }
            try await send("422 invalid sdkOutput", .post, path, body: #"{"sdkOutput":"-_-_"}"#)
            try await send("422 no exchange", .post, path, body: #"{"sdkOutput":"AAEC"}"#)
            try await send(
                "422 token body not an object", .patch, "/networkTokens/\(Seed.activeApplePayTokenID)", body: "[]")
            try await send(
                "422 token status", .patch, "/networkTokens/\(Seed.activeApplePayTokenID)", body: #"{"status":"gone"}"#)
            try await send(
                "422 listing limit", .get, "/balanceAccounts/\(Seed.balanceAccountID)/paymentInstruments?limit=0")
            try await send(
                "422 closed instrument", .patch, "/paymentInstruments/\(Seed.closedMastercardID)",
                body: #"{"status":"active"}"#)
            try await send(
                "422 create without cardholder", .post, "/paymentInstruments",
                body: #"{"type":"card","balanceAccountId":"\#(Seed.balanceAccountID)"}"#)

            var exchanges: [SpecExchange] = []
            for (index, exchange) in wire.exchanges.enumerated() where exchange.status != nil {
                exchanges.append(
                    SpecExchange(
                        "adapter #\(index + 1) \(exchange.method) \(exchange.path)", document: "service", exchange,
                        adapter: true))
            }
            for (name, method, path, reply, body) in rawReplies {
                let exchange = WireExchange(
                    method: method, path: path, requestBody: body.map { Data($0.utf8) }, status: reply.status,
                    responseBody: reply.body)
                exchanges.append(SpecExchange("raw \(name)", document: "service", exchange, adapter: false))
            }
            let sent = simulator.sentWebhooks()
            #expect(sent.filter { $0.type == AdyenSimulator.paymentInstrumentCreated }.count == 2)
            #expect(sent.filter { $0.type == AdyenSimulator.paymentInstrumentUpdated }.count == 3)
            for (index, webhook) in sent.enumerated() {
                exchanges.append(
                    SpecExchange(
                        "sent webhook #\(index + 1) \(webhook.type)", document: "notifications",
                        schema: "PaymentNotificationRequest", body: webhook.body))
            }
            return exchanges
        }
    }

    /// The signed configuration webhooks the simulator delivers, against `NetworkTokenNotificationRequest` and (for
    /// every seeded instrument, card or business account, created and updated) `PaymentNotificationRequest`.
    static func webhooks() -> [SpecExchange] {
        let simulator = AdyenSimulator()
        var result: [SpecExchange] = []
        for type in [AdyenSimulator.paymentInstrumentCreated, AdyenSimulator.paymentInstrumentUpdated] {
            for id in [
                Seed.activeVisaID, Seed.activeMastercardID, Seed.inactiveMastercardID, Seed.suspendedVisaID,
                Seed.closedMastercardID, Seed.bankAccountID, Seed.lockableVisaID, Seed.cancellableMastercardID,
                Seed.walletVisaID,
            ] {
                guard let body = simulator.signedPaymentInstrumentWebhook(type: type, instrument: id)?.body else {
                    Issue.record("no webhook for the seeded instrument \(id)")
                    continue
                }
                result.append(
                    SpecExchange(
                        "webhook \(type) \(id)", document: "notifications", schema: "PaymentNotificationRequest",
                        body: body))
            }
        }
        for type in [AdyenSimulator.networkTokenCreated, AdyenSimulator.networkTokenUpdated] {
            for token in [
                Seed.activeApplePayTokenID, Seed.inactiveGooglePayTokenID, Seed.closedCardTokenID, "NWTK_UNKNOWN",
            ] {
                result.append(
                    SpecExchange(
                        "webhook \(type) \(token)", document: "notifications",
                        schema: "NetworkTokenNotificationRequest",
                        body: simulator.signedWebhook(type: type, token: token).body))
            }
        }
        return result
    }

    /// Relayed authorisation: the simulator's `RelayedAuthorisationRequest` for every seeded active card (with every
    /// merchant field, and with none), and the adapter's `RelayedAuthorisationResponse` to Adyen's published request
    /// for an approval and each decline reason.
    static func relayedAuthorisations() throws -> [SpecExchange] {
        let simulator = AdyenSimulator()
        var result: [SpecExchange] = []
        for card in [
            Seed.activeVisaID, Seed.activeMastercardID, Seed.lockableVisaID, Seed.cancellableMastercardID,
            Seed.walletVisaID,
        ] {
            for merchant in [
                AuthorizationOrder.Merchant(name: "Corner Shop", categoryCode: "5411", country: "US", city: "Seattle"),
                AuthorizationOrder.Merchant(),
            ] {
                let order = AuthorizationOrder(
                    url: "http://127.0.0.1:1/", card: card, amount: 2_700, currency: "EUR", merchant: merchant)
                guard let body = simulator.relayedAuthorisationMessage(for: order) else {
                    Issue.record("no relayed authorisation for the seeded card \(card)")
                    continue
                }
                result.append(
                    SpecExchange(
                        "relayed authorisation \(card) \(merchant.name ?? "no merchant")", document: "relayed",
                        schema: "RelayedAuthorisationRequest", body: body))
            }
        }
        typealias Relayed = AdyenSimulator.RelayedAuthorisationSettings
        let provider = try AdyenAuthorizationTests.provider()
        var headers = HTTPFields()
        headers[.authorization] = "Basic " + Data("\(Relayed.username):\(Relayed.password)".utf8).base64EncodedString()
        let published = try Data(contentsOf: PublishedShape.fixtureURL("relayed-authorisation-request.json"))
        let read = try provider.authorization(from: WebhookDelivery(headers: headers, body: published), now: Date())
        let decisions = [AuthorizationDecision.approve()] + AuthorizationDeclineReason.allCases.map { .decline($0) }
        for decision in decisions {
            result.append(
                SpecExchange(
                    "relayed authorisation answer: \(decision)", document: "relayed",
                    schema: "RelayedAuthorisationResponse", body: try provider.answer(decision, to: read).body))
        }
        // Adyen's own published request and answer, as a check on the check.
        result.append(
            SpecExchange(
                "published relayed authorisation", document: "relayed", schema: "RelayedAuthorisationRequest",
                body: published))
        result.append(
            SpecExchange(
                "published relayed authorisation answer", document: "relayed", schema: "RelayedAuthorisationResponse",
                body: try Data(contentsOf: PublishedShape.fixtureURL("relayed-authorisation-response.json"))))
        return result
    }

    @Test("every request the adapter sends and every answer the simulator gives validates against the documents")
    func onTheWire() async throws {
        try await SpecConformance.requireValidator()
        let exchanges = try await Self.exchanges() + Self.webhooks() + Self.relayedAuthorisations()
        let report = try await SpecConformance.check(Self.run(exchanges))
        SpecConformance.expectConformance(report, covering: Self.operations)
        #expect((report.requestBodies ?? 0) >= 10, "request bodies validated: \(report.requestBodies ?? 0)")
    }

    @Test(
        "the validator catches an undefined member, a missing required one, a wrong type, a wrong enum and a wrong request"
    )
    func validatorCatches() async throws {
        try await SpecConformance.requireValidator()
        func exchange(
            _ name: String, _ method: String, _ path: String, _ status: Int, request: String? = nil, response: String
        ) -> SpecExchange {
            SpecExchange(
                name, document: "service",
                WireExchange(
                    method: method, path: "/bcl/v2" + path, requestBody: request.map { Data($0.utf8) }, status: status,
                    responseBody: Data(response.utf8)), adapter: true)
        }
        let report = try await SpecConformance.check(
            Self.run([
                exchange(
                    "extra member", "POST", "/paymentInstruments/PI1/networkTokenActivationData", 200,
                    request: #"{"sdkOutput":"AA=="}"#, response: #"{"sdkInput":"AA==","extra":1}"#),
                exchange(
                    "status as text", "GET", "/paymentInstruments/PI1", 401,
                    response: #"{"title":"t","status":"401","detail":"d","errorCode":"x","type":"u"}"#),
                exchange(
                    "no errorCode", "GET", "/networkTokens/N1", 404,
                    response: #"{"title":"t","status":404,"detail":"d","type":"u"}"#),
                exchange(
                    "token status", "GET", "/paymentInstruments/PI1/networkTokens", 200,
                    response: #"{"networkTokens":[{"id":"N","status":"gone"}]}"#),
                exchange(
                    "request member", "PATCH", "/networkTokens/N1", 202,
                    request: #"{"status":"suspended","reason":"x"}"#, response: ""),
                exchange("undeclared success", "GET", "/networkTokens/N1", 201, response: "{}"),
                SpecExchange(
                    "relayed answer", document: "relayed", schema: "RelayedAuthorisationResponse",
                    body: Data(#"{"authorisationDecision":{"status":"Approved"},"amount":1}"#.utf8)),
                SpecExchange(
                    "webhook", document: "notifications", schema: "NetworkTokenNotificationRequest",
                    body: Data(#"{"type":"balancePlatform.networkToken.created","data":{}}"#.utf8)),
                SpecExchange(
                    "instrument webhook", document: "notifications", schema: "PaymentNotificationRequest",
                    body: Data(
                        #"{"type":"balancePlatform.paymentInstrument.updated","environment":"test","data":{"paymentInstrument":{"id":"PI1","status":"locked"}}}"#
                            .utf8)),
            ]))
        let expected = [
            "[extra member] response 200 $: member(s) `extra` not defined by the document",
            "[status as text] response 401 $.status: is string where the document says integer",
            "[no errorCode] response 404 (the provider's error shape) $: required member `errorCode` is missing",
            "[token status] response 200 $.networkTokens[0].status: \"gone\" is not one of the document's values",
            "[request member] request $: member(s) `reason` not defined by the document",
            "[undeclared success] response 201: GET /networkTokens/{networkTokenId} declares no such status",
            "[webhook] body (NetworkTokenNotificationRequest) $: required member `environment` is missing",
            "[relayed answer] body (RelayedAuthorisationResponse) $: member(s) `amount` not defined by the document",
            "[relayed answer] body (RelayedAuthorisationResponse) $.authorisationDecision.status: \"Approved\" is not one of the document's values",
            "[instrument webhook] body (PaymentNotificationRequest) $.data.paymentInstrument",
        ]
        for line in expected {
            #expect(
                report.findings.contains { $0.hasPrefix(line) },
                "missing finding: \(line)\nreported:\n\(report.findings.joined(separator: "\n"))")
        }
        #expect(report.status == 1)
    }
}
