import BridgeSimulator
@_spi(AdapterSupport) import CardGateway
@_spi(AdapterSupport) import CardGatewayBridge
import CardGatewaySimulation
@_spi(AdapterSupport) import CardGatewayTesting
import Foundation
import Testing
import SharedTestSupport

/// The normalised card lifecycle (list, create, lock, unlock) against the simulator, on the wire.
@Suite("Bridge lifecycle", .timeLimit(.minutes(5)))
struct BridgeLifecycleTests {
    typealias Seed = BridgeSimulator.Seed
    static let context = OperationContext(idempotencyKey: "bridge-lifecycle-1")
    static let adaCards = [
        Seed.activeVisa, Seed.activeMastercard, Seed.pendingVisa, Seed.inactiveMastercard, Seed.frozenByCustomer,
        Seed.frozenByDeveloper,
    ]

    @Test func descriptorDeclaresListingIssuanceAndLocking() {
        let capabilities = BridgeProvider.standardDescriptor.capabilities
        #expect(
            capabilities == [
                .cardLookup, .cardListing, .cardIssuance, .cardLocking, .walletProvisioning, .cardDetailsReveal,
                .pinChange, .webhooks,
            ])
        for absent in [
            Capability.cardCancellation, .cardActivation, .cardPIN, .cardPrograms, .walletTokenListing,
            .walletTokenControl,
        ] {
            #expect(!capabilities.contains(absent), "\(absent)")
        }
    }

    @Test func listingReadsTheCustomersAccountsOnceAPageAndMapsEveryStatus() async throws {
        try await BridgeLive.run { handle, provider, _ in
            let all = try await provider.listCards(CardQuery(customer: Seed.customerID), context: Self.context)
            #expect(all.cards.map(\.id) == Self.adaCards)
            #expect(all.total == 6 && !all.hasMore && all.nextCursor == nil)
            #expect(all.cards.allSatisfy { $0.customer == Seed.customerID })
            let statuses = Dictionary(uniqueKeysWithValues: all.cards.map { ($0.id, ($0.status, $0.providerStatus)) })
            #expect(statuses[Seed.activeVisa]! == (.active, "active"))
            #expect(statuses[Seed.pendingVisa]! == (.pending, "pending"))
            #expect(statuses[Seed.inactiveMastercard]! == (.inactive, "inactive"))
            #expect(statuses[Seed.frozenByCustomer]! == (.locked, "frozen"))
            #expect(statuses[Seed.frozenByDeveloper]! == (.suspended, "frozen"))
            let entry = try #require(handle.journal.last)
            #expect(entry.method == "GET" && entry.path == "/v0/customers/\(Seed.customerID)/card_accounts")
            #expect(entry.query == nil || entry.query == "")
            #expect(entry.header("idempotency-key") == nil)

            var query: CardQuery? = CardQuery(customer: Seed.customerID, limit: 4)
            var seen: [String] = []
            while let current = query {
                let page = try await provider.listCards(current, context: Self.context)
                #expect(page.total == 6 && page.offset == current.offset)
                seen += page.cards.map(\.id)
                query = current.next(after: page)
            }
            #expect(seen == Self.adaCards)
            #expect(handle.journal.entries(method: "GET", pathContains: "/card_accounts").count == 3)

            let frozen = try await provider.listCards(
                CardQuery(customer: Seed.customerID, statuses: [.locked, .suspended]), context: Self.context)
            #expect(frozen.cards.map(\.id) == [Seed.frozenByCustomer, Seed.frozenByDeveloper])
            #expect(frozen.total == 2)
            let other = try await provider.listCards(
                CardQuery(customer: Seed.customerWithoutCardID), context: Self.context)
            #expect(other.cards.isEmpty && other.total == 0)
        }
    }

    @Test(arguments: [
        (CardQuery(customer: nil), "customer"), (CardQuery(customer: "not/an/id"), "customer"),
        (CardQuery(customer: Seed.customerID, limit: 0), "limit"),
        (CardQuery(customer: Seed.customerID, limit: 101), "limit"),
        (CardQuery(customer: Seed.customerID, cursor: "x"), "cursor"),
        (CardQuery(customer: Seed.customerID, types: [.virtual]), "types"),
        (CardQuery(customer: Seed.customerID, offset: -1), "offset"),
    ])
    func invalidListingIsRefusedBeforeSending(query: CardQuery, field: String) async throws {
        try await BridgeLive.run { handle, provider, _ in
            let error = await #expect(throws: CardGatewayError.self) {
                try await provider.listCards(query, context: Self.context)
            }
            #expect(error?.code == .invalidRequest)
            #expect(error?.fieldErrors.map(\.field).contains(field) == true, "\(error?.fieldErrors ?? [])")
            #expect(handle.journal.count == 0)
        }
    }

    @Test func unknownCustomerIsNotFound() async throws {
        try await BridgeLive.run { _, provider, _ in
            let error = await #expect(throws: CardGatewayError.self) {
                try await provider.listCards(
                    CardQuery(customer: "c0ffee00000040008000000000009999"), context: Self.context)
            }
            #expect(error?.code == .notFound)
        }
    }

    @Test func createProvisionsACardAccountOnTheWire() async throws {
        try await BridgeLive.run { handle, provider, simulator in
            let request = CreateCardRequest(
                customer: Seed.customerWithoutCardID, type: .virtual, program: "midnight", currency: "USDC",
                externalID: "kj-1")
            let card = try await provider.createCard(request, context: Self.context)
            #expect(card.type == .virtual)
            #expect(card.status == .active && card.providerStatus == "active")
            #expect(card.customer == Seed.customerWithoutCardID)
            #expect(card.cardholderName == "Katherine Johnson")
            #expect(card.scheme == .visa)
            let entry = try #require(handle.journal.last)
            #expect(entry.method == "POST" && entry.path == "/v0/customers/\(Seed.customerWithoutCardID)/card_accounts")
            #expect(entry.responseStatus == 201)
            #expect(entry.header("idempotency-key") != nil)
            #expect(entry.header("content-type") == "application/json")
            #expect(
                entry.bodyText
                    == #"{"card_design_shortname":"midnight","chain":"base","client_reference_id":"kj-1","currency":"usdc"}"#
            )
            #expect(simulator.cardAccount(card.id)?.clientReferenceID == "kj-1")
            // Bridge provisions one card account per customer.
            let again = await #expect(throws: CardGatewayError.self) {
                try await provider.createCard(request, context: OperationContext(idempotencyKey: "bridge-lifecycle-2"))
            }
            #expect(again?.code == .invalidRequest)
            #expect(again?.providerCode == "card_account_already_exists")
            let listed = try await provider.listCards(
                CardQuery(customer: Seed.customerWithoutCardID), context: Self.context)
            #expect(listed.cards.map(\.id) == [card.id])
        }
    }

    @Test func createRefusesWhatBridgeCannotExpressBeforeSending() async throws {
        try await BridgeLive.run { handle, provider, _ in
            let request = CreateCardRequest(
                customer: "", type: .physical, program: "bad design", currency: "usd", mobile: "+15550100",
                pin: Secret("4321"),
                deliveryAddress: DeliveryAddress(
                    address1: "1 Main St", city: "Springfield", countryCode: "US", postalCode: "12345")
            )
            let error = await #expect(throws: CardGatewayError.self) {
                try await provider.createCard(request, context: Self.context)
            }
            #expect(error?.code == .invalidRequest)
            #expect(
                Set(error?.fieldErrors.map(\.field) ?? []) == [
                    "customer", "currency", "type", "program", "pin", "mobile", "deliveryAddress",
                ])
            #expect(error.map { !"\($0)".contains("4321") } == true)
            #expect(handle.journal.count == 0)
        }
    }

    @Test func createWithoutAConfiguredChainIsAConfigurationProblem() async throws {
        try await BridgeLive.run(cardChain: nil) { handle, provider, _ in
            let error = await #expect(throws: CardGatewayError.self) {
                try await provider.createCard(
                    CreateCardRequest(
                        customer: Seed.customerWithoutCardID, type: .virtual, program: "", currency: "usdc"),
                    context: Self.context)
            }
            #expect(error?.code == .invalidConfiguration)
            #expect(handle.journal.count == 0)
        }
    }

    @Test func theChainOptionIsCheckedWhenTheConfigurationLoads() throws {
        let http = try ProviderHTTPClient.testing(
            kind: .bridge, baseURL: BridgeFixtures.baseURL, transport: ScriptedTransport([]))
        let error = #expect(throws: CardGatewayError.self) {
            try BridgeProvider(http: http, apiKey: Secret("k"), cardChain: "dogecoin")
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(BridgeOptions.specs.map(\.name) == ["certificateEncoding", "cardChain"])
    }

    @Test func lockThenUnlockOnTheWire() async throws {
        try await BridgeLive.run { handle, provider, simulator in
            let ref = BridgeLive.ref(Seed.activeMastercard)
            let locked = try await provider.changeStatus(
                CardStatusRequest(card: ref, intent: .lock, reason: .suspectedFraud, comment: "disputed charge"),
                context: Self.context
            )
            #expect(locked.status == .suspended && locked.providerStatus == "frozen")
            #expect(locked.statusReason == "suspected_fraud")
            let freeze = try #require(handle.journal.entries(method: "POST", pathContains: "/freeze").last)
            #expect(freeze.path == "/v0/customers/\(Seed.customerID)/card_accounts/\(Seed.activeMastercard)/freeze")
            #expect(
                freeze.bodyText
                    == #"{"initiator":"developer","reason":"suspected_fraud","reason_detail":"disputed charge"}"#)
            #expect(freeze.header("idempotency-key") != nil)
            #expect(try await provider.card(ref, context: Self.context).status == .suspended)

            let unlocked = try await provider.changeStatus(
                CardStatusRequest(card: ref, intent: .unlock),
                context: OperationContext(idempotencyKey: "bridge-lifecycle-3"))
            #expect(unlocked.status == .active && unlocked.providerStatus == "active")
            let unfreeze = try #require(handle.journal.entries(method: "POST", pathContains: "/unfreeze").last)
            #expect(unfreeze.bodyText == #"{"initiator":"developer"}"#)
            #expect(simulator.cardAccount(Seed.activeMastercard)?.status == "active")
            // Each intent reads the account once, then writes once.
            #expect(handle.journal.entries(method: "POST", pathContains: Seed.activeMastercard).count == 2)
            #expect(handle.journal.entries(method: "GET", pathContains: Seed.activeMastercard).count == 3)
        }
    }

    @Test(arguments: [
        (CardStatusReason?.none, "other"), (.lost, "lost_or_stolen"), (.stolen, "lost_or_stolen"), (.damaged, "other"),
        (.suspectedFraud, "suspected_fraud"), (.cardholderRequest, "planned_inactivity"), (.other, "other"),
    ])
    func freezeReasonMapping(reason: CardStatusReason?, bridge: String) async throws {
        try await BridgeLive.run { handle, provider, simulator in
            _ = try await provider.changeStatus(
                CardStatusRequest(card: BridgeLive.ref(Seed.activeVisa), intent: .lock, reason: reason),
                context: Self.context)
            #expect(handle.journal.last?.bodyText == #"{"initiator":"developer","reason":"\#(bridge)"}"#)
            #expect(simulator.cardAccount(Seed.activeVisa)?.freezes.map(\.reason) == [bridge])
        }
    }

    @Test func lockingAFrozenAccountAddsOrReplacesTheDeveloperFreeze() async throws {
        try await BridgeLive.run { _, provider, simulator in
            let byCustomer = try await provider.changeStatus(
                CardStatusRequest(card: BridgeLive.ref(Seed.frozenByCustomer), intent: .lock, reason: .lost),
                context: Self.context)
            #expect(byCustomer.status == .suspended)
            #expect(
                simulator.cardAccount(Seed.frozenByCustomer)?.freezes.map(\.initiator) == ["customer", "developer"])
            let replaced = try await provider.changeStatus(
                CardStatusRequest(card: BridgeLive.ref(Seed.frozenByDeveloper), intent: .lock, reason: .other),
                context: Self.context)
            #expect(replaced.status == .suspended)
            #expect(simulator.cardAccount(Seed.frozenByDeveloper)?.freezes.map(\.reason) == ["other"])
        }
    }

    @Test(arguments: [
        (Seed.pendingVisa, CardStatusIntent.lock), (Seed.inactiveMastercard, .lock), (Seed.activeVisa, .unlock),
        (Seed.frozenByCustomer, .unlock),
        (Seed.pendingVisa, .unlock),
    ])
    func illegalTransitionsAreRefusedBeforeWriting(card: String, intent: CardStatusIntent) async throws {
        try await BridgeLive.run { handle, provider, simulator in
            let before = simulator.cardAccount(card)
            let error = await #expect(throws: CardGatewayError.self) {
                try await provider.changeStatus(
                    CardStatusRequest(card: BridgeLive.ref(card), intent: intent), context: Self.context)
            }
            #expect(error?.code == .invalidCardState)
            #expect(handle.journal.entries(method: "POST", pathContains: card).isEmpty)
            #expect(simulator.cardAccount(card) == before)
        }
    }

    @Test func unlockIsRefusedWhileAnotherInitiatorsFreezeRemains() async throws {
        try await BridgeLive.run { handle, provider, simulator in
            let ref = BridgeLive.ref(Seed.frozenByCustomer)
            _ = try await provider.freeze(card: ref, reason: .other, context: Self.context)
            let error = await #expect(throws: CardGatewayError.self) {
                try await provider.changeStatus(
                    CardStatusRequest(card: ref, intent: .unlock),
                    context: OperationContext(idempotencyKey: "bridge-lifecycle-4"))
            }
            #expect(error?.code == .invalidCardState)
            #expect(handle.journal.entries(method: "POST", pathContains: "/unfreeze").isEmpty)
            #expect(simulator.cardAccount(Seed.frozenByCustomer)?.freezes.count == 2)
        }
    }

    @Test func theSimulatorsOwnRefusalsMapToInvalidCardState() async throws {
        // A race: the account changed between the adapter's read and its write. Bridge's own refusal maps too.
        let transport = ScriptedTransport([
            .json(200, BridgeFixtures.cardAccountJSON(status: "active")),
            .json(
                400,
                #"{"code":"card_account_not_active","message":"The card account is inactive and cannot be frozen","source":{"location":"path","key":"cardAccountID"}}"#
            ),
        ])
        let provider = try BridgeFixtures.provider(transport)
        let error = await #expect(throws: CardGatewayError.self) {
            try await provider.changeStatus(
                CardStatusRequest(card: BridgeFixtures.ref, intent: .lock), context: Self.context)
        }
        #expect(error?.code == .invalidCardState)
        #expect(error?.providerCode == "card_account_not_active")
        #expect(transport.requests.map(\.method) == ["GET", "POST"])
    }

    @Test func cancelIsUnsupportedAndSendsNothing() async throws {
        try await BridgeLive.run { handle, provider, _ in
            let error = await #expect(throws: CardGatewayError.self) {
                try await provider.changeStatus(
                    CardStatusRequest(card: BridgeLive.ref(Seed.activeVisa), intent: .cancel, reason: .lost),
                    context: Self.context)
            }
            #expect(error?.code == .unsupported)
            #expect(handle.journal.count == 0)
        }
    }

    @Test func aCardWithoutItsCustomerIsRefusedBeforeSending() async throws {
        try await BridgeLive.run { handle, provider, _ in
            let error = await #expect(throws: CardGatewayError.self) {
                try await provider.changeStatus(
                    CardStatusRequest(card: CardRef(id: Seed.activeVisa), intent: .lock), context: Self.context)
            }
            #expect(error?.code == .invalidRequest)
            #expect(error?.fieldErrors.map(\.field) == ["card.customer"])
            #expect(handle.journal.count == 0)
        }
    }
}
