import Foundation

// The router's third algorithm: the bitsets of every dimension scanned a word (64 routes) at a time, for a large
// table whose every dimension has more than `enumerationLimit` candidates; the worst case is linear in routes / 64.
extension RouterTables {
    /// The first set bit over words `0 ..< (count + 63) / 64` of the routes every dimension allows.
    func scan(allowedWord: (Int) -> UInt64) -> Int? {
        for word in 0..<((routes.count + 63) / 64) {
            let bits = allowedWord(word)
            if bits != 0 { return word * 64 + bits.trailingZeroBitCount }
        }
        return nil
    }

    /// Word `word` (routes `64 word ..< 64 word + 64`) of the routes every dimension allows. Each list's part in the
    /// word is found by binary search, so a scan costs words × dimensions × log(list).
    func allowedBits(
        _ word: Int, _ issuer: [Int32], _ program: [Int32], _ country: [Int32], _ currency: [Int32], _ tenant: [Int32],
        _ wallet: [Int32], _ operation: [Int32], _ segment: Range<Int>, _ digits: Int
    ) -> UInt64 {
        let first = word * 64
        let span = min(64, routes.count - first)
        var bits: UInt64 = span == 64 ? ~0 : (1 << UInt64(span)) - 1
        func listBits(_ list: [Int32]) -> UInt64 {
            var result: UInt64 = 0
            var low = 0
            var high = list.count
            while low < high {
                let middle = (low + high) / 2
                if Int(list[middle]) < first { low = middle + 1 } else { high = middle }
            }
            while low < list.count && Int(list[low]) < first + 64 {
                result |= 1 << UInt64(Int(list[low]) - first)
                low += 1
            }
            return result
        }
        func narrow(_ index: ValueIndex, _ matches: [Int32]) {
            guard index.constrained, bits != 0 else { return }
            bits &= index.wildcard.words[word] | listBits(matches)
        }
        narrow(issuers, issuer)
        narrow(programs, program)
        narrow(countries, country)
        narrow(currencies, currency)
        narrow(tenants, tenant)
        narrow(wallets, wallet)
        narrow(operations, operation)
        if bins.constrained && bits != 0 {
            var binBits = bins.wildcard.words[word]
            var low = segment.lowerBound
            var high = segment.upperBound
            while low < high {
                let middle = (low + high) / 2
                if Int(bins.entryRoute[middle]) < first { low = middle + 1 } else { high = middle }
            }
            while low < segment.upperBound && Int(bins.entryRoute[low]) < first + 64 {
                if Int(bins.entryLength[low]) <= digits { binBits |= 1 << UInt64(Int(bins.entryRoute[low]) - first) }
                low += 1
            }
            bits &= binBits
        }
        return bits
    }
}
