import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import CardGatewayTrustPayments
import Foundation
import SharedTestSupport
import Testing
import TrustPaymentsSimulator

/// Trust Payments' documented payloads (`Fixtures/`): a result signed from the published response claims verifies,
/// the published Webservices envelope decodes as a charge, and the simulator's answers carry every published field
/// with the same JSON type.
@Suite("Trust Payments published examples", .timeLimit(.minutes(5)))
struct TrustPaymentsPublishedExamplesTests {
    static func jsonObject(_ name: String) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: try Data(contentsOf: PublishedShape.fixtureURL(name)))
                as? [String: Any])
    }

    @Test("a result JWT with exactly the published claims verifies; the published envelope decodes as a charge")
    func adapterDecodesPublishedExamples() async throws {
        var claims = try Self.jsonObject("response-jwt-claims.json")
        claims["iat"] = Int(Fixture.now.timeIntervalSince1970)
        var payload = try #require(claims["payload"] as? [String: Any])
        payload["jwt"] = try IndependentJWT.make(
            claims: [
                "iss": Fixture.jwtUsername, "iat": Int(Fixture.now.timeIntervalSince1970),
                "payload": ["sitereference": Fixture.siteReference, "credentialsonfile": "1"],
            ],
            secret: Fixture.jwtSecret
        )
        claims["payload"] = payload
        let token = try IndependentJWT.make(claims: claims, secret: Fixture.jwtSecret)
        let credential = try await Fixture.provider().verifyResult(Secret(token), context: OperationContext())
        #expect(credential.reference == "56-9-1920047")
        #expect(credential.maskedPAN == "411111######1111")
        #expect(credential.scheme == .visa)

        let envelope = try Data(contentsOf: PublishedShape.fixtureURL("webservices-response.json"))
        let transport = ScriptedTransport([
            .response(status: 200, headers: ["Content-Type": "application/json"], body: envelope)
        ])
        // The adapter checks that the answer echoes the requestreference it sent: send the published one.
        let charge = try await Fixture.provider(transport: transport, requestReference: "A0bxxrf42").charge(
            ChargeRequest(
                reference: "2-9-4617572", amount: Money(minorUnits: 1050, currency: "GBP"),
                initiator: .merchant(.unscheduled)), context: OperationContext()
        )
        #expect(charge.transactionReference == "2-9-4617572")
        #expect(charge.status == .authorised)
        #expect(charge.authCode == "TEST12")
    }

    @Test("the simulator's /jwt/ claims and /json/ envelope carry every published field with the same JSON type")
    func simulatorCarriesThePublishedShape() async throws {
        let simulator = SimFixture.simulator()
        let session = try Raw.sessionJWT(payload: Raw.storePayload(types: ["ACCOUNTCHECK"]))
        let result = try await simulator.sdkPayment(
            sessionJWT: session, pan: Seed.Card.visa, expiryDate: Seed.expiryDate, securityCode: "123")
        let segments = result.split(separator: ".")
        var claimsText = String(segments[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(
            of: "_", with: "/")
        while claimsText.count % 4 != 0 { claimsText += "=" }
        let claims = try JSONValue.parse(try #require(Data(base64Encoded: claimsText)))
        let publishedClaims = try PublishedShape.fixture("response-jwt-claims.json")
        let claimDifferences = PublishedShape.differences(claims, from: publishedClaims)
        #expect(claimDifferences == [], "\(claimDifferences)")
        // Nothing beyond the published claims: no aud, no iss.
        #expect(
            Set(claims.objectValue?.keys.map { $0 } ?? []) == Set(publishedClaims.objectValue?.keys.map { $0 } ?? []))

        try await withSimulator(simulator) { handle in
            // A stored card, then a merchant-initiated AUTH on it, as the official client sends them.
            let stored = try JSONValue.parse(try await Raw.webservices(handle, [Raw.cardRequest()]).body)
            let parent = try #require(stored["response"]?.arrayValue?.first?["transactionreference"]?.stringValue)
            let answer = try JSONValue.parse(try await Raw.webservices(handle, [Raw.childRequest(parent: parent)]).body)
            #expect(answer["response"]?.arrayValue?.first?["errorcode"]?.stringValue == "0")
            let envelopeDifferences = PublishedShape.differences(
                answer, from: try PublishedShape.fixture("webservices-response.json"))
            #expect(envelopeDifferences == [], "\(envelopeDifferences)")
        }
    }
}
