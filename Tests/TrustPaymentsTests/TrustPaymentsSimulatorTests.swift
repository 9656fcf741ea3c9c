import CardGatewaySimulation
import CardGatewayTesting
import Crypto
import Foundation
import Testing
import TrustPaymentsSimulator

@Suite("Trust Payments simulator on raw HTTP", .timeLimit(.minutes(5)))
struct SimulatorTests {
    @Test("missing or wrong Basic credentials get the gateway's HTTP 401 page")
    func authentication() async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            let request = [Raw.cardRequest()]
            for basic in [nil, (Seed.webservicesUsername, "wrong"), ("someone@else", Seed.webservicesPassword)]
                as [(String, String)?]
            {
                let response = try await Raw.webservices(handle, request, basic: basic)
                #expect(response.status == 401)
                #expect(response.text.contains("401 Authorization Required"))
                #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
            }
            #expect(handle.journal.entries().count == 3)
            #expect(
                handle.journal.entries().allSatisfy {
                    $0.header("authorization") != "Basic "
                        + Data("\(Seed.webservicesUsername):wrong".utf8).base64EncodedString()
                })
        }
    }

    @Test("envelope errors are answered as response elements: alias 30000, version 30007, request 60025, JSON 10205")
    func envelope() async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            let alias = try await Raw.webservices(handle, [Raw.cardRequest()], alias: "other@merchant")
            #expect(alias.status == 200)
            #expect(try alias.elements().first?["errorcode"] as? String == "30000")
            #expect(try alias.elements().first?["errordata"] as? [String] == ["alias"])
            let version = try await Raw.webservices(handle, [Raw.cardRequest()], version: "2.00")
            #expect(try version.elements().first?["errorcode"] as? String == "30007")
            let empty = try await Raw.webservices(handle, [])
            #expect(try empty.elements().first?["errorcode"] as? String == "60025")
            #expect(try empty.elements().first?["errordata"] as? [String] == ["request"])
            let malformed = try await Raw.post(handle, "/json/", body: Data("{not json".utf8))
            #expect(try malformed.elements().first?["errorcode"] as? String == "10205")
            #expect(try malformed.elements().first?["requesttypedescription"] as? String == "ERROR")
            let unknownType = try await Raw.webservices(handle, [Raw.cardRequest(types: ["REFUND"])])
            #expect(try unknownType.elements().first?["errorcode"] as? String == "60018")
        }
    }

    @Test("site references: missing 30000, unknown 30001, another merchant's 30006")
    func sites() async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            var missing = Raw.cardRequest()
            missing.removeValue(forKey: "sitereference")
            let cases: [([String: Any], String)] = [
                (missing, "30000"), (Raw.cardRequest(site: "test_nosuchsite"), "30001"),
                (Raw.cardRequest(site: Seed.otherMerchantSiteReference), "30006"),
            ]
            for (request, code) in cases {
                let element = try #require(try await Raw.webservices(handle, [request]).elements().first)
                #expect(element["errorcode"] as? String == code)
                #expect(element["errordata"] as? [String] == ["sitereference"])
            }
        }
    }

    @Test("invalid fields are answered with 30000 naming them in errordata")
    func fields() async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            let cases: [([String: Any], [String])] = [
                (Raw.cardRequest(extra: ["currencyiso3a": "gbp"]), ["currencyiso3a"]),
                (Raw.cardRequest(extra: ["baseamount": "10.50"]), ["baseamount"]),
                (Raw.cardRequest(pan: "4111111111111112"), ["pan"]),
                (Raw.cardRequest(extra: ["expirydate": "01/2020"]), ["expirydate"]),
                (Raw.cardRequest(pan: Seed.Card.amex, securityCode: "123"), ["securitycode"]),
                (Raw.cardRequest(pan: Seed.Card.visa, securityCode: "1234"), ["securitycode"]),
                (Raw.cardRequest(cof: "3"), ["credentialsonfile"]),
                (Raw.cardRequest(types: ["AUTH"], extra: ["initiationreason": "C"]), ["initiationreason"]),
                (
                    Raw.cardRequest(extra: ["accounttypedescription": "SHOP", "currencyiso3a": "XX"]),
                    ["accounttypedescription", "currencyiso3a"]
                ),
                (Raw.cardRequest(extra: ["paymenttypedescription": "AMEX"]), ["paymenttypedescription"]),
            ]
            for (request, fields) in cases {
                let element = try #require(try await Raw.webservices(handle, [request]).elements().first)
                #expect(element["errorcode"] as? String == "30000")
                #expect(element["errordata"] as? [String] == fields)
            }
            // The journal masks the card number and the security code the way the library's logs do; the other wire
            // fields stay as sent.
            for entry in handle.journal.entries() {
                let sent = try #require(try JSONText.object(entry.body)["request"] as? [[String: Any]]).first
                #expect(sent?["pan"] as? String == JournalEntry.maskedValue)
                #expect(sent?["securitycode"] as? String == JournalEntry.maskedValue)
                #expect(sent?["sitereference"] as? String == Seed.siteReference)
                #expect(sent?["requesttypedescriptions"] != nil)
                #expect(!entry.bodyText.contains(Seed.Card.visa) && !entry.bodyText.contains(Seed.Card.amex))
            }
        }
    }

    @Test("an ACCOUNTCHECK with credentialsonfile 1 stores the card; its reference is a parent for C and D but not A")
    func storeAndReuse() async throws {
        let simulator = SimFixture.simulator()
        try await withSimulator(simulator) { handle in
            let store = try #require(
                try await Raw.webservices(handle, [Raw.cardRequest(extra: ["requestreference": "Aabc12345"])])
                    .elements().first)
            #expect(store["errorcode"] as? String == "0")
            #expect(store["errormessage"] as? String == "Ok")
            #expect(store["requesttypedescription"] as? String == "ACCOUNTCHECK")
            #expect(store["maskedpan"] as? String == "411111######1111")
            #expect(store["paymenttypedescription"] as? String == "VISA")
            #expect(store["settlestatus"] as? String == "0")
            #expect(store["credentialsonfile"] as? String == "1")
            let parent = try #require(store["transactionreference"] as? String)
            #expect(isTransactionReference(parent))
            #expect(simulator.transactionHoldsStoredCard(parent) == true)

            for reason in ["C", "D"] {
                let child = try #require(
                    try await Raw.webservices(handle, [Raw.childRequest(parent: parent, reason: reason)]).elements()
                        .first)
                #expect(child["errorcode"] as? String == "0")
                #expect(child["parenttransactionreference"] as? String == parent)
                #expect(child["maskedpan"] as? String == "411111######1111")
                #expect(child["initiationreason"] as? String == reason)
                #expect(child["authcode"] as? String != nil)
            }
            let reauth = try #require(
                try await Raw.webservices(handle, [Raw.childRequest(parent: parent, reason: "A")]).elements().first)
            #expect(reauth["errorcode"] as? String == "20033")
            let authParent = try #require(
                try await Raw.webservices(
                    handle, [Raw.childRequest(parent: Seed.Transaction.storedVisaAuth, reason: "A")]
                ).elements().first)
            #expect(authParent["errorcode"] as? String == "0")

            let unflagged = try #require(
                try await Raw.webservices(handle, [Raw.cardRequest(cof: nil)]).elements().first)
            let unflaggedReference = try #require(unflagged["transactionreference"] as? String)
            #expect(simulator.transactionHoldsStoredCard(unflaggedReference) == false)
            let refused = try #require(
                try await Raw.webservices(handle, [Raw.childRequest(parent: unflaggedReference)]).elements().first)
            #expect(refused["errorcode"] as? String == "20033")
        }
    }

    @Test("parents: missing 20004, never stored or failed 20033, another merchant's 20004")
    func parents() async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            var noParent = Raw.childRequest(parent: "x")
            noParent.removeValue(forKey: "parenttransactionreference")
            let cases: [([String: Any], String)] = [
                (Raw.childRequest(parent: "9-9-9999999"), "20004"), (noParent, "20004"),
                (Raw.childRequest(parent: Seed.Transaction.unstoredAuth), "20033"),
                (Raw.childRequest(parent: Seed.Transaction.declinedAccountCheck), "20033"),
                (Raw.childRequest(parent: Seed.Transaction.otherMerchantStored), "20004"),
            ]
            for (request, code) in cases {
                let element = try #require(try await Raw.webservices(handle, [request]).elements().first)
                #expect(element["errorcode"] as? String == code)
                #expect(element["errormessage"] as? String == (code == "20004" ? "Missing parent" : "Invalid parent"))
            }
        }
    }

    @Test("requestreference echoes the REQUESTREFERENCE header, else the request's, else a gateway reference")
    func requestReference() async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            let header = try await Raw.webservices(
                handle, [Raw.cardRequest(extra: ["requestreference": "Ainner001"])],
                headers: ["REQUESTREFERENCE": "Aouter001"])
            #expect(try header.json()["requestreference"] as? String == "Aouter001")
            let inner = try await Raw.webservices(handle, [Raw.cardRequest(extra: ["requestreference": "Ainner002"])])
            #expect(try inner.json()["requestreference"] as? String == "Ainner002")
            #expect(try inner.json()["version"] as? String == "1.00")
            #expect(try inner.json()["secrand"] is String)
            let generated = try await Raw.webservices(handle, [Raw.cardRequest()])
            #expect((try generated.json()["requestreference"] as? String)?.hasPrefix("W") == true)
        }
    }

    @Test(
        "test cards decide the outcome",
        arguments: [
            (Seed.Card.declined, "70000", "3"), (Seed.Card.declinedOfficial, "70000", "3"),
            (Seed.Card.softDecline, "71000", "3"),
            (Seed.Card.referral, "72000", "3"), (Seed.Card.bankError, "60010", "3"),
            (Seed.Card.manualInvestigation, "60034", "3"),
            (Seed.Card.unknownError, "99999", "3"), (Seed.Card.suspended, "0", "2"), (Seed.Card.cancelled, "0", "3"),
            (Seed.Card.visa, "0", "0"), (Seed.Card.mastercard, "0", "0"),
        ])
    func cards(pan: String, code: String, settle: String) async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            let element = try #require(
                try await Raw.webservices(handle, [Raw.cardRequest(types: ["AUTH"], pan: pan)]).elements().first)
            #expect(element["errorcode"] as? String == code)
            #expect(element["settlestatus"] as? String == settle)
        }
    }

    @Test(
        "AUTH amounts decide the outcome of merchant-initiated charges",
        arguments: [
            (Seed.Amount.declined, "70000", "3"), (Seed.Amount.bankError, "60010", "3"),
            (Seed.Amount.softDecline, "71000", "3"),
            (Seed.Amount.suspended, "0", "2"), (Seed.Amount.cancelled, "0", "3"), (Seed.Amount.settled, "0", "100"),
            (Int64(1050), "0", "0"),
        ])
    func amounts(amount: Int64, code: String, settle: String) async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            let element = try #require(
                try await Raw.webservices(
                    handle, [Raw.childRequest(parent: Seed.Transaction.storedVisaAccountCheck, amount: String(amount))]
                ).elements().first)
            #expect(element["errorcode"] as? String == code)
            #expect(element["settlestatus"] as? String == settle)
        }
    }

    @Test("a THREEDQUERY, AUTH chain links the AUTH to the THREEDQUERY and stops at a failure")
    func chain() async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            let elements = try await Raw.webservices(handle, [Raw.cardRequest(types: ["THREEDQUERY", "AUTH"])])
                .elements()
            try #require(elements.count == 2)
            #expect(elements[0]["requesttypedescription"] as? String == "THREEDQUERY")
            #expect(
                elements[1]["parenttransactionreference"] as? String == elements[0]["transactionreference"] as? String)
            let failed = try await Raw.webservices(
                handle, [Raw.cardRequest(types: ["THREEDQUERY", "AUTH"], pan: Seed.Card.unauthenticated)]
            ).elements()
            #expect(failed.count == 1)
            #expect(failed.first?["errorcode"] as? String == "60022")
        }
    }

    @Test("with audienceInResults set, response JWTs also carry aud (the JWT username)")
    func audienceOption() async throws {
        var credentials = TrustPaymentsSimulator.Credentials.default
        credentials.audienceInResults = true
        let simulator = TrustPaymentsSimulator(clock: SimulationClock(fixed: SimFixture.now), credentials: credentials)
        let session = try Raw.sessionJWT(payload: Raw.storePayload(types: ["ACCOUNTCHECK"]))
        let token = try await simulator.sdkPayment(
            sessionJWT: session, pan: Seed.Card.visa, expiryDate: Seed.expiryDate, securityCode: "123")
        let decoded = try IndependentJWT.decode(token)
        #expect(decoded.claims["aud"] as? String == Seed.jwtUsername)
        #expect(Set(decoded.claims.keys) == ["iat", "payload", "aud"])
    }

    @Test("/jwt/ verifies the SDK's JWT and answers with a response JWT signed with the secret")
    func jwtEndpoint() async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            let session = try Raw.sessionJWT(payload: Raw.storePayload(types: ["ACCOUNTCHECK", "THREEDQUERY", "AUTH"]))
            let body: [String: Any] = [
                "alias": Seed.jwtUsername, "jwt": session, "version": "1.00", "versioninfo": "iOS::SDK",
                "request": [
                    [
                        "requesttypedescriptions": ["ACCOUNTCHECK", "THREEDQUERY", "AUTH"], "pan": Seed.Card.amex,
                        "securitycode": "1234", "expirydate": Seed.expiryDate,
                    ]
                ],
            ]
            let response = try await Raw.post(handle, "/jwt/", body: try JSONText.data(body), basic: nil)
            #expect(response.status == 200)
            let token = try #require(try response.json()["jwt"] as? String)
            let decoded = try IndependentJWT.decode(token)
            #expect(decoded.header["alg"] as? String == "HS256")
            #expect(decoded.signatureIsValid(secret: Seed.jwtSecret))
            // Trust Payments' published shape: `iat` and `payload`, nothing else.
            #expect(Set(decoded.claims.keys) == ["iat", "payload"])
            #expect((decoded.claims["iat"] as? NSNumber)?.intValue == Int(SimFixture.now.timeIntervalSince1970))
            let payload = decoded.payload
            #expect(payload["version"] as? String == "1.00")
            #expect(payload["secrand"] is String)
            #expect((payload["requestreference"] as? String)?.hasPrefix("W") == true)
            let elements = try #require(payload["response"] as? [[String: Any]])
            #expect(
                elements.map { $0["requesttypedescription"] as? String } == ["ACCOUNTCHECK", "THREEDQUERY", "AUTH"])
            #expect(elements.allSatisfy { $0["errorcode"] as? String == "0" })
            #expect(elements[0]["maskedpan"] as? String == "340000#####0611")
            #expect(elements[0]["paymenttypedescription"] as? String == "AMEX")
            let nested = try IndependentJWT.decode(try #require(payload["jwt"] as? String))
            #expect(nested.signatureIsValid(secret: Seed.jwtSecret))
            #expect(
                nested.payload["parenttransactionreference"] as? String == elements[2]["transactionreference"]
                    as? String)
            #expect(nested.payload["baseamount"] as? String == "1050")
        }
    }

    @Test("/jwt/ refuses a JWT signed with another secret (30000 naming jwt) and an unknown alias (401)")
    func jwtRefusals() async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            let forged = try Raw.sessionJWT(payload: Raw.storePayload(), secret: "guessed")
            let body: [String: Any] = [
                "alias": Seed.jwtUsername, "jwt": forged, "version": "1.00",
                "request": [["pan": Seed.Card.visa, "securitycode": "123", "expirydate": Seed.expiryDate]],
            ]
            let response = try await Raw.post(handle, "/jwt/", body: try JSONText.data(body), basic: nil)
            let decoded = try IndependentJWT.decode(try #require(try response.json()["jwt"] as? String))
            let element = try #require((decoded.payload["response"] as? [[String: Any]])?.first)
            #expect(element["errorcode"] as? String == "30000")
            #expect(element["errordata"] as? [String] == ["jwt"])

            var unknown = body
            unknown["alias"] = "nobody@merchant"
            #expect(try await Raw.post(handle, "/jwt/", body: try JSONText.data(unknown), basic: nil).status == 401)

            let none = try IndependentJWT.make(
                claims: ["iss": Seed.jwtUsername, "iat": 1, "payload": Raw.storePayload()], secret: "", alg: "none")
            var noneBody = body
            noneBody["jwt"] = none
            let refused = try await Raw.post(handle, "/jwt/", body: try JSONText.data(noneBody), basic: nil)
            let refusedToken = try #require(try refused.json()["jwt"] as? String)
            let noneElement = try #require(
                (try IndependentJWT.decode(refusedToken).payload["response"] as? [[String: Any]])?.first)
            #expect(noneElement["errorcode"] as? String == "30000")
        }
    }

    @Test("a session JWT used more than 15 minutes after its iat, or without one, is refused as a JWT field error")
    func staleSession() async throws {
        func firstElement(_ token: String) throws -> [String: Any] {
            let claims = try IndependentJWT.decode(token).claims
            return try #require(((claims["payload"] as? [String: Any])?["response"] as? [[String: Any]])?.first)
        }
        let session = try Raw.sessionJWT(payload: Raw.storePayload())
        let simulator = SimFixture.simulator()
        let clock = try #require(simulator.clock)
        clock.advance(by: 14 * 60)
        #expect(
            try await firstElement(
                simulator.sdkPayment(
                    sessionJWT: session, pan: Seed.Card.visa, expiryDate: Seed.expiryDate, securityCode: "123"))[
                    "errorcode"] as? String == "0")
        clock.advance(by: 2 * 60)
        let late = try await firstElement(
            simulator.sdkPayment(
                sessionJWT: session, pan: Seed.Card.visa, expiryDate: Seed.expiryDate, securityCode: "123"))
        #expect(late["errorcode"] as? String == "30000")
        #expect(late["errordata"] as? [String] == ["jwt"])
        let noIAT = try IndependentJWT.make(
            claims: ["iss": Seed.jwtUsername, "payload": Raw.storePayload()], secret: Seed.jwtSecret)
        #expect(
            try await firstElement(
                simulator.sdkPayment(
                    sessionJWT: noIAT, pan: Seed.Card.visa, expiryDate: Seed.expiryDate, securityCode: "123"))[
                    "errorcode"] as? String == "30000")
    }

    @Test("sdkPayment answers exactly as /jwt/ does")
    func sdkHelperMatchesRoute() async throws {
        let session = try Raw.sessionJWT(payload: Raw.storePayload())
        let simulator = SimFixture.simulator()
        let helperToken = try await simulator.sdkPayment(
            sessionJWT: session, pan: Seed.Card.visa, expiryDate: Seed.expiryDate, securityCode: "123")
        await simulator.reset()
        try await withSimulator(simulator) { handle in
            let body: [String: Any] = [
                "alias": Seed.jwtUsername, "jwt": session, "version": "1.00",
                "versioninfo": "Swift::CardGateway::TrustPaymentsSimulator::SDK",
                "request": [
                    [
                        "requesttypedescriptions": ["ACCOUNTCHECK"], "pan": Seed.Card.visa,
                        "expirydate": Seed.expiryDate, "securitycode": "123",
                    ]
                ],
            ]
            let routeToken = try #require(
                try await Raw.post(handle, "/jwt/", body: try JSONText.data(body), basic: nil).json()["jwt"] as? String)
            #expect(routeToken == helperToken)
        }
        await #expect(throws: TrustPaymentsSimulator.SDKPaymentError.self) {
            _ = try await simulator.sdkPayment(
                sessionJWT: try Raw.sessionJWT(payload: Raw.storePayload(), iss: "stranger"), pan: Seed.Card.visa,
                expiryDate: Seed.expiryDate, securityCode: "123")
        }
    }

    @Test(
        "response JWTs are written as the simulator writes JSON: jwt-kit's sorted header, claims as JSONSerialization sorts them, slashes unescaped"
    )
    func responseJWTBytes() async throws {
        let session = try Raw.sessionJWT(payload: Raw.storePayload())
        let token = try await SimFixture.simulator().sdkPayment(
            sessionJWT: session, pan: Seed.Card.visa, expiryDate: Seed.expiryDate, securityCode: "123")
        let decoded = try IndependentJWT.decode(token)
        #expect(decoded.headerText == #"{"alg":"HS256","typ":"JWT"}"#)
        let claimsText = try #require(IndependentJWT.base64URLDecode(decoded.rawParts[1]))
        #expect(
            claimsText
                == (try JSONSerialization.data(
                    withJSONObject: decoded.claims, options: [.sortedKeys, .withoutEscapingSlashes])))
        #expect(decoded.signatureIsValid(secret: Seed.jwtSecret))
    }

    @Test(
        "/jwt/ also accepts request JWTs signed with HS384 and HS512, and refuses their signature under another alg",
        arguments: ["HS384", "HS512"])
    func longerHMACRequestJWTs(alg: String) async throws {
        let claims: [String: Any] = [
            "iss": Seed.jwtUsername, "iat": Int(SimFixture.now.timeIntervalSince1970), "payload": Raw.storePayload(),
        ]
        let body = IndependentJWT.base64URLEncode(
            try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        func header(_ name: String) -> String {
            IndependentJWT.base64URLEncode(Data(#"{"alg":"\#(name)","typ":"JWT"}"#.utf8))
        }
        let input = header(alg) + "." + body
        let key = SymmetricKey(data: Data(Seed.jwtSecret.utf8))
        let mac =
            alg == "HS384"
            ? Data(HMAC<SHA384>.authenticationCode(for: Data(input.utf8), using: key))
            : Data(HMAC<SHA512>.authenticationCode(for: Data(input.utf8), using: key))
        let signature = IndependentJWT.base64URLEncode(mac)
        func firstElement(_ token: String) async throws -> [String: Any] {
            let result = try await SimFixture.simulator().sdkPayment(
                sessionJWT: token, pan: Seed.Card.visa, expiryDate: Seed.expiryDate, securityCode: "123")
            return try #require((IndependentJWT.decode(result).payload["response"] as? [[String: Any]])?.first)
        }
        #expect(try await firstElement(input + "." + signature)["errorcode"] as? String == "0")
        let relabelled = try await firstElement(header("HS256") + "." + body + "." + signature)
        #expect(relabelled["errorcode"] as? String == "30000")
        #expect(relabelled["errordata"] as? [String] == ["jwt"])
    }

    @Test("reset brings back the seed and the reference sequence")
    func reset() async throws {
        let simulator = SimFixture.simulator()
        try await withSimulator(simulator) { handle in
            let first =
                try await Raw.webservices(handle, [Raw.cardRequest()]).elements().first?["transactionreference"]
                as? String
            _ = try await Raw.webservices(handle, [Raw.cardRequest()])
            let resetResponse = try await Raw.post(handle, "/__simulator/reset", body: Data(), basic: nil)
            #expect((200..<300).contains(resetResponse.status))
            let again =
                try await Raw.webservices(handle, [Raw.cardRequest()]).elements().first?["transactionreference"]
                as? String
            #expect(first == again)
            #expect(simulator.transactionHoldsStoredCard(Seed.Transaction.storedVisaAuth) == true)
        }
    }

    @Test("injected faults use the gateway's HTML error page")
    func faults() async throws {
        try await withSimulator(SimFixture.simulator()) { handle in
            handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/json",
                    action: .status(503, retryAfterSeconds: nil, message: "maintenance <now>")))
            let response = try await Raw.webservices(handle, [Raw.cardRequest()])
            #expect(response.status == 503)
            #expect(response.text.contains("Service Unavailable"))
            #expect(response.text.contains("maintenance &lt;now&gt;"))
            let unknown = try await Raw.post(handle, "/xml/", body: Data())
            #expect(unknown.status == 404)
        }
    }
}
