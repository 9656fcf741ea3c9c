import CardGateway
import CardGatewayLithic
import CardGatewayExampleKit
import LithicSimulator

// The benchmark subject, moved from Benchmarks/Benchmarks/ProviderFixtures/ProviderSubjects.swift (issue 46): what
// `e2e/lithic/…` and `load/lithic/…` run (Marqeta and Lithic are in the live benchmarks only).
extension LithicExampleRoom {
    public static var benchmarkLiveOnly: Bool { true }

    /// Lithic: the card lookup (the live benchmarks' representative) and the listing.
    public static func benchmarkSubject() -> ProviderSubject? {
        typealias Seed = LithicSimulator.Seed
        let lookup = CardRef(id: Seed.activeCard)
        let cards = CardOperations(lookup: lookup, listCustomer: Seed.accountToken)
        return ProviderSubject(
            kind: "lithic", factory: .lithic, credentials: ["apiKey": Secret(Seed.apiKey)], options: [:],
            simulator: LithicSimulator(), credentialStore: InMemoryCredentialReferenceStore(),
            operations: cards.operations,
            representative: "card", throughGateway: ProviderSubject.lookupThroughGateway(lookup)
        )
    }
}
