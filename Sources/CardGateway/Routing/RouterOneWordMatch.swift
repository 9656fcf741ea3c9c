import Foundation

// The router's first algorithm: a table of at most 64 routes decided in one word.
extension RouterTables {
    /// The first matching route of a table of at most 64 routes: each dimension's allowed routes are one precomputed
    /// word, and the match is the lowest bit set in all of them.
    func oneWordMatch(_ lookup: Lookup) -> Int? {
        let count = routes.count
        let evidence = lookup.evidence
        var bits: UInt64 = count == 64 ? ~0 : (1 << UInt64(count)) - 1
        bits &= issuers.allowedWord(evidence.issuer) & programs.allowedWord(evidence.program)
        bits &= countries.allowedWord(evidence.country) & currencies.allowedWord(evidence.currency)
        bits &=
            tenants.allowedWord(evidence.tenant) & wallets.allowedWord(evidence.wallet)
            & operations.allowedWord(evidence.operation)
        if bins.constrained && bits != 0 {
            var binBits = bins.wildcard.words[0]
            for entry in lookup.segment where Int(bins.entryLength[entry]) <= lookup.digits {
                binBits |= 1 << UInt64(bins.entryRoute[entry])
            }
            bits &= binBits
        }
        return bits == 0 ? nil : bits.trailingZeroBitCount
    }
}
