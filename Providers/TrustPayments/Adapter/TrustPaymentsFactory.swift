import CardGateway
import Foundation

extension ProviderKind {
    /// Trust Payments (formerly Secure Trading): cards on file through the mobile SDK's JWT and the Webservices
    /// JSON API.
    public static let trustpayments = ProviderKind("trustpayments")
}

extension ProviderFactory {
    /// Registers Trust Payments: `registry.register(.trustpayments)`.
    ///
    /// Configuration:
    /// - `kind`: `"trustpayments"`.
    /// - `environment`: `sandbox` or `live` (EU, `https://webservices.securetrading.net`), `sandbox-us` or
    ///   `live-us` (US, `https://webservices.securetrading.us`). Test and live differ by site reference and
    ///   credentials, not by host.
    /// - `credentials`: `webservicesUsername`, `webservicesPassword` (the Webservices user made in MyST, used for
    ///   HTTP Basic auth and as `alias`), `jwtUsername`, `jwtSecret` (the "Webservices JWT" user).
    /// - `options`: `siteReference` (required), `jwtMaxAgeSeconds` (optional, default 900: the oldest response
    ///   JWT accepted).
    public static var trustpayments: ProviderFactory {
        ProviderFactory(
            kind: .trustpayments,
            descriptor: TrustPaymentsProvider.staticDescriptor,
            environments: [
                "sandbox": TrustPaymentsAPI.euHost,
                "live": TrustPaymentsAPI.euHost,
                "sandbox-us": TrustPaymentsAPI.usHost,
                "live-us": TrustPaymentsAPI.usHost,
            ],
            credentials: [
                CredentialSpec("webservicesUsername", summary: "Webservices user (HTTP Basic username and alias)"),
                CredentialSpec("webservicesPassword", summary: "Webservices user's password"),
                CredentialSpec("jwtUsername", summary: "Webservices JWT user: iss of minted JWTs, aud of response JWTs"),
                CredentialSpec("jwtSecret", summary: "Webservices JWT user's secret (HS256 key)"),
            ],
            options: [
                OptionSpec("siteReference", type: .string, required: true, summary: "The site reference (test sites start with test_)"),
                OptionSpec("jwtMaxAgeSeconds", type: .integer, summary: "The oldest response JWT accepted, in seconds (default 900)"),
            ],
            // The official Python client waits up to 60 s for a response.
            defaultTimeout: .seconds(60),
            make: { setup in try TrustPaymentsProvider(setup: setup) }
        )
    }
}
