import CardGateway
import Foundation
import HTTPTypes

/// One adapter call that a fuzzed response answers.
public struct FuzzOperation: Sendable {
    public let name: String
    let body: @Sendable (any CardProvider, OperationContext) async throws -> Void

    /// An operation on the adapter type `P`; it does nothing for a provider of another type.
    static func on<P: CardProvider>(_ name: String, _ type: P.Type, _ body: @escaping @Sendable (P, OperationContext) async throws -> Void) -> FuzzOperation {
        FuzzOperation(name: name) { provider, context in
            guard let typed = provider as? P else { return }
            try await body(typed, context)
        }
    }
}

/// Fuzzes one adapter's response decoding: the adapter is built through its factory, exactly as configuration
/// builds it, over a transport that answers every request with the fuzz input.
///
/// Input layout: byte 0 picks the operation (its low seven bits, modulo the number of operations; the high bit
/// also fuzzes an OAuth token answer where the adapter has one), byte 1 the status and content type
/// (``FuzzResponses``), and the rest is the response body.
public struct ResponseHarness: Sendable {
    public let name: String
    public let factory: ProviderFactory
    /// Test credentials: the simulator's, so that ``makeProvider(transport:baseURL:)`` also serves the recorder
    /// of the seed corpus.
    public let credentials: [String: Secret]
    public let options: [String: JSONValue]
    public let operations: [FuzzOperation]
    /// Stored credentials the instance's store starts with (Trust Payments charges need their parent).
    let storedCredentials: [StoredCredential]
    /// The path suffix of an OAuth token request, and a valid answer to it.
    let tokenPathSuffix: String?
    let tokenAnswer: Data

    init(
        name: String, factory: ProviderFactory, credentials: [String: Secret], options: [String: JSONValue] = [:], operations: [FuzzOperation],
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

    static let fuzzBaseURL = URL(string: "https://fuzz.cardgateway.invalid")!

    /// The adapter through its factory, sending through `transport` to `baseURL`, with no retries and the fixed
    /// clock.
    public func makeProvider(transport: any HTTPTransport, baseURL: URL? = nil) throws -> any CardProvider {
        let url = baseURL ?? Self.fuzzBaseURL
        let configuration = ProviderInstanceConfiguration(
            name: "fuzz-\(name)", kind: factory.kind, environment: nil, baseURL: url, credentials: credentials, options: options,
            timeout: .seconds(10), retry: .none
        )
        let http = try ProviderHTTPClient(
            instance: configuration.name, kind: configuration.kind, baseURL: url, transport: transport, timeout: .seconds(10), retry: .none,
            sleep: { _ in }
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
        let fuzzToken = selector & 0x80 != 0
        let transport = FuzzTransport(
            status: status, contentType: contentType, body: body, fixedPathSuffix: fuzzToken ? nil : tokenPathSuffix, fixedBody: tokenAnswer
        )
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
