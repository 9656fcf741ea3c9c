import CardGateway
import CardGatewayAdyen
import CardGatewayBridge
import CardGatewayFuzzSupport
import CardGatewayLithic
import CardGatewayMarqeta
import CardGatewayPaysafe
import CardGatewayStripe
import CardGatewayTrustPayments
import Foundation

/// Fuzzes the configuration loader: `GatewayConfiguration.load(from:registry:secrets:)` with all six adapters
/// registered, then, for a document that loads, every adapter's own checks (`CardGateway.problems(in:registry:)`,
/// which builds each instance and sends nothing). Secrets resolve from a fixed in-memory environment and file
/// set: the harness reads no real environment variable or file.
public enum ConfigurationHarness {
    static let registry = ProviderRegistry([.paysafe, .adyen, .stripe, .bridge, .trustpayments, .marqeta, .lithic])

    /// `env:FUZZ_SECRET`, `env:STRIPE_KEY`, `file:fuzz-secret` resolve; every other reference does not.
    static let secrets = SecretResolver(
        environment: ["FUZZ_SECRET": "fuzz-secret-value", "STRIPE_KEY": "sk_test_FuzzHarness0000000", "EMPTY": ""],
        baseDirectory: URL(fileURLWithPath: "/nonexistent-fuzz-configuration"),
        readFile: { url in
            guard url.lastPathComponent == "fuzz-secret" else { throw FuzzNoSuchFile() }
            return Data("fuzz-file-secret\r\n".utf8)
        }
    )

    public static func run(_ data: Data) {
        guard let configuration = try? GatewayConfiguration.load(from: data, registry: registry, secrets: secrets)
        else { return }
        _ = CardGateway.problems(in: configuration, registry: registry)
    }
}
