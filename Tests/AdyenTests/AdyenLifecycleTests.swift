import AdyenSimulator
import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import Testing

@testable import CardGatewayAdyen
import SharedTestSupport

/// The normalised card and wallet-token lifecycle on Adyen: listing, lock / unlock / cancel and token suspend /
/// resume / delete, on the wire against the simulator and on scripted answers.
@Suite("Adyen card and wallet-token lifecycle", .timeLimit(.minutes(5)))
struct AdyenLifecycleTests {
    typealias Seed = AdyenSimulator.Seed

    static let allSeededCards = [
        Seed.activeVisaID, Seed.activeMastercardID, Seed.inactiveMastercardID, Seed.suspendedVisaID,
        Seed.closedMastercardID,
        Seed.lockableVisaID, Seed.cancellableMastercardID, Seed.walletVisaID,
    ]

    // MARK: Listing

    @Test("listCards pages by offset and limit, skips the business account, and visits every card once")
    func listingPages() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            let before = handle.journal.entries().count
            var query: CardQuery? = CardQuery(customer: Seed.balanceAccountID, limit: 2)
            var seen: [String] = []
            var pages: [CardPage] = []
            while let current = query, pages.count < 10 {
                let page = try await provider.listCards(current, context: OperationContext())
                pages.append(page)
                seen += page.cards.map(\.id)
                query = current.next(after: page)
            }
            #expect(seen == Self.allSeededCards)
            #expect(pages.dropLast().allSatisfy { $0.total == nil && $0.hasMore })
            #expect(pages.last?.hasMore == false)
            #expect(pages.last?.total == 9)
            #expect(pages.allSatisfy { $0.cards.allSatisfy { $0.ref.customer == Seed.balanceAccountID } })

