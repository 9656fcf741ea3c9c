import CardGateway
import CardGatewayAdyen
import CardGatewayBridge
import CardGatewayLithic
import CardGatewayMarqeta
import CardGatewayPaysafe
import CardGatewayStripe
import CardGatewayTrustPayments

/// The adapters the example programs know: all six in this repository.
///
/// A service of your own registers only the adapters it links, the same way:
/// `var registry = ProviderRegistry(); registry.register(.stripe)`.
public enum ExampleRegistry: Sendable {
    public static let all = ProviderRegistry([.paysafe, .adyen, .stripe, .bridge, .trustpayments, .marqeta, .lithic])
}
