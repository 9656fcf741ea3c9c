import AdyenSimulator
import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import SharedTestSupport
import Testing

@testable import CardGatewayAdyen

/// Adyen's own examples from its OpenAPI document (`Fixtures/payment-instrument.json` is
/// `get-paymentInstruments-id-success-200`, `Fixtures/rest-service-error-422.json` is `generic-422`): decoded by the
/// adapter, and the simulator's answers checked to carry every published field with the same JSON type.
@Suite("Adyen published examples", .timeLimit(.minutes(5)))
struct AdyenPublishedExamplesTests {
    static func text(_ name: String) throws -> String {
        String(decoding: try Data(contentsOf: PublishedShape.fixtureURL(name)), as: UTF8.self)
    }

    @Test("the adapter decodes Adyen's published payment instrument and maps its published 422")
    func adapterDecodesPublishedExamples() async throws {
        let transport = ScriptedTransport([
            .json(200, try Self.text("payment-instrument.json")),
            .json(422, try Self.text("rest-service-error-422.json")),
        ])
        let provider = try Fixture.provider(transport)
        let card = try await provider.card(CardRef(id: "PI32272223222B5CMD3MQ3HXX"), context: OperationContext())
        #expect(card.lastFour == "3548")
        #expect(card.scheme == .mastercard)
        #expect(card.status == .active)
        #expect(card.type == .virtual)
        #expect(card.expiry == CardExpiry(month: 1, year: 2024))
        #expect(card.cardholderName == "Simon Hopper")
        let error = await gatewayError {
            _ = try await provider.card(CardRef(id: "PI32272223222B5CMD3MQ3HXX"), context: OperationContext())
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.providerCode == "30_031")
        #expect(error?.requestID == "1W1UI15PLVGC9V8O")
    }

    @Test("the simulator's payment instrument and its errors carry every published field with the same JSON type")
    func simulatorCarriesThePublishedShape() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let raw = RawClient(handle: handle)
            let instrument = try await raw.send(.get, "/paymentInstruments/\(AdyenSimulator.Seed.activeVisaID)")
            let instrumentDifferences = PublishedShape.differences(
                try #require(instrument.json), from: try PublishedShape.fixture("payment-instrument.json"))
            #expect(instrumentDifferences == [], "\(instrumentDifferences)")
            let refused = try await raw.send(
                .get, "/paymentInstruments/\(AdyenSimulator.Seed.inactiveMastercardID)/networkTokenActivationData")
            #expect(refused.status == 422)
            let errorDifferences = PublishedShape.differences(
                try #require(refused.json), from: try PublishedShape.fixture("rest-service-error-422.json"))
            #expect(errorDifferences == [], "\(errorDifferences)")
        }
    }
}
