import BridgeSimulator
import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Crypto
import Foundation
import HTTPTypes
import SharedTestSupport
import Testing
import _CryptoExtras

@testable import CardGatewayBridge

@Suite("Bridge adapter: webhooks", .timeLimit(.minutes(5)))
struct BridgeWebhookTests {
    /// The endpoint's key pair for these tests.
    static let endpointKey: _RSA.Signing.PrivateKey = {
        do { return try _RSA.Signing.PrivateKey(keySize: .bits2048) } catch {
            fatalError("RSA key generation failed: \(error)")
        }
    }()

    static let now = Date(timeIntervalSince1970: 1_767_323_045)
    static var nowMilliseconds: Int64 { Int64(now.timeIntervalSince1970 * 1000) }

    static func body(
        category: String = "card_account", type: String = "card_account.updated.status_transitioned",
        object: String? = nil, changes: String = #"{"status":["active","frozen"]}"#
    ) -> Data {
        let eventObject =
            object ?? """
                {"id":"\(BridgeFixtures.cardAccount)","customer_id":"\(BridgeFixtures.customer)","status":"frozen",\
                "freezes":[{"initiator":"customer","reason":"lost_or_stolen"}]}
                """
        return Data(
            """
            {"api_version":"v0","event_id":"wh_evt_1","event_developer_id":"dev_1","event_sequence":7,\
            "event_category":"\(category)","event_type":"\(type)","event_object_id":"\(BridgeFixtures.cardAccount)",\
            "event_object_status":"frozen","event_object":\(eventObject),"event_object_changes":\(changes),\
            "event_created_at":"2026-01-02T03:04:05.000Z"}
            """.utf8)
    }

    /// Signs as Bridge does: RSA PKCS#1 v1.5 with SHA-256 over the SHA-256 digest of "<t>.<body>".
    static func signature(_ body: Data, timestamp: Int64, key: _RSA.Signing.PrivateKey = endpointKey) throws -> String {
        var message = Data("\(timestamp).".utf8)
        message.append(body)
        let signature = try key.signature(for: Data(SHA256.hash(data: message)), padding: .insecurePKCS1v1_5)
        return "t=\(timestamp),v0=\(signature.rawRepresentation.base64EncodedString())"
    }

    /// Bridge's published test data for webhook signature verification: its public key, a signature header and
    /// the raw body it signs.
    enum PublishedVector {
        static let publicKey = """
            -----BEGIN PUBLIC KEY-----
            MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtqsEE4eI7EmzhcquGJXt
            LX9PMK0UH6Kl1WIR21sv8HtueG8BuvvpP3MiN7ltzmIhS8KaynCjN4l+620PnXeu
            xWG+CSnEdkinL9hCqbEid5vv9zl0j9LWiJx3FkKHqADU7cgm46aa8dKUdIQYF2X+
            O7WmyLkC4wUM/mWhBPMsIQBznashRMZxx7XJjsVp27ACUE4eNIjEXbVYN6U8jSbU
            hG++CfL8xXu+GHDqKmFE6Po6HnuURvLFVnCtE3mXXBcVFlPy+octfx8nOMLT3X8O
            9UehIigJ34o2yMm/Fq3HUJzg2BsiAiGgtr0vmeoV9Q7upSNj9TuOumAzZFi4pYA+
            qwIDAQAB
            -----END PUBLIC KEY-----
            """
        static let header =
            "t=1705854411204,v0=jz/0dmHJ63FAzacGutrDTEoq+iSz/PHm/ugdooXDQu5NwuVIT2LmZGjsnCsBHgR9Py6OBP9zurzW4dHgygU4EDqmMPTUOvhvndYb4lWt+TY66LihaFI2whL6DAf/jb1QjYjNU0A6x9SLzC45dgE6X7zTDUM+2Z+scG/WEQf6SxQMt4E2sEipl5PqMK5lYUe3otdJV+X2c9D64bGwCEE7QSia+Vhozg8QNOQEk/rdz2IEONIg6oC43CeiN4E2kF9XLAGuy9uAHx9O9OJH5ZPLJZjyo4VcXYeWQgxaQ1gZ1Qu6hEEzgiPSff/1nou58dm4bIIazgCWli/mO0NyGcpfFw=="
        static let body = Data(#"{"message":"Hello World!"}"#.utf8)
        static let signedAt = Date(timeIntervalSince1970: 1_705_854_411.204)
    }

