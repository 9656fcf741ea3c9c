import CardGateway
import CardGatewayPaysafe
import CardGatewayTesting
import Foundation
import Testing
import SharedTestSupport

/// What goes on the wire: method, path, query, headers and exact bodies.
@Suite("Paysafe request encoding", .timeLimit(.minutes(5)))
struct PaysafeEncodingTests {
    @Test("token request: form body, Basic credentials, brand in the path")
    func tokenRequest() async throws {
        let harness = try Harness.scripted([.json(200, Fixture.cardJSON())])
        _ = try await harness.provider.card(Fixture.ref, context: OperationContext())
        let token = try #require(harness.transport.requests.first)
        #expect(token.method == "POST")
        #expect(token.path == Fixture.tokenPath)
        #expect(
            token.header("Authorization") == "Basic "
                + Data("\(Fixture.clientID):\(Fixture.clientSecret)".utf8).base64EncodedString())
        #expect(token.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(token.bodyText == "grant_type=client_credentials")
        #expect(token.request.authority == "sandbox.paysafe.com")
        #expect(token.request.scheme == "https")
    }

    @Test("get card: path, includes, bearer token, no body")
    func getCard() async throws {
        let harness = try Harness.scripted([.json(200, Fixture.cardJSON())])
        _ = try await harness.provider.card(Fixture.ref, context: OperationContext())
        let request = try #require(harness.businessRequests.first)
        #expect(request.method == "GET")
        #expect(request.pathWithoutQuery == Fixture.cardPath)
        #expect(request.query("include") == "TOKENIZATIONS,AVAILABLE_ACTIONS")
        #expect(request.header("Authorization") == "Bearer tok-1")
        #expect(request.header("Accept") == "application/json")
        #expect(request.header("SCA-Authorization") == nil)
        #expect(request.body == nil)
    }

    @Test("ids are escaped in paths")
    func escapedIDs() async throws {
        let harness = try Harness.scripted([.json(200, Fixture.cardJSON())])
        _ = try await harness.provider.card(CardRef(id: "a:b", customer: "x[1]"), context: OperationContext())
        #expect(
            harness.businessRequests.first?.pathWithoutQuery
                == "/digitalwallets/v1/customers/x%5B1%5D/prepaid/cards/a%3Ab")
    }

    @Test(
        "ids that would change the path are refused before anything is sent",
        arguments: [
            ("a/b?c", "x y"), ("..", "cust-1"), ("card-1", "%2e%2e"), ("card\r\n1", "cust-1"),
            ("card-1", "cust/../other"),
        ])
    func refusedIDs(card: String, customer: String) async throws {
        let harness = try Harness.scripted([.json(200, Fixture.cardJSON())])
        let error = await gatewayError {
            _ = try await harness.provider.card(CardRef(id: card, customer: customer), context: OperationContext())
        }
        #expect(error?.code == .invalidRequest)
        #expect(harness.businessRequests.isEmpty)
    }

    @Test("list: every query parameter")
    func listQuery() async throws {
        let harness = try Harness.scripted([
            .json(200, #"{"cards":[],"meta":{"numberOfRecords":0,"limit":5,"page":1}}"#)
        ])
        let query = CardQuery(
            customer: Fixture.customer, types: [.physical], statuses: [.active, .pending, .locked], limit: 5,
            offset: 10,
            includeWalletTokens: true, includeAvailableActions: true
        )
        _ = try await harness.provider.listCards(query, context: OperationContext())
        let request = try #require(harness.businessRequests.first)
        #expect(request.method == "GET")
        #expect(request.pathWithoutQuery == Fixture.cardsPath)
        #expect(request.queryItems.map(\.name) == ["cardType", "status", "limit", "offset", "include"])
        #expect(request.query("cardType") == "PHYSICAL")
        #expect(request.query("status") == "ACTIVE,PENDING,APPLIED,LOCKED")
        #expect(request.query("limit") == "5")
        #expect(request.query("offset") == "10")
        #expect(request.query("include") == "TOKENIZATIONS,AVAILABLE_ACTIONS")
    }

    @Test("list: both types means no type filter, no includes unless asked")
    func listMinimal() async throws {
        let harness = try Harness.scripted([.json(200, #"{"cards":[]}"#)])
        _ = try await harness.provider.listCards(
            CardQuery(customer: Fixture.customer, types: [.physical, .virtual]), context: OperationContext())
        let request = try #require(harness.businessRequests.first)
        #expect(request.queryItems.map(\.name) == ["offset"])
        #expect(request.query("offset") == "0")
    }

    @Test("list: only tokenizations included")
    func listTokenizationsOnly() async throws {
        let harness = try Harness.scripted([.json(200, #"{"cards":[]}"#)])
        _ = try await harness.provider.listCards(
            CardQuery(customer: Fixture.customer, includeWalletTokens: true), context: OperationContext())
        #expect(harness.businessRequests.first?.query("include") == "TOKENIZATIONS")
    }

    @Test("create virtual: exact body, no address")
    func createVirtual() async throws {
        let harness = try Harness.scripted([.json(201, Fixture.cardJSON())])
        let request = CreateCardRequest(
            customer: Fixture.customer, type: .virtual, program: "SKRILL-VIRTUAL-MC-EEA", currency: "BGN",
            mobile: "+1 123456789",
            pin: Secret("1234"), externalID: "a2322550"
        )
        _ = try await harness.provider.createCard(request, context: OperationContext())
        let sent = try #require(harness.businessRequests.first)
        #expect(sent.method == "POST")
        #expect(sent.path == Fixture.cardsPath)
        #expect(sent.header("Content-Type") == "application/json")
        #expect(sent.header("Idempotency-Key") == nil)
        #expect(
            sent.bodyText
                == #"{"cardPin":"1234","currency":"BGN","externalId":"a2322550","mobile":"+1 123456789","programName":"SKRILL-VIRTUAL-MC-EEA","userAgent":"TestAgent/1.0"}"#
        )
    }

    @Test("create physical: the delivery address")
    func createPhysical() async throws {
        let harness = try Harness.scripted([.json(201, Fixture.cardJSON(cardType: "PHYSICAL"))])
        let request = CreateCardRequest(
            customer: Fixture.customer, type: .physical, program: "SKRILL-PHYSICAL-MC-EEA", currency: "EUR",
            deliveryAddress: DeliveryAddress(
                address1: "Tsarigradsko Shose 73", address2: "Apartment 2C", city: "Sofia", countryCode: "BG",
                postalCode: "1000")
        )
        let card = try await harness.provider.createCard(request, context: OperationContext())
        #expect(card.type == .physical)
        let body = try #require(harness.businessRequests.first?.jsonObject)
        #expect(
            body["deliveryAddress"] as? [String: String] == [
                "address1": "Tsarigradsko Shose 73", "address2": "Apartment 2C", "city": "Sofia", "countryCode": "BG",
                "postalCode": "1000",
            ])
        #expect(body["cardPin"] == nil)
        #expect(body["termsAndConditionsAccepted"] == nil)
    }

    @Test("create for a US customer: flags and state")
    func createUS() async throws {
        let harness = try Harness.scripted([.json(201, Fixture.cardJSON())], region: .us)
        let request = CreateCardRequest(
            customer: "cust-us-1", type: .physical, program: "US-PHYSICAL-VISA", currency: "USD",
            deliveryAddress: DeliveryAddress(
                address1: "1 Main Street", city: "New York", countryCode: "US", state: "NY", postalCode: "10001"),
            termsAndConditionsAccepted: true, eDisclosureAccepted: false
        )
        _ = try await harness.provider.createCard(request, context: OperationContext())
        let body = try #require(harness.businessRequests.first?.jsonObject)
        #expect(body["termsAndConditionsAccepted"] as? Bool == true)
        #expect(body["eDisclosureAccepted"] as? Bool == false)
        #expect((body["deliveryAddress"] as? [String: String])?["state"] == "NY")
    }

    @Test("activate: the card is read first, then POSTed with the exact body")
    func activate() async throws {
        let harness = try Harness.scripted([
            .json(200, Fixture.cardJSON(status: "ISSUED", cardType: "PHYSICAL")), .json(200, Fixture.cardJSON()),
        ])
        let card = try await harness.provider.activateCard(
            ActivateCardRequest(card: Fixture.ref, lastFour: "7009", cvv: Secret("567")), context: OperationContext())
        #expect(card.status == .active)
        #expect(harness.businessRequests.map(\.method) == ["GET", "POST"])
        let sent = try #require(harness.businessRequests.last)
        #expect(sent.method == "POST")
        #expect(sent.path == Fixture.cardPath + "/activate")
        #expect(sent.bodyText == #"{"cvv":"567","lastFourDigits":"7009","userAgent":"TestAgent/1.0"}"#)
    }

    @Test(
        "activate: a card that is not ISSUED or DIGITAL is refused before its CVV is sent",
        arguments: ["ACTIVE", "LOCKED", "CANCELLED", "EXPIRED", "PENDING"])
    func activateWrongStatus(status: String) async throws {
        let harness = try Harness.scripted([
            .json(200, Fixture.cardJSON(status: status, cardType: "PHYSICAL")), .json(200, Fixture.cardJSON()),
        ])
        let error = await gatewayError {
            _ = try await harness.provider.activateCard(
                ActivateCardRequest(card: Fixture.ref, lastFour: "7009", cvv: Secret("567")),
                context: OperationContext())
        }
        #expect(error?.code == .invalidCardState)
        #expect(error?.message.contains(status) == true)
        #expect(harness.businessRequests.map(\.method) == ["GET"], "nothing may be POSTed")
    }

    @Test("update status: read, then PATCH with status and reason")
    func updateStatus() async throws {
        let harness = try Harness.make { request in
            request.method == "GET"
                ? .json(200, Fixture.cardJSON(status: "ACTIVE")) : .json(200, Fixture.cardJSON(status: "LOCKED"))
        }
        let card = try await harness.provider.updateCard(
            UpdateCardRequest(card: Fixture.ref, change: .status(.locked, reason: "Lost in the office")),
            context: OperationContext())
        #expect(card.status == .locked)
        #expect(harness.businessRequests.map(\.method) == ["GET", "PATCH"])
        let patch = harness.businessRequests[1]
        #expect(patch.path == Fixture.cardPath)
        // userAgent is required in the update body (CardUpdateRequest, ≤ 1,000): the instance's option.
        #expect(
            patch.bodyText == #"{"status":"LOCKED","statusReason":"Lost in the office","userAgent":"TestAgent/1.0"}"#)
        #expect(patch.header("Signature") == nil, "no request signature unless the instance's signRequests names it")
    }

    @Test(
        "the cardholder's user agent, when the request carries one, is sent instead of the instance's; too long is refused"
    )
    func cardholderUserAgent() async throws {
        let harness = try Harness.make { request in
            request.method == "GET"
                ? .json(200, Fixture.cardJSON(status: "ACTIVE")) : .json(200, Fixture.cardJSON(status: "LOCKED"))
        }
        var lock = CardStatusRequest(card: Fixture.ref, intent: .lock)
        lock.userAgent = "WalletApp/5.2 (iPhone; iOS 18.1)"
        _ = try await harness.provider.changeStatus(lock, context: OperationContext())
        let body = try #require(harness.businessRequests.last?.bodyText)
        let sent = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        #expect(sent?["userAgent"] as? String == "WalletApp/5.2 (iPhone; iOS 18.1)")
        #expect(sent?["status"] as? String == "LOCKED")
        #expect(harness.businessRequests.last?.bodyText.contains("TestAgent") == false)
        let count = harness.businessRequests.count
        var update = UpdateCardRequest(card: Fixture.ref, change: .status(.locked, reason: nil))
        update.userAgent = String(repeating: "a", count: 1_001)
        await #expect(throws: CardGatewayError.self) {
            _ = try await harness.provider.updateCard(update, context: OperationContext())
        }
        #expect(harness.businessRequests.count == count, "nothing may be sent for a user agent Paysafe refuses")
    }

    @Test(
        "update allowed transitions",
        arguments: [
            ("ACTIVE", CardStatus.locked, "LOCKED"), ("ACTIVE", .cancelled, "CANCELLED"), ("LOCKED", .active, "ACTIVE"),
            ("LOCKED", .cancelled, "CANCELLED"),
            ("DIGITAL", .active, "ACTIVE"), ("DIGITAL", .cancelled, "CANCELLED"), ("DIGITAL", .locked, "LOCKED"),
        ])
    func allowedTransitions(_ from: String, _ to: CardStatus, _ word: String) async throws {
        let harness = try Harness.make { request in
            request.method == "GET"
                ? .json(200, Fixture.cardJSON(status: from)) : .json(200, Fixture.cardJSON(status: word))
        }
        _ = try await harness.provider.updateCard(
            UpdateCardRequest(card: Fixture.ref, change: .status(to, reason: nil)), context: OperationContext())
        #expect(harness.businessRequests.last?.bodyText == #"{"status":"\#(word)","userAgent":"TestAgent/1.0"}"#)
    }

    @Test("a PIN change is unsupported on the business API, refused before any request (even a token's)")
    func updatePINRefused() async throws {
        let harness = try Harness.scripted([.json(200, Fixture.cardJSON())])
        let error = await gatewayError {
            _ = try await harness.provider.updateCard(
                UpdateCardRequest(card: Fixture.ref, change: .pin(Secret("1243"))), context: OperationContext())
        }
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("Pin change is an unavailable action for Business APIs") == true)
        #expect(error?.description.contains("1243") == false)
        #expect(harness.transport.requests.isEmpty)
        #expect(!PaysafeProvider.providerDescriptor.capabilities.contains(.cardPIN))
        #expect(((harness.provider as Any) as? any CardPINManagement) == nil)
    }

    @Test("a statusReason over 200 characters is refused before any request")
    func updateReasonTooLong() async throws {
        let harness = try Harness.scripted([.json(200, Fixture.cardJSON())])
        let error = await gatewayError {
            _ = try await harness.provider.updateCard(
                UpdateCardRequest(
                    card: Fixture.ref, change: .status(.locked, reason: String(repeating: "r", count: 201))),
                context: OperationContext())
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.fieldErrors.map(\.field) == ["statusReason"])
        #expect(harness.transport.requests.isEmpty)
    }

    @Test("an update answered without a body reads the card again")
    func updateEmptyBody() async throws {
        let harness = try Harness.scripted([
            .json(200, Fixture.cardJSON(status: "ACTIVE")), .response(status: 204),
            .json(200, Fixture.cardJSON(status: "LOCKED")),
        ])
        let card = try await harness.provider.updateCard(
            UpdateCardRequest(card: Fixture.ref, change: .status(.locked, reason: nil)), context: OperationContext())
        #expect(card.status == .locked)
        #expect(harness.businessRequests.map(\.method) == ["GET", "PATCH", "GET"])
    }

    @Test("programs: path")
    func programs() async throws {
        let harness = try Harness.scripted([.json(200, #"{"programs":[]}"#)])
        _ = try await harness.provider.programs(customer: Fixture.customer, context: OperationContext())
        #expect(harness.businessRequests.first?.method == "GET")
        #expect(harness.businessRequests.first?.path == "/digitalwallets/v1/customers/cust-eu-1/prepaid/programs")
    }

    @Test("Apple Pay tokenize: certificates, nonce and signature hex-encoded")
    func appleHex() async throws {
        let body =
            #"{"activationData":"AQ==","encryptedPassData":"Ag==","ephemeralPublicKey":"Aw==","cardNetwork":"CARD_NETWORK_MASTERCARD","tokenProvider":"TOKEN_PROVIDER_MASTERCARD"}"#
        let harness = try Harness.scripted([.json(201, body)])
        let input = ApplePayProvisioningInput(
            certificates: [Data([0x30, 0x82, 0x0A, 0xFF]), Data([0x30, 0x82, 0x0B, 0x00])],
            nonce: Data([0xDE, 0xAD, 0xBE, 0xEF]),
            nonceSignature: Data([0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF])
        )
        _ = try await harness.provider.provision(
            ProvisioningRequest(card: Fixture.ref, wallet: .applePay, input: .applePay(input)),
            context: OperationContext())
        let sent = try #require(harness.businessRequests.first)
        #expect(sent.method == "POST")
        #expect(sent.path == Fixture.cardPath + "/tokenizations")
        #expect(
            sent.bodyText
                == #"{"leafCertificate":"30820aff","nonce":"deadbeef","nonceSignature":"0123456789abcdef","subordinateCertificate":"30820b00","walletType":"APPLE_PAY"}"#
        )
    }

    @Test("Google Pay tokenize: ids, no card read when both are given")
    func googleBody() async throws {
        let harness = try Harness.scripted([
            .json(
                201,
                #"{"opaquePaymentCard":"AQID","cardNetwork":"CARD_NETWORK_VISA","tokenProvider":"TOKEN_PROVIDER_VISA"}"#
            )
        ])
        let request = ProvisioningRequest(
            card: Fixture.ref, wallet: .googlePay,
            input: .googlePay(
                .init(clientDeviceID: "WNkcsfZPiKfa5PrH3jilkQYT", clientWalletAccountID: "40exmLiWV1iV55ZVstOAiMf7")))
        _ = try await harness.provider.provision(request, context: OperationContext())
        #expect(harness.businessRequests.count == 1)
        #expect(
            harness.businessRequests[0].bodyText
                == #"{"clientDeviceId":"WNkcsfZPiKfa5PrH3jilkQYT","clientWalletAccountId":"40exmLiWV1iV55ZVstOAiMf7","walletType":"GOOGLE_PAY"}"#
        )
    }

    @Test(
        "confirm: PATCH tokenizations COMPLETED with dpanRef and walletId",
        arguments: [
            (
                Wallet.applePay, nil as String?,
                #"{"dpanRef":"DAPLMC00002125433c0c34a2821f4f86866e7576963baf8b","status":"COMPLETED","walletType":"APPLE_PAY"}"#
            ),
            (
                .googlePay, "NMZlGi8-DezZZKaU06orvl0f",
                #"{"dpanRef":"DAPLMC00002125433c0c34a2821f4f86866e7576963baf8b","status":"COMPLETED","walletId":"NMZlGi8-DezZZKaU06orvl0f","walletType":"GOOGLE_PAY"}"#
            ),
        ])
    func confirm(_ wallet: Wallet, _ walletID: String?, _ expected: String) async throws {
        let harness = try Harness.scripted([
            .json(200, #"{"dpanRef":"DAPLMC00002125433c0c34a2821f4f86866e7576963baf8b","status":"COMPLETED"}"#)
        ])
        let confirmation = ProvisioningConfirmation(
            card: Fixture.ref, wallet: wallet,
            deviceAccountReference: "DAPLMC00002125433c0c34a2821f4f86866e7576963baf8b", walletID: walletID)
        try await harness.provider.confirm(confirmation, context: OperationContext())
        let sent = try #require(harness.businessRequests.first)
        #expect(sent.method == "PATCH")
        #expect(sent.path == Fixture.cardPath + "/tokenizations")
        #expect(sent.bodyText == expected)
    }

    @Test("secure details: the card read, then POST to the secure-details path")
    func secureDetails() async throws {
        let harness = try Harness.scripted([
            .json(200, Fixture.cardJSON()), .json(200, #"{"url":"https://x.example/v"}"#),
        ])
        _ = try await harness.provider.secureDetailsAccess(for: Fixture.ref, context: OperationContext())
        #expect(harness.businessRequests.map(\.method) == ["GET", "POST"])
        let sent = try #require(harness.businessRequests.last)
        #expect(sent.method == "POST")
        #expect(sent.path == Fixture.cardPath + "/secure-details")
        #expect(sent.bodyText == "{}")
    }

    @Test(
        "SCA attempt: path and body",
        arguments: [
            (PaysafeSCAAttemptPath.v1, "/digitalwallets/v1/sca/events/evt-1/attempts"),
            (.v2, "/digitalwallets/v2/sca/events/evt-1/attempts"),
        ])
    func scaAttempt(_ path: PaysafeSCAAttemptPath, _ expected: String) async throws {
        let harness = try Harness.scripted([
            .json(
                201,
                #"{"id":"1559404","eventId":"evt-1","walletOperationId":"op-1","status":"VERIFIED","allowableAttempts":3,"currentAttempts":1}"#
            )
        ])
        let result = try await harness.provider.submitSCAAttempt(
            eventID: "evt-1", walletOperationID: "op-1", method: "otp", channel: "sms", path: path,
            context: OperationContext(sca: SCAAuthorization(eventID: "evt-0", walletOperationID: "op-0"))
        )
        #expect(
            result
                == PaysafeSCAAttemptResult(
                    id: "1559404", eventID: "evt-1", walletOperationID: "op-1", status: "VERIFIED",
                    allowableAttempts: 3, currentAttempts: 1))
        #expect(result.isVerified)
        let sent = try #require(harness.businessRequests.first)
        #expect(sent.method == "POST")
        #expect(sent.path == expected)
        #expect(
            sent.bodyText == #"{"verification":{"channel":"SMS","method":"OTP"},"walletOperationId":"op-1"}"#,
            "a verified attempt sends the documented body alone")
        #expect(sent.header("SCA-Authorization") == nil, "the attempt itself carries no SCA authorization")
    }

    @Test("SCA attempt: a rejected challenge is reported with its status")
    func scaAttemptRejected() async throws {
        let harness = try Harness.scripted([
            .json(
                201,
                #"{"id":"1559405","eventId":"evt-1","walletOperationId":"op-1","status":"REJECTED","allowableAttempts":3,"currentAttempts":1}"#
            )
        ])
        let result = try await harness.provider.submitSCAAttempt(
            eventID: "evt-1", walletOperationID: "op-1", method: "OTP", channel: nil, status: .rejected,
            context: OperationContext())
        #expect(!result.isVerified)
        #expect(
            harness.businessRequests.first?.bodyText
                == #"{"status":"REJECTED","verification":{"method":"OTP"},"walletOperationId":"op-1"}"#)
        #expect(result.knownStatus == .rejected)
    }

    @Test("SCA attempt: a status Paysafe adds later decodes, kept verbatim, as neither verified nor a known status")
    func scaAttemptUnknownStatus() async throws {
        let harness = try Harness.scripted([
            .json(
                201,
                #"{"id":"1559406","eventId":"evt-1","walletOperationId":"op-1","status":"PENDING_REVIEW","statusReason":"MANUAL_CHECK"}"#
            )
        ])
        let result = try await harness.provider.submitSCAAttempt(
            eventID: "evt-1", walletOperationID: "op-1", method: "OTP", channel: nil, context: OperationContext())
        #expect(result.status == "PENDING_REVIEW")
        #expect(result.knownStatus == nil)
        #expect(!result.isVerified)
        #expect(result.statusReason == "MANUAL_CHECK")
    }

    // MARK: Request signature (developer.paysafe.com/en/api-docs/embedded-wallets/request-signing/)

    static func signingHarness(
        _ operations: Set<PaysafeSignedOperation>, reply: @escaping @Sendable (RecordedRequest) -> ScriptedReply?
    ) throws -> Harness {
        try Harness.make(
            configure: {
                $0.signedRequests = operations
                $0.requestSigningSecret = Secret(PaysafePage.secretLines.joined(separator: "\n"))
            }, reply: reply)
    }

    @Test(
        "signRequests all: the update carries Base64 HMAC-SHA256 of its exact body under the page's key; reads do not")
    func signedUpdate() async throws {
        let harness = try Self.signingHarness(Set(PaysafeSignedOperation.allCases)) { request in
            request.method == "GET"
                ? .json(200, Fixture.cardJSON(status: "ACTIVE")) : .json(200, Fixture.cardJSON(status: "LOCKED"))
        }
        _ = try await harness.provider.updateCard(
            UpdateCardRequest(card: Fixture.ref, change: .status(.locked, reason: nil)), context: OperationContext())
        let (read, write) = (harness.businessRequests[0], harness.businessRequests[1])
        #expect(read.header("Signature") == nil)
        #expect(write.method == "PATCH")
        let body = try #require(write.body)
        // Paysafe's scheme computed in the test (PaysafePage.signature reproduces the page's two vectors).
        #expect(write.header("Signature") == PaysafePage.signature(body))
        #expect(
            harness.transport.requests.filter { $0.path.hasSuffix("/token") }.allSatisfy {
                $0.header("Signature") == nil
            })
    }

    @Test("signRequests names single writes: createCard signed, the update not")
    func signedSelection() async throws {
        let harness = try Self.signingHarness([.createCard]) { request in
            request.method == "POST" ? .json(201, Fixture.cardJSON()) : .json(200, Fixture.cardJSON(status: "ACTIVE"))
        }
        _ = try await harness.provider.createCard(
            CreateCardRequest(
                customer: Fixture.customer, type: .virtual, program: "SKRILL-VIRTUAL-MC-EEA", currency: "EUR"),
            context: OperationContext())
        let create = try #require(harness.businessRequests.first { $0.method == "POST" })
        #expect(create.header("Signature") == PaysafePage.signature(try #require(create.body)))
        _ = try? await harness.provider.updateCard(
            UpdateCardRequest(card: Fixture.ref, change: .status(.locked, reason: nil)), context: OperationContext())
        let patch = try #require(harness.businessRequests.first { $0.method == "PATCH" })
        #expect(patch.header("Signature") == nil)
    }

    @Test("the tests' own signer reproduces the page's two vectors (so it may judge the adapter's signatures)")
    func pageSigner() {
        #expect(PaysafePage.signature(PaysafePage.compactBody) == PaysafePage.compactSignature)
        #expect(PaysafePage.signature(PaysafePage.prettyBody) == PaysafePage.prettySignature)
    }

    @Test("signing without requestSigningSecret, or with one that is not Base64, is invalidConfiguration")
    func signingNeedsKey() throws {
        for secret in [nil, "not base64!"] as [String?] {
            let error = try #require(throws: CardGatewayError.self) {
                _ = try Harness.make(
                    configure: {
                        $0.signedRequests = [.updateCard]
                        $0.requestSigningSecret = secret.map(Secret.init)
                    }, reply: { _ in nil })
            }
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains("requestSigningSecret"))
            if let secret { #expect(!error.description.contains(secret)) }
        }
    }
}
