import CardGateway
import CardGatewayTesting
import Foundation
import Testing

@testable import CardGatewayAdyen
import SharedTestSupport

@Suite("Adyen network tokens, offers and the issuer SDK relay (scripted)", .timeLimit(.minutes(5)))
struct AdyenProvisioningTests {
    // MARK: Network tokens

    @Test("networkTokens(for:): GET /paymentInstruments/{id}/networkTokens, each field mapped")
    func tokens() async throws {
        let transport = ScriptedTransport([
            .json(
                200,
                Fixture.tokenList([
                    Fixture.token(id: "NWTK1", status: "active", type: "applePay", brandVariant: "mc_prepaid_mrw"),
                    Fixture.token(id: "NWTK2", status: "inactive", type: "googlePay", brandVariant: "visadebit"),
                    Fixture.token(id: "NWTK3", status: "suspended", type: "wallet", requestor: "Apple Pay"),
                    Fixture.token(id: "NWTK4", status: "closed", type: "cof", requestor: "Merchant Token Service"),
                    Fixture.token(id: "NWTK5", status: "unheardOf", type: "wallet", brandVariant: "other"),
                ]))
        ])
        let tokens = try await Fixture.provider(transport).networkTokens(
            for: CardRef(id: "PI3227C223222B5BPCMFXD2XG"), context: OperationContext())

        let request = try #require(transport.requests.first)
        #expect(request.method == "GET")
        #expect(request.path == "/bcl/v2/paymentInstruments/PI3227C223222B5BPCMFXD2XG/networkTokens")
        #expect(request.header("X-API-Key") == Fixture.apiKey)

        #expect(tokens.map(\.id) == ["NWTK1", "NWTK2", "NWTK3", "NWTK4", "NWTK5"])
        #expect(tokens.map(\.status) == [.active, .requested, .suspended, .deleted, .unknown])
        #expect(tokens.map(\.providerStatus) == ["active", "inactive", "suspended", "closed", "unheardOf"])
        #expect(tokens.map(\.wallet) == [.applePay, .googlePay, .applePay, nil, nil])
        #expect(tokens.map(\.network) == [.mastercard, .visa, .mastercard, .mastercard, nil])
        #expect(tokens[0].lastFour == "0001")
        #expect(tokens[0].created == Date(timeIntervalSince1970: 1_609_459_200))
    }

