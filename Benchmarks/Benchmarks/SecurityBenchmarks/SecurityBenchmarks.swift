import Benchmark
import BenchmarkSupport
import CardGateway
import Foundation

// The building blocks of webhook checks (HMAC-SHA256 over a 2 KiB body, compared in constant time, with the
// signature carried as hex in a header) and of redaction (SafeText.scrub, CardGatewayError's safe description).

let benchmarks: @Sendable () -> Void = {
    // MARK: Signatures

    Benchmark("hmac/sign-2kib", configuration: fastConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(MessageAuthentication.hmacSHA256(key: Webhook.key, message: Webhook.body))
        }
    }

    Benchmark("hmac/verify-valid-2kib", configuration: fastConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            guard
                MessageAuthentication.verifyHMACSHA256(
                    signature: Webhook.signature, key: Webhook.key, message: Webhook.body)
            else {
                benchmark.error("a valid signature was refused")
                return
            }
        }
    }

    // A forged signature must take as long as a valid one, wherever it differs.
    for (label, signature) in [("first", Webhook.signatureWrongFirstByte), ("last", Webhook.signatureWrongLastByte)] {
        Benchmark("hmac/verify-wrong-\(label)-byte-2kib", configuration: fastConfiguration) { benchmark in
            for _ in benchmark.scaledIterations {
                guard
                    !MessageAuthentication.verifyHMACSHA256(
                        signature: signature, key: Webhook.key, message: Webhook.body)
                else {
                    benchmark.error("a forged signature was accepted")
                    return
                }
            }
        }
    }

    Benchmark("hmac/webhook-hex-header-verify-2kib", configuration: fastConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            guard let signature = ByteEncoding.decodeHex(Webhook.signatureHeader),
                MessageAuthentication.verifyHMACSHA256(signature: signature, key: Webhook.key, message: Webhook.body)
            else {
                benchmark.error("a valid webhook was refused")
                return
            }
        }
    }

    for (label, lhs, rhs) in [
        ("32b-equal", Webhook.signature, Webhook.signatureCopy),
        ("32b-differ-first", Webhook.signature, Webhook.signatureWrongFirstByte),
        ("32b-differ-last", Webhook.signature, Webhook.signatureWrongLastByte),
        ("2kib-equal", Webhook.body, Webhook.bodyCopy),
        ("2kib-differ-first", Webhook.body, Webhook.bodyWrongFirstByte),
    ] {
        Benchmark("constant-time/equals-\(label)", configuration: fastConfiguration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(ConstantTime.equals(lhs, rhs))
            }
        }
    }

    Benchmark("secret/equals-48-chars", configuration: fastConfiguration) { benchmark in
        let stored = Secret("sk_test_" + String(repeating: "4eC39HqLyjWDarjtT1zdp7dc", count: 2).prefix(40))
        let guess = Secret("sk_test_" + String(repeating: "4eC39HqLyjWDarjtT1zdp7dX", count: 2).prefix(40))
        for _ in benchmark.scaledIterations {
            blackHole(stored == guess)
        }
    }

    // MARK: Redaction

    // The issue's targets: ≤ 2 µs (raw units: ns per 1 000 calls); the malloc count is gated exactly.
    Benchmark(
        "safetext/scrub-provider-message",
        configuration: configuration(scalingFactor: .kilo, thresholds: targetThresholds(time: 2_000_000))
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(callgrindMeasured { SafeText.scrub(Redaction.providerMessage) })
        }
    }

    Benchmark("safetext/scrub-2kib", configuration: slowConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(callgrindMeasured { SafeText.scrub(Redaction.longText, maxLength: 2_000) })
        }
    }

    Benchmark(
        "error/init-description",
        configuration: configuration(scalingFactor: .kilo, thresholds: targetThresholds(time: 2_000_000))
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                callgrindMeasured {
                    CardGatewayError(
                        .declined, Redaction.providerMessage, provider: "eu-cards",
                        providerKind: ProviderKind("stripe"),
                        providerCode: "card_declined", httpStatus: 402, requestID: "req_8Hq2LfzX0a1b2c",
                        fieldErrors: Redaction.fieldErrors
                    ).description
                })
        }
    }

    Benchmark("error/description-prebuilt", configuration: fastConfiguration) { benchmark in
        let error = CardGatewayError(
            .rateLimited, "too many requests", provider: "us-cards", providerKind: ProviderKind("adyen"),
            providerCode: "429",
            httpStatus: 429, requestID: "req_42", retryAfter: .seconds(2), fieldErrors: Redaction.fieldErrors
        )
        for _ in benchmark.scaledIterations {
            blackHole(error.description)
        }
    }
}

