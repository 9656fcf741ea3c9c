import Foundation

// The router's second algorithm: for a table of more than 64 routes, the most selective dimension's candidates
// enumerated in order (falling back to the word scan when every dimension has too many).
extension RouterTables {
    /// ``locate(_:enumerationLimit:oneWord:)`` for a table of any size: the most selective dimension's candidates, or
    /// a scan of the bitsets a word at a time when every dimension has many.
    func firstMatch(_ evidence: MatchEvidence, segment: Range<Int>, digits: Int, enumerationLimit: Int) -> Int? {
        let issuer = issuers.list(evidence.issuer)
        let program = programs.list(evidence.program)
        let country = countries.list(evidence.country)
        let currency = currencies.list(evidence.currency)
        let tenant = tenants.list(evidence.tenant)
        let wallet = wallets.list(evidence.wallet)
        let operation = operations.list(evidence.operation)

        func allowed(_ position: Int) -> Bool {
            issuers.allows(position, matches: issuer) && programs.allows(position, matches: program)
                && countries.allows(position, matches: country) && currencies.allows(position, matches: currency)
                && tenants.allows(position, matches: tenant) && wallets.allows(position, matches: wallet)
                && operations.allows(position, matches: operation)
                && bins.allows(position, segment: segment, digits: digits)
        }

        // The most selective constrained dimension drives: its candidates (the routes without a condition on it,
        // merged with those naming the key's value) are checked in order against every other dimension.
        var best = Int.max
        var driver = -1
        func consider(_ index: ValueIndex, _ matches: [Int32], _ id: Int) {
            guard index.constrained else { return }
            let candidates = index.wildcardList.count + matches.count
            if candidates < best {
                best = candidates
                driver = id
            }
        }
        consider(issuers, issuer, 0)
        consider(programs, program, 1)
        consider(countries, country, 2)
        consider(currencies, currency, 3)
        consider(tenants, tenant, 4)
        consider(wallets, wallet, 5)
        consider(operations, operation, 6)
        if bins.constrained && bins.wildcardList.count + segment.count < best {
            best = bins.wildcardList.count + segment.count
            driver = 7
        }
        guard driver >= 0 else { return 0 }  // no route has a condition: the first one matches
        guard best <= enumerationLimit else {
            return scan(allowedWord: { word in
                allowedBits(word, issuer, program, country, currency, tenant, wallet, operation, segment, digits)
            })
        }

        func firstMerged(_ wildcard: [Int32], _ matches: [Int32]) -> Int? {
            var w = 0
            var m = 0
            while w < wildcard.count || m < matches.count {
                let candidate: Int32
                if m >= matches.count || (w < wildcard.count && wildcard[w] < matches[m]) {
                    candidate = wildcard[w]
                    w += 1
                } else {
                    candidate = matches[m]
                    m += 1
                }
                if allowed(Int(candidate)) { return Int(candidate) }
            }
            return nil
        }
        switch driver {
        case 0: return firstMerged(issuers.wildcardList, issuer)
        case 1: return firstMerged(programs.wildcardList, program)
        case 2: return firstMerged(countries.wildcardList, country)
        case 3: return firstMerged(currencies.wildcardList, currency)
        case 4: return firstMerged(tenants.wildcardList, tenant)
        case 5: return firstMerged(wallets.wildcardList, wallet)
        case 6: return firstMerged(operations.wildcardList, operation)
        default:
            // The segment's entries are ascending by route; entries for ranges longer than the BIN are skipped.
            let wildcard = bins.wildcardList
            var w = 0
            var e = segment.lowerBound
            while w < wildcard.count || e < segment.upperBound {
                if e < segment.upperBound && Int(bins.entryLength[e]) > digits {
                    e += 1
                    continue
                }
                let candidate: Int32
                if e >= segment.upperBound || (w < wildcard.count && wildcard[w] < bins.entryRoute[e]) {
                    candidate = wildcard[w]
                    w += 1
                } else {
                    candidate = bins.entryRoute[e]
                    e += 1
                }
                if allowed(Int(candidate)) { return Int(candidate) }
            }
            return nil
        }
    }
}
