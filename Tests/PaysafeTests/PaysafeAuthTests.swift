import CardGateway
import CardGatewayPaysafe
import CardGatewayTesting
import Foundation
import Testing
import SharedTestSupport

@Suite("Paysafe OAuth token and SCA", .timeLimit(.minutes(5)))
struct PaysafeAuthTests {
    @Test("the token is cached until the refresh margin before expiry")
    func cached() async throws {
        let harness = try Harness.make { _ in .json(200, Fixture.cardJSON()) }
        _ = try await harness.provider.card(Fixture.ref, context: OperationContext())
        harness.clock.advance(900 - 61)
        _ = try await harness.provider.card(Fixture.ref, context: OperationContext())
        #expect(harness.tokenRequestCount == 1)
        harness.clock.advance(2)
        _ = try await harness.provider.card(Fixture.ref, context: OperationContext())
        #expect(harness.tokenRequestCount == 2)
        #expect(
            harness.businessRequests.map { $0.header("Authorization") } == [
                "Bearer tok-1", "Bearer tok-1", "Bearer tok-2",
            ])
    }

    @Test("a short-lived token is used for half its life")
    func shortLived() async throws {
        let harness = try Harness.make(token: { .json(200, Fixture.tokenJSON("tok-\($0)", expiresIn: 60)) }) { _ in
            .json(200, Fixture.cardJSON())
        }
        _ = try await harness.provider.card(Fixture.ref, context: OperationContext())
        harness.clock.advance(29)
        _ = try await harness.provider.card(Fixture.ref, context: OperationContext())
        #expect(harness.tokenRequestCount == 1)
        harness.clock.advance(2)
        _ = try await harness.provider.card(Fixture.ref, context: OperationContext())
        #expect(harness.tokenRequestCount == 2)
    }

    @Test("20 concurrent calls with an expired token make exactly one token request")
    func concurrentRefresh() async throws {
        let harness = try Harness.make { _ in .json(200, Fixture.cardJSON()) }
        _ = try await harness.provider.card(Fixture.ref, context: OperationContext())
        harness.clock.advance(3600)
        try await withThrowingTaskGroup(of: Card.self) { group in
            for _ in 0..<20 {
                group.addTask { try await harness.provider.card(Fixture.ref, context: OperationContext()) }
            }
            for try await card in group { #expect(card.status == .active) }
        }
        #expect(harness.tokenRequestCount == 2)
        #expect(Set(harness.businessRequests.dropFirst().map { $0.header("Authorization") }) == ["Bearer tok-2"])
    }

    @Test("a plain 401 replaces the token once, then succeeds")
    func refreshOnce() async throws {
        let harness = try Harness.make { request in
            request.header("Authorization") == "Bearer tok-1"
                ? .json(401, #"{"error":{"code":"5279","message":"expired"}}"#) : .json(200, Fixture.cardJSON())
        }
        let card = try await harness.provider.card(Fixture.ref, context: OperationContext())
        #expect(card.status == .active)
        #expect(harness.tokenRequestCount == 2)
        #expect(harness.businessRequests.map { $0.header("Authorization") } == ["Bearer tok-1", "Bearer tok-2"])
    }

    @Test(
        "5275 (expired credentials) renews the token once, then is authenticationFailed: two token calls, two card calls"
    )
    func expiredCredentials() async throws {
        let harness = try Harness.make { _ in
            .json(401, #"{"error":{"code":"5275","message":"The authentication credentials have expired."}}"#)
        }
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: OperationContext()) }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.providerCode == "5275")
        #expect(error?.httpStatus == 401)
        #expect(harness.tokenRequestCount == 2)
        #expect(harness.businessRequests.map(\.method) == ["GET", "GET"])
        #expect(harness.businessRequests.map { $0.header("Authorization") } == ["Bearer tok-1", "Bearer tok-2"])
        #expect(harness.transport.requests.map { $0.path.hasSuffix("/token") } == [true, false, true, false])
    }

    @Test("the token request runs within the caller's deadline")
    func tokenHonoursDeadline() async throws {
        let harness = try Harness.make { _ in .json(200, Fixture.cardJSON()) }
        let late = OperationContext(deadline: .now - .seconds(1))
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: late) }
        #expect(error?.code == .timeout)
        #expect(harness.tokenRequestCount == 0, "nothing is sent once the caller's deadline has passed")
        _ = try await harness.provider.card(Fixture.ref, context: OperationContext())
        #expect(harness.tokenRequestCount == 1)
    }

    @Test("a write refused with a plain 401 is sent again with the new token")
    func refreshWrite() async throws {
        let harness = try Harness.make { request in
            if request.method == "GET" { return .json(200, Fixture.cardJSON(status: "ISSUED", cardType: "PHYSICAL")) }
            return request.header("Authorization") == "Bearer tok-1" ? .json(401, "") : .json(200, Fixture.cardJSON())
        }
        _ = try await harness.provider.activateCard(
            ActivateCardRequest(card: Fixture.ref, lastFour: "7009", cvv: Secret("123")), context: OperationContext())
        #expect(harness.businessRequests.map(\.method) == ["GET", "POST", "POST"])
    }

    @Test("a second 401 is authenticationFailed, with no third attempt")
    func refreshOnlyOnce() async throws {
        let harness = try Harness.make { _ in
            .json(401, #"{"error":{"code":"5279","message":"The authentication credentials are invalid."}}"#)
        }
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: OperationContext()) }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.httpStatus == 401)
        #expect(harness.tokenRequestCount == 2)
        #expect(harness.businessRequests.count == 2)
    }

    @Test("refused client credentials are authenticationFailed and nothing else is sent", arguments: [400, 401])
    func tokenRefused(_ status: Int) async throws {
        let harness = try Harness.make(token: { _ in .json(status, #"{"error":"invalid_client"}"#) }) { _ in
            .json(200, Fixture.cardJSON())
        }
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: OperationContext()) }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.description.contains(Fixture.clientSecret) == false)
        #expect(harness.businessRequests.isEmpty)
    }

    @Test("a token answer without access_token is an invalid response")
    func tokenWithoutAccessToken() async throws {
        let harness = try Harness.make(token: { _ in .json(200, #"{"token_type":"Bearer"}"#) }) { _ in
            .json(200, Fixture.cardJSON())
        }
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: OperationContext()) }
        #expect(error?.code == .invalidResponse)
    }

    @Test("a failed token request (retried like a read) is not cached: the next call asks again")
    func tokenFailureNotCached() async throws {
        let harness = try Harness.make(token: { $0 <= 3 ? .json(503, "") : .json(200, Fixture.tokenJSON("tok-\($0)")) })
        { _ in .json(200, Fixture.cardJSON()) }
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: OperationContext()) }
        #expect(error?.code == .providerUnavailable)
        #expect(harness.tokenRequestCount == 3)
        #expect(harness.businessRequests.isEmpty)
        _ = try await harness.provider.card(Fixture.ref, context: OperationContext())
        #expect(harness.businessRequests.last?.header("Authorization") == "Bearer tok-4")
    }

    @Test("an SCA 401 is scaRequired with the decoded challenge, and the token is not refreshed")
    func scaChallenge() async throws {
        let harness = try Harness.make { _ in .json(401, "", headers: ["WWW-Authenticate": Fixture.scaHeader()]) }
        let error = await gatewayError {
            _ = try await harness.provider.updateCard(
                UpdateCardRequest(card: Fixture.ref, change: .status(.locked, reason: nil)), context: OperationContext()
            )
        }
        #expect(error?.code == .scaRequired)
        #expect(error?.httpStatus == 401)
        #expect(error?.isRetryable == false)
        let challenge = try #require(error?.scaChallenge)
        #expect(challenge.eventID == "06bdc2c0-cce-4b36-97ec-281c8f5d743c")
        #expect(challenge.walletOperationID == "a5865fd6-18c2-45a8-9953-1c00eac36c36")
        #expect(challenge.mode == "OUTSOURCED")
        #expect(
            challenge.verifications == [
                .init(method: "PIN", channel: nil, target: nil),
                .init(method: "OTP", channel: "SMS", target: "+35988*****33"),
            ])
        #expect(challenge.created == PaysafeTestDates.iso("2021-07-15T17:54:12Z"))
        #expect(challenge.expires == PaysafeTestDates.iso("2021-07-15T18:09:12Z"))
        #expect(harness.tokenRequestCount == 1)
        #expect(harness.businessRequests.count == 1)
    }

    @Test("the documented example header decodes")
    func documentedExample() async throws {
        // The auth-param1 value from Paysafe's documentation, byte for byte.
        let header =
            #"SCA realm="Prepaid Cards" auth-param1="ewogICJzY2FEZXRhaWxzIjogewogICAgImV2ZW50SWQiOiAiMDZiZGMyYzAtY2NlLTRiMzYtOTdlYy0yODFjOGY1ZDc0M2MiLAogICAgIndhbGxldE9wZXJhdGlvbklkIjogImE1ODY1ZmQ2LTE4YzItNDVhOC05OTUzLTFjMDBlYWMzNmMzNiIsCiAgICAiYXV0aGVudGljYXRpb25Nb2RlIjogIk9VVFNPVVJDRUQiLAogICAgImF2YWlsYWJsZVZlcmlmaWNhdGlvbnMiOiBbCiAgICAgIHsKICAgICAgICAibWV0aG9kIjogIlBJTiIKICAgICAgfSwKICAgICAgewogICAgICAgICJtZXRob2QiOiAiT1RQIiwKICAgICAgICAiY2hhbm5lbCI6ICJTTVMiCiAgICAgIH0KICAgIF0sCiAgICAiY3JlYXRpb25UaW1lIjogIjIwMjEtMDctMTVUMTc6NTQ6MTJaIiwKICAgICJleHBpcmF0aW9uVGltZSI6ICIyMDIxLTA3LTE1VDE4OjA5OjEyWiIKICB9Cn0=""#
        let harness = try Harness.make { _ in .json(401, "", headers: ["WWW-Authenticate": header]) }
        let error = await gatewayError {
            _ = try await harness.provider.secureDetailsAccess(for: Fixture.ref, context: OperationContext())
        }
        #expect(error?.code == .scaRequired)
        #expect(error?.scaChallenge?.walletOperationID == "a5865fd6-18c2-45a8-9953-1c00eac36c36")
        #expect(error?.scaChallenge?.verifications.map(\.method) == ["PIN", "OTP"])
    }

    @Test("an SCA header whose payload cannot be read is an invalid response, without a token refresh")
    func unreadableChallenge() async throws {
        let harness = try Harness.make { _ in
            .json(401, "", headers: ["WWW-Authenticate": #"SCA realm="Prepaid Cards" auth-param1="not-base64!!""#])
        }
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: OperationContext()) }
        #expect(error?.code == .invalidResponse)
        #expect(harness.tokenRequestCount == 1)
    }

    @Test("a Bearer challenge is not SCA: the token is replaced")
    func bearerChallenge() async throws {
        let harness = try Harness.make { request in
            request.header("Authorization") == "Bearer tok-1"
                ? .json(401, "", headers: ["WWW-Authenticate": #"Bearer realm="paysafe", error="invalid_token""#])
                : .json(200, Fixture.cardJSON())
        }
        _ = try await harness.provider.card(Fixture.ref, context: OperationContext())
        #expect(harness.tokenRequestCount == 2)
    }

    @Test("an SCA event in a business response body is scaRequired too")
    func scaInBody() async throws {
        let harness = try Harness.scripted([.json(202, Fixture.sampleSCAJSON)])
        let error = await gatewayError {
            _ = try await harness.provider.updateCard(
                UpdateCardRequest(card: Fixture.ref, change: .status(.locked, reason: nil)), context: OperationContext()
            )
        }
        #expect(error?.code == .scaRequired)
        #expect(error?.scaChallenge?.eventID == "06bdc2c0-cce-4b36-97ec-281c8f5d743c")

        // A 401 whose body is the event object, with no WWW-Authenticate: SCA as well, never a token refresh.
        let bodyOnly = try Harness.make { _ in .json(401, Fixture.sampleSCAJSON) }
        let error401 = await gatewayError {
            _ = try await bodyOnly.provider.updateCard(
                UpdateCardRequest(card: Fixture.ref, change: .status(.locked, reason: nil)), context: OperationContext()
            )
        }
        #expect(error401?.code == .scaRequired)
        #expect(error401?.scaChallenge?.walletOperationID == "a5865fd6-18c2-45a8-9953-1c00eac36c36")
        #expect(bodyOnly.tokenRequestCount == 1)
    }

    @Test("the repeated operation carries SCA-Authorization; helper reads do not")
    func scaAuthorizationHeader() async throws {
        let harness = try Harness.make { request in
            request.method == "GET"
                ? .json(200, Fixture.cardJSON(status: "ACTIVE")) : .json(200, Fixture.cardJSON(status: "LOCKED"))
        }
        let sca = SCAAuthorization(eventID: "evt-9", walletOperationID: "op-9")
        _ = try await harness.provider.updateCard(
            UpdateCardRequest(card: Fixture.ref, change: .status(.locked, reason: nil)),
            context: OperationContext(sca: sca))
        #expect(harness.businessRequests[0].header("SCA-Authorization") == nil)
        let value = try #require(harness.businessRequests[1].header("SCA-Authorization"))
        let decoded = String(decoding: try #require(Data(base64Encoded: value)), as: UTF8.self)
        #expect(decoded == #"{"scaDetails":{"eventId":"evt-9","walletOperationId":"op-9"}}"#)
    }
}
