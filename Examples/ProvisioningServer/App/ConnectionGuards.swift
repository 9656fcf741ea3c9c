import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

/// The server's places for open connections. Past ``maximum`` a new connection takes the place of the oldest
/// connection that has not yet sent a complete request head (a silent one: it is closed), and is closed itself as
/// soon as it is accepted only when every place is held by a connection that has sent one. So connections that
/// connect and send nothing can neither take the process to its descriptor limit nor lock real users out: each new
/// connection pushes the oldest silent one out, and the read deadline closes silent ones on its own.
final class ConnectionSlots: Sendable {
    /// What became of a new connection.
    enum Admission: Equatable {
        /// It holds a place, identified by this ticket.
        case admitted(UInt64)
        /// Every place is held by a connection that has sent a request head: it must be closed.
        case refused
    }

    private struct State {
        var nextTicket: UInt64 = 0
        /// Places held by connections that have not sent a complete request head, by ticket (older tickets first).
        var silent: [UInt64: any Channel] = [:]
        /// Places held by connections that have.
        var speaking: Set<UInt64> = []
        var evicted = 0
    }

    let maximum: Int
    private let state = Mutex(State())
    private let logger: Logger

    init(maximum: Int, logger: Logger) {
        self.maximum = max(1, maximum)
        self.logger = logger
    }

    /// Takes a place for `channel`, pushing out the oldest silent connection when every place is taken (that
    /// connection is closed).
    func admit(_ channel: any Channel) -> Admission {
        let (admission, pushedOut): (Admission, (any Channel)?) = state.withLock { state in
            let ticket = state.nextTicket
            state.nextTicket += 1
            if state.silent.count + state.speaking.count < maximum {
                state.silent[ticket] = channel
                return (.admitted(ticket), nil)
            }
            // Tickets grow with each admission: the smallest is the oldest. At most `maximum` entries, and only at
            // the limit.
            guard let oldest = state.silent.keys.min(), let pushedOut = state.silent.removeValue(forKey: oldest) else {
                return (.refused, nil)
            }
            state.silent[ticket] = channel
            state.evicted += 1
            return (.admitted(ticket), pushedOut)
        }
        if let pushedOut {
            logger.debug("connection closed: it had sent no request when a new connection needed its place")
            pushedOut.close(promise: nil)
        }
        return admission
    }

    /// The connection with this ticket sent a complete request head: it keeps its place until it closes.
    func spoke(_ ticket: UInt64) {
        state.withLock { state in
            if state.silent.removeValue(forKey: ticket) != nil { state.speaking.insert(ticket) }
        }
    }

    /// Gives back the place of the connection with this ticket (nothing when it was pushed out: its place is
    /// someone else's already).
    func closed(_ ticket: UInt64) {
        state.withLock { state in
            if state.silent.removeValue(forKey: ticket) == nil { state.speaking.remove(ticket) }
        }
    }

    /// The places held now.
    var current: Int { state.withLock { $0.silent.count + $0.speaking.count } }
    /// The places held by connections that have not sent a complete request head.
    var silent: Int { state.withLock { $0.silent.count } }
    /// How many silent connections were closed to make room, since the start.
    var evicted: Int { state.withLock { $0.evicted } }
}

