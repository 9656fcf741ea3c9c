import AdyenSimulator
import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import Testing

@testable import CardGatewayAdyen
import SharedTestSupport

@Suite("Adyen adapter against its simulator over HTTP", .timeLimit(.minutes(5)))
struct AdyenIntegrationTests {
    typealias Seed = AdyenSimulator.Seed

    /// What the app's provisioning SDK answers to the sdkInput of `response` (the simulator refuses anything else).
    static func answer(_ response: ProvisioningResponse, extra: Data = Data()) -> Data {
        guard let input = response.issuerSDKInput else { return Data() }
        return AdyenSimulator.sdkOutput(answering: input.revealedBytes, extra: extra)
    }

    @Test("the relay over several round trips: GET then 2 POSTs, bytes exact, Base64 on the wire, keys ≤ 64")
    func relay() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let recorder = ResponseRecordingTransport(AsyncHTTPClientTransport())
            let provider = try SimulatorFixture.provider(handle, transport: recorder)
            let card = CardRef(id: Seed.activeVisaID)

            let offer = try await provider.offer(for: card, wallet: .applePay, context: OperationContext())
            #expect(offer.eligible)
            #expect(offer.flow == .issuerSDKRelay)
            #expect(offer.network == .visa)
            #expect(offer.lastFour == "4321")
            #expect(offer.cardholderName == "Sam Hopper")
            #expect(offer.existingTokens.isEmpty)

            var inputs: [Data] = []
            var outputs: [Data] = []
            let extras = [
                Data([0xfb, 0xff, 0x00, 0x10, 0x3f]), Data((0..<300).map { UInt8(truncatingIfNeeded: $0 * 37) }),
            ]
            guard
                let first = try await provider.provision(
                    ProvisioningRequest(card: card, wallet: .applePay, input: .issuerSDK(output: nil)),
                    context: OperationContext()
                ).issuerSDKInput
            else {
                Issue.record("expected an sdkInput")
                return
            }
            inputs.append(first.revealedBytes)
            for extra in extras {
                // The app's SDK answers the sdkInput it was handed last.
                let output = AdyenSimulator.sdkOutput(answering: inputs[inputs.count - 1], extra: extra)
                outputs.append(output)
                let response = try await provider.provision(
                    ProvisioningRequest(
                        card: card, wallet: .applePay, input: .issuerSDK(output: SensitiveData(output))),
                    context: OperationContext())
                guard let next = response.issuerSDKInput else {
                    Issue.record("expected an sdkInput")
                    return
                }
                inputs.append(next.revealedBytes)
            }
            #expect(Set(inputs).count == 3)

            // What the adapter returned is exactly what went over the wire, decoded.
            let wire = recorder.responses.filter { $0.path.hasSuffix("/networkTokenActivationData") }.compactMap {
                reply in
                (try? JSONValue.parse(reply.body))?["sdkInput"]?.stringValue.flatMap { Data(base64Encoded: $0) }
            }
            #expect(wire == inputs)

