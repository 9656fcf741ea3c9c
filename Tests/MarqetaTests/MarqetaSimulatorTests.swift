import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import MarqetaSimulator
import Testing

/// The simulator over raw HTTP (no adapter): Basic auth, Marqeta's error body, the state machines, paging,
/// journal masking and the kit's faults.
@Suite("Marqeta simulator")
struct MarqetaSimulatorTests {
    struct Reply {
        var status: Int
        var body: Data
        var json: JSONValue? { try? JSONValue.parse(body) }
    }

    static func send(
        _ handle: SimulatorHandle, _ method: HTTPRequest.Method, _ path: String, body: String? = nil,
        user: String = Seed.applicationToken, password: String = Seed.accessToken
    ) async throws -> Reply {
        var fields = HTTPFields()
        fields[.authorization] = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        if body != nil { fields[.contentType] = "application/json" }
        let request = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:\(handle.port)", path: "/v3" + path, headerFields: fields)
        let response = try await AsyncHTTPClientTransport().send(request, body: body.map { Data($0.utf8) }, timeout: .seconds(30))
        return Reply(status: response.response.status.code, body: response.body)
    }

    @Test("HTTP Basic is required: a wrong access token is 401 with Marqeta's error body")
    func basicAuth() async throws {
        try await withSimulator(MarqetaSimulator()) { handle in
            let denied = try await Self.send(handle, .get, "/cards/\(Seed.activeCard)", password: "wrong-access-token")
            #expect(denied.status == 401)
            #expect(denied.json?["error_code"]?.stringValue == MarqetaSimulatorErrors.unauthorized)
            #expect(denied.json?["error_message"]?.stringValue?.isEmpty == false)
            let card = try await Self.send(handle, .get, "/cards/\(Seed.activeCard)")
            #expect(card.status == 200)
            #expect(card.json?["state"]?.stringValue == "ACTIVE")
            #expect(card.json?["last_four"]?.stringValue == "4242")
            #expect(card.json?["pan"] == nil)
            let missing = try await Self.send(handle, .get, "/cards/nope")
            #expect(missing.status == 404)
            #expect(missing.json?["error_code"]?.stringValue == MarqetaSimulatorErrors.notFound)
            #expect(handle.journal.entries().allSatisfy { $0.header("authorization") == JournalEntry.maskedValue })
        }
    }

