import Foundation
import Synchronization

/// What an injected fault does to a matching request.
///
/// JSON form (the `type` field selects the case; optional fields may be omitted or `null`):
/// ```json
/// {"type":"status","status":503,"retryAfterSeconds":2,"message":"maintenance"}
/// {"type":"delay","milliseconds":250}
/// {"type":"dropConnection"}
/// {"type":"malformedBody","status":200}
/// {"type":"truncatedBody","status":200}
/// {"type":"wrongContentType","status":200}
/// {"type":"oversizedBody","status":200,"bytes":1048576}
/// ```
/// Decoding rejects statuses outside `200...599` and delays outside `0...120000` milliseconds.
public enum FaultAction: Sendable, Codable, Hashable {
    /// Answer with the provider's own error body (``ProviderSimulator/faultResponse(status:message:)``) and this status,
    /// plus a `Retry-After` header when `retryAfterSeconds` is given. `message` defaults to
    /// `"simulated fault: HTTP <status>"`. The route handler is not called.
    case status(Int, retryAfterSeconds: Int?, message: String?)
    /// Wait this long, then handle the request normally. If the server shuts down gracefully during the wait, the
    /// request is answered at once with the provider's 503 error body (message `"simulator is shutting down"`).
    case delay(milliseconds: Int)
    /// Close the TCP connection without sending any response. The route handler is not called.
    case dropConnection
    /// Answer with this status, `content-type: application/json` and a body that is not valid JSON. The route handler
    /// is not called.
    case malformedBody(status: Int)
    /// Answer with this status and `content-type: application/json`, announce a `content-length` larger than the body
    /// bytes actually sent (the first half of the provider's error body), then close the connection. The route handler
    /// is not called.
    case truncatedBody(status: Int)
    /// Answer with this status and an HTML page under `content-type: text/html` (what a proxy or a load balancer in
    /// front of the provider sends), instead of the provider's JSON. The route handler is not called.
    case wrongContentType(status: Int)
    /// Answer with this status, `content-type: application/json` and a well-formed JSON body of `bytes` bytes (a
    /// single padding string), larger than a client should accept. The route handler is not called.
    case oversizedBody(status: Int, bytes: Int)

    /// Allowed statuses for status-carrying actions.
    public static let allowedStatuses = 200...599
    /// Allowed delay, in milliseconds.
    public static let allowedDelayMilliseconds = 0...120_000
    /// Allowed size of an oversized body, in bytes.
    public static let allowedOversizedBytes = 16...(64 * 1024 * 1024)

    private enum CodingKeys: String, CodingKey {
        case type, status, retryAfterSeconds, message, milliseconds, bytes
    }

