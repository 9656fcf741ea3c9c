import CardGateway
import CardGatewaySimulation
import Foundation

/// The contract for failure: for every fault a provider (or the network in front of it) can throw at a request,
/// and every kind of request, the one normalised error a caller must get. ``ContractSuite`` runs every cell of
/// it for every operation an adapter supports; this table is the only place the expectations are written.
///
/// The kind of request is what the adapter declares on its ``ProviderRequest`` (``RequestClass``), checked against
/// the wire: a GET is a read, and a POST is never declared safe to repeat without an idempotency key.
///
/// | fault | read / keyed write | unkeyed write |
/// |---|---|---|
/// | 500, 502, 503 (with or without `Retry-After`) | providerUnavailable, retryable, may have reached | providerUnavailable, **not** retryable, may have reached |
/// | 429 with `Retry-After` | rateLimited, retryable, did not reach | the same |
/// | no answer within the timeout | timeout, retryable, may have reached | timeout, **not** retryable, may have reached |
/// | connection refused (dropped before the request was sent) | transport, retryable, did not reach | the same |
/// | connection dropped after the request was sent | transport, retryable, may have reached | transport, **not** retryable, may have reached |
/// | body shorter than its `Content-Length` | transport, retryable, may have reached | transport, **not** retryable, may have reached |
/// | malformed JSON (200) | invalidResponse, not retryable, may have reached | the same |
/// | HTML under `text/html` (200) | invalidResponse, not retryable, may have reached | the same |
/// | body over the client's size limit (200) | invalidResponse, not retryable, may have reached | the same |
///
/// `retryAfter` is the header's value on every retryable cell whose fault sends one. "Not retryable, may have
/// reached" is how an unknown outcome is reported: the caller must check the outcome before sending it again,
/// and the gateway itself never repeats it.
public enum FaultMatrix: Sendable {
    /// What the simulator does to the request (or what the network does before it).
    public enum Fault: String, Sendable, CaseIterable, CustomStringConvertible {
        case status500 = "500"
        case status502 = "502"
        case status503 = "503"
        case status503RetryAfter = "503 with Retry-After"
        case status429RetryAfter = "429 with Retry-After"
        case slowerThanTimeout = "slower than the timeout"
        case refusedBeforeSending = "connection refused before sending"
        case droppedAfterSending = "connection dropped after sending"
        case truncatedBody = "truncated body"
        case malformedJSON = "malformed JSON"
        case wrongContentType = "wrong content type"
        case oversizedBody = "oversized body"

        public var description: String { rawValue }

        /// Whether the simulator sends a whole response (a status, a malformed, mislabelled or oversized body), so
        /// the client never has to give up waiting for it.
        var isAnsweredInFull: Bool {
            switch self {
            case .status500, .status502, .status503, .status503RetryAfter, .status429RetryAfter: return true
            case .malformedJSON, .wrongContentType, .oversizedBody: return true
            case .slowerThanTimeout, .refusedBeforeSending, .droppedAfterSending, .truncatedBody: return false
            }
        }

        /// The `Retry-After` the fault sends, in seconds.
        public var retryAfterSeconds: Int? {
            switch self {
            case .status503RetryAfter: return 2
            case .status429RetryAfter: return 3
            default: return nil
            }
        }
    }

    /// How a request may be repeated, as the adapter declares it (``ProviderRequest/Repeatability``).
    public enum RequestClass: String, Sendable, CaseIterable, CustomStringConvertible {
        /// A read, or a write that sets a state and changes nothing when repeated (`.safe`).
        case safe
        /// A write carrying an idempotency key the provider honours in a header (`.idempotent`).
        case keyed
        /// A write carrying an idempotency key the provider honours in its body (`.idempotentByContent`, Marqeta's
        /// `token`): every attempt sends the same bytes.
        case keyedByContent
        /// A write the provider cannot de-duplicate (`.never`): a charge, a Paysafe card creation.
        case unkeyed

