import CardGateway
import Foundation
import Testing

/// `CardGatewayError.description` is written into one string now; it must read exactly as the version that joined
/// parts (kept below as the reference), for every combination of the optional parts.
@Suite("Errors: the description reads as before", .timeLimit(.minutes(5)))
struct ErrorDescriptionTests {
    static func legacyDescription(_ error: CardGatewayError) -> String {
        var parts = ["code: \(error.code)"]
        if let provider = error.provider { parts.append("provider: \(provider)") }
        if let providerKind = error.providerKind { parts.append("kind: \(providerKind)") }
        if let providerCode = error.providerCode { parts.append("providerCode: \(providerCode)") }
        if let httpStatus = error.httpStatus { parts.append("status: \(httpStatus)") }
        if let requestID = error.requestID { parts.append("requestID: \(requestID)") }
        if let retryAfter = error.retryAfter { parts.append("retryAfter: \(retryAfter)") }
        if error.isRetryable { parts.append("retryable") }
        var text = "CardGatewayError(\(parts.joined(separator: ", "))): \(error.message)"
        if !error.fieldErrors.isEmpty {
            text += " [" + error.fieldErrors.map(\.description).joined(separator: "; ") + "]"
        }
        return text
    }

    @Test("every combination of optional parts, retryable or not, with and without field errors", arguments: 0..<256)
    func sameText(mask: Int) {
        func has(_ bit: Int) -> Bool { mask & (1 << bit) != 0 }
        let error = CardGatewayError(
            has(7) ? .rateLimited : .declined,
            "card 4242 4242 4242 4242 declined, key sk_test_4eC39HqLyjWDarjtT1zdp7dc",
            provider: has(0) ? "eu-cards" : nil, providerKind: has(1) ? ProviderKind("stripe") : nil,
            providerCode: has(2) ? "card_declined" : nil, httpStatus: has(3) ? 402 : nil,
            requestID: has(4) ? "req_8Hq2" : nil,
            retryAfter: has(5) ? .milliseconds(1_500) : nil,
            fieldErrors: has(6)
                ? [
                    .init(field: "card.number", message: "4111111111111111 is not valid"),
                    .init(field: "amount", message: "must be > 0"),
                ] : []
        )
        #expect(error.description == Self.legacyDescription(error))
        #expect(!error.description.contains("4242 4242"))
        #expect(!error.description.contains("sk_test"))
    }

    @Test("the default retryability of every code is unchanged")
    func retryable() {
        let retryable: Set<CardGatewayError.Code> = [.rateLimited, .providerUnavailable, .timeout, .transport]
        for code in CardGatewayError.Code.all {
            #expect(CardGatewayError(code, "x").isRetryable == retryable.contains(code), "\(code)")
        }
    }
}
