@_spi(AdapterSupport) import CardGateway
import CardGatewayTesting
import Foundation
import Testing

@testable import CardGatewayStripe
import SharedTestSupport

@Suite("Stripe cards: encoding and mapping", .timeLimit(.minutes(5)))
struct StripeMappingTests {
    @Test func cardRequestOnTheWireAndEveryFieldMapped() async throws {
        let transport = ScriptedTransport([.stripe(200, Fixture.card())])
        let provider = try Fixture.provider(transport)
        let card = try await provider.card(Fixture.cardRef, context: OperationContext())

        let request = try #require(transport.requests.first)
        #expect(request.method == "GET")
        #expect(request.path == Fixture.cardPath)
        #expect(request.header("Authorization") == "Bearer \(Fixture.secretKey)")
        #expect(request.header("Stripe-Version") == nil)
        #expect(request.header("Stripe-Account") == nil)
        #expect(request.header("Idempotency-Key") == nil)
        #expect(request.body == nil)

        #expect(card.ref == Fixture.cardRef)
        #expect(card.status == .active)
        #expect(card.providerStatus == "active")
        #expect(card.statusReason == nil)
        #expect(card.type == .virtual)
        #expect(card.scheme == .visa)
        #expect(card.lastFour == "4242")
        #expect(card.expiry == CardExpiry(month: 8, year: 2028))
        #expect(card.currency == "USD")
        #expect(card.cardholderName == "Jenny Rosen")
        #expect(card.created == Date(timeIntervalSince1970: 1_586_556_828))
        #expect(card.walletTokens.isEmpty)
    }

    @Test func accountVersionAndConnectAccountHeaders() async throws {
        let transport = ScriptedTransport([.stripe(200, Fixture.card())])
        let provider = try Fixture.provider(
            transport,
            configuration: StripeConfiguration(
                secretKey: Secret(Fixture.secretKey), stripeAccount: "acct_1Connected", apiVersion: "2024-06-20"
            ))
        _ = try await provider.card(Fixture.cardRef, context: OperationContext())
        #expect(transport.requests.first?.header("Stripe-Version") == "2024-06-20")
        #expect(transport.requests.first?.header("Stripe-Account") == "acct_1Connected")
    }

    @Test(arguments: [
        ("active", CardStatus.active), ("inactive", .inactive), ("canceled", .cancelled), ("shredded", .unknown),
    ])
    func statusMapping(stripe: String, status: CardStatus) async throws {
        let transport = ScriptedTransport([.stripe(200, Fixture.card(status: stripe))])
        let card = try await Fixture.provider(transport).card(Fixture.cardRef, context: OperationContext())
        #expect(card.status == status)
        #expect(card.providerStatus == stripe)
    }

    @Test(arguments: ["lost", "stolen", "design_rejected", "fulfillment_error"])
    func cancellationReasonBecomesStatusReason(reason: String) async throws {
        let transport = ScriptedTransport([
            .stripe(200, Fixture.card(status: "canceled", cancellationReason: "\"\(reason)\""))
        ])
        let card = try await Fixture.provider(transport).card(Fixture.cardRef, context: OperationContext())
        #expect(card.status == .cancelled)
        #expect(card.statusReason == reason)
    }

    @Test(arguments: [("physical", CardType.physical), ("virtual", .virtual), ("other", .unknown)])
    func typeMapping(stripe: String, type: CardType) async throws {
        let transport = ScriptedTransport([.stripe(200, Fixture.card(type: stripe))])
        #expect(try await Fixture.provider(transport).card(Fixture.cardRef, context: OperationContext()).type == type)
    }

