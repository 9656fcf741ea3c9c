import CardGateway
import CardGatewayMarqeta
import CardGatewayExampleKit
import MarqetaSimulator

// The benchmark subject, moved from Benchmarks/Benchmarks/ProviderFixtures/ProviderSubjects.swift (issue 46): what
// `e2e/marqeta/…` and `load/marqeta/…` run (Marqeta and Lithic are in the live benchmarks only).
extension MarqetaExampleRoom {
    public static var benchmarkLiveOnly: Bool { true }

    /// Marqeta: the card lookup (the live benchmarks' representative) and the listing.
    public static func benchmarkSubject() -> ProviderSubject? {
        typealias Seed = MarqetaSimulator.Seed
        let lookup = CardRef(id: Seed.activeCard)
        let cards = CardOperations(lookup: lookup, listCustomer: Seed.userToken)
        return ProviderSubject(
            kind: "marqeta", factory: .marqeta,
            credentials: ["applicationToken": Secret(Seed.applicationToken), "accessToken": Secret(Seed.accessToken)],
            options: [:],
            simulator: MarqetaSimulator(), credentialStore: InMemoryCredentialReferenceStore(),
            operations: cards.operations,
            representative: "card", throughGateway: ProviderSubject.lookupThroughGateway(lookup)
        )
    }
}