    /// Decodes the JSON form described on the type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        /// The integer under `key`, refused unless it lies in `range`.
        func integer(_ key: CodingKeys, in range: ClosedRange<Int>) throws -> Int {
            let value = try container.decode(Int.self, forKey: key)
            guard range.contains(value) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container,
                    debugDescription: "\(key.stringValue) must be in \(range.lowerBound)...\(range.upperBound)"
                )
            }
            return value
        }
        func status() throws -> Int { try integer(.status, in: Self.allowedStatuses) }
        switch type {
        case "status":
            let retryAfter = try container.decodeIfPresent(Int.self, forKey: .retryAfterSeconds)
            if let retryAfter, retryAfter < 0 {
                throw DecodingError.dataCorruptedError(
                    forKey: .retryAfterSeconds,
                    in: container,
                    debugDescription: "retryAfterSeconds must not be negative"
                )
            }
            self = .status(
                try status(), retryAfterSeconds: retryAfter,
                message: try container.decodeIfPresent(String.self, forKey: .message))
        case "delay":
            self = .delay(milliseconds: try integer(.milliseconds, in: Self.allowedDelayMilliseconds))
        case "dropConnection":
            self = .dropConnection
        case "malformedBody":
            self = .malformedBody(status: try status())
        case "truncatedBody":
            self = .truncatedBody(status: try status())
        case "wrongContentType":
            self = .wrongContentType(status: try status())
        case "oversizedBody":
            self = .oversizedBody(status: try status(), bytes: try integer(.bytes, in: Self.allowedOversizedBytes))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type,
                in: container,
                debugDescription:
                    "unknown fault type \"\(type)\"; expected status, delay, dropConnection, malformedBody, truncatedBody, wrongContentType or oversizedBody"
            )
        }
    }

    /// Encodes the JSON form described on the type (absent optionals are omitted).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .status(let status, let retryAfterSeconds, let message):
            try container.encode("status", forKey: .type)
            try container.encode(status, forKey: .status)
            try container.encodeIfPresent(retryAfterSeconds, forKey: .retryAfterSeconds)
            try container.encodeIfPresent(message, forKey: .message)
        case .delay(let milliseconds):
            try container.encode("delay", forKey: .type)
            try container.encode(milliseconds, forKey: .milliseconds)
        case .dropConnection:
            try container.encode("dropConnection", forKey: .type)
        case .malformedBody(let status):
            try container.encode("malformedBody", forKey: .type)
            try container.encode(status, forKey: .status)
        case .truncatedBody(let status):
            try container.encode("truncatedBody", forKey: .type)
            try container.encode(status, forKey: .status)
        case .wrongContentType(let status):
            try container.encode("wrongContentType", forKey: .type)
            try container.encode(status, forKey: .status)
        case .oversizedBody(let status, let bytes):
            try container.encode("oversizedBody", forKey: .type)
            try container.encode(status, forKey: .status)
            try container.encode(bytes, forKey: .bytes)
        }
    }
}

/// A fault to apply to the next `count` requests that match `pathPrefix` and `method`.
///
/// JSON form (as accepted by `POST /__simulator/faults`; `count` defaults to 1, `pathPrefix` and `method` may be
/// omitted to match every path / method):
/// ```json
/// {"count":1,"pathPrefix":"/v1/payment_intents","method":"POST","action":{"type":"status","status":503,"retryAfterSeconds":2}}
/// ```
/// `pathPrefix` is compared with the start of the full request path (including the simulator's base path, excluding
/// the query); `method` is compared case-insensitively.
public struct FaultRule: Sendable, Codable, Hashable {
    /// How many matching requests still get the fault (at least 1 when injected).
    public var count: Int
    /// Only requests whose path starts with this match; `nil` matches every path.
    public var pathPrefix: String?
    /// Only requests with this method (case-insensitive) match; `nil` matches every method.
    public var method: String?
    /// What happens to a matching request.
    public var action: FaultAction

    /// Creates a rule.
    /// - Parameters:
    ///   - count: Number of matching requests that get the fault (default 1).
    ///   - pathPrefix: Path prefix to match, or `nil` for every path.
    ///   - method: Method to match, or `nil` for every method.
    ///   - action: The fault.
    public init(count: Int = 1, pathPrefix: String? = nil, method: String? = nil, action: FaultAction) {
        self.count = count
        self.pathPrefix = pathPrefix
        self.method = method
        self.action = action
    }

    /// Whether a request with this method and path matches the rule (ignoring ``count``).
    /// - Parameters:
    ///   - method: Request method.
    ///   - path: Request path without query.
    public func matches(method: String, path: String) -> Bool {
        if let pathPrefix, !path.hasPrefix(pathPrefix) {
            return false
        }
        if let expected = self.method, expected.uppercased() != method.uppercased() {
            return false
        }
        return true
    }

    private enum CodingKeys: String, CodingKey {
        case count, pathPrefix, method, action
    }

    /// Decodes the JSON form described on the type; rejects a `count` below 1.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let count = try container.decodeIfPresent(Int.self, forKey: .count) ?? 1
        guard count >= 1 else {
            throw DecodingError.dataCorruptedError(
                forKey: .count, in: container, debugDescription: "count must be at least 1")
        }
        self.count = count
        self.pathPrefix = try container.decodeIfPresent(String.self, forKey: .pathPrefix)
        self.method = try container.decodeIfPresent(String.self, forKey: .method)
        self.action = try container.decode(FaultAction.self, forKey: .action)
    }

    /// Encodes the JSON form described on the type (absent optionals are omitted).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.count, forKey: .count)
        try container.encodeIfPresent(self.pathPrefix, forKey: .pathPrefix)
        try container.encodeIfPresent(self.method, forKey: .method)
        try container.encode(self.action, forKey: .action)
    }
}

