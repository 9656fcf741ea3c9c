import CardGateway
import CardGatewayTesting
import CardGatewayTrustPayments
import Foundation
import Testing
import SharedTestSupport

@Suite("Trust Payments result verification", .timeLimit(.minutes(5)))
struct VerifyResultTests {
    @Test("a valid response JWT becomes a stored credential, saved in the store")
    func valid() async throws {
        let store = InMemoryCredentialReferenceStore()
        let provider = try Fixture.provider(store: store)
        let token = try IndependentJWT.response(elements: [
            IndependentJWT.accountCheck(reference: "42-9-80103", pan: "340000#####0611", type: "AMEX")
        ])
        let credential = try await provider.verifyResult(Secret(token), context: OperationContext())
        #expect(credential.reference == "42-9-80103")
        #expect(credential.maskedPAN == "340000#####0611")
        #expect(credential.brand == "AMEX")
        #expect(credential.scheme == .amex)
        #expect(credential.provider == Fixture.instance)
        #expect(credential.created == Fixture.now)
        #expect(try await store.credential(reference: "42-9-80103") == credential)
    }

    @Test("a result exactly in Trust Payments' published shape (iat and payload only, no aud) is accepted")
    func publishedShape() async throws {
        // The decoded response JWT of Trust Payments' documentation: claims `iat` and `payload`
        // {requestreference, version, jwt, response[…], secrand}; no `aud`, no `iss`.
        let claims: [String: Any] = [
            "iat": Int(Fixture.now.timeIntervalSince1970),
            "payload": [
                "requestreference": "W23-fjgvn3d2", "version": "1.00", "secrand": "zZ9PbSVuFpl",
                "jwt": try IndependentJWT.make(
                    claims: [
                        "iss": Fixture.jwtUsername, "iat": 1,
                        "payload": ["sitereference": Fixture.siteReference, "credentialsonfile": "1"],
                    ], secret: Fixture.jwtSecret),
                "response": [IndependentJWT.accountCheck(reference: "56-9-1920047")],
            ] as [String: Any],
        ]
        let token = try IndependentJWT.make(claims: claims, secret: Fixture.jwtSecret)
        let credential = try await Fixture.provider().verifyResult(Secret(token), context: OperationContext())
        #expect(credential.reference == "56-9-1920047")
        #expect(credential.maskedPAN == "411111######1111")
    }

