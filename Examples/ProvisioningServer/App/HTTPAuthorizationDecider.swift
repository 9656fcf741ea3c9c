import AsyncHTTPClient
@_spi(AdapterSupport) import CardGateway
import Foundation
import NIOCore

/// The provisioning server's `--authorization-decider URL`: an ``AuthorizationDecider`` that POSTs each normalised
/// request as JSON to a URL and reads the decision (the decider contract: `AuthorizationDeciderRequest` and
/// `AuthorizationDeciderDecision` in `openapi.yaml`, docs/SERVER.md).
///
/// The request is sent with the request's ``AuthorizationRequest/deadline`` as its deadline, and the gateway cancels
/// it there; an answer that is not 2xx, not the decision's JSON, or late throws, and the gateway answers the provider
/// with the instance's stand-in.
public struct HTTPAuthorizationDecider: AuthorizationDecider {
    /// Why the decider's answer was not used. Never carries the decider's body.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The largest decision body read.
    public static let maxAnswerBytes = 64 * 1024

    public let url: URL
    let client: HTTPClient

    /// - Parameters:
    ///   - url: the decider's endpoint: `https://`, or `http://` on loopback only (127.0.0.1, ::1, localhost).
    ///   - client: the HTTP client; AsyncHTTPClient's shared one by default.
    /// - Throws: ``Failure`` for any other URL.
    public init(url: URL, client: HTTPClient = .shared) throws {
        if let problem = Self.problem(with: url) { throw Failure(description: problem) }
        self.url = url
        self.client = client
    }

    /// Why `url` cannot be a decider's, or nil.
    public static func problem(with url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            return "the decider URL must be an absolute http(s) URL"
        }
        let loopback = ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host.lowercased())
        if scheme == "https" || (scheme == "http" && loopback) { return nil }
        return "the decider URL must be https://, or http:// on loopback (127.0.0.1, ::1, localhost)"
    }

    public func decide(_ request: AuthorizationRequest) async throws -> AuthorizationDecision {
        var http = HTTPClientRequest(url: url.absoluteString)
        http.method = .POST
        http.headers.add(name: "Content-Type", value: "application/json")
        http.headers.add(name: "Accept", value: "application/json")
        http.body = .bytes(ByteBuffer(bytes: try AuthorizationDeciderWire.requestBody(request)))
        // The gateway's budget: the same instant the gateway stops waiting (it cancels this task then too).
        let remaining = max(0, (request.deadline ?? Date().addingTimeInterval(2)).timeIntervalSinceNow)
        let deadline = NIODeadline.now() + .nanoseconds(Int64(remaining * 1_000_000_000))
        let response = try await client.execute(http, deadline: deadline)
        guard (200..<300).contains(response.status.code) else {
            throw Failure(description: "the decider answered HTTP \(response.status.code)")
        }
        let body = try await response.body.collect(upTo: Self.maxAnswerBytes)
        return try AuthorizationDeciderWire.decision(from: Data(body.readableBytesView))
    }
}

/// The decider contract's JSON, both ways: pure functions, so that a decider written in any language can be checked
/// against them.
public enum AuthorizationDeciderWire {
    struct MoneyJSON: Codable, Equatable {
        var currency: String
        var minor: Int64
    }

    struct CardJSON: Codable {
        var id: String
        var customer: String?
    }

    struct MerchantJSON: Codable {
        var name: String?
        var categoryCode: String?
        var country: String?
        var city: String?
        var networkId: String?
    }

    struct RequestJSON: Codable {
        var id: String
        var provider: String
        var instance: String
        var kind: String
        var card: CardJSON
        var amount: MoneyJSON
        var merchantAmount: MoneyJSON?
        var amountAdjustable: Bool
        var merchant: MerchantJSON
        var entryMode: String?
        var networkRiskScore: Int?
        var deadline: String
    }

    struct DecisionJSON: Decodable {
        var approved: Bool
        var amount: MoneyJSON?
        var balance: MoneyJSON?
        var reason: String?
    }

    /// The JSON the server sends for `request` (sorted keys; absent members left out; `deadline` in RFC 3339 UTC
    /// with milliseconds).
    public static func requestBody(_ request: AuthorizationRequest) throws -> Data {
        let json = RequestJSON(
            id: request.id, provider: request.providerKind.name, instance: request.instance ?? "",
            kind: request.kind.rawValue, card: CardJSON(id: request.card.id, customer: request.card.customer),
            amount: MoneyJSON(currency: request.amount.currency, minor: request.amount.minorUnits),
            merchantAmount: request.merchantAmount.map { MoneyJSON(currency: $0.currency, minor: $0.minorUnits) },
            amountAdjustable: request.amountAdjustable,
            merchant: MerchantJSON(
                name: request.merchant.name, categoryCode: request.merchant.categoryCode,
                country: request.merchant.country, city: request.merchant.city,
                networkId: request.merchant.networkID),
            entryMode: request.entryMode, networkRiskScore: request.networkRiskScore,
            deadline: timestamp(request.deadline ?? Date()))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(json)
    }

    /// The decision in a decider's answer: `{"approved": true}`, `{"approved": true, "amount": {"currency",
    /// "minor"}}` or `{"approved": false, "reason": "…"}` (a reason this version does not know, or none, is
    /// ``AuthorizationDeclineReason/other``). Throws for anything else; the gateway then answers with the stand-in.
    public static func decision(from data: Data) throws -> AuthorizationDecision {
        let json: DecisionJSON
        do {
            json = try JSONDecoder().decode(DecisionJSON.self, from: data)
        } catch {
            throw HTTPAuthorizationDecider.Failure(description: "the decider's answer is not a decision")
        }
        guard json.approved else {
            return .decline(AuthorizationDeclineReason(reading: json.reason ?? ""))
        }
        return .approve(amount: try json.amount.map(money), balance: try json.balance.map(money))
    }

    static func money(_ json: MoneyJSON) throws -> Money {
        guard json.minor > 0, json.currency.utf8.count == 3,
            json.currency.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
        else {
            throw HTTPAuthorizationDecider.Failure(
                description: "the decider's amount is not a positive amount in an ISO 4217 currency")
        }
        return Money(minorUnits: json.minor, currency: json.currency)
    }

    /// RFC 3339, UTC, milliseconds: `2026-11-29T01:00:01.500Z`.
    static func timestamp(_ date: Date) -> String { InternetDateTime.format(date, fractionalSeconds: true) }
}
