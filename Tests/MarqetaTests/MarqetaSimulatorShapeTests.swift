import CardGateway
import CardGatewaySimulation
import Foundation
import MarqetaSimulator
import Testing

/// The simulator's answers against the reference bodies in Fixtures/ (shaped after Marqeta's Core API pages): a
/// simulator built only from our own notes would hide the adapter's mistakes, so every field it sends must be one
/// the reference has, and the fields the adapter reads must be there.
@Suite("Marqeta simulator answers in the reference shape")
struct MarqetaSimulatorShapeTests {
    typealias Seed = MarqetaSimulator.Seed

    static func fields(_ data: Data) throws -> Set<String> { MarqetaPublishedExamplesTests.keyPaths(try JSONValue.parse(data)) }

    static func check(_ answer: Data, against fixture: String, required: Set<String>, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reference = try fields(try MarqetaPublishedExamplesTests.fixture(fixture))
        let sent = try fields(answer)
        #expect(sent.subtracting(reference).isEmpty, "fields not in \(fixture): \(sent.subtracting(reference).sorted())", sourceLocation: sourceLocation)
        #expect(required.isSubset(of: sent), "missing from the answer: \(required.subtracting(sent).sorted())", sourceLocation: sourceLocation)
    }

    @Test("a card, a missing card's error body and a card's wallet tokens")
    func answers() async throws {
        try await withSimulator(MarqetaSimulator()) { handle in
            let card = try await MarqetaSimulatorTests.send(handle, .get, "/cards/\(Seed.activeCard)")
            #expect(card.status == 200)
            try Self.check(card.body, against: "card.json", required: ["token", "user_token", "last_four", "expiration", "state", "instrument_type"])

            let missing = try await MarqetaSimulatorTests.send(handle, .get, "/cards/card_sim_missing_9999")
            #expect(missing.status == 404)
            try Self.check(missing.body, against: "error.json", required: ["error_code", "error_message"])

            let tokens = try await MarqetaSimulatorTests.send(handle, .get, "/digitalwallettokens/card/\(Seed.walletCard)")
            #expect(tokens.status == 200)
            // keyPaths does not enter arrays: each token is checked against the reference's first one.
            let reference = try #require(try JSONValue.parse(try MarqetaPublishedExamplesTests.fixture("digitalwallettokens-by-card.json"))["data"]?.arrayValue?.first)
            let listed = try #require(try JSONValue.parse(tokens.body)["data"]?.arrayValue)
            #expect(!listed.isEmpty)
            let allowed = MarqetaPublishedExamplesTests.keyPaths(reference)
            for token in listed {
                let sent = MarqetaPublishedExamplesTests.keyPaths(token)
                #expect(sent.subtracting(allowed).isEmpty, "token fields not in the reference: \(sent.subtracting(allowed).sorted())")
                #expect(["token", "card_token", "state"].allSatisfy(sent.contains), "\(sent.sorted())")
            }
            try Self.check(tokens.body, against: "digitalwallettokens-by-card.json", required: ["data", "count", "start_index", "end_index", "is_more"])
        }
    }
}
