import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import SharedTestSupport
import Testing

@_spi(AdapterSupport) @testable import CardGatewayLithic

/// Listing, issuance, card state changes and tokenization actions against the simulator, checked on the wire
/// (method, path, query, `Authorization`, JSON body) through the simulator's journal.
@Suite("Lithic lifecycle", .timeLimit(.minutes(5)))
struct LithicLifecycleTests {
    @Test("lock then unlock: PATCH state PAUSED (substatus from the reason) then OPEN; the lookup agrees")
    func lockUnlock() async throws {
        try await LithicFixture.withHarness { h in
            let card = CardRef(id: Seed.lockableCard)
            let before = h.journalCount
            let locked = try await h.provider.changeStatus(
                CardStatusRequest(card: card, intent: .lock, reason: .suspectedFraud, comment: "phone call"),
                context: h.context)
            #expect(locked.status == .locked)
            #expect(locked.providerStatus == "PAUSED")
            #expect(try await h.provider.card(card, context: h.context).status == .locked)
            let unlocked = try await h.provider.changeStatus(
                CardStatusRequest(card: card, intent: .unlock), context: h.context)
            #expect(unlocked.status == .active)
            #expect(h.simulator.cardState(Seed.lockableCard) == "OPEN")
            let writes = h.entries(since: before).filter { $0.method == "PATCH" }
            #expect(writes.map(\.path) == ["/v1/cards/\(Seed.lockableCard)", "/v1/cards/\(Seed.lockableCard)"])
            let bodies = writes.compactMap { h.json($0) }
            #expect(bodies.map { $0["state"]?.stringValue } == ["PAUSED", "OPEN"])
            #expect(bodies.first?["substatus"]?.stringValue == "SUSPICIOUS_ACTIVITY")
            #expect(bodies.first?["comment"]?.stringValue == "phone call")
            #expect(bodies.last?["substatus"] == nil)
            #expect(h.transport.requests.allSatisfy { $0.header("Authorization") == Seed.apiKey })
        }
    }

    @Test("cancel is final: CLOSED with substatus LOST, then unlock and lock are invalidCardState without a write")
    func cancelIsFinal() async throws {
        try await LithicFixture.withHarness { h in
            let card = CardRef(id: Seed.cancellableCard)
            let cancelled = try await h.provider.changeStatus(
                CardStatusRequest(card: card, intent: .cancel, reason: .lost), context: h.context)
            #expect(cancelled.status == .cancelled)
            let last = try #require(h.handle.journal.entries().last { $0.method == "PATCH" })
            #expect(h.json(last)?["state"]?.stringValue == "CLOSED")
            #expect(h.json(last)?["substatus"]?.stringValue == "LOST")
            let before = h.journalCount
            for intent in [CardStatusIntent.unlock, .lock] {
                let error = await gatewayError {
                    _ = try await h.provider.changeStatus(
                        CardStatusRequest(card: card, intent: intent), context: h.context)
                }
                #expect(error?.code == .invalidCardState)
            }
            #expect(h.entries(since: before).allSatisfy { $0.method == "GET" })
        }
    }

