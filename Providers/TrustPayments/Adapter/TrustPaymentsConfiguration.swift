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
                CredentialSpec(
                    "jwtUsername", summary: "Webservices JWT user: iss of minted JWTs, aud of response JWTs"),
                CredentialSpec("jwtSecret", summary: "Webservices JWT user's secret (HS256 key)"),
            ],
            options: TrustPaymentsOptions.self,
            // The official Python client waits up to 60 s for a response.
            defaultTimeout: .seconds(60),
            make: { setup, _ in try TrustPaymentsProvider(setup: setup) }
        )
    }
}

/// A Trust Payments instance's `options`, decoded once when the configuration loads.
public struct TrustPaymentsOptions: ProviderOptions, Equatable {
    /// The site reference (`sitereference`; test sites start with `test_`).
    public var siteReference: String
    /// The oldest response JWT accepted, in seconds (default 900).
    public var jwtMaxAgeSeconds: Int

    enum CodingKeys: String, CodingKey { case siteReference, jwtMaxAgeSeconds }

    public static let specs: [OptionSpec] = [
        OptionSpec(
            CodingKeys.siteReference, type: .string, required: true,
            summary: "The site reference (test sites start with test_)"),
        OptionSpec(
            CodingKeys.jwtMaxAgeSeconds, type: .integer,
            summary: "The oldest response JWT accepted, in seconds (default 900)"),
    ]

    public init(siteReference: String, jwtMaxAgeSeconds: Int = 900) {
        self.siteReference = siteReference
        self.jwtMaxAgeSeconds = jwtMaxAgeSeconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        siteReference = try container.decode(String.self, forKey: .siteReference)
        if siteReference.isEmpty {
            throw DecodingError.dataCorruptedError(
                forKey: .siteReference, in: container, debugDescription: "is required")
        }
        jwtMaxAgeSeconds = try container.decodeIfPresent(Int.self, forKey: .jwtMaxAgeSeconds) ?? 900
        if jwtMaxAgeSeconds <= 0 {
            throw DecodingError.dataCorruptedError(
                forKey: .jwtMaxAgeSeconds, in: container, debugDescription: "must be greater than 0")
        }
    }
}