/// For operations well under 10 µs: a sample is 1 000 calls.
var fastConfiguration: Benchmark.Configuration { configuration(scalingFactor: .kilo) }

/// For operations of tens of microseconds or more: a sample is one call.
var slowConfiguration: Benchmark.Configuration { configuration(scalingFactor: .one) }

func configuration(
    scalingFactor: BenchmarkScalingFactor, thresholds: [BenchmarkMetric: BenchmarkThresholds]? = nil
) -> Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 3,
        scalingFactor: scalingFactor,
        maxDuration: .milliseconds(600),
        maxIterations: 10_000,
        thresholds: thresholds ?? [
            .wallClock: .init(relative: [.p50: 100], absolute: [:]),
            .mallocCountTotal: .init(relative: [.p50: 5], absolute: [:]),
        ]
    ).callgrindAware
}

enum Webhook {
    static let key = Data("whsec_bench_5e0f0e0c5b0d4a2f9c1e7b3a8d6f4c2e".utf8)

    /// A 2 KiB JSON-ish event body.
    static let body: Data = {
        var text =
            #"{"id":"evt_1SimBenchmark","object":"event","type":"issuing_card.updated","data":{"object":{"id":"ic_1SimActiveEligible000000","last4":"4242","metadata":{"#
        var field = 0
        while text.utf8.count < 2_048 - 40 {
            text += #""k\#(field)":"value-\#(field)-abcdefghij","#
            field += 1
        }
        text += #""end":"1"}}}}"#
        var bytes = Array(text.utf8)
        bytes += Array(repeating: UInt8(ascii: " "), count: max(0, 2_048 - bytes.count))
        return Data(bytes.prefix(2_048))
    }()

    static let bodyCopy = Data(Array(body))
    static let bodyWrongFirstByte: Data = {
        var bytes = Array(body)
        bytes[0] ^= 1
        return Data(bytes)
    }()

    // Every signature is stored the same way (a Data made from an array), so that only the bytes differ.
    static let signature = Data(Array(MessageAuthentication.hmacSHA256(key: key, message: body)))
    static let signatureCopy = Data(Array(signature))
    static let signatureHeader = ByteEncoding.hex(signature)
    static let signatureWrongFirstByte: Data = {
        var bytes = Array(signature)
        bytes[0] ^= 1
        return Data(bytes)
    }()

    static let signatureWrongLastByte: Data = {
        var bytes = Array(signature)
        bytes[bytes.count - 1] ^= 1
        return Data(bytes)
    }()
}

enum Redaction {
    /// What a provider might send back: a card number, a secret key, a JWT and a long opaque blob among plain words.
    static let providerMessage =
        "Your card 4242 4242 4242 4242 was declined (card_declined); request made with key sk_test_4eC39HqLyjWDarjtT1zdp7dc, "
        + "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U; "
        + "PAN 5555555555554444; see https://support.example.com/declines for details."

    static let longText: String = {
        var text = ""
        while text.utf8.count < 2_048 { text += providerMessage + " " }
        return String(text.prefix(2_048))
    }()

    static let fieldErrors = [
        CardGatewayError.FieldError(field: "card.number", message: "4111111111111111 is not a valid card number"),
        CardGatewayError.FieldError(field: "card.expiry", message: "must be in the future"),
        CardGatewayError.FieldError(field: "amount", message: "must be greater than 0"),
    ]
}
