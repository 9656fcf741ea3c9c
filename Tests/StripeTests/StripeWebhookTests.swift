import CardGateway
import CardGatewayTesting
import Crypto
import Foundation
import HTTPTypes
import Testing

@testable import CardGatewayStripe
import SharedTestSupport

@Suite("Stripe webhooks", .timeLimit(.minutes(5)))
struct StripeWebhookTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let t: Int64 = 1_700_000_000

    /// HMAC computed here with swift-crypto directly, independently of the adapter's helper.
    static func sign(_ body: String, t: Int64 = t, secret: String = Fixture.webhookSecret) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(t).\(body)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    static func delivery(_ body: String, header: String?) -> WebhookDelivery {
        var headers = HTTPFields()
        if let header { headers[HTTPField.Name("Stripe-Signature")!] = header }
        return WebhookDelivery(headers: headers, body: Data(body.utf8))
    }

    static func cardEvent(
        type: String = "issuing_card.updated", status: String = "inactive", previous: String? = #"{"status":"active"}"#
    ) -> String {
        let prev = previous.map { #","previous_attributes":\#($0)"# } ?? ""
        return
            #"{"id":"evt_1Card","object":"event","api_version":"2024-06-20","created":1699999990,"livemode":false,"type":"\#(type)","data":{"object":\#(Fixture.card(status: status))\#(prev)}}"#
    }

    static func tokenEvent(type: String, status: String = "active") -> String {
        #"{"id":"evt_1Tok","object":"event","created":1699999991,"type":"\#(type)","data":{"object":\#(Fixture.token(status: status))}}"#
    }

    func provider(
        webhookSecret: String? = Fixture.webhookSecret, previous: String? = Fixture.previousWebhookSecret
    ) throws -> StripeProvider {
        try Fixture.provider(
            ScriptedTransport([]),
            configuration: StripeConfiguration(
                secretKey: Secret(Fixture.secretKey), webhookSecret: webhookSecret.map(Secret.init),
                previousWebhookSecret: previous.map(Secret.init)
            ))
    }

    @Test func validSignatureGivesACardStatusChange() throws {
        let body = Self.cardEvent()
        let events = try provider().verify(
            Self.delivery(body, header: "t=\(Self.t),v1=\(Self.sign(body))"), now: Self.now)
        let event = try #require(events.first)
        #expect(events.count == 1)
        #expect(event.id == "evt_1Card")
        #expect(event.providerKind == .stripe)
        #expect(event.providerType == "issuing_card.updated")
        #expect(event.occurredAt == Date(timeIntervalSince1970: 1_699_999_990))
        #expect(
            event.event
                == .cardStatusChanged(
                    CardStatusChange(
                        card: Fixture.cardRef, oldStatus: .active, newStatus: .inactive, providerOldStatus: "active",
                        providerNewStatus: "inactive"
                    )))
    }

    @Test func createdCardAndUpdatedWithoutStatusChangeHaveNoOldStatus() throws {
        for body in [
            Self.cardEvent(type: "issuing_card.created", status: "inactive", previous: nil),
            Self.cardEvent(previous: #"{"metadata":{}}"#),
        ] {
            let events = try provider().verify(
                Self.delivery(body, header: "t=\(Self.t),v1=\(Self.sign(body))"), now: Self.now)
            guard let change = events.first?.event.cardStatusChanged else {
                Issue.record("expected a card status change")
                continue
            }
            #expect(change.oldStatus == nil)
            #expect(change.providerOldStatus == nil)
            #expect(change.newStatus == .inactive)
        }
    }

    @Test func tokenEvents() throws {
        let created = Self.tokenEvent(type: "issuing_token.created", status: "requested")
        let createdEvents = try provider().verify(
            Self.delivery(created, header: "t=\(Self.t),v1=\(Self.sign(created))"), now: Self.now)
        guard let event = createdEvents.first?.event.walletTokenCreated else {
            Issue.record("expected walletTokenCreated")
            return
        }
        #expect(event.card == Fixture.cardRef)
        #expect(event.token.id == "intok_1FixtureToken")
        #expect(event.token.status == .requested)
        #expect(event.token.wallet == .applePay)

        let updated = Self.tokenEvent(type: "issuing_token.updated", status: "suspended")
        let updatedEvents = try provider().verify(
            Self.delivery(updated, header: "t=\(Self.t),v1=\(Self.sign(updated))"), now: Self.now)
        guard let change = updatedEvents.first?.event.walletTokenUpdated else {
            Issue.record("expected walletTokenUpdated")
            return
        }
        #expect(change.token.status == .suspended)
    }

    @Test func otherEventTypesVerifyAndGiveNoEvents() throws {
        let body =
            #"{"id":"evt_2","object":"event","type":"issuing_authorization.request","data":{"object":{"id":"iauth_1"}}}"#
        #expect(
            try provider().verify(Self.delivery(body, header: "t=\(Self.t),v1=\(Self.sign(body))"), now: Self.now)
                .isEmpty)
    }

    @Test func tamperedBodyIsRefused() throws {
        let body = Self.cardEvent()
        let tampered = body.replacingOccurrences(of: "\"inactive\"", with: "\"active\"")
        let error = gatewayError {
            _ = try provider().verify(
                Self.delivery(tampered, header: "t=\(Self.t),v1=\(Self.sign(body))"), now: Self.now)
        }
        #expect(error?.code == .signatureInvalid)
    }

    @Test("stale timestamps are refused at the edge; future ones are accepted, as Stripe's libraries do")
    func staleTimestampsAreRefusedAtTheEdge() throws {
        let body = Self.cardEvent()
        let provider = try provider()
        for (offset, accepted) in [
            (-301, false), (-300, true), (300, true), (301, true), (-86_400, false), (3_600, true),
        ] as [(Int64, Bool)] {
            let t = Self.t + offset
            let delivery = Self.delivery(body, header: "t=\(t),v1=\(Self.sign(body, t: t))")
            if accepted {
                #expect(throws: Never.self, "offset \(offset)") { _ = try provider.verify(delivery, now: Self.now) }
            } else {
                #expect(
                    gatewayError { _ = try provider.verify(delivery, now: Self.now) }?.code == .signatureInvalid,
                    "offset \(offset)")
            }
        }
    }

    @Test func signatureByThePreviousSecretIsAcceptedDuringARoll() throws {
        let body = Self.cardEvent()
        let header = "t=\(Self.t),v1=\(Self.sign(body, secret: Fixture.previousWebhookSecret))"
        #expect(try provider().verify(Self.delivery(body, header: header), now: Self.now).count == 1)
        let error = gatewayError {
            _ = try provider(previous: nil).verify(Self.delivery(body, header: header), now: Self.now)
        }
        #expect(error?.code == .signatureInvalid)
    }

    @Test func anyOfSeveralV1ValuesMayMatch() throws {
        let body = Self.cardEvent()
        let wrong = String(repeating: "0", count: 64)
        let header = "t=\(Self.t),v1=\(wrong),v1=\(Self.sign(body)),v0=\(wrong)"
        #expect(try provider().verify(Self.delivery(body, header: header), now: Self.now).count == 1)
        let reversed = "v1=\(Self.sign(body)), t=\(Self.t)"
        #expect(try provider().verify(Self.delivery(body, header: reversed), now: Self.now).count == 1)
        // HTTP's optional whitespace (spaces and tabs, RFC 9110) around an item is not part of its value.
        let spaced = "t=\(Self.t)\t, v1=\(Self.sign(body)) "
        #expect(try provider().verify(Self.delivery(body, header: spaced), now: Self.now).count == 1)
    }

    @Test("items without '=' are skipped and the first t counts, as in Stripe's libraries")
    func lenientLikeStripe() throws {
        let body = Self.cardEvent()
        let header = "t=\(Self.t),,junk,v1=\(Self.sign(body)),t=1"
        #expect(try provider().verify(Self.delivery(body, header: header), now: Self.now).count == 1)
        let secondT = "t=1,v1=\(Self.sign(body)),t=\(Self.t)"
        #expect(
            gatewayError { _ = try provider().verify(Self.delivery(body, header: secondT), now: Self.now) }?.code
                == .signatureInvalid)
    }

    @Test(arguments: [
        "", "garbage", "t=abc,v1=00", "v1=00", "t=1700000000", "t=1700000000,v0=00", "t=+1700000000,v1=00",
        "t=1700000000,v1=",
    ])
    func malformedHeadersAreRefused(header: String) throws {
        let error = gatewayError {
            _ = try provider().verify(Self.delivery(Self.cardEvent(), header: header), now: Self.now)
        }
        #expect(error?.code == .signatureInvalid)
        #expect(error?.message.contains("malformed") == true)
    }

    @Test func wrongSecretUppercaseHexAndMissingHeaderAreRefused() throws {
        let body = Self.cardEvent()
        for header in [
            "t=\(Self.t),v1=\(Self.sign(body, secret: "whsec_someoneElse"))",
            "t=\(Self.t),v1=\(Self.sign(body).uppercased())",
        ] as [String?] + [nil] {
            let error = gatewayError { _ = try provider().verify(Self.delivery(body, header: header), now: Self.now) }
            #expect(error?.code == .signatureInvalid)
            #expect(error.map { !$0.description.contains(Fixture.webhookSecret) } == true)
        }
    }

    @Test func noSecretConfiguredIsAConfigurationError() throws {
        let body = Self.cardEvent()
        let error = gatewayError {
            _ = try provider(webhookSecret: nil, previous: nil).verify(
                Self.delivery(body, header: "t=\(Self.t),v1=\(Self.sign(body))"), now: Self.now)
        }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test func signedButMalformedEventsAreRefused() throws {
        for body in [
            "not json",
            #"{"id":"evt_3","object":"event","type":"issuing_card.updated","data":{"object":{"id":"ic_1"}}}"#,
        ] {
            let error = gatewayError {
                _ = try provider().verify(
                    Self.delivery(body, header: "t=\(Self.t),v1=\(Self.sign(body))"), now: Self.now)
            }
            #expect(error?.code == .invalidRequest)
        }
    }

    @Test func adapterSignatureHelperMatchesIndependentHMAC() {
        let body = Self.cardEvent()
        #expect(
            StripeWebhookVerifier.signature(
                body: Data(body.utf8), timestamp: Self.t, secret: Secret(Fixture.webhookSecret)) == Self.sign(body))
    }
}

@Suite("Stripe form encoding", .timeLimit(.minutes(5)))
struct StripeFormTests {
    @Test func nestedKeysArraysAndEscaping() {
        var form = StripeForm()
        form.add("issuing_card", "ic_1")
        form.add("metadata", object: [("order", "a b&c=d"), ("note", "ü+/")])
        form.add("items", indexed: ["x", "y"])
        form.add("expand", list: ["cardholder", "data.card"])
        #expect(
            form.encoded
                == "issuing_card=ic_1&metadata[order]=a%20b%26c%3Dd&metadata[note]=%C3%BC%2B%2F&items[0]=x&items[1]=y&expand[]=cardholder&expand[]=data.card"
        )
        #expect(form.body == Data(form.encoded.utf8))
        #expect(StripeForm().isEmpty)
    }
}