    @Test("listing pages by starting_after with page_size and account_token; one status is sent as state")
    func listing() async throws {
        try await LithicFixture.withHarness { h in
            var query: CardQuery? = CardQuery(customer: Seed.accountToken, limit: 3)
            var seen: [String] = []
            while let current = query {
                let page = try await h.provider.listCards(current, context: h.context)
                seen += page.cards.map(\.id)
                query = current.next(after: page)
            }
            #expect(seen.count == 7 && Set(seen).count == 7)
            let reads = h.handle.journal.entries().filter { $0.method == "GET" && $0.path == "/v1/cards" }
            #expect(reads.count == 3)
            #expect(
                reads.allSatisfy {
                    ($0.query ?? "").contains("page_size=3") && ($0.query ?? "").contains("account_token=")
                })
            #expect(reads.dropFirst().allSatisfy { ($0.query ?? "").contains("starting_after=") })
            let paused = try await h.provider.listCards(
                CardQuery(customer: Seed.accountToken, statuses: [.locked]), context: h.context)
            #expect(paused.cards.map(\.id) == [Seed.pausedCard])
            #expect(h.handle.journal.entries().last?.query?.contains("state=PAUSED") == true)
            let inactive = try await h.provider.listCards(
                CardQuery(customer: Seed.accountToken, statuses: [.inactive]), context: h.context)
            #expect(inactive.cards.map(\.id) == [Seed.pendingCard])
            #expect(h.handle.journal.entries().last?.query?.contains("state=") == false)
        }
    }

    @Test("an offset, a limit of 0 and a malformed account are refused before sending")
    func listingValidation() async throws {
        try await LithicFixture.withHarness { h in
            for query in [
                CardQuery(customer: Seed.accountToken, limit: 0), CardQuery(customer: Seed.accountToken, limit: 101),
                CardQuery(customer: Seed.accountToken, offset: 2), CardQuery(customer: "bad\u{1}account"),
            ] {
                let error = await gatewayError { _ = try await h.provider.listCards(query, context: h.context) }
                #expect(error?.code == .invalidRequest)
            }
            #expect(h.journalCount == 0)
        }
    }

    @Test(
        "create: POST /v1/cards VIRTUAL with account_token, card_program_token, memo and a UUID Idempotency-Key; a repeat with the same key is replayed"
    )
    func create() async throws {
        try await LithicFixture.withHarness(retry: .none) { h in
            let request = CreateCardRequest(
                customer: Seed.emptyAccountToken, type: .virtual, program: Seed.cardProgram, currency: "USD",
                externalID: "order-17")
            let context = OperationContext(idempotencyKey: "create-17")
            let card = try await h.provider.createCard(request, context: context)
            let again = try await h.provider.createCard(request, context: context)
            #expect(card.id == again.id)
            #expect(card.type == .virtual && card.status == .active && card.ref.customer == Seed.emptyAccountToken)
            let posts = h.handle.journal.entries().filter { $0.method == "POST" && $0.path == "/v1/cards" }
            #expect(posts.count == 2)
            let keys = posts.compactMap { $0.header("idempotency-key") }
            #expect(keys.count == 2 && keys[0] == keys[1] && UUID(uuidString: keys[0]) != nil)
            let body = try #require(h.json(posts[0]))
            #expect(body["type"]?.stringValue == "VIRTUAL")
            #expect(body["account_token"]?.stringValue == Seed.emptyAccountToken)
            #expect(body["card_program_token"]?.stringValue == Seed.cardProgram)
            #expect(body["memo"]?.stringValue == "order-17")
            let other = try await h.provider.createCard(request, context: OperationContext(idempotencyKey: "create-18"))
            #expect(other.id != card.id)
        }
    }

    @Test("create refuses a physical card, a PIN, a phone and a bad currency before sending, naming each")
    func createValidation() async throws {
        try await LithicFixture.withHarness { h in
            var request = CreateCardRequest(
                customer: Seed.emptyAccountToken, type: .physical, program: "", currency: "usd")
            request.pin = Secret("1234")
            request.mobile = "+15555550100"
            let error = await gatewayError { _ = try await h.provider.createCard(request, context: h.context) }
            #expect(error?.code == .invalidRequest)
            #expect(Set(error?.fieldErrors.map(\.field) ?? []) == ["type", "currency", "pin", "mobile"])
            #expect(h.journalCount == 0)
        }
    }

    @Test("tokenizations: listed by card_token; pause and unpause POST the action, then the token is read again")
    func tokenizations() async throws {
        try await LithicFixture.withHarness { h in
            let card = CardRef(id: Seed.walletCard)
            let tokens = try await h.provider.walletTokens(of: card, context: h.context)
            #expect(
                tokens.map(\.id) == [Seed.activeToken, Seed.deletableToken, Seed.deactivatedToken, Seed.pausedToken])
            #expect(tokens.map(\.status) == [.active, .active, .deleted, .suspended])
            #expect(tokens.map(\.wallet) == [.applePay, .googlePay, .samsungPay, .googlePay])
            #expect(tokens.first?.created != nil)
            let before = h.journalCount
            let paused = try await h.provider.changeWalletToken(
                WalletTokenRequest(card: card, token: Seed.activeToken, intent: .suspend), context: h.context)
            #expect(paused.status == .suspended && paused.providerStatus == "PAUSED")
            let resumed = try await h.provider.changeWalletToken(
                WalletTokenRequest(card: card, token: Seed.activeToken, intent: .resume), context: h.context)
            #expect(resumed.status == .active)
            let posts = h.entries(since: before).filter { $0.method == "POST" }.map(\.path)
            #expect(
                posts == [
                    "/v1/tokenizations/\(Seed.activeToken)/pause", "/v1/tokenizations/\(Seed.activeToken)/unpause",
                ])
            let deleted = try await h.provider.changeWalletToken(
                WalletTokenRequest(card: card, token: Seed.deletableToken, intent: .delete), context: h.context)
            #expect(deleted.status == .deleted)
            #expect(h.simulator.tokenStatus(Seed.deletableToken) == "DEACTIVATED")
            let error = await gatewayError {
                _ = try await h.provider.changeWalletToken(
                    WalletTokenRequest(card: card, token: Seed.deletableToken, intent: .resume), context: h.context)
            }
            #expect(error?.code == .invalidCardState)
        }
    }

    @Test("Lithic's 409 on a tokenization action is invalidCardState")
    func conflictIsInvalidCardState() async throws {
        let tokenization =
            #"{"data":[{"token":"\#(Seed.activeToken)","card_token":"\#(Seed.walletCard)","status":"ACTIVE","token_requestor_name":"APPLE_PAY"}],"has_more":false}"#
        let (provider, transport) = try LithicFixture.scripted([
            .json(200, tokenization),
            .json(
                409,
                #"{"message":"Only ACTIVE tokenizations can be paused.","debugging_request_id":"0b5e3c7e-7b9e-4a6e-9d1d-3b1f2f1a9c01"}"#
            ),
        ])
        let error = await gatewayError {
            _ = try await provider.changeWalletToken(
                WalletTokenRequest(card: CardRef(id: Seed.walletCard), token: Seed.activeToken, intent: .suspend),
                context: OperationContext())
        }
        #expect(error?.code == .invalidCardState)
        #expect(error?.requestID == "0b5e3c7e-7b9e-4a6e-9d1d-3b1f2f1a9c01")
        #expect(transport.requests.count == 2)
    }
}
