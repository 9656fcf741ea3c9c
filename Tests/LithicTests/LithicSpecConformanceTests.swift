@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import Foundation
import HTTPTypes
import LithicSimulator
import SharedTestSupport
import Testing

@_spi(AdapterSupport) @testable import CardGatewayLithic

/// The adapter's requests and the simulator's answers, on the wire, validated against Lithic's OpenAPI 3.1 document
/// (`Fixtures/lithic-openapi.json`: `lithic-openapi.yml` as JSON, Fixtures/README.md says how) by
/// `scripts/spec-conformance.py` with the `jsonschema` package: every operation the adapter uses
/// (`Providers/Lithic/Adapter/LithicAPI.swift`), its success and error answers (`error` where the operation declares
/// none), the webhooks the simulator signs and the ASA requests it sends (against the document's `webhooks` payload
/// schemas) and the adapter's ASA answers (`asa-response`). Objects are closed.
@Suite("Lithic adapter and simulator against Lithic's OpenAPI document", .timeLimit(.minutes(5)))
struct LithicSpecConformanceTests {
    typealias Inputs = LithicSimulator.Seed.TestInputs

    static func run(_ exchanges: [SpecExchange]) -> SpecConformanceRun {
        SpecConformanceRun(
            provider: "lithic", documents: ["openapi": PublishedShape.fixtureURL("lithic-openapi.json").path],
            basePath: "", exchanges: exchanges)
    }

    /// Every operation the adapter sends, with the statuses driven below (`METHOD /template STATUS`).
    static let operations: Set<String> = [
        "GET /v1/cards/{card_token} 200",
        "GET /v1/cards 200",
        "POST /v1/cards 200",
        "PATCH /v1/cards/{card_token} 200",
        "GET /v1/tokenizations 200",
        "GET /v1/tokenizations/{tokenization_token} 200",
        "POST /v1/tokenizations/{tokenization_token}/pause 200",
        "POST /v1/tokenizations/{tokenization_token}/unpause 200",
        "POST /v1/tokenizations/{tokenization_token}/deactivate 200",
        "POST /v1/cards/{card_token}/provision 200",
        "POST /v1/cards/{card_token}/embed 200",
        "GET /v1/cards/{card_token} 401",
        "GET /v1/cards/{card_token} 404",
        "GET /v1/cards/{card_token} 500",
        "POST /v1/cards/{card_token}/provision 422",
    ]

    static func exchanges() async throws -> [SpecExchange] {
        let simulator = LithicSimulator()
        return try await withSimulator(simulator) { handle in
            let wire = WireRecorder(AsyncHTTPClientTransport())
            func provider(_ key: String = Seed.apiKey) throws -> LithicProvider {
                let http = try ProviderHTTPClient(
                    instance: "lithic-spec", kind: .lithic, baseURL: handle.baseURL, transport: wire,
                    timeout: .seconds(30), retry: .none)
                return try LithicProvider(
                    http: http, apiKey: Secret(key),
                    options: LithicOptions(embedTargetOrigin: "https://cardholder.example"))
            }
            let lithic = try provider()
            let context = OperationContext()
            for card in [Seed.activeCard, Seed.pausedCard, Seed.pendingCard, Seed.closedCard] {
                _ = try await lithic.card(CardRef(id: card), context: context)
            }
            var query: CardQuery? = CardQuery(customer: Seed.accountToken, limit: 3)
            while let current = query {
                query = current.next(after: try await lithic.listCards(current, context: context))
            }
            _ = try await lithic.listCards(CardQuery(statuses: [.locked]), context: context)
            _ = try await lithic.createCard(
                CreateCardRequest(
                    customer: Seed.emptyAccountToken, type: .virtual, program: Seed.cardProgram, currency: "USD",
                    externalID: "spec"),
                context: context)
            let lockable = CardRef(id: Seed.lockableCard)
            _ = try await lithic.changeStatus(
                CardStatusRequest(card: lockable, intent: .lock, reason: .lost, comment: "on a train"), context: context
            )
            _ = try await lithic.changeStatus(CardStatusRequest(card: lockable, intent: .unlock), context: context)
            _ = try await lithic.changeStatus(
                CardStatusRequest(card: CardRef(id: Seed.cancellableCard), intent: .cancel, reason: .stolen),
                context: context)
            let wallet = CardRef(id: Seed.walletCard)
            _ = try await lithic.changeWalletToken(
                WalletTokenRequest(card: wallet, token: Seed.activeToken, intent: .suspend), context: context)
            _ = try await lithic.changeWalletToken(
                WalletTokenRequest(card: wallet, token: Seed.activeToken, intent: .resume), context: context)
            _ = try await lithic.changeWalletToken(
                WalletTokenRequest(card: wallet, token: Seed.deletableToken, intent: .delete), context: context)
            let card = CardRef(id: Seed.activeCard)
            _ = try await lithic.provision(
                ProvisioningRequest(
                    card: card, wallet: .applePay,
                    input: .applePay(
                        ApplePayProvisioningInput(
                            certificates: [Inputs.leafCertificate], nonce: Inputs.nonce,
                            nonceSignature: Inputs.nonceSignature))),
                context: context)
            let google = ProvisioningInput.googlePay(
                GooglePayProvisioningInput(
                    clientDeviceID: Inputs.googleDeviceID, clientWalletAccountID: Inputs.googleWalletAccountID))
            _ = try await lithic.provision(
                ProvisioningRequest(card: card, wallet: .googlePay, input: google), context: context)
            _ = try await lithic.provision(
                ProvisioningRequest(
                    card: card, wallet: .samsungPay,
                    input: .samsungPay(
                        SamsungPayProvisioningInput(
                            deviceID: Inputs.samsungDeviceID, walletUserID: Inputs.samsungWalletUserID))),
                context: context)
            _ = try await lithic.revealSession(
                RevealSessionRequest(card: card, purpose: .cardDetails), context: context)
            _ = try await lithic.revealSession(RevealSessionRequest(card: card, purpose: .pinChange), context: context)
            // Errors: an unknown card, a paused card's provisioning, another key, a fault.
            _ = try? await lithic.card(CardRef(id: Seed.missingCard), context: context)
            _ = try? await lithic.provision(
                ProvisioningRequest(card: CardRef(id: Seed.pausedCard), wallet: .googlePay, input: google),
                context: context)
            _ = try? await provider("another-key-000000000000").card(card, context: context)
            handle.faults.inject(FaultRule(count: 1, action: .status(500, retryAfterSeconds: nil, message: "boom")))
            _ = try? await lithic.card(card, context: context)
            return wire.exchanges.enumerated().compactMap { index, exchange in
                exchange.status == nil
                    ? nil
                    : SpecExchange(
                        "adapter #\(index + 1) \(exchange.method) \(exchange.path)", document: "openapi", exchange,
                        adapter: true)
            }
        }
    }

