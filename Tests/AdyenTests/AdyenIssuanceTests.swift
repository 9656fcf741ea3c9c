import AdyenSimulator
import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import Testing

@testable import CardGatewayAdyen
import SharedTestSupport

/// Card issuance on Adyen: `POST /paymentInstruments`, on the wire against the simulator and refused before sending.
@Suite("Adyen card issuance", .timeLimit(.minutes(5)))
struct AdyenIssuanceTests {
    typealias Seed = AdyenSimulator.Seed

    static func virtual(
        name: String? = "Sam Hopper", country: String? = "NL", program: String = "visadebit"
    ) -> CreateCardRequest {
        CreateCardRequest(
            customer: Seed.balanceAccountID, type: .virtual, program: program, currency: "EUR", externalID: "order-77",
            cardholderName: name, issuingCountryCode: country
        )
    }

    @Test(
        "a virtual card is POST /paymentInstruments with Adyen's fields and an Idempotency-Key, answered as the new card"
    )
    func createVirtual() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            let before = handle.journal.entries().count
            let card = try await provider.createCard(Self.virtual(), context: OperationContext())
            let entries = Array(handle.journal.entries().dropFirst(before))
            #expect(entries.map(\.method) == ["POST"])
            let post = try #require(entries.first)
            #expect(post.path == "/bcl/v2/paymentInstruments")
            #expect(post.header("content-type") == "application/json")
            let key = try #require(post.header("Idempotency-Key"))
            #expect(!key.isEmpty && key.count <= 64)
            #expect(
                try JSONValue.parse(post.body)
                    == .object([
                        "type": .string("card"), "balanceAccountId": .string(Seed.balanceAccountID),
                        "issuingCountryCode": .string("NL"),
                        "reference": .string("order-77"),
                        "card": .object([
                            "brand": .string("visa"), "brandVariant": .string("visadebit"),
                            "cardholderName": .string("Sam Hopper"),
                            "formFactor": .string("virtual"),
                        ]),
                    ])
            )
            #expect(post.executedSuccessfully)
            #expect(card.type == .virtual && card.status == .active && card.scheme == .visa)
            #expect(card.cardholderName == "Sam Hopper")
            #expect(card.ref.customer == Seed.balanceAccountID && card.id.hasPrefix("PI"))
            #expect(card.lastFour?.count == 4)
            // The new card can be read back and is in the balance account's listing.
            #expect(try await provider.card(card.ref, context: OperationContext()).id == card.id)
            let listed = try await provider.listCards(
                CardQuery(customer: Seed.balanceAccountID, limit: 100), context: OperationContext())
            #expect(listed.cards.contains { $0.id == card.id })
        }
    }

    @Test("the issuing country falls back to the delivery address; a physical Mastercard sends its delivery contact")
    func createPhysical() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            let address = DeliveryAddress(
                address1: "Simon Carmiggeltstraat", address2: "6-50", city: "Amsterdam", countryCode: "nl",
                postalCode: "1011 DJ")
            let request = CreateCardRequest(
                customer: Seed.balanceAccountID, type: .physical, program: "mcprepaid", currency: "EUR",
                deliveryAddress: address,
                cardholderName: "Jo van der Berg"
            )
            let card = try await provider.createCard(request, context: OperationContext())
            #expect(card.type == .physical && card.scheme == .mastercard)
            #expect(card.status == .inactive)
            let post = try #require(handle.journal.entries().last)
            let body = try JSONValue.parse(post.body)
            #expect(body["issuingCountryCode"]?.stringValue == "NL")
            #expect(body["card"]?["brand"]?.stringValue == "mc")
            #expect(body["card"]?["formFactor"]?.stringValue == "physical")
            #expect(
                body["card"]?["deliveryContact"]
                    == .object([
                        "name": .object(["firstName": .string("Jo van der"), "lastName": .string("Berg")]),
                        "address": .object([
                            "line1": .string("Simon Carmiggeltstraat"), "line2": .string("6-50"),
                            "city": .string("Amsterdam"),
                            "country": .string("NL"), "postalCode": .string("1011 DJ"),
                        ]),
                    ])
            )
            #expect(body["reference"] == nil && body["status"] == nil)
        }
    }

    @Test("a create repeated with the same operation key is answered from Adyen's idempotency record: one card")
    func createReplay() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            var context = OperationContext()
            context.idempotencyKey = "onboarding-card-1"
            let first = try await provider.createCard(Self.virtual(), context: context)
            let second = try await provider.createCard(Self.virtual(), context: context)
            #expect(first.id == second.id)
            let posts = handle.journal.entries().filter { $0.method == "POST" }
            #expect(posts.map(\.handling) == [.executed, .replayed])
            #expect(Set(posts.compactMap { $0.header("Idempotency-Key") }).count == 1)
            // Another card under another key is a second instrument.
            context.idempotencyKey = "onboarding-card-2"
            let third = try await provider.createCard(Self.virtual(name: "Kim Lee"), context: context)
            #expect(third.id != first.id)
        }
    }

    static let invalidCases: [(String, CreateCardRequest, [String])] = [
        (
            "no customer, bad currency",
            CreateCardRequest(
                customer: "", type: .virtual, program: "visadebit", currency: "euro", cardholderName: "A B",
                issuingCountryCode: "NL"), ["customer", "currency"]
        ),
        (
            "unsafe customer",
            CreateCardRequest(
                customer: "BA/../x", type: .virtual, program: "visadebit", currency: "EUR", cardholderName: "A B",
                issuingCountryCode: "NL"), ["customer"]
        ),
        (
            "no name, no country",
            CreateCardRequest(customer: "BA1", type: .virtual, program: "visadebit", currency: "EUR"),
            ["cardholderName", "issuingCountryCode"]
        ),
        ("name too long", virtual(name: String(repeating: "x", count: 27)), ["cardholderName"]),
        ("name with a control character", virtual(name: "Sam\u{7}Hopper"), ["cardholderName"]),
        ("country not alpha-2", virtual(country: "NLD"), ["issuingCountryCode"]),
        ("brand not derivable", virtual(program: "amexgold"), ["program"]),
        ("program unsafe", virtual(program: "visa debit"), ["program"]),
        ("no program", virtual(program: ""), ["program"]),
        (
            "unknown type",
            CreateCardRequest(
                customer: "BA1", type: .unknown, program: "visadebit", currency: "EUR", cardholderName: "A B",
                issuingCountryCode: "NL"), ["type"]
        ),
        (
            "physical without address",
            CreateCardRequest(
                customer: "BA1", type: .physical, program: "visadebit", currency: "EUR", cardholderName: "A B",
                issuingCountryCode: "NL"), ["deliveryAddress"]
        ),
        (
            "physical with one name",
            CreateCardRequest(
                customer: "BA1", type: .physical, program: "visadebit", currency: "EUR",
                deliveryAddress: DeliveryAddress(address1: "a", city: "b", countryCode: "NL", postalCode: "1"),
                cardholderName: "Cher"
            ), ["cardholderName"]
        ),
        (
            "a PIN",
            CreateCardRequest(
                customer: "BA1", type: .virtual, program: "visadebit", currency: "EUR", pin: Secret("1234"),
                cardholderName: "A B", issuingCountryCode: "NL"), ["pin"]
        ),
    ]

    @Test("refused before sending, every problem named", arguments: invalidCases)
    func validation(name: String, request: CreateCardRequest, fields: [String]) async throws {
        let transport = ScriptedTransport([])
        let provider = try Fixture.provider(transport)
        let error = await gatewayError { _ = try await provider.createCard(request, context: OperationContext()) }
        #expect(error?.code == .invalidRequest, "\(name)")
        #expect(error?.fieldErrors.map(\.field) == fields, "\(name)")
        #expect(transport.requestCount == 0)
    }

    @Test("the personal name is not in the request's description")
    func descriptionHasNoName() {
        #expect(!String(describing: Self.virtual(name: "Sam Hopper")).contains("Hopper"))
    }

    @Test("the simulator checks the POST as Adyen's schema does: 422 naming fields, 404 for an unknown balance account")
    func simulatorValidation() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let raw = RawClient(handle: handle)
            let missing = try await raw.send(
                .post, "/paymentInstruments",
                body: raw.json("{\"type\":\"card\",\"balanceAccountId\":\"\(Seed.balanceAccountID)\"}"))
            #expect(missing.status == 422 && missing.errorCode == AdyenSimulatorErrors.invalidInstrumentCreate)
            let names = missing.json?["invalidFields"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
            #expect(names == ["issuingCountryCode", "card"])
            let card =
                "\"card\":{\"brand\":\"visa\",\"brandVariant\":\"visadebit\",\"cardholderName\":\"A B\",\"formFactor\":\"virtual\"}"
            let unknown = try await raw.send(
                .post, "/paymentInstruments",
                body: raw.json(
                    "{\"type\":\"card\",\"balanceAccountId\":\"BA0000UNKNOWN\",\"issuingCountryCode\":\"NL\",\(card)}"))
            #expect(unknown.status == 404 && unknown.errorCode == AdyenSimulatorErrors.unknownBalanceAccount)
            let noKey = try await raw.send(.post, "/paymentInstruments", apiKey: nil, body: raw.json("{}"))
            #expect(noKey.status == 401)
            let ok = try await raw.send(
                .post, "/paymentInstruments", headers: [("Idempotency-Key", "k1")],
                body: raw.json(
                    "{\"type\":\"card\",\"balanceAccountId\":\"\(Seed.balanceAccountID)\",\"issuingCountryCode\":\"NL\",\(card)}"
                )
            )
            #expect(ok.status == 200 && ok.header("Idempotency-Key") == "k1")
            #expect(ok.json?["status"]?.stringValue == "active")
            #expect(ok.json?["card"]?["cardholderName"]?.stringValue == "A B")
            let reused = try await raw.send(
                .post, "/paymentInstruments", headers: [("Idempotency-Key", "k1")],
                body: raw.json(
                    "{\"type\":\"card\",\"balanceAccountId\":\"\(Seed.balanceAccountID)\",\"issuingCountryCode\":\"DE\",\(card)}"
                )
            )
            #expect(reused.status == 422 && reused.errorCode == AdyenSimulatorErrors.idempotencyConflict)
        }
    }

    @Test("Adyen's 404 for an unknown balance account is notFound")
    func unknownBalanceAccount() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let provider = try SimulatorFixture.provider(handle)
            var request = Self.virtual()
            request.customer = "BA0000000000000000UNKNOWN"
            let error = await gatewayError { _ = try await provider.createCard(request, context: OperationContext()) }
            #expect(error?.code == .notFound)
        }
    }
}
