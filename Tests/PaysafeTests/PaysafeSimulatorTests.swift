@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import Crypto
import Foundation
import HTTPTypes
import PaysafeSimulator
import Testing

typealias Seed = PaysafeSimulator.Seed

/// Raw HTTP against a running simulator, through the core's default AsyncHTTPClient transport.
struct RawHTTP {
    let handle: SimulatorHandle
    let transport = AsyncHTTPClientTransport()

    struct Reply {
        var status: Int
        var headers: HTTPFields
        var body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
        var error: [String: Any] { json["error"] as? [String: Any] ?? [:] }
        var errorCode: String? { error["code"] as? String }
        var fieldErrorNames: [String] {
            (error["fieldErrors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
        }
        func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
    }

    func send(
        _ method: HTTPRequest.Method, _ path: String, headers: [String: String] = [:], body: Data? = nil
    ) async throws -> Reply {
        var fields = HTTPFields()
        for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
        let request = HTTPRequest(
            method: method, scheme: "http", authority: "127.0.0.1:\(handle.port)", path: path, headerFields: fields)
        let response = try await transport.send(request, body: body, timeout: .seconds(30))
        return Reply(
            status: response.response.status.code, headers: response.response.headerFields, body: response.body)
    }

    func json(
        _ method: HTTPRequest.Method, _ path: String, token: String, _ object: [String: Any],
        extra: [String: String] = [:]
    ) async throws -> Reply {
        var headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        headers.merge(extra) { _, new in new }
        return try await send(method, path, headers: headers, body: try JSONSerialization.data(withJSONObject: object))
    }

    func token(
        clientID: String = PaysafeSimulator.Credentials.default.clientID,
        secret: String = PaysafeSimulator.Credentials.default.clientSecret, brand: String = "simbrand",
        form: String = "grant_type=client_credentials"
    ) async throws -> Reply {
        let basic = Data("\(clientID):\(secret)".utf8).base64EncodedString()
        return try await send(
            .post, "/digitalwallets/v1/auth/brands/\(brand)/token",
            headers: ["Authorization": "Basic \(basic)", "Content-Type": "application/x-www-form-urlencoded"],
            body: Data(form.utf8)
        )
    }

    func accessToken() async throws -> String {
        let reply = try await token()
        return try #require(reply.json["access_token"] as? String)
    }

    static func cards(_ customer: String) -> String { "/digitalwallets/v1/customers/\(customer)/prepaid/cards" }
    static func card(_ customer: String, _ card: String) -> String { "\(cards(customer))/\(card)" }
}

@Suite("Paysafe simulator over raw HTTP", .timeLimit(.minutes(5)))
struct PaysafeSimulatorTests {
    @Test("token: issued with an expiry; refused credentials answer Paysafe's 401 body")
    func token() async throws {
        try await withSimulator(PaysafeSimulator()) { handle in
            let http = RawHTTP(handle: handle)
            let ok = try await http.token()
            #expect(ok.status == 200)
            #expect(ok.json["token_type"] as? String == "Bearer")
            #expect(ok.json["expires_in"] as? Int == 900)
            #expect((ok.json["access_token"] as? String)?.isEmpty == false)

            for reply in [
                try await http.token(secret: "wrong"), try await http.token(clientID: "nobody"),
                try await http.token(brand: "otherbrand"),
            ] {
                #expect(reply.status == 401)
                #expect(reply.errorCode == "5279")
            }
            let noAuth = try await http.send(
                .post, "/digitalwallets/v1/auth/brands/simbrand/token", body: Data("grant_type=client_credentials".utf8)
            )
            #expect(noAuth.status == 401)
            let noGrant = try await http.token(form: "scope=x")
            #expect(noGrant.status == 400)
            #expect(noGrant.errorCode == "5068")
            #expect(noGrant.fieldErrorNames == ["grant_type"])
        }
    }