            // What the simulator received: the Base64 of exactly our bytes, with an idempotency key.
            let posts = handle.journal.entries().filter { $0.method == "POST" }
            #expect(posts.count == 2)
            for (post, output) in zip(posts, outputs) {
                #expect(post.path == "/bcl/v2/paymentInstruments/\(Seed.activeVisaID)/networkTokenActivationData")
                let body = try JSONValue.parse(post.body)
                #expect(body == .object(["sdkOutput": .string(output.base64EncodedString())]))
                let key = try #require(post.header("idempotency-key"))
                #expect(!key.isEmpty && key.count <= 64)
                #expect(post.header("x-api-key") == "<masked>")
                #expect(post.responseStatus == 200)
            }
            #expect(posts[0].header("idempotency-key") != posts[1].header("idempotency-key"))
            let get = try #require(
                handle.journal.entries().first {
                    $0.method == "GET" && $0.path.hasSuffix("/networkTokenActivationData")
                })
            #expect(get.header("idempotency-key") == nil)
            #expect(get.body.isEmpty)

            // The exchange completed: a new active Apple Pay token.
            let tokens = try await provider.networkTokens(for: card, context: OperationContext())
            #expect(tokens.count == 1)
            #expect(tokens.first?.status == .active)
            #expect(tokens.first?.wallet == .applePay)
            #expect(tokens.first?.network == .visa)
        }
    }

    @Test("a POST that meets an injected 500 is retried with the same Idempotency-Key and succeeds once")
    func retryKeepsKey() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            let card = CardRef(id: Seed.activeVisaID)
            let start = try await provider.provision(
                ProvisioningRequest(card: card, wallet: .googlePay, input: .issuerSDK(output: nil)),
                context: OperationContext())
            handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/bcl/v2/paymentInstruments/\(Seed.activeVisaID)/networkTokenActivationData",
                    method: "POST", action: .status(500, retryAfterSeconds: nil, message: nil)))
            let round1 = try await provider.provision(
                ProvisioningRequest(
                    card: card, wallet: .googlePay, input: .issuerSDK(output: SensitiveData(Self.answer(start)))),
                context: OperationContext())

            let posts = handle.journal.entries().filter { $0.method == "POST" }
            #expect(posts.map(\.responseStatus) == [500, 200])
            let keys = posts.map { $0.header("idempotency-key") }
            #expect(keys[0] != nil)
            #expect(keys[0] == keys[1])
            #expect(posts[0].body == posts[1].body)

            // Only one round was consumed: one more POST completes the exchange.
            #expect(try await provider.networkTokens(for: card, context: OperationContext()).isEmpty)
            _ = try await provider.provision(
                ProvisioningRequest(
                    card: card, wallet: .googlePay,
                    input: .issuerSDK(output: SensitiveData(Self.answer(round1, extra: Data("googlePay".utf8))))),
                context: OperationContext())
            let tokens = try await provider.networkTokens(for: card, context: OperationContext())
            #expect(tokens.map(\.wallet) == [.googlePay])
        }
    }

    @Test("a GET retried after 503 and a dropped connection still answers")
    func readRetries() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/bcl/v2/paymentInstruments", method: "GET",
                    action: .status(503, retryAfterSeconds: nil, message: nil)))
            handle.faults.inject(
                FaultRule(count: 1, pathPrefix: "/bcl/v2/paymentInstruments", method: "GET", action: .dropConnection))
            let card = try await provider.card(CardRef(id: Seed.activeMastercardID), context: OperationContext())
            #expect(card.status == .active)
            #expect(handle.journal.entries().count >= 2)
        }
    }

    @Test("malformed and truncated bodies are invalidResponse; a delay past the timeout is a timeout")
    func brokenResponses() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            // A timeout no loaded machine reaches for the broken bodies; a short one only for the slow response.
            let provider = try SimulatorFixture.provider(handle, timeout: .seconds(20), retry: .none)
            let impatient = try SimulatorFixture.provider(handle, timeout: .milliseconds(500), retry: .none)
            handle.faults.inject(FaultRule(count: 1, action: .malformedBody(status: 200)))
            let malformed = await gatewayError {
                _ = try await provider.card(CardRef(id: Seed.activeVisaID), context: OperationContext())
            }
            #expect(malformed?.code == .invalidResponse)

            handle.faults.inject(FaultRule(count: 1, action: .truncatedBody(status: 200)))
            let truncated = await gatewayError {
                _ = try await provider.card(CardRef(id: Seed.activeVisaID), context: OperationContext())
            }
            #expect(truncated?.code == .invalidResponse || truncated?.code == .transport)

            handle.faults.inject(FaultRule(count: 1, action: .delay(milliseconds: 3_000)))
            let slow = await gatewayError {
                _ = try await impatient.card(CardRef(id: Seed.activeVisaID), context: OperationContext())
            }
            #expect(slow?.code == .timeout)
            #expect(slow?.mayHaveReachedProvider == true)
        }
    }

    @Test("card() for every seeded instrument; a bank account is not a card")
    func cards() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            let expected: [(String, CardStatus, String?, CardScheme, CardType)] = [
                (Seed.activeVisaID, .active, nil, .visa, .virtual),
                (Seed.activeMastercardID, .active, nil, .mastercard, .physical),
                (Seed.inactiveMastercardID, .inactive, nil, .mastercard, .physical),
                (Seed.suspendedVisaID, .suspended, "suspectedFraud", .visa, .virtual),
                (Seed.closedMastercardID, .cancelled, "lost", .mastercard, .physical),
            ]
            for (id, status, reason, scheme, type) in expected {
                let card = try await provider.card(CardRef(id: id), context: OperationContext())
                #expect(card.status == status)
                #expect(card.statusReason == reason)
                #expect(card.scheme == scheme)
                #expect(card.type == type)
                #expect(card.expiry != nil)
                #expect(card.lastFour?.count == 4)
            }
            let bank = await gatewayError {
                _ = try await provider.card(CardRef(id: Seed.bankAccountID), context: OperationContext())
            }
            #expect(bank?.code == .invalidRequest)
            let unknown = await gatewayError {
                _ = try await provider.card(CardRef(id: "PI0000000000000000000NONE"), context: OperationContext())
            }
            #expect(unknown?.code == .notFound)
            #expect(unknown?.providerCode == "00_404")
            #expect(unknown?.requestID?.isEmpty == false)
        }
    }

    @Test("offers for suspended, inactive and closed cards are not eligible; existing tokens are listed")
    func offers() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            let suspended = try await provider.offer(
                for: CardRef(id: Seed.suspendedVisaID), wallet: .applePay, context: OperationContext())
            #expect(!suspended.eligible)
            #expect(suspended.ineligibleReason?.message.contains("suspectedFraud") == true)
            #expect(suspended.existingTokens.map(\.status) == [.suspended])
            let inactive = try await provider.offer(
                for: CardRef(id: Seed.inactiveMastercardID), wallet: .googlePay, context: OperationContext())
            #expect(!inactive.eligible)
            let closed = try await provider.offer(
                for: CardRef(id: Seed.closedMastercardID), wallet: .applePay, context: OperationContext())
            #expect(!closed.eligible)
            #expect(closed.existingTokens.map(\.wallet) == [nil])
            let active = try await provider.offer(
                for: CardRef(id: Seed.activeMastercardID), wallet: .googlePay, context: OperationContext())
            #expect(active.eligible)
            #expect(active.existingTokens.map(\.status) == [.active, .requested, .suspended, .deleted])
            #expect(active.existingTokens.map(\.wallet) == [.applePay, .googlePay, .applePay, .googlePay])
        }
    }

    @Test("errors from the simulator: missing role, wrong key, POST without GET, inactive card")
    func errors() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let card = CardRef(id: Seed.activeVisaID)
            let limited = try SimulatorFixture.provider(
                handle, apiKey: AdyenSimulator.Credentials.apiKeyWithoutActivationRole)
            let role = await gatewayError {
                _ = try await limited.provision(
                    ProvisioningRequest(card: card, wallet: .applePay, input: .issuerSDK(output: nil)),
                    context: OperationContext())
            }
            #expect(role?.code == .permissionDenied)
            #expect(role?.providerCode == "00_403")
            #expect(role?.message.contains("Bank Issuing PaymentInstrument Network Token Activation Data role") == true)
            #expect(try await limited.offer(for: card, wallet: .applePay, context: OperationContext()).eligible)

            let wrong = try SimulatorFixture.provider(handle, apiKey: "AQE-not-a-key-of-this-account")
            let auth = await gatewayError { _ = try await wrong.card(card, context: OperationContext()) }
            #expect(auth?.code == .authenticationFailed)
            #expect(auth?.providerCode == "00_401")

            let provider = try SimulatorFixture.provider(handle)
            let noGet = await gatewayError {
                _ = try await provider.provision(
                    ProvisioningRequest(
                        card: card, wallet: .applePay, input: .issuerSDK(output: SensitiveData(Data([1])))),
                    context: OperationContext())
            }
            #expect(noGet?.code == .invalidRequest)
            #expect(noGet?.providerCode == AdyenSimulatorErrors.noExchange)
            #expect(noGet?.httpStatus == 422)

            let inactive = await gatewayError {
                _ = try await provider.provision(
                    ProvisioningRequest(
                        card: CardRef(id: Seed.inactiveMastercardID), wallet: .applePay, input: .issuerSDK(output: nil)),
                    context: OperationContext())
            }
            #expect(inactive?.code == .invalidRequest)
            #expect(inactive?.providerCode == AdyenSimulatorErrors.instrumentNotActive)
        }
    }

    @Test("network tokens: suspend, read back, closed is final at the provider")
    func tokenUpdates() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            try await provider.updateNetworkToken(
                id: Seed.activeApplePayTokenID, status: .suspended, context: OperationContext())
            #expect(
                try await provider.networkToken(id: Seed.activeApplePayTokenID, context: OperationContext()).status
                    == .suspended)
            let patch = try #require(handle.journal.entries().first { $0.method == "PATCH" })
            #expect(try JSONValue.parse(patch.body) == .object(["status": .string("suspended")]))
            #expect(patch.responseStatus == 202)

            let closed = await gatewayError {
                try await provider.updateNetworkToken(
                    id: Seed.closedGooglePayTokenID, status: .active, context: OperationContext())
            }
            #expect(closed?.code == .invalidRequest)
            #expect(closed?.providerCode == AdyenSimulatorErrors.tokenClosed)

            let known = try await provider.networkToken(id: Seed.closedGooglePayTokenID, context: OperationContext())
            let count = handle.journal.entries().count
            let local = await gatewayError {
                try await provider.updateNetworkToken(known, status: .active, context: OperationContext())
            }
            #expect(local?.code == .invalidCardState)
            #expect(handle.journal.entries().count == count)
        }
    }

    @Test("a webhook signed by the simulator verifies; the wrong key and a tampered body do not")
    func webhooks() async throws {
        let simulator = AdyenSimulator()
        try await withSimulator(simulator) { handle in
            let provider = try SimulatorFixture.provider(handle)
            let card = CardRef(id: Seed.activeVisaID)
            var last = try await provider.provision(
                ProvisioningRequest(card: card, wallet: .applePay, input: .issuerSDK(output: nil)),
                context: OperationContext())
            for _ in 1...Seed.roundTripsToComplete {
                last = try await provider.provision(
                    ProvisioningRequest(
                        card: card, wallet: .applePay, input: .issuerSDK(output: SensitiveData(Self.answer(last)))),
                    context: OperationContext())
            }
            let token = try #require(try await provider.networkTokens(for: card, context: OperationContext()).first)

            let (headers, body) = simulator.signedWebhook(type: AdyenSimulator.networkTokenCreated, token: token.id)
            let delivery = Fixture.delivery(body, headers: headers)
            let events = try provider.verify(delivery, now: Date())
            guard let event = try #require(events.first).event.walletTokenCreated else {
                Issue.record("expected walletTokenCreated")
                return
            }
            #expect(event.card.id == Seed.activeVisaID)
            #expect(event.token.id == token.id)
            #expect(event.token.wallet == .applePay)
            #expect(event.decision == "approved")

            let updated = simulator.signedWebhook(
                type: AdyenSimulator.networkTokenUpdated, token: Seed.suspendedApplePayTokenID, decision: "declined")
            guard
                let update = try #require(
                    try provider.verify(Fixture.delivery(updated.body, headers: updated.headers), now: Date()).first
                ).event.walletTokenUpdated
            else {
                Issue.record("expected walletTokenUpdated")
                return
            }
            #expect(update.token.status == .suspended)
            #expect(update.decision == "declined")

            let otherKey = try SimulatorFixture.provider(
                handle, hmacKey: "00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF")
            #expect(throws: CardGatewayError.self) { try otherKey.verify(delivery, now: Date()) }
            var tampered = body
            tampered.append(contentsOf: Array(" ".utf8))
            #expect(throws: CardGatewayError.self) {
                try provider.verify(Fixture.delivery(tampered, headers: headers), now: Date())
            }
        }
    }

    @Test("through the gateway: routing, configuration with the simulator's base URL, and redaction at trace level")
    func gatewayAndRedaction() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            var registry = ProviderRegistry()
            registry.register(.adyen)
            let json = """
                {"providers": {"adyen-sim": {"kind": "adyen", "baseURL": "\(handle.baseURL.absoluteString)", "maxAttempts": 2,
                   "credentials": {"apiKey": "env:ADYEN_KEY", "hmacKey": "env:ADYEN_HMAC"}}},
                 "routes": [{"when": {"issuer": "adyen"}, "use": "adyen-sim"}]}
                """
            let secrets = SecretResolver(environment: [
                "ADYEN_KEY": AdyenSimulator.Credentials.apiKey, "ADYEN_HMAC": AdyenSimulator.Credentials.hmacKeyHex,
            ])
            let configuration = try GatewayConfiguration.load(
                from: Data(json.utf8), registry: registry, secrets: secrets)
            let capture = LogCapture()
            let gateway = try CardGateway(
                configuration: configuration, registry: registry, logger: capture.logger(level: .trace))
            let route = RouteTarget.key(RouteKey(issuer: "adyen"))
            let context = OperationContext(logger: capture.logger(level: .trace))
            let card = CardRef(id: Seed.activeVisaID)

            let offer = try await gateway.provisioningOffer(for: card, wallet: .applePay, via: route, context: context)
            #expect(offer.provider == "adyen-sim")
            var seen: [String] = []
            let extra = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 * 13 + 7) })
            var outputs: [Data] = []
            var previous: ProvisioningResponse?
            for round in 0...Seed.roundTripsToComplete {
                var input = ProvisioningInput.issuerSDK(output: nil)
                if let previous {
                    outputs.append(Self.answer(previous, extra: extra + Data([UInt8(round)])))
                    input = .issuerSDK(output: SensitiveData(outputs[outputs.count - 1]))
                }
                let response = try await gateway.provision(
                    ProvisioningRequest(card: card, wallet: .applePay, input: input), via: route, context: context)
                previous = response
                seen.append(response.description)
                if let bytes = response.issuerSDKInput { seen.append(bytes.revealedBytes.base64EncodedString()) }
            }
            handle.faults.inject(FaultRule(count: 2, action: .status(503, retryAfterSeconds: nil, message: "down")))
            do {
                _ = try await gateway.card(card, via: route, context: context)
                Issue.record("expected providerUnavailable")
            } catch let error as CardGatewayError {
                #expect(error.code == .providerUnavailable)
                #expect(error.provider == "adyen-sim")
                #expect(!error.description.contains(AdyenSimulator.Credentials.apiKey))
            }

            let inputs = Array(seen.enumerated().filter { $0.offset % 2 == 1 }.map(\.element))
            #expect(inputs.count == 3)
            let needles =
                [AdyenSimulator.Credentials.apiKey, AdyenSimulator.Credentials.hmacKeyHex]
                + outputs.map { $0.base64EncodedString() } + inputs
            #expect(!capture.all.isEmpty)
            #expect(capture.leaks(of: needles).isEmpty)
            let descriptions = seen.enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined()
            #expect(needles.allSatisfy { !descriptions.contains($0) })
        }
    }
}
