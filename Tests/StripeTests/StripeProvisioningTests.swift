@_spi(AdapterSupport) import CardGateway
import CardGatewayTesting
import Foundation
import Testing

@testable import CardGatewayStripe
import SharedTestSupport

@Suite("Stripe provisioning: offer and ephemeral keys", .timeLimit(.minutes(5)))
struct StripeProvisioningTests {
    // MARK: Offer

    @Test func eligibleOfferCarriesTheWalletSheetData() async throws {
        let tokens = Fixture.list([
            Fixture.token(id: "intok_apple", walletProvider: "apple_pay"),
            Fixture.token(id: "intok_google", walletProvider: "google_pay"),
            Fixture.token(id: "intok_gone", status: "deleted", walletProvider: "apple_pay"),
            Fixture.token(id: "intok_req", status: "requested", walletProvider: "apple_pay"),
        ])
        let transport = ScriptedTransport([.stripe(200, Fixture.card()), .stripe(200, tokens)])
        let offer = try await Fixture.provider(transport).offer(
            for: Fixture.cardRef, wallet: .applePay, context: OperationContext())

        #expect(
            transport.requests.map(\.path) == [
                Fixture.cardPath, "/v1/issuing/tokens?card=ic_1GWQp6EESaYspYZ9uSEZOcq9&limit=100",
            ])
        #expect(offer.eligible)
        #expect(offer.ineligibleReason == nil)
        #expect(offer.flow == .issuerSDKKey)
        #expect(offer.cardholderName == "Jenny Rosen")
        #expect(offer.lastFour == "4242")
        #expect(offer.network == .visa)
        #expect(offer.expiry == CardExpiry(month: 8, year: 2028))
        #expect(offer.primaryAccountIdentifier == "V-3020112345678901234567")
        #expect(offer.existingTokens.map(\.id) == ["intok_apple", "intok_req"])
        #expect(offer.existingTokens.first?.wallet == .applePay)
    }

    @Test(arguments: ["missing_agreement", "missing_cardholder_contact", "unsupported_region"])
    func ineligibleReasonKeepsStripesCode(reason: String) async throws {
        let wallets = Fixture.wallets(apple: (false, reason), google: (true, nil))
        let transport = ScriptedTransport([
            .stripe(200, Fixture.card(wallets: wallets)), .stripe(200, Fixture.list([])),
        ])
        let provider = try Fixture.provider(transport)
        let apple = try await provider.offer(for: Fixture.cardRef, wallet: .applePay, context: OperationContext())
        #expect(!apple.eligible)
        #expect(apple.ineligibleReason?.code == reason)
        #expect(apple.flow == .issuerSDKKey)

        transport.enqueue(.stripe(200, Fixture.card(wallets: wallets)), .stripe(200, Fixture.list([])))
        let google = try await provider.offer(for: Fixture.cardRef, wallet: .googlePay, context: OperationContext())
        #expect(google.eligible)
    }

    @Test func ineligibleWithoutReasonAndWithUnknownReason() async throws {
        let transport = ScriptedTransport([
            .stripe(200, Fixture.card(wallets: Fixture.wallets(apple: (false, nil), google: (false, "new_reason")))),
            .stripe(200, Fixture.list([])),
            .stripe(200, Fixture.card(wallets: Fixture.wallets(apple: (false, nil), google: (false, "new_reason")))),
            .stripe(200, Fixture.list([])),
        ])
        let provider = try Fixture.provider(transport)
        let apple = try await provider.offer(for: Fixture.cardRef, wallet: .applePay, context: OperationContext())
        #expect(apple.ineligibleReason?.code == "ineligible")
        let google = try await provider.offer(for: Fixture.cardRef, wallet: .googlePay, context: OperationContext())
        #expect(google.ineligibleReason?.code == "new_reason")
    }

    @Test(arguments: ["inactive", "canceled"])
    func onlyActiveCardsAreEligible(status: String) async throws {
        let transport = ScriptedTransport([.stripe(200, Fixture.card(status: status)), .stripe(200, Fixture.list([]))])
        let offer = try await Fixture.provider(transport).offer(
            for: Fixture.cardRef, wallet: .applePay, context: OperationContext())
        #expect(!offer.eligible)
        #expect(offer.ineligibleReason?.code == "cardNotActive")
    }

    @Test func nullPrimaryAccountIdentifierAndNullWallets() async throws {
        let transport = ScriptedTransport([
            .stripe(200, Fixture.card(wallets: Fixture.wallets(apple: (true, nil), google: (true, nil), pan: nil))),
            .stripe(200, Fixture.list([])),
            .stripe(200, Fixture.card(wallets: "null")), .stripe(200, Fixture.list([])),
        ])
        let provider = try Fixture.provider(transport)
        let first = try await provider.offer(for: Fixture.cardRef, wallet: .applePay, context: OperationContext())
        #expect(first.eligible)
        #expect(first.primaryAccountIdentifier == nil)
        let second = try await provider.offer(for: Fixture.cardRef, wallet: .applePay, context: OperationContext())
        #expect(!second.eligible)
        #expect(second.ineligibleReason?.code == "walletNotSupported")
    }

    @Test func samsungPayIsNotOfferedAndNoTokensAreRead() async throws {
        let transport = ScriptedTransport([.stripe(200, Fixture.card())])
        let offer = try await Fixture.provider(transport).offer(
            for: Fixture.cardRef, wallet: .samsungPay, context: OperationContext())
        #expect(!offer.eligible)
        #expect(offer.flow == nil)
        #expect(offer.ineligibleReason?.code == "walletNotSupported")
        #expect(transport.requestCount == 1)
    }

    @Test func tokensArePagedWithTheCursor() async throws {
        let transport = ScriptedTransport([
            .stripe(200, Fixture.card()),
            .stripe(200, Fixture.list([Fixture.token(id: "intok_1")], hasMore: true)),
            .stripe(200, Fixture.list([Fixture.token(id: "intok_2")])),
        ])
        let offer = try await Fixture.provider(transport).offer(
            for: Fixture.cardRef, wallet: .applePay, context: OperationContext())
        #expect(
            transport.requests.last?.path
                == "/v1/issuing/tokens?card=ic_1GWQp6EESaYspYZ9uSEZOcq9&limit=100&starting_after=intok_1")
        #expect(offer.existingTokens.map(\.id) == ["intok_1", "intok_2"])
    }

    @Test func tokensForbiddenStillGivesAnOfferButOtherErrorsFail() async throws {
        let forbidden = ScriptedTransport([
            .stripe(200, Fixture.card()),
            .stripe(
                403,
                Fixture.error(
                    type: "invalid_request_error", message: "Your account does not have access to this preview.")),
        ])
        let offer = try await Fixture.provider(forbidden).offer(
            for: Fixture.cardRef, wallet: .applePay, context: OperationContext())
        #expect(offer.eligible)
        #expect(offer.existingTokens.isEmpty)

        let unauthorised = ScriptedTransport([
            .stripe(200, Fixture.card()),
            .stripe(401, Fixture.error(type: "invalid_request_error", message: "Invalid API Key provided.")),
        ])
        let error = await gatewayError {
            _ = try await Fixture.provider(unauthorised).offer(
                for: Fixture.cardRef, wallet: .applePay, context: OperationContext())
        }
        #expect(error?.code == .authenticationFailed)
    }

    @Test func unknownCardIsNotFound() async throws {
        let transport = ScriptedTransport([
            .stripe(
                404,
                Fixture.error(
                    type: "invalid_request_error", code: "resource_missing", message: "No such issuing card: 'ic_x'",
                    param: "card"))
        ])
        let error = await gatewayError {
            _ = try await Fixture.provider(transport).offer(
                for: CardRef(id: "ic_x"), wallet: .applePay, context: OperationContext())
        }
        #expect(error?.code == .notFound)
        #expect(error?.providerCode == "resource_missing")
        #expect(transport.requestCount == 1)
    }

    // MARK: Ephemeral keys

    @Test func ephemeralKeyRequestOnTheWireAndJSONByteForByte() async throws {
        let json = Fixture.ephemeralKey()
        let transport = ScriptedTransport([.stripe(200, json)])
        let provider = try Fixture.provider(
            transport,
            configuration: StripeConfiguration(
                secretKey: Secret(Fixture.secretKey), stripeAccount: "acct_1Connected", apiVersion: "2025-03-31.basil"
            ))
        let response = try await provider.provision(
            ProvisioningRequest(
                card: Fixture.cardRef, wallet: .applePay, input: .issuerSDKKey(apiVersion: "2020-08-27")),
            context: OperationContext(idempotencyKey: "tap-42")
        )
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/v1/ephemeral_keys")
        #expect(request.bodyText == "issuing_card=ic_1GWQp6EESaYspYZ9uSEZOcq9")
        #expect(request.header("Stripe-Version") == "2020-08-27")
        #expect(request.header("Stripe-Account") == "acct_1Connected")
        #expect(request.header("Authorization") == "Bearer \(Fixture.secretKey)")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(
            request.header("Idempotency-Key")
                == IdempotencyKeys.derive(
                    operationKey: "tap-42", scope: "ephemeral_key:ic_1GWQp6EESaYspYZ9uSEZOcq9:2020-08-27",
                    maxLength: 255))

        guard let key = response.ephemeralKey else {
            Issue.record("expected an ephemeral key, got \(response)")
            return
        }
        #expect(key.rawJSON.revealedBytes == Data(json.utf8))
        #expect(key.id == "ephkey_1G4V6eEEs6YsaMZ2P1diLWdj")
        #expect(key.created == Date(timeIntervalSince1970: 1_586_556_828))
        #expect(key.expires == Date(timeIntervalSince1970: 1_586_560_428))
        #expect(key.apiVersion == "2020-08-27")
        #expect(!key.description.contains(Fixture.ephemeralSecret))
    }

    @Test(arguments: ["2020-08-27", "2026-10-28.endive"])
    func versionIsSentExactly(version: String) async throws {
        let transport = ScriptedTransport([.stripe(200, Fixture.ephemeralKey())])
        _ = try await Fixture.provider(transport).provision(
            ProvisioningRequest(card: Fixture.cardRef, wallet: .googlePay, input: .issuerSDKKey(apiVersion: version)),
            context: OperationContext()
        )
        #expect(transport.requests.first?.header("Stripe-Version") == version)
    }

    @Test(arguments: ["", "latest", "2020/08/27", " 2020-08-27"])
    func missingOrMalformedVersionIsRefusedBeforeSending(version: String) async throws {
        let transport = ScriptedTransport([])
        let error = await gatewayError {
            _ = try await Fixture.provider(transport).provision(
                ProvisioningRequest(
                    card: Fixture.cardRef, wallet: .applePay, input: .issuerSDKKey(apiVersion: version)),
                context: OperationContext()
            )
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.fieldErrors.map(\.field) == ["input.apiVersion"])
        #expect(transport.requestCount == 0)
    }

    @Test func otherInputsAndWalletsAreRefused() async throws {
        let transport = ScriptedTransport([])
        let provider = try Fixture.provider(transport)
        let wrongInput = await gatewayError {
            _ = try await provider.provision(
                ProvisioningRequest(card: Fixture.cardRef, wallet: .applePay, input: .issuerSDK(output: nil)),
                context: OperationContext())
        }
        #expect(wrongInput?.code == .invalidRequest)
        #expect(wrongInput?.fieldErrors.map(\.field) == ["input"])
        let both = await gatewayError {
            _ = try await provider.provision(
                ProvisioningRequest(card: CardRef(id: ""), wallet: .applePay, input: .issuerSDKKey(apiVersion: "")),
                context: OperationContext())
        }
        #expect(both?.fieldErrors.map(\.field) == ["card.id", "input.apiVersion"])
        let samsung = await gatewayError {
            _ = try await provider.provision(
                ProvisioningRequest(
                    card: Fixture.cardRef, wallet: .samsungPay, input: .issuerSDKKey(apiVersion: "2020-08-27")),
                context: OperationContext())
        }
        #expect(samsung?.code == .unsupported)
        #expect(transport.requestCount == 0)
    }

    @Test func keyWithoutSecretOrForAnotherCardIsInvalid() async throws {
        for json in [
            Fixture.ephemeralKey(secret: nil), Fixture.ephemeralKey(card: "ic_other"),
            #"{"id":"ephkey_1","object":"ephemeral_key"}"#,
        ] {
            let transport = ScriptedTransport([.stripe(200, json)])
            let error = await gatewayError {
                _ = try await Fixture.provider(transport).provision(
                    ProvisioningRequest(
                        card: Fixture.cardRef, wallet: .applePay, input: .issuerSDKKey(apiVersion: "2020-08-27")),
                    context: OperationContext()
                )
            }
            #expect(error?.code == .invalidResponse)
        }
    }

    @Test func serverErrorIsRetriedWithTheSameIdempotencyKey() async throws {
        let transport = ScriptedTransport([
            .stripe(500, Fixture.error(type: "api_error", message: "An unknown error occurred"), requestID: "req_500"),
            .stripe(200, Fixture.ephemeralKey()),
        ])
        let sleeps = SleepRecorder()
        let response = try await Fixture.provider(transport, sleeps: sleeps).provision(
            ProvisioningRequest(
                card: Fixture.cardRef, wallet: .applePay, input: .issuerSDKKey(apiVersion: "2020-08-27")),
            context: OperationContext()
        )
        guard response.ephemeralKey != nil else {
            Issue.record("expected a key")
            return
        }
        let keys = transport.requests.map { $0.header("Idempotency-Key") }
        #expect(keys.count == 2)
        #expect(keys[0] != nil && keys[0] == keys[1])
        #expect(transport.requests.allSatisfy { $0.header("Stripe-Version") == "2020-08-27" })
        #expect(sleeps.recorded.count == 1)
    }

    @Test func stripeShouldRetryFalseStopsARetryAndTrueForcesOne() async throws {
        let noRetry = ScriptedTransport([
            .stripe(503, Fixture.error(type: "api_error"), extra: ["Stripe-Should-Retry": "false"])
        ])
        let error = await gatewayError {
            _ = try await Fixture.provider(noRetry).provision(
                ProvisioningRequest(
                    card: Fixture.cardRef, wallet: .applePay, input: .issuerSDKKey(apiVersion: "2020-08-27")),
                context: OperationContext()
            )
        }
        #expect(noRetry.requestCount == 1)
        #expect(error?.code == .providerUnavailable)
        #expect(error?.isRetryable == false)

        let forced = ScriptedTransport([
            .stripe(
                400, Fixture.error(type: "invalid_request_error", code: "lock_timeout"),
                extra: ["Stripe-Should-Retry": "true"]),
            .stripe(200, Fixture.ephemeralKey()),
        ])
        _ = try await Fixture.provider(forced).provision(
            ProvisioningRequest(
                card: Fixture.cardRef, wallet: .applePay, input: .issuerSDKKey(apiVersion: "2020-08-27")),
            context: OperationContext()
        )
        #expect(forced.requestCount == 2)
        #expect(forced.requests[0].header("Idempotency-Key") == forced.requests[1].header("Idempotency-Key"))
    }

    @Test func idempotencyErrorIsNotRetried() async throws {
        let transport = ScriptedTransport([
            .stripe(
                400,
                Fixture.error(
                    type: "idempotency_error",
                    message:
                        "Keys for idempotent requests can only be used with the same parameters they were first used with."
                ))
        ])
        let error = await gatewayError {
            _ = try await Fixture.provider(transport).provision(
                ProvisioningRequest(
                    card: Fixture.cardRef, wallet: .applePay, input: .issuerSDKKey(apiVersion: "2020-08-27")),
                context: OperationContext(idempotencyKey: "reused")
            )
        }
        #expect(transport.requestCount == 1)
        #expect(error?.code == .conflict)
        #expect(error?.isRetryable == false)
    }

    @Test("an expired key replayed for a reused operation key is refused, never handed to the wallet SDK")
    func expiredReplayIsRefused() async throws {
        // Fixture.ephemeralKey expired in 2020.
        let replayed = ScriptedTransport([.stripe(200, Fixture.ephemeralKey(), extra: ["Idempotent-Replayed": "true"])])
        let error = await gatewayError {
            _ = try await Fixture.provider(replayed).provision(
                ProvisioningRequest(
                    card: CardRef(id: "ic_1GWQp6EESaYspYZ9uSEZOcq9"), wallet: .applePay,
                    input: .issuerSDKKey(apiVersion: "2020-08-27")),
                context: OperationContext(idempotencyKey: "attempt-1")
            )
        }
        #expect(error?.code == .conflict)
        #expect(error?.message.contains("idempotencyKey") == true)
        #expect(error?.description.contains(Fixture.ephemeralSecret) == false)
    }

    @Test func confirmSendsNothing() async throws {
        let transport = ScriptedTransport([])
        try await Fixture.provider(transport).confirm(
            ProvisioningConfirmation(card: Fixture.cardRef, wallet: .applePay, deviceAccountReference: "DAN123"),
            context: OperationContext()
        )
        #expect(transport.requestCount == 0)
    }
}
