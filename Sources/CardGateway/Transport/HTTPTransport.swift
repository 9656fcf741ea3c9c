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
/// transport moves them. The default is ``AsyncHTTPClientTransport``; tests use scripted transports.
public protocol HTTPTransport: Sendable {
    /// Sends `request` with `body` and returns the response, or throws ``TransportError``.
    func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse
}

/// Why a request produced no response, and whether it can have reached the server.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// No connection was made: the request never left, so repeating it is always safe.
        case connectFailed
        /// No complete response in time; the server may have acted on the request.
        case timeout
        /// The connection closed or broke after the request was (possibly) sent.
        case connectionClosed
        /// The response was larger than the transport accepts.
        case responseTooLarge
        /// The request could not be built (bad URL or header).
        case invalidRequest
        case other
    }

    public var kind: Kind
    /// A short, safe sentence (no URLs with query strings, no bodies, no headers).
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// True unless the request provably never left this process.
    public var mayHaveReachedServer: Bool {
        switch kind {
        case .connectFailed, .invalidRequest: return false
        case .timeout, .connectionClosed, .responseTooLarge, .other: return true
        }
    }

    public var description: String { "TransportError(\(kind.rawValue)): \(message)" }
}

/// A transport that sends nothing: for building adapters only to check their configuration.
struct RefusingTransport: HTTPTransport {
    func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        throw TransportError(.invalidRequest, "this gateway was built only to check its configuration")
    }
}
