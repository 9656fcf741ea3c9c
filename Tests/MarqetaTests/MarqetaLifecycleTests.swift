@_spi(AdapterSupport) import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import SharedTestSupport
import Testing

@testable import CardGatewayMarqeta

/// Card and digital wallet token transitions against the simulator, checked on the wire (path, method, Basic
/// header, JSON body) through the simulator's journal; these are the contract suite's round trips that it cannot
/// run for Marqeta (its writes name the object in the body, not the path).
@Suite("Marqeta lifecycle", .timeLimit(.minutes(5)))
struct MarqetaLifecycleTests {
    @Test("lock then unlock: POST /cardtransitions SUSPENDED then ACTIVE, channel API, reason codes; the lookup agrees")
    func lockUnlock() async throws {
        try await MarqetaFixture.withHarness { h in
            let card = CardRef(id: Seed.lockableCard)
            let before = h.journalCount
            let locked = try await h.provider.changeStatus(
                CardStatusRequest(card: card, intent: .lock, reason: .lost, comment: "phone call"), context: h.context)
            #expect(locked.status == .suspended)
            #expect(locked.providerStatus == "SUSPENDED")
            #expect(try await h.provider.card(card, context: h.context).status == .suspended)
            let unlocked = try await h.provider.changeStatus(
                CardStatusRequest(card: card, intent: .unlock), context: h.context)
            #expect(unlocked.status == .active)
            #expect(h.simulator.cardState(Seed.lockableCard) == "ACTIVE")
            let writes = h.entries(since: before).filter { $0.method == "POST" }
            #expect(writes.map(\.path) == ["/v3/cardtransitions", "/v3/cardtransitions"])
            let bodies = writes.compactMap { h.json($0) }
            #expect(bodies.map { $0["card_token"]?.stringValue } == [Seed.lockableCard, Seed.lockableCard])
            #expect(bodies.map { $0["state"]?.stringValue } == ["SUSPENDED", "ACTIVE"])
            #expect(bodies.map { $0["channel"]?.stringValue } == ["API", "API"])
            #expect(bodies.map { $0["reason_code"]?.stringValue } == ["10", "01"])
            #expect(bodies.first?["reason"]?.stringValue == "phone call")
            #expect(
                writes.allSatisfy {
                    $0.header("content-type") == "application/json" && $0.header("authorization") != nil
                })
            #expect(
                h.transport.requests.allSatisfy { $0.header("Authorization") == MarqetaHarness.expectedAuthorization })
        }
    }

    @Test("cancel is final: TERMINATED, then unlock and lock are invalidCardState without a write")
    func cancelIsFinal() async throws {
        try await MarqetaFixture.withHarness { h in
            let card = CardRef(id: Seed.cancellableCard)
            let cancelled = try await h.provider.changeStatus(
                CardStatusRequest(card: card, intent: .cancel, reason: .stolen), context: h.context)
            #expect(cancelled.status == .cancelled)
            let last = try #require(h.handle.journal.entries().last { $0.method == "POST" })
            #expect(h.json(last)?["state"]?.stringValue == "TERMINATED")
            #expect(h.json(last)?["reason_code"]?.stringValue == "23")
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

    @Test("Marqeta's own refusal of a transition is invalidCardState too")
    func providerRefusalIsInvalidCardState() async throws {
        let (provider, _) = try MarqetaFixture.scripted([
            .json(200, #"{"token":"card_1","state":"ACTIVE"}"#),
            .json(400, #"{"error_code":"400600","error_message":"Card is TERMINATED"}"#),
        ])
        let error = await gatewayError {
            _ = try await provider.changeStatus(
                CardStatusRequest(card: CardRef(id: "card_1"), intent: .lock), context: OperationContext())
        }
        #expect(error?.code == .invalidCardState)
        #expect(error?.providerCode == "400600")
    }

    @Test("a card already in the asked state is returned without a write; UNACTIVATED cannot be unlocked")
    func noOpAndUnactivated() async throws {
        try await MarqetaFixture.withHarness { h in
            let before = h.journalCount
            let card = try await h.provider.changeStatus(
                CardStatusRequest(card: CardRef(id: Seed.suspendedCard), intent: .lock), context: h.context)
            #expect(card.status == .suspended)
            #expect(h.entries(since: before).allSatisfy { $0.method == "GET" })
            let error = await gatewayError {
                _ = try await h.provider.changeStatus(
                    CardStatusRequest(card: CardRef(id: Seed.unactivatedCard), intent: .unlock), context: h.context)
            }
            #expect(error?.code == .invalidCardState)
        }
    }

    @Test("listing pages by count and start_index, follows is_more, filters by state")
    func listing() async throws {
        try await MarqetaFixture.withHarness { h in
            let before = h.journalCount
            var query: CardQuery? = CardQuery(customer: Seed.userToken, limit: 3)
            var seen: [String] = []
            while let current = query {
                let page = try await h.provider.listCards(current, context: h.context)
                seen += page.cards.map(\.id)
                query = current.next(after: page)
            }
            #expect(seen.count == 7)
            #expect(Set(seen).count == 7)
            let reads = h.entries(since: before)
            #expect(reads.map(\.path) == Array(repeating: "/v3/cards/user/\(Seed.userToken)", count: 3))
            #expect(
                reads.map { $0.query ?? "" } == [
                    "count=3&start_index=0", "count=3&start_index=3", "count=3&start_index=6",
                ])
            let suspended = try await h.provider.listCards(
                CardQuery(customer: Seed.userToken, statuses: [.suspended], limit: 100), context: h.context)
            #expect(suspended.cards.map(\.id) == [Seed.suspendedCard])
            let refused = await gatewayError {
                _ = try await h.provider.listCards(CardQuery(customer: Seed.userToken, limit: 101), context: h.context)
            }
            #expect(refused?.code == .invalidRequest)
            let noUser = await gatewayError {
                _ = try await h.provider.listCards(CardQuery(limit: 10), context: h.context)
            }
            #expect(noUser?.fieldErrors.map(\.field) == ["customer"])
        }
    }

    @Test("create: POST /cards with user_token and card_product_token; a virtual product's card is ACTIVE and virtual")
    func create() async throws {
        try await MarqetaFixture.withHarness { h in
            let card = try await h.provider.createCard(
                CreateCardRequest(
                    customer: Seed.emptyUserToken, type: .virtual, program: Seed.virtualProduct, currency: "USD"),
                context: h.context
            )
            #expect(card.type == .virtual)
            #expect(card.status == .active)
            #expect(card.customer == Seed.emptyUserToken)
            let post = try #require(h.handle.journal.entries().last)
            #expect(post.method == "POST" && post.path == "/v3/cards")
            #expect(h.json(post)?["user_token"]?.stringValue == Seed.emptyUserToken)
            #expect(h.json(post)?["card_product_token"]?.stringValue == Seed.virtualProduct)
            let invalid = await gatewayError {
                _ = try await h.provider.createCard(
                    CreateCardRequest(customer: "", type: .virtual, program: "", currency: "euro", pin: Secret("1234")),
                    context: h.context)
            }
            #expect(Set(invalid?.fieldErrors.map(\.field) ?? []) == ["customer", "program", "currency", "pin"])
        }
    }

    @Test(
        "wallet tokens: every state listed; suspend, resume and delete by POST /digitalwallettokentransitions; TERMINATED is final"
    )
    func walletTokens() async throws {
        try await MarqetaFixture.withHarness { h in
            let card = CardRef(id: Seed.walletCard)
            let tokens = try await h.provider.walletTokens(of: card, context: h.context)
            // Marqeta lists newest first (sort_by -createdTime by default).
            #expect(
                tokens.map(\.id) == [Seed.suspendedToken, Seed.terminatedToken, Seed.deletableToken, Seed.activeToken])
            #expect(tokens.map(\.status) == [.suspended, .deleted, .active, .active])
            #expect(tokens.map(\.wallet) == [.googlePay, .samsungPay, .googlePay, .applePay])
            let list = try #require(h.handle.journal.entries().last)
            #expect(list.path == "/v3/digitalwallettokens/card/\(Seed.walletCard)")
            #expect(list.query == "count=50&start_index=0")

            let before = h.journalCount
            let suspended = try await h.provider.changeWalletToken(
                WalletTokenRequest(card: card, token: Seed.activeToken, intent: .suspend, reason: .suspectedFraud),
                context: h.context)
            #expect(suspended.status == .suspended)
            let resumed = try await h.provider.changeWalletToken(
                WalletTokenRequest(card: card, token: Seed.activeToken, intent: .resume), context: h.context)
            #expect(resumed.status == .active)
            let deleted = try await h.provider.changeWalletToken(
                WalletTokenRequest(card: card, token: Seed.deletableToken, intent: .delete, reason: .lost),
                context: h.context)
            #expect(deleted.status == .deleted)
            let writes = h.entries(since: before).filter { $0.method == "POST" }
            #expect(writes.allSatisfy { $0.path == "/v3/digitalwallettokentransitions" })
            let bodies = writes.compactMap { h.json($0) }
            #expect(
                bodies.map { $0["digital_wallet_token"]?["token"]?.stringValue } == [
                    Seed.activeToken, Seed.activeToken, Seed.deletableToken,
                ])
            #expect(
                bodies.map { $0["digital_wallet_token"]?["card_token"]?.stringValue } == [
                    Seed.walletCard, Seed.walletCard, Seed.walletCard,
                ])
            #expect(bodies.map { $0["state"]?.stringValue } == ["SUSPENDED", "ACTIVE", "TERMINATED"])
            #expect(bodies.map { $0["channel"]?.stringValue } == ["API", "API", "API"])
            #expect(bodies.map { $0["reason_code"]?.stringValue } == ["06", "01", "10"])
            #expect(h.simulator.tokenState(Seed.deletableToken) == "TERMINATED")

            let count = h.journalCount
            let final = await gatewayError {
                _ = try await h.provider.changeWalletToken(
                    WalletTokenRequest(card: card, token: Seed.deletableToken, intent: .resume), context: h.context)
            }
            #expect(final?.code == .invalidCardState)
            let otherCard = await gatewayError {
                _ = try await h.provider.changeWalletToken(
                    WalletTokenRequest(card: CardRef(id: Seed.activeCard), token: Seed.activeToken, intent: .suspend),
                    context: h.context)
            }
            #expect(otherCard?.code == .notFound)
            #expect(h.entries(since: count).allSatisfy { $0.method == "GET" })
        }
    }

    @Test("a fault on a transition: retried with the same idempotency token and body, and the transition happens once")
    func faultOnTransition() async throws {
        try await MarqetaFixture.withHarness(
            retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2))
        ) { h in
            h.handle.faults.inject(
                FaultRule(
                    count: 2, pathPrefix: "/v3/cardtransitions", method: "POST",
                    action: .status(503, retryAfterSeconds: nil, message: "maintenance")))
            let before = h.transport.requests.count
            let card = try await h.provider.changeStatus(
                CardStatusRequest(card: CardRef(id: Seed.lockableCard), intent: .lock), context: h.context)
            #expect(card.status == .suspended)
            let posts = h.transport.requests.dropFirst(before).filter { $0.method == "POST" }
            #expect(posts.count == 3)
            #expect(Set(posts.map(\.bodyText)).count == 1)
            let token = try #require(posts.first?.jsonBody?["token"]?.stringValue)
            #expect((1...36).contains(token.count))
            #expect(h.simulator.cardState(Seed.lockableCard) == "SUSPENDED")
        }
        // Every attempt refused: a retryable providerUnavailable, since a repeat with the same token is safe.
        try await MarqetaFixture.withHarness(
            retry: RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2))
        ) { h in
            h.handle.faults.inject(
                FaultRule(
                    count: 5, pathPrefix: "/v3/cardtransitions", method: "POST",
                    action: .status(503, retryAfterSeconds: nil, message: "maintenance")))
            let error = await gatewayError {
                _ = try await h.provider.changeStatus(
                    CardStatusRequest(card: CardRef(id: Seed.lockableCard), intent: .lock), context: h.context)
            }
            #expect(error?.code == .providerUnavailable)
            #expect(error?.isRetryable == true)
            #expect(h.simulator.cardState(Seed.lockableCard) == "ACTIVE")
        }
    }
}

