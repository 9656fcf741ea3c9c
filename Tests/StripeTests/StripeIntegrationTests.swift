@_spi(AdapterSupport) import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import Testing

@testable import CardGatewayStripe
@testable import StripeSimulator
import SharedTestSupport

@Suite("Stripe adapter against the simulator", .timeLimit(.minutes(5)))
struct StripeIntegrationTests {
    @Test func offerForEverySeededWalletState() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle)
            let context = OperationContext()

            let eligible = try await adapter.offer(
                for: CardRef(id: Seed.activeCardID), wallet: .applePay, context: context)
            #expect(eligible.eligible)
            #expect(eligible.flow == .issuerSDKKey)
            #expect(eligible.primaryAccountIdentifier == Seed.primaryAccountIdentifier)
            #expect(eligible.cardholderName == "Jenny Rosen")
            #expect(eligible.lastFour == "4242")
            #expect(eligible.network == .visa)
            #expect(eligible.expiry == CardExpiry(month: 8, year: 2030))
            #expect(eligible.existingTokens.map(\.id) == [Seed.activeApplePayTokenID])
            let google = try await adapter.offer(
                for: CardRef(id: Seed.activeCardID), wallet: .googlePay, context: context)
            #expect(
                Set(google.existingTokens.map(\.id)) == [
                    Seed.suspendedGooglePayTokenID, Seed.requestedGooglePayTokenID,
                ])

            let noPAI = try await adapter.offer(
                for: CardRef(id: Seed.activeCardWithoutPrimaryAccountIdentifierID), wallet: .applePay, context: context)
            #expect(noPAI.eligible)
            #expect(noPAI.primaryAccountIdentifier == nil)
            #expect(noPAI.network == .mastercard)

            let cases: [(String, Wallet, String)] = [
                (Seed.inactiveCardID, .applePay, "cardNotActive"),
                (Seed.canceledCardID, .googlePay, "cardNotActive"),
                (Seed.missingAgreementCardID, .applePay, "missing_agreement"),
                (Seed.missingCardholderContactCardID, .googlePay, "missing_cardholder_contact"),
                (Seed.unsupportedRegionCardID, .applePay, "unsupported_region"),
            ]
            for (card, wallet, reason) in cases {
                let offer = try await adapter.offer(for: CardRef(id: card), wallet: wallet, context: context)
                #expect(!offer.eligible, "\(card)")
                #expect(offer.ineligibleReason?.code == reason, "\(card)")
            }
            #expect(
                try await adapter.offer(
                    for: CardRef(id: Seed.unsupportedRegionCardID), wallet: .googlePay, context: context
                ).eligible)
            let journal = handle.journal.entries(pathContains: "/v1/issuing/tokens")
            #expect(journal.allSatisfy { $0.query?.contains("card=") == true })
        }
    }

    @Test func ephemeralKeyByteForByteWithTheSDKVersionOnTheWire() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let transport = BodyRecordingTransport()
            let adapter = try SimulatorFixture.adapter(
                handle, transport: transport, apiVersion: "2024-06-20", stripeAccount: Seed.connectedAccountID)
            let response = try await adapter.provision(
                ProvisioningRequest(
                    card: CardRef(id: Seed.activeCardID), wallet: .applePay,
                    input: .issuerSDKKey(apiVersion: "2020-08-27")),
                context: OperationContext(idempotencyKey: "tap-1")
            )
            guard let key = response.ephemeralKey else {
                Issue.record("expected an ephemeral key")
                return
            }
            let raw = try #require(transport.responseBodies.last)
            #expect(key.rawJSON.revealedBytes == raw)
            // Pretty-printed, as Stripe answers, and passed on unchanged.
            #expect(String(decoding: raw, as: UTF8.self).contains("\n  \"associated_objects\""))
            let parsed = try JSONValue.parse(raw)
            #expect(parsed["id"]?.stringValue == key.id)
            #expect(key.expires.timeIntervalSince(try #require(key.created)) == 3600)
            #expect(key.created == simulatorEpoch)
            #expect(key.apiVersion == "2020-08-27")

            let entry = try #require(handle.journal.last)
            #expect(entry.method == "POST")
            #expect(entry.path == "/v1/ephemeral_keys")
            #expect(entry.bodyText == "issuing_card=\(Seed.activeCardID)")
            #expect(entry.header("stripe-version") == "2020-08-27")
            #expect(entry.header("stripe-account") == Seed.connectedAccountID)
            #expect(entry.header("content-type") == "application/x-www-form-urlencoded")
            #expect(entry.header("authorization") == JournalEntry.maskedValue)
            #expect(
                entry.header("idempotency-key")
                    == IdempotencyKeys.derive(
                        operationKey: "tap-1", scope: "ephemeral_key:\(Seed.activeCardID):2020-08-27", maxLength: 255))

            _ = try await adapter.card(CardRef(id: Seed.activeCardID), context: OperationContext())
            #expect(handle.journal.last?.header("stripe-version") == "2024-06-20")
        }
    }

    @Test func injectedServerErrorIsRetriedWithTheSameIdempotencyKey() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/v1/ephemeral_keys", method: "POST",
                    action: .status(500, retryAfterSeconds: nil, message: nil)))
            let adapter = try SimulatorFixture.adapter(handle)
            let response = try await adapter.provision(
                ProvisioningRequest(
                    card: CardRef(id: Seed.activeCardID), wallet: .googlePay,
                    input: .issuerSDKKey(apiVersion: "2020-08-27")),
                context: OperationContext()
            )
            guard response.ephemeralKey != nil else {
                Issue.record("expected an ephemeral key")
                return
            }
            let entries = handle.journal.entries(pathContains: "/v1/ephemeral_keys")
            #expect(entries.map(\.responseStatus) == [500, 200])
            let keys = entries.map { $0.header("idempotency-key") }
            #expect(keys[0] != nil)
            #expect(keys[0] == keys[1])
            #expect(entries.allSatisfy { $0.header("stripe-version") == "2020-08-27" })
        }
    }

    @Test func aSavedFiveHundredIsReplayedOnEveryRetry() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle)
            let error = await gatewayError {
                _ = try await adapter.provision(
                    ProvisioningRequest(
                        card: CardRef(id: Seed.internalErrorCardID), wallet: .applePay,
                        input: .issuerSDKKey(apiVersion: "2020-08-27")),
                    context: OperationContext()
                )
            }
            #expect(error?.code == .providerUnavailable)
            #expect(error?.providerCode == "api_error")
            #expect(error?.mayHaveReachedProvider == true)
            #expect(error?.requestID?.hasPrefix("req_") == true)
            let entries = handle.journal.entries(pathContains: "/v1/ephemeral_keys")
            #expect(entries.count == 3)
            #expect(Set(entries.compactMap { $0.header("idempotency-key") }).count == 1)
        }
    }

    @Test func missingVersionNeverReachesTheSimulator() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle, apiVersion: "2024-06-20")
            let error = await gatewayError {
                _ = try await adapter.provision(
                    ProvisioningRequest(
                        card: CardRef(id: Seed.activeCardID), wallet: .applePay, input: .issuerSDKKey(apiVersion: "")),
                    context: OperationContext()
                )
            }
            #expect(error?.code == .invalidRequest)
            #expect(handle.journal.entries().isEmpty)
        }
    }

    @Test func cardsTokensAndKeysThroughTheAdaptersMethods() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle, key: StripeSimulator.Credentials.default.liveSecretKey)
            let context = OperationContext()

            var all: [Card] = []
            var query = StripeCardListQuery(limit: 3)
            while true {
                let page = try await adapter.listCards(query, context: context)
                all += page.items
                guard let next = page.nextStartingAfter else { break }
                query.startingAfter = next
            }
            #expect(all.count == 8)
            #expect(all.first?.id == Seed.activeCardID)
            let canceled = try await adapter.listCards(StripeCardListQuery(status: .cancelled), context: context)
            #expect(canceled.items.map(\.id) == [Seed.canceledCardID])
            #expect(canceled.items.first?.statusReason == "lost")

            let card = try await adapter.updateCardStatus(
                card: CardRef(id: Seed.activeCardID), status: .cancelled, reason: "stolen", context: context)
            #expect(card.status == .cancelled)
            #expect(card.statusReason == "stolen")
            let again = await gatewayError {
                _ = try await adapter.updateCardStatus(
                    card: CardRef(id: Seed.activeCardID), status: .active, context: context)
            }
            #expect(again?.code == .invalidCardState)
            #expect(again?.providerCode == "status_transition_invalid")
            #expect(again?.fieldErrors.map(\.field) == ["status"])

            let tokens = try await adapter.listTokens(card: CardRef(id: Seed.activeCardID), context: context)
            #expect(tokens.items.count == 5)
            let suspended = try await adapter.updateToken(
                id: Seed.activeApplePayTokenID, status: .suspended, context: context)
            #expect(suspended.token.status == .suspended)
            #expect(suspended.card.id == Seed.activeCardID)
            #expect(
                try await adapter.token(id: Seed.activeApplePayTokenID, context: context).token.status == .suspended)

            let response = try await adapter.provision(
                ProvisioningRequest(
                    card: CardRef(id: Seed.activeCardWithoutPrimaryAccountIdentifierID), wallet: .googlePay,
                    input: .issuerSDKKey(apiVersion: "2026-10-28.endive")),
                context: context
            )
            guard let key = response.ephemeralKey else {
                Issue.record("expected an ephemeral key")
                return
            }
            #expect(try JSONValue.parse(key.rawJSON.revealedBytes)["livemode"] == .bool(true))

            let missing = await gatewayError {
                _ = try await adapter.card(CardRef(id: "ic_doesnotexist"), context: context)
            }
            #expect(missing?.code == .notFound)
            #expect(missing?.requestID?.hasPrefix("req_") == true)
        }
    }

    @Test func wrongKeyIsAnAuthenticationFailureAndRateLimitsAreRetried() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let wrong = try SimulatorFixture.adapter(handle, key: "sk_test_wrongwrongwrong")
            let error = await gatewayError {
                _ = try await wrong.card(CardRef(id: Seed.activeCardID), context: OperationContext())
            }
            #expect(error?.code == .authenticationFailed)
            #expect(error?.httpStatus == 401)

            handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/v1/issuing/cards",
                    action: .status(429, retryAfterSeconds: 0, message: "slow down")))
            let adapter = try SimulatorFixture.adapter(handle)
            let card = try await adapter.card(CardRef(id: Seed.activeCardID), context: OperationContext())
            #expect(card.status == .active)
            #expect(
                handle.journal.entries(pathContains: "/v1/issuing/cards/").suffix(2).map(\.responseStatus) == [
                    429, 200,
                ])
        }
    }

    @Test func malformedAndTruncatedBodiesAreInvalidResponses() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            handle.faults.inject(
                FaultRule(count: 1, pathPrefix: "/v1/issuing/cards", action: .malformedBody(status: 200)))
            let adapter = try SimulatorFixture.adapter(handle)
            let error = await gatewayError {
                _ = try await adapter.card(CardRef(id: Seed.activeCardID), context: OperationContext())
            }
            #expect(error?.code == .invalidResponse)
        }
    }

    @Test func nothingSecretInLogsOrErrorsOverHTTP() async throws {
        let capture = LogCapture()
        let logger = capture.logger(level: .trace)
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle, logger: logger)
            let context = OperationContext(logger: logger)
            _ = try await adapter.offer(for: CardRef(id: Seed.activeCardID), wallet: .applePay, context: context)
            let response = try await adapter.provision(
                ProvisioningRequest(
                    card: CardRef(id: Seed.activeCardID), wallet: .applePay,
                    input: .issuerSDKKey(apiVersion: "2020-08-27")), context: context
            )
            guard let key = response.ephemeralKey else {
                Issue.record("expected an ephemeral key")
                return
            }
            let secret = try #require(try JSONValue.parse(key.rawJSON.revealedBytes)["secret"]?.stringValue)
            let wrong = try SimulatorFixture.adapter(handle, key: "sk_test_wrongwrongwrong9876", logger: logger)
            let error = await gatewayError {
                _ = try await wrong.card(CardRef(id: Seed.activeCardID), context: context)
            }
            let texts = [capture.text, "\(response)", error?.description ?? "", "\(key)"]
            for needle in [secret, StripeSimulator.Credentials.default.testSecretKey, "sk_test_wrongwrongwrong9876"] {
                #expect(texts.allSatisfy { !$0.contains(needle) }, "leaked \(needle.prefix(8))…")
            }
            #expect(capture.all.contains { $0.message == "provider attempt" })
        }
    }
}
