import CardGateway
import CardGatewayTesting
import Foundation
import Logging
import Testing

@Suite("Secrets, redaction and encodings", .timeLimit(.minutes(5)))
struct SecurityTests {
    @Test("secrets and sensitive bytes never show in descriptions, reflection or interpolation")
    func redaction() {
        let secret = Secret("sk_live_verysecret")
        let bytes = SensitiveData(Data("nonce-bytes-0123".utf8))
        let texts = [
            "\(secret)", String(describing: secret), String(reflecting: secret), "\(bytes)", String(reflecting: bytes),
            "\(ClientSession(token: secret, issuedAt: Date()))",
            "\(ActivateCardRequest(card: CardRef(id: "c"), lastFour: "1234", cvv: Secret("987")))",
            "\(UpdateCardRequest(card: CardRef(id: "c"), change: .pin(Secret("4321"))))",
            "\(ProvisioningInput.applePay(ApplePayProvisioningInput(certificates: [Data("CERTDATA".utf8)], nonce: Data("NONCE".utf8), nonceSignature: Data("SIG".utf8))))",
            "\(ProvisioningResponse.issuerSDKInput(SensitiveData(Data("SDKINPUT".utf8))))",
        ]
        var dumped = ""
        dump(secret, to: &dumped)
        dump(bytes, to: &dumped)
        for text in texts + [dumped] {
            for needle in ["sk_live_verysecret", "nonce-bytes", "987", "4321", "CERTDATA", "NONCE", "SDKINPUT"] {
                #expect(!text.contains(needle), "\(text) leaks \(needle)")
            }
        }
        #expect(secret == Secret("sk_live_verysecret"))
        #expect(secret != Secret("sk_live_verysecreT"))
    }