/// Marqeta's idempotency (core-api/idempotency): a `POST` carrying its own `token` answers the same object when repeated
/// with the same body, and 409 with another body. The adapter derives the token from the operation's idempotency key.
@Suite("Marqeta idempotency tokens", .timeLimit(.minutes(5)))
struct MarqetaIdempotencyTests {
    @Test(
        "card creation: one operation key, one token: a repeat (or another gateway) gets the first card, and the simulator holds one"
    )
    func createCardRepeated() async throws {
        try await MarqetaFixture.withHarness(
            retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2))
        ) { h in
            var context = h.context
            context.idempotencyKey = "order-7781-card"
            let request = CreateCardRequest(
                customer: Seed.emptyUserToken, type: .virtual, program: Seed.virtualProduct, currency: "USD")
            let first = try await h.provider.createCard(request, context: context)
            let second = try await h.provider.createCard(request, context: context)
            #expect(first.id == second.id)
            let posts = h.transport.requests.filter { $0.method == "POST" && $0.pathWithoutQuery == "/v3/cards" }
            #expect(posts.count == 2)
            #expect(posts[0].bodyText == posts[1].bodyText)
            let token = try #require(posts[0].jsonBody?["token"]?.stringValue)
            #expect(
                token == IdempotencyKeys.derive(operationKey: "order-7781-card", scope: "marqeta.cards", maxLength: 36))
            #expect(token.count == 36 && first.id == token)
            let page = try await h.provider.listCards(
                CardQuery(customer: Seed.emptyUserToken, limit: 100), context: h.context)
            #expect(page.cards.map(\.id) == [first.id])

            // The same key for another card is a conflict, not a second card, and is not repeated.
            let other = CreateCardRequest(
                customer: Seed.userToken, type: .virtual, program: Seed.virtualProduct, currency: "USD")
            let sent = h.transport.requests.count
            let conflict = await gatewayError { _ = try await h.provider.createCard(other, context: context) }
            #expect(conflict?.code == .conflict)
            #expect(conflict?.httpStatus == 409)
            #expect(h.transport.requests.count == sent + 1)
        }
    }

    @Test("without an operation key each call gets a fresh token: two creations make two cards")
    func freshTokens() async throws {
        try await MarqetaFixture.withHarness { h in
            let request = CreateCardRequest(
                customer: Seed.emptyUserToken, type: .virtual, program: Seed.virtualProduct, currency: "USD")
            let first = try await h.provider.createCard(request, context: h.context)
            let second = try await h.provider.createCard(request, context: h.context)
            #expect(first.id != second.id)
            let tokens = h.transport.requests.filter { $0.method == "POST" }.compactMap {
                $0.jsonBody?["token"]?.stringValue
            }
            #expect(tokens.count == 2 && Set(tokens).count == 2)
            #expect(tokens.allSatisfy { (1...36).contains($0.count) })
        }
    }

    @Test(
        "wallet-token transitions carry a token; a repeat with the same key is answered, not refused; Marqeta's 422003/422004 are invalidCardState"
    )
    func walletTokenTransitions() async throws {
        try await MarqetaFixture.withHarness { h in
            var context = h.context
            context.idempotencyKey = "suspend-dwt-1"
            let change = WalletTokenRequest(
                card: CardRef(id: Seed.walletCard), token: Seed.activeToken, intent: .suspend)
            let suspended = try await h.provider.changeWalletToken(change, context: context)
            #expect(suspended.status == .suspended)
            let post = try #require(h.transport.requests.last { $0.method == "POST" })
            #expect(post.pathWithoutQuery == "/v3/digitalwallettokentransitions")
            #expect(
                post.jsonBody?["token"]?.stringValue
                    == IdempotencyKeys.derive(
                        operationKey: "suspend-dwt-1", scope: "marqeta.digitalwallettokentransitions", maxLength: 36))
        }
        for code in ["422003", "422004"] {
            let body = #"{"error_code":"\#(code)","error_message":"Token state mismatch"}"#
            let error = MarqetaErrors.error(
                for: ProviderResponse(status: 422, headers: [:], body: Data(body.utf8)), instance: "mq")
            #expect(error.code == .invalidCardState)
            #expect(error.providerCode == code)
            #expect(!error.isRetryable)
        }
        let velocity = MarqetaErrors.error(
            for: ProviderResponse(
                status: 422, headers: [:], body: Data(#"{"error_code":"422001","error_message":"velocity"}"#.utf8)),
            instance: "mq")
        #expect(velocity.code == .invalidRequest)
    }
}
