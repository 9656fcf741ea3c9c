@_spi(AdapterSupport) import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Crypto
import Foundation
import SharedTestSupport
import Testing

@_spi(AdapterSupport) @testable import CardGatewayMarqeta

@Suite("Marqeta provisioning", .timeLimit(.minutes(5)))
struct MarqetaProvisioningTests {
    static func hex(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    @Test(
        "Apple Pay: POST …/applepay with Base64 certificates (leaf first), nonce and signature, device_type and app version from options"
    )
    func applePay() async throws {
        try await MarqetaFixture.withHarness { h in
            let input = ApplePayProvisioningInput(
                certificates: [Inputs.leafCertificate, Inputs.subordinateCertificate], nonce: Inputs.nonce,
                nonceSignature: Inputs.nonceSignature)
            let response = try await h.provider.provision(
                ProvisioningRequest(card: CardRef(id: Seed.activeCard), wallet: .applePay, input: .applePay(input)),
                context: h.context
            )
            guard let payload = response.applePay else {
                Issue.record("expected an Apple payload, got \(response)")
                return
            }
            #expect(
                payload.encryptedPassData.count == 96 && payload.activationData.count == 48
                    && payload.ephemeralPublicKey.count == 65)
            let entry = try #require(h.handle.journal.entries().last)
            #expect(entry.method == "POST" && entry.path == "/v3/digitalwalletprovisionrequests/applepay")
            let body = try #require(h.json(entry))
            #expect(body["card_token"]?.stringValue == Seed.activeCard)
            #expect(body["device_type"]?.stringValue == "WATCH")
            #expect(body["provisioning_app_version"]?.stringValue == "cardgateway-tests 2.1")
            // The journal masks the Apple data; the simulator decoded it and kept digests.
            #expect(body["nonce"]?.stringValue == JournalEntry.maskedValue)
            #expect(
                h.simulator.lastApplePayDigests
                    == [Inputs.leafCertificate, Inputs.subordinateCertificate, Inputs.nonce, Inputs.nonceSignature].map(
                        Self.hex))
            // What went on the wire, as the adapter sent it: standard Base64.
            let sent = try #require(h.transport.requests.last?.jsonBody)
            #expect(
                sent["certificates"]?.arrayValue?.compactMap(\.stringValue) == [
                    Inputs.leafCertificate.base64EncodedString(), Inputs.subordinateCertificate.base64EncodedString(),
                ])
            #expect(sent["nonce"]?.stringValue == Inputs.nonce.base64EncodedString())
            #expect(sent["nonce_signature"]?.stringValue == Inputs.nonceSignature.base64EncodedString())
            #expect(h.transport.requests.last?.header("Authorization") == MarqetaHarness.expectedAuthorization)
        }
    }

    @Test(
        "Google Pay: POST …/androidpay with wallet_account_id and device_id; the opaque payment card as Marqeta sent it"
    )
    func googlePay() async throws {
        try await MarqetaFixture.withHarness { h in
            let input = GooglePayProvisioningInput(
                clientDeviceID: Inputs.googleDeviceID, clientWalletAccountID: Inputs.googleWalletAccountID)
            let response = try await h.provider.provision(
                ProvisioningRequest(card: CardRef(id: Seed.activeCard), wallet: .googlePay, input: .googlePay(input)),
                context: h.context)
            guard let payload = response.googlePay else {
                Issue.record("expected a Google payload, got \(response)")
                return
            }
            #expect(payload.network == .visa)
            #expect(payload.tokenProvider == "TOKEN_PROVIDER_VISA")
            #expect(payload.lastFour == "4242")
            #expect(payload.displayName == "Marqeta Sim Card")
            let text = String(decoding: payload.opaquePaymentCard.revealedBytes, as: UTF8.self)
            #expect(Data(base64Encoded: text) != nil)
            let entry = try #require(h.handle.journal.entries().last)
            #expect(entry.path == "/v3/digitalwalletprovisionrequests/androidpay")
            let body = try #require(h.json(entry))
            #expect(body["wallet_account_id"]?.stringValue == Inputs.googleWalletAccountID)
            #expect(body["device_id"]?.stringValue == Inputs.googleDeviceID)
            #expect(body["device_type"]?.stringValue == "WATCH")
            #expect(body["wallet_user_id"] == nil)
        }
    }

    @Test(
        "Samsung Pay: POST …/samsungpay with wallet_user_id and device_id; Samsung's extra_provision_payload, network, card type and token service provider as Marqeta sent them"
    )
    func samsungPay() async throws {
        try await MarqetaFixture.withHarness { h in
            let input = SamsungPayProvisioningInput(
                deviceID: Inputs.samsungDeviceID, walletUserID: Inputs.samsungWalletUserID)
            let response = try await h.provider.provision(
                ProvisioningRequest(card: CardRef(id: Seed.activeCard), wallet: .samsungPay, input: .samsungPay(input)),
                context: h.context)
            guard let payload = response.samsungPay else {
                Issue.record("expected a Samsung payload, got \(response)")
                return
            }
            // What Marqeta answered, read from the wire: the payload is handed on byte for byte.
            let answer = try JSONValue.parse(try #require(h.transport.responseBodies.last ?? nil))
            let data = try #require(answer["push_tokenize_request_data"])
            #expect(data["opaque_payment_card"] == nil)
            #expect(
                payload.extraProvisionPayload.revealedBytes
                    == Data(try #require(data["extra_provision_payload"]?.stringValue).utf8))
            #expect(!payload.extraProvisionPayload.isEmpty)
            #expect(payload.cardType == data["card_type"]?.stringValue && payload.cardType != nil)
            #expect(
                payload.tokenProvider == data["token_service_provider"]?.stringValue && payload.tokenProvider != nil)
            #expect(payload.lastFour == "4242")
            #expect(payload.network == .visa)
            let entry = try #require(h.handle.journal.entries().last)
            #expect(entry.path == "/v3/digitalwalletprovisionrequests/samsungpay")
            let body = try #require(h.json(entry))
            #expect(body["wallet_user_id"]?.stringValue == Inputs.samsungWalletUserID)
            #expect(body["device_id"]?.stringValue == Inputs.samsungDeviceID)
            #expect(body["wallet_account_id"] == nil)
            #expect(!String(describing: payload).contains(try #require(data["extra_provision_payload"]?.stringValue)))
        }
    }

    @Test(
        "bounds from Marqeta's document: device_id 1-24, wallet_account_id and wallet_user_id 1-50, refused before sending"
    )
    func bounds() async throws {
        try await MarqetaFixture.withHarness { h in
            let card = CardRef(id: Seed.activeCard)
            let x24 = String(repeating: "d", count: 24), x25 = x24 + "d"
            let w50 = String(repeating: "w", count: 50), w51 = w50 + "w"
            let before = h.journalCount
            for (request, field) in [
                (
                    ProvisioningRequest(
                        card: card, wallet: .googlePay,
                        input: .googlePay(.init(clientDeviceID: x25, clientWalletAccountID: "w"))),
                    "input.clientDeviceID"
                ),
                (
                    ProvisioningRequest(
                        card: card, wallet: .googlePay,
                        input: .googlePay(.init(clientDeviceID: "d", clientWalletAccountID: w51))),
                    "input.clientWalletAccountID"
                ),
                (
                    ProvisioningRequest(
                        card: card, wallet: .samsungPay, input: .samsungPay(.init(deviceID: x25, walletUserID: "w"))),
                    "input.deviceID"
                ),
                (
                    ProvisioningRequest(
                        card: card, wallet: .samsungPay, input: .samsungPay(.init(deviceID: "d", walletUserID: w51))),
                    "input.walletUserID"
                ),
                (
                    ProvisioningRequest(
                        card: card, wallet: .samsungPay, input: .samsungPay(.init(deviceID: "d", walletUserID: "w")),
                        appVersion: String(repeating: "9", count: 51)), "appVersion"
                ),
            ] {
                let error = await gatewayError { _ = try await h.provider.provision(request, context: h.context) }
                #expect(error?.code == .invalidRequest)
                #expect(error?.fieldErrors.map(\.field) == [field])
            }
            #expect(h.journalCount == before)
            // The longest values the document allows go through.
            _ = try await h.provider.provision(
                ProvisioningRequest(
                    card: card, wallet: .googlePay,
                    input: .googlePay(.init(clientDeviceID: x24, clientWalletAccountID: w50))), context: h.context)
            _ = try await h.provider.provision(
                ProvisioningRequest(
                    card: card, wallet: .samsungPay, input: .samsungPay(.init(deviceID: x24, walletUserID: w50))),
                context: h.context)
            #expect(h.journalCount == before + 2)
        }
    }

    @Test(
        "the device type and app version are the request's: a phone, a watch, a tablet and every other kind Marqeta lists, through one instance"
    )
    func deviceTypeFromRequest() async throws {
        try await MarqetaFixture.withHarness { h in
            let card = CardRef(id: Seed.activeCard)
            let samsung = ProvisioningInput.samsungPay(
                .init(deviceID: Inputs.samsungDeviceID, walletUserID: Inputs.samsungWalletUserID))
            let expected: [(ProvisioningDeviceType, String)] = [
                (.mobilePhone, "MOBILE_PHONE"), (.watch, "WATCH"), (.tablet, "TABLET"), (.wearable, "WEARABLE_DEVICE"),
                (.household, "HOUSEHOLD_DEVICE"),
                (.automobile, "AUTOMOBILE_DEVICE"),
            ]
            #expect(expected.map(\.0) == ProvisioningDeviceType.allCases)
            for (kind, wire) in expected {
                _ = try await h.provider.provision(
                    ProvisioningRequest(
                        card: card, wallet: .samsungPay, input: samsung, deviceType: kind,
                        appVersion: "bank-app 7.\(wire.count)"), context: h.context)
                let body = try #require(h.transport.requests.last?.jsonBody)
                #expect(body["device_type"]?.stringValue == wire)
                #expect(body["provisioning_app_version"]?.stringValue == "bank-app 7.\(wire.count)")
            }
            // Without either, the instance's options apply (WATCH and the fixture's version).
            let google = ProvisioningInput.googlePay(
                .init(clientDeviceID: Inputs.googleDeviceID, clientWalletAccountID: Inputs.googleWalletAccountID))
            _ = try await h.provider.provision(
                ProvisioningRequest(card: card, wallet: .googlePay, input: google), context: h.context)
            let body = try #require(h.transport.requests.last?.jsonBody)
            #expect(body["device_type"]?.stringValue == "WATCH")
            #expect(body["provisioning_app_version"]?.stringValue == "cardgateway-tests 2.1")
        }
        // An instance without an app version needs one in every request.
        try await MarqetaFixture.withHarness(options: MarqetaOptions()) { h in
            let before = h.journalCount
            let input = ProvisioningInput.googlePay(
                .init(clientDeviceID: Inputs.googleDeviceID, clientWalletAccountID: Inputs.googleWalletAccountID))
            let error = await gatewayError {
                _ = try await h.provider.provision(
                    ProvisioningRequest(card: CardRef(id: Seed.activeCard), wallet: .googlePay, input: input),
                    context: h.context)
            }
            #expect(error?.fieldErrors.map(\.field) == ["appVersion"])
            #expect(h.journalCount == before)
            _ = try await h.provider.provision(
                ProvisioningRequest(
                    card: CardRef(id: Seed.activeCard), wallet: .googlePay, input: input, appVersion: "1.0"),
                context: h.context)
            #expect(h.transport.requests.last?.jsonBody?["device_type"]?.stringValue == "MOBILE_PHONE")
        }
    }

    @Test(
        "a wallet's input is its own: Google Pay ids for Samsung Pay, or Samsung's for Google Pay, are refused before sending"
    )
    func inputOfAnotherWallet() async throws {
        try await MarqetaFixture.withHarness { h in
            let before = h.journalCount
            let google = ProvisioningInput.googlePay(.init(clientDeviceID: "d", clientWalletAccountID: "w"))
            let samsung = ProvisioningInput.samsungPay(.init(deviceID: "d", walletUserID: "w"))
            for request in [
                ProvisioningRequest(card: CardRef(id: Seed.activeCard), wallet: .samsungPay, input: google),
                ProvisioningRequest(card: CardRef(id: Seed.activeCard), wallet: .googlePay, input: samsung),
            ] {
                let error = await gatewayError { _ = try await h.provider.provision(request, context: h.context) }
                #expect(error?.code == .invalidRequest)
                #expect(ProvisioningInputChecks.problems(in: request).errors.map(\.field) == ["input"])
            }
            #expect(h.journalCount == before)
        }
    }

    @Test(
        "offers: ACTIVE is eligible with its tokens, SUSPENDED is not; every wallet is encryptedPayload, Samsung included"
    )
    func offers() async throws {
        try await MarqetaFixture.withHarness { h in
            for wallet in Wallet.allCases {
                let offer = try await h.provider.offer(
                    for: CardRef(id: Seed.activeCard), wallet: wallet, context: h.context)
                #expect(offer.eligible)
                #expect(offer.flow == .encryptedPayload)
                #expect(offer.lastFour == "4242")
                #expect(offer.existingTokens.map(\.id) == [Seed.eligibleCardToken])
            }
            let suspended = try await h.provider.offer(
                for: CardRef(id: Seed.suspendedCard), wallet: .samsungPay, context: h.context)
            #expect(!suspended.eligible)
            #expect(suspended.ineligibleReason?.code == "cardNotActive")
        }
    }

    @Test("refused before sending: empty certificates, a wrong input kind, a card token with a slash")
    func refusedBeforeSending() async throws {
        try await MarqetaFixture.withHarness { h in
            let before = h.journalCount
            let empty = ApplePayProvisioningInput(certificates: [], nonce: Data(), nonceSignature: Data([1]))
            let error = await gatewayError {
                _ = try await h.provider.provision(
                    ProvisioningRequest(card: CardRef(id: Seed.activeCard), wallet: .applePay, input: .applePay(empty)),
                    context: h.context)
            }
            #expect(Set(error?.fieldErrors.map(\.field) ?? []) == ["input.certificates", "input.nonce"])
            let wrongKind = await gatewayError {
                _ = try await h.provider.provision(
                    ProvisioningRequest(
                        card: CardRef(id: Seed.activeCard), wallet: .googlePay, input: .issuerSDKKey(apiVersion: "x")),
                    context: h.context)
            }
            #expect(wrongKind?.code == .invalidRequest)
            let slash = await gatewayError {
                _ = try await h.provider.card(CardRef(id: "../users"), context: h.context)
            }
            #expect(slash?.code == .invalidRequest)
            #expect(h.journalCount == before)
        }
    }

    @Test(
        "configuration: app version optional (1-50), device type from the document's enumeration, Basic credentials not empty"
    )
    func configuration() throws {
        let json = #"{"provisioningAppVersion":"1.0"}"#
        let options = try JSONDecoder().decode(MarqetaOptions.self, from: Data(json.utf8))
        #expect(options.deviceType == "MOBILE_PHONE")
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(
                MarqetaOptions.self, from: Data(#"{"provisioningAppVersion":"1.0","deviceType":"FRIDGE"}"#.utf8))
        }
        #expect(try JSONDecoder().decode(MarqetaOptions.self, from: Data("{}".utf8)) == MarqetaOptions())
        #expect(
            try JSONDecoder().decode(MarqetaOptions.self, from: Data(#"{"deviceType":"AUTOMOBILE_DEVICE"}"#.utf8))
                .deviceType == "AUTOMOBILE_DEVICE")
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(
                MarqetaOptions.self,
                from: Data(#"{"provisioningAppVersion":"\#(String(repeating: "9", count: 51))"}"#.utf8))
        }
        let http = try ProviderHTTPClient(
            instance: "mq", kind: .marqeta, baseURL: URL(string: "https://sandbox-api.marqeta.com/v3")!,
            transport: ScriptedTransport([]))
        let error = gatewayError {
            _ = try MarqetaProvider(
                http: http, applicationToken: Secret(" "), accessToken: Secret("x"),
                options: MarqetaOptions(provisioningAppVersion: "1"))
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(throws: (any Error).self) {
            _ = try ProviderHTTPClient(
                instance: "mq", kind: .marqeta, baseURL: URL(string: "http://sandbox-api.marqeta.com/v3")!,
                transport: ScriptedTransport([]))
        }
    }
}
