import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import Testing

@testable import CardGatewayStripe
@testable import StripeSimulator
import SharedTestSupport

@Suite("Stripe simulator over raw HTTP", .timeLimit(.minutes(5)))
struct StripeSimulatorTests {
    let credentials = StripeSimulator.Credentials.default

    @Test func authenticationFailuresInStripesShape() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let raw = RawClient(handle: handle, key: nil)
            let missing = try await raw.send(.get, "/v1/issuing/cards/\(Seed.activeCardID)")
            #expect(missing.status == 401)
            #expect(missing.error("type") == "invalid_request_error")
            #expect(missing.error("message")?.contains("Authorization") == true)
            #expect(missing.header("Request-Id")?.hasPrefix("req_") == true)

            let wrongKey = "sk_test_NotTheSimulatorsKey1234"
            let wrong = try await raw.send(
                .get, "/v1/issuing/cards/\(Seed.activeCardID)", authorization: "Bearer \(wrongKey)")
            #expect(wrong.status == 401)
            #expect(wrong.error("message")?.contains("sk_test_****1234") == true)
            #expect(wrong.text.contains(wrongKey) == false)

            let basic = Data("\(credentials.testSecretKey):".utf8).base64EncodedString()
            let viaBasic = try await raw.send(
                .get, "/v1/issuing/cards/\(Seed.activeCardID)", authorization: "Basic \(basic)")
            #expect(viaBasic.status == 200)
            #expect(viaBasic.json?["livemode"] == .bool(false))

            let live = try await RawClient(handle: handle, key: credentials.liveSecretKey).send(
                .get, "/v1/issuing/cards/\(Seed.activeCardID)")
            #expect(live.json?["livemode"] == .bool(true))

