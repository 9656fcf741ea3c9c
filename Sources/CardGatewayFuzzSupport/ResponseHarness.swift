@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// One adapter call that a fuzzed response answers.
public struct FuzzOperation: Sendable {
    public let name: String
    /// The requests the operation sends before the one whose answer is fuzzed (the read before a write), answered
    /// with a valid fixed body so that the fuzzed answer reaches the write's decoding and error mapping.
    package let fixed: [FixedAnswer]
    package let body: @Sendable (any CardProvider, OperationContext) async throws -> Void

    /// An operation on the adapter type `P`; it does nothing for a provider of another type.
    package static func on<P: CardProvider>(
        _ name: String, _ type: P.Type, fixed: [FixedAnswer] = [],
        _ body: @escaping @Sendable (P, OperationContext) async throws -> Void
    ) -> FuzzOperation {
        FuzzOperation(name: name, fixed: fixed) { provider, context in
            guard let typed = provider as? P else { return }
            try await body(typed, context)
        }
    }
}

/// A request the harness answers with a fixed, valid body (status 200, JSON) instead of the fuzz input: one
/// whose method is `method` (any method when nil) and whose path, without its query, ends in `pathSuffix`.
package struct FixedAnswer: Sendable {
    package var method: HTTPRequest.Method?
    package var pathSuffix: String
    package var body: Data

    package init(method: HTTPRequest.Method?, pathSuffix: String, body: Data) {
        self.method = method
        self.pathSuffix = pathSuffix
        self.body = body
    }

    package func matches(_ request: HTTPRequest) -> Bool {
        guard method == nil || request.method == method, let path = request.path else { return false }
        return path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first?.hasSuffix(pathSuffix)
            == true
    }
}

extension FixedAnswer {
    /// A JSON answer to `method` requests ending in `pathSuffix`.
    package init(_ method: HTTPRequest.Method?, _ pathSuffix: String, _ json: String) {
        self.init(method: method, pathSuffix: pathSuffix, body: Data(json.utf8))
    }
}

/// Fuzzes one adapter's response decoding: the adapter is built through its factory, exactly as configuration
/// builds it, over a transport that answers every request with the fuzz input.
///
/// Input layout: byte 0 picks the operation (its low seven bits, modulo the number of operations), byte 1 the
/// status and content type (``FuzzResponses``), and the rest is the response body. Every request of the operation
/// gets that answer, except an OAuth token request (where the adapter has one) and the operation's reads before
/// its write (``FuzzOperation/fixed``), which get valid fixed answers; with the high bit of byte 0 set, those are
/// answered by the input too.
public struct ResponseHarness: Sendable {
    public let name: String
    public let factory: ProviderFactory
    /// Test credentials: the simulator's, so that ``makeProvider(transport:baseURL:)`` also serves the recorder
    /// of the seed corpus.
    public let credentials: [String: Secret]
    public let options: [String: JSONValue]
    public let operations: [FuzzOperation]
    /// Stored credentials the instance's store starts with (Trust Payments charges need their parent).
    package let storedCredentials: [StoredCredential]
    /// The path suffix of an OAuth token request, and a valid answer to it.
    package let tokenPathSuffix: String?
    package let tokenAnswer: Data

    /// The fixed answers of `operation` when the high bit of byte 0 is clear: the OAuth token's and the
    /// operation's own.
    package func fixedAnswers(for operation: FuzzOperation) -> [FixedAnswer] {
        var answers = operation.fixed
        if let tokenPathSuffix {
            answers.append(FixedAnswer(method: nil, pathSuffix: tokenPathSuffix, body: tokenAnswer))
        }
        return answers
    }

    package init(
        name: String, factory: ProviderFactory, credentials: [String: Secret], options: [String: JSONValue] = [:],
        operations: [FuzzOperation],
        storedCredentials: [StoredCredential] = [], tokenPathSuffix: String? = nil, tokenAnswer: Data = Data()
    ) {
        self.name = name
        self.factory = factory
        self.credentials = credentials
        self.options = options
        self.operations = operations
        self.storedCredentials = storedCredentials
        self.tokenPathSuffix = tokenPathSuffix
        self.tokenAnswer = tokenAnswer
    }

    package static let fuzzBaseURL = URL(string: "https://fuzz.cardgateway.invalid")!

    /// The adapter through its factory, sending through `transport` to `baseURL`, with no retries and the fixed
    /// clock.
    public func makeProvider(transport: any HTTPTransport, baseURL: URL? = nil) throws -> any CardProvider {
        let url = baseURL ?? Self.fuzzBaseURL
        let configuration = ProviderInstanceConfiguration(
            name: "fuzz-\(name)", kind: factory.kind, environment: nil, baseURL: url, credentials: credentials,
            options: options,
            timeout: .seconds(10), retry: .none
        )
        let http = try ProviderHTTPClient(
            instance: configuration.name, kind: configuration.kind, baseURL: url, transport: transport,
            timeout: .seconds(10), retry: .none
        )
        let setup = ProviderSetup(
            configuration: configuration, http: http, logger: OperationContext.noopLogger,
            credentialStore: InMemoryCredentialReferenceStore(storedCredentials), now: { FuzzClock.now }
        )
        return try factory.make(setup)
    }

    /// Runs one input. Never traps on any input of its own accord: errors thrown by the adapter are the
    /// expected outcome for most inputs.
    public func run(_ data: Data) {
        guard data.count >= 2, !operations.isEmpty else { return }
        let selector = data[data.startIndex]
        let operation = operations[Int(selector & 0x7f) % operations.count]
        let (status, contentType) = FuzzResponses.response(selector: data[data.startIndex + 1])
        let body = Data(data.dropFirst(2))
        let fuzzEveryRequest = selector & 0x80 != 0
        let transport = FuzzTransport(
            status: status, contentType: contentType, body: body,
            fixed: fuzzEveryRequest ? [] : fixedAnswers(for: operation))
        let harness = self
        runBlocking {
            guard let provider = try? harness.makeProvider(transport: transport) else { return }
            _ = try? await operation.body(provider, OperationContext())
        }
    }

    /// The seed-corpus file for a recorded response to operation `index`: nil when the status has no selector.
    public static func seed(operation index: Int, status: Int, body: Data) -> Data? {
        guard let selector = FuzzResponses.selector(status: status) else { return nil }
        return Data([UInt8(index & 0x7f), selector]) + body
    }
}