/// The queue of pending faults of one simulator.
///
/// Each request (other than control-path requests) consumes one use of the first pending rule, in injection order,
/// that matches its method and path; a rule is removed when its count reaches zero. Requests that match no rule are
/// handled normally. Safe to use from any task.
public final class FaultInjector: Sendable {
    private let rules = Mutex<[FaultRule]>([])
    /// Delayed answers still on their way, and the tasks waiting for their number to reach a target (`nil`: none left;
    /// a number: at least that many).
    private let delayed = Mutex<
        (inProgress: Int, waiters: [(atLeast: Int?, continuation: CheckedContinuation<Void, Never>)])
    >((0, []))

    /// Creates an injector with no pending faults.
    public init() {}

    /// Adds a rule after the pending ones. A rule with `count` below 1 is ignored.
    /// - Parameter rule: The rule.
    public func inject(_ rule: FaultRule) {
        guard rule.count >= 1 else { return }
        self.rules.withLock { $0.append(rule) }
    }

    /// Removes every pending rule.
    public func clear() {
        self.rules.withLock { $0.removeAll() }
    }

    /// The pending rules in order, with their remaining counts.
    public var pending: [FaultRule] {
        self.rules.withLock { $0 }
    }

    /// Consumes one use of the first pending rule matching the request and returns its action, or `nil` if no rule
    /// matches. The kit calls this once per request; simulators normally do not need to.
    /// - Parameters:
    ///   - method: Request method.
    ///   - path: Request path without query.
    public func consume(method: String, path: String) -> FaultAction? {
        let action: FaultAction? = self.rules.withLock { rules in
            guard let index = rules.firstIndex(where: { $0.matches(method: method, path: path) }) else { return nil }
            let action = rules[index].action
            rules[index].count -= 1
            if rules[index].count <= 0 {
                rules.remove(at: index)
            }
            return action
        }
        if case .delay = action { self.changeDelayed(by: 1) }
        return action
    }

    /// How many delayed answers (``FaultAction/delay(milliseconds:)``) are still on their way: counted from the moment
    /// the request consumes the fault until its answer is sent and journaled (or the request ends otherwise).
    public var delayedAnswersInProgress: Int {
        self.delayed.withLock { $0.inProgress }
    }

    /// Suspends until no delayed answer is on its way: a test whose client gave up on a delayed request waits here for
    /// the simulator to answer and journal it, instead of sleeping for the delay. Returns at once when there is none.
    public func delayedAnswersSettled() async {
        await self.waitForDelayed(atLeast: nil)
    }

    /// Suspends until at least `count` delayed answers are on their way at once: their requests reached the simulator
    /// and are held by the delay (a signal, so a test need not poll ``pending``).
    public func delayedAnswersHeld(_ count: Int = 1) async {
        await self.waitForDelayed(atLeast: count)
    }

    /// Ends one delayed answer (the simulator's middleware calls it once the answer is journaled).
    func delayedAnswerEnded() {
        self.changeDelayed(by: -1)
    }

    private static func reached(_ inProgress: Int, _ atLeast: Int?) -> Bool {
        atLeast.map { inProgress >= $0 } ?? (inProgress == 0)
    }

    private func changeDelayed(by change: Int) {
        let ready: [CheckedContinuation<Void, Never>] = self.delayed.withLock { delayed in
            delayed.inProgress = max(0, delayed.inProgress + change)
            let count = delayed.inProgress
            let ready = delayed.waiters.filter { Self.reached(count, $0.atLeast) }.map(\.continuation)
            delayed.waiters.removeAll { Self.reached(count, $0.atLeast) }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    private func waitForDelayed(atLeast: Int?) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = self.delayed.withLock { delayed in
                if Self.reached(delayed.inProgress, atLeast) { return true }
                delayed.waiters.append((atLeast, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }
}