    @Test(arguments: [
        ("Visa", CardScheme.visa), ("MasterCard", .mastercard), ("Mastercard", .mastercard), ("Other", .unknown),
    ])
    func brandMapping(brand: String, scheme: CardScheme) async throws {
        let transport = ScriptedTransport([.stripe(200, Fixture.card(brand: brand))])
        #expect(
            try await Fixture.provider(transport).card(Fixture.cardRef, context: OperationContext()).scheme == scheme)
    }

    @Test func cardholderAsAnIdHasNoName() async throws {
        let transport = ScriptedTransport([.stripe(200, Fixture.card(cardholder: "\"ich_1Plain\""))])
        let card = try await Fixture.provider(transport).card(Fixture.cardRef, context: OperationContext())
        #expect(card.cardholderName == nil)
        #expect(card.lastFour == "4242")
    }

    @Test func missingRequiredFieldsOrWrongObjectAreInvalidResponses() async throws {
        for body in [
            #"{"id":"ic_1","object":"issuing.card"}"#, #"{"object":"issuing.card","status":"active"}"#, "not json",
            #"{"id":"ic_1","object":"issuing.token","status":"active","card":"ic_1"}"#,
        ] {
            let transport = ScriptedTransport([.stripe(200, body, requestID: "req_Bad")])
            let error = await gatewayError {
                _ = try await Fixture.provider(transport).card(Fixture.cardRef, context: OperationContext())
            }
            #expect(error?.code == .invalidResponse, "\(body)")
            #expect(error?.requestID == "req_Bad")
            #expect(error?.mayHaveReachedProvider == true)
        }
    }

    @Test func invalidCardIdsAreRefusedBeforeSending() async throws {
        for id in ["", "ic_1/../x", "ic 1", String(repeating: "a", count: 256)] {
            let transport = ScriptedTransport([])
            let error = await gatewayError {
                _ = try await Fixture.provider(transport).card(CardRef(id: id), context: OperationContext())
            }
            #expect(error?.code == .invalidRequest)
            #expect(error?.fieldErrors.first?.field == "card.id")
            #expect(transport.requestCount == 0)
        }
    }

    @Test func listCardsQueryAndCursor() async throws {
        let transport = ScriptedTransport([
            .stripe(
                200,
                Fixture.list(
                    [Fixture.card(id: "ic_A"), Fixture.card(id: "ic_B")], hasMore: true, url: "/v1/issuing/cards"))
        ])
        let provider = try Fixture.provider(transport)
        let page = try await provider.listCards(
            StripeCardListQuery(
                limit: 2, startingAfter: "ic_0", status: .cancelled, type: .physical, cardholder: "ich_1"),
            context: OperationContext()
        )
        let request = try #require(transport.requests.first)
        #expect(request.method == "GET")
        #expect(
            request.path
                == "/v1/issuing/cards?limit=2&starting_after=ic_0&status=canceled&type=physical&cardholder=ich_1")
        #expect(page.items.map(\.id) == ["ic_A", "ic_B"])
        #expect(page.hasMore)
        #expect(page.nextStartingAfter == "ic_B")
    }

    @Test("paging backwards gives the cursor to keep going backwards, not one that leads forward again")
    func listCardsBackwards() async throws {
        let transport = ScriptedTransport([
            .stripe(
                200,
                Fixture.list(
                    [Fixture.card(id: "ic_C"), Fixture.card(id: "ic_D")], hasMore: true, url: "/v1/issuing/cards")),
            .stripe(
                200,
                Fixture.list(
                    [Fixture.card(id: "ic_A"), Fixture.card(id: "ic_B")], hasMore: false, url: "/v1/issuing/cards")),
        ])
        let provider = try Fixture.provider(transport)
        let page = try await provider.listCards(
            StripeCardListQuery(limit: 2, endingBefore: "ic_E"), context: OperationContext())
        #expect(transport.requests.first?.path == "/v1/issuing/cards?limit=2&ending_before=ic_E")
        #expect(page.nextStartingAfter == nil)
        #expect(page.previousEndingBefore == "ic_C")
        let cursor: String = try #require(page.previousEndingBefore)
        let first = try await provider.listCards(
            StripeCardListQuery(limit: 2, endingBefore: cursor), context: OperationContext())
        #expect(first.previousEndingBefore == nil, "nothing before the first page")
    }

    @Test func listCardsLastPageHasNoCursor() async throws {
        let transport = ScriptedTransport([
            .stripe(200, Fixture.list([Fixture.card(id: "ic_A")], url: "/v1/issuing/cards"))
        ])
        let page = try await Fixture.provider(transport).listCards(context: OperationContext())
        #expect(transport.requests.first?.path == "/v1/issuing/cards")
        #expect(!page.hasMore)
        #expect(page.nextStartingAfter == nil)
    }

    @Test func listCardsValidation() async throws {
        let transport = ScriptedTransport([])
        let provider = try Fixture.provider(transport)
        let error = await gatewayError {
            _ = try await provider.listCards(
                StripeCardListQuery(
                    limit: 101, startingAfter: "ic_1", endingBefore: "ic_2", status: .locked, type: .unknown,
                    cardholder: ""),
                context: OperationContext()
            )
        }
        #expect(error?.code == .invalidRequest)
        #expect(
            Set(error?.fieldErrors.map(\.field) ?? []) == ["limit", "endingBefore", "status", "type", "cardholder"])
        #expect(transport.requestCount == 0)
    }

    @Test func updateCardStatusBodyAndIdempotencyKey() async throws {
        let transport = ScriptedTransport([
            .stripe(200, Fixture.card(status: "canceled", cancellationReason: "\"lost\""))
        ])
        let card = try await Fixture.provider(transport).updateCardStatus(
            card: Fixture.cardRef, status: .cancelled, reason: "lost", context: OperationContext(idempotencyKey: "op-1")
        )
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == Fixture.cardPath)
        #expect(request.bodyText == "status=canceled&cancellation_reason=lost")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        let key = try #require(request.header("Idempotency-Key"))
        #expect(
            key
                == IdempotencyKeys.derive(
                    operationKey: "op-1", scope: "card_status:ic_1GWQp6EESaYspYZ9uSEZOcq9:canceled:lost", maxLength: 255
                ))
        #expect(card.status == .cancelled)
        #expect(card.statusReason == "lost")
    }

    @Test(arguments: [
        (CardStatus.active, "status=active"), (.inactive, "status=inactive"), (.cancelled, "status=canceled"),
    ])
    func updateCardStatusValues(status: CardStatus, body: String) async throws {
        let transport = ScriptedTransport([
            .stripe(200, Fixture.card(status: StripeMapping.stripeCardStatus(status) ?? ""))
        ])
        let card = try await Fixture.provider(transport).updateCardStatus(
            card: Fixture.cardRef, status: status, context: OperationContext())
        #expect(transport.requests.first?.bodyText == body)
        #expect(card.status == status)
    }

    @Test func updateCardStatusValidation() async throws {
        let transport = ScriptedTransport([])
        let provider = try Fixture.provider(transport)
        let suspended = await gatewayError {
            _ = try await provider.updateCardStatus(
                card: Fixture.cardRef, status: .suspended, context: OperationContext())
        }
        #expect(suspended?.fieldErrors.map(\.field) == ["status"])
        let reasonWithoutCancel = await gatewayError {
            _ = try await provider.updateCardStatus(
                card: Fixture.cardRef, status: .inactive, reason: "lost", context: OperationContext())
        }
        #expect(reasonWithoutCancel?.fieldErrors.map(\.field) == ["reason"])
        let badReason = await gatewayError {
            _ = try await provider.updateCardStatus(
                card: Fixture.cardRef, status: .cancelled, reason: "design_rejected", context: OperationContext())
        }
        #expect(badReason?.fieldErrors.map(\.field) == ["reason"])
        #expect(transport.requestCount == 0)
    }
}
