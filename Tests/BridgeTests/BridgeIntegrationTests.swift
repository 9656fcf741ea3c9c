import BridgeSimulator
@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
@_spi(AdapterSupport) import CardGatewayBridge
import CardGatewaySimulation
import CardGatewayTesting
import Crypto
import Foundation
import HTTPTypes
import Logging
import Testing
import SharedTestSupport

/// The adapter against the simulator over real HTTP on 127.0.0.1.
enum BridgeLive {
    static let start = Date(timeIntervalSince1970: 1_767_323_045)
    typealias Seed = BridgeSimulator.Seed

    static func ref(_ card: String, customer: String = Seed.customerID) -> CardRef {
        CardRef(id: card, customer: customer)
    }

    /// Runs `body` with a fresh simulator (fixed clock) and an adapter pointed at it.
    static func run<R: Sendable>(
        encoding: BridgeCertificateEncoding = .base64, apiKey: String = Seed.apiKey,
        logger: Logger = OperationContext.noopLogger,
        cardChain: String? = "base",
        _ body: @Sendable (SimulatorHandle, BridgeProvider, BridgeSimulator) async throws -> R
    ) async throws -> R {
        let simulator = BridgeSimulator(clock: SimulationClock(fixed: start))
        return try await withSimulator(simulator) { handle in
            let http = try ProviderHTTPClient(
                instance: "bridge-sim", kind: .bridge, baseURL: handle.baseURL, transport: AsyncHTTPClientTransport(),
                timeout: .seconds(30),
                retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5)),
                logger: logger
            )
            let provider = try BridgeProvider(
                http: http, apiKey: Secret(apiKey), webhookPublicKey: Secret(simulator.webhookPublicKeyPEM),
                certificateEncoding: encoding,
                cardChain: cardChain
            )
            return try await body(handle, provider, simulator)
        }
    }

    static func appleRequest(
        _ card: String = Seed.activeVisa, nonce: Data = BridgeFixtures.nonce
    ) -> ProvisioningRequest {
        ProvisioningRequest(
            card: ref(card), wallet: .applePay,
            input: .applePay(
                ApplePayProvisioningInput(
                    certificates: [BridgeFixtures.leafCertificate, BridgeFixtures.subordinateCertificate], nonce: nonce,
                    nonceSignature: BridgeFixtures.nonceSignature
                ))
        )
    }

    static func applePayload(_ response: ProvisioningResponse) throws -> ApplePayPayload {
        guard let payload = response.applePay else {
            throw CardGatewayError.invalidResponse("expected an Apple payload")
        }
        return payload
    }

    static func json(_ entry: JournalEntry) -> [String: JSONValue]? { (try? JSONValue.parse(entry.body))?.objectValue }
}

@Suite("Bridge adapter against the simulator", .timeLimit(.minutes(5)))
struct BridgeIntegrationTests {
    typealias Seed = BridgeSimulator.Seed

    @Test func everySeededAccountMaps() async throws {
        try await BridgeLive.run { handle, provider, _ in
            let expected: [(String, CardStatus, CardScheme, String, String?)] = [
                (Seed.activeVisa, .active, .visa, "1269", nil),
                (Seed.activeMastercard, .active, .mastercard, "5676", nil),
                (Seed.pendingVisa, .pending, .visa, "7891", "card issuance in progress"),
                (Seed.inactiveMastercard, .inactive, .mastercard, "9011", "card account deactivated"),
                (Seed.frozenByCustomer, .locked, .visa, "1231", "lost_or_stolen"),
                (Seed.frozenByDeveloper, .suspended, .mastercard, "2233", "suspected_fraud"),
            ]
            for (id, status, scheme, last4, reason) in expected {
                let card = try await provider.card(BridgeLive.ref(id), context: OperationContext())
                #expect(card.ref == BridgeLive.ref(id))
                #expect(card.status == status, "\(id)")
                #expect(card.scheme == scheme, "\(id)")
                #expect(card.lastFour == last4)
                #expect(card.statusReason == reason, "\(id)")
                #expect(card.cardholderName?.hasSuffix("Lovelace") == true)
            }
            let gets = handle.journal.entries(method: "GET", pathContains: "/card_accounts/")
            #expect(gets.count == expected.count)
            #expect(gets.allSatisfy { $0.header("idempotency-key") == nil })
            #expect(gets.allSatisfy { $0.header("api-key") == JournalEntry.maskedValue })
            #expect(gets.allSatisfy { $0.responseStatus == 200 })
        }
    }

