@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
@_spi(AdapterSupport) import CardGatewayPaysafe
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import Logging
import PaysafeSimulator
import Testing
import SharedTestSupport

/// The adapter against its simulator over real HTTP on 127.0.0.1.
struct SimulatorHarness {
    let handle: SimulatorHandle
    let provider: PaysafeProvider
    /// The adapter's clock (independent of the simulator's, so tests can make them disagree).
    let adapterClock: TestClock
    let simulatorClock: SimulationClock

    var journal: RequestJournal { handle.journal }
    var tokenEntries: [JournalEntry] { journal.entries(pathContains: "/token") }
    var businessEntries: [JournalEntry] { journal.entries().filter { !$0.path.hasSuffix("/token") } }

    static func run<R: Sendable>(
        region: PaysafeRegion = .row, logger: Logger? = nil,
        retry: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5)),
        requireRequestSignature: Bool = false, signedRequests: Set<PaysafeSignedOperation> = [],
        _ body: (SimulatorHarness) async throws -> R
    ) async throws -> R {
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        let simulatorClock = SimulationClock(fixed: start)
        let adapterClock = TestClock(start)
        let simulator = PaysafeSimulator(clock: simulatorClock, requireRequestSignature: requireRequestSignature)
        return try await withSimulator(simulator) { handle in
            let http = try ProviderHTTPClient(
                instance: "paysafe-sim", kind: .paysafe, baseURL: handle.baseURL, transport: AsyncHTTPClientTransport(),
                timeout: .seconds(30),
                retry: retry, logger: logger ?? OperationContext.noopLogger
            )
            let credentials = PaysafeSimulator.Credentials.default
            var configuration = PaysafeConfiguration(
                clientID: Secret(credentials.clientID), clientSecret: Secret(credentials.clientSecret),
                webhookSecret: Secret(credentials.webhookSecret),
                brand: credentials.brand, region: region
            )
            configuration.signedRequests = signedRequests
            // Paysafe's page describes one HMAC secret per partner: the simulator checks requests with it too.
            configuration.requestSigningSecret = signedRequests.isEmpty ? nil : Secret(credentials.webhookSecret)
            let provider = try PaysafeProvider(configuration: configuration, http: http, now: { adapterClock.now() })
            return try await body(
                SimulatorHarness(
                    handle: handle, provider: provider, adapterClock: adapterClock, simulatorClock: simulatorClock))
        }
    }

    /// Moves both clocks.
    func advance(_ seconds: TimeInterval) {
        adapterClock.advance(seconds)
        simulatorClock.advance(by: seconds)
    }
}

@Suite("Paysafe adapter against the simulator", .timeLimit(.minutes(5)))
struct PaysafeIntegrationTests {
    static let eu = Seed.euCustomer
    static func ref(_ id: String, _ customer: String = Seed.euCustomer) -> CardRef {
        CardRef(id: id, customer: customer)
    }

    @Test("list with filters and paging, get with tokenizations and actions")
    func listAndGet() async throws {
        try await SimulatorHarness.run { sim in
            let page = try await sim.provider.listCards(
                CardQuery(
                    customer: Self.eu, types: [.virtual], statuses: [.active, .locked], limit: 2, offset: 0,
                    includeWalletTokens: true, includeAvailableActions: true),
                context: OperationContext()
            )
            #expect(page.total == 4)
            #expect(page.cards.count == 2)
            #expect(page.hasMore)
            #expect(page.page == 1)
            let next = try await sim.provider.listCards(
                CardQuery(customer: Self.eu, types: [.virtual], statuses: [.active, .locked], limit: 2, offset: 2),
                context: OperationContext())
            #expect(next.cards.count == 2)
            #expect(!next.hasMore)
            #expect(Set((page.cards + next.cards).map(\.id)).count == 4)

            let all = try await sim.provider.listCards(
                CardQuery(customer: Self.eu, limit: 50), context: OperationContext())
            #expect(Set(all.cards.map(\.status)) == Set(CardStatus.allCases).subtracting([.unknown]))

            let card = try await sim.provider.card(Self.ref(Seed.tokenizedCardID), context: OperationContext())
            #expect(card.status == .active)
            #expect(card.scheme == .mastercard)
            #expect(card.lastFour == "1212")
            #expect(card.walletTokens.map(\.deviceAccountReference) == [Seed.tokenizedDPANRef])
            #expect(card.walletTokens.first?.status == .active)
            #expect(card.availableActions.contains(.lock))
            let entry = try #require(sim.businessEntries.last)
            #expect(entry.query?.contains("include=TOKENIZATIONS") == true)
            #expect(entry.header("authorization") == JournalEntry.maskedValue)
        }
    }

