import CardGateway
import CardGatewayBridge
import CardGatewayTesting
import Foundation
import HTTPTypes
import Testing
import SharedTestSupport

@Suite("Bridge adapter: provisioning", .timeLimit(.minutes(5)))
struct BridgeProvisioningTests {
    private var provisioningPath: String {
        "/v0/customers/\(BridgeFixtures.customer)/card_accounts/\(BridgeFixtures.cardAccount)/create_mobile_wallet_provisioning_request"
    }

    @Test func applePayInBase64OnTheWire() async throws {
        let transport = ScriptedTransport([.json(200, BridgeFixtures.appleResponseJSON)])
        let provider = try BridgeFixtures.provider(transport, encoding: .base64)
        let response = try await provider.provision(
            ProvisioningRequest(card: BridgeFixtures.ref, wallet: .applePay, input: BridgeFixtures.appleInput),
            context: OperationContext()
        )
        let request = try #require(transport.requests.first)
        #expect(transport.requestCount == 1)
        #expect(request.method == "POST")
        #expect(request.path == provisioningPath)
        #expect(request.header("Api-Key") == BridgeFixtures.apiKey)
        #expect(request.header("Content-Type") == "application/json")
        let key = try #require(request.header("Idempotency-Key"))
        #expect(UUID(uuidString: key) != nil)
        let expected = """
            {"apple_pay":{"encoding":"base64","leaf_cert":"\(BridgeFixtures.leafCertificate.base64EncodedString())",\
            "nonce":"\(BridgeFixtures.nonce.base64EncodedString())","nonce_signature":"\(BridgeFixtures.nonceSignature.base64EncodedString())",\
            "subordinate_cert":"\(BridgeFixtures.subordinateCertificate.base64EncodedString())"},"wallet_provider":"apple_pay"}
            """
        #expect(request.bodyText == expected)
        guard let payload = response.applePay else {
            Issue.record("expected an Apple payload, got \(response)")
            return
        }
        #expect(payload.activationData.revealedBytes == BridgeFixtures.activationData)
        #expect(payload.encryptedPassData.revealedBytes == BridgeFixtures.encryptedPassData)
        #expect(payload.ephemeralPublicKey.revealedBytes == BridgeFixtures.ephemeralPublicKey)
    }

    @Test func applePayInHexOnTheWire() async throws {
        let transport = ScriptedTransport([.json(200, BridgeFixtures.appleResponseJSON)])
        let provider = try BridgeFixtures.provider(transport, encoding: .hex)
        _ = try await provider.provision(
            ProvisioningRequest(card: BridgeFixtures.ref, wallet: .applePay, input: BridgeFixtures.appleInput),
            context: OperationContext()
        )
        let body = try #require(transport.requests.first?.jsonObject)
        let apple = try #require(body["apple_pay"]?.objectValue)
        #expect(body["wallet_provider"] == .string("apple_pay"))
        #expect(apple["encoding"] == .string("hex"))
        #expect(apple["leaf_cert"] == .string(ByteEncoding.hex(BridgeFixtures.leafCertificate)))
        #expect(apple["subordinate_cert"] == .string(ByteEncoding.hex(BridgeFixtures.subordinateCertificate)))
        #expect(apple["nonce"] == .string("eaa5a73a1001feed"))
        #expect(apple["nonce_signature"] == .string(ByteEncoding.hex(BridgeFixtures.nonceSignature)))
        #expect(apple.count == 5)
        #expect(body.count == 2)
        // Lower case throughout.
        let leaf = try #require(apple["leaf_cert"]?.stringValue)
        #expect(leaf == leaf.lowercased())
        #expect(leaf.hasPrefix("308201"))
    }

