import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayStripe
import CardGatewayTrustPayments
import Crypto
import Foundation
import HTTPTypes
import Synchronization
import Testing
import AdyenSimulator
import BridgeSimulator
import LithicSimulator
import MarqetaSimulator
import PaysafeSimulator
import StripeSimulator
import TrustPaymentsSimulator
@testable import CardGatewayFuzzHarnesses

/// Records the seed corpus from the simulators: each response harness's operations run against its simulator
/// and every response (status and body) becomes a corpus file; the simulators' signed webhooks and a Trust
/// Payments result JWT become the webhook and result seeds. Off unless CARDGATEWAY_RECORD_FUZZ_CORPUS=1:
///
///     CARDGATEWAY_RECORD_FUZZ_CORPUS=1 swift test --filter CorpusRecorder
///
/// The simulators run on the harnesses' fixed clock, so the recorded timestamps are the ones the harnesses
/// check against, and the operations carry fixed idempotency keys, so that recording again rewrites the same
/// bytes. Three answers stay random whatever the recorder does (Bridge's Google Pay payload is freshly encrypted;
/// Trust Payments' two charges get a random `requestreference`): keep the committed files of those unless the
/// simulator's answer changed shape.
@Suite(
    "Fuzz corpus recorder", .enabled(if: ProcessInfo.processInfo.environment["CARDGATEWAY_RECORD_FUZZ_CORPUS"] == "1"),
    .timeLimit(.minutes(5)))
struct CorpusRecorder {
    /// Passes requests to the simulator and keeps every answer.
    final class RecordingTransport: HTTPTransport {
        let inner = AsyncHTTPClientTransport()
        let exchanges = Mutex<[(request: HTTPRequest, status: Int, body: Data)]>([])

        func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
            let response = try await inner.send(request, body: body, timeout: timeout)
            exchanges.withLock { $0.append((request, response.response.status.code, response.body)) }
            return response
        }