    @Test("a listed token without an id is skipped; a fetched one without an id is invalidResponse")
    func tokenWithoutID() async throws {
        let list =
            #"{"networkTokens":[{"status":"active","type":"wallet"},{"id":"NWTK9","status":"active","type":"wallet"}]}"#
        let single = #"{"token":{"status":"active","type":"wallet"}}"#
        let transport = ScriptedTransport([.json(200, list), .json(200, single)])
        let provider = try Fixture.provider(transport)
        #expect(
            try await provider.networkTokens(for: CardRef(id: "PI1"), context: OperationContext()).map(\.id) == [
                "NWTK9"
            ])
        let error = await gatewayError { _ = try await provider.networkToken(id: "NWTK8", context: OperationContext()) }
        #expect(error?.code == .invalidResponse)
    }

    @Test(
        "wallet from token type, wallet type and token requestor",
        arguments: [
            ("applePay", nil, nil, Wallet?.some(.applePay)), ("googlePay", nil, nil, .googlePay),
            ("wallet", "googlePay", nil, .googlePay),
            ("wallet", nil, "Google Pay", .googlePay), ("wallet", nil, "Android Pay", .googlePay),
            ("wallet", nil, "Samsung Pay", .samsungPay),
            ("wallet", "garminPay", nil, nil), ("cof", nil, "Apple Pay", nil), (nil, nil, nil, nil),
        ] as [(String?, String?, String?, Wallet?)])
    func wallets(tokenType: String?, walletType: String?, requestor: String?, expected: Wallet?) {
        #expect(
            AdyenMapping.wallet(tokenType: tokenType, walletType: walletType, tokenRequestorName: requestor) == expected
        )
    }

    @Test("creation dates with fractional seconds and garbage")
    func dates() {
        #expect(AdyenMapping.date("2025-03-19T10:15:30.250+01:00") == Date(timeIntervalSince1970: 1_742_375_730.25))
        #expect(AdyenMapping.date("2025-03-19T09:15:30Z") == Date(timeIntervalSince1970: 1_742_375_730))
        #expect(AdyenMapping.date("yesterday") == nil)
        #expect(AdyenMapping.date(nil) == nil)
    }

    @Test("networkToken(id:): GET /networkTokens/{id}; a body without token is invalidResponse")
    func oneToken() async throws {
        let transport = ScriptedTransport([
            .json(200, "{\"token\": \(Fixture.token(id: "NWTK9", status: "suspended"))}"), .json(200, "{}"),
        ])
        let provider = try Fixture.provider(transport)
        let token = try await provider.networkToken(id: "NWTK9", context: OperationContext())
        #expect(transport.requests.first?.path == "/bcl/v2/networkTokens/NWTK9")
        #expect(token.id == "NWTK9")
        #expect(token.status == .suspended)
        let error = await gatewayError { _ = try await provider.networkToken(id: "NWTK9", context: OperationContext()) }
        #expect(error?.code == .invalidResponse)
    }

    @Test(
        "updateNetworkToken: PATCH /networkTokens/{id} with the status, 202 accepted",
        arguments: AdyenNetworkTokenStatus.allCases)
    func patch(status: AdyenNetworkTokenStatus) async throws {
        let transport = ScriptedTransport([.response(status: 202)])
        try await Fixture.provider(transport).updateNetworkToken(
            id: "NWTK1", status: status, context: OperationContext())
        let request = try #require(transport.requests.first)
        #expect(request.method == "PATCH")
        #expect(request.path == "/bcl/v2/networkTokens/NWTK1")
        #expect(request.bodyText == "{\"status\":\"\(status.rawValue)\"}")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("X-API-Key") == Fixture.apiKey)
    }

    @Test("updateNetworkToken: Adyen's refusal of a closed token is mapped; a known closed token is refused locally")
    func patchClosed() async throws {
        let transport = ScriptedTransport([
            .json(
                422,
                Fixture.restError(
                    status: 422, errorCode: "30_112", title: "Invalid network token status",
                    detail: "Network token status closed is final.", requestId: "REQ1"))
        ])
        let provider = try Fixture.provider(transport)
        let remote = await gatewayError {
            try await provider.updateNetworkToken(id: "NWTK4", status: .active, context: OperationContext())
        }
        #expect(remote?.code == .invalidRequest)
        #expect(remote?.providerCode == "30_112")
        #expect(remote?.httpStatus == 422)
        #expect(remote?.requestID == "REQ1")

        let closed = WalletToken(id: "NWTK4", wallet: .applePay, status: .deleted, providerStatus: "closed")
        let local = await gatewayError {
            try await provider.updateNetworkToken(closed, status: .active, context: OperationContext())
        }
        #expect(local?.code == .invalidCardState)
        #expect(transport.requestCount == 1)

        let emptyID = await gatewayError {
            try await provider.updateNetworkToken(id: "", status: .suspended, context: OperationContext())
        }
        #expect(emptyID?.code == .invalidRequest)
        #expect(transport.requestCount == 1)

        let open = ScriptedTransport([.response(status: 202)])
        try await Fixture.provider(open).updateNetworkToken(
            WalletToken(id: "NWTK1", wallet: nil, status: .active, providerStatus: "active"), status: .suspended,
            context: OperationContext())
        #expect(open.requestCount == 1)
    }

    @Test("a close that was applied before its retry is refused as final: the token is read and the close succeeds")
    func retriedCloseSettles() async throws {
        let final = Fixture.restError(
            status: 422, errorCode: "30_112", title: "Invalid network token status",
            detail: "Network token status closed is final.")
        let applied = ScriptedTransport([
            .json(500, Fixture.restError(status: 500, errorCode: "00_500")), .json(422, final),
            .json(200, "{\"token\": \(Fixture.token(id: "NWTK7", status: "closed"))}"),
        ])
        try await Fixture.provider(applied, sleeps: SleepRecorder()).updateNetworkToken(
            id: "NWTK7", status: .closed, context: OperationContext())
        #expect(applied.requests.map(\.method) == ["PATCH", "PATCH", "GET"])

        // Still open after all: the refusal stands.
        let notApplied = ScriptedTransport([
            .json(500, Fixture.restError(status: 500, errorCode: "00_500")), .json(422, final),
            .json(200, "{\"token\": \(Fixture.token(id: "NWTK7", status: "active"))}"),
        ])
        let error = await gatewayError {
            try await Fixture.provider(notApplied, sleeps: SleepRecorder()).updateNetworkToken(
                id: "NWTK7", status: .closed, context: OperationContext())
        }
        #expect(error?.providerCode == "30_112")

        // A first-attempt refusal is not second-guessed.
        let once = ScriptedTransport([.json(422, final)])
        let direct = await gatewayError {
            try await Fixture.provider(once).updateNetworkToken(
                id: "NWTK7", status: .closed, context: OperationContext())
        }
        #expect(direct?.providerCode == "30_112")
        #expect(once.requestCount == 1)
    }

    @Test("dot segments are not ids: nothing is sent", arguments: [".", ".."])
    func dotSegments(id: String) async throws {
        let transport = ScriptedTransport([])
        let provider = try Fixture.provider(transport)
        #expect(
            await gatewayError { _ = try await provider.card(CardRef(id: id), context: OperationContext()) }?.code
                == .invalidRequest)
        #expect(
            await gatewayError { _ = try await provider.networkToken(id: id, context: OperationContext()) }?.code
                == .invalidRequest)
        #expect(transport.requestCount == 0)
    }

    // MARK: Offers

    @Test("offer: active card is eligible, flow issuerSDKRelay, sheet data and existing tokens")
    func eligibleOffer() async throws {
        let transport = ScriptedTransport([
            .json(
                200, Fixture.instrument(status: "active", brand: "visa", lastFour: "4242", month: "08", year: "2029")),
            .json(200, Fixture.tokenList([Fixture.token(id: "NWTK1", type: "applePay")])),
        ])
        let offer = try await Fixture.provider(transport).offer(
            for: CardRef(id: "PI1"), wallet: .applePay, context: OperationContext())
        #expect(
            transport.requests.map(\.path) == [
                "/bcl/v2/paymentInstruments/PI1", "/bcl/v2/paymentInstruments/PI1/networkTokens",
            ])
        #expect(offer.eligible)
        #expect(offer.ineligibleReason == nil)
        #expect(offer.flow == .issuerSDKRelay)
        #expect(offer.wallet == .applePay)
        #expect(offer.network == .visa)
        #expect(offer.lastFour == "4242")
        #expect(offer.cardholderName == "Sam Hopper")
        #expect(offer.expiry == CardExpiry(month: 8, year: 2029))
        #expect(offer.primaryAccountIdentifier == nil)
        #expect(offer.existingTokens.map(\.id) == ["NWTK1"])
    }

    @Test("offer: a credential that may not list network tokens still gets an offer, with no existing tokens")
    func offerWithoutTokenRole() async throws {
        let forbidden = Fixture.restError(
            status: 403, errorCode: "00_403", title: "Forbidden",
            detail: "Not the right permission to access this service.")
        let transport = ScriptedTransport([
            .json(
                200, Fixture.instrument(status: "active", brand: "visa", lastFour: "4242", month: "08", year: "2029")),
            .json(403, forbidden),
        ])
        let offer = try await Fixture.provider(transport).offer(
            for: CardRef(id: "PI1"), wallet: .applePay, context: OperationContext())
        #expect(transport.requestCount == 2)
        #expect(offer.eligible)
        #expect(offer.existingTokens.isEmpty)

        let failing = ScriptedTransport([
            .json(
                200, Fixture.instrument(status: "active", brand: "visa", lastFour: "4242", month: "08", year: "2029")),
            .json(401, Fixture.restError(status: 401, errorCode: "00_401")),
        ])
        let error = await gatewayError {
            _ = try await Fixture.provider(failing).offer(
                for: CardRef(id: "PI1"), wallet: .applePay, context: OperationContext())
        }
        #expect(error?.code == .authenticationFailed, "only a missing role is tolerated")
    }

    @Test(
        "offer: suspended, inactive and closed cards are not eligible, with the status reason",
        arguments: [
            ("suspended", "lost"), ("inactive", nil), ("closed", "stolen"),
        ] as [(String, String?)])
    func ineligible(status: String, reason: String?) async throws {
        let transport = ScriptedTransport([
            .json(200, Fixture.instrument(status: status, statusReason: reason)), .json(200, Fixture.tokenList([])),
        ])
        let offer = try await Fixture.provider(transport).offer(
            for: CardRef(id: "PI1"), wallet: .googlePay, context: OperationContext())
        #expect(!offer.eligible)
        #expect(offer.ineligibleReason?.code == "cardNotActive")
        #expect(offer.ineligibleReason?.message.contains(status) == true)
        if let reason { #expect(offer.ineligibleReason?.message.contains("statusReason: \(reason)") == true) }
        #expect(offer.flow == .issuerSDKRelay)
    }

    @Test("offer: Samsung Pay is not supported; a bank account is not a card")
    func offerEdges() async throws {
        let samsung = ScriptedTransport([.json(200, Fixture.instrument())])
        let offer = try await Fixture.provider(samsung).offer(
            for: CardRef(id: "PI1"), wallet: .samsungPay, context: OperationContext())
        #expect(!offer.eligible)
        #expect(offer.ineligibleReason?.code == "walletNotSupported")
        #expect(offer.flow == nil)

        let bank = ScriptedTransport([.json(200, Fixture.bankAccountInstrument)])
        let error = await gatewayError {
            _ = try await Fixture.provider(bank).offer(
                for: CardRef(id: "PI1"), wallet: .applePay, context: OperationContext())
        }
        #expect(error?.code == .invalidRequest)
        #expect(bank.requestCount == 1)
    }

    // MARK: Relay

    /// Bytes whose Base64 contains `+`, `/` and padding.
    static let sdkOutputBytes = Data([0xfb, 0xff, 0xfe, 0x00, 0x01, 0x3f, 0xbf, 0x7f, 0x80])
    static let sdkInputBytes = Data([0x00, 0xff, 0xfb, 0xef, 0xbe, 0x10, 0x20, 0x30])

    @Test("provision start: GET activation data, sdkInput returned as the decoded bytes")
    func relayStart() async throws {
        let base64 = Self.sdkInputBytes.base64EncodedString()
        let transport = ScriptedTransport([.json(200, "{\"sdkInput\": \"\(base64)\"}")])
        let response = try await Fixture.provider(transport).provision(
            ProvisioningRequest(card: CardRef(id: "PI1"), wallet: .applePay, input: .issuerSDK(output: nil)),
            context: OperationContext()
        )
        let request = try #require(transport.requests.first)
        #expect(request.method == "GET")
        #expect(request.path == "/bcl/v2/paymentInstruments/PI1/networkTokenActivationData")
        #expect(request.header("X-API-Key") == Fixture.apiKey)
        #expect(request.header("Idempotency-Key") == nil)
        #expect(request.body == nil)
        #expect(response == .issuerSDKInput(SensitiveData(Self.sdkInputBytes)))
    }

    @Test("provision step: POST {\"sdkOutput\": Base64} with an Idempotency-Key, the new sdkInput returned")
    func relayStep() async throws {
        let base64 = Self.sdkInputBytes.base64EncodedString()
        let transport = ScriptedTransport([.json(200, "{\"sdkInput\": \"\(base64)\"}")])
        let response = try await Fixture.provider(transport).provision(
            ProvisioningRequest(
                card: CardRef(id: "PI1"), wallet: .googlePay,
                input: .issuerSDK(output: SensitiveData(Self.sdkOutputBytes))),
            context: OperationContext()
        )
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/bcl/v2/paymentInstruments/PI1/networkTokenActivationData")
        #expect(request.bodyText == "{\"sdkOutput\":\"\(Self.sdkOutputBytes.base64EncodedString())\"}")
        #expect(request.bodyText.contains("+/"))
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("X-API-Key") == Fixture.apiKey)
        let key = try #require(request.header("Idempotency-Key"))
        #expect(!key.isEmpty && key.count <= 64)
        #expect(response == .issuerSDKInput(SensitiveData(Self.sdkInputBytes)))
    }

    @Test("a POST retried after a 500 carries the same Idempotency-Key")
    func relayRetry() async throws {
        let transport = ScriptedTransport([
            .json(500, Fixture.restError(status: 500, errorCode: "00_500")),
            .json(200, "{\"sdkInput\": \"AAEC\"}"),
        ])
        let sleeps = SleepRecorder()
        let response = try await Fixture.provider(transport, sleeps: sleeps).provision(
            ProvisioningRequest(
                card: CardRef(id: "PI1"), wallet: .applePay, input: .issuerSDK(output: SensitiveData(Data([1, 2, 3])))),
            context: OperationContext()
        )
        #expect(transport.requestCount == 2)
        let keys = transport.requests.map { $0.header("Idempotency-Key") }
        #expect(keys[0] != nil)
        #expect(keys[0] == keys[1])
        #expect(transport.requests[0].body == transport.requests[1].body)
        #expect(sleeps.recorded.count == 1)
        #expect(response == .issuerSDKInput(SensitiveData(Data([0, 1, 2]))))
    }

    @Test("keys: one per round trip, stable for a repeated operation key, different for another output")
    func keyDerivation() async throws {
        let transport = ScriptedTransport(handler: { _ in .json(200, "{\"sdkInput\": \"AAEC\"}") })
        let provider = try Fixture.provider(transport)
        let context = OperationContext(idempotencyKey: "relay-session-7")
        for output in [Data([1]), Data([1]), Data([2])] {
            _ = try await provider.provision(
                ProvisioningRequest(
                    card: CardRef(id: "PI1"), wallet: .applePay, input: .issuerSDK(output: SensitiveData(output))),
                context: context)
        }
        _ = try await provider.provision(
            ProvisioningRequest(
                card: CardRef(id: "PI1"), wallet: .applePay, input: .issuerSDK(output: SensitiveData(Data([1])))),
            context: OperationContext())
        let keys = transport.requests.compactMap { $0.header("Idempotency-Key") }
        #expect(keys.count == 4)
        #expect(keys[0] == keys[1])
        #expect(keys[0] != keys[2])
        #expect(keys[3] != keys[0])
        #expect(keys.allSatisfy { $0.count <= 64 })
    }

    @Test("without an operation key, the key is still stable for the same card and sdkOutput")
    func keyWithoutOperationKey() async throws {
        let transport = ScriptedTransport(handler: { _ in .json(200, "{\"sdkInput\": \"AAEC\"}") })
        let provider = try Fixture.provider(transport)
        for (card, output) in [
            ("PI1", Data([1, 2])), ("PI1", Data([1, 2])), ("PI1", Data([3])), ("PI2", Data([1, 2])),
        ] {
            _ = try await provider.provision(
                ProvisioningRequest(
                    card: CardRef(id: card), wallet: .applePay, input: .issuerSDK(output: SensitiveData(output))),
                context: OperationContext())
        }
        let keys = transport.requests.compactMap { $0.header("Idempotency-Key") }
        #expect(keys.count == 4)
        #expect(keys[0] == keys[1], "a repeated call after a lost answer must be de-duplicated")
        #expect(Set(keys).count == 3)
        #expect(keys.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) })
    }

    @Test(
        "sdkInput that is missing, base64url, padded wrongly or not Base64 is invalidResponse",
        arguments: [
            "{}", "{\"sdkInput\": \"\"}", "{\"sdkInput\": \"-_8A\"}", "{\"sdkInput\": \"AAE\"}",
            "{\"sdkInput\": \"AA E=\"}",
            "{\"sdkInput\": \"not base64!\"}", "{\"sdkInput\": 42}",
        ])
    func badSDKInput(body: String) async throws {
        let transport = ScriptedTransport([.json(200, body)])
        let error = await gatewayError {
            _ = try await Fixture.provider(transport).provision(
                ProvisioningRequest(card: CardRef(id: "PI1"), wallet: .applePay, input: .issuerSDK(output: nil)),
                context: OperationContext()
            )
        }
        #expect(error?.code == .invalidResponse)
        #expect(error?.description.contains("base64!") == false)
    }

    @Test("other inputs and wallets are unsupported; empty output and bad ids are invalid; nothing is sent")
    func relayValidation() async throws {
        let transport = ScriptedTransport([])
        let provider = try Fixture.provider(transport)
        let unsupported: [ProvisioningRequest] = [
            ProvisioningRequest(
                card: CardRef(id: "PI1"), wallet: .applePay,
                input: .applePay(
                    ApplePayProvisioningInput(certificates: [Data([1])], nonce: Data([2]), nonceSignature: Data([3])))),
            ProvisioningRequest(
                card: CardRef(id: "PI1"), wallet: .googlePay,
                input: .googlePay(GooglePayProvisioningInput(clientDeviceID: "d", clientWalletAccountID: "w"))),
            ProvisioningRequest(
                card: CardRef(id: "PI1"), wallet: .applePay, input: .issuerSDKKey(apiVersion: "2024-01-01")),
            ProvisioningRequest(card: CardRef(id: "PI1"), wallet: .samsungPay, input: .issuerSDK(output: nil)),
        ]
        for request in unsupported {
            let error = await gatewayError { _ = try await provider.provision(request, context: OperationContext()) }
            #expect(error?.code == .unsupported)
        }
        let empty = await gatewayError {
            _ = try await provider.provision(
                ProvisioningRequest(
                    card: CardRef(id: ""), wallet: .applePay, input: .issuerSDK(output: SensitiveData(Data()))),
                context: OperationContext())
        }
        #expect(empty?.code == .invalidRequest)
        #expect(Set(empty?.fieldErrors.map(\.field) ?? []) == ["card.id", "input.output"])
        #expect(transport.requestCount == 0)
    }

    @Test("confirm needs nothing from Adyen")
    func confirm() async throws {
        let transport = ScriptedTransport([])
        try await Fixture.provider(transport).confirm(
            ProvisioningConfirmation(card: CardRef(id: "PI1"), wallet: .applePay, deviceAccountReference: "DAR"),
            context: OperationContext())
        #expect(transport.requestCount == 0)
    }
}