    @Test("a client session this gateway minted never verifies as a result, even with a response added")
    func ownSessionIsNotAResult() async throws {
        let provider = try Fixture.provider()
        let session = try await provider.clientSession(
            ClientSessionRequest(
                intent: .store(consent: CardholderConsent(recordedAt: Fixture.now, evidence: "checkbox")),
                amount: Money(minorUnits: 100, currency: "GBP")),
            context: OperationContext()
        )
        let error = await gatewayError {
            _ = try await provider.verifyResult(session.token, context: OperationContext())
        }
        #expect(error?.code == .signatureInvalid)
        #expect(error?.message.contains("client session") == true)
        // The same secret signs both: a token that names us as issuer is ours, whatever else it carries.
        let forged = try IndependentJWT.response(
            elements: [IndependentJWT.accountCheck()], extraClaims: ["iss": Fixture.jwtUsername])
        #expect(
            await gatewayError { _ = try await provider.verifyResult(Secret(forged), context: OperationContext()) }?
                .code == .signatureInvalid)
    }

    @Test("the ACCOUNTCHECK's reference is kept when the result also carries THREEDQUERY and AUTH")
    func prefersAccountCheck() async throws {
        let provider = try Fixture.provider()
        let token = try IndependentJWT.response(elements: [
            IndependentJWT.accountCheck(reference: "42-9-1"), IndependentJWT.threeDQuery(reference: "42-9-2"),
            IndependentJWT.auth(reference: "42-9-3"),
        ])
        #expect(try await provider.verifyResult(Secret(token), context: OperationContext()).reference == "42-9-1")

        let authOnly = try IndependentJWT.response(elements: [
            IndependentJWT.threeDQuery(reference: "42-9-4"),
            IndependentJWT.auth(reference: "42-9-5", pan: "510000######0511", type: "MASTERCARD"),
        ])
        let credential = try await provider.verifyResult(Secret(authOnly), context: OperationContext())
        #expect(credential.reference == "42-9-5")
        #expect(credential.scheme == .mastercard)
    }

    @Test("a token whose claims were changed after signing is refused")
    func tampered() async throws {
        let store = InMemoryCredentialReferenceStore()
        let provider = try Fixture.provider(store: store)
        let token = try IndependentJWT.response(elements: [IndependentJWT.accountCheck()])
        var parts = token.split(separator: ".").map(String.init)
        let claimBytes = try #require(IndependentJWT.base64URLDecode(parts[1]))
        var claims = try #require(try JSONSerialization.jsonObject(with: claimBytes) as? [String: Any])
        var payload = try #require(claims["payload"] as? [String: Any])
        payload["response"] = [IndependentJWT.accountCheck(reference: "99-9-999")]
        claims["payload"] = payload
        parts[1] = IndependentJWT.base64URLEncode(try JSONText.data(claims))
        let error = await gatewayError {
            _ = try await provider.verifyResult(Secret(parts.joined(separator: ".")), context: OperationContext())
        }
        #expect(error?.code == .signatureInvalid)
        #expect(try await store.credential(reference: "99-9-999") == nil)

        var signatureParts = token.split(separator: ".").map(String.init)
        let first = signatureParts[2].removeFirst()
        signatureParts[2].insert(first == "A" ? "B" : "A", at: signatureParts[2].startIndex)
        let flipped = signatureParts.joined(separator: ".")
        #expect(
            await gatewayError { _ = try await provider.verifyResult(Secret(flipped), context: OperationContext()) }?
                .code == .signatureInvalid)
    }

    @Test("a token signed with another secret is refused")
    func wrongSecret() async throws {
        let provider = try Fixture.provider()
        let token = try IndependentJWT.response(elements: [IndependentJWT.accountCheck()], secret: "another-secret")
        let error = await gatewayError {
            _ = try await provider.verifyResult(Secret(token), context: OperationContext())
        }
        #expect(error?.code == .signatureInvalid)
        #expect(error?.description.contains(token) == false)
        #expect(error?.description.contains(Fixture.jwtSecret) == false)
    }

    @Test("a token for another audience is refused")
    func wrongAudience() async throws {
        let provider = try Fixture.provider()
        let audiences: [Any] = ["someone.else", "", NSNull(), 42, ["someone.else"], Fixture.jwtUsername.uppercased()]
        for aud in audiences {
            let token = try IndependentJWT.response(elements: [IndependentJWT.accountCheck()], aud: aud)
            #expect(
                await gatewayError { _ = try await provider.verifyResult(Secret(token), context: OperationContext()) }?
                    .code == .signatureInvalid)
        }
        let listed = try IndependentJWT.response(elements: [IndependentJWT.accountCheck()], aud: [Fixture.jwtUsername])
        #expect(try await provider.verifyResult(Secret(listed), context: OperationContext()).reference == "42-9-80103")
    }

    @Test(
        "iat must be within jwtMaxAgeSeconds in the past and 60 s in the future",
        arguments: [
            (-900.0, true), (-901.0, false), (-5000.0, false), (59.0, true), (61.0, false),
        ])
    func age(offset: TimeInterval, accepted: Bool) async throws {
        let provider = try Fixture.provider()
        let token = try IndependentJWT.response(
            elements: [IndependentJWT.accountCheck()], iat: Fixture.now.addingTimeInterval(offset))
        if accepted {
            _ = try await provider.verifyResult(Secret(token), context: OperationContext())
        } else {
            #expect(
                await gatewayError { _ = try await provider.verifyResult(Secret(token), context: OperationContext()) }?
                    .code == .signatureInvalid)
        }
    }

    @Test("jwtMaxAgeSeconds is honoured")
    func configuredMaxAge() async throws {
        let provider = try Fixture.provider(options: ["jwtMaxAgeSeconds": .number(60)])
        let old = try IndependentJWT.response(
            elements: [IndependentJWT.accountCheck()], iat: Fixture.now.addingTimeInterval(-61))
        #expect(
            await gatewayError { _ = try await provider.verifyResult(Secret(old), context: OperationContext()) }?.code
                == .signatureInvalid)
        let fresh = try IndependentJWT.response(
            elements: [IndependentJWT.accountCheck()], iat: Fixture.now.addingTimeInterval(-60))
        _ = try await provider.verifyResult(Secret(fresh), context: OperationContext())
    }

    @Test("missing iat, expired exp and non-JWT text are refused")
    func otherClaims() async throws {
        let provider = try Fixture.provider()
        let noIat = try IndependentJWT.make(
            claims: ["aud": Fixture.jwtUsername, "payload": ["response": [IndependentJWT.accountCheck()]]],
            secret: Fixture.jwtSecret)
        let expired = try IndependentJWT.response(
            elements: [IndependentJWT.accountCheck()], extraClaims: ["exp": Int(Fixture.now.timeIntervalSince1970) - 1])
        for token in [noIat, expired, "not-a-jwt", "a.b", "", "e30.e30.e30"] {
            #expect(
                await gatewayError { _ = try await provider.verifyResult(Secret(token), context: OperationContext()) }?
                    .code == .signatureInvalid)
        }
    }

    @Test(
        "alg none and every algorithm other than HS256 are refused",
        arguments: ["none", "None", "HS384", "HS512", "RS256", "hs256"])
    func algorithms(alg: String) async throws {
        let provider = try Fixture.provider()
        let token = try IndependentJWT.response(elements: [IndependentJWT.accountCheck()], alg: alg)
        let error = await gatewayError {
            _ = try await provider.verifyResult(Secret(token), context: OperationContext())
        }
        #expect(error?.code == .signatureInvalid)
    }

    @Test("a declined result is a normalised decline with the provider's code, and nothing is stored")
    func declined() async throws {
        let store = InMemoryCredentialReferenceStore()
        let provider = try Fixture.provider(store: store)
        let token = try IndependentJWT.response(elements: [
            IndependentJWT.accountCheck(reference: "42-9-7", errorcode: "70000")
        ])
        let error = await gatewayError {
            _ = try await provider.verifyResult(Secret(token), context: OperationContext())
        }
        #expect(error?.code == .declined)
        #expect(error?.providerCode == "70000")
        #expect(error?.requestID == "W42-4fq45cb0")
        #expect(try await store.credential(reference: "42-9-7") == nil)
    }

    @Test("a cancelled settlestatus (3) with errorcode 0 is a decline")
    func cancelled() async throws {
        let store = InMemoryCredentialReferenceStore()
        let provider = try Fixture.provider(store: store)
        let token = try IndependentJWT.response(elements: [
            IndependentJWT.accountCheck(reference: "42-9-8", settlestatus: "3")
        ])
        let error = await gatewayError {
            _ = try await provider.verifyResult(Secret(token), context: OperationContext())
        }
        #expect(error?.code == .declined)
        #expect(error?.providerCode == "settlestatus 3")
        #expect(try await store.credential(reference: "42-9-8") == nil)
    }

    @Test(
        "every element is checked: a failing second element decides",
        arguments: [
            ("70000", CardGatewayError.Code.declined),
            ("60010", .providerUnavailable),
            ("60022", .declined),
            ("30000", .invalidRequest),
        ])
    func secondElementFails(code: String, expected: CardGatewayError.Code) async throws {
        let store = InMemoryCredentialReferenceStore()
        let provider = try Fixture.provider(store: store)
        let token = try IndependentJWT.response(elements: [
            IndependentJWT.accountCheck(reference: "42-9-11"),
            IndependentJWT.auth(reference: "42-9-12", errorcode: code),
        ])
        let error = await gatewayError {
            _ = try await provider.verifyResult(Secret(token), context: OperationContext())
        }
        #expect(error?.code == expected)
        #expect(error?.providerCode == code)
        #expect(try await store.credential(reference: "42-9-11") == nil)

        let cancelledSecond = try IndependentJWT.response(elements: [
            IndependentJWT.accountCheck(reference: "42-9-13"),
            IndependentJWT.auth(reference: "42-9-14", settlestatus: "3"),
        ])
        #expect(
            await gatewayError {
                _ = try await provider.verifyResult(Secret(cancelledSecond), context: OperationContext())
            }?.code == .declined)
    }

    @Test("missing fields the mapping needs are invalidResponse")
    func missingFields() async throws {
        let provider = try Fixture.provider()
        var noReference = IndependentJWT.accountCheck()
        noReference.removeValue(forKey: "transactionreference")
        var noErrorCode = IndependentJWT.accountCheck()
        noErrorCode.removeValue(forKey: "errorcode")
        var noPAN = IndependentJWT.accountCheck()
        noPAN.removeValue(forKey: "maskedpan")
        for elements in [[noReference], [noErrorCode], [noPAN], [], [IndependentJWT.threeDQuery()]] {
            let token = try IndependentJWT.response(elements: elements)
            #expect(
                await gatewayError { _ = try await provider.verifyResult(Secret(token), context: OperationContext()) }?
                    .code == .invalidResponse)
        }
        let noPayload = try IndependentJWT.make(
            claims: ["iat": Int(Fixture.now.timeIntervalSince1970), "aud": Fixture.jwtUsername],
            secret: Fixture.jwtSecret)
        #expect(
            await gatewayError { _ = try await provider.verifyResult(Secret(noPayload), context: OperationContext()) }?
                .code == .invalidResponse)
    }

    @Test("a JavaScript error result (50000) is providerUnavailable with an uncertain outcome: not repeated blindly")
    func javascriptError() async throws {
        let provider = try Fixture.provider()
        let token = try IndependentJWT.response(elements: [["errorcode": "50000", "errormessage": "Timeout"]])
        let error = await gatewayError {
            _ = try await provider.verifyResult(Secret(token), context: OperationContext())
        }
        #expect(error?.code == .providerUnavailable)
        #expect(error?.isRetryable == false)
        #expect(error?.message.contains("new payment") == true)
        #expect(error?.providerCode == "50000")
    }

    @Test("a result that did not keep the card on file (credentialsonfile 0) is refused")
    func notOnFile() async throws {
        let provider = try Fixture.provider()
        var element = IndependentJWT.accountCheck()
        element["credentialsonfile"] = "0"
        let token = try IndependentJWT.response(elements: [element])
        #expect(
            await gatewayError { _ = try await provider.verifyResult(Secret(token), context: OperationContext()) }?.code
                == .invalidRequest)

        // When the element does not echo it, the re-signed request JWT in the payload says.
        var silent = IndependentJWT.accountCheck()
        silent.removeValue(forKey: "credentialsonfile")
        let nested = try IndependentJWT.make(
            claims: ["iss": Fixture.jwtUsername, "iat": 1, "payload": ["credentialsonfile": "0"]],
            secret: Fixture.jwtSecret)
        let nestedToken = try IndependentJWT.response(elements: [silent], nestedJWT: nested)
        #expect(
            await gatewayError {
                _ = try await provider.verifyResult(Secret(nestedToken), context: OperationContext())
            }?.code == .invalidRequest)

        // A nested JWT that does not verify with the secret is not read at all.
        let unsigned = try IndependentJWT.make(
            claims: ["iss": Fixture.jwtUsername, "iat": 1, "payload": ["credentialsonfile": "0"]],
            secret: "someone-else")
        let unsignedToken = try IndependentJWT.response(elements: [silent], nestedJWT: unsigned)
        #expect(
            try await provider.verifyResult(Secret(unsignedToken), context: OperationContext()).reference
                == "42-9-80103")
    }

    @Test("an Apple Pay result (walletsource APPLEPAY) is refused and nothing is stored")
    func applePayResult() async throws {
        let store = InMemoryCredentialReferenceStore()
        let provider = try Fixture.provider(store: store)
        var element = IndependentJWT.auth(reference: "42-9-41")
        element["walletsource"] = "APPLEPAY"
        let error = await gatewayError {
            _ = try await provider.verifyResult(
                Secret(try IndependentJWT.response(elements: [element])), context: OperationContext())
        }
        #expect(error?.code == .unsupported)
        #expect(try await store.credential(reference: "42-9-41") == nil)
    }

    @Test("a result for another site reference is refused, whether the element or the nested request JWT says so")
    func otherSite() async throws {
        let provider = try Fixture.provider()
        var element = IndependentJWT.accountCheck()
        element["sitereference"] = "test_other99999"
        let token = try IndependentJWT.response(elements: [element])
        let error = await gatewayError {
            _ = try await provider.verifyResult(Secret(token), context: OperationContext())
        }
        #expect(error?.code == .signatureInvalid)
        #expect(error?.message.contains("test_other99999") == true)

        let nested = try IndependentJWT.make(
            claims: [
                "iss": Fixture.jwtUsername, "iat": 1,
                "payload": ["sitereference": "test_other99999", "credentialsonfile": "1"],
            ], secret: Fixture.jwtSecret)
        let nestedToken = try IndependentJWT.response(elements: [IndependentJWT.accountCheck()], nestedJWT: nested)
        #expect(
            await gatewayError {
                _ = try await provider.verifyResult(Secret(nestedToken), context: OperationContext())
            }?.code == .signatureInvalid)

        var same = IndependentJWT.accountCheck(reference: "42-9-31")
        same["sitereference"] = Fixture.siteReference
        #expect(
            try await provider.verifyResult(
                Secret(try IndependentJWT.response(elements: [same])), context: OperationContext()
            ).reference == "42-9-31")
    }

    @Test("unknown fields and numbers where strings were expected do not break decoding")
    func lenientDecoding() async throws {
        let provider = try Fixture.provider()
        var element = IndependentJWT.accountCheck(reference: "42-9-21")
        element["errorcode"] = 0
        element["settlestatus"] = 0
        element["somethingnew"] = ["nested": [1, 2, 3]]
        let token = try IndependentJWT.response(elements: [element], extraClaims: ["unknownclaim": true])
        #expect(try await provider.verifyResult(Secret(token), context: OperationContext()).reference == "42-9-21")
    }

    @Test("a repeat verification keeps the customer and creation date saved earlier")
    func keepsCustomer() async throws {
        let store = InMemoryCredentialReferenceStore()
        let earlier = Fixture.now.addingTimeInterval(-100)
        try await store.save(
            StoredCredential(
                reference: "42-9-80103", provider: Fixture.instance, maskedPAN: "411111######1111", brand: "VISA",
                scheme: .visa, customer: "cus_1", created: earlier))
        let provider = try Fixture.provider(store: store)
        let credential = try await provider.verifyResult(
            Secret(try IndependentJWT.response(elements: [IndependentJWT.accountCheck()])), context: OperationContext())
        #expect(credential.customer == "cus_1")
        #expect(credential.created == earlier)
    }

    @Test(
        "payment types map to schemes",
        arguments: [
            ("VISA", CardScheme.visa), ("MASTERCARD", .mastercard), ("AMEX", .amex), ("DELTA", .visa),
            ("MAESTRO", .mastercard),
            ("DISCOVER", .discover), ("PAYPAL", .unknown), ("visa", .visa),
        ])
    func schemes(type: String, scheme: CardScheme) {
        #expect(TrustPaymentsProvider.scheme(forPaymentType: type) == scheme)
    }
}