    @Test func offers() async throws {
        try await BridgeLive.run { _, provider, _ in
            let eligible = try await provider.offer(
                for: BridgeLive.ref(Seed.activeMastercard), wallet: .googlePay, context: OperationContext())
            #expect(eligible.eligible)
            #expect(eligible.network == .mastercard)
            #expect(eligible.cardholderName == "Ada Lovelace")
            #expect(eligible.existingTokens.isEmpty)
            for id in [Seed.pendingVisa, Seed.inactiveMastercard, Seed.frozenByCustomer, Seed.frozenByDeveloper] {
                let offer = try await provider.offer(
                    for: BridgeLive.ref(id), wallet: .applePay, context: OperationContext())
                #expect(!offer.eligible)
                #expect(offer.ineligibleReason?.code == "cardNotActive")
            }
        }
    }

    @Test(arguments: [BridgeCertificateEncoding.base64, .hex])
    func applePayEndToEnd(encoding: BridgeCertificateEncoding) async throws {
        try await BridgeLive.run(encoding: encoding) { handle, provider, _ in
            let payload = try BridgeLive.applePayload(
                try await provider.provision(BridgeLive.appleRequest(), context: OperationContext()))
            let entry = try #require(
                handle.journal.entries(method: "POST", pathContains: "create_mobile_wallet_provisioning_request").first)
            #expect(
                entry.path
                    == "/v0/customers/\(Seed.customerID)/card_accounts/\(Seed.activeVisa)/create_mobile_wallet_provisioning_request"
            )
            #expect(entry.responseStatus == 200)
            #expect(entry.header("idempotency-key") != nil)
            #expect(entry.header("content-type") == "application/json")
            let body = try #require(BridgeLive.json(entry))
            let apple = try #require(body["apple_pay"]?.objectValue)
            #expect(body["wallet_provider"] == .string("apple_pay"))
            #expect(apple["encoding"] == .string(encoding.rawValue))
            func wire(_ data: Data) -> String { encoding == .hex ? ByteEncoding.hex(data) : data.base64EncodedString() }
            #expect(apple["leaf_cert"] == .string(wire(BridgeFixtures.leafCertificate)))
            #expect(apple["subordinate_cert"] == .string(wire(BridgeFixtures.subordinateCertificate)))
            #expect(apple["nonce"] == .string(wire(BridgeFixtures.nonce)))
            #expect(apple["nonce_signature"] == .string(wire(BridgeFixtures.nonceSignature)))

