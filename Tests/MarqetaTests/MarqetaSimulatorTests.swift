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
@Suite("Marqeta simulator", .timeLimit(.minutes(5)))
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
        let request = HTTPRequest(
            method: method, scheme: "http", authority: "127.0.0.1:\(handle.port)", path: "/v3" + path,
            headerFields: fields)
        let response = try await AsyncHTTPClientTransport().send(
            request, body: body.map { Data($0.utf8) }, timeout: .seconds(30))
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
            // `pan` is required by `card_response` and masked without `show_pan`: never a whole card number.
            #expect(card.json?["pan"]?.stringValue == "111111______4242")
            #expect(card.json?["barcode"]?.stringValue?.isEmpty == false)
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
                try await Self.send(
                    handle, .post, "/cardtransitions",
                    body: #"{"card_token":"\#(card)","state":"\#(state)","channel":"API","reason_code":"01"}"#)
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
            let badReason = try await Self.send(
                handle, .post, "/cardtransitions",
                body: #"{"card_token":"\#(Seed.activeCard)","state":"SUSPENDED","channel":"API","reason_code":"99"}"#)
            #expect(badReason.status == 400)
        }
    }

    @Test(
        "token state machine: refusals are 422 with 422003 (final state) or 422004 (already in it); the answer names the token only"
    )
    func tokenStateMachine() async throws {
        try await withSimulator(MarqetaSimulator()) { handle in
            let final = try await Self.send(
                handle, .post, "/digitalwallettokentransitions",
                body: #"{"digital_wallet_token":{"token":"\#(Seed.terminatedToken)"},"state":"ACTIVE","channel":"API"}"#
            )
            #expect(final.status == 422)
            #expect(final.json?["error_code"]?.stringValue == "422003")
            #expect(final.json?["error_code"]?.stringValue == MarqetaSimulatorErrors.illegalTokenTransition)
            let same = try await Self.send(
                handle, .post, "/digitalwallettokentransitions",
                body:
                    #"{"digital_wallet_token":{"token":"\#(Seed.suspendedToken)"},"state":"SUSPENDED","channel":"API"}"#
            )
            #expect(same.status == 422)
            #expect(same.json?["error_code"]?.stringValue == "422004")
            let otherCard = try await Self.send(
                handle, .post, "/digitalwallettokentransitions",
                body:
                    #"{"digital_wallet_token":{"token":"\#(Seed.activeToken)","card_token":"\#(Seed.activeCard)"},"state":"SUSPENDED"}"#
            )
            #expect(otherCard.status == 404)
            let suspended = try await Self.send(
                handle, .post, "/digitalwallettokentransitions",
                body: #"{"digital_wallet_token":{"token":"\#(Seed.activeToken)"},"state":"SUSPENDED","channel":"API"}"#)
            #expect(suspended.status == 201)
            #expect(suspended.json?["state"]?.stringValue == "SUSPENDED")
            #expect(suspended.json?["type"]?.stringValue == "state.suspended")
            // digital_wallet_token_transition_response: `digital_wallet_token` is a digital_wallet_token_hash.
            #expect(
                suspended.json?["digital_wallet_token"] == .object(["token": .string(Seed.activeToken)]))
            #expect(suspended.json?["reason_code"] == nil)
        }
    }

    @Test("lists are newest first by default (-lastModifiedTime for cards, -createdTime for tokens) and follow sort_by")
    func listOrder() async throws {
        try await withSimulator(MarqetaSimulator()) { handle in
            func tokens(_ query: String) async throws -> [String] {
                try await Self.send(handle, .get, "/cards/user/\(Seed.userToken)?count=10" + query).json?["data"]?
                    .arrayValue?.compactMap { $0["token"]?.stringValue } ?? []
            }
            let seededOrder = [
                Seed.activeCard, Seed.lockableCard, Seed.cancellableCard, Seed.suspendedCard, Seed.unactivatedCard,
                Seed.terminatedCard, Seed.walletCard,
            ]
            #expect(try await tokens("") == seededOrder.reversed())
            #expect(try await tokens("&sort_by=createdTime") == seededOrder)
            #expect(try await tokens("&sort_by=-createdTime") == seededOrder.reversed())
            #expect(try await tokens("&sort_by=lastModifiedTime") == seededOrder)
            #expect(
                try await tokens("&sort_by=last_four") == [
                    Seed.cancellableCard, Seed.terminatedCard, Seed.lockableCard, Seed.suspendedCard, Seed.activeCard,
                    Seed.walletCard, Seed.unactivatedCard,
                ])
            let bogus = try await Self.send(handle, .get, "/cards/user/\(Seed.userToken)?sort_by=colour")
            #expect(bogus.status == 400)
            #expect(bogus.json?["error_code"]?.stringValue == MarqetaSimulatorErrors.invalidField)

            // A transition modifies the card: it comes first by -lastModifiedTime, but keeps its place by creation.
            let lock = try await Self.send(
                handle, .post, "/cardtransitions",
                body: #"{"card_token":"\#(Seed.lockableCard)","state":"SUSPENDED","channel":"API"}"#)
            #expect(lock.status == 201)
            #expect(try await tokens("").first == Seed.lockableCard)
            #expect(try await tokens("&sort_by=createdTime") == seededOrder)
            let firstPage = try await Self.send(handle, .get, "/cards/user/\(Seed.userToken)?count=2")
            #expect(
                firstPage.json?["data"]?.arrayValue?.compactMap { $0["token"]?.stringValue } == [
                    Seed.lockableCard, Seed.walletCard,
                ])

            func walletTokens(_ query: String) async throws -> [String] {
                try await Self.send(handle, .get, "/digitalwallettokens/card/\(Seed.walletCard)?count=10" + query)
                    .json?["data"]?.arrayValue?.compactMap { $0["token"]?.stringValue } ?? []
            }
            let tokenOrder = [Seed.activeToken, Seed.deletableToken, Seed.terminatedToken, Seed.suspendedToken]
            #expect(try await walletTokens("") == tokenOrder.reversed())
            #expect(try await walletTokens("&sort_by=createdTime") == tokenOrder)
        }
    }

    @Test(
        "idempotency by token: the same token and payload answer the first object again with no second effect; another payload is 409"
    )
    func idempotentReplay() async throws {
        try await withSimulator(MarqetaSimulator()) { handle in
            func count() async throws -> Int? {
                try await Self.send(handle, .get, "/cards/user/\(Seed.emptyUserToken)?count=100").json?["data"]?
                    .arrayValue?.count
            }
            // POST /cards
            let create =
                #"{"token":"card_idem_0001","user_token":"\#(Seed.emptyUserToken)","card_product_token":"\#(Seed.virtualProduct)"}"#
            let first = try await Self.send(handle, .post, "/cards", body: create)
            #expect(first.status == 201)
            #expect(first.json?["token"]?.stringValue == "card_idem_0001")
            // The same members in another order are the same payload.
            let reordered =
                #"{"card_product_token":"\#(Seed.virtualProduct)","user_token":"\#(Seed.emptyUserToken)","token":"card_idem_0001"}"#
            let again = try await Self.send(handle, .post, "/cards", body: reordered)
            #expect(again.status == 201)
            #expect(again.body == first.body)
            #expect(try await count() == 1)
            let journal = handle.journal.entries(method: "POST", pathContains: "/v3/cards")
            #expect(journal.map(\.handling) == [.executed, .replayed])
            let different =
                #"{"token":"card_idem_0001","user_token":"\#(Seed.emptyUserToken)","card_product_token":"\#(Seed.physicalProduct)"}"#
            let conflict = try await Self.send(handle, .post, "/cards", body: different)
            #expect(conflict.status == 409)
            #expect(conflict.json?["error_message"]?.stringValue == "Token already associated with a different payload")
            #expect(conflict.json?["error_code"]?.stringValue?.hasPrefix("409") == true)
            #expect(try await count() == 1)
            // Taken by a card that exists (seeded): 409 as well.
            let taken =
                #"{"token":"\#(Seed.activeCard)","user_token":"\#(Seed.emptyUserToken)","card_product_token":"\#(Seed.virtualProduct)"}"#
            #expect(try await Self.send(handle, .post, "/cards", body: taken).status == 409)
            // Without a token the simulator mints one per call: two cards.
            let untokened = #"{"user_token":"\#(Seed.emptyUserToken)","card_product_token":"\#(Seed.virtualProduct)"}"#
            let minted = [
                try await Self.send(handle, .post, "/cards", body: untokened),
                try await Self.send(handle, .post, "/cards", body: untokened),
            ]
            #expect(minted.map(\.status) == [201, 201])
            #expect(minted[0].json?["token"] != minted[1].json?["token"])
            #expect(try await count() == 3)

            // POST /cardtransitions: a replay after the card moved on answers the first transition and changes nothing.
            let suspend =
                #"{"token":"ct_idem_0001","card_token":"\#(Seed.lockableCard)","state":"SUSPENDED","channel":"API","reason_code":"01"}"#
            let suspended = try await Self.send(handle, .post, "/cardtransitions", body: suspend)
            #expect(suspended.status == 201)
            #expect(suspended.json?["token"]?.stringValue == "ct_idem_0001")
            let reinstate = try await Self.send(
                handle, .post, "/cardtransitions",
                body: #"{"card_token":"\#(Seed.lockableCard)","state":"ACTIVE","channel":"API"}"#)
            #expect(reinstate.status == 201)
            let replayed = try await Self.send(handle, .post, "/cardtransitions", body: suspend)
            #expect(replayed.status == 201)
            #expect(replayed.body == suspended.body)
            #expect(handle.journal.entries().last?.handling == .replayed)
            let card = try await Self.send(handle, .get, "/cards/\(Seed.lockableCard)")
            #expect(card.json?["state"]?.stringValue == "ACTIVE")
            let otherState =
                #"{"token":"ct_idem_0001","card_token":"\#(Seed.lockableCard)","state":"TERMINATED","channel":"API","reason_code":"01"}"#
            let refused = try await Self.send(handle, .post, "/cardtransitions", body: otherState)
            #expect(refused.status == 409)
            #expect(refused.json?["error_message"]?.stringValue == "Token already associated with a different payload")
            #expect(
                try await Self.send(handle, .get, "/cards/\(Seed.lockableCard)").json?["state"]?.stringValue == "ACTIVE"
            )

            // POST /digitalwallettokentransitions
            let tokenSuspend =
                #"{"token":"dwtt_idem_0001","digital_wallet_token":{"token":"\#(Seed.deletableToken)"},"state":"SUSPENDED","channel":"API"}"#
            let tokenFirst = try await Self.send(handle, .post, "/digitalwallettokentransitions", body: tokenSuspend)
            #expect(tokenFirst.status == 201)
            #expect(tokenFirst.json?["token"]?.stringValue == "dwtt_idem_0001")
            let tokenAgain = try await Self.send(handle, .post, "/digitalwallettokentransitions", body: tokenSuspend)
            #expect(tokenAgain.status == 201)
            #expect(tokenAgain.body == tokenFirst.body)
            #expect(handle.journal.entries().last?.handling == .replayed)
            let tokenOther =
                #"{"token":"dwtt_idem_0001","digital_wallet_token":{"token":"\#(Seed.deletableToken)"},"state":"TERMINATED","channel":"API"}"#
            let tokenConflict = try await Self.send(handle, .post, "/digitalwallettokentransitions", body: tokenOther)
            #expect(tokenConflict.status == 409)
            #expect(
                tokenConflict.json?["error_message"]?.stringValue == "Token already associated with a different payload"
            )

            // A refused first request leaves its token free; an over-long token is refused.
            let badFirst =
                #"{"token":"ct_idem_0002","card_token":"\#(Seed.terminatedCard)","state":"ACTIVE","channel":"API"}"#
            #expect(try await Self.send(handle, .post, "/cardtransitions", body: badFirst).status == 400)
            let goodAfter =
                #"{"token":"ct_idem_0002","card_token":"\#(Seed.cancellableCard)","state":"SUSPENDED","channel":"API"}"#
            #expect(try await Self.send(handle, .post, "/cardtransitions", body: goodAfter).status == 201)
            let longToken = String(repeating: "t", count: 37)
            let tooLong = try await Self.send(
                handle, .post, "/cardtransitions",
                body:
                    #"{"token":"\#(longToken)","card_token":"\#(Seed.cancellableCard)","state":"ACTIVE","channel":"API"}"#
            )
            #expect(tooLong.status == 400)
            #expect(tooLong.json?["error_code"]?.stringValue == MarqetaSimulatorErrors.invalidField)
        }
    }

    @Test(
        "provisioning bounds and device types from Marqeta's document",
        arguments: [
            // (wallet, field, longest allowed)
            ("androidpay", "device_id", 24), ("androidpay", "wallet_account_id", 50), ("samsungpay", "device_id", 24),
            ("samsungpay", "wallet_user_id", 50),
            ("androidpay", "provisioning_app_version", 50), ("samsungpay", "provisioning_app_version", 50),
        ]
    )
    func provisioningBounds(wallet: String, field: String, longest: Int) async throws {
        try await withSimulator(MarqetaSimulator()) { handle in
            func body(_ value: String) throws -> String {
                var members = [
                    "card_token": Seed.activeCard, "device_type": "MOBILE_PHONE", "provisioning_app_version": "1.0",
                    "device_id": "device",
                    wallet == "samsungpay" ? "wallet_user_id" : "wallet_account_id": "wallet",
                ]
                members[field] = value
                return String(
                    decoding: try JSONSerialization.data(withJSONObject: members, options: [.sortedKeys]), as: UTF8.self
                )
            }
            let path = "/digitalwalletprovisionrequests/\(wallet)"
            #expect(
                try await Self.send(handle, .post, path, body: try body(String(repeating: "a", count: longest))).status
                    == 201)
            for refused in [String(repeating: "a", count: longest + 1), ""] {
                let answer = try await Self.send(handle, .post, path, body: try body(refused))
                #expect(answer.status == 400, "\(field) of \(refused.count) chars")
                #expect(answer.json?["error_code"]?.stringValue == MarqetaSimulatorErrors.invalidField)
                #expect(answer.json?["error_message"]?.stringValue?.contains(field) == true)
            }
        }
    }

    @Test(
        "every device_type the document lists is accepted; others are refused",
        arguments: ["androidpay", "samsungpay", "applepay"])
    func deviceTypes(wallet: String) async throws {
        try await withSimulator(MarqetaSimulator()) { handle in
            func body(_ device: String) -> String {
                let walletMembers =
                    wallet == "applepay"
                    ? #""certificates":["AAEC"],"nonce":"AAEC","nonce_signature":"AAEC""#
                    : wallet == "samsungpay"
                        ? #""wallet_user_id":"w","device_id":"d""# : #""wallet_account_id":"w","device_id":"d""#
                return
                    #"{"card_token":"\#(Seed.activeCard)","device_type":"\#(device)","provisioning_app_version":"1.0",\#(walletMembers)}"#
            }
            for device in [
                "MOBILE_PHONE", "WATCH", "TABLET", "WEARABLE_DEVICE", "HOUSEHOLD_DEVICE", "AUTOMOBILE_DEVICE",
            ] {
                #expect(
                    try await Self.send(handle, .post, "/digitalwalletprovisionrequests/\(wallet)", body: body(device))
                        .status == 201, "\(device)")
            }
            for device in ["PHONE", "mobile_phone", "LAPTOP"] {
                let refused = try await Self.send(
                    handle, .post, "/digitalwalletprovisionrequests/\(wallet)", body: body(device))
                #expect(refused.status == 400, "\(device)")
                #expect(refused.json?["error_code"]?.stringValue == MarqetaSimulatorErrors.invalidField)
            }
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
            let suspended = try await Self.send(
                handle, .post, "/digitalwalletprovisionrequests/applepay", body: body(Seed.suspendedCard, "AAEC"))
            #expect(suspended.json?["error_code"]?.stringValue == MarqetaSimulatorErrors.cardNotActive)
            let notBase64 = try await Self.send(
                handle, .post, "/digitalwalletprovisionrequests/applepay", body: body(Seed.activeCard, "nonce!"))
            #expect(notBase64.status == 400)
            let ok = try await Self.send(
                handle, .post, "/digitalwalletprovisionrequests/applepay", body: body(Seed.activeCard, "AAEC"))
            #expect(ok.status == 201)
            #expect(ok.json?["encrypted_pass_data"]?.stringValue.flatMap { Data(base64Encoded: $0) } != nil)
            let entry = try #require(handle.journal.entries().last)
            let journaled = try #require(try? JSONValue.parse(entry.body))
            #expect(journaled["nonce"]?.stringValue == JournalEntry.maskedValue)
            #expect(journaled["nonce_signature"]?.stringValue == JournalEntry.maskedValue)
            #expect(journaled["certificates"]?.stringValue == JournalEntry.maskedValue)
            let watch = try await Self.send(
                handle, .post, "/digitalwalletprovisionrequests/samsungpay",
                body:
                    #"{"card_token":"\#(Seed.activeCard)","device_type":"WATCH","provisioning_app_version":"1.0","device_id":"0123456789012345678901234","wallet_user_id":"u"}"#
            )
            #expect(watch.status == 400)
        }
    }

    @Test("faults from the shared kit answer in Marqeta's shape; reset restores the seed")
    func faultsAndReset() async throws {
        let simulator = MarqetaSimulator()
        try await withSimulator(simulator) { handle in
            handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/v3/cards/", method: "GET",
                    action: .status(503, retryAfterSeconds: 2, message: "maintenance")))
            let faulted = try await Self.send(handle, .get, "/cards/\(Seed.activeCard)")
            #expect(faulted.status == 503)
            #expect(faulted.json?["error_code"]?.stringValue == "503000")
            #expect(faulted.json?["error_message"]?.stringValue == "maintenance")
            _ = try await Self.send(
                handle, .post, "/cardtransitions",
                body: #"{"card_token":"\#(Seed.activeCard)","state":"TERMINATED","channel":"API"}"#)
            #expect(simulator.cardState(Seed.activeCard) == "TERMINATED")
            let create =
                #"{"token":"card_reset_0001","user_token":"\#(Seed.emptyUserToken)","card_product_token":"\#(Seed.virtualProduct)"}"#
            #expect(try await Self.send(handle, .post, "/cards", body: create).status == 201)
            await simulator.reset()
            #expect(simulator.cardState(Seed.activeCard) == "ACTIVE")
            // The reset forgets the tokens too: the same creation runs again (not a replay).
            #expect(try await Self.send(handle, .post, "/cards", body: create).status == 201)
            #expect(handle.journal.entries().last?.handling == .executed)
        }
    }
}