    @Test("Bridge's published test vector verifies; the same header over a changed body does not")
    func publishedVector() throws {
        let provider = try provider(publicKey: PublishedVector.publicKey)
        // The body is not an event, so a verified delivery then fails as an invalid event, not as a bad signature.
        let accepted = gatewayError {
            _ = try provider.verify(
                Self.delivery(PublishedVector.body, header: PublishedVector.header),
                now: PublishedVector.signedAt.addingTimeInterval(1))
        }
        #expect(accepted?.code == .invalidResponse)
        let tampered = gatewayError {
            _ = try provider.verify(
                Self.delivery(Data(#"{"message":"Hello World?"}"#.utf8), header: PublishedVector.header),
                now: PublishedVector.signedAt.addingTimeInterval(1))
        }
        #expect(tampered?.code == .signatureInvalid)
    }

    @Test("a signature over the joined data itself (one hash pass) is refused")
    func singleHashIsRefused() throws {
        let body = Self.body()
        var message = Data("\(Self.nowMilliseconds).".utf8)
        message.append(body)
        let single = try Self.endpointKey.signature(for: message, padding: .insecurePKCS1v1_5)
        let header = "t=\(Self.nowMilliseconds),v0=\(single.rawRepresentation.base64EncodedString())"
        let error = gatewayError { _ = try provider().verify(Self.delivery(body, header: header), now: Self.now) }
        #expect(error?.code == .signatureInvalid)
    }

    static func delivery(_ body: Data, header: String?) -> WebhookDelivery {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        if let header { fields[HTTPField.Name("X-Webhook-Signature")!] = header }
        return WebhookDelivery(headers: fields, body: body)
    }

    private func provider(
        publicKey: String? = BridgeWebhookTests.endpointKey.publicKey.pemRepresentation
    ) throws -> BridgeProvider {
        try BridgeFixtures.provider(ScriptedTransport([]), webhookPublicKey: publicKey)
    }

    @Test func validDeliveryGivesACardStatusChange() throws {
        let body = Self.body()
        let events = try provider().verify(
            Self.delivery(body, header: try Self.signature(body, timestamp: Self.nowMilliseconds - 5_000)),
            now: Self.now)
        #expect(events.count == 1)
        let event = try #require(events.first)
        #expect(event.id == "wh_evt_1")
        #expect(event.providerKind == .bridge)
        #expect(event.providerType == "card_account.updated.status_transitioned")
        #expect(event.occurredAt == Self.now)
        guard let change = event.event.cardStatusChanged else {
            Issue.record("expected a card status change")
            return
        }
        #expect(change.card == BridgeFixtures.ref)
        #expect(change.providerOldStatus == "active")
        #expect(change.oldStatus == .active)
        #expect(change.providerNewStatus == "frozen")
        #expect(change.newStatus == .locked)
    }

    @Test func developerFreezeIsSuspendedAndMissingChangesLeaveNoOldStatus() throws {
        let body = Self.body(
            type: "card_account.updated",
            object:
                #"{"id":"x1","customer_id":"c1","status":"frozen","freezes":[{"initiator":"developer","reason":"suspected_fraud"}]}"#,
            changes: "{}"
        )
        let events = try provider().verify(
            Self.delivery(body, header: try Self.signature(body, timestamp: Self.nowMilliseconds)), now: Self.now)
        guard let change = events.first?.event.cardStatusChanged else {
            Issue.record("expected a card status change")
            return
        }
        #expect(change.newStatus == .suspended)
        #expect(change.oldStatus == nil)
        #expect(change.providerOldStatus == nil)
    }

    @Test func otherCategoriesGiveNoEvents() throws {
        for category in [
            "customer", "card_transaction", "card_withdrawal", "posted_card_account_transaction", "transfer",
        ] {
            let body = Self.body(
                category: category, type: "\(category).created", object: #"{"id":"t1","status":"active"}"#)
            let events = try provider().verify(
                Self.delivery(body, header: try Self.signature(body, timestamp: Self.nowMilliseconds)), now: Self.now)
            #expect(events.isEmpty, "\(category)")
        }
    }

    @Test(
        "categories and types Bridge documents beyond its spec (card_dispute) or adds later are ignored and logged, not an error"
    )
    func unknownCategoriesAreIgnoredAndLogged() throws {
        for (category, type) in [
            ("card_dispute", "card_dispute.created"), ("brand_new_category", "brand_new_category.updated.whatever"),
        ] {
            let body = Self.body(category: category, type: type, object: #"{"id":"d1","status":"open"}"#)
            #expect(
                try provider().verify(
                    Self.delivery(body, header: try Self.signature(body, timestamp: Self.nowMilliseconds)),
                    now: Self.now
                ).isEmpty)
            let capture = LogCapture()
            #expect(try BridgeWebhooks.events(from: body, logger: capture.logger(level: .debug)).isEmpty)
            let record = try #require(capture.all.first)
            #expect(record.level == .debug)
            #expect(record.metadata["bridge.event_category"] == category)
            #expect(record.metadata["bridge.event_type"] == type)
        }
        // An unknown event type inside the card_account category still maps by its status.
        let body = Self.body(type: "card_account.updated.something_new")
        #expect(
            try provider().verify(
                Self.delivery(body, header: try Self.signature(body, timestamp: Self.nowMilliseconds)), now: Self.now
            ).count == 1)
    }

    @Test func tamperedBodyIsRefused() throws {
        let body = Self.body()
        let header = try Self.signature(body, timestamp: Self.nowMilliseconds)
        var tampered = body
        tampered[tampered.index(tampered.startIndex, offsetBy: 40)] ^= 0x01
        let error = gatewayError { _ = try provider().verify(Self.delivery(tampered, header: header), now: Self.now) }
        #expect(error?.code == .signatureInvalid)
    }

    @Test func tamperedTimestampIsRefused() throws {
        let body = Self.body()
        let header = try Self.signature(body, timestamp: Self.nowMilliseconds)
        let moved = header.replacingOccurrences(of: "t=\(Self.nowMilliseconds)", with: "t=\(Self.nowMilliseconds - 1)")
        let error = gatewayError { _ = try provider().verify(Self.delivery(body, header: moved), now: Self.now) }
        #expect(error?.code == .signatureInvalid)
    }

    @Test(arguments: [
        (Int64(-600_000), true), (-600_001, false), (-3_600_000, false), (60_000, true), (60_001, false),
        (86_400_000, false),
    ])
    func freshnessWindow(offsetMilliseconds: Int64, accepted: Bool) throws {
        let body = Self.body()
        let header = try Self.signature(body, timestamp: Self.nowMilliseconds + offsetMilliseconds)
        let provider = try provider()
        if accepted {
            #expect(try provider.verify(Self.delivery(body, header: header), now: Self.now).count == 1)
        } else {
            let error = gatewayError { _ = try provider.verify(Self.delivery(body, header: header), now: Self.now) }
            #expect(error?.code == .signatureInvalid)
        }
    }

    @Test func timestampInSecondsIsStale() throws {
        // Bridge's `t` is milliseconds: a seconds value reads as 1970 and is refused.
        let body = Self.body()
        let header = try Self.signature(body, timestamp: Self.nowMilliseconds / 1000)
        let error = gatewayError { _ = try provider().verify(Self.delivery(body, header: header), now: Self.now) }
        #expect(error?.code == .signatureInvalid)
    }

    @Test func wrongKeyIsRefused() throws {
        let body = Self.body()
        let header = try Self.signature(body, timestamp: Self.nowMilliseconds, key: BridgeFixtures.otherWebhookKey)
        let error = gatewayError { _ = try provider().verify(Self.delivery(body, header: header), now: Self.now) }
        #expect(error?.code == .signatureInvalid)
    }

    @Test func pssSignatureIsRefused() throws {
        let body = Self.body()
        var message = Data("\(Self.nowMilliseconds).".utf8)
        message.append(body)
        let pss = try Self.endpointKey.signature(for: message, padding: .PSS)
        let header = "t=\(Self.nowMilliseconds),v0=\(pss.rawRepresentation.base64EncodedString())"
        let error = gatewayError { _ = try provider().verify(Self.delivery(body, header: header), now: Self.now) }
        #expect(error?.code == .signatureInvalid)
    }

    @Test func oneValidSignatureAmongSeveralIsEnough() throws {
        let body = Self.body()
        let good = try Self.signature(body, timestamp: Self.nowMilliseconds)
        let bad = try Self.signature(body, timestamp: Self.nowMilliseconds, key: BridgeFixtures.otherWebhookKey)
        let badSignature = try #require(bad.split(separator: ",").last)
        let header = good + "," + badSignature
        #expect(try provider().verify(Self.delivery(body, header: header), now: Self.now).count == 1)
    }

    @Test(arguments: [
        "", "garbage", "t=,v0=AAAA", "v0=AAAA", "t=1767323045000", "t=abc,v0=AAAA", "t=1767323045000,v0=",
        "t=1767323045000,t=1767323045000,v0=AAAA", "t=-5,v0=AAAA", "t=1767323045000;v0=AAAA", "t=1767323045000,v0",
    ])
    func malformedHeadersAreRefused(header: String) throws {
        let error = gatewayError {
            _ = try provider().verify(Self.delivery(Self.body(), header: header), now: Self.now)
        }
        #expect(error?.code == .signatureInvalid)
    }

    @Test(arguments: ["not base64!", "AAA", "AA AA", "a-_b", "AAAA*"])
    func nonBase64SignaturesAreRefused(signature: String) throws {
        let header = "t=\(Self.nowMilliseconds),v0=\(signature)"
        let error = gatewayError {
            _ = try provider().verify(Self.delivery(Self.body(), header: header), now: Self.now)
        }
        #expect(error?.code == .signatureInvalid)
        #expect(error?.message.contains("Base64") == true)
    }

    @Test func missingHeaderIsRefused() throws {
        let error = gatewayError { _ = try provider().verify(Self.delivery(Self.body(), header: nil), now: Self.now) }
        #expect(error?.code == .signatureInvalid)
    }

    @Test func withoutAPublicKeyWebhooksAreAConfigurationError() throws {
        let body = Self.body()
        let header = try Self.signature(body, timestamp: Self.nowMilliseconds)
        let provider = try provider(publicKey: nil)
        #expect(provider.descriptor.capabilities.contains(.webhooks))
        let error = gatewayError { _ = try provider.verify(Self.delivery(body, header: header), now: Self.now) }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test(arguments: [
        #"{"event_category":"card_account"}"#, "[]", "not json",
        #"{"event_id":"e","event_category":"card_account","event_object":{}}"#,
    ])
    func signedButInvalidBodiesAreInvalid(text: String) throws {
        let body = Data(text.utf8)
        let header = try Self.signature(body, timestamp: Self.nowMilliseconds)
        let error = gatewayError { _ = try provider().verify(Self.delivery(body, header: header), now: Self.now) }
        #expect(error?.code == .invalidResponse)
    }
}

/// The simulator signs webhooks exactly as Bridge publishes, checked without the adapter: Bridge's verification
/// procedure (apidocs.bridge.xyz, "Webhook event signature verification": `X-Webhook-Signature: t=<ms>,v0=<Base64>`,
/// an RSA signature with SHA-256 over the SHA-256 digest of `"<t>.<raw body>"`, under the endpoint's public key),
/// written here on its own, first accepts Bridge's published test vector, then the simulator's deliveries.
@Suite("Bridge simulator: webhook signatures as Bridge publishes them", .timeLimit(.minutes(5)))
struct BridgeSimulatorSignatureTests {
    typealias Vector = BridgeWebhookTests.PublishedVector

    /// Bridge's procedure: split the header, decode the `v0` signature strictly, verify it over the digest.
    static func verifies(header: String, body: Data, publicKeyPEM: String) throws -> Bool {
        var timestamp: String?
        var signatures: [Data] = []
        for item in header.split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = String(pair[1]) }
            if pair[0] == "v0", let data = Data(base64Encoded: String(pair[1])) { signatures.append(data) }
        }
        guard let timestamp, Int64(timestamp) != nil, !signatures.isEmpty else { return false }
        var signed = Data("\(timestamp).".utf8)
        signed.append(body)
        let digest = Data(SHA256.hash(data: signed))
        let key = try _RSA.Signing.PublicKey(pemRepresentation: publicKeyPEM)
        return signatures.contains {
            key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: $0), for: digest, padding: .insecurePKCS1v1_5)
        }
    }

