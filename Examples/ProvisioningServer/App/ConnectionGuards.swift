import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Counts the server's open connections; past ``maximum`` a new connection is closed as soon as it is accepted, so
/// that a flood of idle connections cannot take the process to its descriptor limit.
final class ConnectionCounter: Sendable {
    let maximum: Int
    private let open = Atomic<Int>(0)

    init(maximum: Int) {
        self.maximum = maximum
    }

    /// Takes a place for a new connection; false when every place is taken (nothing is taken then).
    func tryOpen() -> Bool {
        let count = open.wrappingAdd(1, ordering: .relaxed).newValue
        guard count <= maximum else {
            open.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    /// Gives back the place of a connection that closed.
    func close() {
        open.wrappingSubtract(1, ordering: .relaxed)
    }

    /// The connections open now.
    var current: Int { open.load(ordering: .relaxed) }
}

/// The server's child channel around Hummingbird's (HTTP/1.1, with TLS or not): refuses connections past the
/// maximum (closed at once, before a byte is read) and puts the request read deadline in front of the pipeline.
struct GuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let connections: ConnectionCounter?
    let readDeadline: Duration?
    let logger: Logger

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        var accepted = true
        if let connections {
            accepted = connections.tryOpen()
            if accepted { channel.closeFuture.whenComplete { _ in connections.close() } }
        }
        let refused = !accepted
        let readDeadline = self.readDeadline
        let guardLogger = self.logger
        return channel.eventLoop.makeCompletedFuture {
            if let readDeadline, !refused {
                try channel.pipeline.syncOperations.addHandler(
                    RequestReadDeadlineHandler(deadline: TimeAmount(readDeadline), logger: guardLogger), position: .first
                )
            }
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }.map { value in
            // Closed after the pipeline is set up, so that the server's accept loop sees an ordinary, closed connection.
            if refused {
                guardLogger.debug("connection refused: the server's maximum number of open connections is reached")
                channel.close(promise: nil)
            }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// Closes a connection whose request (head and body) is not read in full within the deadline, counted from the
/// request's first byte: a client that stops in the middle of a body shorter than its `Content-Length`, or that
/// sends it a byte at a time, loses the connection, and the request body the handler waits for ends in an error, so
/// no handler runs for it. Sits first in the pipeline (raw bytes, before TLS and HTTP decoding);
/// ``RequestEndObserver``, after the HTTP decoding, tells it where requests end and responses finish.
final class RequestReadDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private enum State {
        /// Waiting for a request's first byte (the idle timeout governs this wait).
        case idle
        /// A request is being read; the connection closes when the task runs.
        case reading(Scheduled<Void>)
        /// The request was read; its response is being made.
        case responding
    }

    private let deadline: TimeAmount
    private let logger: Logger
    private var state: State = .idle
    private var context: ChannelHandlerContext?

    init(deadline: TimeAmount, logger: Logger) {
        self.deadline = deadline
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancel()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .idle = state { arm() }
        context.fireChannelRead(data)
    }

    /// A request head was decoded (a pipelined request whose bytes came while the previous one was answered).
    func requestStarted() {
        if case .idle = state { arm() }
    }

    /// The request's end was decoded: its body is complete.
    func requestRead() {
        cancel()
        state = .responding
    }

    /// The response's end was written: the next byte starts a new request.
    func responseWritten() {
        if case .responding = state { state = .idle }
    }

    private func arm() {
        guard let context else { return }
        let task = context.eventLoop.assumeIsolated().scheduleTask(in: deadline) { [weak self] in
            guard let self, case .reading = self.state else { return }
            self.state = .idle
            self.logger.info("connection closed: the request was not read in full within the read deadline")
            self.context?.close(promise: nil)
        }
        state = .reading(task)
    }

    private func cancel() {
        if case .reading(let task) = state {
            task.cancel()
            state = .idle
        }
    }
}

@available(*, unavailable)
extension RequestReadDeadlineHandler: Sendable {}

/// After the HTTP decoding: tells the connection's ``RequestReadDeadlineHandler`` where each request ends and when
/// its response is written.
final class RequestEndObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var deadline: RequestReadDeadlineHandler?

    func handlerAdded(context: ChannelHandlerContext) {
        deadline = try? context.pipeline.syncOperations.handler(type: RequestReadDeadlineHandler.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: deadline?.requestStarted()
        case .body: break
        case .end: deadline?.requestRead()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { deadline?.responseWritten() }
        context.write(data, promise: promise)
    }
}

@available(*, unavailable)
extension RequestEndObserver: Sendable {}