        public init(_ repeatability: ProviderRequest.Repeatability) {
            switch repeatability {
            case .safe: self = .safe
            case .idempotent: self = .keyed
            case .idempotentByContent: self = .keyedByContent
            case .never: self = .unkeyed
            }
        }

        public var description: String { rawValue }
    }

    /// The normalised error a cell must produce.
    public struct Expectation: Sendable, Equatable, CustomStringConvertible {
        public var code: CardGatewayError.Code
        public var retryable: Bool
        public var mayHaveReachedProvider: Bool
        /// The error's `retryAfter`, checked when set.
        public var retryAfter: Duration?

        public init(
            _ code: CardGatewayError.Code, retryable: Bool, mayHaveReachedProvider: Bool, retryAfter: Duration? = nil
        ) {
            self.code = code
            self.retryable = retryable
            self.mayHaveReachedProvider = mayHaveReachedProvider
            self.retryAfter = retryAfter
        }

        public var description: String {
            "\(code), retryable: \(retryable), mayHaveReachedProvider: \(mayHaveReachedProvider)"
                + (retryAfter.map { ", retryAfter: \($0)" } ?? "")
        }
    }

    /// The table (see the type's documentation).
    public static func expectation(for fault: Fault, on request: RequestClass) -> Expectation {
        // Whether an ambiguous failure may be repeated: yes for reads and keyed writes, never for unkeyed writes.
        let repeatable = request != .unkeyed
        switch fault {
        case .status500, .status502, .status503:
            return Expectation(.providerUnavailable, retryable: repeatable, mayHaveReachedProvider: true)
        case .status503RetryAfter:
            return Expectation(
                .providerUnavailable, retryable: repeatable, mayHaveReachedProvider: true,
                retryAfter: repeatable ? .seconds(fault.retryAfterSeconds!) : nil
            )
        case .status429RetryAfter:
            return Expectation(
                .rateLimited, retryable: true, mayHaveReachedProvider: false,
                retryAfter: .seconds(fault.retryAfterSeconds!))
        case .slowerThanTimeout:
            return Expectation(.timeout, retryable: repeatable, mayHaveReachedProvider: true)
        case .refusedBeforeSending:
            return Expectation(.transport, retryable: true, mayHaveReachedProvider: false)
        case .droppedAfterSending, .truncatedBody:
            return Expectation(.transport, retryable: repeatable, mayHaveReachedProvider: true)
        case .malformedJSON, .wrongContentType, .oversizedBody:
            return Expectation(.invalidResponse, retryable: false, mayHaveReachedProvider: true)
        }
    }

    /// The largest response body the suite's client accepts in the matrix; the oversized fault sends twice that.
    public static let maxResponseBytes = 256 * 1024

    /// The simulator's action for `fault`, or nil when the fault happens before the simulator (a refused
    /// connection).
    public static func action(for fault: Fault, delayMilliseconds: Int) -> FaultAction? {
        switch fault {
        case .status500: return .status(500, retryAfterSeconds: nil, message: "simulated internal error")
        case .status502: return .status(502, retryAfterSeconds: nil, message: "simulated bad gateway")
        case .status503: return .status(503, retryAfterSeconds: nil, message: "simulated maintenance")
        case .status503RetryAfter:
            return .status(503, retryAfterSeconds: fault.retryAfterSeconds, message: "simulated maintenance")
        case .status429RetryAfter:
            return .status(429, retryAfterSeconds: fault.retryAfterSeconds, message: "simulated rate limit")
        case .slowerThanTimeout: return .delay(milliseconds: delayMilliseconds)
        case .refusedBeforeSending: return nil
        case .droppedAfterSending: return .dropConnection
        case .truncatedBody: return .truncatedBody(status: 200)
        case .malformedJSON: return .malformedBody(status: 200)
        case .wrongContentType: return .wrongContentType(status: 200)
        case .oversizedBody: return .oversizedBody(status: 200, bytes: 2 * maxResponseBytes)
        }
    }
}
