import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// A purchase the simulated card network puts to the integrator's endpoint: the body of
/// `POST /__simulator/authorizations`, which every simulator that plays real-time authorization serves.
///
/// ```json
/// {"url": "http://127.0.0.1:8080/authorizations/us-issuing", "card": "ic_1Sim…", "amount": 1250, "currency": "USD",
///  "merchant": {"name": "Corner Shop", "categoryCode": "5411", "country": "US", "city": "Seattle"}}
/// ```
public struct AuthorizationOrder: Sendable, Codable, Equatable {
    public struct Merchant: Sendable, Codable, Equatable {
        public var name: String?
        /// Four digits.
        public var categoryCode: String?
        /// ISO 3166-1 alpha-2; each simulator writes it as its provider does (alpha-3 where the provider uses it).
        public var country: String?
        public var city: String?

        public init(name: String? = nil, categoryCode: String? = nil, country: String? = nil, city: String? = nil) {
            self.name = name
            self.categoryCode = categoryCode
            self.country = country
            self.city = city
        }
    }

    /// Where the integrator listens (plain `http://` only for loopback).
    public var url: String
    /// The card's id at the provider.
    public var card: String
    /// Minor units, positive.
    public var amount: Int64
    /// ISO 4217, upper case.
    public var currency: String
    public var merchant: Merchant
    /// `authorization` (the default), or a kind the simulator documents (Marqeta: `balanceInquiry`, `informative`).
    public var kind: String?
    /// Whether the provider lets the answer approve less (Stripe's `is_amount_controllable`); the simulator's
    /// default when absent.
    public var amountAdjustable: Bool?
    /// How long the network waits, in milliseconds: the provider's published deadline when absent. A test may shorten
    /// it, or lengthen it up to ``SimulatedNetwork/longestTestDeadline`` where the provider's own setting allows no
    /// longer (Stripe's and Adyen's two seconds), so that an end-to-end test on a loaded machine checks the wiring,
    /// not the machine's speed; where the provider publishes a range (Marqeta's `timeout_millis`, 1–7 s), its
    /// simulator keeps to it.
    public var deadlineMilliseconds: Int?

    public init(
        url: String, card: String, amount: Int64, currency: String, merchant: Merchant, kind: String? = nil,
        amountAdjustable: Bool? = nil, deadlineMilliseconds: Int? = nil
    ) {
        self.url = url
        self.card = card
        self.amount = amount
        self.currency = currency
        self.merchant = merchant
        self.kind = kind
        self.amountAdjustable = amountAdjustable
        self.deadlineMilliseconds = deadlineMilliseconds
    }

    /// Problems with the order, as sentences (empty when it can be sent).
    public var problems: [String] {
        var problems: [String] = []
        if let url = URL(string: url), let scheme = url.scheme, url.host != nil {
            let loopback = ["127.0.0.1", "localhost", "::1"].contains(url.host ?? "")
            if scheme != "https" && !(scheme == "http" && loopback) {
                problems.append("url must be https://, or http:// on loopback")
            }
        } else {
            problems.append("url must be an absolute http(s) URL")
        }
        if card.isEmpty { problems.append("card is required") }
        if amount <= 0 { problems.append("amount must be a positive number of minor units") }
        if currency.utf8.count != 3 || !currency.allSatisfy({ $0.isASCII && $0.isUppercase }) {
            problems.append("currency must be ISO 4217 alpha-3, upper case")
        }
        if let deadline = deadlineMilliseconds, deadline < 1 {
            problems.append("deadlineMilliseconds must be positive")
        }
        return problems
    }
}

/// What the network got back from the integrator's endpoint.
public struct NetworkReply: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// An HTTP answer within the deadline.
        case answered(status: Int, headers: HTTPFields, body: Data)
        /// No answer within the deadline: the provider applies its own fallback.
        case timedOut
        /// No HTTP answer at all (connection refused, reset): the provider's fallback too.
        case failed(String)
    }

    public var outcome: Outcome
    /// How long the network waited, measured on the wall clock (the network's time is real time).
    public var elapsed: Duration
}

/// The network's side of real-time authorization, shared by every simulator that plays it: sends the provider's
/// message, signed as the provider signs it, to the integrator's endpoint and waits up to the provider's deadline,
/// as the provider does. What the provider then records (Stripe's `request_history`, Marqeta's `gateway_log`, Adyen's
/// fallback) is each simulator's own.
public enum SimulatedNetwork: Sendable {
    /// The longest deadline an order may ask for, in milliseconds.
    public static let longestTestDeadline = 60_000

    /// Posts `body` with `headers` to `url` and waits at most `deadline` for the whole answer.
    public static func send(
        _ body: Data, headers: HTTPFields, to url: String, deadline: Duration, client: HTTPClient = .shared
    ) async -> NetworkReply {
        let started = ContinuousClock.now
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let timeout = TimeAmount.nanoseconds(deadline.nanoseconds)
        do {
            let response = try await client.execute(request, timeout: timeout)
            let bytes = try await response.body.collect(upTo: 1024 * 1024)
            var fields = HTTPFields()
            for header in response.headers {
                if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
            }
            return NetworkReply(
                outcome: .answered(status: Int(response.status.code), headers: fields, body: Data(buffer: bytes)),
                elapsed: ContinuousClock.now - started)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            return NetworkReply(outcome: .timedOut, elapsed: ContinuousClock.now - started)
        } catch {
            let elapsed = ContinuousClock.now - started
            // AsyncHTTPClient reports a deadline that passed while connecting or reading in several ways.
            if elapsed >= deadline { return NetworkReply(outcome: .timedOut, elapsed: elapsed) }
            return NetworkReply(outcome: .failed(String(describing: type(of: error))), elapsed: elapsed)
        }
    }
}