    @Test("business calls without a valid token get a plain 401 (no SCA challenge); an expired token too")
    func businessAuth() async throws {
        let clock = SimulationClock(fixed: Date(timeIntervalSince1970: 1_750_000_000))
        try await withSimulator(PaysafeSimulator(clock: clock)) { handle in
            let http = RawHTTP(handle: handle)
            let path = RawHTTP.cards(Seed.euCustomer)
            let missing = try await http.send(.get, path)
            #expect(missing.status == 401)
            #expect(missing.errorCode == "5279")
            #expect(missing.header("WWW-Authenticate") == nil)
            let bogus = try await http.send(.get, path, headers: ["Authorization": "Bearer nope"])
            #expect(bogus.status == 401)

            let token = try await http.accessToken()
            #expect(try await http.send(.get, path, headers: ["Authorization": "Bearer \(token)"]).status == 200)
            clock.advance(by: 900)
            let expired = try await http.send(.get, path, headers: ["Authorization": "Bearer \(token)"])
            #expect(expired.status == 401)
            #expect(expired.errorCode == "5275", "an expired token is Paysafe's expired credentials code")
            #expect(expired.header("WWW-Authenticate") == nil)
        }
    }

    @Test("list: filters, paging and meta; bad filters in Paysafe's field-error shape")
    func list() async throws {
        try await withSimulator(PaysafeSimulator()) { handle in
            let http = RawHTTP(handle: handle)
            let auth = ["Authorization": "Bearer \(try await http.accessToken())"]
            let all = try await http.send(.get, RawHTTP.cards(Seed.euCustomer) + "?limit=100", headers: auth)
            let cards = all.json["cards"] as? [[String: Any]] ?? []
            #expect(
                Set(cards.compactMap { $0["status"] as? String }) == [
                    "ACTIVE", "ISSUED", "DIGITAL", "PENDING", "APPLIED", "LOCKED", "SUSPENDED", "CANCELLED", "EXPIRED",
                    "REJECTED",
                ])
            #expect(Set(cards.compactMap { $0["scheme"] as? String }) == ["VISA", "MC"])

            let page = try await http.send(
                .get,
                RawHTTP.cards(Seed.euCustomer)
                    + "?status=ACTIVE,LOCKED&cardType=VIRTUAL&limit=2&offset=2&include=AVAILABLE_ACTIONS", headers: auth
            )
            let meta = page.json["meta"] as? [String: Any] ?? [:]
            #expect(meta["numberOfRecords"] as? Int == 4)
            #expect(meta["limit"] as? Int == 2)
            #expect(meta["page"] as? Int == 2)
            let pageCards = page.json["cards"] as? [[String: Any]] ?? []
            #expect(pageCards.count == 2)
            #expect(pageCards.allSatisfy { $0["availableActions"] != nil && $0["tokenizations"] == nil })

            let bad = try await http.send(
                .get, RawHTTP.cards(Seed.euCustomer) + "?status=FROZEN&cardType=PLASTIC&limit=0", headers: auth)
            #expect(bad.status == 400)
            #expect(bad.errorCode == "5068")
            #expect(Set(bad.fieldErrorNames) == ["status", "cardType", "limit"])

            let unknown = try await http.send(.get, RawHTTP.cards(Seed.unknownCustomer), headers: auth)
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "5269")
        }
    }

    @Test("get: dates as the published example writes them; a card under another customer is not found")
    func getScoped() async throws {
        try await withSimulator(PaysafeSimulator()) { handle in
            let http = RawHTTP(handle: handle)
            let auth = ["Authorization": "Bearer \(try await http.accessToken())"]
            let ok = try await http.send(
                .get, RawHTTP.card(Seed.euCustomer, Seed.tokenizedCardID) + "?include=TOKENIZATIONS", headers: auth)
            #expect(ok.status == 200)
            let wallets = (ok.json["tokenizations"] as? [String: Any])?["mobileWallets"] as? [[String: Any]]
            #expect(wallets?.first?["dpanRef"] as? String == Seed.tokenizedDPANRef)
            // Dates as the card service's published example writes them: `"createdDate":"2019-08-24T14:15:22Z"`.
            let created = try #require(ok.json["createdDate"] as? String)
            #expect(created.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/) != nil, "\(created)")
            let other = try await http.send(.get, RawHTTP.card(Seed.usCustomer, Seed.activeCardID), headers: auth)
            #expect(other.status == 404)
            #expect(other.errorCode == "5269")
        }
    }

