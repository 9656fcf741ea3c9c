import AdyenSimulator
import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayTesting
import Crypto
import Foundation
import SharedTestSupport
import Synchronization
import Testing
import _CryptoExtras

@testable import CardGatewayAdyen

/// Card details and PIN through the gateway, end to end with real cryptography: the test acts as the cardholder's
/// app (its own RSA, AES and ISO 9564 format 4 code below, independent of the simulator's), the gateway relays, and
/// only the app's AES key opens what the simulator encrypted.
@Suite("Adyen card details and PIN", .timeLimit(.minutes(5)))
struct AdyenCardRevealTests {
    typealias Seed = AdyenSimulator.Seed

    /// The cardholder's app.
    enum App {
        /// An AES-256 key and its RSA (PKCS #1 v1.5) encryption with the offer's `pem` key, in hexadecimal.
        static func session(_ offer: RevealOffer) throws -> (key: SymmetricKey, encryptedKey: String) {
            let pem = try #require(offer.publicKey?.value)
            let publicKey = try _RSA.Encryption.PublicKey(derRepresentation: try #require(Data(base64Encoded: pem)))
            let key = SymmetricKey(size: .bits256)
            let encrypted = try key.withUnsafeBytes {
                try publicKey.encrypt(Data($0), padding: ._WEAK_AND_INSECURE_PKCS_V1_5)
            }
            return (key, encrypted.map { String(format: "%02X", $0) }.joined())
        }

        static func bytes(hex: String) throws -> [UInt8] {
            let characters = Array(hex)
            return try stride(from: 0, to: characters.count, by: 2).map {
                try #require(UInt8(String(characters[$0..<$0 + 2]), radix: 16))
            }
        }

        /// The card details JSON: AES-256-CBC, zero IV.
        static func cardDetails(_ material: RevealMaterial, key: SymmetricKey) throws -> [String: Any] {
            let data = try bytes(hex: try #require(material.encryptedData?.revealedValue))
            let plain = try AES._CBC.decrypt(
                data, using: key, iv: AES._CBC.IV(ivBytes: [UInt8](repeating: 0, count: 16)))
            return try #require(try JSONSerialization.jsonObject(with: plain) as? [String: Any])
        }

        static func panField(_ token: String) throws -> [UInt8] {
            try bytes(hex: "4" + token + String(repeating: "0", count: 15))
        }

        /// The PIN in a format 4 block: D(D(block) ⊕ PAN field), then `4 N digits A…A`.
        static func pin(_ material: RevealMaterial, key: SymmetricKey) throws -> String {
            var block = try bytes(hex: try #require(material.encryptedPINBlock?.revealedValue))
            let token = try #require(material.pinToken?.revealedValue)
            try AES.inversePermute(&block, key: key)
            for (index, byte) in try panField(token).enumerated() { block[index] ^= byte }
            try AES.inversePermute(&block, key: key)
            let hex = block.map { String(format: "%02X", $0) }.joined()
            #expect(hex.hasPrefix("4"))
            let length = try #require(Int(String(Array(hex)[1]), radix: 16))
            return String(Array(hex)[2..<(2 + length)])
        }

        /// A format 4 block for `pin` under `key` and `token`: E(E(PIN field) ⊕ PAN field).
        static func pinBlock(_ pin: String, token: String, key: SymmetricKey) throws -> String {
            var field = try bytes(
                hex: "4\(pin.count)\(pin)" + String(repeating: "A", count: 14 - pin.count) + "0123456789ABCDEF")
            try AES.permute(&field, key: key)
            for (index, byte) in try panField(token).enumerated() { field[index] ^= byte }
            try AES.permute(&field, key: key)
            return field.map { String(format: "%02X", $0) }.joined()
        }

        /// A 16-digit token the app makes for a PIN change (Adyen's change-pin page: "Generate an encryption token").
        static func token() -> String { "7" + (0..<15).map { _ in String(Int.random(in: 0...9)) }.joined() }
    }

    /// A settable wall clock for the gateway (the adapter reads public keys' expiry against it).
    final class Now: Sendable {
        private let date = Mutex(Date(timeIntervalSince1970: 1_798_000_000))  // 2026-12-23
        var value: Date { date.withLock { $0 } }
        func advance(by seconds: TimeInterval) { date.withLock { $0 += seconds } }
    }

    struct Setup {
        let gateway: CardGateway
        let wire: RecordingTransport
        let now: Now
        let capture: LogCapture
        let route = RouteTarget.key(RouteKey(issuer: "adyen"))
        var context: OperationContext { OperationContext(logger: capture.logger(level: .trace)) }
    }

    static func setup(
        _ handle: SimulatorHandle, apiKey: String = AdyenSimulator.Credentials.apiKey, maxAttempts: Int = 1
    ) throws -> Setup {
        var registry = ProviderRegistry()
        registry.register(.adyen)
        let json = """
            {"providers": {"adyen-sim": {"kind": "adyen", "baseURL": "\(handle.baseURL.absoluteString)", "maxAttempts": \(maxAttempts),
               "credentials": {"apiKey": "env:ADYEN_KEY"}}},
             "routes": [{"when": {"issuer": "adyen"}, "use": "adyen-sim"}]}
            """
        let configuration = try GatewayConfiguration.load(
            from: Data(json.utf8), registry: registry, secrets: SecretResolver(environment: ["ADYEN_KEY": apiKey]))
        let capture = LogCapture()
        let wire = RecordingTransport(AsyncHTTPClientTransport())
        let now = Now()
        let gateway = try CardGateway(
            configuration: configuration, registry: registry, transport: wire, logger: capture.logger(level: .trace),
            now: { now.value })
        return Setup(gateway: gateway, wire: wire, now: now, capture: capture)
    }

    /// A simulator whose clock stands at the gateway's start date.
    static func simulator() -> AdyenSimulator {
        AdyenSimulator(clock: SimulationClock(fixed: Date(timeIntervalSince1970: 1_798_000_000)))
    }

    @Test("card details: the app decrypts the seeded card's number, expiry and CVC that only its key opens")
    func cardDetails() async throws {
        try await withSimulator(Self.simulator()) { handle in
            let setup = try Self.setup(handle)
            let card = CardRef(id: Seed.activeVisaID)
            let offer = try await setup.gateway.revealOffer(
                for: card, purpose: .cardDetails, via: setup.route, context: setup.context)
            #expect(offer.provider == "adyen-sim")
            #expect(offer.flow == .encryptedSessionKey)
            #expect(offer.requires == [.encryptedKey])
            #expect(offer.publicKey?.format == "pem")
            // The simulator's key expires 30 days after it was made, at the start of that day (UTC): the date it gave.
            let expires = try #require(offer.publicKey?.expires)
            #expect(
                expires > setup.now.value.addingTimeInterval(29 * 86_400)
                    && expires <= setup.now.value.addingTimeInterval(30 * 86_400))

            let app = try App.session(offer)
            let session = try await setup.gateway.revealSession(
                RevealSessionRequest(card: card, purpose: .cardDetails, encryptedKey: Secret(app.encryptedKey)),
                via: setup.route, context: setup.context
            )
            #expect(session.flow == .encryptedSessionKey)
            #expect(session.material.kind == "encryptedData")
            let details = try App.cardDetails(session.material, key: app.key)
            #expect(details["pan"] as? String == Seed.cardNumber(of: Seed.activeVisaID))
            #expect(
                (details["pan"] as? String)?.hasPrefix("491761") == true
                    && (details["pan"] as? String)?.hasSuffix("4321") == true)
            #expect(details["cvc"] as? String == Seed.cvc(of: Seed.activeVisaID))
            #expect((details["expiration"] as? [String: Any])?["month"] as? String == "03")
            #expect((details["expiration"] as? [String: Any])?["year"] as? String == "2030")
            // Another key cannot open it.
            #expect(throws: (any Error).self) {
                try App.cardDetails(session.material, key: SymmetricKey(size: .bits256))
            }

            // On the wire: the card read (offer and session alike), the public key for panReveal in pem, the card read
            // again, then the reveal with exactly the app's values.
            let requests = setup.wire.requests
            let instrument = "/bcl/v2/paymentInstruments/\(Seed.activeVisaID)"
            #expect(
                requests.map(\.pathWithoutQuery) == [
                    instrument, "/bcl/v2/publicKey", instrument, "/bcl/v2/paymentInstruments/reveal",
                ])
            #expect(requests.map(\.method) == ["GET", "GET", "GET", "POST"])
            #expect(requests[1].queryItems.map { "\($0.name)=\($0.value)" } == ["purpose=panReveal", "format=pem"])
            #expect(requests[3].header("Content-Type") == "application/json")
            #expect(requests[3].header("X-API-Key") == AdyenSimulator.Credentials.apiKey)
            #expect(
                requests[3].jsonBody
                    == .object([
                        "paymentInstrumentId": .string(Seed.activeVisaID), "encryptedKey": .string(app.encryptedKey),
                    ]))
            // The journal masks the encrypted key.
            let journaled = try #require(
                handle.journal.entries(method: "POST", pathContains: "/paymentInstruments/reveal").first)
            #expect(!String(decoding: journaled.body, as: UTF8.self).contains(app.encryptedKey))
        }
    }

    @Test("PIN: reveal shows the seeded PIN, a change with the app's block and token, then a reveal shows the new PIN")
    func pinRevealAndChange() async throws {
        try await withSimulator(Self.simulator()) { handle in
            let setup = try Self.setup(handle)
            let card = CardRef(id: Seed.activeMastercardID)
            let offer = try await setup.gateway.revealOffer(
                for: card, purpose: .pinReveal, via: setup.route, context: setup.context)
            #expect(offer.requires == [.encryptedKey])
            let app = try App.session(offer)
            let revealed = try await setup.gateway.revealSession(
                RevealSessionRequest(card: card, purpose: .pinReveal, encryptedKey: Secret(app.encryptedKey)),
                via: setup.route, context: setup.context
            )
            #expect(revealed.material.kind == "encryptedPINBlock")
            #expect(revealed.material.pinToken?.revealedValue.count == 16)
            #expect(try App.pin(revealed.material, key: app.key) == Seed.initialPIN(of: Seed.activeMastercardID))

            // The change: its own public key, session key, token and block.
            let changeOffer = try await setup.gateway.revealOffer(
                for: card, purpose: .pinChange, via: setup.route, context: setup.context)
            #expect(changeOffer.requires == [.encryptedKey, .encryptedPINBlock, .pinToken])
            #expect(changeOffer.publicKey?.value != offer.publicKey?.value)
            let changeApp = try App.session(changeOffer)
            let token = App.token()
            let block = try App.pinBlock("4826", token: token, key: changeApp.key)
            let changed = try await setup.gateway.revealSession(
                RevealSessionRequest(
                    card: card, purpose: .pinChange, encryptedKey: Secret(changeApp.encryptedKey),
                    encryptedPINBlock: Secret(block), pinToken: Secret(token)),
                via: setup.route, context: setup.context
            )
            #expect(changed.material.pinChangeStatus == .completed)
            let change = try #require(setup.wire.requests.last)
            #expect(change.pathWithoutQuery == "/bcl/v2/pins/change")
            #expect(
                change.jsonBody
                    == .object([
                        "paymentInstrumentId": .string(Seed.activeMastercardID),
                        "encryptedKey": .string(changeApp.encryptedKey),
                        "encryptedPinBlock": .string(block), "token": .string(token),
                    ]))

            // The same token again is refused (a new session key, so only the token is reused).
            let again = try App.session(changeOffer)
            let reused = await gatewayError {
                _ = try await setup.gateway.revealSession(
                    RevealSessionRequest(
                        card: card, purpose: .pinChange, encryptedKey: Secret(again.encryptedKey),
                        encryptedPINBlock: Secret(try App.pinBlock("1111", token: token, key: again.key)),
                        pinToken: Secret(token)
                    ),
                    via: setup.route, context: setup.context
                )
            }
            #expect(reused?.code == .invalidRequest)
            #expect(reused?.providerCode == AdyenSimulatorErrors.pinTokenUsed)
            #expect(reused?.httpStatus == 422)

            // A later reveal (its public key from the cache) shows the new PIN.
            let later = try App.session(
                try await setup.gateway.revealOffer(
                    for: card, purpose: .pinReveal, via: setup.route, context: setup.context))
            let after = try await setup.gateway.revealSession(
                RevealSessionRequest(card: card, purpose: .pinReveal, encryptedKey: Secret(later.encryptedKey)),
                via: setup.route, context: setup.context
            )
            #expect(try App.pin(after.material, key: later.key) == "4826")
            #expect(after.material.pinToken != revealed.material.pinToken)
            let keyRequests = setup.wire.requests.filter { $0.pathWithoutQuery == "/bcl/v2/publicKey" }.map {
                $0.queryItems.first?.value ?? ""
            }
            #expect(keyRequests == ["pinReveal", "pinChange"])
        }
    }

    @Test("the public key is asked for once while it is fresh and again once it expires; an expired key is refused")
    func publicKeyCache() async throws {
        let simulator = Self.simulator()
        try await withSimulator(simulator) { handle in
            let setup = try Self.setup(handle)
            let card = CardRef(id: Seed.activeVisaID)
            func keyRequests() -> Int { handle.journal.entries(method: "GET", pathContains: "/publicKey").count }
            let first = try await setup.gateway.revealOffer(
                for: card, purpose: .cardDetails, via: setup.route, context: setup.context)
            let oldApp = try App.session(first)
            for _ in 0..<3 {
                _ = try await setup.gateway.revealOffer(
                    for: card, purpose: .cardDetails, via: setup.route, context: setup.context)
            }
            #expect(keyRequests() == 1)
            // Another purpose is another key.
            _ = try await setup.gateway.revealOffer(
                for: card, purpose: .pinReveal, via: setup.route, context: setup.context)
            #expect(keyRequests() == 2)

            // Just before the refresh margin the cached key is still handed out…
            let expires = try #require(first.publicKey?.expires)
            setup.now.advance(by: expires.timeIntervalSince(setup.now.value) - AdyenAPI.publicKeyRefreshMargin - 1)
            let cached = try await setup.gateway.revealOffer(
                for: card, purpose: .cardDetails, via: setup.route, context: setup.context)
            #expect(cached.publicKey == first.publicKey)
            #expect(keyRequests() == 2)
            // …within it, a new one is asked for. Adyen (the simulator) has moved past the expiry and made a new key.
            setup.now.advance(by: 2)
            simulator.simulationClock.set(expires.addingTimeInterval(1))
            let renewed = try await setup.gateway.revealOffer(
                for: card, purpose: .cardDetails, via: setup.route, context: setup.context)
            #expect(keyRequests() == 3)
            #expect(renewed.publicKey?.value != first.publicKey?.value)
            #expect((renewed.publicKey?.expires ?? .distantPast) > expires)

            // A session key encrypted with the expired key is refused by Adyen, mapped.
            let refused = await gatewayError {
                _ = try await setup.gateway.revealSession(
                    RevealSessionRequest(card: card, purpose: .cardDetails, encryptedKey: Secret(oldApp.encryptedKey)),
                    via: setup.route, context: setup.context
                )
            }
            #expect(refused?.code == .invalidRequest)
            #expect(refused?.providerCode == AdyenSimulatorErrors.invalidEncryptedKey)
            #expect(refused?.fieldErrors.map(\.field) == ["encryptedKey"])
        }
    }

    @Test("wrong inputs are refused before any request")
    func refusedBeforeSending() async throws {
        try await withSimulator(Self.simulator()) { handle in
            let setup = try Self.setup(handle)
            let card = CardRef(id: Seed.activeVisaID)
            let key = Secret(String(repeating: "AB", count: 256))
            let requests: [(String, RevealSessionRequest, String)] = [
                ("no key", RevealSessionRequest(card: card, purpose: .cardDetails), "encryptedKey"),
                (
                    "empty key", RevealSessionRequest(card: card, purpose: .cardDetails, encryptedKey: Secret("")),
                    "encryptedKey"
                ),
                (
                    "key not hex or Base64",
                    RevealSessionRequest(card: card, purpose: .cardDetails, encryptedKey: Secret("zz-not-a-key")),
                    "encryptedKey"
                ),
                (
                    "key too short",
                    RevealSessionRequest(card: card, purpose: .cardDetails, encryptedKey: Secret("ABCD")),
                    "encryptedKey"
                ),
                (
                    "a nonce is not taken",
                    RevealSessionRequest(
                        card: card, purpose: .cardDetails, clientNonce: Secret("nonce"), encryptedKey: key),
                    "clientNonce"
                ),
                (
                    "a block is not taken for details",
                    RevealSessionRequest(
                        card: card, purpose: .cardDetails, encryptedKey: key,
                        encryptedPINBlock: Secret("00112233445566778899AABBCCDDEEFF")), "encryptedPINBlock"
                ),
                (
                    "change without token",
                    RevealSessionRequest(
                        card: card, purpose: .pinChange, encryptedKey: key,
                        encryptedPINBlock: Secret("00112233445566778899AABBCCDDEEFF")), "pinToken"
                ),
                (
                    "change, token not 16 digits",
                    RevealSessionRequest(
                        card: card, purpose: .pinChange, encryptedKey: key,
                        encryptedPINBlock: Secret("00112233445566778899AABBCCDDEEFF"), pinToken: Secret("12345")),
                    "pinToken"
                ),
                (
                    "change, block not one AES block",
                    RevealSessionRequest(
                        card: card, purpose: .pinChange, encryptedKey: key, encryptedPINBlock: Secret("0011"),
                        pinToken: Secret("1234567890123456")), "encryptedPINBlock"
                ),
                (
                    "card id with a control character",
                    RevealSessionRequest(card: CardRef(id: "PI32\n"), purpose: .pinReveal, encryptedKey: key), "card.id"
                ),
                (
                    "card id with a slash",
                    RevealSessionRequest(card: CardRef(id: "PI/../x"), purpose: .pinReveal, encryptedKey: key),
                    "card.id"
                ),
            ]
            for (name, request, field) in requests {
                let error = await gatewayError {
                    _ = try await setup.gateway.revealSession(request, via: setup.route, context: setup.context)
                }
                #expect(error?.code == .invalidRequest, "\(name)")
                #expect(
                    error?.fieldErrors.contains { $0.field == field } == true,
                    "\(name): \(error?.fieldErrors.map(\.field) ?? [])")
                // And the adapter alone refuses the same (it does not rely on the gateway's check).
                let adapter = try SimulatorFixture.provider(handle)
                let direct = await gatewayError {
                    _ = try await adapter.revealSession(request, context: OperationContext())
                }
                #expect(direct?.code == .invalidRequest, "\(name), adapter")
            }
            let badOffer = await gatewayError {
                _ = try await setup.gateway.revealOffer(for: CardRef(id: ""), purpose: .cardDetails, via: setup.route)
            }
            #expect(badOffer?.code == .invalidRequest)
            #expect(handle.journal.count == 0)
            #expect(setup.wire.requests.isEmpty)
        }
    }

    @Test(
        "Adyen's refusals are mapped: a key for another purpose, a reused key, a missing role, an unknown and a closed card"
    )
    func refusals() async throws {
        try await withSimulator(Self.simulator()) { handle in
            let setup = try Self.setup(handle)
            let card = CardRef(id: Seed.activeVisaID)
            // A session key encrypted with the PIN reveal key, used for card details.
            let pinOffer = try await setup.gateway.revealOffer(
                for: card, purpose: .pinReveal, via: setup.route, context: setup.context)
            _ = try await setup.gateway.revealOffer(
                for: card, purpose: .cardDetails, via: setup.route, context: setup.context)
            let pinApp = try App.session(pinOffer)
            let crossed = await gatewayError {
                _ = try await setup.gateway.revealSession(
                    RevealSessionRequest(card: card, purpose: .cardDetails, encryptedKey: Secret(pinApp.encryptedKey)),
                    via: setup.route, context: setup.context)
            }
            #expect(crossed?.code == .invalidRequest)
            #expect(crossed?.providerCode == AdyenSimulatorErrors.invalidEncryptedKey)

            // A repeat makes a new request: the same encrypted key twice reaches Adyen twice, and Adyen refuses the second.
            let app = try App.session(
                try await setup.gateway.revealOffer(
                    for: card, purpose: .cardDetails, via: setup.route, context: setup.context))
            let request = RevealSessionRequest(
                card: card, purpose: .cardDetails, encryptedKey: Secret(app.encryptedKey))
            _ = try await setup.gateway.revealSession(request, via: setup.route, context: setup.context)
            let replayed = await gatewayError {
                _ = try await setup.gateway.revealSession(request, via: setup.route, context: setup.context)
            }
            #expect(replayed?.providerCode == AdyenSimulatorErrors.sessionKeyUsed)
            #expect(handle.journal.entries(method: "POST", pathContains: "/paymentInstruments/reveal").count == 3)

            // Unknown and closed cards.
            let unknown = await gatewayError {
                _ = try await setup.gateway.revealSession(
                    RevealSessionRequest(
                        card: CardRef(id: "PI3227C223222B5UNKNOWN0000"), purpose: .pinReveal,
                        encryptedKey: Secret(try App.session(pinOffer).encryptedKey)),
                    via: setup.route, context: setup.context
                )
            }
            #expect(unknown?.code == .notFound)
            let pinPostsBefore = handle.journal.entries(method: "POST", pathContains: "/pins/reveal").count
            let closed = await gatewayError {
                _ = try await setup.gateway.revealSession(
                    RevealSessionRequest(
                        card: CardRef(id: Seed.closedMastercardID), purpose: .pinReveal,
                        encryptedKey: Secret(try App.session(pinOffer).encryptedKey)),
                    via: setup.route, context: setup.context
                )
            }
            // The session reads the card as the offer does: a closed card is refused before anything is sent to reveal.
            #expect(closed?.code == .invalidCardState)
            #expect(handle.journal.entries(method: "POST", pathContains: "/pins/reveal").count == pinPostsBefore)
            for (id, code) in [
                (Seed.closedMastercardID, CardGatewayError.Code.invalidCardState),
                (Seed.bankAccountID, .invalidRequest),
            ] {
                let keysBefore = handle.journal.entries(method: "GET", pathContains: "/publicKey").count
                let refused = await gatewayError {
                    _ = try await setup.gateway.revealOffer(
                        for: CardRef(id: id), purpose: .pinChange, via: setup.route, context: setup.context)
                }
                #expect(refused?.code == code, "offer for \(id)")
                #expect(handle.journal.entries(method: "GET", pathContains: "/publicKey").count == keysBefore)
            }

            // A credential without the reveal roles: 403, naming the role of the purpose (PIN purposes: the PIN roles).
            let limited = try Self.setup(handle, apiKey: AdyenSimulator.Credentials.apiKeyWithoutActivationRole)
            let denied = await gatewayError {
                _ = try await limited.gateway.revealOffer(
                    for: card, purpose: .cardDetails, via: limited.route, context: limited.context)
            }
            #expect(denied?.code == .permissionDenied)
            #expect(denied?.message.contains(AdyenAPI.panRevealRole) == true)
            for (purpose, role) in [
                (RevealPurpose.pinReveal, AdyenAPI.pinRevealRole), (.pinChange, AdyenAPI.pinChangeRole),
            ] {
                let pinDenied = await gatewayError {
                    _ = try await limited.gateway.revealOffer(
                        for: card, purpose: purpose, via: limited.route, context: limited.context)
                }
                #expect(pinDenied?.code == .permissionDenied)
                #expect(pinDenied?.message.contains(role) == true, "\(purpose): \(pinDenied?.message ?? "")")
                #expect(pinDenied?.message.contains(AdyenAPI.panRevealRole) == false)
            }
        }
    }

    @Test(
        "a reveal session whose connection dropped after Adyen read it is not repeated: one call, mayHaveReachedProvider"
    )
    func sessionNotRepeated() async throws {
        try await withSimulator(Self.simulator()) { handle in
            let setup = try Self.setup(handle, maxAttempts: 3)
            let card = CardRef(id: Seed.activeVisaID)
            // A read is repeated after a dropped connection (so the gateway does retry here)…
            handle.faults.inject(
                FaultRule(count: 1, pathPrefix: "/bcl/v2/publicKey", method: "GET", action: .dropConnection))
            let detailsOffer = try await setup.gateway.revealOffer(
                for: card, purpose: .cardDetails, via: setup.route, context: setup.context)
            #expect(handle.journal.entries(method: "GET", pathContains: "/publicKey").count == 2)
            let pinOffer = try await setup.gateway.revealOffer(
                for: card, purpose: .pinReveal, via: setup.route, context: setup.context)

            // …a session is not: Adyen's encrypted session key serves one request.
            for (path, request) in [
                (
                    "/bcl/v2/paymentInstruments/reveal",
                    RevealSessionRequest(
                        card: card, purpose: .cardDetails,
                        encryptedKey: Secret(try App.session(detailsOffer).encryptedKey))
                ),
                (
                    "/bcl/v2/pins/reveal",
                    RevealSessionRequest(
                        card: card, purpose: .pinReveal, encryptedKey: Secret(try App.session(pinOffer).encryptedKey))
                ),
            ] {
                handle.faults.inject(FaultRule(count: 1, pathPrefix: path, method: "POST", action: .dropConnection))
                let dropped = await gatewayError {
                    _ = try await setup.gateway.revealSession(request, via: setup.route, context: setup.context)
                }
                #expect(dropped != nil, "\(path): the session succeeded")
                #expect(dropped?.mayHaveReachedProvider == true, "\(path)")
                #expect(dropped?.isRetryable == false, "\(path)")
                #expect(handle.journal.entries(method: "POST", pathContains: path).count == 1, "\(path)")
            }
        }
    }

    @Test("nothing sensitive in the journal, the logs, descriptions or error descriptions")
    func redaction() async throws {
        try await withSimulator(Self.simulator()) { handle in
            let setup = try Self.setup(handle)
            let card = CardRef(id: Seed.activeMastercardID)
            var needles: [String] = [AdyenSimulator.Credentials.apiKey]
            var descriptions: [String] = []
            func note(_ key: SymmetricKey) {
                key.withUnsafeBytes {
                    needles += [
                        Data($0).base64EncodedString(), $0.map { String(format: "%02x", $0) }.joined(),
                        $0.map { String(format: "%02X", $0) }.joined(),
                    ]
                }
            }

            let details = try App.session(
                try await setup.gateway.revealOffer(
                    for: card, purpose: .cardDetails, via: setup.route, context: setup.context))
            note(details.key)
            let detailsSession = try await setup.gateway.revealSession(
                RevealSessionRequest(card: card, purpose: .cardDetails, encryptedKey: Secret(details.encryptedKey)),
                via: setup.route, context: setup.context
            )
            let cardData = try App.cardDetails(detailsSession.material, key: details.key)
            needles += [
                details.encryptedKey, try #require(detailsSession.material.encryptedData?.revealedValue),
                try #require(cardData["pan"] as? String),
            ]
            descriptions += [
                detailsSession.description, String(describing: detailsSession.material),
                String(reflecting: detailsSession),
            ]

            let pin = try App.session(
                try await setup.gateway.revealOffer(
                    for: card, purpose: .pinReveal, via: setup.route, context: setup.context))
            note(pin.key)
            let pinSession = try await setup.gateway.revealSession(
                RevealSessionRequest(card: card, purpose: .pinReveal, encryptedKey: Secret(pin.encryptedKey)),
                via: setup.route, context: setup.context
            )
            needles += [
                pin.encryptedKey, try #require(pinSession.material.encryptedPINBlock?.revealedValue),
                try #require(pinSession.material.pinToken?.revealedValue),
            ]
            descriptions += [pinSession.description, String(reflecting: pinSession)]

            let change = try App.session(
                try await setup.gateway.revealOffer(
                    for: card, purpose: .pinChange, via: setup.route, context: setup.context))
            note(change.key)
            let token = App.token()
            let block = try App.pinBlock("9183", token: token, key: change.key)
            let changeRequest = RevealSessionRequest(
                card: card, purpose: .pinChange, encryptedKey: Secret(change.encryptedKey),
                encryptedPINBlock: Secret(block), pinToken: Secret(token))
            let changed = try await setup.gateway.revealSession(changeRequest, via: setup.route, context: setup.context)
            needles += [change.encryptedKey, block, token]
            descriptions += [changed.description, changeRequest.description, String(reflecting: changeRequest)]
            // Refusals: the reused token and a key that does not decrypt.
            for request in [
                changeRequest,
                RevealSessionRequest(card: card, purpose: .cardDetails, encryptedKey: Secret(change.encryptedKey)),
            ] {
                let error = await gatewayError {
                    _ = try await setup.gateway.revealSession(request, via: setup.route, context: setup.context)
                }
                descriptions += [String(describing: error), String(reflecting: error), error?.message ?? ""]
            }

            #expect(!setup.capture.all.isEmpty)
            #expect(
                setup.capture.leaks(of: needles).isEmpty, "\(setup.capture.leaks(of: needles).map { $0.prefix(6) })")
            let journal = handle.journal.entries().map { entry in
                [entry.path, entry.query ?? "", String(decoding: entry.body, as: UTF8.self)].joined(separator: " ")
                    + entry.headers.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
            }.joined(separator: "\n")
            #expect(handle.journal.count >= 6)
            for needle in needles {
                #expect(!journal.contains(needle), "the journal holds a sensitive value \(needle.prefix(4))…")
                #expect(
                    !descriptions.joined().contains(needle),
                    "a description holds a sensitive value \(needle.prefix(4))…")
            }
            // The PIN itself (four digits): never next to a name in logs or descriptions.
            #expect(!setup.capture.text.contains("9183") && !descriptions.joined().contains("9183"))
        }
    }

    @Test(
        "Adyen's published examples: the public key's date-only expiry, the PIN block and token relayed verbatim, the change's body shape"
    )
    func publishedExamples() async throws {
        func text(_ name: String) throws -> String {
            String(decoding: try Data(contentsOf: PublishedShape.fixtureURL(name)), as: UTF8.self)
        }
        // Each step reads the card first (the published instrument example, an active card).
        let instrument = try text("payment-instrument.json")
        let transport = ScriptedTransport([
            .json(200, instrument), .json(200, try text("public-key-200.json")), .json(200, instrument),
            .json(200, try text("pins-reveal-200.json")), .json(200, instrument),
            .json(200, try text("pins-change-200.json")),
        ])
        let provider = try Fixture.provider(transport)
        let card = CardRef(id: "PI3227C223222B5BPCMFXD2XG")
        let offer = try await provider.revealOffer(for: card, purpose: .pinReveal, context: OperationContext())
        #expect(offer.publicKey?.value == "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMII...")
        #expect(offer.publicKey?.expires == Date(timeIntervalSince1970: 1_702_339_200))  // 2023-12-12T00:00:00Z
        let key = String(repeating: "75989E8881284D10153ABACF022EEA09", count: 8)
        let session = try await provider.revealSession(
            RevealSessionRequest(card: card, purpose: .pinReveal, encryptedKey: Secret(key)),
            context: OperationContext())
        #expect(session.material.encryptedPINBlock?.revealedValue == "63E5060591EF65F48DD1D4FECD0FECD5")
        #expect(session.material.pinToken?.revealedValue == "5555341244441115")
        let sent = try #require(transport.requests[3].jsonBody)
        #expect(PublishedShape.differences(sent, from: try PublishedShape.fixture("pins-reveal-request.json")) == [])

        let change = try await provider.revealSession(
            RevealSessionRequest(
                card: CardRef(id: "PI6789678967896789"), purpose: .pinChange, encryptedKey: Secret(key),
                encryptedPINBlock: Secret("63E5060591EF65F48DD1D4FECD0FECD5"), pinToken: Secret("5555341244441115")
            ),
            context: OperationContext()
        )
        #expect(change.material.pinChangeStatus == .completed)
        let changeBody = try #require(transport.requests[5].jsonBody)
        #expect(
            PublishedShape.differences(changeBody, from: try PublishedShape.fixture("pins-change-request.json")) == [])
        #expect(changeBody["encryptedPinBlock"] == .string("63E5060591EF65F48DD1D4FECD0FECD5"))
        #expect(changeBody["token"] == .string("5555341244441115"))
        // The key already expired (2023): it was not cached, so the next offer asks again.
        transport.enqueue(.json(200, instrument))
        transport.enqueue(.json(200, try text("public-key-200.json")))
        _ = try await provider.revealOffer(for: card, purpose: .pinReveal, context: OperationContext())
        #expect(transport.requests.filter { $0.pathWithoutQuery.hasSuffix("/publicKey") }.count == 2)
    }

    @Test("a Base64 encrypted key and PIN block are sent as hexadecimal")
    func base64Input() async throws {
        let transport = ScriptedTransport([
            .json(200, Fixture.instrument(id: "PI6789678967896789")), .json(200, #"{"status":"completed"}"#),
        ])
        let provider = try Fixture.provider(transport)
        let key = Data((0..<256).map { UInt8($0) })
        let block = Data((0..<16).map { UInt8(200 + $0) })
        _ = try await provider.revealSession(
            RevealSessionRequest(
                card: CardRef(id: "PI6789678967896789"), purpose: .pinChange,
                encryptedKey: Secret(key.base64EncodedString()),
                encryptedPINBlock: Secret(block.base64EncodedString()), pinToken: Secret("5555341244441115")
            ),
            context: OperationContext()
        )
        let body = try #require(transport.requests.last?.jsonBody)
        #expect(body["encryptedKey"] == .string(key.map { String(format: "%02X", $0) }.joined()))
        #expect(body["encryptedPinBlock"] == .string(block.map { String(format: "%02X", $0) }.joined()))
    }
}