    @Test("SafeText masks card numbers, keys and tokens in provider messages")
    func scrub() {
        #expect(SafeText.scrub("card 4111111111111111 declined") == "card **************** declined")
        #expect(
            SafeText.scrub("Invalid API Key provided: sk_test_abcdefghijkl") == "Invalid API Key provided: <redacted>")
        #expect(SafeText.scrub("token eyJhbGciOiJIUzI1NiJ9.e30.abc") == "token <redacted>")
        #expect(SafeText.scrub("Entity not found") == "Entity not found")
        #expect(SafeText.scrub("ic_1234 at 2024-01-01") == "ic_1234 at 2024-01-01")
        #expect(SafeText.scrub("PAN 4111 1111 1111 1111 refused") == "PAN **** **** **** **** refused")
        #expect(SafeText.scrub("PAN 4111-1111-1111-1111.") == "PAN ****-****-****-****.")
        #expect(SafeText.scrub("card=5555555555554444&x") == "card=****************&x")
        #expect(SafeText.scrub("code 30000 at 2024-01-01 10:00") == "code 30000 at 2024-01-01 10:00")
        // A secret straddling the cut is still found; the cut is marked.
        let long = String(repeating: "a ", count: 140) + "sk_live_0123456789abcdef"
        #expect(!SafeText.scrub(long).contains("sk_li"))
        #expect(SafeText.scrub(String(repeating: "x ", count: 200), maxLength: 10) == "x x x x x …")
        #expect(SafeText.scrub("blob " + String(repeating: "QUJD", count: 12)) == "blob <redacted>")
        let error = CardGatewayError(.declined, "provider said: 5105105105105100 is blocked")
        #expect(!error.description.contains("5105105105105100"))
    }

    @Test("constant-time comparison and HMAC verification")
    func constantTime() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(!ConstantTime.equals([UInt8](), [0]))
        let key = Data("key".utf8)
        let message = Data("The quick brown fox jumps over the lazy dog".utf8)
        let mac = MessageAuthentication.hmacSHA256(key: key, message: message)
        #expect(ByteEncoding.hex(mac) == "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8")
        #expect(MessageAuthentication.verifyHMACSHA256(signature: mac, key: key, message: message))
        #expect(!MessageAuthentication.verifyHMACSHA256(signature: mac, key: key, message: message + Data([0])))
    }

    @Test("strict hex and Base64 decoding")
    func encodings() {
        #expect(ByteEncoding.decodeHex("00ffA0") == Data([0, 255, 160]))
        #expect(ByteEncoding.decodeHex("0g") == nil)
        #expect(ByteEncoding.decodeHex("abc") == nil)
        #expect(ByteEncoding.decodeBase64("AQID") == Data([1, 2, 3]))
        #expect(ByteEncoding.decodeBase64("AQI") == nil)
        #expect(ByteEncoding.decodeBase64("AQ-_") == nil)
        #expect(ByteEncoding.decodeBase64Lenient("-_8") == Data([251, 255]))
        #expect(ByteEncoding.base64URL(Data([251, 255])) == "-_8")
        #expect(ByteEncoding.decodeBase64URL("-_8") == Data([251, 255]))
        #expect(ByteEncoding.decodeBase64URL("+/8=") == nil)
    }

    @Test("secret references parse and resolve without exposing values")
    func secretReferences() {
        #expect(SecretReference(parsing: "env:STRIPE_KEY") == .environment("STRIPE_KEY"))
        #expect(SecretReference(parsing: "file:/run/secrets/x") == .file("/run/secrets/x"))
        #expect(SecretReference(parsing: "literal:abc") == .literal(Secret("abc")))
        #expect(SecretReference(parsing: "literal:abc")?.description == "literal:<redacted>")
        for bad in ["STRIPE_KEY", "env:", "env:A-B", "file:", "vault:x", ""] {
            #expect(SecretReference(parsing: bad) == nil, "\(bad)")
        }
        let resolver = SecretResolver(environment: ["SET": "value", "EMPTY": ""])
        #expect((try? resolver.resolve(.environment("SET")).get())?.revealedValue == "value")
        if case .failure(let failure) = resolver.resolve(.environment("EMPTY")) {
            #expect(failure.message == "environment variable EMPTY is empty")
        } else {
            Issue.record("empty must fail")
        }
        if case .failure(let failure) = resolver.resolve(.environment("NOPE")) {
            #expect(failure.message == "environment variable NOPE is not set")
        } else {
            Issue.record("unset must fail")
        }
    }

    @Test("a gateway built from configuration logs nothing secret")
    func gatewayLogsNoSecrets() async throws {
        let capture = LogCapture()
        let configuration = try TestFactories.load(TestFactories.validDocument)
        let transport = ScriptedTransport([])
        let gateway = try CardGateway(
            configuration: configuration, registry: TestFactories.registry, transport: transport,
            logger: capture.logger())
        _ = try await gateway.card(
            CardRef(id: "c1"), via: .key(RouteKey(program: "EU-VIRTUAL")),
            context: OperationContext(logger: capture.logger()))
        _ = try? await gateway.clientSession(
            ClientSessionRequest(intent: .store(consent: nil), amount: Money(minorUnits: 100, currency: "GBP")),
            via: .instance("on-file"))
        let needles = TestFactories.environment.values.map { $0 } + ["us-literal-key-789", "jwt.session.token"]
        #expect(capture.leaks(of: needles).isEmpty)
    }

    @Test("a field error's field name is scrubbed like its message")
    func fieldNameScrubbed() {
        let error = CardGatewayError.FieldError(field: "card[4111111111111111]", message: "bad 4111 1111 1111 1111")
        #expect(!error.field.contains("4111111111111111"))
        #expect(!error.description.contains("1111 1111 1111"))
    }

    @Test("an adapter's unexpected error is attributed and never invites a blind repeat")
    func unexpectedAdapterErrors() async throws {
        let configuration = try TestFactories.load(TestFactories.validDocument)
        let gateway = try CardGateway(
            configuration: configuration, registry: TestFactories.registry, transport: ScriptedTransport([]))
        do {
            _ = try await gateway.charge(
                ChargeRequest(
                    reference: "odd", amount: Money(minorUnits: 100, currency: "GBP"),
                    initiator: .merchant(.unscheduled)), via: .instance("on-file"))
            Issue.record("expected an error")
        } catch let error as CardGatewayError {
            #expect(error.code == .transport)
            #expect(error.provider == "on-file")
            #expect(error.mayHaveReachedProvider)
            #expect(!error.isRetryable)
        }
    }
}