        func take() -> [(request: HTTPRequest, status: Int, body: Data)] {
            exchanges.withLock { all in
                defer { all = [] }; return all
            }
        }
    }

    static var clock: SimulationClock { SimulationClock(fixed: FuzzClock.now) }

    static func write(_ data: Data, target: String, name: String) throws {
        let folder = FuzzRegressionTests.fuzzFolder.appendingPathComponent("Corpus").appendingPathComponent(target)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try data.write(to: folder.appendingPathComponent(name))
    }

    /// Runs every operation of `harness` against `simulator` and writes one file per distinct response. A response
    /// to a read the harness answers itself (``FuzzOperation/fixed``) is not written: the operation's seed is its
    /// write's answer.
    static func record(_ harness: ResponseHarness, simulator: some ProviderSimulator) async throws {
        try await withSimulator(simulator) { handle in
            let transport = RecordingTransport()
            let provider = try harness.makeProvider(transport: transport, baseURL: handle.baseURL)
            var seen = Set<Data>()
            var names = Set<String>()
            for (index, operation) in harness.operations.enumerated() {
                // A fixed idempotency key: Marqeta's simulator answers with the idempotency token it was sent,
                // which is random without one.
                _ = try? await operation.body(
                    provider, OperationContext(idempotencyKey: "fuzz-corpus-\(harness.name)-\(operation.name)"))
                for exchange in transport.take()
                where !operation.fixed.contains(where: { $0.matches(exchange.request) }) {
                    let path = exchange.request.path?.split(separator: "?").first.map(String.init) ?? ""
                    let isToken = harness.tokenPathSuffix.map { path.hasSuffix($0) } ?? false
                    guard
                        var seed = ResponseHarness.seed(operation: index, status: exchange.status, body: exchange.body)
                    else { continue }
                    if isToken { seed[0] |= 0x80 }
                    guard seen.insert(seed).inserted else { continue }
                    // A second distinct answer of the same status in one operation (the offer's card, then its
                    // tokens) gets a numbered name instead of overwriting the first.
                    let name = "\(operation.name)\(isToken ? "-token" : "")-\(exchange.status)"
                    var unique = name
                    var number = 2
                    while !names.insert(unique).inserted {
                        unique = "\(name)-\(number)"
                        number += 1
                    }
                    try Self.write(seed, target: "\(harness.name)-responses", name: unique)
                }
            }
        }
    }

    /// Lithic's folders alone (`--filter CorpusRecorder/recordLithic`): its responses, and its webhooks signed by
    /// the harness and as the simulator signed them (a raw seed keeps the simulator's `webhook-id`, which the
    /// harness's fixed one replaces, so it reaches the refusal path).
    @Test func recordLithic() async throws {
        try await Self.record(.lithic, simulator: LithicSimulator(clock: Self.clock))
        let lithic = LithicSimulator(clock: Self.clock)
        typealias LithicSeed = LithicSimulator.Seed
        let deliveries: [(String, LithicSimulator.SignedDelivery)] = [
            ("card-paused", lithic.signedCardUpdated(card: LithicSeed.lockableCard, state: "PAUSED", previous: "OPEN")),
            (
                "card-closed",
                lithic.signedCardUpdated(card: LithicSeed.cancellableCard, state: "CLOSED", previous: "OPEN")
            ),
            (
                "tokenization-paused",
                lithic.signedTokenizationUpdated(token: LithicSeed.activeToken, status: "PAUSED")
            ),
            (
                "digital-wallet-tokenization-deactivated",
                lithic.signedTokenizationUpdated(
                    token: LithicSeed.deletableToken, status: "DEACTIVATED", deprecated: true)
            ),
        ]
        for (name, signed) in deliveries {
            try Self.write(WebhookHarness.seed(body: signed.body), target: "lithic-webhooks", name: name)
            if let value = signed.headers.first(where: { $0.0.lowercased() == "webhook-signature" })?.1 {
                try Self.write(
                    WebhookHarness.rawSeed(header: value, body: signed.body), target: "lithic-webhooks",
                    name: "\(name)-raw")
            }
        }
    }

    @Test func record() async throws {
        try await Self.record(.stripe, simulator: StripeSimulator(clock: Self.clock))
        try await Self.record(.adyen, simulator: AdyenSimulator(clock: Self.clock))
        try await Self.record(.paysafe, simulator: PaysafeSimulator(clock: Self.clock))
        try await Self.record(.bridge, simulator: BridgeSimulator(clock: Self.clock))
        try await Self.record(.trustPayments, simulator: TrustPaymentsSimulator(clock: Self.clock))
        try await Self.record(.marqeta, simulator: MarqetaSimulator(clock: Self.clock))

        // Webhooks: the body signed by the harness, and the delivery as the simulator signed it (the simulators
        // share the harnesses' test secrets, so both verify).
        func webhook(
            _ target: String, _ name: String, _ signed: (headers: [(String, String)], body: Data), header: String
        ) throws {
            try Self.write(WebhookHarness.seed(body: signed.body), target: "\(target)-webhooks", name: name)
            if let value = signed.headers.first(where: { $0.0.lowercased() == header.lowercased() })?.1 {
                try Self.write(
                    WebhookHarness.rawSeed(header: value, body: signed.body), target: "\(target)-webhooks",
                    name: "\(name)-raw")
            }
        }
        let stripe = StripeSimulator(clock: Self.clock)
        typealias StripeSeed = StripeSimulator.Seed
        if let card = stripe.cardObject(StripeSeed.inactiveCardID) {
            try webhook(
                "stripe", "card-updated",
                stripe.signedWebhook(
                    type: "issuing_card.updated", object: card, previousAttributes: ["status": "active"]),
                header: "Stripe-Signature")
            try webhook(
                "stripe", "card-created", stripe.signedWebhook(type: "issuing_card.created", object: card),
                header: "Stripe-Signature")
        }
        if let token = stripe.tokenObject(StripeSeed.activeApplePayTokenID) {
            try webhook(
                "stripe", "token-created", stripe.signedWebhook(type: "issuing_token.created", object: token),
                header: "Stripe-Signature")
            try webhook(
                "stripe", "token-updated", stripe.signedWebhook(type: "issuing_token.updated", object: token),
                header: "Stripe-Signature")
        }
        let adyen = AdyenSimulator(clock: Self.clock)
        try webhook(
            "adyen", "token-created",
            adyen.signedWebhook(
                type: "balancePlatform.networkToken.created", token: AdyenSimulator.Seed.activeApplePayTokenID),
            header: "HmacSignature")
        try webhook(
            "adyen", "token-updated",
            adyen.signedWebhook(
                type: "balancePlatform.networkToken.updated", token: AdyenSimulator.Seed.inactiveGooglePayTokenID,
                decision: "declined"), header: "HmacSignature")
        let paysafe = PaysafeSimulator(clock: Self.clock)
        try webhook(
            "paysafe", "status-locked",
            paysafe.signedWebhook(cardID: PaysafeSimulator.Seed.activeCardID, eventID: "evt-1"), header: "Signature")
        try webhook(
            "paysafe", "status-new",
            paysafe.signedWebhook(
                cardID: PaysafeSimulator.Seed.issuedCardID, customerID: nil, oldStatus: nil, newStatus: "ACTIVE"),
            header: "Signature")
        let bridge = BridgeSimulator(clock: Self.clock, webhookSigningKey: FuzzKeys.bridgeWebhookPrivateKey)
        if let signed = try bridge.signedCardAccountWebhook(
            cardAccountID: BridgeSimulator.Seed.frozenByCustomer, previousStatus: "active")
        {
            try webhook("bridge", "card-frozen", signed, header: "X-Webhook-Signature")
        }
        if let signed = try bridge.signedCardAccountWebhook(
            cardAccountID: BridgeSimulator.Seed.activeVisa, type: "card_account.created")
        {
            try webhook("bridge", "card-created", signed, header: "X-Webhook-Signature")
        }

        let marqeta = MarqetaSimulator(clock: Self.clock)
        typealias MarqetaSeed = MarqetaSimulator.Seed
        try webhook(
            "marqeta", "card-suspended",
            marqeta.signedCardTransitionWebhook(
                card: MarqetaSeed.lockableCard, state: "SUSPENDED", type: "state.suspended"),
            header: "X-Marqeta-Signature")
        try webhook(
            "marqeta", "card-terminated",
            marqeta.signedCardTransitionWebhook(
                card: MarqetaSeed.cancellableCard, state: "TERMINATED", type: "state.terminated"),
            header: "X-Marqeta-Signature")
        try webhook(
            "marqeta", "token-requested",
            marqeta.signedTokenTransitionWebhook(
                token: MarqetaSeed.activeToken, state: "REQUESTED", type: "state.requested"),
            header: "X-Marqeta-Signature")
        try webhook(
            "marqeta", "token-suspended",
            marqeta.signedTokenTransitionWebhook(
                token: MarqetaSeed.suspendedToken, state: "SUSPENDED", type: "state.suspended"),
            header: "X-Marqeta-Signature")

        // A Trust Payments result: a client session from the adapter, paid by the simulated SDK.
        let trustPayments = TrustPaymentsSimulator(clock: Self.clock)
        try await withSimulator(trustPayments) { handle in
            let provider = try #require(
                try ResponseHarness.trustPayments.makeProvider(
                    transport: AsyncHTTPClientTransport(), baseURL: handle.baseURL) as? TrustPaymentsProvider)
            let session = try await provider.clientSession(
                ClientSessionRequest(
                    intent: .store(consent: CardholderConsent(recordedAt: FuzzClock.now, evidence: "fuzz terms v1")),
                    amount: Money(minorUnits: 1050, currency: "GBP")),
                context: OperationContext()
            )
            for (name, pan) in [("visa", "4111111111111111"), ("declined", "4000000000000002")] {
                guard
                    let token = try? await trustPayments.sdkPayment(
                        sessionJWT: session.token.revealedValue, pan: pan, expiryDate: "12/2034", securityCode: "123")
                else { continue }
                let parts = token.split(separator: ".")
                guard parts.count == 3, let claims = Self.base64URLDecode(String(parts[1])) else { continue }
                try Self.write(
                    TrustPaymentsResultHarness.seed(claims: claims), target: "trustpayments-results",
                    name: "result-\(name)")
                try Self.write(
                    Data([1]) + Data(token.utf8), target: "trustpayments-results", name: "result-\(name)-raw")
            }
        }
    }

    static func base64URLDecode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
