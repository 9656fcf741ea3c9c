import AsyncHTTPClient
import CardGateway
import Foundation
import HTTPTypes
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix

/// The default transport, on AsyncHTTPClient.
///
/// By default it uses ``AsyncHTTPClientTransport/sharedClient``: a process-wide client like
/// `HTTPClient.shared` (same event loops, pool and timeouts, no shutdown needed) except that it never follows
/// redirects. `HTTPClient.shared` follows up to 20, and a followed redirect would carry a provider's
/// credentials headers and a card request's body to wherever the `Location` points, past the gateway's
/// `http://` refusal. With redirects disallowed, a 3xx comes back to the adapter as a failed response.
/// A client you pass in is used as it is: configure it with `redirectConfiguration: .disallow`.
///
/// **Sized with the bulkheads.** Each provider instance's bulkhead lets 1,024 requests be in flight by default
/// (`maxConcurrentRequests`, up to `Bulkhead.maximumLimit`). Over HTTP/1.1 each of them needs a connection of its
/// own, and AsyncHTTPClient's pool opens at most 8 per host by default, which would cap every instance at 8
/// requests in flight (about 27 calls a second at 300 ms). The shared client's pool therefore allows
/// ``connectionsPerHost`` (`Bulkhead.maximumLimit`) connections per host, so that the bulkheads, not the pool,
/// are the limit; connections are opened only as requests need them and closed after idling. Over TLS HTTP/2 is
/// negotiated where the provider offers it, and then one connection carries many requests. A client you pass in
/// keeps its own pool: size its `connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit` to at least the
/// sum of the `maxConcurrentRequests` of the instances that share a host (``configuration(connectionsPerHost:)``
/// gives the shared client's settings to start from). The process also needs that many file descriptors.
public struct AsyncHTTPClientTransport: HTTPTransport {
    private let client: HTTPClient
    private let maxResponseBytes: Int

    /// The shared client's HTTP/1.1 connections per host: `Bulkhead.maximumLimit`, the most one instance can
    /// have in flight, so that the pool never limits a bulkhead of one instance.
    public static let connectionsPerHost = Bulkhead.maximumLimit

