import CardGateway
import CardGatewaySimulation
import Foundation

/// The card-management and wallet-token lifecycle scenarios: each runs for an adapter that declares its
/// capability, and is reported as skipped, with the reason, for one that does not.
extension ContractRun {
    typealias ScenarioRunner = (String, String?, (ScenarioChecks) async throws -> Void) async -> Void

    /// The upper bound on pages a listing scenario follows, so that a provider that never ends a listing fails
    /// the scenario instead of looping.
    static let maxListingPages = 50

    /// Runs `body` when the adapter declares `capability` and the fixture is given; reports a skip with the reason
    /// when it does not declare it, and a missing fixture (or its waiver) when it declares it without one.
    func lifecycleScenario<F>(
        _ capability: Capability, _ name: String, fixture: F?, _ scenario: ScenarioRunner,
        _ body: @escaping (F, ScenarioChecks) async throws -> Void
    ) async {
        guard descriptor.capabilities.contains(capability) else {
            await scenario(name, "the adapter does not declare \(capability)") { _ in }
            return
        }
        guard let fixture else {
            await missing(.capability(capability), name, "no \(capability) fixture given", scenario)
            return
        }
        await scenario(name, nil) { checks in try await body(fixture, checks) }
    }

    // MARK: Cards

    func runCardManagement(_ provider: any CardProvider, _ scenario: ScenarioRunner) async {
        let cards = subject.fixtures.cards

        await lifecycleScenario(
            .cardListing, "cardListing: paging visits every card exactly once", fixture: cards, scenario
        ) { fixture, checks in
            let listing = try self.conformance((any CardListing).self, provider)
            let before = self.handle.journal.entries().count
            var query: CardQuery? = CardQuery(customer: fixture.customer, limit: 1)
            var seen: [String] = []
            var pages = 0
            while let current = query, pages < Self.maxListingPages {
                let page = try await listing.listCards(current, context: self.context)
                checks.expect(page.cards.count <= 1, "a page asked for one card holds \(page.cards.count)")
                seen += page.cards.map(\.id)
                query = current.next(after: page)
                pages += 1
            }
            checks.expect(query == nil, "the listing did not end within \(Self.maxListingPages) pages")
            checks.expect(seen.count >= 2, "the customer should have at least two cards (saw \(seen.count))")
            checks.expect(Set(seen).count == seen.count, "a card came back on two pages: \(seen)")
            let whole = try await listing.listCards(
                CardQuery(customer: fixture.customer, limit: 100), context: self.context)
            checks.expect(
                Set(whole.cards.map(\.id)) == Set(seen),
                "paging one by one saw \(seen.sorted()), one page of 100 saw \(whole.cards.map(\.id).sorted())")
            // Every page is read from the provider. A provider that pages on the wire is asked for one card; one that
            // answers every card at once (Bridge) is paged by the adapter over that answer.
            let reads = self.newEntries(since: before).filter { $0.method == "GET" }
            checks.expect(reads.count >= pages, "\(pages) pages were served by \(reads.count) reads from the provider")
        }
        await lifecycleScenario(
            .cardListing, "cardListing: a limit out of range is refused before sending", fixture: cards, scenario
        ) { fixture, checks in
            let listing = try self.conformance((any CardListing).self, provider)
            let before = self.handle.journal.entries().count
            _ = await self.expectError(.invalidRequest, checks) {
                _ = try await listing.listCards(CardQuery(customer: fixture.customer, limit: 0), context: self.context)
            }
            checks.expect(self.handle.journal.entries().count == before, "the invalid listing reached the provider")
        }
        if let filterStatus = cards?.filterStatus {
            await lifecycleScenario(.cardListing, "cardListing: filtered by status", fixture: cards, scenario) {
                fixture, checks in
                let listing = try self.conformance((any CardListing).self, provider)
                let page = try await listing.listCards(
                    CardQuery(customer: fixture.customer, statuses: [filterStatus]), context: self.context)
                checks.expect(!page.cards.isEmpty, "no \(filterStatus) card came back")
                checks.expect(
                    page.cards.allSatisfy { $0.status == filterStatus },
                    "the filter let through \(Set(page.cards.map(\.status)))")
            }
        }
        await lifecycleScenario(
            .cardIssuance, "cardIssuance: create a virtual card", fixture: cards?.createVirtual, scenario
        ) { create, checks in
            let issuance = try self.conformance((any CardIssuance).self, provider)
            let before = self.handle.journal.entries().count
            let card = try await issuance.createCard(create, context: self.context)
            checks.expect(card.type == .virtual, "the new card's type is \(card.type)")
            checks.expect(!card.id.isEmpty, "the new card has no id")
            checks.expect(self.newEntries(since: before).contains { $0.method == "POST" }, "no POST went over the wire")
        }
        await lifecycleScenario(
            .cardIssuance, "cardIssuance: an invalid create is refused before sending", fixture: cards?.createVirtual,
            scenario
        ) { create, checks in
            let issuance = try self.conformance((any CardIssuance).self, provider)
            var invalid = create
            invalid.customer = ""
            invalid.currency = "euro"
            let before = self.handle.journal.entries().count
            let error = await self.expectError(.invalidRequest, checks) {
                _ = try await issuance.createCard(invalid, context: self.context)
            }
            checks.expect(self.handle.journal.entries().count == before, "the invalid request reached the provider")
            checks.expect(
                (error?.fieldErrors.count ?? 0) >= 2,
                "every problem should be named (got \(error?.fieldErrors.map(\.field) ?? []))")
        }
        await lifecycleScenario(.cardActivation, "cardActivation: activate", fixture: cards?.activation, scenario) {
            activation, checks in
            let activating = try self.conformance((any CardActivation).self, provider)
            // A CVV is too short to search for bare (a 3-digit run is everywhere); it is looked for next to its name.
            self.labelledNeedles.withLock { $0.append((label: "cvv", value: activation.cvv.revealedValue)) }
            let before = self.handle.journal.entries().count
            let card = try await activating.activateCard(activation, context: self.context)
            checks.expect(card.status == .active, "the activated card is \(card.status)")
            checks.expect(
                self.newEntries(since: before).contains { $0.method != "GET" && self.names($0, activation.card.id) },
                "no write naming the card id went over the wire"
            )
        }
        await lifecycleScenario(
            .cardLocking, "cardLocking: lock then unlock is a round trip", fixture: cards?.lockable, scenario
        ) { card, checks in
            let control = try self.conformance((any CardStatusControl).self, provider)
            let before = self.handle.journal.entries().count
            let locked = try await control.changeStatus(
                CardStatusRequest(card: card, intent: .lock, reason: .cardholderRequest), context: self.context)
            checks.expect(
                Self.lockedStatuses.contains(locked.status),
                "the locked card is \(locked.status), expected one of \(Self.lockedStatuses.map(\.rawValue).sorted())")
            let read = try await control.card(card, context: self.context)
            checks.expect(
                read.status == locked.status,
                "a lookup after the lock says \(read.status), the lock said \(locked.status)")
            let unlocked = try await control.changeStatus(
                CardStatusRequest(card: card, intent: .unlock), context: self.context)
            checks.expect(unlocked.status == .active, "the unlocked card is \(unlocked.status)")
            let writes = self.newEntries(since: before).filter { $0.method != "GET" && self.names($0, card.id) }
            checks.expect(
                writes.count == 2, "lock and unlock should each send one write naming the card (saw \(writes.count))")
        }
        await lifecycleScenario(
            .cardCancellation, "cardCancellation: cancel is final", fixture: cards?.cancellable, scenario
        ) { card, checks in
            let control = try self.conformance((any CardStatusControl).self, provider)
            let cancelled = try await control.changeStatus(
                CardStatusRequest(card: card, intent: .cancel, reason: .lost), context: self.context)
            checks.expect(cancelled.status == .cancelled, "the cancelled card is \(cancelled.status)")
            // Whatever the provider's own answer to reopening a closed card, it is invalidCardState.
            let reopen: CardStatusIntent = self.descriptor.capabilities.contains(.cardLocking) ? .unlock : .cancel
            _ = await self.expectError(.invalidCardState, checks) {
                _ = try await control.changeStatus(CardStatusRequest(card: card, intent: reopen), context: self.context)
            }
            let read = try await control.card(card, context: self.context)
            checks.expect(read.status == .cancelled, "a lookup after the refused \(reopen) says \(read.status)")
        }
        await lifecycleScenario(.cardPIN, "cardPIN: set the PIN", fixture: cards?.pinChange, scenario) {
            change, checks in
            let pins = try self.conformance((any CardPINManagement).self, provider)
            self.labelledNeedles.withLock { $0.append((label: "pin", value: change.pin.revealedValue)) }
            let before = self.handle.journal.entries().count
            _ = try await pins.setPIN(change, context: self.context)
            let writes = self.newEntries(since: before).filter { $0.method != "GET" && self.names($0, change.card.id) }
            checks.expect(
                writes.count == 1, "the PIN change should send one write naming the card (saw \(writes.count))")
        }
        await lifecycleScenario(.cardPrograms, "cardPrograms: programs", fixture: cards, scenario) { fixture, checks in
            let programs = try self.conformance((any CardPrograms).self, provider)
            let before = self.handle.journal.entries().count
            let list = try await programs.programs(customer: fixture.customer, context: self.context)
            checks.expect(
                self.newEntries(since: before).contains { $0.method == "GET" },
                "the programs were not read from the provider")
            checks.expect(!list.isEmpty, "no programs")
            checks.expect(
                list.allSatisfy { !$0.name.isEmpty && $0.allowableCards >= 0 },
                "a program has no name or a negative allowance")
        }
    }

