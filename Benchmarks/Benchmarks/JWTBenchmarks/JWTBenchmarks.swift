import Benchmark
import BenchmarkSupport
import CardGateway
@_spi(Benchmarks) import CardGatewayTrustPayments
import Foundation
import JWTKit

// Minting Trust Payments' session JWT (HS256, sorted-key JSON claims): the adapter's own minting next to jwt-kit
// minting the same claims with the same serializer and key, built once (jwt-kit's usual use). The setup checks that
// both give the same token, so the two benchmarks measure the same output.

let benchmarks: @Sendable () -> Void = {
    Benchmark("jwt/trustpayments-mint", configuration: jwtConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await callgrindMeasuredAsync { try await Session.mintOurs() })
        }
    }

    Benchmark(
        "jwt/jwtkit-mint", configuration: jwtConfiguration,
        closure: { benchmark in
            let keys = await Session.jwtKitKeys()
            for _ in benchmark.scaledIterations {
                blackHole(try await callgrindMeasuredAsync { try await keys.sign(Session.claims) })
            }
        },
        setup: {
            let ours = try await Session.mintOurs()
            let theirs = try await Session.jwtKitKeys().sign(Session.claims)
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
    static let secret = "tp-jwt-secret-0123456789abcdef0123456789"
    static let claims = Claims(
        iss: "jwt@merchant.example", iat: 1_764_000_000,
        payload: .init(
            accounttypedescription: "ECOM", sitereference: "test_site12345", currencyiso3a: "GBP", baseamount: "1050",
            requesttypedescriptions: ["THREEDQUERY", "AUTH"], credentialsonfile: "1", parenttransactionreference: "1-2-345678",
            orderreference: "order-0042"
        )
    )

    static func mintOurs() async throws -> String {
        try await TrustPaymentsJWTBenchmarking.mintSessionToken(
            issuer: claims.iss, issuedAt: claims.iat, accountType: claims.payload.accounttypedescription,
            siteReference: claims.payload.sitereference, currency: claims.payload.currencyiso3a, baseAmount: claims.payload.baseamount,
            requestTypes: claims.payload.requesttypedescriptions, credentialsOnFile: claims.payload.credentialsonfile,
            parentTransactionReference: claims.payload.parenttransactionreference, orderReference: claims.payload.orderreference,
            secret: Secret(secret)
        )
    }

    /// jwt-kit's keys: the secret as an HMAC key, and a serializer with sorted keys and unescaped slashes.
    static func jwtKitKeys() async -> JWTKeyCollection {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return await JWTKeyCollection().add(
            hmac: HMACKey(from: Array(secret.utf8)), digestAlgorithm: .sha256, serializer: DefaultJWTSerializer(jsonEncoder: encoder)
        )
    }
}
