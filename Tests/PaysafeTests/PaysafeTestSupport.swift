@_spi(AdapterSupport) import CardGateway
@_spi(AdapterSupport) import CardGatewayPaysafe
@_spi(AdapterSupport) import CardGatewayTesting
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// A clock the tests move by hand.
final class TestClock: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) { current = Mutex(start) }
    func now() -> Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

enum Fixture {
    static let baseURL = URL(string: "https://sandbox.paysafe.com")!
    static let clientID = "client-id-123"
    static let clientSecret = "client-secret-xyz-987"
    /// The request-signing page's example HMAC secret key (Base64 text, as Paysafe gives it).
    static let webhookSecret = PaysafePage.secret
    static let brand = "acme"
    static let customer = "cust-eu-1"
    static let cardID = "f16ba382-eb42-481a-b08f-c57bdc9aae24"
    static let tokenPath = "/digitalwallets/v1/auth/brands/acme/token"
    static let cardsPath = "/digitalwallets/v1/customers/cust-eu-1/prepaid/cards"
    static let cardPath = "/digitalwallets/v1/customers/cust-eu-1/prepaid/cards/f16ba382-eb42-481a-b08f-c57bdc9aae24"
    static let ref = CardRef(id: cardID, customer: customer)

    static func tokenJSON(_ token: String = "tok-1", expiresIn: Int = 900) -> String {
        #"{"access_token":"\#(token)","expires_in":\#(expiresIn),"token_type":"Bearer","scope":"whitelabelWallet"}"#
    }

    static func cardJSON(
        status: String = "ACTIVE", scheme: String? = "MC", cardType: String = "VIRTUAL", extra: String = ""
    ) -> String {
        let schemeField = scheme.map { #","scheme":"\#($0)""# } ?? ""
        return #"""
            {"cardId":"\#(cardID)","status":"\#(status)","expiry":{"month":3,"year":2028},"bin":"533944","lastFour":"7009",\#
            "customerId":"\#(customer)","cardType":"\#(cardType)","programName":"SKRILL-VIRTUAL-MC-EEA","currency":"EUR",\#
            "mobile":"+359 888333333","createdDate":"2019-08-24T14:15:22Z","accountId":"127623047"\#(schemeField)\#(extra)}
            """#
    }

    static let sampleSCAJSON =
        #"{"scaDetails":{"eventId":"06bdc2c0-cce-4b36-97ec-281c8f5d743c","walletOperationId":"a5865fd6-18c2-45a8-9953-1c00eac36c36","authenticationMode":"OUTSOURCED","availableVerifications":[{"method":"PIN"},{"method":"OTP","channel":"SMS","target":"+35988*****33"}],"creationTime":"2021-07-15T17:54:12Z","expirationTime":"2021-07-15T18:09:12Z"}}"#

    static func scaHeader(_ json: String = sampleSCAJSON) -> String {
        #"SCA realm="Prepaid Cards" auth-param1="\#(Data(json.utf8).base64EncodedString())""#
    }

    static func configuration(
        region: PaysafeRegion = .row, webhookSecret: String? = Fixture.webhookSecret
    ) -> PaysafeConfiguration {
        PaysafeConfiguration(
            clientID: Secret(clientID), clientSecret: Secret(clientSecret),
            webhookSecret: webhookSecret.map(Secret.init), brand: brand,
            region: region, userAgent: "TestAgent/1.0"
        )
    }
}

/// A provider over a scripted transport that answers token requests itself and business calls from `reply`.
struct Harness {
    let transport: ScriptedTransport
    let provider: PaysafeProvider
    let clock: TestClock

    var businessRequests: [RecordedRequest] { transport.requests.filter { !$0.path.hasSuffix("/token") } }
    var tokenRequestCount: Int { transport.requests.filter { $0.path.hasSuffix("/token") }.count }

    static func make(
        region: PaysafeRegion = .row, webhookSecret: String? = Fixture.webhookSecret, retry: RetryPolicy? = nil,
        configure: (inout PaysafeConfiguration) -> Void = { _ in },
        token: @escaping @Sendable (Int) -> ScriptedReply = { .json(200, Fixture.tokenJSON("tok-\($0)")) },
        reply: @escaping @Sendable (RecordedRequest) -> ScriptedReply?
    ) throws -> Harness {
        let counter = Counter()
        let transport = ScriptedTransport { request in
            if request.pathWithoutQuery.hasSuffix("/token") { return token(counter.next()) }
            return reply(request)
        }
        let clock = TestClock()
        let http: ProviderHTTPClient
        if let retry {
            http = try ProviderHTTPClient.testing(
                kind: .paysafe, baseURL: Fixture.baseURL, transport: transport, retry: retry)
        } else {
            http = try ProviderHTTPClient.testing(kind: .paysafe, baseURL: Fixture.baseURL, transport: transport)
        }
        var configuration = Fixture.configuration(region: region, webhookSecret: webhookSecret)
        configure(&configuration)
        let provider = try PaysafeProvider(configuration: configuration, http: http, now: { clock.now() })
        return Harness(transport: transport, provider: provider, clock: clock)
    }

    /// Replies to business calls in order.
    static func scripted(_ replies: [ScriptedReply], region: PaysafeRegion = .row) throws -> Harness {
        let queue = Mutex(replies)
        return try make(region: region) { _ in
            queue.withLock { $0.isEmpty ? .response(status: 599, headers: [:], body: Data()) : $0.removeFirst() }
        }
    }
}

final class Counter: Sendable {
    private let value = Mutex(0)
    func next() -> Int {
        value.withLock {
            $0 += 1; return $0
        }
    }
    var count: Int { value.withLock { $0 } }
}

extension RecordedRequest {
    /// The body parsed as a JSON object.
    var jsonObject: [String: Any]? {
        body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }

    func query(_ name: String) -> String? { queryItems.first { $0.name == name }?.value }
}