    @Test("the procedure accepts Bridge's published vector and refuses it over another body")
    func procedureMatchesThePublishedVector() throws {
        #expect(try Self.verifies(header: Vector.header, body: Vector.body, publicKeyPEM: Vector.publicKey))
        #expect(
            !(try Self.verifies(
                header: Vector.header, body: Data(#"{"message":"Hello World?"}"#.utf8), publicKeyPEM: Vector.publicKey))
        )
    }

    @Test("every delivery the simulator signs passes Bridge's procedure; a forged one and a changed body do not")
    func simulatorDeliveriesPassTheProcedure() throws {
        let simulator = BridgeSimulator(clock: SimulationClock(fixed: BridgeLive.start))
        let key = simulator.webhookPublicKeyPEM
        for account in [BridgeSimulator.Seed.activeVisa, BridgeSimulator.Seed.frozenByCustomer] {
            let delivery = try #require(try simulator.signedCardAccountWebhook(cardAccountID: account))
            let header = try #require(delivery.headers.first { $0.0 == "X-Webhook-Signature" }?.1)
            // `t` is the signing time in milliseconds (Bridge's header), here the simulator clock's.
            #expect(header.hasPrefix("t=\(Int64(BridgeLive.start.timeIntervalSince1970 * 1000)),v0="))
            #expect(try Self.verifies(header: header, body: delivery.body, publicKeyPEM: key))
            var changed = delivery.body
            changed.append(0x20)
            #expect(!(try Self.verifies(header: header, body: changed, publicKeyPEM: key)))
        }
        let forged = try simulator.forgedWebhook(body: Data(#"{"event_id":"x"}"#.utf8))
        let forgedHeader = try #require(forged.headers.first { $0.0 == "X-Webhook-Signature" }?.1)
        #expect(!(try Self.verifies(header: forgedHeader, body: forged.body, publicKeyPEM: key)))
    }
}