    /// The shared client's settings: `HTTPClient.shared`'s (`singletonConfiguration`) with redirects disallowed,
    /// no spans of AsyncHTTPClient's own, and `connectionsPerHost` HTTP/1.1 connections per host. A start for a
    /// client of your own.
    public static func configuration(
        connectionsPerHost: Int = AsyncHTTPClientTransport.connectionsPerHost
    ) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.redirectConfiguration = .disallow
        // No spans of AsyncHTTPClient's own: the gateway makes the attempt's client span, and AsyncHTTPClient's
        // would carry the full URL (`url.full`, `url.path`), with the card ids and customers in its path.
        configuration.tracing.tracer = nil
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, connectionsPerHost)
        return configuration
    }

    /// The client every default transport shares: `HTTPClient.shared`'s settings with redirects disallowed and a
    /// connection pool sized for the bulkheads (``configuration(connectionsPerHost:)``). It lives as long as the
    /// process and is never shut down, as `HTTPClient.shared` is not.
    public static let sharedClient: HTTPClient = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration())

    /// - Parameters:
    ///   - client: the client to use; ``sharedClient`` by default (it needs no shutdown). A client you pass
    ///     in should disallow redirects, and set `configuration.tracing.tracer = nil` once a tracer is bootstrapped
    ///     (AsyncHTTPClient's own spans carry the full URL, ids included). Its connection pool must allow at least
    ///     the `maxConcurrentRequests` of the instances it serves per host, or the pool becomes the limit.
    ///   - maxResponseBytes: responses larger than this fail with ``TransportError/Kind-swift.enum/responseTooLarge``.
    public init(client: HTTPClient = AsyncHTTPClientTransport.sharedClient, maxResponseBytes: Int = 8 * 1024 * 1024) {
        self.client = client
        self.maxResponseBytes = maxResponseBytes
    }

    public func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        let outgoing = try Self.convertRequest(request, body: body)
        var sent = false
        do {
            let response = try await client.execute(outgoing, timeout: Self.timeAmount(timeout))
            sent = true
            let buffer = try await response.body.collect(upTo: maxResponseBytes)
            return Self.convertResponse(status: response.status, headers: response.headers, body: buffer)
        } catch let error as TransportError {
            throw error
        } catch {
            throw Self.classify(error, responseStarted: sent)
        }
    }

    /// `request` and `body` as AsyncHTTPClient's request: the URL from the scheme, authority and path (the query is
    /// in the path), the method, every header field in order with its value as it is, and the body's bytes. Pure (no
    /// I/O), tested without a socket. Throws `invalidRequest` when the request has
    /// no scheme, authority or path.
    static func convertRequest(_ request: HTTPRequest, body: Data?) throws -> HTTPClientRequest {
        guard let scheme = request.scheme, let authority = request.authority, let path = request.path else {
            throw TransportError(.invalidRequest, "the request has no scheme, authority or path")
        }
        var outgoing = HTTPClientRequest(url: "\(scheme)://\(authority)\(path)")
        outgoing.method = NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers.reserveCapacity(request.headerFields.count)
        for field in request.headerFields {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        if let body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        return outgoing
    }

    /// AsyncHTTPClient's status and header fields, with the body already collected, as the transport's response.
    /// A header name that HTTP does not allow is left out. Pure (no I/O), tested without a socket.
    static func convertResponse(status: HTTPResponseStatus, headers: HTTPHeaders, body: ByteBuffer) -> TransportResponse
    {
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count)
        for (name, value) in headers {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        return TransportResponse(
            response: HTTPResponse(status: .init(code: Int(status.code)), headerFields: fields),
            body: Data(buffer: body)
        )
    }

    /// An attempt's timeout as AsyncHTTPClient takes it: whole nanoseconds, at least one.
    static func timeAmount(_ timeout: Duration) -> TimeAmount {
        .nanoseconds(max(1, timeout.nanoseconds))
    }

    /// Sorts AsyncHTTPClient and NIO errors into the transport's kinds, telling "never left" apart from
    /// "may have reached the server".
    static func classify(_ error: any Error, responseStarted: Bool) -> TransportError {
        if error is NIOTooManyBytesError {
            return TransportError(.responseTooLarge, "the response body is larger than the transport accepts")
        }
        if responseStarted {
            return TransportError(.connectionClosed, "the connection failed while the response was being read")
        }
        if let httpError = error as? HTTPClientError {
            let connectFailures: [HTTPClientError] = [
                .connectTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout, .tlsHandshakeTimeout,
                .getConnectionFromPoolTimeout, .alreadyShutdown,
            ]
            let timeouts: [HTTPClientError] = [.deadlineExceeded, .readTimeout, .writeTimeout]
            let closed: [HTTPClientError] = [.remoteConnectionClosed, .cancelled, .bodyLengthMismatch]
            let invalid: [HTTPClientError] = [.invalidURL, .emptyHost, .emptyScheme]
            if connectFailures.contains(httpError) { return TransportError(.connectFailed, "could not connect") }
            if timeouts.contains(httpError) { return TransportError(.timeout, "no response in time") }
            if closed.contains(httpError) {
                return TransportError(.connectionClosed, "the connection closed before a response arrived")
            }
            if invalid.contains(httpError) { return TransportError(.invalidRequest, "the request URL is not valid") }
            return TransportError(.other, "the HTTP client failed")
        }
        if error is NIOConnectionError {
            return TransportError(.connectFailed, "could not connect")
        }
        if let channelError = error as? ChannelError, case .connectTimeout = channelError {
            return TransportError(.connectFailed, "could not connect in time")
        }
        if let ioError = error as? IOError, [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH].contains(ioError.errnoCode) {
            return TransportError(.connectFailed, "could not connect")
        }
        return TransportError(.other, "the request failed (\(type(of: error)))")
    }
}
