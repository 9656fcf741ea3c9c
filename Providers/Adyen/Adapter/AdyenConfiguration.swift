import CardGateway
import Foundation
import HTTPTypes
import Logging

extension ProviderKind {
    /// Adyen Balance Platform (Configuration API v2).
    public static let adyen = ProviderKind("adyen")
}

extension ProviderFactory {
    /// Adyen Balance Platform: `registry.register(.adyen)`.
    ///
    /// Configuration: `"kind": "adyen"`, `"environment"`: `sandbox` or `test` (Adyen's test platform) or `live`;
    /// credentials `apiKey` (required, sent as `X-API-Key`), `hmacKey` (optional: the hex HMAC key of the
    /// Balance Platform webhook endpoint, needed to verify webhooks), and `authorizationUsername` /
    /// `authorizationPassword` (optional, together: the HTTP Basic credentials set for the relayed authorisation
    /// webhook, needed to answer real-time authorizations). No options.
    public static var adyen: ProviderFactory {
        ProviderFactory(
            kind: .adyen,
            descriptor: AdyenProvider.descriptor,
            environments: AdyenAPI.environments,
            credentials: [
                CredentialSpec("apiKey", required: true, summary: "Balance Platform API key (X-API-Key)"),
                CredentialSpec(
                    "hmacKey", required: false, summary: "hex HMAC key of the Balance Platform webhook endpoint"),
                CredentialSpec(
                    "authorizationUsername", required: false,
                    summary: "HTTP Basic user name of the relayed authorisation webhook"),
                CredentialSpec(
                    "authorizationPassword", required: false,
                    summary: "HTTP Basic password of the relayed authorisation webhook"),
            ],
            options: [],
            make: { setup in try AdyenProvider(setup: setup) }
        )
    }
}