    @Test func everyRequestAndAnswerFollowsTheDocument() async throws {
        try await SpecConformance.requireValidator()
        let report = try await SpecConformance.check(Self.run(try await Self.exchanges()))
        SpecConformance.expectConformance(report, covering: Self.operations)
        #expect((report.requestBodies ?? 0) >= 6, "request bodies validated: \(report.requestBodies ?? 0)")
    }

    @Test(
        "the simulator's webhooks and ASA requests follow the document's webhook payloads; the adapter's ASA answers asa-response"
    )
    func webhooksAndASA() async throws {
        try await SpecConformance.requireValidator()
        let simulator = LithicSimulator()
        let now = Date()
        var exchanges: [SpecExchange] = [
            SpecExchange(
                "card.updated", document: "openapi", schema: "webhooks/card.updated",
                body: simulator.signedCardUpdated(card: Seed.lockableCard, state: "PAUSED", previous: "OPEN").body),
            SpecExchange(
                "tokenization.updated", document: "openapi", schema: "webhooks/tokenization.updated",
                body: simulator.signedTokenizationUpdated(token: Seed.activeToken, status: "PAUSED").body),
            SpecExchange(
                "digital_wallet.tokenization_updated", document: "openapi",
                schema: "webhooks/digital_wallet.tokenization_updated",
                body: simulator.signedTokenizationUpdated(token: Seed.activeToken, status: "ACTIVE", deprecated: true)
                    .body),
        ]
        let order = AuthorizationOrder(
            url: "http://127.0.0.1:1/unused", card: Seed.activeCard, amount: 1_250, currency: "USD",
            merchant: .init(name: "Spec Cafe", categoryCode: "5812", country: "GB", city: "London"),
            amountAdjustable: true)
        let asa = try #require(simulator.asaRequest(order, at: now))
        exchanges.append(
            SpecExchange(
                "card_authorization.approval_request", document: "openapi",
                schema: "webhooks/card_authorization.approval_request", body: asa.body))
        var fields = HTTPFields()
        for (name, value) in asa.headers { fields[HTTPField.Name(name)!] = value }
        let (provider, _) = try LithicFixture.scripted([])
        let read = try provider.authorization(from: WebhookDelivery(headers: fields, body: asa.body), now: now)
        for decision in [
            AuthorizationDecision.approve(), .approve(amount: Money(minorUnits: 1_000, currency: "USD")),
            .decline(.insufficientFunds), .decline(.other),
        ] {
            exchanges.append(
                SpecExchange(
                    "asa answer \(decision)", document: "openapi", schema: "asa-response",
                    body: try provider.answer(decision, to: read).body))
        }
        var run = Self.run(exchanges)
        run.partial = true
        let report = try await SpecConformance.check(run)
        #expect(report.findings == [], "\(report.findings.joined(separator: "\n"))")
        for schema in [
            "webhooks/card.updated", "webhooks/tokenization.updated", "webhooks/digital_wallet.tokenization_updated",
            "webhooks/card_authorization.approval_request", "asa-response",
        ] {
            #expect(report.covered.contains("SCHEMA \(schema)"), "\(report.covered)")
        }
    }
}