            let otherAccount = try await RawClient(handle: handle).send(
                .get, "/v1/issuing/cards", headers: ["Stripe-Account": "acct_unknown"])
            #expect(otherAccount.status == 403)
            let connected = try await RawClient(handle: handle).send(
                .get, "/v1/issuing/cards", headers: ["Stripe-Account": Seed.connectedAccountID])
            #expect(connected.status == 200)
        }
    }

    @Test func everyResponseHasARequestIDAndUnknownRoutesAnswerInStripesShape() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let raw = RawClient(handle: handle)
            let first = try await raw.send(.get, "/v1/issuing/cards/\(Seed.activeCardID)")
            let second = try await raw.send(.get, "/v1/issuing/nothing_here")
            #expect(second.status == 404)
            #expect(second.error("type") == "invalid_request_error")
            #expect(
                second.error("message")?.hasPrefix("Unrecognized request URL (GET: /v1/issuing/nothing_here).") == true)
            let ids = [first.header("Request-Id"), second.header("Request-Id")]
            #expect(ids.allSatisfy { $0?.hasPrefix("req_") == true })
            #expect(ids[0] != ids[1])
            #expect(first.header("Stripe-Version") == Seed.accountAPIVersion)
        }
    }

    @Test func cardObjectHasStripesFieldsAndPrefixes() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let card = try #require(
                try await RawClient(handle: handle).send(.get, "/v1/issuing/cards/\(Seed.activeCardID)").json)
            #expect(card["object"] == .string("issuing.card"))
            #expect(card["id"]?.stringValue?.hasPrefix("ic_") == true)
            #expect(card["cardholder"]?["object"] == .string("issuing.cardholder"))
            #expect(card["cardholder"]?["id"]?.stringValue?.hasPrefix("ich_") == true)
            #expect(card["exp_month"] == .number(8))
            #expect(card["wallets"]?["apple_pay"]?["eligible"] == .bool(true))
            #expect(card["wallets"]?["apple_pay"]?["ineligible_reason"] == .null)
            #expect(card["wallets"]?["primary_account_identifier"] == .string(Seed.primaryAccountIdentifier))
            #expect(card["cancellation_reason"] == .null)

            let noPAI = try await RawClient(handle: handle).send(
                .get, "/v1/issuing/cards/\(Seed.activeCardWithoutPrimaryAccountIdentifierID)"
            ).json
            #expect(noPAI?["wallets"]?["primary_account_identifier"] == .null)
            let region = try await RawClient(handle: handle).send(
                .get, "/v1/issuing/cards/\(Seed.unsupportedRegionCardID)"
            ).json
            #expect(region?["wallets"]?["apple_pay"]?["ineligible_reason"] == .string("unsupported_region"))
        }
    }

    @Test func ephemeralKeysNeedStripeVersion() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let raw = RawClient(handle: handle)
            let missing = try await raw.send(.post, "/v1/ephemeral_keys", form: "issuing_card=\(Seed.activeCardID)")
            #expect(missing.status == 400)
            #expect(missing.error("type") == "invalid_request_error")
            #expect(missing.error("message")?.contains("Stripe-Version") == true)

            let malformed = try await raw.send(
                .post, "/v1/ephemeral_keys", form: "issuing_card=\(Seed.activeCardID)",
                headers: ["Stripe-Version": "yesterday"])
            #expect(malformed.status == 400)

            let created = try await raw.send(
                .post, "/v1/ephemeral_keys", form: "issuing_card=\(Seed.activeCardID)",
                headers: ["Stripe-Version": "2020-08-27"])
            #expect(created.status == 200)
            let key = try #require(created.json)
            #expect(key["object"] == .string("ephemeral_key"))
            #expect(key["id"]?.stringValue?.hasPrefix("ephkey_") == true)
            #expect(key["secret"]?.stringValue?.hasPrefix("ek_test_") == true)
            #expect(key["created"] == .number(simulatorEpoch.timeIntervalSince1970))
            #expect(key["expires"] == .number(simulatorEpoch.timeIntervalSince1970 + 3600))
            #expect(
                key["associated_objects"]
                    == .array([.object(["id": .string(Seed.activeCardID), "type": .string("issuing.card")])]))
            #expect(created.header("Stripe-Version") == "2020-08-27")

            let unknownCard = try await raw.send(
                .post, "/v1/ephemeral_keys", form: "issuing_card=ic_nope", headers: ["Stripe-Version": "2020-08-27"])
            #expect(unknownCard.status == 400)
            #expect(unknownCard.error("code") == "resource_missing")
            #expect(unknownCard.error("param") == "issuing_card")

            let twoScopes = try await raw.send(
                .post, "/v1/ephemeral_keys", form: "issuing_card=\(Seed.activeCardID)&customer=cus_1",
                headers: ["Stripe-Version": "2020-08-27"])
            #expect(twoScopes.status == 400)
        }
    }

    @Test func ephemeralKeysExpireAfterAnHourAndCanBeRevoked() async throws {
        let clock = SimulationClock(fixed: simulatorEpoch)
        try await withSimulator(StripeSimulator(clock: clock)) { handle in
            let raw = RawClient(handle: handle)
            func mint() async throws -> JSONValue {
                try #require(
                    try await raw.send(
                        .post, "/v1/ephemeral_keys", form: "issuing_card=\(Seed.activeCardID)",
                        headers: ["Stripe-Version": "2020-08-27"]
                    ).json)
            }
            func details(_ key: JSONValue, version: String = "2020-08-27") async throws -> RawResponse {
                let query =
                    "ios[certificates][]=\(Data("leaf".utf8).base64EncodedString())&ios[nonce]=0a0b&ios[nonce_signature]=ff00"
                return try await raw.send(
                    .get, "/v1/issuing/cards/\(Seed.activeCardID)/push_provisioning_details?\(query)",
                    headers: ["Stripe-Version": version], authorization: "Bearer \(key["secret"]?.stringValue ?? "")"
                )
            }
            let key = try await mint()
            let fresh = try await details(key)
            #expect(fresh.status == 200)
            #expect(fresh.json?["object"] == .string("issuing.push_provisioning_details"))
            #expect(fresh.json?["activation_data"]?.stringValue?.isEmpty == false)
            #expect(try await details(key, version: "2024-06-20").status == 400)

            clock.advance(by: 3599)
            #expect(try await details(key).status == 200)
            clock.advance(by: 1)
            let expired = try await details(key)
            #expect(expired.status == 401)
            #expect(expired.error("code") == "api_key_expired")

            let second = try await mint()
            let id = try #require(second["id"]?.stringValue)
            let revoked = try await raw.send(.delete, "/v1/ephemeral_keys/\(id)")
            #expect(revoked.status == 200)
            #expect(revoked.json?["secret"] == nil)
            #expect(revoked.json?["expires"] == .number(clock.now().timeIntervalSince1970))
            #expect(try await details(second).status == 401)
            let again = try await raw.send(.delete, "/v1/ephemeral_keys/\(id)")
            #expect(again.status == 404)
            #expect(again.error("code") == "resource_missing")
        }
    }

    @Test func idempotencyReplayConflictAndScope() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let raw = RawClient(handle: handle)
            let form = "issuing_card=\(Seed.activeCardID)"
            let headers = ["Stripe-Version": "2020-08-27", "Idempotency-Key": "key-1"]
            let first = try await raw.send(.post, "/v1/ephemeral_keys", form: form, headers: headers)
            let replay = try await raw.send(.post, "/v1/ephemeral_keys", form: form, headers: headers)
            #expect(first.status == 200)
            #expect(replay.body == first.body)
            #expect(replay.header("Idempotent-Replayed") == "true")
            #expect(first.header("Idempotent-Replayed") == nil)
            #expect(replay.header("Original-Request") == first.header("Request-Id"))
            #expect(replay.header("Request-Id") != first.header("Request-Id"))

            let conflict = try await raw.send(
                .post, "/v1/ephemeral_keys", form: "issuing_card=\(Seed.inactiveCardID)", headers: headers)
            #expect(conflict.status == 400)
            #expect(conflict.error("type") == "idempotency_error")
            #expect(conflict.header("Stripe-Should-Retry") == "false")
            #expect(first.header("Stripe-Should-Retry") == nil)

            let otherEndpoint = try await raw.send(
                .post, "/v1/issuing/cards/\(Seed.inactiveCardID)", form: "status=inactive",
                headers: ["Idempotency-Key": "key-1"])
            #expect(otherEndpoint.error("type") == "idempotency_error")

            let liveKey = try await RawClient(handle: handle, key: credentials.liveSecretKey).send(
                .post, "/v1/ephemeral_keys", form: form, headers: headers)
            #expect(liveKey.status == 200)
            #expect(liveKey.header("Idempotent-Replayed") == nil)
            #expect(liveKey.json?["livemode"] == .bool(true))
            #expect(liveKey.json?["secret"]?.stringValue?.hasPrefix("ek_live_") == true)
        }
    }

    @Test func aFiveHundredFromInsideIsReplayedButValidationErrorsAreNot() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let raw = RawClient(handle: handle)
            let headers = ["Stripe-Version": "2020-08-27", "Idempotency-Key": "key-500"]
            let failed = try await raw.send(
                .post, "/v1/ephemeral_keys", form: "issuing_card=\(Seed.internalErrorCardID)", headers: headers)
            #expect(failed.status == 500)
            #expect(failed.error("type") == "api_error")
            let replayed = try await raw.send(
                .post, "/v1/ephemeral_keys", form: "issuing_card=\(Seed.internalErrorCardID)", headers: headers)
            #expect(replayed.status == 500)
            #expect(replayed.header("Idempotent-Replayed") == "true")
            #expect(replayed.body == failed.body)

            let invalidHeaders = ["Idempotency-Key": "key-400"]
            let invalid = try await raw.send(
                .post, "/v1/ephemeral_keys", form: "issuing_card=\(Seed.activeCardID)", headers: invalidHeaders)
            #expect(invalid.status == 400)
            let valid = try await raw.send(
                .post, "/v1/ephemeral_keys", form: "issuing_card=\(Seed.activeCardID)",
                headers: invalidHeaders.merging(["Stripe-Version": "2020-08-27"]) { a, _ in a })
            #expect(valid.status == 200)
            #expect(valid.header("Idempotent-Replayed") == nil)

            let tooLong = try await raw.send(
                .post, "/v1/issuing/cards/\(Seed.inactiveCardID)", form: "status=inactive",
                headers: ["Idempotency-Key": String(repeating: "k", count: 256)])
            #expect(tooLong.status == 400)
        }
    }

    @Test func formDecodingNestedKeysUnknownParametersAndExpansions() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let raw = RawClient(handle: handle)
            let updated = try await raw.send(
                .post, "/v1/issuing/cards/\(Seed.inactiveCardID)",
                form: "metadata[order]=A%20b%26c&metadata%5Bteam%5D=ops+east&status=active")
            #expect(updated.status == 200)
            #expect(updated.json?["metadata"] == .object(["order": .string("A b&c"), "team": .string("ops east")]))
            #expect(updated.json?["status"] == .string("active"))

            let unknown = try await raw.send(
                .post, "/v1/issuing/cards/\(Seed.inactiveCardID)", form: "colour[primary]=red")
            #expect(unknown.status == 400)
            #expect(unknown.error("code") == "parameter_unknown")
            #expect(unknown.error("param") == "colour")

            let badStatus = try await raw.send(.post, "/v1/issuing/cards/\(Seed.inactiveCardID)", form: "status=frozen")
            #expect(badStatus.error("param") == "status")

            let expandCardholder = try await raw.send(
                .get, "/v1/issuing/cards/\(Seed.activeCardID)?expand[]=cardholder")
            #expect(expandCardholder.status == 400)
            #expect(expandCardholder.error("param") == "expand")

            let expandedToken = try await raw.send(
                .get, "/v1/issuing/tokens/\(Seed.activeApplePayTokenID)?expand[0]=card&expand[1]=network_data")
            #expect(expandedToken.json?["card"]?["object"] == .string("issuing.card"))
            #expect(expandedToken.json?["network_data"]?["type"] == .string("visa"))
        }
    }

    @Test func cursorPagingOverCards() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let raw = RawClient(handle: handle)
            var ids: [String] = []
            var path = "/v1/issuing/cards?limit=3"
            for _ in 0..<5 {
                let page = try #require(try await raw.send(.get, path).json)
                #expect(page["object"] == .string("list"))
                #expect(page["url"] == .string("/v1/issuing/cards"))
                let data = page["data"]?.arrayValue ?? []
                ids += data.compactMap { $0["id"]?.stringValue }
                guard page["has_more"] == .bool(true), let last = ids.last else { break }
                path = "/v1/issuing/cards?limit=3&starting_after=\(last)"
            }
            #expect(ids.count == 8)
            #expect(Set(ids).count == 8)
            #expect(ids.first == Seed.activeCardID)

            let before = try #require(
                try await raw.send(.get, "/v1/issuing/cards?limit=2&ending_before=\(ids[4])").json)
            #expect(before["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [ids[2], ids[3]])
            #expect(before["has_more"] == .bool(true))

            let filtered = try #require(try await raw.send(.get, "/v1/issuing/cards?status=canceled&type=virtual").json)
            #expect(filtered["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [Seed.canceledCardID])

            #expect(try await raw.send(.get, "/v1/issuing/cards?limit=101").status == 400)
            #expect(
                try await raw.send(.get, "/v1/issuing/cards?starting_after=ic_nope").error("param") == "starting_after")
        }
    }

    @Test func tokensNeedACardAndFollowTheirLifecycle() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let raw = RawClient(handle: handle)
            let noCard = try await raw.send(.get, "/v1/issuing/tokens")
            #expect(noCard.status == 400)
            #expect(noCard.error("code") == "parameter_missing")
            #expect(noCard.error("param") == "card")

            let list = try #require(try await raw.send(.get, "/v1/issuing/tokens?card=\(Seed.activeCardID)").json)
            #expect(list["data"]?.arrayValue?.count == 5)
            #expect(list["data"]?.arrayValue?.allSatisfy { $0["object"] == .string("issuing.token") } == true)
            let active = try #require(
                try await raw.send(.get, "/v1/issuing/tokens?card=\(Seed.activeCardID)&status=active").json)
            #expect(
                Set(active["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []) == [
                    Seed.activeApplePayTokenID, Seed.activeSamsungPayTokenID,
                ])

            let suspend = try await raw.send(
                .post, "/v1/issuing/tokens/\(Seed.activeApplePayTokenID)", form: "status=suspended")
            #expect(suspend.json?["status"] == .string("suspended"))
            let delete = try await raw.send(
                .post, "/v1/issuing/tokens/\(Seed.activeApplePayTokenID)", form: "status=deleted")
            #expect(delete.json?["status"] == .string("deleted"))
            let revive = try await raw.send(
                .post, "/v1/issuing/tokens/\(Seed.activeApplePayTokenID)", form: "status=active")
            #expect(revive.status == 400)
            #expect(revive.error("code") == "status_transition_invalid")
            let requested = try await raw.send(
                .post, "/v1/issuing/tokens/\(Seed.requestedGooglePayTokenID)", form: "status=active")
            #expect(requested.status == 400)
            #expect(try await raw.send(.get, "/v1/issuing/tokens/intok_nope").status == 404)
        }
    }

    @Test func networkDataOnlyWithin24Hours() async throws {
        let clock = SimulationClock(fixed: simulatorEpoch)
        try await withSimulator(StripeSimulator(clock: clock)) { handle async throws in
            let raw = RawClient(handle: handle)
            let path = "/v1/issuing/tokens/\(Seed.activeApplePayTokenID)?expand[]=network_data"
            #expect(try await raw.send(.get, path).json?["network_data"]?["device"]?["type"] == .string("phone"))
            #expect(
                try await raw.send(.get, "/v1/issuing/tokens/\(Seed.activeApplePayTokenID)").json?["network_data"]
                    == nil)
            clock.advance(by: 86_400)
            #expect(try await raw.send(.get, path).json?["network_data"] == nil)
        }
    }

    /// Stripe's `issuing.token.network_data` holds one hash named after the network (stripe-python issuing/_token.py
    /// `NetworkData.Mastercard` and `.Visa`): Mastercard's has `token_requestor_name`, Visa's `token_risk_score`.
    @Test func networkDataHasEachNetworksOwnShape() async throws {
        let clock = SimulationClock(fixed: simulatorEpoch)
        try await withSimulator(StripeSimulator(clock: clock)) { handle async throws in
            let raw = RawClient(handle: handle)
            func keys(_ value: JSONValue?) -> Set<String> { Set(value?.objectValue.map { Array($0.keys) } ?? []) }
            let mastercard = try #require(
                try await raw.send(
                    .get, "/v1/issuing/tokens/\(Seed.unsupportedRegionGooglePayTokenID)?expand[]=network_data"
                ).json?["network_data"]
            )
            #expect(mastercard["type"] == .string("mastercard"))
            #expect(mastercard["visa"] == nil)
            #expect(
                keys(mastercard["mastercard"]) == [
                    "card_reference_id", "token_reference_id", "token_requestor_id", "token_requestor_name",
                ])
            #expect(mastercard["mastercard"]?["token_requestor_id"] == .string("50120834693"))
            #expect(mastercard["mastercard"]?["token_requestor_name"] == .string("GOOGLE_PAY"))

            let visa = try #require(
                try await raw.send(.get, "/v1/issuing/tokens/\(Seed.activeApplePayTokenID)?expand[]=network_data")
                    .json?["network_data"])
            #expect(visa["type"] == .string("visa"))
            #expect(visa["mastercard"] == nil)
            #expect(
                keys(visa["visa"]) == [
                    "card_reference_id", "token_decision_recommendation", "token_reference_id", "token_requestor_id",
                    "token_risk_score",
                ])
            #expect(visa["visa"]?["token_requestor_id"] == .string("40010030273"))
        }
    }

    /// `personalization_design` is one of the card list's filters (stripe-python params/issuing/_card_list_params.py).
    @Test func cardListFiltersByPersonalizationDesign() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let raw = RawClient(handle: handle)
            let created = try await raw.send(
                .post, "/v1/issuing/cards",
                form:
                    "cardholder=\(Seed.cardholderID)&currency=usd&type=virtual&personalization_design=pd_1SimDesignBlue"
            )
            #expect(created.status == 200)
            #expect(created.json?["personalization_design"] == .string("pd_1SimDesignBlue"))
            let id = try #require(created.json?["id"]?.stringValue)
            let other = try await raw.send(
                .post, "/v1/issuing/cards", form: "cardholder=\(Seed.cardholderID)&currency=usd&type=virtual")
            #expect(other.json?["personalization_design"] == .null)

            let filtered = try await raw.send(
                .get, "/v1/issuing/cards?personalization_design=pd_1SimDesignBlue&limit=100")
            #expect(filtered.status == 200)
            #expect(filtered.json?["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [id])
            let none = try await raw.send(
                .get, "/v1/issuing/cards?personalization_design=pd_1SimNoSuchDesign&limit=100")
            #expect(none.status == 200)
            #expect(none.json?["data"]?.arrayValue?.isEmpty == true)
            let all = try await raw.send(.get, "/v1/issuing/cards?limit=100")
            #expect((all.json?["data"]?.arrayValue?.count ?? 0) > 1)
        }
    }

    @Test func cardStatusTransitions() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let raw = RawClient(handle: handle)
            let reactivate = try await raw.send(
                .post, "/v1/issuing/cards/\(Seed.canceledCardID)", form: "status=active")
            #expect(reactivate.status == 400)
            #expect(reactivate.error("code") == "status_transition_invalid")
            let reasonOnly = try await raw.send(
                .post, "/v1/issuing/cards/\(Seed.activeCardID)", form: "cancellation_reason=lost")
            #expect(reasonOnly.error("param") == "cancellation_reason")
            let cancel = try await raw.send(
                .post, "/v1/issuing/cards/\(Seed.activeCardID)", form: "status=canceled&cancellation_reason=stolen")
            #expect(cancel.json?["status"] == .string("canceled"))
            #expect(cancel.json?["cancellation_reason"] == .string("stolen"))
            #expect(
                try await raw.send(.get, "/v1/issuing/cards/\(Seed.activeCardID)").json?["status"]
                    == .string("canceled"))

            await handle.simulator.reset()
            #expect(
                try await raw.send(.get, "/v1/issuing/cards/\(Seed.activeCardID)").json?["status"] == .string("active"))
        }
    }

    @Test func faultResponsesUseStripesErrorShape() async throws {
        let simulator = SimulatorFixture.simulator()
        let unavailable = simulator.faultResponse(status: 503, message: "down")
        let body = try JSONValue.parse(unavailable.body)
        #expect(unavailable.status == 503)
        #expect(body["error"]?["type"] == .string("api_error"))
        #expect(body["error"]?["message"] == .string("down"))
        #expect(unavailable.header("Request-Id")?.hasPrefix("req_") == true)
        #expect(
            try JSONValue.parse(simulator.faultResponse(status: 429, message: "slow").body)["error"]?["code"]
                == .string("rate_limit"))
        #expect(
            try JSONValue.parse(simulator.faultResponse(status: 400, message: "bad").body)["error"]?["type"]
                == .string("invalid_request_error"))
    }

    @Test func signedWebhooksVerifyWithTheAdapter() throws {
        let simulator = SimulatorFixture.simulator()
        let card = try #require(simulator.cardObject(Seed.inactiveCardID))
        let delivery = simulator.signedWebhook(
            type: "issuing_card.updated", object: card, previousAttributes: ["status": "active"])
        var headers = HTTPFields()
        for (name, value) in delivery.headers { headers[HTTPField.Name(name)!] = value }
        let provider = try Fixture.provider(
            ScriptedTransport([]),
            configuration: StripeConfiguration(
                secretKey: Secret(credentials.testSecretKey), webhookSecret: Secret(credentials.webhookSecret)
            ))
        let events = try provider.verify(WebhookDelivery(headers: headers, body: delivery.body), now: simulatorEpoch)
        #expect(
            events.first?.event
                == .cardStatusChanged(
                    CardStatusChange(
                        card: CardRef(id: Seed.inactiveCardID), oldStatus: .active, newStatus: .inactive,
                        providerOldStatus: "active", providerNewStatus: "inactive"
                    )))

        let token = try #require(simulator.tokenObject(Seed.requestedGooglePayTokenID))
        let created = simulator.signedWebhook(type: "issuing_token.created", object: token)
        var tokenHeaders = HTTPFields()
        for (name, value) in created.headers { tokenHeaders[HTTPField.Name(name)!] = value }
        let tokenEvents = try provider.verify(
            WebhookDelivery(headers: tokenHeaders, body: created.body), now: simulatorEpoch)
        guard let event = tokenEvents.first?.event.walletTokenCreated else {
            Issue.record("expected walletTokenCreated")
            return
        }
        #expect(event.token.status == .requested)
        #expect(event.token.wallet == .googlePay)

        let wrong = simulator.signedWebhook(type: "issuing_card.updated", object: card, secret: "whsec_somebodyElse")
        var wrongHeaders = HTTPFields()
        for (name, value) in wrong.headers { wrongHeaders[HTTPField.Name(name)!] = value }
        let error = gatewayError {
            _ = try provider.verify(WebhookDelivery(headers: wrongHeaders, body: wrong.body), now: simulatorEpoch)
        }
        #expect(error?.code == .signatureInvalid)
    }
}