/// The server's child channel around Hummingbird's (HTTP/1.1, with TLS or not): takes a place in
/// ``ConnectionSlots`` for each connection (closing it at once, before a byte is read, when there is none), and puts
/// ``ConnectionGuardHandler`` (the read deadline, and telling the slots when a request head arrives) in front of the
/// pipeline.
struct GuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let connections: ConnectionSlots?
    let readDeadline: Duration?
    let logger: Logger

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let admission = connections?.admit(channel)
        let refused = admission == .refused
        var slot: (slots: ConnectionSlots, ticket: UInt64)?
        if let connections, case .admitted(let ticket) = admission {
            slot = (connections, ticket)
            channel.closeFuture.whenComplete { _ in connections.closed(ticket) }
        }
        let readDeadline = self.readDeadline
        let guardLogger = self.logger
        let guardSlot = slot
        return channel.eventLoop.makeCompletedFuture {
            if !refused, readDeadline != nil || guardSlot != nil {
                try channel.pipeline.syncOperations.addHandler(
                    ConnectionGuardHandler(
                        deadline: readDeadline.map { TimeAmount($0) }, slot: guardSlot, logger: guardLogger),
                    position: .first
                )
            }
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }.map { value in
            // Closed after the pipeline is set up, so that the server's accept loop sees an ordinary, closed connection.
            if refused {
                guardLogger.debug("connection refused: every place is held by a connection with a request")
                channel.close(promise: nil)
            }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Closes a connection whose request (head and body) is not read in full within the deadline: for the first
/// request counted from the moment the connection is accepted (so a connection that sends nothing, or only part of a
/// TLS handshake or of a head, is closed after the deadline, whatever the idle timeout), for each later one from its
/// first byte. A client that stops in the middle of a body shorter than its `Content-Length`, or that sends it a
/// byte at a time, loses the connection, and the request body the handler waits for ends in an error, so no handler
/// runs for it. It also tells the connection's place in ``ConnectionSlots`` when the first request head arrives, so
/// that the connection is no longer pushed out for a newcomer. Sits first in the pipeline (raw bytes, before TLS and
/// HTTP decoding); ``RequestEndObserver``, after the HTTP decoding, tells it where requests start and end and where
/// responses finish.
final class ConnectionGuardHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private enum State {
        /// Waiting for a request's first byte (the idle timeout governs this wait).
        case idle
        /// A request is being read (for the first request: the connection is open and no request was read yet);
        /// the connection closes when the task runs.
        case reading(Scheduled<Void>?)
        /// The request was read; its response is being made.
        case responding
    }

    private let deadline: TimeAmount?
    private var slot: (slots: ConnectionSlots, ticket: UInt64)?
    private let logger: Logger
    private var state: State = .idle
    private var context: ChannelHandlerContext?

    init(deadline: TimeAmount?, slot: (slots: ConnectionSlots, ticket: UInt64)?, logger: Logger) {
        self.deadline = deadline
        self.slot = slot
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // The first request's deadline runs from the moment the connection is accepted, not from its first byte.
        arm()
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

    /// A request head was decoded (the first one gives the connection a place for good; a pipelined request's bytes
    /// may have come while the previous one was answered).
    func requestStarted() {
        if let slot {
            slot.slots.spoke(slot.ticket)
            self.slot = nil
        }
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
        guard let deadline else {
            state = .reading(nil)
            return
        }
        let first = slot != nil
        let task = context.eventLoop.assumeIsolated().scheduleTask(in: deadline) { [weak self] in
            guard let self, case .reading = self.state else { return }
            self.state = .idle
            self.logger.info(
                first && self.slot != nil
                    ? "connection closed: no request was read within the read deadline of its opening"
                    : "connection closed: the request was not read in full within the read deadline"
            )
            self.context?.close(promise: nil)
        }
        state = .reading(task)
    }

    private func cancel() {
        if case .reading(let task) = state {
            task?.cancel()
            state = .idle
        }
    }
}

@available(*, unavailable)
extension ConnectionGuardHandler: Sendable {}

/// After the HTTP decoding: tells the connection's ``ConnectionGuardHandler`` where each request starts and ends and
/// when its response is written.
final class RequestEndObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var guardHandler: ConnectionGuardHandler?

    func handlerAdded(context: ChannelHandlerContext) {
        guardHandler = try? context.pipeline.syncOperations.handler(type: ConnectionGuardHandler.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        guardHandler = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: guardHandler?.requestStarted()
        case .body: break
        case .end: guardHandler?.requestRead()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { guardHandler?.responseWritten() }
        context.write(data, promise: promise)
    }
}

@available(*, unavailable)
extension RequestEndObserver: Sendable {}