            // A real payload: a P-256 point and ciphertext that opens to the card data, which it does not show.
            let ephemeral = payload.ephemeralPublicKey.revealedBytes
            #expect(ephemeral.count == 65)
            #expect(ephemeral.first == 0x04)
            _ = try P256.KeyAgreement.PublicKey(x963Representation: ephemeral)
            let pan = "4432528000121269"
            #expect(!payload.encryptedPassData.revealedBytes.contains(Data(pan.utf8)))
            let plain = try BridgeSimulator.openEncryptedPassData(
                payload.encryptedPassData.revealedBytes, ephemeralPublicKey: ephemeral)
            let card = try #require(try JSONValue.parse(plain).objectValue)
            #expect(card["primaryAccountNumber"] == .string(pan))
            #expect(card["nonce"] == .string(ByteEncoding.hex(BridgeFixtures.nonce)))
            #expect(payload.activationData.count == 32)
        }
    }

    @Test func googlePayEndToEnd() async throws {
        try await BridgeLive.run { handle, provider, _ in
            let response = try await provider.provision(
                ProvisioningRequest(
                    card: BridgeLive.ref(Seed.activeMastercard), wallet: .googlePay, input: BridgeFixtures.googleInput),
                context: OperationContext()
            )
            guard let payload = response.googlePay else {
                Issue.record("expected a Google payload")
                return
            }
            let entry = try #require(handle.journal.last)
            #expect(
                entry.bodyText
                    == #"{"google_pay":{"client_device_id":"gdev-9a8b7c","client_wallet_account_id":"gwa-3c1d2e"},"wallet_provider":"google_pay"}"#
            )
            let text = String(decoding: payload.opaquePaymentCard.revealedBytes, as: UTF8.self)
            let sealed = try #require(ByteEncoding.decodeBase64Lenient(text))
            let plain = try JSONValue.parse(try BridgeSimulator.openOpaquePaymentCard(sealed))
            #expect(plain["pan"] == .string("5399910000345676"))
            #expect(plain["client_device_id"] == .string(BridgeFixtures.googleDeviceID))
            #expect(!text.contains("5399910000345676"))
        }
    }

    @Test func onlyActiveAccountsAreProvisioned() async throws {
        try await BridgeLive.run { handle, provider, _ in
            for id in [Seed.pendingVisa, Seed.inactiveMastercard, Seed.frozenByCustomer, Seed.frozenByDeveloper] {
                let error = await gatewayError {
                    _ = try await provider.provision(BridgeLive.appleRequest(id), context: OperationContext())
                }
                #expect(error?.code == .invalidRequest)
                #expect(error?.providerCode == "card_account_not_active")
                #expect(error?.httpStatus == 400)
                #expect(error?.fieldErrors.map(\.field) == ["cardAccountID"])
            }
            #expect(handle.journal.entries().count == 4)
        }
    }

    @Test func injected500IsRetriedWithTheSameKeyAndANewAttemptGetsANewKey() async throws {
        try await BridgeLive.run { handle, provider, _ in
            handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/v0/customers/", method: "POST",
                    action: .status(500, retryAfterSeconds: nil, message: nil)))
            _ = try await provider.provision(BridgeLive.appleRequest(), context: OperationContext())
            handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/v0/customers/", method: "POST",
                    action: .status(503, retryAfterSeconds: nil, message: nil)))
            _ = try await provider.provision(BridgeLive.appleRequest(), context: OperationContext())
            let posts = handle.journal.entries(
                method: "POST", pathContains: "create_mobile_wallet_provisioning_request")
            #expect(posts.map(\.responseStatus) == [500, 200, 503, 200])
            let keys = posts.map { $0.header("idempotency-key") }
            #expect(keys.allSatisfy { $0 != nil })
            #expect(keys[0] == keys[1])
            #expect(keys[2] == keys[3])
            #expect(keys[0] != keys[2])
            #expect(posts[0].body == posts[1].body)
        }
    }

    @Test func persistent500IsProviderUnavailable() async throws {
        try await BridgeLive.run { handle, provider, _ in
            handle.faults.inject(
                FaultRule(
                    count: 3, pathPrefix: "/v0/customers/", method: "POST",
                    action: .status(500, retryAfterSeconds: nil, message: "boom")))
            let error = await gatewayError {
                _ = try await provider.provision(BridgeLive.appleRequest(), context: OperationContext())
            }
            #expect(error?.code == .providerUnavailable)
            #expect(error?.providerCode == "unexpected")
            #expect(error?.isRetryable == true)
            #expect(Set(handle.journal.entries().compactMap { $0.header("idempotency-key") }).count == 1)
        }
    }

    @Test func repeatingAnOperationKeyReplaysThenExpiresAfter24Hours() async throws {
        try await BridgeLive.run { handle, provider, simulator in
            let context = OperationContext(idempotencyKey: "checkout-attempt-1")
            let first = try BridgeLive.applePayload(
                try await provider.provision(BridgeLive.appleRequest(), context: context))
            let second = try BridgeLive.applePayload(
                try await provider.provision(BridgeLive.appleRequest(), context: context))
            #expect(first == second, "a replay returns the first answer")
            simulator.simulationClock.advance(by: 24 * 60 * 60 + 1)
            let error = await gatewayError {
                _ = try await provider.provision(BridgeLive.appleRequest(), context: context)
            }
            #expect(error?.code == .conflict)
            #expect(error?.httpStatus == 422)
            #expect(error?.message.contains("24 hours") == true)
            #expect(handle.journal.entries().map(\.responseStatus) == [200, 200, 422])
        }
    }

    @Test(
        "one operation key reused for an attempt with a new nonce gets a new key, so Bridge never replays the old payload"
    )
    func sameOperationKeyWithAnotherNonceIsANewAttempt() async throws {
        try await BridgeLive.run { handle, provider, _ in
            let context = OperationContext(idempotencyKey: "attempt-7")
            _ = try await provider.provision(BridgeLive.appleRequest(), context: context)
            _ = try await provider.provision(BridgeLive.appleRequest(nonce: Data([1, 2, 3, 4])), context: context)
            let entries = handle.journal.entries()
            #expect(entries.map(\.responseStatus) == [200, 200])
            #expect(Set(entries.compactMap { $0.header("Idempotency-Key") }).count == 2)
        }
    }

    @Test func wrongAPIKeyAndUnknownCards() async throws {
        try await BridgeLive.run(apiKey: "sk-test-wrong") { _, provider, _ in
            let error = await gatewayError {
                _ = try await provider.card(BridgeLive.ref(Seed.activeVisa), context: OperationContext())
            }
            #expect(error?.code == .authenticationFailed)
            #expect(error?.providerCode == "invalid")
            #expect(error?.fieldErrors.map(\.field) == ["Api-Key"])
        }
        try await BridgeLive.run { _, provider, _ in
            let unknown = await gatewayError {
                _ = try await provider.card(
                    BridgeLive.ref("ca00000000000000000000000000dead"), context: OperationContext())
            }
            #expect(unknown?.code == .notFound)
            let otherCustomers = await gatewayError {
                _ = try await provider.card(BridgeLive.ref(Seed.otherCustomerActiveVisa), context: OperationContext())
            }
            #expect(otherCustomers?.code == .notFound)
            let card = try await provider.card(
                BridgeLive.ref(Seed.otherCustomerActiveVisa, customer: Seed.otherCustomerID),
                context: OperationContext())
            #expect(card.cardholderName == "Grace Brewster Hopper")
        }
    }

    @Test func freezeAndUnfreezeDriveTheStatus() async throws {
        try await BridgeLive.run { handle, provider, _ in
            let ref = BridgeLive.ref(Seed.activeVisa)
            let created = try await provider.freeze(
                card: ref, reason: .lostOrStolen, initiator: .customer, context: OperationContext())
            #expect(created.status == "freeze_created")
            #expect(created.startingAt == BridgeLive.start)
            #expect(try await provider.card(ref, context: OperationContext()).status == .locked)
            let replaced = try await provider.freeze(
                card: ref, reason: .other, initiator: .customer, context: OperationContext())
            #expect(replaced.status == "freeze_replaced")
            _ = try await provider.freeze(card: ref, reason: .suspectedFraud, context: OperationContext())
            let both = try await provider.card(ref, context: OperationContext())
            #expect(both.status == .suspended)
            #expect(both.statusReason == "other, suspected_fraud")
            let removed = try await provider.unfreeze(card: ref, context: OperationContext())
            #expect(removed.status == "freeze_removed")
            #expect(removed.reason == "suspected_fraud")
            #expect(try await provider.card(ref, context: OperationContext()).status == .locked)
            _ = try await provider.unfreeze(card: ref, initiator: .customer, context: OperationContext())
            #expect(try await provider.card(ref, context: OperationContext()).status == .active)

            let posts = handle.journal.entries(method: "POST")
            #expect(posts.count == 5)
            #expect(posts.allSatisfy { $0.header("idempotency-key") != nil })
            #expect(Set(posts.compactMap { $0.header("idempotency-key") }).count == 5)
            #expect(posts.first?.bodyText == #"{"initiator":"customer","reason":"lost_or_stolen"}"#)
            #expect(handle.journal.entries(method: "GET").allSatisfy { $0.header("idempotency-key") == nil })

            let missing = await gatewayError { _ = try await provider.unfreeze(card: ref, context: OperationContext()) }
            #expect(missing?.code == .invalidRequest)
            #expect(missing?.providerCode == "freeze_not_found")
        }
    }

    @Test func simulatorWebhooksVerify() async throws {
        try await BridgeLive.run { _, provider, simulator in
            _ = try await provider.freeze(
                card: BridgeLive.ref(Seed.activeVisa), reason: .suspiciousActivity, context: OperationContext())
            let delivery = try #require(
                try simulator.signedCardAccountWebhook(cardAccountID: Seed.activeVisa, previousStatus: "active"))
            var fields = HTTPFields()
            for (name, value) in delivery.headers { fields[HTTPField.Name(name)!] = value }
            let events = try provider.verify(
                WebhookDelivery(headers: fields, body: delivery.body), now: simulator.simulationClock.now())
            guard let change = events.first?.event.cardStatusChanged else {
                Issue.record("expected a card status change")
                return
            }
            #expect(change.card == BridgeLive.ref(Seed.activeVisa))
            #expect(change.oldStatus == .active)
            #expect(change.newStatus == .suspended)
            #expect(events.first?.providerType == "card_account.updated.status_transitioned")
            #expect(events.first?.occurredAt == BridgeLive.start)

            let stale = gatewayError {
                _ = try provider.verify(
                    WebhookDelivery(headers: fields, body: delivery.body),
                    now: simulator.simulationClock.now().addingTimeInterval(601))
            }
            #expect(stale?.code == .signatureInvalid)
        }
    }

    @Test func throughTheGateway() async throws {
        try await BridgeLive.run { handle, _, simulator in
            let json = """
                {"providers":{"bridge-sim":{"kind":"bridge","baseURL":"\(handle.baseURL.absoluteString)",
                  "credentials":{"apiKey":"literal:\(Seed.apiKey)","webhookPublicKey":"env:BRIDGE_SIM_WEBHOOK_KEY"},
                  "options":{"certificateEncoding":"hex"},"maxAttempts":2}},
                 "routes":[{"when":{"issuer":"bridge"},"use":"bridge-sim"}]}
                """
            let registry = ProviderRegistry([.bridge])
            let secrets = SecretResolver(environment: ["BRIDGE_SIM_WEBHOOK_KEY": simulator.webhookPublicKeyPEM])
            let configuration = try GatewayConfiguration.load(
                from: Data(json.utf8), registry: registry, secrets: secrets)
            let gateway = try CardGateway(configuration: configuration, registry: registry)
            let target = RouteTarget.key(RouteKey(issuer: "bridge"))
            let offer = try await gateway.provisioningOffer(
                for: BridgeLive.ref(Seed.activeVisa), wallet: .applePay, via: target)
            #expect(offer.eligible)
            #expect(offer.provider == "bridge-sim")
            _ = try await gateway.provision(BridgeLive.appleRequest(), via: target)
            let body = try #require(handle.journal.last.flatMap(BridgeLive.json))
            #expect(body["apple_pay"]?["encoding"] == .string("hex"))
            let samsung = await gatewayError {
                _ = try await gateway.provision(
                    ProvisioningRequest(
                        card: BridgeLive.ref(Seed.activeVisa), wallet: .samsungPay, input: BridgeFixtures.googleInput),
                    via: target)
            }
            #expect(samsung?.code == .unsupported)
        }
    }
}