    @Test("create virtual and physical, activate with the seeded CVV, lock and unlock, programs")
    func cardLifecycle() async throws {
        try await SimulatorHarness.run { sim in
            let programs = try await sim.provider.programs(customer: Self.eu, context: OperationContext())
            #expect(programs.map(\.name).contains(Seed.virtualMCProgram))
            #expect(programs.first { $0.name == Seed.physicalVisaProgram }?.isDigital == true)

            let virtual = try await sim.provider.createCard(
                CreateCardRequest(
                    customer: Self.eu, type: .virtual, program: Seed.virtualMCProgram, currency: "EUR",
                    pin: Secret("4321")), context: OperationContext()
            )
            #expect(virtual.status == .active)
            #expect(virtual.type == .virtual)
            #expect(sim.businessEntries.last.map { $0.bodyText.contains("\"userAgent\":\"CardGateway\"") } == true)

            let physical = try await sim.provider.createCard(
                CreateCardRequest(
                    customer: Self.eu, type: .physical, program: Seed.physicalMCProgram, currency: "BGN",
                    deliveryAddress: DeliveryAddress(
                        address1: "Tsarigradsko Shose 73", city: "Sofia", countryCode: "BG", postalCode: "1000")
                ),
                context: OperationContext()
            )
            #expect(physical.status == .inactive)
            #expect(physical.providerStatus == "ISSUED")

            let activated = try await sim.provider.activateCard(
                ActivateCardRequest(
                    card: Self.ref(physical.id), lastFour: try #require(physical.lastFour),
                    cvv: Secret(Seed.createdCardCVV)), context: OperationContext()
            )
            #expect(activated.status == .active)
            let locked = try await sim.provider.updateCard(
                UpdateCardRequest(card: Self.ref(physical.id), change: .status(.locked, reason: "Lost")),
                context: OperationContext())
            #expect(locked.status == .locked)
            #expect(locked.statusReason == "Lost")
            let unlocked = try await sim.provider.updateCard(
                UpdateCardRequest(card: Self.ref(physical.id), change: .status(.active, reason: nil)),
                context: OperationContext())
            #expect(unlocked.status == .active)

            // The journal masks the CVV and the PIN as the library's logs do; the other wire fields stay as sent.
            let activation = try #require(sim.journal.entries(method: "POST", pathContains: "/activate").last)
            let activationBody = try #require(
                try JSONSerialization.jsonObject(with: activation.body) as? [String: String])
            #expect(activationBody["cvv"] == JournalEntry.maskedValue)
            #expect(activationBody["lastFourDigits"] == physical.lastFour)
            #expect(activationBody["userAgent"] != nil)
            #expect(!activation.bodyText.contains(Seed.createdCardCVV))
            let unlock = try #require(sim.businessEntries.last)
            #expect(unlock.method == "PATCH")
            #expect(unlock.bodyText == #"{"status":"ACTIVE","userAgent":"CardGateway"}"#)
        }
    }

    @Test("the simulator's refusals map to the right codes")
    func refusals() async throws {
        try await SimulatorHarness.run { sim in
            let missing = await gatewayError {
                _ = try await sim.provider.card(Self.ref("no-such-card"), context: OperationContext())
            }
            #expect(missing?.code == .notFound)
            #expect(missing?.providerCode == "5269")

            let again = await gatewayError {
                _ = try await sim.provider.activateCard(
                    ActivateCardRequest(card: Self.ref(Seed.activeCardID), lastFour: "7009", cvv: Secret("123")),
                    context: OperationContext())
            }
            // Refused by the adapter after reading the card: the CVV never travels.
            #expect(again?.code == .invalidCardState)
            #expect(again?.message.contains("ACTIVE") == true)
            #expect(sim.journal.entries(method: "POST", pathContains: "\(Seed.activeCardID)/activate").isEmpty)

            let wrongCVV = await gatewayError {
                _ = try await sim.provider.activateCard(
                    ActivateCardRequest(
                        card: Self.ref(Seed.issuedCardID), lastFour: Seed.issuedCardLastFour, cvv: Secret("999")),
                    context: OperationContext())
            }
            #expect(wrongCVV?.code == .invalidRequest)
            #expect(wrongCVV?.description.contains("999") == false)

            let currency = await gatewayError {
                _ = try await sim.provider.createCard(
                    CreateCardRequest(
                        customer: Self.eu, type: .virtual, program: Seed.virtualMCProgram, currency: "USD"),
                    context: OperationContext())
            }
            #expect(currency?.code == .invalidRequest)
            #expect(currency?.providerCode == "5068")
            #expect(currency?.fieldErrors.map(\.field) == ["currency"])

            let forbidden = await gatewayError {
                _ = try await sim.provider.updateCard(
                    UpdateCardRequest(card: Self.ref(Seed.cancelledCardID), change: .status(.active, reason: nil)),
                    context: OperationContext())
            }
            #expect(forbidden?.code == .invalidCardState)
            #expect(sim.businessEntries.last?.method == "GET", "refused locally after reading the card")
        }
    }

    @Test("Apple Pay: offer, tokenize (hex on the wire), confirm; the card then shows the COMPLETED tokenization")
    func applePay() async throws {
        try await SimulatorHarness.run { sim in
            let ref = Self.ref(Seed.activeCardID)
            let offer = try await sim.provider.offer(for: ref, wallet: .applePay, context: OperationContext())
            #expect(offer.eligible)
            #expect(offer.network == .mastercard)
            #expect(offer.lastFour == "7009")
            #expect(offer.existingTokens.isEmpty)

            let leaf = Data((0..<40).map { UInt8($0 * 3 & 0xFF) })
            let subordinate = Data((0..<40).map { UInt8(($0 * 7 + 1) & 0xFF) })
            let nonce = Data([0x1A, 0x2B, 0x3C, 0x4D])
            let signature = Data((0..<16).map { UInt8(255 - $0) })
            let input = ApplePayProvisioningInput(
                certificates: [leaf, subordinate], nonce: nonce, nonceSignature: signature)
            let response = try await sim.provider.provision(
                ProvisioningRequest(card: ref, wallet: .applePay, input: .applePay(input)), context: OperationContext())
            guard let payload = response.applePay else { Issue.record("expected an Apple Pay payload"); return }
            #expect(payload.encryptedPassData.count == 256)
            #expect(payload.ephemeralPublicKey.count == 65)
            #expect(payload.network == .mastercard)
            #expect(payload.tokenProvider == "TOKEN_PROVIDER_MASTERCARD")

            let sent = try #require(sim.journal.entries(method: "POST", pathContains: "/tokenizations").last)
            let body = try #require(try JSONSerialization.jsonObject(with: sent.body) as? [String: String])
            // The journal masks certificate chains wholesale; PaysafeEncodingTests.appleHex checks their hex on the wire.
            #expect(body["leafCertificate"] == JournalEntry.maskedValue)
            #expect(body["subordinateCertificate"] == JournalEntry.maskedValue)
            #expect(body["nonce"] == "1a2b3c4d")
            #expect(body["nonceSignature"] == signature.map { String(format: "%02x", $0) }.joined())
            #expect(body["walletType"] == "APPLE_PAY")

            let pending = try await sim.provider.card(ref, context: OperationContext())
            #expect(pending.walletTokens.map(\.status) == [.requested])

            try await sim.provider.confirm(
                ProvisioningConfirmation(card: ref, wallet: .applePay, deviceAccountReference: "DAPLMC-NEW-1"),
                context: OperationContext())
            let after = try await sim.provider.offer(for: ref, wallet: .applePay, context: OperationContext())
            #expect(after.eligible, "a COMPLETED tokenization leaves the card eligible")
            #expect(after.existingTokens.map(\.deviceAccountReference) == ["DAPLMC-NEW-1"])
            #expect(after.existingTokens.map(\.status) == [.active])
        }
    }

    @Test("Google Pay on a Visa card: ids required, then a payload")
    func googlePay() async throws {
        try await SimulatorHarness.run { sim in
            let ref = Self.ref(Seed.activeVisaCardID)
            let missing = await gatewayError {
                _ = try await sim.provider.provision(
                    ProvisioningRequest(
                        card: ref, wallet: .googlePay,
                        input: .googlePay(.init(clientDeviceID: "", clientWalletAccountID: "w"))),
                    context: OperationContext())
            }
            #expect(missing?.code == .invalidRequest)
            #expect(sim.journal.entries(method: "POST", pathContains: "/tokenizations").isEmpty)

            let response = try await sim.provider.provision(
                ProvisioningRequest(
                    card: ref, wallet: .googlePay,
                    input: .googlePay(
                        .init(
                            clientDeviceID: "WNkcsfZPiKfa5PrH3jilkQYT",
                            clientWalletAccountID: "40exmLiWV1iV55ZVstOAiMf7"))),
                context: OperationContext()
            )
            guard let payload = response.googlePay else { Issue.record("expected a Google Pay payload"); return }
            // The simulator sends 192 derived bytes in Base64; the adapter passes that text on as-is.
            #expect(payload.opaquePaymentCard.count == 256)
            #expect(Data(base64Encoded: payload.opaquePaymentCard.revealedBytes)?.count == 192)
            #expect(payload.network == .visa)
            #expect(payload.lastFour == "4242")
            try await sim.provider.confirm(
                ProvisioningConfirmation(
                    card: ref, wallet: .googlePay, deviceAccountReference: "DGOOG-1",
                    walletID: "40exmLiWV1iV55ZVstOAiMf7"), context: OperationContext())
            let card = try await sim.provider.card(ref, context: OperationContext())
            #expect(card.walletTokens.first?.walletID == "40exmLiWV1iV55ZVstOAiMf7")
            #expect(card.walletTokens.first?.status == .active)
        }
    }

    @Test(
        "offers for cards in every non-usable status are ineligible",
        arguments: [
            Seed.issuedCardID, Seed.pendingCardID, Seed.appliedCardID, Seed.lockedCardID, Seed.suspendedCardID,
            Seed.cancelledCardID, Seed.expiredCardID, Seed.rejectedCardID,
        ])
    func ineligible(_ cardID: String) async throws {
        try await SimulatorHarness.run { sim in
            let offer = try await sim.provider.offer(
                for: Self.ref(cardID), wallet: .googlePay, context: OperationContext())
            #expect(!offer.eligible)
            #expect(offer.ineligibleReason?.code == "cardNotActive")
        }
    }

    @Test(
        "SCA round trip: challenge → attempt → repeat with context.sca; the SCA-Authorization header was sent (masked)")
    func scaRoundTrip() async throws {
        try await SimulatorHarness.run { sim in
            let ref = Self.ref(Seed.scaActiveCardID, Seed.scaCustomer)
            let request = UpdateCardRequest(card: ref, change: .status(.locked, reason: "Customer request"))
            let error = await gatewayError {
                _ = try await sim.provider.updateCard(request, context: OperationContext())
            }
            #expect(error?.code == .scaRequired)
            let challenge = try #require(error?.scaChallenge)
            #expect(challenge.mode == "OUTSOURCED")
            #expect(challenge.verifications.map(\.method) == ["PIN", "OTP"])
            #expect(challenge.verifications.last?.channel == "SMS")
            #expect(challenge.expires == challenge.created?.addingTimeInterval(900))
            #expect(sim.tokenEntries.count == 1, "an SCA 401 does not refresh the token")

            let attempt = try await sim.provider.submitSCAAttempt(
                eventID: challenge.eventID, walletOperationID: challenge.walletOperationID, method: "OTP",
                channel: "SMS", context: OperationContext()
            )
            #expect(attempt.isVerified)
            #expect(attempt.currentAttempts == 1)

            let card = try await sim.provider.updateCard(
                request, context: OperationContext(sca: challenge.authorization))
            #expect(card.status == .locked)
            let patches = sim.journal.entries(method: "PATCH")
            #expect(patches.count == 2)
            #expect(patches[0].header("sca-authorization") == nil)
            #expect(patches[1].header("sca-authorization") == JournalEntry.maskedValue)
            #expect(patches[1].responseStatus == 200)
            #expect(sim.journal.entries(method: "GET").allSatisfy { $0.header("sca-authorization") == nil })
            #expect(sim.tokenEntries.count == 1)
        }
    }

    @Test("secure details of the SCA customer need SCA; the link comes back as a Secret")
    func secureDetails() async throws {
        try await SimulatorHarness.run { sim in
            let ref = Self.ref(Seed.scaActiveCardID, Seed.scaCustomer)
            let error = await gatewayError {
                _ = try await sim.provider.secureDetailsAccess(for: ref, context: OperationContext())
            }
            let challenge = try #require(error?.scaChallenge)
            _ = try await sim.provider.submitSCAAttempt(
                eventID: challenge.eventID, walletOperationID: challenge.walletOperationID, method: "PIN", channel: nil,
                path: .v2, context: OperationContext())
            #expect(sim.journal.entries(pathContains: "/digitalwallets/v2/sca/events/").count == 1)
            let access = try await sim.provider.secureDetailsAccess(
                for: ref, context: OperationContext(sca: challenge.authorization))
            #expect(
                access.url.revealedValue.hasPrefix(
                    "http://127.0.0.1:\(sim.handle.port)/secure-details/view?secureDetailsToken=sd_"))
            #expect(access.expires == sim.simulatorClock.now().addingTimeInterval(300))
            #expect(!access.description.contains("secureDetailsToken"))

            let plain = try await sim.provider.secureDetailsAccess(
                for: Self.ref(Seed.activeCardID), context: OperationContext())
            #expect(!plain.url.isEmpty)
        }
    }

    @Test("20 concurrent calls with an expired token: exactly one token request (journal)")
    func concurrentRefresh() async throws {
        try await SimulatorHarness.run { sim in
            _ = try await sim.provider.card(Self.ref(Seed.activeCardID), context: OperationContext())
            #expect(sim.tokenEntries.count == 1)
            sim.advance(3600)
            let provider = sim.provider
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        _ = try await provider.card(Self.ref(Seed.activeCardID), context: OperationContext())
                    }
                }
                try await group.waitForAll()
            }
            #expect(sim.tokenEntries.count == 2)
            #expect(sim.businessEntries.count == 21)
            #expect(sim.businessEntries.allSatisfy { $0.responseStatus == 200 })
        }
    }

    @Test("a plain 401 (token expired at Paysafe before our margin) refreshes once, then succeeds")
    func refreshOn401() async throws {
        try await SimulatorHarness.run { sim in
            _ = try await sim.provider.card(Self.ref(Seed.activeCardID), context: OperationContext())
            sim.simulatorClock.advance(by: 1000)
            let card = try await sim.provider.card(Self.ref(Seed.activeCardID), context: OperationContext())
            #expect(card.status == .active)
            #expect(sim.tokenEntries.count == 2)
            #expect(sim.businessEntries.map(\.responseStatus) == [200, 401, 200])
        }
    }

    @Test("reads are retried after a 503; writes are not (Paysafe has no idempotency key)")
    func retries() async throws {
        try await SimulatorHarness.run { sim in
            sim.handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/digitalwallets/v1/customers", method: "GET",
                    action: .status(503, retryAfterSeconds: nil, message: "busy")))
            let card = try await sim.provider.card(Self.ref(Seed.activeCardID), context: OperationContext())
            #expect(card.status == .active)
            #expect(sim.businessEntries.map(\.responseStatus) == [503, 200])

            sim.journal.clear()
            sim.handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/digitalwallets/v1/customers", method: "POST",
                    action: .status(500, retryAfterSeconds: nil, message: "oops")))
            let error = await gatewayError {
                _ = try await sim.provider.createCard(
                    CreateCardRequest(
                        customer: Self.eu, type: .virtual, program: Seed.virtualMCProgram, currency: "EUR"),
                    context: OperationContext())
            }
            #expect(error?.code == .providerUnavailable)
            #expect(error?.mayHaveReachedProvider == true)
            #expect(sim.businessEntries.count == 1)
            #expect(sim.businessEntries.first?.header("idempotency-key") == nil)
        }
    }

    @Test("rate limiting carries Retry-After")
    func rateLimited() async throws {
        try await SimulatorHarness.run(retry: .none) { sim in
            sim.handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/digitalwallets/v1/customers",
                    action: .status(429, retryAfterSeconds: 12, message: "slow down")))
            let error = await gatewayError {
                _ = try await sim.provider.card(Self.ref(Seed.activeCardID), context: OperationContext())
            }
            #expect(error?.code == .rateLimited)
            #expect(error?.retryAfter == .seconds(12))
        }
    }

    @Test("malformed and truncated bodies are invalid responses; a dropped connection on a read is retried")
    func brokenResponses() async throws {
        try await SimulatorHarness.run(retry: .none) { sim in
            sim.handle.faults.inject(
                FaultRule(count: 1, pathPrefix: "/digitalwallets/v1/customers", action: .malformedBody(status: 200)))
            let malformed = await gatewayError {
                _ = try await sim.provider.card(Self.ref(Seed.activeCardID), context: OperationContext())
            }
            #expect(malformed?.code == .invalidResponse)
            sim.handle.faults.inject(
                FaultRule(count: 1, pathPrefix: "/digitalwallets/v1/customers", action: .truncatedBody(status: 200)))
            let truncated = await gatewayError {
                _ = try await sim.provider.card(Self.ref(Seed.activeCardID), context: OperationContext())
            }
            #expect([CardGatewayError.Code.invalidResponse, .transport].contains(truncated?.code))
        }
        try await SimulatorHarness.run { sim in
            sim.handle.faults.inject(
                FaultRule(count: 1, pathPrefix: "/digitalwallets/v1/customers", method: "GET", action: .dropConnection))
            let card = try await sim.provider.card(Self.ref(Seed.activeCardID), context: OperationContext())
            #expect(card.status == .active)
        }
    }

    @Test("a slow response past the caller's deadline is a timeout")
    func deadline() async throws {
        try await SimulatorHarness.run(retry: .none) { sim in
            _ = try await sim.provider.card(Self.ref(Seed.activeCardID), context: OperationContext())
            sim.handle.faults.inject(
                FaultRule(count: 1, pathPrefix: "/digitalwallets/v1/customers", action: .delay(milliseconds: 3_000)))
            let error = await gatewayError {
                _ = try await sim.provider.card(Self.ref(Seed.activeCardID), context: .timeout(.milliseconds(500)))
            }
            #expect(error?.code == .timeout)
        }
    }

    @Test("US customers: PIN refused locally, a valid US physical card is created")
    func usRules() async throws {
        try await SimulatorHarness.run(region: .us) { sim in
            let address = DeliveryAddress(
                address1: "1 Main Street", city: "New York", countryCode: "US", state: "NY", postalCode: "10001")
            let refused = await gatewayError {
                _ = try await sim.provider.createCard(
                    CreateCardRequest(
                        customer: Seed.usCustomer, type: .physical, program: Seed.usPhysicalProgram, currency: "USD",
                        pin: Secret("1234"), deliveryAddress: address, termsAndConditionsAccepted: true,
                        eDisclosureAccepted: true),
                    context: OperationContext()
                )
            }
            #expect(refused?.fieldErrors.map(\.field) == ["pin"])
            #expect(sim.journal.entries().isEmpty)
            let card = try await sim.provider.createCard(
                CreateCardRequest(
                    customer: Seed.usCustomer, type: .physical, program: Seed.usPhysicalProgram, currency: "USD",
                    deliveryAddress: address, termsAndConditionsAccepted: true, eDisclosureAccepted: true),
                context: OperationContext()
            )
            #expect(card.status == .inactive)
            #expect(card.scheme == .visa)
            let activated = try await sim.provider.activateCard(
                ActivateCardRequest(
                    card: Self.ref(Seed.usIssuedCardID, Seed.usCustomer), lastFour: Seed.usIssuedCardLastFour,
                    cvv: Secret(Seed.usIssuedCardCVV)), context: OperationContext()
            )
            #expect(activated.status == .active)
        }
    }

    @Test("the simulator's signed webhook verifies; tampering is caught")
    func webhook() async throws {
        try await SimulatorHarness.run { sim in
            let simulator = try #require(sim.handle.simulator as? PaysafeSimulator)
            let delivery = simulator.signedWebhook(
                cardID: Seed.activeCardID, oldStatus: "ACTIVE", newStatus: "LOCKED", eventID: "evt-7")
            var headers = HTTPFields()
            for (name, value) in delivery.headers { headers[HTTPField.Name(name)!] = value }
            let events = try sim.provider.verify(WebhookDelivery(headers: headers, body: delivery.body), now: Date())
            #expect(events.first?.id == "evt-7")
            #expect(
                events.first?.event
                    == .cardStatusChanged(
                        CardStatusChange(
                            card: Self.ref(Seed.activeCardID), oldStatus: .active, newStatus: .locked,
                            providerOldStatus: "ACTIVE", providerNewStatus: "LOCKED"
                        )))
            var tampered = delivery.body
            tampered[tampered.startIndex] = UInt8(ascii: " ")
            #expect(throws: CardGatewayError.self) {
                try sim.provider.verify(WebhookDelivery(headers: headers, body: tampered), now: Date())
            }
        }
    }

    @Test("a simulator requiring request signatures refuses unsigned writes and takes Paysafe-signed ones")
    func requestSignatures() async throws {
        try await SimulatorHarness.run(requireRequestSignature: true) { sim in
            let refused = await gatewayError {
                _ = try await sim.provider.changeStatus(
                    CardStatusRequest(card: Self.ref(Seed.activeVisaCardID), intent: .lock), context: OperationContext()
                )
            }
            #expect(refused?.providerCode == "SIM-SIGNATURE-INVALID")
            #expect(refused?.httpStatus == 400)
            #expect(sim.businessEntries.last?.header("signature") == nil)
            let card = try await sim.provider.card(Self.ref(Seed.activeVisaCardID), context: OperationContext())
            #expect(card.status == .active, "the unsigned write changed nothing")
        }
        try await SimulatorHarness.run(
            requireRequestSignature: true, signedRequests: Set(PaysafeSignedOperation.allCases)
        ) {
            sim in
            let locked = try await sim.provider.changeStatus(
                CardStatusRequest(card: Self.ref(Seed.activeVisaCardID), intent: .lock), context: OperationContext())
            #expect(locked.status == .locked)
            _ = try await sim.provider.createCard(
                CreateCardRequest(customer: Self.eu, type: .virtual, program: Seed.virtualMCProgram, currency: "EUR"),
                context: OperationContext())
            let writes = sim.businessEntries.filter { $0.method != "GET" }
            #expect(writes.map(\.method) == ["PATCH", "POST"])
            // The journal masks the header (the simulator checked it against Paysafe's scheme and answered 200);
            // its bytes are checked against the page-validated signer in PaysafeEncodingTests.
            #expect(writes.map { $0.header("signature") } == [JournalEntry.maskedValue, JournalEntry.maskedValue])
            #expect(writes.map(\.responseStatus) == [200, 201])
            #expect(sim.businessEntries.filter { $0.method == "GET" }.allSatisfy { $0.header("signature") == nil })
        }
    }
}