    /// The normalised statuses a locked card may report: providers without a cardholder lock (Stripe's
    /// `inactive`, Adyen's `suspended`) land on the nearest one.
    static let lockedStatuses: Set<CardStatus> = [.locked, .suspended, .inactive]

    // MARK: Wallet tokens

    func runWalletTokens(_ provider: any CardProvider, _ scenario: ScenarioRunner) async {
        let tokens = subject.fixtures.walletTokens

        await lifecycleScenario(.walletTokenListing, "walletTokenListing: the card's tokens", fixture: tokens, scenario)
        { fixture, checks in
            let listing = try self.conformance((any WalletTokenListing).self, provider)
            let before = self.handle.journal.entries().count
            let list = try await listing.walletTokens(of: fixture.card, context: self.context)
            let ids = list.map(\.id)
            checks.expect(Set(ids).count == ids.count, "a token came back twice: \(ids)")
            for id in [fixture.token] + (fixture.deletable.map { [$0] } ?? []) {
                checks.expect(ids.contains(id), "token \(id) is missing from \(ids)")
            }
            checks.expect(
                list.allSatisfy { $0.status != .unknown },
                "a token's status was not mapped: \(list.map(\.providerStatus))")
            checks.expect(
                self.newEntries(since: before).contains { $0.method == "GET" },
                "the tokens were not read from the provider")
        }
        await lifecycleScenario(
            .walletTokenControl, "walletTokenControl: suspend then resume is a round trip", fixture: tokens, scenario
        ) { fixture, checks in
            let control = try self.conformance((any WalletTokenControl).self, provider)
            let before = self.handle.journal.entries().count
            let suspended = try await control.changeWalletToken(
                WalletTokenRequest(card: fixture.card, token: fixture.token, intent: .suspend, reason: .suspectedFraud),
                context: self.context
            )
            checks.expect(suspended.status == .suspended, "the suspended token is \(suspended.status)")
            checks.expect(suspended.id == fixture.token, "the answer names token \(suspended.id)")
            let resumed = try await control.changeWalletToken(
                WalletTokenRequest(card: fixture.card, token: fixture.token, intent: .resume), context: self.context
            )
            checks.expect(resumed.status == .active, "the resumed token is \(resumed.status)")
            let writes = self.newEntries(since: before).filter { $0.method != "GET" && self.names($0, fixture.token) }
            checks.expect(
                writes.count == 2,
                "suspend and resume should each send one write naming the token (saw \(writes.count))")
        }
        let deletable = tokens.flatMap { fixture in fixture.deletable.map { (card: fixture.card, token: $0) } }
        await lifecycleScenario(
            .walletTokenControl, "walletTokenControl: delete is final", fixture: deletable, scenario
        ) { fixture, checks in
            let control = try self.conformance((any WalletTokenControl).self, provider)
            let deleted = try await control.changeWalletToken(
                WalletTokenRequest(card: fixture.card, token: fixture.token, intent: .delete, reason: .lost),
                context: self.context
            )
            checks.expect(deleted.status == .deleted, "the deleted token is \(deleted.status)")
            _ = await self.expectError(.invalidCardState, checks) {
                _ = try await control.changeWalletToken(
                    WalletTokenRequest(card: fixture.card, token: fixture.token, intent: .resume), context: self.context
                )
            }
        }
    }

    /// Whether a request names `id`: in its path (`POST /cards/{id}/lock`), or as a JSON string value in its body,
    /// as providers that take the subject of a transition in the body do (Marqeta's `POST /cardtransitions` carries
    /// `card_token`, its `POST /digitalwallettokentransitions` the token). Only a whole JSON string counts, so an id
    /// that is a prefix of another id in the body does not.
    func names(_ entry: JournalEntry, _ id: String) -> Bool {
        entry.path.contains(id) || entry.bodyText.contains("\"\(id)\"")
    }

    /// The provider as the protocol its declared capability promises; the descriptor scenario reports a mismatch.
    func conformance<P>(_ type: P.Type, _ provider: any CardProvider) throws -> P {
        guard let conforming = provider as? P else {
            throw CardGatewayError(.unsupported, "the adapter declares the capability but does not conform to \(type)")
        }
        return conforming
    }
}
