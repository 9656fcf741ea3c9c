import Foundation
import HTTPTypes

/// A response with its whole body.
public struct TransportResponse: Sendable {
    public var response: HTTPResponse
    public var body: Data

    public init(response: HTTPResponse, body: Data) {
        self.response = response
        self.body = body
    }
}

/// Sends one HTTP request. Adapters never own sockets: they build requests and read responses, and a
/// transport moves them. The default, `AsyncHTTPClientTransport`, is in `CardGatewayAsyncHTTPClient`; tests use scripted transports.
public protocol HTTPTransport: Sendable {
    /// Sends `request` with `body` and returns the response, or throws ``TransportError``.
    func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse
}

/// Why a request produced no response, and whether it can have reached the server.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// Why no response came. A struct with static members, so that a new kind breaks no caller's `switch`.
    public struct Kind: GrowableName {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// No connection was made: the request never left, so repeating it is always safe.
        public static let connectFailed = Kind("connectFailed")
        /// No complete response in time; the server may have acted on the request.
        public static let timeout = Kind("timeout")
        /// The connection closed or broke after the request was (possibly) sent.
        public static let connectionClosed = Kind("connectionClosed")
        /// The response was larger than the transport accepts.
        public static let responseTooLarge = Kind("responseTooLarge")
        /// The request could not be built (bad URL or header).
        public static let invalidRequest = Kind("invalidRequest")
        public static let other = Kind("other")

        public static let allCases: [Kind] = [
            .connectFailed, .timeout, .connectionClosed, .responseTooLarge, .invalidRequest, .other,
        ]
    }

    public var kind: Kind
    /// A short, safe sentence (no URLs with query strings, no bodies, no headers).
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// True unless the request provably never left this process.
    public var mayHaveReachedProvider: Bool {
        kind != .connectFailed && kind != .invalidRequest
    }

    public var description: String { "TransportError(\(kind.rawValue)): \(message)" }
}

/// A transport that sends nothing: for building adapters only to check their configuration.
struct RefusingTransport: HTTPTransport {
    func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        throw TransportError(.invalidRequest, "this gateway was built only to check its configuration")
    }
}
