import CardGateway
import CardGatewaySimulation
import CardGatewayTrustPayments
import Foundation
import SharedTestSupport
import Testing
import TrustPaymentsSimulator

/// Runs the official Python client (`securetrading`, pinned in scripts/official-clients-requirements.txt) against the
/// simulator through `Providers/TrustPayments/Simulator/official-client-check.py`. See ``OfficialClient`` for when it
/// runs.
@Suite("Trust Payments official client", .timeLimit(.minutes(5)))
struct OfficialClientTests {
    @Test("the official securetrading client stores a card and charges it merchant-initiated against the simulator")
    func pythonClient() async throws {
        try await OfficialClient.requireAvailable(module: "securetrading")
        try await withSimulator(TrustPaymentsSimulator()) { handle in
            // Bounded: the check makes three requests to a local server.
            let result = try await OfficialClient.check(
                "TrustPayments", ["http://127.0.0.1:\(handle.port)"], timeout: .seconds(30))
            #expect(result.status == 0, "official-client-check.py: \(result.output)")
            #expect(result.output.contains("ACCOUNTCHECK ok"))
            #expect(result.output.contains("AUTH (credentialsonfile 2, initiationreason C) ok"))
            let posts = handle.journal.entries(method: "POST", pathContains: "/json/")
            #expect(posts.count == 3)
            #expect(posts.first?.header("user-agent")?.hasPrefix("Python-") == true)
        }
    }

    /// The securetrading client has no JWT support, so the check script verifies the session JWT with Python's
    /// standard library (`hmac`, `hashlib`, `base64`, `json`): an implementation that shares nothing with jwt-kit.
    @Test("a client session JWT the adapter mints verifies in Python with the JWT secret and carries the claims minted")
    func sessionJWTInPython() async throws {
        try await OfficialClient.requireAvailable(module: "hmac")
        let session = try await Fixture.provider().clientSession(
            ClientSessionRequest(
                intent: .reuse(reference: "2-9-4617572"), amount: Money(minorUnits: 1050, currency: "GBP"),
                orderReference: "order/é 1"),
            context: OperationContext()
        )
        let token = session.token.revealedValue
        let result = try await OfficialClient.check(
            "TrustPayments", ["--verify-session-jwt", token, Fixture.jwtSecret], timeout: .seconds(30))
        #expect(result.status == 0, "official-client-check.py: \(result.output)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "session JWT ok")
        let header = try #require(lines.first { $0.hasPrefix("header ") }).dropFirst("header ".count)
        let claimsLine = try #require(lines.first { $0.hasPrefix("claims ") }).dropFirst("claims ".count)
        #expect(
            NSDictionary(
                dictionary: try #require(try JSONSerialization.jsonObject(with: Data(header.utf8)) as? [String: Any])
            ).isEqual(to: ["alg": "HS256", "typ": "JWT"]))
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(claimsLine.utf8)) as? [String: Any])
        #expect(Set(claims.keys) == ["iat", "iss", "payload"])
        #expect(claims["iss"] as? String == Fixture.jwtUsername)
        #expect((claims["iat"] as? NSNumber)?.int64Value == Int64(Fixture.now.timeIntervalSince1970))
        let expectedPayload: [String: Any] = [
            "accounttypedescription": "ECOM", "sitereference": Fixture.siteReference, "currencyiso3a": "GBP",
            "baseamount": "1050",
            "requesttypedescriptions": ["THREEDQUERY", "AUTH"], "credentialsonfile": "2",
            "parenttransactionreference": "2-9-4617572", "orderreference": "order/é 1",
        ]
        let payload = try #require(claims["payload"] as? [String: Any])
        #expect(NSDictionary(dictionary: payload).isEqual(to: expectedPayload), "payload \(payload)")

        let wrongSecret = try await OfficialClient.check(
            "TrustPayments", ["--verify-session-jwt", token, Fixture.jwtSecret + "x"], timeout: .seconds(30))
        #expect(wrongSecret.status == 1)
        #expect(wrongSecret.output.contains("signature"))
    }
}
