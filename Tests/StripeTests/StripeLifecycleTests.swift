import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import Testing

@testable import CardGatewayStripe
@testable import StripeSimulator
import SharedTestSupport

/// The normalised card and wallet-token lifecycle against the simulator, on the wire.
@Suite("Stripe lifecycle", .timeLimit(.minutes(5)))
struct StripeLifecycleTests {
    static let context = OperationContext(idempotencyKey: "lifecycle-1")

    @Test func descriptorDeclaresTheLifecycleCapabilities() {
        let capabilities = StripeProvider.descriptor.capabilities
        #expect(
            capabilities == [
                .cardLookup, .cardListing, .cardIssuance, .cardLocking, .cardCancellation, .walletTokenListing,
                .walletTokenControl,
                .walletProvisioning, .cardDetailsReveal, .pinReveal, .pinChange, .webhooks, .authorizations,
            ])
        #expect(!capabilities.contains(.cardActivation))
        #expect(!capabilities.contains(.cardPIN))
        #expect(!capabilities.contains(.cardPrograms))
    }

    @Test func listingPagesByCursorAndFiltersByCardholder() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle)
            var query: CardQuery? = CardQuery(customer: Seed.cardholderID, limit: 3)
            var seen: [String] = []
            var cursors: [String?] = []
            while let current = query {
                let page = try await adapter.listCards(current, context: Self.context)
                #expect(page.cards.count <= 3)
                #expect(page.offset == 0 && page.total == nil && page.limit == nil)
                #expect((page.nextCursor != nil) == page.hasMore)
                if let cursor = page.nextCursor { #expect(cursor == page.cards.last?.id) }
                seen += page.cards.map(\.id)
                cursors.append(current.cursor)
                query = current.next(after: page)
            }
            // Jenny Rosen has every seeded card but the one of the cardholder without contact details.
            #expect(seen.count == 7)
            #expect(Set(seen).count == 7)
            #expect(!seen.contains(Seed.missingCardholderContactCardID))
            let gets = handle.journal.entries(method: "GET", pathContains: "/v1/issuing/cards")
            #expect(gets.count == 3)
            #expect(
                gets.allSatisfy {
                    $0.query?.contains("cardholder=\(Seed.cardholderID)") == true
                        && $0.query?.contains("limit=3") == true
                })
            #expect(gets[1].query?.contains("starting_after=\(seen[2])") == true)
            #expect(cursors.first == .some(nil))

            // A full last page (7 of 7) ends the listing: hasMore follows Stripe's has_more only.
            let full = try await adapter.listCards(
                CardQuery(customer: Seed.cardholderID, limit: 7), context: Self.context)
            #expect(full.cards.count == 7 && !full.hasMore && full.nextCursor == nil)
            #expect(CardQuery(customer: Seed.cardholderID, limit: 7).next(after: full) == nil)

            let inactive = try await adapter.listCards(
                CardQuery(customer: Seed.cardholderID, types: [.physical], statuses: [.inactive]), context: Self.context
            )
            #expect(inactive.cards.map(\.id) == [Seed.inactiveCardID])
            #expect(inactive.nextCursor == nil && !inactive.hasMore)
            #expect(handle.journal.last?.query?.contains("status=inactive") == true)
            #expect(handle.journal.last?.query?.contains("type=physical") == true)
        }
    }

    @Test(arguments: [
        (CardQuery(limit: 0), "limit"), (CardQuery(limit: 101), "limit"), (CardQuery(offset: 3), "offset"),
        (CardQuery(statuses: [.active, .inactive]), "statuses"), (CardQuery(statuses: [.locked]), "statuses"),
        (CardQuery(types: [.physical, .virtual]), "types"), (CardQuery(cursor: ""), "cursor"),
        (CardQuery(customer: "ich bad"), "customer"),
    ])
    func invalidListingIsRefusedBeforeSending(query: CardQuery, field: String) async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle)
            let error = await #expect(throws: CardGatewayError.self) {
                try await adapter.listCards(query, context: Self.context)
            }
            #expect(error?.code == .invalidRequest)
            #expect(error?.fieldErrors.map(\.field).contains(field) == true, "\(error?.fieldErrors ?? [])")
            #expect(handle.journal.count == 0)
        }
    }

    @Test func createSendsCardholderCurrencyAndTypeWithAnIdempotencyKey() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle)
            let request = CreateCardRequest(
                customer: Seed.cardholderID, type: .virtual, program: "", currency: "EUR", externalID: "order-7")
            let card = try await adapter.createCard(request, context: Self.context)
            #expect(card.type == .virtual)
            #expect(card.status == .inactive)
            #expect(card.providerStatus == "inactive")
            #expect(card.currency == "EUR")
            #expect(card.id.hasPrefix("ic_"))
            let entry = try #require(handle.journal.last)
            #expect(entry.method == "POST")
            #expect(entry.path == "/v1/issuing/cards")
            #expect(
                entry.bodyText
                    == "cardholder=\(Seed.cardholderID)&currency=eur&type=virtual&metadata[external_id]=order-7"
                    || entry.bodyText
                        == "cardholder=\(Seed.cardholderID)&currency=eur&type=virtual&metadata%5Bexternal_id%5D=order-7"
            )
            #expect(entry.header("idempotency-key") != nil)
            // The new card is the cardholder's, and unlocking it activates it.
            let listed = try await adapter.listCards(
                CardQuery(customer: Seed.cardholderID, limit: 100), context: Self.context)
            #expect(listed.cards.map(\.id).contains(card.id))
            let active = try await adapter.changeStatus(
                CardStatusRequest(card: card.ref, intent: .unlock), context: Self.context)
            #expect(active.status == .active)
        }
    }

    @Test func createRefusesWhatStripeCannotExpressBeforeSending() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle)
            let request = CreateCardRequest(
                customer: "", type: .physical, program: "gold", currency: "euro", mobile: "+15550100",
                pin: Secret("1234"),
                deliveryAddress: DeliveryAddress(
                    address1: "1 Main St", city: "Springfield", countryCode: "US", postalCode: "12345")
            )
            let error = await #expect(throws: CardGatewayError.self) {
                try await adapter.createCard(request, context: Self.context)
            }
            #expect(error?.code == .invalidRequest)
            #expect(
                Set(error?.fieldErrors.map(\.field) ?? []) == [
                    "customer", "currency", "program", "type", "pin", "mobile", "deliveryAddress",
                ])
            #expect(error.map { !"\($0)".contains("1234") } == true)
            #expect(handle.journal.count == 0)
        }
    }

    @Test func createOfAnUnknownCardholderIsNotFound() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle)
            let error = await #expect(throws: CardGatewayError.self) {
                try await adapter.createCard(
                    CreateCardRequest(customer: "ich_nobody", type: .virtual, program: "", currency: "USD"),
                    context: Self.context)
            }
            #expect(error?.code == .notFound)
            #expect(handle.journal.count == 1)
        }
    }

    @Test func lockUnlockCancelOnTheWire() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle)
            let ref = CardRef(id: Seed.activeCardWithoutPrimaryAccountIdentifierID)
            let path = "/v1/issuing/cards/\(ref.id)"

            let locked = try await adapter.changeStatus(
                CardStatusRequest(card: ref, intent: .lock, reason: .suspectedFraud, comment: "call 1"),
                context: Self.context)
            #expect(locked.status == .inactive && locked.providerStatus == "inactive")
            #expect(handle.journal.last?.bodyText == "status=inactive")
            let unlocked = try await adapter.changeStatus(
                CardStatusRequest(card: ref, intent: .unlock), context: OperationContext(idempotencyKey: "lifecycle-2"))
            #expect(unlocked.status == .active && unlocked.providerStatus == "active")
            #expect(handle.journal.last?.bodyText == "status=active")
            let cancelled = try await adapter.changeStatus(
                CardStatusRequest(card: ref, intent: .cancel, reason: .stolen),
                context: OperationContext(idempotencyKey: "lifecycle-3"))
            #expect(cancelled.status == .cancelled && cancelled.statusReason == "stolen")
            #expect(handle.journal.last?.bodyText == "status=canceled&cancellation_reason=stolen")
            let writes = handle.journal.entries(method: "POST", pathContains: path)
            #expect(writes.count == 3)
            #expect(
                writes.allSatisfy {
                    $0.header("idempotency-key") != nil
                        && $0.header("content-type") == "application/x-www-form-urlencoded"
                })
        }
    }

    @Test(arguments: [
        (CardStatusReason.lost, "lost" as String?), (.stolen, "stolen"), (.damaged, nil), (.suspectedFraud, nil),
        (.cardholderRequest, nil), (.other, nil),
    ])
    func cancellationReasonMapping(reason: CardStatusReason, stripe: String?) async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle)
            let card = try await adapter.changeStatus(
                CardStatusRequest(card: CardRef(id: Seed.missingAgreementCardID), intent: .cancel, reason: reason),
                context: Self.context)
            #expect(card.status == .cancelled)
            #expect(card.statusReason == stripe)
            #expect(
                handle.journal.last?.bodyText == "status=canceled" + (stripe.map { "&cancellation_reason=\($0)" } ?? "")
            )
        }
    }

    @Test(arguments: CardStatusIntent.allCases)
    func aCanceledCardRefusesEveryIntent(intent: CardStatusIntent) async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle)
            let error = await #expect(throws: CardGatewayError.self) {
                try await adapter.changeStatus(
                    CardStatusRequest(card: CardRef(id: Seed.canceledCardID), intent: intent), context: Self.context)
            }
            #expect(error?.code == .invalidCardState)
            #expect(error?.httpStatus == 400)
            #expect(handle.journal.entries(method: "POST", pathContains: Seed.canceledCardID).count == 1)
            #expect(
                handle.journal.entries(method: "POST", pathContains: Seed.canceledCardID).first?.responseStatus == 400)
            #expect(
                try await adapter.card(CardRef(id: Seed.canceledCardID), context: Self.context).status == .cancelled)
        }
    }

    @Test func anUnnamedRefusalOfACanceledCardIsStillInvalidCardState() async throws {
        // Stripe's reference does not name the code of this refusal: a plain 400 about a card found canceled maps too.
        let transport = ScriptedTransport([
            .stripe(400, #"{"error":{"type":"invalid_request_error","message":"This card cannot be reactivated."}}"#),
            .stripe(200, Fixture.card(status: "canceled")),
        ])
        let error = await #expect(throws: CardGatewayError.self) {
            try await Fixture.provider(transport).changeStatus(
                CardStatusRequest(card: Fixture.cardRef, intent: .unlock), context: Self.context)
        }
        #expect(error?.code == .invalidCardState)
        #expect(transport.requests.map(\.method) == ["POST", "GET"])
        let other = ScriptedTransport([
            .stripe(400, #"{"error":{"type":"invalid_request_error","message":"Something else."}}"#),
            .stripe(200, Fixture.card(status: "active")),
        ])
        let plain = await #expect(throws: CardGatewayError.self) {
            try await Fixture.provider(other).changeStatus(
                CardStatusRequest(card: Fixture.cardRef, intent: .lock), context: Self.context)
        }
        #expect(plain?.code == .invalidRequest)
    }

    @Test func walletTokensListEveryTokenOfTheCardIncludingDeleted() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle)
            let tokens = try await adapter.walletTokens(of: CardRef(id: Seed.activeCardID), context: Self.context)
            #expect(
                Set(tokens.map(\.id)) == [
                    Seed.activeApplePayTokenID, Seed.suspendedGooglePayTokenID, Seed.deletedApplePayTokenID,
                    Seed.requestedGooglePayTokenID,
                    Seed.activeSamsungPayTokenID,
                ])
            let statuses = Dictionary(uniqueKeysWithValues: tokens.map { ($0.id, $0.status) })
            #expect(statuses[Seed.activeApplePayTokenID] == .active)
            #expect(statuses[Seed.suspendedGooglePayTokenID] == .suspended)
            #expect(statuses[Seed.deletedApplePayTokenID] == .deleted)
            #expect(statuses[Seed.requestedGooglePayTokenID] == .requested)
            let entry = try #require(handle.journal.last)
            #expect(entry.method == "GET" && entry.path == "/v1/issuing/tokens")
            #expect(
                entry.query?.contains("card=\(Seed.activeCardID)") == true && entry.query?.contains("limit=100") == true
            )
        }
    }

    @Test func walletTokensFollowEveryPage() async throws {
        let transport = ScriptedTransport([
            .stripe(200, Fixture.list([Fixture.token(id: "intok_1")], hasMore: true)),
            .stripe(200, Fixture.list([Fixture.token(id: "intok_2", status: "deleted")], hasMore: false)),
        ])
        let tokens = try await Fixture.provider(transport).walletTokens(of: Fixture.cardRef, context: Self.context)
        #expect(tokens.map(\.id) == ["intok_1", "intok_2"])
        #expect(transport.requests.count == 2)
        #expect(
            transport.requests[1].path
                == "/v1/issuing/tokens?card=ic_1GWQp6EESaYspYZ9uSEZOcq9&limit=100&starting_after=intok_1")
    }

    @Test func suspendResumeDeleteOnTheWire() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle)
            let card = CardRef(id: Seed.activeCardID)
            let token = Seed.activeApplePayTokenID
            for (index, intent) in [WalletTokenIntent.suspend, .resume, .delete].enumerated() {
                let result = try await adapter.changeWalletToken(
                    WalletTokenRequest(card: card, token: token, intent: intent, reason: .lost),
                    context: OperationContext(idempotencyKey: "token-\(index)")
                )
                #expect(result.status == intent.resultingStatus)
                #expect(result.id == token)
                let write = try #require(handle.journal.entries(method: "POST", pathContains: token).last)
                #expect(write.bodyText == "status=" + ["suspended", "active", "deleted"][index])
                #expect(write.header("idempotency-key") != nil)
            }
            #expect(handle.journal.entries(method: "POST", pathContains: token).count == 3)
            #expect(handle.journal.entries(method: "GET", pathContains: "/v1/issuing/tokens/\(token)").count == 3)
        }
    }

    @Test(arguments: [
        (Seed.deletedApplePayTokenID, WalletTokenIntent.resume), (Seed.deletedApplePayTokenID, .suspend),
        (Seed.deletedApplePayTokenID, .delete),
        (Seed.requestedGooglePayTokenID, .suspend), (Seed.requestedGooglePayTokenID, .resume),
    ])
    func illegalTokenTransitionsAreRefusedBeforeWriting(token: String, intent: WalletTokenIntent) async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle)
            let error = await #expect(throws: CardGatewayError.self) {
                try await adapter.changeWalletToken(
                    WalletTokenRequest(card: CardRef(id: Seed.activeCardID), token: token, intent: intent),
                    context: Self.context)
            }
            #expect(error?.code == .invalidCardState)
            #expect(handle.journal.entries(method: "POST", pathContains: token).isEmpty)
        }
    }

    @Test func theSimulatorItselfRefusesResumingADeletedToken() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle)
            let error = await #expect(throws: CardGatewayError.self) {
                try await adapter.updateToken(id: Seed.deletedApplePayTokenID, status: .active, context: Self.context)
            }
            #expect(error?.code == .invalidCardState)
            #expect(error?.providerCode == "status_transition_invalid")
            #expect(handle.journal.last?.responseStatus == 400)
        }
    }

    @Test func aTokenOfAnotherCardIsNotFoundAndNothingIsWritten() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle)
            let error = await #expect(throws: CardGatewayError.self) {
                try await adapter.changeWalletToken(
                    WalletTokenRequest(
                        card: CardRef(id: Seed.inactiveCardID), token: Seed.activeApplePayTokenID, intent: .delete),
                    context: Self.context
                )
            }
            #expect(error?.code == .notFound)
            #expect(handle.journal.entries(method: "POST", pathContains: "/v1/issuing/tokens").isEmpty)
            #expect(
                try await adapter.token(id: Seed.activeApplePayTokenID, context: Self.context).token.status == .active)
        }
    }

    @Test func invalidTokenRequestIsRefusedBeforeSending() async throws {
        try await withSimulator(SimulatorFixture.simulator()) { handle in
            let adapter = try SimulatorFixture.adapter(handle)
            let error = await #expect(throws: CardGatewayError.self) {
                try await adapter.changeWalletToken(
                    WalletTokenRequest(card: CardRef(id: ""), token: "", intent: .suspend), context: Self.context)
            }
            #expect(error?.code == .invalidRequest)
            #expect(Set(error?.fieldErrors.map(\.field) ?? []) == ["card.id", "token"])
            #expect(handle.journal.count == 0)
        }
    }
}