            let requests = handle.journal.entries().dropFirst(before)
            #expect(
                requests.allSatisfy {
                    $0.method == "GET"
                        && $0.path == "/bcl/v2/balanceAccounts/\(Seed.balanceAccountID)/paymentInstruments"
                })
            #expect(
                requests.map { $0.query ?? "" } == [
                    "limit=2", "offset=2&limit=2", "offset=4&limit=2", "offset=6&limit=2", "offset=8&limit=2",
                ])
            // The third page held the closed card and the business account: the next one starts after both.
            #expect(pages[2].cards.map(\.id) == [Seed.closedMastercardID])
            #expect(pages[2].offset + pages[2].cards.count == 6)
        }
    }

    @Test("a page of only skipped instruments is followed within the same call")
    func listingSkipsEmptyPages() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            let before = handle.journal.entries().count
            // Offset 5 is the business account alone.
            let page = try await provider.listCards(
                CardQuery(customer: Seed.balanceAccountID, limit: 1, offset: 5), context: OperationContext())
            #expect(page.cards.map(\.id) == [Seed.lockableVisaID])
            #expect(page.offset == 6)
            #expect(page.hasMore)
            #expect(
                handle.journal.entries().dropFirst(before).map { $0.query ?? "" } == [
                    "offset=5&limit=1", "offset=6&limit=1",
                ])
        }
    }

    @Test("one status is Adyen's status filter; cancelled is closed; several are filtered here")
    func listingFilters() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            let before = handle.journal.entries().count
            let suspended = try await provider.listCards(
                CardQuery(customer: Seed.balanceAccountID, statuses: [.suspended]), context: OperationContext())
            #expect(suspended.cards.map(\.id) == [Seed.suspendedVisaID])
            let cancelled = try await provider.listCards(
                CardQuery(customer: Seed.balanceAccountID, statuses: [.cancelled]), context: OperationContext())
            #expect(cancelled.cards.map(\.id) == [Seed.closedMastercardID])
            #expect(cancelled.cards.first?.status == .cancelled)
            #expect(
                handle.journal.entries().dropFirst(before).map { $0.query ?? "" } == [
                    "status=suspended", "status=closed",
                ])

            let several = try await provider.listCards(
                CardQuery(
                    customer: Seed.balanceAccountID, types: [.physical], statuses: [.active, .inactive], limit: 100),
                context: OperationContext()
            )
            #expect(several.cards.map(\.id) == [Seed.activeMastercardID, Seed.inactiveMastercardID])
            #expect(several.hasMore == false)
            #expect(handle.journal.entries().last?.query == "limit=100")

            let empty = try await provider.listCards(
                CardQuery(customer: Seed.emptyBalanceAccountID), context: OperationContext())
            #expect(empty.cards.isEmpty && !empty.hasMore)
            let unknown = await gatewayError {
                _ = try await provider.listCards(
                    CardQuery(customer: "BA0000000000000000UNKNOWN"), context: OperationContext())
            }
            #expect(unknown?.code == .notFound)
        }
    }

    @Test(
        "listCards validates before sending",
        arguments: [
            (CardQuery(customer: Seed.balanceAccountID, limit: 0), "limit"),
            (CardQuery(customer: Seed.balanceAccountID, limit: 101), "limit"),
            (CardQuery(customer: Seed.balanceAccountID, offset: -1), "offset"),
            (CardQuery(customer: Seed.balanceAccountID, cursor: "abc"), "cursor"),
            (CardQuery(customer: nil), "customer"),
            (CardQuery(customer: "../x"), "customer"),
            (CardQuery(customer: Seed.balanceAccountID, statuses: [.locked]), "statuses"),
        ]
    )
    func listingValidation(query: CardQuery, field: String) async throws {
        let transport = ScriptedTransport([])
        let error = await gatewayError {
            _ = try await Fixture.provider(transport).listCards(query, context: OperationContext())
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.fieldErrors.map(\.field) == [field])
        #expect(transport.requestCount == 0)
    }

    @Test(
        "every payment instrument status word is mapped in a listing",
        arguments: [
            ("active", CardStatus.active), ("inactive", .inactive), ("suspended", .suspended), ("closed", .cancelled),
            ("requested", .unknown),
        ]
    )
    func listingStatusWords(word: String, status: CardStatus) async throws {
        let transport = ScriptedTransport([
            .json(
                200,
                "{\"hasNext\": false, \"hasPrevious\": false, \"paymentInstruments\": [\(Fixture.instrument(id: "PI1", status: word))]}"
            )
        ])
        let page = try await Fixture.provider(transport).listCards(
            CardQuery(customer: "BA1"), context: OperationContext())
        #expect(page.cards.map(\.status) == [status])
        #expect(page.cards.first?.providerStatus == word)
        #expect(page.total == 1)
        #expect(transport.requests.first?.path == "/bcl/v2/balanceAccounts/BA1/paymentInstruments")
    }

    // MARK: Lock, unlock, cancel

    @Test("lock is PATCH status suspended with a key, unlock is PATCH status active; each reads the instrument first")
    func lockUnlockOnTheWire() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            let card = CardRef(id: Seed.lockableVisaID)
            let before = handle.journal.entries().count
            let locked = try await provider.changeStatus(
                CardStatusRequest(card: card, intent: .lock, reason: .cardholderRequest), context: OperationContext())
            #expect(locked.status == .suspended)
            #expect(locked.providerStatus == "suspended")
            #expect(locked.statusReason == "other")
            #expect(locked.ref == CardRef(id: Seed.lockableVisaID, customer: Seed.balanceAccountID))
            #expect(try await provider.card(card, context: OperationContext()).status == .suspended)

            let unlocked = try await provider.changeStatus(
                CardStatusRequest(card: card, intent: .unlock, reason: .lost), context: OperationContext())
            #expect(unlocked.status == .active)
            #expect(unlocked.statusReason == nil)

            let entries = Array(handle.journal.entries().dropFirst(before))
            #expect(entries.map(\.method) == ["GET", "PATCH", "GET", "GET", "PATCH"])
            let path = "/bcl/v2/paymentInstruments/\(Seed.lockableVisaID)"
            #expect(entries.allSatisfy { $0.path == path })
            let patches = entries.filter { $0.method == "PATCH" }
            #expect(
                try JSONValue.parse(patches[0].body)
                    == Self.object([
                        "status": "suspended", "statusReason": "other", "statusComment": "Cardholder request",
                    ]))
            // Unlock sends no reason, whatever the request says.
            #expect(try JSONValue.parse(patches[1].body) == Self.object(["status": "active"]))
            let keys = patches.compactMap { $0.header("Idempotency-Key") }
            #expect(keys.count == 2 && Set(keys).count == 2 && keys.allSatisfy { !$0.isEmpty && $0.count <= 64 })
            #expect(patches.allSatisfy { $0.header("content-type") == "application/json" && $0.executedSuccessfully })
        }
    }

    @Test("a lock repeated with the same operation key is answered from Adyen's idempotency record")
    func lockReplay() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            var context = OperationContext()
            context.idempotencyKey = "support-desk-lock-1"
            let request = CardStatusRequest(card: CardRef(id: Seed.lockableVisaID), intent: .lock, reason: .stolen)
            let first = try await provider.changeStatus(request, context: context)
            let second = try await provider.changeStatus(request, context: context)
            #expect(first.status == .suspended && second.status == .suspended)
            #expect(second.statusReason == "stolen")
            let patches = handle.journal.entries().filter { $0.method == "PATCH" }
            #expect(patches.map(\.handling) == [.executed, .replayed])
            #expect(Set(patches.compactMap { $0.header("Idempotency-Key") }).count == 1)
        }
    }

    @Test(
        "cancel is PATCH status closed and final: unlock and lock are invalidCardState without a write; a second cancel is a no-op"
    )
    func cancelIsFinal() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            let card = CardRef(id: Seed.cancellableMastercardID)
            let cancelled = try await provider.changeStatus(
                CardStatusRequest(card: card, intent: .cancel, reason: .damaged), context: OperationContext())
            #expect(cancelled.status == .cancelled)
            #expect(cancelled.providerStatus == "closed")
            #expect(cancelled.statusReason == "damaged")
            let patch = try #require(handle.journal.entries().last)
            #expect(try JSONValue.parse(patch.body) == Self.object(["status": "closed", "statusReason": "damaged"]))

            let writes = handle.journal.entries().filter { $0.method == "PATCH" }.count
            for intent in [CardStatusIntent.unlock, .lock] {
                let error = await gatewayError {
                    _ = try await provider.changeStatus(
                        CardStatusRequest(card: card, intent: intent), context: OperationContext())
                }
                #expect(error?.code == .invalidCardState)
                #expect(error?.provider == "adyen-sim")
            }
            let again = try await provider.changeStatus(
                CardStatusRequest(card: card, intent: .cancel), context: OperationContext())
            #expect(again.status == .cancelled)
            #expect(handle.journal.entries().filter { $0.method == "PATCH" }.count == writes)
        }
    }

    @Test(
        "the simulator refuses to reopen a closed instrument the way Adyen does; the adapter maps it to invalidCardState"
    )
    func providerRefusalMapped() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let raw = RawClient(handle: handle)
            let reply = try await raw.send(
                .patch, "/paymentInstruments/\(Seed.closedMastercardID)", body: raw.json("{\"status\":\"active\"}"))
            #expect(reply.status == 422)
            #expect(reply.errorCode == AdyenSimulatorErrors.instrumentClosed)
            #expect(reply.json?["type"]?.stringValue?.hasPrefix("https://docs.adyen.com/errors/") == true)
            #expect(reply.json?["status"] == .number(422))
            #expect(
                try await provider(handle).card(CardRef(id: Seed.closedMastercardID), context: OperationContext())
                    .status == .cancelled)
        }

        // The instrument read as active, then closed by the time the PATCH arrived: Adyen's 422 is invalidCardState.
        let closedError = Fixture.restError(
            status: 422, errorCode: "30_111", title: "Invalid payment instrument status",
            detail: "The payment instrument is closed.", requestId: "REQ9")
        let raced = ScriptedTransport([
            .json(200, Fixture.instrument(id: "PI1", status: "active")), .json(422, closedError),
            .json(200, Fixture.instrument(id: "PI1", status: "closed")),
        ])
        let error = await gatewayError {
            _ = try await Fixture.provider(raced).changeStatus(
                CardStatusRequest(card: CardRef(id: "PI1"), intent: .lock), context: OperationContext())
        }
        #expect(error?.code == .invalidCardState)
        #expect(error?.providerCode == "30_111")
        #expect(error?.httpStatus == 422)
        #expect(error?.requestID == "REQ9")
        #expect(raced.requests.map(\.method) == ["GET", "PATCH", "GET"])

        // Still open after the refusal: Adyen's error stands as it maps.
        let other = ScriptedTransport([
            .json(200, Fixture.instrument(id: "PI1", status: "active")), .json(422, closedError),
            .json(200, Fixture.instrument(id: "PI1", status: "active")),
        ])
        let stands = await gatewayError {
            _ = try await Fixture.provider(other).changeStatus(
                CardStatusRequest(card: CardRef(id: "PI1"), intent: .lock), context: OperationContext())
        }
        #expect(stands?.code == .invalidRequest)
        #expect(stands?.providerCode == "30_111")
    }

    func provider(_ handle: SimulatorHandle) throws -> AdyenProvider { try SimulatorFixture.provider(handle) }

    /// A JSON object of strings.
    static func object(_ fields: [String: String]) -> JSONValue { .object(fields.mapValues { .string($0) }) }

    static let reasonCases: [(CardStatusReason?, String?, [String: String])] = [
        (.lost, nil, ["status": "suspended", "statusReason": "lost"]),
        (.stolen, nil, ["status": "suspended", "statusReason": "stolen"]),
        (.damaged, nil, ["status": "suspended", "statusReason": "damaged"]),
        (
            .suspectedFraud, "card skimmed",
            ["status": "suspended", "statusReason": "suspectedFraud", "statusComment": "card skimmed"]
        ),
        (
            .cardholderRequest, nil,
            ["status": "suspended", "statusReason": "other", "statusComment": "Cardholder request"]
        ),
        (
            .cardholderRequest, "travelling",
            ["status": "suspended", "statusReason": "other", "statusComment": "travelling"]
        ),
        (
            .other, "left in a taxi",
            ["status": "suspended", "statusReason": "other", "statusComment": "left in a taxi"]
        ),
        (nil, nil, ["status": "suspended"]),
    ]

    @Test(
        "reasons map to Adyen's statusReason (cardholderRequest is other with a comment; none sends none)",
        arguments: reasonCases)
    func reasons(reason: CardStatusReason?, comment: String?, body: [String: String]) async throws {
        let transport = ScriptedTransport([
            .json(200, Fixture.instrument(id: "PI1", status: "active")),
            .json(200, Fixture.instrument(id: "PI1", status: "suspended", statusReason: body["statusReason"])),
        ])
        let card = try await Fixture.provider(transport).changeStatus(
            CardStatusRequest(card: CardRef(id: "PI1"), intent: .lock, reason: reason, comment: comment),
            context: OperationContext())
        #expect(card.status == .suspended)
        let patch = try #require(transport.requests.last)
        #expect(patch.method == "PATCH")
        #expect(patch.path == "/bcl/v2/paymentInstruments/PI1")
        #expect(patch.jsonBody == Self.object(body))
        #expect(patch.header("Idempotency-Key")?.isEmpty == false)
    }

    @Test("refused before sending: reason other without a comment, a bad id; an inactive card cannot be unlocked")
    func statusValidation() async throws {
        let transport = ScriptedTransport([])
        let provider = try Fixture.provider(transport)
        let other = await gatewayError {
            _ = try await provider.changeStatus(
                CardStatusRequest(card: CardRef(id: "PI1"), intent: .cancel, reason: .other, comment: "  "),
                context: OperationContext())
        }
        #expect(other?.code == .invalidRequest)
        #expect(other?.fieldErrors.map(\.field) == ["comment"])
        let badID = await gatewayError {
            _ = try await provider.changeStatus(
                CardStatusRequest(card: CardRef(id: ".."), intent: .lock), context: OperationContext())
        }
        #expect(badID?.fieldErrors.map(\.field) == ["card.id"])
        #expect(transport.requestCount == 0)

        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            let error = await gatewayError {
                _ = try await provider.changeStatus(
                    CardStatusRequest(card: CardRef(id: Seed.inactiveMastercardID), intent: .unlock),
                    context: OperationContext())
            }
            #expect(error?.code == .invalidCardState)
            #expect(handle.journal.entries().filter { $0.method == "PATCH" }.isEmpty)
            // A business account is not a card: refused as before, nothing written.
            let bank = await gatewayError {
                _ = try await provider.changeStatus(
                    CardStatusRequest(card: CardRef(id: Seed.bankAccountID), intent: .lock), context: OperationContext()
                )
            }
            #expect(bank?.code == .invalidRequest)
            #expect(handle.journal.entries().filter { $0.method == "PATCH" }.isEmpty)
        }
    }

    @Test("the simulator checks the PATCH body as Adyen's schema does")
    func simulatorPatchValidation() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let raw = RawClient(handle: handle)
            let path = "/paymentInstruments/\(Seed.lockableVisaID)"
            let other = try await raw.send(
                .patch, path, body: raw.json("{\"status\":\"suspended\",\"statusReason\":\"other\"}"))
            #expect(other.status == 422)
            #expect(other.json?["invalidFields"]?.arrayValue?.first?["name"]?.stringValue == "statusComment")
            let word = try await raw.send(.patch, path, body: raw.json("{\"status\":\"frozen\"}"))
            #expect(word.status == 422 && word.errorCode == AdyenSimulatorErrors.invalidInstrumentUpdate)
            let reason = try await raw.send(
                .patch, path, body: raw.json("{\"status\":\"suspended\",\"statusReason\":\"cardholderRequest\"}"))
            #expect(reason.status == 422)
            let limit = try await raw.send(
                .get, "/balanceAccounts/\(Seed.balanceAccountID)/paymentInstruments?limit=101")
            #expect(limit.status == 422 && limit.errorCode == AdyenSimulatorErrors.invalidQuery)
            let noKey = try await raw.send(.patch, path, apiKey: nil, body: raw.json("{\"status\":\"suspended\"}"))
            #expect(noKey.status == 401)
            let ok = try await raw.send(
                .patch, path, body: raw.json("{\"status\":\"suspended\",\"statusReason\":\"lost\"}"))
            #expect(ok.status == 200)
            #expect(ok.json?["status"]?.stringValue == "suspended")
            #expect(ok.json?["statusReason"]?.stringValue == "lost")
            #expect(ok.json?["card"]?["lastFour"]?.stringValue == "1357")
        }
    }

    // MARK: Wallet tokens

    @Test("walletTokens(of:) lists every network token of the card, in every status")
    func tokenListing() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            let tokens = try await provider.walletTokens(
                of: CardRef(id: Seed.activeMastercardID), context: OperationContext())
            #expect(
                tokens.map(\.id) == [
                    Seed.activeApplePayTokenID, Seed.inactiveGooglePayTokenID, Seed.suspendedApplePayTokenID,
                    Seed.closedGooglePayTokenID,
                ])
            #expect(tokens.map(\.status) == [.active, .requested, .suspended, .deleted])
            #expect(
                handle.journal.entries().last?.path
                    == "/bcl/v2/paymentInstruments/\(Seed.activeMastercardID)/networkTokens")
        }
    }

    @Test("suspend, resume and delete are PATCH /networkTokens/{id} with a key; a closed token cannot be changed")
    func tokenLifecycle() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            let card = CardRef(id: Seed.walletVisaID)
            let token = Seed.walletActiveTokenID
            let before = handle.journal.entries().count
            let suspended = try await provider.changeWalletToken(
                WalletTokenRequest(card: card, token: token, intent: .suspend, reason: .lost),
                context: OperationContext())
            #expect(suspended.status == .suspended && suspended.providerStatus == "suspended" && suspended.id == token)
            #expect(suspended.wallet == .applePay)
            let resumed = try await provider.changeWalletToken(
                WalletTokenRequest(card: card, token: token, intent: .resume), context: OperationContext())
            #expect(resumed.status == .active)
            let deleted = try await provider.changeWalletToken(
                WalletTokenRequest(card: card, token: token, intent: .delete), context: OperationContext())
            #expect(deleted.status == .deleted && deleted.providerStatus == "closed")

            let entries = Array(handle.journal.entries().dropFirst(before))
            #expect(entries.map(\.method) == ["GET", "PATCH", "GET", "PATCH", "GET", "PATCH"])
            #expect(entries.allSatisfy { $0.path == "/bcl/v2/networkTokens/\(token)" })
            let patches = entries.filter { $0.method == "PATCH" }
            #expect(
                try patches.map { try JSONValue.parse($0.body) }
                    == ["suspended", "active", "closed"].map { Self.object(["status": $0]) })
            #expect(patches.allSatisfy { $0.responseStatus == 202 && ($0.header("Idempotency-Key")?.count ?? 0) > 0 })

            let writes = handle.journal.entries().filter { $0.method == "PATCH" }.count
            for intent in [WalletTokenIntent.resume, .suspend] {
                let error = await gatewayError {
                    _ = try await provider.changeWalletToken(
                        WalletTokenRequest(card: card, token: token, intent: intent), context: OperationContext())
                }
                #expect(error?.code == .invalidCardState)
            }
            let again = try await provider.changeWalletToken(
                WalletTokenRequest(card: card, token: token, intent: .delete), context: OperationContext())
            #expect(again.status == .deleted)
            #expect(handle.journal.entries().filter { $0.method == "PATCH" }.count == writes)
            let listed = try await provider.walletTokens(of: card, context: OperationContext())
            #expect(listed.map(\.status) == [.deleted, .active])
        }
    }

    @Test("a token of another card is notFound, nothing written; an unknown token is notFound")
    func tokenOfAnotherCard() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            let error = await gatewayError {
                _ = try await provider.changeWalletToken(
                    WalletTokenRequest(
                        card: CardRef(id: Seed.walletVisaID), token: Seed.activeApplePayTokenID, intent: .suspend),
                    context: OperationContext()
                )
            }
            #expect(error?.code == .notFound)
            let unknown = await gatewayError {
                _ = try await provider.changeWalletToken(
                    WalletTokenRequest(
                        card: CardRef(id: Seed.walletVisaID), token: "NWTK0000000000000000000NONE", intent: .suspend),
                    context: OperationContext()
                )
            }
            #expect(unknown?.code == .notFound)
            #expect(handle.journal.entries().filter { $0.method == "PATCH" }.isEmpty)
            #expect(
                try await provider.networkToken(id: Seed.activeApplePayTokenID, context: OperationContext()).status
                    == .active)
        }
        let transport = ScriptedTransport([])
        let bad = await gatewayError {
            _ = try await Fixture.provider(transport).changeWalletToken(
                WalletTokenRequest(card: CardRef(id: ""), token: "..", intent: .delete), context: OperationContext())
        }
        #expect(bad?.code == .invalidRequest)
        #expect(Set(bad?.fieldErrors.map(\.field) ?? []) == ["card.id", "token"])
        #expect(transport.requestCount == 0)
    }

    @Test(
        "Adyen's refusal of a token closed meanwhile is invalidCardState; a suspend repeated with one key is replayed")
    func tokenRefusalAndReplay() async throws {
        let final = Fixture.restError(
            status: 422, errorCode: "30_107", title: "Invalid network token status",
            detail: "The network token is closed.")
        let raced = ScriptedTransport([
            .json(200, "{\"token\": \(Fixture.token(id: "NWTK7", instrument: "PI1", status: "active"))}"),
            .json(422, final),
            .json(200, "{\"token\": \(Fixture.token(id: "NWTK7", instrument: "PI1", status: "closed"))}"),
        ])
        let error = await gatewayError {
            _ = try await Fixture.provider(raced).changeWalletToken(
                WalletTokenRequest(card: CardRef(id: "PI1"), token: "NWTK7", intent: .resume),
                context: OperationContext())
        }
        #expect(error?.code == .invalidCardState)
        #expect(error?.providerCode == "30_107")
        #expect(raced.requests.map(\.method) == ["GET", "PATCH", "GET"])

        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            var context = OperationContext()
            context.idempotencyKey = "support-desk-token-1"
            let request = WalletTokenRequest(
                card: CardRef(id: Seed.walletVisaID), token: Seed.walletDeletableTokenID, intent: .suspend)
            _ = try await provider.changeWalletToken(request, context: context)
            _ = try await provider.changeWalletToken(request, context: context)
            #expect(handle.journal.entries().filter { $0.method == "PATCH" }.map(\.handling) == [.executed, .replayed])
        }
    }

    @Test("the descriptor declares what Adyen's API offers, and the adapter conforms to each")
    func capabilities() throws {
        let declared = AdyenProvider.descriptor.capabilities
        #expect(
            declared == [
                .cardLookup, .cardListing, .cardIssuance, .cardLocking, .cardCancellation, .walletTokenListing,
                .walletTokenControl, .walletProvisioning, .webhooks,
                .cardDetailsReveal, .pinReveal, .pinChange, .authorizations,
            ])
        let provider: any CardProvider = try Fixture.provider(ScriptedTransport([]))
        #expect(provider is any CardListing)
        #expect(provider is any CardIssuance)
        #expect(provider is any CardStatusControl)
        #expect(provider is any WalletTokenListing)
        #expect(provider is any WalletTokenControl)
        #expect(provider is any CardReveal)
        #expect(provider is any AuthorizationResponding)
        #expect(!(provider is any CardActivation))
        #expect(!(provider is any CardPINManagement))
        #expect(!(provider is any CardPrograms))
    }
}
