import Benchmark
import BenchmarkSupport
import CardGateway
import Foundation
import JWTKit
import ProviderFixtures

// Trust Payments' client session (HS256 session JWT, sorted-key JSON claims) through the adapter's public API
// (`StoredCredentials.clientSession`, a store intent: nothing is sent), next to jwt-kit minting the same claims with
// the same serializer and key, built once (jwt-kit's usual use). The setup checks that jwt-kit, given the claims read
// back from the adapter's token, mints the same token, so the two benchmarks measure the same output. The adapter's
// share beyond the JWT (validation, the claims, the session) is in the first one.

let benchmarks: @Sendable () -> Void = {
    Benchmark("jwt/trustpayments-client-session", configuration: jwtConfiguration) { benchmark in
        let provider = try Session.provider()
        for _ in benchmark.scaledIterations {
            blackHole(
                try await callgrindMeasuredAsync {
                    try await provider.clientSession(Session.request, context: Session.context)
                })
        }
    }

    Benchmark(
        "jwt/jwtkit-mint", configuration: jwtConfiguration,
        closure: { benchmark in
            let keys = await Session.jwtKitKeys()
            let claims = try await Session.claims()
            for _ in benchmark.scaledIterations {
                blackHole(try await callgrindMeasuredAsync { try await keys.sign(claims) })
            }
        },
        setup: {
            let ours = try await Session.mintOurs()
            let theirs = try await Session.jwtKitKeys().sign(try await Session.claims())
            precondition(ours == theirs, "the adapter's session JWT differs from jwt-kit's")
        }
    )
}

var jwtConfiguration: Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .milliseconds(800),
        maxIterations: 10_000,
        thresholds: [
            .wallClock: .init(relative: [.p50: 100], absolute: [:]),
            .mallocCountTotal: .init(relative: [.p50: 0], absolute: [.p90: 0]),
        ]
    ).callgrindAware
}

/// The claims Trust Payments' adapter puts in a client session's JWT (field for field its `SessionClaims`).
struct Claims: JWTPayload {
    struct Payload: Codable, Sendable {
        var accounttypedescription: String
        var sitereference: String
        var currencyiso3a: String
        var baseamount: String
        var requesttypedescriptions: [String]
        var credentialsonfile: String
        var parenttransactionreference: String?
        var orderreference: String?
    }

    var iss: String
    var iat: Int64
    var payload: Payload

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

enum Session {
    /// At least 32 bytes, as jwt-kit asks of an HS256 key (the simulator's seed secret is shorter).
    static let secret = "tp-jwt-secret-0123456789abcdef0123456789"
    static let subject: ProviderSubject = {
        var subject = ProviderSubject.named("trustpayments")!
        subject.credentials["jwtSecret"] = Secret(secret)
        return subject
    }()
    static let context = OperationContext()
    static let request = ClientSessionRequest(
        intent: .store(
            consent: CardholderConsent(
                recordedAt: Date(timeIntervalSince1970: 1_764_000_000), evidence: "bench terms v1")),
        amount: Money(minorUnits: 1050, currency: "GBP"), orderReference: "order-0042"
    )

    /// The adapter alone (a store intent sends nothing: the transport is never asked).
    static func provider() throws -> any StoredCredentials {
        let adapter = try subject.makeAdapter(
            baseURL: URL(string: "http://127.0.0.1:9")!, transport: ReplayTransport([]))
        guard let credentials = adapter as? any StoredCredentials else {
            fatalError("the Trust Payments adapter keeps no stored credentials")
        }
        return credentials
    }

    static func mintOurs() async throws -> String {
        try await provider().clientSession(request, context: context).token.revealedValue
    }

    /// The claims of the adapter's token, read back from it (the JWT's middle part).
    static func claims() async throws -> Claims {
        var payload = try await mintOurs().split(separator: ".")[1].replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        return try JSONDecoder().decode(Claims.self, from: Data(base64Encoded: payload)!)
    }

    /// jwt-kit's keys: the secret as an HMAC key, and a serializer with sorted keys and unescaped slashes.
    static func jwtKitKeys() async -> JWTKeyCollection {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return await JWTKeyCollection().add(
            hmac: HMACKey(from: Array(secret.utf8)), digestAlgorithm: .sha256,
            serializer: DefaultJWTSerializer(jsonEncoder: encoder)
        )
    }
}
