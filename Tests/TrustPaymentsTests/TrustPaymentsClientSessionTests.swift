import CardGateway
import CardGatewayTesting
import CardGatewayTrustPayments
import Foundation
import Testing
import SharedTestSupport

@Suite("Trust Payments client sessions", .timeLimit(.minutes(5)))
struct ClientSessionTests {
    let money = Money(minorUnits: 1050, currency: "GBP")

    @Test("a store session is an HS256 JWT whose claims and signature check out independently")
    func storeSessionJWT() async throws {
        let transport = ScriptedTransport([])
        let provider = try Fixture.provider(transport: transport)
        let session = try await provider.clientSession(
            ClientSessionRequest(intent: .store(consent: Fixture.consent()), amount: money, orderReference: "order-77"),
            context: OperationContext()
        )
        let decoded = try IndependentJWT.decode(session.token.revealedValue)
        #expect(decoded.headerText == #"{"alg":"HS256","typ":"JWT"}"#)
        #expect(decoded.signatureIsValid(secret: Fixture.jwtSecret))
        #expect(!decoded.signatureIsValid(secret: Fixture.jwtSecret + "x"))
        #expect(decoded.claims["iss"] as? String == Fixture.jwtUsername)
        #expect((decoded.claims["iat"] as? NSNumber)?.int64Value == Int64(Fixture.now.timeIntervalSince1970))
        #expect(Set(decoded.claims.keys) == ["iss", "iat", "payload"])
        let payload = decoded.payload
        #expect(payload["sitereference"] as? String == Fixture.siteReference)
        #expect(payload["accounttypedescription"] as? String == "ECOM")
        #expect(payload["currencyiso3a"] as? String == "GBP")
        #expect(payload["baseamount"] as? String == "1050")
        #expect(payload["requesttypedescriptions"] as? [String] == ["ACCOUNTCHECK"])
        #expect(payload["credentialsonfile"] as? String == "1")
        #expect(payload["orderreference"] as? String == "order-77")
        #expect(payload["parenttransactionreference"] == nil)
        #expect(
            Set(payload.keys) == [
                "sitereference", "accounttypedescription", "currencyiso3a", "baseamount", "requesttypedescriptions",
                "credentialsonfile", "orderreference",
            ])
        #expect(session.issuedAt == Fixture.now)
        #expect(session.expires == Fixture.now.addingTimeInterval(900))
        #expect(session.securityCodeLength == nil)
        #expect(transport.requestCount == 0)
        #expect(!session.description.contains(session.token.revealedValue))
    }

    @Test(
        "store request types follow the documented order ACCOUNTCHECK, THREEDQUERY, AUTH",
        arguments: [
            (false, false, ["ACCOUNTCHECK"]),
            (true, false, ["ACCOUNTCHECK", "THREEDQUERY"]),
            (false, true, ["ACCOUNTCHECK", "AUTH"]),
            (true, true, ["ACCOUNTCHECK", "THREEDQUERY", "AUTH"]),
        ])
    func storeRequestTypes(authenticate: Bool, authorise: Bool, expected: [String]) async throws {
        let provider = try Fixture.provider()
        let session = try await provider.clientSession(
            ClientSessionRequest(
                intent: .store(consent: Fixture.consent()), amount: money, authenticate: authenticate,
                authorise: authorise),
            context: OperationContext()
        )
        let decoded = try IndependentJWT.decode(session.token.revealedValue)
        #expect(decoded.payload["requesttypedescriptions"] as? [String] == expected)
        #expect(decoded.signatureIsValid(secret: Fixture.jwtSecret))
    }

    @Test("storing without the cardholder's consent is refused, naming consent, and nothing is sent")
    func consentRequired() async throws {
        let transport = ScriptedTransport([])
        let provider = try Fixture.provider(transport: transport)
        let missing = await gatewayError {
            _ = try await provider.clientSession(
                ClientSessionRequest(intent: .store(consent: nil), amount: money), context: OperationContext())
        }
        #expect(missing?.code == .invalidRequest)
        #expect(missing?.fieldErrors.map(\.field) == ["consent"])

        let empty = await gatewayError {
            _ = try await provider.clientSession(
                ClientSessionRequest(
                    intent: .store(consent: CardholderConsent(recordedAt: Fixture.now, evidence: "  ")), amount: money),
                context: OperationContext()
            )
        }
        #expect(empty?.code == .invalidRequest)
        #expect(empty?.fieldErrors.map(\.field) == ["consent.evidence"])

        let future = await gatewayError {
            _ = try await provider.clientSession(
                ClientSessionRequest(
                    intent: .store(
                        consent: CardholderConsent(recordedAt: Fixture.now.addingTimeInterval(3600), evidence: "terms")),
                    amount: money),
                context: OperationContext()
            )
        }
        #expect(future?.fieldErrors.map(\.field) == ["consent.recordedAt"])
        #expect(transport.requestCount == 0)
    }

    @Test(
        "a reuse session asks for the security code length of the stored card's brand",
        arguments: [
            (CardScheme.amex, "AMEX", 4),
            (CardScheme.visa, "VISA", 3),
            (CardScheme.mastercard, "MASTERCARD", 3),
            (CardScheme.unknown, "AMEX", 4),
            (CardScheme.discover, "DISCOVER", 3),
        ])
    func reuseSecurityCode(scheme: CardScheme, brand: String, length: Int) async throws {
        let store = InMemoryCredentialReferenceStore()
        try await store.save(Fixture.credential("2-9-4617572", scheme: scheme, brand: brand))
        let transport = ScriptedTransport([])
        let provider = try Fixture.provider(transport: transport, store: store)
        let session = try await provider.clientSession(
            ClientSessionRequest(intent: .reuse(reference: "2-9-4617572"), amount: money, orderReference: "order-78"),
            context: OperationContext()
        )
        #expect(session.securityCodeLength == length)
        let decoded = try IndependentJWT.decode(session.token.revealedValue)
        #expect(decoded.signatureIsValid(secret: Fixture.jwtSecret))
        let payload = decoded.payload
        #expect(payload["parenttransactionreference"] as? String == "2-9-4617572")
        #expect(payload["credentialsonfile"] as? String == "2")
        #expect(payload["requesttypedescriptions"] as? [String] == ["THREEDQUERY", "AUTH"])
        #expect(payload["baseamount"] as? String == "1050")
        #expect(payload["sitereference"] as? String == Fixture.siteReference)
        #expect(payload["accounttypedescription"] as? String == "ECOM")
        #expect(payload["orderreference"] as? String == "order-78")
        #expect(transport.requestCount == 0)
    }

    @Test("a reuse session for a reference the store does not hold is notFound")
    func reuseUnknownReference() async throws {
        let provider = try Fixture.provider()
        let error = await gatewayError {
            _ = try await provider.clientSession(
                ClientSessionRequest(intent: .reuse(reference: "1-2-3"), amount: money), context: OperationContext())
        }
        #expect(error?.code == .notFound)
    }

    @Test("a reuse session for another provider instance's credential is refused")
    func reuseOtherInstance() async throws {
        let store = InMemoryCredentialReferenceStore()
        try await store.save(Fixture.credential("1-2-3", scheme: .visa, brand: "VISA", provider: "stripe-eu"))
        let provider = try Fixture.provider(store: store)
        let error = await gatewayError {
            _ = try await provider.clientSession(
                ClientSessionRequest(intent: .reuse(reference: "1-2-3"), amount: money), context: OperationContext())
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.fieldErrors.map(\.field) == ["intent.reference"])
    }

    @Test("Apple Pay is refused as unsupported, saying Trust Payments documents it does not support this tokenization")
    func applePayRefused() async throws {
        let store = InMemoryCredentialReferenceStore()
        try await store.save(Fixture.credential("1-2-3", scheme: .visa, brand: "VISA"))
        let provider = try Fixture.provider(store: store)
        for intent in [ClientSessionRequest.Intent.store(consent: Fixture.consent()), .reuse(reference: "1-2-3")] {
            let error = await gatewayError {
                _ = try await provider.clientSession(
                    ClientSessionRequest(intent: intent, amount: money, paymentMethod: .applePay),
                    context: OperationContext())
            }
            #expect(error?.code == .unsupported)
            #expect(error?.message.contains("Apple Pay does not support tokenization") == true)
            #expect(error?.fieldErrors.map(\.field) == ["paymentMethod"])
        }
    }

    @Test("Google Pay is refused as unsupported because it is not documented")
    func googlePayRefused() async throws {
        let provider = try Fixture.provider()
        let error = await gatewayError {
            _ = try await provider.clientSession(
                ClientSessionRequest(
                    intent: .store(consent: Fixture.consent()), amount: money, paymentMethod: .googlePay),
                context: OperationContext()
            )
        }
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("does not document") == true)
    }

    @Test("amounts and references are validated before anything is minted, with every problem listed")
    func validation() async throws {
        let provider = try Fixture.provider()
        let error = await gatewayError {
            _ = try await provider.clientSession(
                ClientSessionRequest(
                    intent: .reuse(reference: "not a ref!"), amount: Money(minorUnits: -5, currency: "gbp"),
                    orderReference: ""),
                context: OperationContext()
            )
        }
        #expect(error?.code == .invalidRequest)
        #expect(
            Set(error?.fieldErrors.map(\.field) ?? []) == [
                "intent.reference", "amount", "amount.currency", "orderReference",
            ])

        let tooLong = await gatewayError {
            _ = try await provider.clientSession(
                ClientSessionRequest(intent: .reuse(reference: String(repeating: "1", count: 26)), amount: money),
                context: OperationContext()
            )
        }
        #expect(tooLong?.fieldErrors.map(\.field) == ["intent.reference"])
    }

    @Test("an account check alone may be for zero; an authorisation may not")
    func zeroAmount() async throws {
        let provider = try Fixture.provider()
        let zero = Money(minorUnits: 0, currency: "GBP")
        let session = try await provider.clientSession(
            ClientSessionRequest(intent: .store(consent: Fixture.consent()), amount: zero), context: OperationContext())
        #expect(try IndependentJWT.decode(session.token.revealedValue).payload["baseamount"] as? String == "0")
        let error = await gatewayError {
            _ = try await provider.clientSession(
                ClientSessionRequest(intent: .store(consent: Fixture.consent()), amount: zero, authorise: true),
                context: OperationContext())
        }
        #expect(error?.fieldErrors.map(\.field) == ["amount"])
    }
}
