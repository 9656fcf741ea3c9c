import CardGateway
import CardGatewayFuzzSupport
import Foundation
import HTTPTypes
import Synchronization
import Testing
import CardGatewayFuzzHarnesses

/// The response harnesses reach what they claim to: every operation sends at least one request that the fuzz
/// input answers (an operation refused before sending would fuzz nothing), and an operation whose reads get fixed
/// answers gets past them to its write. Without this, a fixed answer the adapter no longer accepts (a renamed
/// field, a state the transition does not start from) would silently turn the operation into a fuzzer of the
/// read's refusal.
@Suite("Fuzz harness reach", .timeLimit(.minutes(5)))
struct HarnessReachTests {
    /// Answers the operation's fixed requests as the harness does and every other request with `500` and an
    /// empty body, and keeps the requests the fuzz input would have answered.
    final class ReachTransport: HTTPTransport {
        let fixed: [FixedAnswer]
        let fuzzed = Mutex<[HTTPRequest]>([])

        init(fixed: [FixedAnswer]) { self.fixed = fixed }

        func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
            if let answer = fixed.first(where: { $0.matches(request) }) {
                var fields = HTTPFields()
                fields[.contentType] = "application/json"
                return TransportResponse(response: HTTPResponse(status: .ok, headerFields: fields), body: answer.body)
            }
            fuzzed.withLock { $0.append(request) }
            return TransportResponse(response: HTTPResponse(status: .internalServerError), body: Data())
        }
    }

    /// Every room's response harness, as `FuzzTargets.all` registers it.
    static let harnesses = FuzzTargets.all.compactMap(\.responses)

    static var cases: [String] {
        harnesses.flatMap { harness in harness.operations.map { "\(harness.name).\($0.name)" } }
    }

    @Test("every operation sends a request the input answers; one with fixed reads reaches its write", arguments: cases)
    func reach(_ name: String) async throws {
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        let harness = try #require(Self.harnesses.first { $0.name == parts[0] })
        let operation = try #require(harness.operations.first { $0.name == parts[1] })
        let transport = ReachTransport(fixed: harness.fixedAnswers(for: operation))
        let provider = try harness.makeProvider(transport: transport)
        _ = try? await operation.body(provider, OperationContext())
        let fuzzed = transport.fuzzed.withLock { $0 }
        #expect(!fuzzed.isEmpty, "\(name) sends no request the fuzz input answers")
        if !operation.fixed.isEmpty {
            #expect(
                fuzzed.contains { $0.method != .get },
                "\(name): its fixed reads do not lead to the write; it sent \(fuzzed.map { "\($0.method) \($0.path ?? "")" })"
            )
        }
    }

    @Test("fixed answers match only what they name")
    func fixedAnswerMatching() {
        let answer = FixedAnswer(.get, "/cards/card_1", "{}")
        #expect(
            answer.matches(
                HTTPRequest(method: .get, scheme: "https", authority: "x", path: "/v3/cards/card_1?include=x")))
        #expect(!answer.matches(HTTPRequest(method: .post, scheme: "https", authority: "x", path: "/v3/cards/card_1")))
        #expect(!answer.matches(HTTPRequest(method: .get, scheme: "https", authority: "x", path: "/v3/cards/card_10")))
        #expect(
            !answer.matches(HTTPRequest(method: .get, scheme: "https", authority: "x", path: "/v3/cards/card_1/tokens"))
        )
    }
}