    @Test func googlePayOnTheWire() async throws {
        let transport = ScriptedTransport([.json(200, BridgeFixtures.googleResponseJSON)])
        let response = try await BridgeFixtures.provider(transport).provision(
            ProvisioningRequest(card: BridgeFixtures.ref, wallet: .googlePay, input: BridgeFixtures.googleInput),
            context: OperationContext()
        )
        let request = try #require(transport.requests.first)
        #expect(request.path == provisioningPath)
        #expect(
            request.bodyText
                == #"{"google_pay":{"client_device_id":"gdev-9a8b7c","client_wallet_account_id":"gwa-3c1d2e"},"wallet_provider":"google_pay"}"#
        )
        #expect(request.header("Idempotency-Key") != nil)
        guard let payload = response.googlePay else {
            Issue.record("expected a Google payload, got \(response)")
            return
        }
        // Kept exactly as Bridge sent it.
        #expect(payload.opaquePaymentCard.revealedBytes == Data(BridgeFixtures.opaquePaymentCard.utf8))
    }

    @Test(arguments: ["SGVsbG8gd29ybGQ=", "SGVsbG8gd29ybGQ", "a-_b"])
    func googleOpaqueCardInBase64OrBase64URLIsKept(opc: String) async throws {
        let transport = ScriptedTransport([.json(200, #"{"google_pay":{"opaque_payment_card":"\#(opc)"}}"#)])
        let response = try await BridgeFixtures.provider(transport).provision(
            ProvisioningRequest(card: BridgeFixtures.ref, wallet: .googlePay, input: BridgeFixtures.googleInput),
            context: OperationContext()
        )
        guard let payload = response.googlePay else {
            Issue.record("expected a Google payload")
            return
        }
        #expect(payload.opaquePaymentCard.revealedBytes == Data(opc.utf8))
    }

    @Test(arguments: [
        #"{"google_pay":{"opaque_payment_card":"not base64!"}}"#,
        #"{"google_pay":{"opaque_payment_card":""}}"#,
        #"{"google_pay":{}}"#,
        #"{"wallet_provider":"google_pay"}"#,
        #"{"wallet_provider":"apple_pay","google_pay":{"opaque_payment_card":"SGVsbG8="}}"#,
    ])
    func invalidGoogleAnswers(body: String) async throws {
        let transport = ScriptedTransport([.json(200, body)])
        let provider = try BridgeFixtures.provider(transport)
        let error = await gatewayError {
            _ = try await provider.provision(
                ProvisioningRequest(card: BridgeFixtures.ref, wallet: .googlePay, input: BridgeFixtures.googleInput),
                context: OperationContext()
            )
        }
        #expect(error?.code == .invalidResponse)
        #expect(error?.mayHaveReachedProvider == true)
    }

    @Test(arguments: [
        // Base64url is not Base64.
        #"{"apple_pay":{"activation_data":"a-_b","encrypted_pass_data":"AAEC","ephemeral_public_key":"BAEC"}}"#,
        // Missing padding.
        #"{"apple_pay":{"activation_data":"AAE","encrypted_pass_data":"AAEC","ephemeral_public_key":"BAEC"}}"#,
        // Whitespace.
        #"{"apple_pay":{"activation_data":"AA EC","encrypted_pass_data":"AAEC","ephemeral_public_key":"BAEC"}}"#,
        #"{"apple_pay":{"activation_data":"AAEC","encrypted_pass_data":"AAEC"}}"#,
        #"{"apple_pay":{"activation_data":"AAEC","encrypted_pass_data":"","ephemeral_public_key":"BAEC"}}"#,
        #"{"apple_pay":{"activation_data":"AAEC","encrypted_pass_data":"AAEC","ephemeral_public_key":7}}"#,
        #"{"wallet_provider":"apple_pay"}"#,
        #"{"wallet_provider":"google_pay","apple_pay":{"activation_data":"AAEC","encrypted_pass_data":"AAEC","ephemeral_public_key":"BAEC"}}"#,
        "<html>gateway</html>",
    ])
    func invalidAppleAnswers(body: String) async throws {
        let transport = ScriptedTransport([.json(200, body)])
        let provider = try BridgeFixtures.provider(transport)
        let error = await gatewayError {
            _ = try await provider.provision(
                ProvisioningRequest(card: BridgeFixtures.ref, wallet: .applePay, input: BridgeFixtures.appleInput),
                context: OperationContext()
            )
        }
        #expect(error?.code == .invalidResponse)
    }

    @Test func undefinedSpecFieldsAreOptionalAndUnknownFieldsIgnored() async throws {
        let apple = #"{"activation_data":"AAEC","encrypted_pass_data":"AAEC","ephemeral_public_key":"BAEC"}"#
        let bodies = [
            #"{"apple_pay":\#(apple)}"#,
            #"{"card_account_id":"x","initiator":{"odd":true},"reason":null,"created_at":"2026-01-01T00:00:00Z","status":"created","apple_pay":\#(apple),"wallet_provider":"apple_pay","future":[1]}"#,
        ]
        for body in bodies {
            let transport = ScriptedTransport([.json(200, body)])
            let response = try await BridgeFixtures.provider(transport).provision(
                ProvisioningRequest(card: BridgeFixtures.ref, wallet: .applePay, input: BridgeFixtures.appleInput),
                context: OperationContext()
            )
            guard let payload = response.applePay else {
                Issue.record("expected an Apple payload")
                continue
            }
            #expect(payload.activationData.revealedBytes == Data([0, 1, 2]))
            #expect(payload.ephemeralPublicKey.revealedBytes == Data([4, 1, 2]))
        }
    }

    @Test(arguments: [0, 1, 3])
    func appleNeedsExactlyTwoCertificates(count: Int) async throws {
        let chain = [
            BridgeFixtures.leafCertificate, BridgeFixtures.subordinateCertificate, BridgeFixtures.rootCertificate,
        ]
        let input = ProvisioningInput.applePay(
            ApplePayProvisioningInput(
                certificates: Array(chain.prefix(count)), nonce: BridgeFixtures.nonce,
                nonceSignature: BridgeFixtures.nonceSignature
            ))
        let transport = ScriptedTransport([])
        let provider = try BridgeFixtures.provider(transport)
        let error = await gatewayError {
            _ = try await provider.provision(
                ProvisioningRequest(card: BridgeFixtures.ref, wallet: .applePay, input: input),
                context: OperationContext())
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.fieldErrors.map(\.field) == ["input.certificates"])
        #expect(error?.message.contains("exactly two") == true)
        #expect(transport.requestCount == 0)
    }

    @Test func emptyAppleFieldsAreAllReported() async throws {
        let input = ProvisioningInput.applePay(
            ApplePayProvisioningInput(
                certificates: [Data(), BridgeFixtures.subordinateCertificate], nonce: Data(), nonceSignature: Data()))
        let transport = ScriptedTransport([])
        let provider = try BridgeFixtures.provider(transport)
        let error = await gatewayError {
            _ = try await provider.provision(
                ProvisioningRequest(card: CardRef(id: "", customer: nil), wallet: .applePay, input: input),
                context: OperationContext())
        }
        #expect(
            error?.fieldErrors.map(\.field) == [
                "card.customer", "card.id", "input.certificates[0]", "input.nonce", "input.nonceSignature",
            ])
        #expect(transport.requestCount == 0)
    }

    @Test func emptyGoogleIDsAreReported() async throws {
        let input = ProvisioningInput.googlePay(
            GooglePayProvisioningInput(clientDeviceID: "", clientWalletAccountID: ""))
        let transport = ScriptedTransport([])
        let provider = try BridgeFixtures.provider(transport)
        let error = await gatewayError {
            _ = try await provider.provision(
                ProvisioningRequest(card: BridgeFixtures.ref, wallet: .googlePay, input: input),
                context: OperationContext())
        }
        #expect(error?.fieldErrors.map(\.field) == ["input.clientWalletAccountID", "input.clientDeviceID"])
        #expect(transport.requestCount == 0)
    }

    @Test(arguments: [
        (Wallet.applePay, BridgeFixtures.googleInput), (.googlePay, BridgeFixtures.appleInput),
        (.applePay, .issuerSDK(output: nil)), (.googlePay, .issuerSDKKey(apiVersion: "2024-01-01")),
    ])
    func inputMustMatchTheWallet(wallet: Wallet, input: ProvisioningInput) async throws {
        let transport = ScriptedTransport([])
        let provider = try BridgeFixtures.provider(transport)
        let error = await gatewayError {
            _ = try await provider.provision(
                ProvisioningRequest(card: BridgeFixtures.ref, wallet: wallet, input: input), context: OperationContext()
            )
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.fieldErrors.map(\.field) == ["input"])
        #expect(transport.requestCount == 0)
    }

    @Test func samsungPayIsUnsupported() async throws {
        let transport = ScriptedTransport([])
        let provider = try BridgeFixtures.provider(transport)
        let error = await gatewayError {
            _ = try await provider.provision(
                ProvisioningRequest(card: BridgeFixtures.ref, wallet: .samsungPay, input: BridgeFixtures.googleInput),
                context: OperationContext())
        }
        #expect(error?.code == .unsupported)
        #expect(transport.requestCount == 0)
    }

    @Test func confirmSendsNothing() async throws {
        let transport = ScriptedTransport([])
        try await BridgeFixtures.provider(transport).confirm(
            ProvisioningConfirmation(card: BridgeFixtures.ref, wallet: .applePay, deviceAccountReference: "DAR-1"),
            context: OperationContext()
        )
        #expect(transport.requestCount == 0)
    }
}

@Suite("Bridge adapter: idempotency keys", .timeLimit(.minutes(5)))
struct BridgeIdempotencyTests {
    private func provision(
        _ provider: BridgeProvider, context: OperationContext = OperationContext()
    ) async throws -> ProvisioningResponse {
        try await provider.provision(
            ProvisioningRequest(card: BridgeFixtures.ref, wallet: .applePay, input: BridgeFixtures.appleInput),
            context: context)
    }

    @Test func retryAfter500ReusesTheKeyAndANewAttemptGetsANewOne() async throws {
        let transport = ScriptedTransport([
            .json(
                500,
                #"{"errors":[{"code":"unexpected","message":"An expected error occurred, you may try again later"}]}"#),
            .json(200, BridgeFixtures.appleResponseJSON),
            .json(200, BridgeFixtures.appleResponseJSON),
        ])
        let provider = try BridgeFixtures.provider(transport)
        _ = try await provision(provider)
        _ = try await provision(provider)
        let keys = transport.requests.map { $0.header("Idempotency-Key") }
        #expect(keys.count == 3)
        #expect(keys.allSatisfy { $0 != nil })
        #expect(keys[0] == keys[1], "the retry of an attempt reuses its key")
        #expect(keys[2] != keys[0], "a new attempt has a new key")
        #expect(transport.requests[0].bodyText == transport.requests[1].bodyText)
    }

    @Test func anOperationKeyFromTheCallerIsDerivedStably() async throws {
        let transport = ScriptedTransport([
            .json(200, BridgeFixtures.appleResponseJSON), .json(200, BridgeFixtures.appleResponseJSON),
        ])
        let provider = try BridgeFixtures.provider(transport)
        let context = OperationContext(idempotencyKey: "app-attempt-42")
        _ = try await provision(provider, context: context)
        _ = try await provision(provider, context: context)
        let keys = transport.requests.compactMap { $0.header("Idempotency-Key") }
        #expect(keys.count == 2)
        #expect(keys[0] == keys[1])
        #expect(keys[0] != "app-attempt-42")
        #expect(keys[0].count <= 64)
    }

    @Test("one operation key over two attempts with different nonces gives two keys: a nonce is single-use")
    func aNewNonceGetsANewKeyUnderTheSameOperationKey() async throws {
        let transport = ScriptedTransport(handler: { _ in .json(200, BridgeFixtures.appleResponseJSON) })
        let provider = try BridgeFixtures.provider(transport)
        let context = OperationContext(idempotencyKey: "app-attempt-42")
        let other = ProvisioningInput.applePay(
            ApplePayProvisioningInput(
                certificates: [BridgeFixtures.leafCertificate, BridgeFixtures.subordinateCertificate],
                nonce: Data([9, 9, 9, 9]),
                nonceSignature: BridgeFixtures.nonceSignature
            ))
        _ = try await provision(provider, context: context)
        _ = try await provider.provision(
            ProvisioningRequest(card: BridgeFixtures.ref, wallet: .applePay, input: other), context: context)
        let keys = transport.requests.compactMap { $0.header("Idempotency-Key") }
        #expect(keys.count == 2)
        #expect(keys[0] != keys[1])
    }

    @Test func getsNeverCarryAKey() async throws {
        let transport = ScriptedTransport([
            .json(503, #"{"errors":[{"code":"unavailable","message":"down"}]}"#),
            .json(200, BridgeFixtures.cardAccountJSON()),
        ])
        _ = try await BridgeFixtures.provider(transport).card(
            BridgeFixtures.ref, context: OperationContext(idempotencyKey: "op-1"))
        #expect(transport.requestCount == 2)
        #expect(transport.requests.allSatisfy { $0.header("Idempotency-Key") == nil })
    }

    @Test(arguments: [409, 422, 400])
    func conflictsAndExpiredKeysAreNotRetried(status: Int) async throws {
        let transport = ScriptedTransport([
            .json(status, #"{"code":"idempotency","message":"key problem"}"#),
            .json(200, BridgeFixtures.appleResponseJSON),
        ])
        let provider = try BridgeFixtures.provider(transport)
        let error = await gatewayError { _ = try await provision(provider) }
        #expect(error?.httpStatus == status)
        #expect(transport.requestCount == 1)
    }

    @Test func persistent500EndsRetryableAfterTheAttempts() async throws {
        let transport = ScriptedTransport(
            [], fallback: .json(500, #"{"errors":[{"code":"unexpected","message":"again"}]}"#))
        let provider = try BridgeFixtures.provider(transport)
        let error = await gatewayError { _ = try await provision(provider) }
        #expect(error?.code == .providerUnavailable)
        #expect(error?.isRetryable == true)
        #expect(error?.mayHaveReachedProvider == true)
        #expect(transport.requestCount == 3)
        #expect(Set(transport.requests.compactMap { $0.header("Idempotency-Key") }).count == 1)
    }
}

@Suite("Bridge adapter: error table", .timeLimit(.minutes(5)))
struct BridgeErrorTableTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var status: Int
        var body: String
        var headers: [String: String] = [:]
        var code: CardGatewayError.Code
        var providerCode: String?
        var fields: [String] = []
        var retryable: Bool
        var messageContains: String
        var testDescription: String { "\(status) \(providerCode ?? "-")" }
    }

    static let cases: [Case] = [
        // Schema `Error` with source.key (comma separated).
        Case(
            status: 400,
            body:
                #"{"code":"invalid_parameters","message":"bad fields","source":{"location":"body","key":"apple_pay.leaf_cert,apple_pay.nonce"}}"#,
            code: .invalidRequest, providerCode: "invalid_parameters",
            fields: ["apple_pay.leaf_cert", "apple_pay.nonce"], retryable: false, messageContains: "bad fields"),
        // source.key as an object of field → message.
        Case(
            status: 400,
            body:
                #"{"code":"invalid_parameters","message":"Please resubmit","source":{"key":{"address.city":"must be set"}}}"#,
            code: .invalidRequest, providerCode: "invalid_parameters", fields: ["address.city"], retryable: false,
            messageContains: "Please resubmit"),
        // The 400 example with top-level name.
        Case(
            status: 400,
            body:
                #"{"code":"bad_customer_request","message":"fields missing from customer body.","name":"first_name,ssn"}"#,
            code: .invalidRequest, providerCode: "bad_customer_request", fields: ["first_name", "ssn"],
            retryable: false, messageContains: "fields missing"),
        // The 401 examples with top-level location/name.
        Case(
            status: 401,
            body: #"{"code":"required","location":"header","name":"Api-Key","message":"Missing Api-Key header"}"#,
            code: .authenticationFailed, providerCode: "required", fields: ["Api-Key"], retryable: false,
            messageContains: "Missing Api-Key header"),
        Case(
            status: 401,
            body: #"{"code":"invalid","location":"header","name":"Api-Key","message":"Invalid Api-Key header"}"#,
            code: .authenticationFailed, providerCode: "invalid", fields: ["Api-Key"], retryable: false,
            messageContains: "Invalid Api-Key"),
        Case(
            status: 403, body: #"{"code":"forbidden","message":"Not allowed"}"#,
            code: .permissionDenied, providerCode: "forbidden", retryable: false, messageContains: "Not allowed"),
        Case(
            status: 404, body: #"{"code":"Invalid","message":"Unknown customer id"}"#,
            code: .notFound, providerCode: "Invalid", retryable: false, messageContains: "Unknown customer id"),
        Case(
            status: 409, body: #"{"code":"conflict","message":"Idempotency key in use with different body"}"#,
            code: .conflict, providerCode: "conflict", retryable: false, messageContains: "different body"),
        Case(
            status: 422, body: #"{"code":"idempotency_key_expired","message":"key reused after 24 hours"}"#,
            code: .conflict, providerCode: "idempotency_key_expired", retryable: false,
            messageContains: "more than 24 hours ago"),
        Case(
            status: 429, body: #"{"code":"rate_limited","message":"slow down"}"#, headers: ["Retry-After": "7"],
            code: .rateLimited, providerCode: "rate_limited", retryable: true, messageContains: "slow down"),
        // The 500 example with errors[].
        Case(
            status: 500,
            body:
                #"{"errors":[{"code":"unexpected","message":"An expected error occurred, you may try again later"}]}"#,
            code: .providerUnavailable, providerCode: "unexpected", retryable: true,
            messageContains: "same Idempotency-Key"),
        Case(
            status: 502, body: "<html>bad gateway</html>", code: .providerUnavailable, providerCode: nil,
            retryable: true, messageContains: "HTTP 502"),
        Case(
            status: 503, body: "", code: .providerUnavailable, providerCode: nil, retryable: true,
            messageContains: "unavailable"),
        Case(status: 408, body: "", code: .timeout, providerCode: nil, retryable: true, messageContains: "HTTP 408"),
        Case(
            status: 418, body: #"{"code":"teapot","message":"short and stout"}"#, code: .invalidRequest,
            providerCode: "teapot", retryable: false, messageContains: "HTTP 418"),
        Case(
            status: 302, body: "", code: .invalidResponse, providerCode: nil, retryable: false,
            messageContains: "HTTP 302"),
    ]

    @Test(arguments: cases)
    func everyRow(testCase: Case) async throws {
        var headers = testCase.headers
        headers["X-Request-Id"] = "req-\(testCase.status)"
        let transport = ScriptedTransport([.json(testCase.status, testCase.body, headers: headers)])
        let provider = try BridgeFixtures.provider(transport, retry: RetryPolicy.none)
        let error = await gatewayError {
            _ = try await provider.provision(
                ProvisioningRequest(card: BridgeFixtures.ref, wallet: .applePay, input: BridgeFixtures.appleInput),
                context: OperationContext()
            )
        }
        #expect(error?.code == testCase.code)
        #expect(error?.httpStatus == testCase.status)
        #expect(error?.providerCode == testCase.providerCode)
        #expect(error?.providerKind == .bridge)
        #expect(error?.provider == "test")
        #expect(error?.requestID == "req-\(testCase.status)")
        #expect(error?.fieldErrors.map(\.field) == testCase.fields)
        #expect(error?.isRetryable == testCase.retryable)
        #expect(error?.message.contains(testCase.messageContains) == true, "\(error?.message ?? "")")
        if testCase.status == 429 { #expect(error?.retryAfter == .seconds(7)) }
        if testCase.status == 500 { #expect(error?.mayHaveReachedProvider == true) }
        if testCase.status == 400 { #expect(error?.mayHaveReachedProvider == false) }
    }

    @Test func providerMessagesAreScrubbed() async throws {
        let body = #"{"code":"invalid","message":"card 4111111111111111 refused for key sk_live_abcdefghijkl"}"#
        let transport = ScriptedTransport([.json(400, body)])
        let provider = try BridgeFixtures.provider(transport, retry: RetryPolicy.none)
        let error = await gatewayError { _ = try await provider.card(BridgeFixtures.ref, context: OperationContext()) }
        let text = try #require(error?.description)
        #expect(!text.contains("4111111111111111"))
        #expect(!text.contains("sk_live_abcdefghijkl"))
    }

    @Test func cardLookupErrorsUseTheSameTable() async throws {
        let transport = ScriptedTransport([.json(404, #"{"code":"Invalid","message":"Unknown customer id"}"#)])
        let provider = try BridgeFixtures.provider(transport)
        let error = await gatewayError { _ = try await provider.card(BridgeFixtures.ref, context: OperationContext()) }
        #expect(error?.code == .notFound)
        #expect(transport.requestCount == 1)
    }
}