    @Test("card state machine: TERMINATED is final; the same state twice is refused; unknown states are 400")
    func cardStateMachine() async throws {
        try await withSimulator(MarqetaSimulator()) { handle in
            func transition(_ card: String, _ state: String) async throws -> Reply {
                try await Self.send(handle, .post, "/cardtransitions", body: #"{"card_token":"\#(card)","state":"\#(state)","channel":"API","reason_code":"01"}"#)
            }
            let terminated = try await transition(Seed.terminatedCard, "ACTIVE")
            #expect(terminated.status == 400)
            #expect(terminated.json?["error_code"]?.stringValue == MarqetaSimulatorErrors.illegalCardTransition)
            let same = try await transition(Seed.activeCard, "ACTIVE")
            #expect(same.json?["error_code"]?.stringValue == MarqetaSimulatorErrors.illegalCardTransition)
            let bogus = try await transition(Seed.activeCard, "LOST")
            #expect(bogus.json?["error_code"]?.stringValue == MarqetaSimulatorErrors.invalidField)
            let suspend = try await transition(Seed.activeCard, "SUSPENDED")
            #expect(suspend.status == 201)
            #expect(suspend.json?["type"]?.stringValue == "state.suspended")
            let reinstate = try await transition(Seed.activeCard, "ACTIVE")
            #expect(reinstate.json?["type"]?.stringValue == "state.reinstated")
            let badReason = try await Self.send(handle, .post, "/cardtransitions", body: #"{"card_token":"\#(Seed.activeCard)","state":"SUSPENDED","channel":"API","reason_code":"99"}"#)
            #expect(badReason.status == 400)
        }
    }

    @Test("token state machine: TERMINATED is final; a token named with another card is 404")
    func tokenStateMachine() async throws {
        try await withSimulator(MarqetaSimulator()) { handle in
            let final = try await Self.send(handle, .post, "/digitalwallettokentransitions", body: #"{"digital_wallet_token":{"token":"\#(Seed.terminatedToken)"},"state":"ACTIVE","channel":"API"}"#)
            #expect(final.status == 400)
            #expect(final.json?["error_code"]?.stringValue == MarqetaSimulatorErrors.illegalTokenTransition)
            let otherCard = try await Self.send(
                handle, .post, "/digitalwallettokentransitions", body: #"{"digital_wallet_token":{"token":"\#(Seed.activeToken)","card_token":"\#(Seed.activeCard)"},"state":"SUSPENDED"}"#
            )
            #expect(otherCard.status == 404)
            let suspended = try await Self.send(handle, .post, "/digitalwallettokentransitions", body: #"{"digital_wallet_token":{"token":"\#(Seed.activeToken)"},"state":"SUSPENDED","channel":"API"}"#)
            #expect(suspended.status == 201)
            #expect(suspended.json?["digital_wallet_token"]?["state"]?.stringValue == "SUSPENDED")
        }
    }

    @Test("paging: count, start_index, end_index, is_more; count out of range is 400")
    func paging() async throws {
        try await withSimulator(MarqetaSimulator()) { handle in
            let first = try await Self.send(handle, .get, "/cards/user/\(Seed.userToken)?count=5&start_index=0")
            #expect(first.json?["count"]?.intValue == 5)
            #expect(first.json?["end_index"]?.intValue == 4)
            #expect(first.json?["is_more"]?.boolValue == true)
            let last = try await Self.send(handle, .get, "/cards/user/\(Seed.userToken)?count=5&start_index=5")
            #expect(last.json?["count"]?.intValue == 2)
            #expect(last.json?["is_more"]?.boolValue == false)
            let defaultCount = try await Self.send(handle, .get, "/digitalwallettokens/card/\(Seed.walletCard)")
            #expect(defaultCount.json?["data"]?.arrayValue?.count == 4)
            let tooMany = try await Self.send(handle, .get, "/cards/user/\(Seed.userToken)?count=0")
            #expect(tooMany.status == 400)
        }
    }

    @Test("provisioning: a non-ACTIVE card is refused; non-Base64 nonce is 400; the journal masks Apple's data")
    func provisioning() async throws {
        try await withSimulator(MarqetaSimulator()) { handle in
            func body(_ card: String, _ nonce: String) -> String {
                #"{"card_token":"\#(card)","device_type":"MOBILE_PHONE","provisioning_app_version":"1.0","certificates":["AAEC"],"nonce":"\#(nonce)","nonce_signature":"AAEC"}"#
            }
            let suspended = try await Self.send(handle, .post, "/digitalwalletprovisionrequests/applepay", body: body(Seed.suspendedCard, "AAEC"))
            #expect(suspended.json?["error_code"]?.stringValue == MarqetaSimulatorErrors.cardNotActive)
            let notBase64 = try await Self.send(handle, .post, "/digitalwalletprovisionrequests/applepay", body: body(Seed.activeCard, "nonce!"))
            #expect(notBase64.status == 400)
            let ok = try await Self.send(handle, .post, "/digitalwalletprovisionrequests/applepay", body: body(Seed.activeCard, "AAEC"))
            #expect(ok.status == 201)
            #expect(ok.json?["encrypted_pass_data"]?.stringValue.flatMap { Data(base64Encoded: $0) } != nil)
            let entry = try #require(handle.journal.entries().last)
            let journaled = try #require(try? JSONValue.parse(entry.body))
            #expect(journaled["nonce"]?.stringValue == JournalEntry.maskedValue)
            #expect(journaled["nonce_signature"]?.stringValue == JournalEntry.maskedValue)
            // The shared kit masks string values only: the `certificates` array is journaled as sent (a limit of
            // RequestJournal.maskedBody, reported; Apple's certificates are public, the nonce and signature are not).
            let watch = try await Self.send(
                handle, .post, "/digitalwalletprovisionrequests/samsungpay",
                body: #"{"card_token":"\#(Seed.activeCard)","device_type":"WATCH","provisioning_app_version":"1.0","device_id":"0123456789012345678901234","wallet_user_id":"u"}"#
            )
            #expect(watch.status == 400)
        }
    }

    @Test("faults from the shared kit answer in Marqeta's shape; reset restores the seed")
    func faultsAndReset() async throws {
        let simulator = MarqetaSimulator()
        try await withSimulator(simulator) { handle in
            handle.faults.inject(FaultRule(count: 1, pathPrefix: "/v3/cards/", method: "GET", action: .status(503, retryAfterSeconds: 2, message: "maintenance")))
            let faulted = try await Self.send(handle, .get, "/cards/\(Seed.activeCard)")
            #expect(faulted.status == 503)
            #expect(faulted.json?["error_code"]?.stringValue == "503000")
            #expect(faulted.json?["error_message"]?.stringValue == "maintenance")
            _ = try await Self.send(handle, .post, "/cardtransitions", body: #"{"card_token":"\#(Seed.activeCard)","state":"TERMINATED","channel":"API"}"#)
            #expect(simulator.cardState(Seed.activeCard) == "TERMINATED")
            await simulator.reset()
            #expect(simulator.cardState(Seed.activeCard) == "ACTIVE")
        }
    }
}