    @Test("create: validation in Paysafe's shape, US rules, program limit")
    func create() async throws {
        try await withSimulator(PaysafeSimulator()) { handle in
            let http = RawHTTP(handle: handle)
            let token = try await http.accessToken()
            let bad = try await http.json(
                .post, RawHTTP.cards(Seed.euCustomer), token: token,
                [
                    "programName": Seed.physicalMCProgram, "currency": "eur", "cardPin": "12", "mobile": "0888",
                    "userAgent": "t",
                    "deliveryAddress": ["address1": "ab", "city": "Sofia 1", "countryCode": "BGR", "postalCode": ""],
                ])
            #expect(bad.status == 400)
            #expect(bad.errorCode == "5068")
            #expect(
                Set(bad.fieldErrorNames) == [
                    "currency", "cardPin", "mobile", "deliveryAddress.address1", "deliveryAddress.city",
                    "deliveryAddress.countryCode", "deliveryAddress.postalCode",
                ])

            let usPin = try await http.json(
                .post, RawHTTP.cards(Seed.usCustomer), token: token,
                [
                    "programName": Seed.usVirtualProgram, "currency": "USD", "cardPin": "1234", "userAgent": "t",
                ])
            #expect(Set(usPin.fieldErrorNames) == ["cardPin", "termsAndConditionsAccepted", "eDisclosureAccepted"])

            // Explicit nulls on optional fields, as in Paysafe's own CardRequest example, are absent fields.
            let nulls = try await http.json(
                .post, RawHTTP.cards(Seed.euCustomer), token: token,
                [
                    "programName": Seed.virtualMCProgram, "currency": "EUR", "userAgent": "t",
                    "cardPin": NSNull(), "externalId": NSNull(), "mobile": NSNull(), "deliveryAddress": NSNull(),
                ])
            #expect(nulls.status == 201, "\(nulls.fieldErrorNames)")

            let physical: [String: Any] = [
                "programName": Seed.usPhysicalProgram, "currency": "USD", "userAgent": "t",
                "termsAndConditionsAccepted": true, "eDisclosureAccepted": true,
                "deliveryAddress": [
                    "address1": "1 Main Street", "city": "New York", "countryCode": "US", "state": "NY",
                    "postalCode": "10001",
                ],
            ]
            let created = try await http.json(.post, RawHTTP.cards(Seed.usCustomer), token: token, physical)
            #expect(created.status == 201)
            #expect(created.json["status"] as? String == "ISSUED")
            #expect(created.json["scheme"] as? String == "VISA")
            let limit = try await http.json(.post, RawHTTP.cards(Seed.usCustomer), token: token, physical)
            #expect(limit.status == 409)
            #expect(limit.errorCode == "DW-CARD-LIMIT-REACHED")

            let unparseable = try await http.send(
                .post, RawHTTP.cards(Seed.euCustomer), headers: ["Authorization": "Bearer \(token)"],
                body: Data("{".utf8))
            #expect(unparseable.status == 400)
            #expect(unparseable.errorCode == "5023")
        }
    }

    @Test("activation checks last four and CVV; three failures suspend the card")
    func activation() async throws {
        try await withSimulator(PaysafeSimulator()) { handle in
            let http = RawHTTP(handle: handle)
            let token = try await http.accessToken()
            let path = RawHTTP.card(Seed.euCustomer, Seed.issuedCardID) + "/activate"
            for _ in 0..<3 {
                let wrong = try await http.json(
                    .post, path, token: token,
                    ["lastFourDigits": Seed.issuedCardLastFour, "cvv": "999", "userAgent": "t"])
                #expect(wrong.status == 400)
                #expect(wrong.errorCode == "DW-CARD-ACTIVATION-DATA-MISMATCH")
            }
            let card = try await http.send(
                .get, RawHTTP.card(Seed.euCustomer, Seed.issuedCardID), headers: ["Authorization": "Bearer \(token)"])
            #expect(card.json["status"] as? String == "SUSPENDED")

            let digital = RawHTTP.card(Seed.euCustomer, Seed.digitalCardID) + "/activate"
            let ok = try await http.json(
                .post, digital, token: token,
                ["lastFourDigits": Seed.digitalCardLastFour, "cvv": Seed.digitalCardCVV, "userAgent": "t"])
            #expect(ok.status == 200)
            #expect(ok.json["status"] as? String == "ACTIVE")
            let again = try await http.json(
                .post, digital, token: token,
                ["lastFourDigits": Seed.digitalCardLastFour, "cvv": Seed.digitalCardCVV, "userAgent": "t"])
            #expect(again.errorCode == "DW-CARD-ALREADY-ACTIVATED")
            let locked = try await http.json(
                .post, RawHTTP.card(Seed.euCustomer, Seed.lockedCardID) + "/activate", token: token,
                ["lastFourDigits": "7707", "cvv": "123", "userAgent": "t"])
            #expect(locked.errorCode == "DW-CARD-INVALID-STATUS")
        }
    }

    @Test("update: userAgent is required (≤ 1,000), and a PIN is refused as the business API refuses it")
    func updateBody() async throws {
        try await withSimulator(PaysafeSimulator()) { handle in
            let http = RawHTTP(handle: handle)
            let token = try await http.accessToken()
            let path = RawHTTP.card(Seed.euCustomer, Seed.activeCardID)
            let noAgent = try await http.json(.patch, path, token: token, ["status": "LOCKED"])
            #expect(noAgent.status == 400)
            #expect(noAgent.errorCode == "5068")
            #expect(noAgent.fieldErrorNames == ["userAgent"])
            let longAgent = try await http.json(
                .patch, path, token: token, ["status": "LOCKED", "userAgent": String(repeating: "a", count: 1001)])
            #expect(longAgent.fieldErrorNames == ["userAgent"])
            let pin = try await http.json(.patch, path, token: token, ["pin": "1234", "userAgent": "SimTest/1.0"])
            #expect(pin.status == 400)
            #expect(pin.fieldErrorNames == ["pin"])
            let card = try await http.send(.get, path, headers: ["Authorization": "Bearer \(token)"])
            #expect(card.json["status"] as? String == "ACTIVE", "nothing changed")
        }
    }

    @Test(
        "the transition table is enforced",
        arguments: [
            (Seed.activeCardID, "LOCKED", 200), (Seed.lockedCardID, "ACTIVE", 200), (Seed.digitalCardID, "LOCKED", 200),
            (Seed.activeVisaCardID, "CANCELLED", 200),
            (Seed.cancelledCardID, "ACTIVE", 400), (Seed.issuedCardID, "ACTIVE", 400),
            (Seed.suspendedCardID, "ACTIVE", 400), (Seed.expiredCardID, "CANCELLED", 400),
            (Seed.activeCardID, "ACTIVE", 400), (Seed.pendingCardID, "LOCKED", 400),
        ])
    func transitions(_ cardID: String, _ target: String, _ status: Int) async throws {
        try await withSimulator(PaysafeSimulator()) { handle in
            let http = RawHTTP(handle: handle)
            let reply = try await http.json(
                .patch, RawHTTP.card(Seed.euCustomer, cardID), token: try await http.accessToken(),
                ["status": target, "statusReason": "test", "userAgent": "SimTest/1.0"])
            #expect(reply.status == status)
            if status == 200 {
                #expect(reply.json["status"] as? String == target)
                #expect(reply.json["statusReason"] as? String == "test")
            } else {
                #expect(reply.errorCode == "DW-CARD-STATUS-TRANSITION-NOT-ALLOWED")
            }
        }
    }

    @Test("tokenization: hex checked, INITIATED then COMPLETED, deterministic blobs that never echo the input")
    func tokenization() async throws {
        try await withSimulator(PaysafeSimulator()) { handle in
            let http = RawHTTP(handle: handle)
            let token = try await http.accessToken()
            let path = RawHTTP.card(Seed.euCustomer, Seed.activeCardID) + "/tokenizations"
            let nonce = "a1b2c3d4e5f60718"
            let apple: [String: Any] = [
                "walletType": "APPLE_PAY", "leafCertificate": "308201aa", "subordinateCertificate": "308201bb",
                "nonce": nonce, "nonceSignature": "99887766",
            ]
            let notHex = try await http.json(
                .post, path, token: token, apple.merging(["nonce": "w1koQg=="]) { _, new in new })
            #expect(notHex.status == 400)
            #expect(notHex.fieldErrorNames == ["nonce"])

            let first = try await http.json(.post, path, token: token, apple)
            #expect(first.status == 201)
            #expect(first.json["cardNetwork"] as? String == "CARD_NETWORK_MASTERCARD")
            #expect(first.json["tokenProvider"] as? String == "TOKEN_PROVIDER_MASTERCARD")
            #expect(first.json["cardLastDigits"] as? String == "7009")
            let pass = try #require(Data(base64Encoded: first.json["encryptedPassData"] as? String ?? ""))
            #expect(pass.count == 256)
            #expect(try #require(Data(base64Encoded: first.json["ephemeralPublicKey"] as? String ?? "")).first == 0x04)
            #expect(!first.bodyText.contains(nonce) && !first.bodyText.contains("308201aa"))
            let second = try await http.json(.post, path, token: token, apple)
            #expect(second.json["encryptedPassData"] as? String == first.json["encryptedPassData"] as? String)

            let card = try await http.send(
                .get, RawHTTP.card(Seed.euCustomer, Seed.activeCardID) + "?include=TOKENIZATIONS",
                headers: ["Authorization": "Bearer \(token)"])
            let wallets = (card.json["tokenizations"] as? [String: Any])?["mobileWallets"] as? [[String: Any]] ?? []
            #expect(wallets.map { $0["status"] as? String } == ["INITIATED", "INITIATED"])

            let completed = try await http.json(
                .patch, path, token: token, ["dpanRef": "DAPL-1", "walletType": "APPLE_PAY", "status": "COMPLETED"])
            #expect(completed.status == 200)
            #expect(completed.json["status"] as? String == "COMPLETED")
            let none = try await http.json(
                .patch, path, token: token, ["dpanRef": "DGOO-1", "walletType": "GOOGLE_PAY", "status": "COMPLETED"])
            #expect(none.status == 404)

            let visaGoogle = try await http.json(
                .post, RawHTTP.card(Seed.euCustomer, Seed.activeVisaCardID) + "/tokenizations", token: token,
                ["walletType": "GOOGLE_PAY"])
            #expect(Set(visaGoogle.fieldErrorNames) == ["clientDeviceId", "clientWalletAccountId"])
            let locked = try await http.json(
                .post, RawHTTP.card(Seed.euCustomer, Seed.lockedCardID) + "/tokenizations", token: token,
                ["walletType": "GOOGLE_PAY", "clientDeviceId": "d", "clientWalletAccountId": "w"])
            #expect(locked.errorCode == "DW-CARD-INVALID-STATUS")
        }
    }

    @Test("SCA: challenge, attempt, one use of the authorization")
    func sca() async throws {
        try await withSimulator(PaysafeSimulator()) { handle in
            let http = RawHTTP(handle: handle)
            let token = try await http.accessToken()
            let path = RawHTTP.card(Seed.scaCustomer, Seed.scaActiveCardID)
            let challenged = try await http.json(
                .patch, path, token: token, ["status": "LOCKED", "userAgent": "SimTest/1.0"])
            #expect(challenged.status == 401)
            let header = try #require(challenged.header("WWW-Authenticate"))
            #expect(header.hasPrefix("SCA realm=\"Prepaid Cards\" auth-param1=\""))
            let payload = String(header.dropFirst("SCA realm=\"Prepaid Cards\" auth-param1=\"".count).dropLast())
            let payloadData = try #require(Data(base64Encoded: payload))
            let details = try #require(
                (try JSONSerialization.jsonObject(with: payloadData) as? [String: Any])?["scaDetails"] as? [String: Any]
            )
            let eventId = try #require(details["eventId"] as? String)
            let operationId = try #require(details["walletOperationId"] as? String)
            #expect(details["authenticationMode"] as? String == "OUTSOURCED")

            let authorization = Data(
                #"{"scaDetails":{"eventId":"\#(eventId)","walletOperationId":"\#(operationId)"}}"#.utf8
            ).base64EncodedString()
            let early = try await http.json(
                .patch, path, token: token, ["status": "LOCKED", "userAgent": "SimTest/1.0"],
                extra: ["SCA-Authorization": authorization])
            #expect(early.status == 401, "not verified yet")

            let wrongOperation = try await http.json(
                .post, "/digitalwallets/v1/sca/events/\(eventId)/attempts", token: token,
                [
                    "walletOperationId": "other", "verification": ["method": "OTP", "channel": "SMS"],
                    "status": "VERIFIED",
                ])
            #expect(wrongOperation.fieldErrorNames == ["walletOperationId"])
            let attempt = try await http.json(
                .post, "/digitalwallets/v1/sca/events/\(eventId)/attempts", token: token,
                [
                    "walletOperationId": operationId, "verification": ["method": "OTP", "channel": "SMS"],
                    "status": "VERIFIED",
                ])
            #expect(attempt.status == 201)
            #expect(attempt.json["status"] as? String == "VERIFIED")
            #expect(attempt.json["currentAttempts"] as? Int == 1)

            let done = try await http.json(
                .patch, path, token: token, ["status": "LOCKED", "userAgent": "SimTest/1.0"],
                extra: ["SCA-Authorization": authorization])
            #expect(done.status == 200)
            #expect(done.json["status"] as? String == "LOCKED")
            let reused = try await http.json(
                .patch, path, token: token, ["status": "ACTIVE", "userAgent": "SimTest/1.0"],
                extra: ["SCA-Authorization": authorization])
            #expect(reused.status == 401, "an authorization is good for one operation")
            #expect(reused.header("WWW-Authenticate")?.hasPrefix("SCA ") == true)

            let unknownEvent = try await http.json(
                .post, "/digitalwallets/v1/sca/events/nope/attempts", token: token,
                ["walletOperationId": operationId, "verification": ["method": "OTP"], "status": "VERIFIED"])
            #expect(unknownEvent.status == 404)
            // Customers without SCA are never challenged.
            #expect(
                try await http.json(
                    .patch, RawHTTP.card(Seed.euCustomer, Seed.activeCardID), token: token,
                    ["status": "LOCKED", "userAgent": "SimTest/1.0"]
                ).status == 200)
        }
    }

    @Test("faults answer in Paysafe's error shape; control paths are not journaled")
    func faults() async throws {
        try await withSimulator(PaysafeSimulator()) { handle in
            let http = RawHTTP(handle: handle)
            handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/digitalwallets/v1/customers",
                    action: .status(503, retryAfterSeconds: 3, message: "maintenance")))
            let token = try await http.accessToken()
            let reply = try await http.send(
                .get, RawHTTP.cards(Seed.euCustomer), headers: ["Authorization": "Bearer \(token)"])
            #expect(reply.status == 503)
            #expect(reply.errorCode == "503")
            #expect(reply.error["message"] as? String == "maintenance")
            #expect(reply.header("Retry-After") == "3")
            #expect(handle.journal.entries().map(\.responseStatus) == [200, 503])
            #expect(handle.journal.entries().first?.header("authorization") == JournalEntry.maskedValue)
        }
    }

    @Test("signedWebhook: Base64 of the body's HMAC-SHA256 under the Base64-decoded webhook secret (Paysafe's scheme)")
    func webhook() throws {
        let simulator = PaysafeSimulator()
        let (headers, body) = simulator.signedWebhook(
            cardID: Seed.activeCardID, oldStatus: "ACTIVE", newStatus: "LOCKED", eventID: "evt-1")
        let signature = try #require(headers.first { $0.0 == "Signature" }?.1)
        let key = try #require(Data(base64Encoded: PaysafeSimulator.Credentials.default.webhookSecret))
        #expect(key.count == 256)
        let expected = Data(HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: key)))
            .base64EncodedString()
        #expect(signature == expected)
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: String])
        #expect(
            object == [
                "id": "evt-1", "cardId": Seed.activeCardID, "customerId": Seed.euCustomer, "oldStatus": "ACTIVE",
                "newStatus": "LOCKED",
            ])
    }

    @Test("reset returns to the seed")
    func reset() async throws {
        let simulator = PaysafeSimulator()
        try await withSimulator(simulator) { handle in
            let http = RawHTTP(handle: handle)
            let token = try await http.accessToken()
            _ = try await http.json(
                .patch, RawHTTP.card(Seed.euCustomer, Seed.activeCardID), token: token,
                ["status": "CANCELLED", "userAgent": "SimTest/1.0"])
            await simulator.reset()
            let token2 = try await http.accessToken()
            #expect(token2 == token, "ids restart from the seed")
            let card = try await http.send(
                .get, RawHTTP.card(Seed.euCustomer, Seed.activeCardID), headers: ["Authorization": "Bearer \(token2)"])
            #expect(card.json["status"] as? String == "ACTIVE")
        }
    }
}

extension RawHTTP.Reply {
    var bodyText: String { String(decoding: body, as: UTF8.self) }
}
