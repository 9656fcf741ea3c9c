import CardGateway
import Foundation

extension ProviderKind {
    /// Lithic (issuer processor, `https://api.lithic.com`).
    public static let lithic = ProviderKind("lithic")
}

extension ProviderFactory {
    /// Lithic: `registry.register(.lithic)`.
    ///
    /// - Environments: `sandbox` (`https://sandbox.lithic.com`, the `servers` entry of Lithic's OpenAPI document) and
    ///   `production` (`https://api.lithic.com`, the `lithic` client's `ENVIRONMENTS`).
    /// - Credentials: `apiKey` (required: sent as the whole `Authorization` header, the document's `ApiKeyAuth`),
    ///   `webhookSecret` (the event subscription's `whsec_…` secret, for the Standard Webhooks signature) and
    ///   `asaSecret` (the Auth Stream Access HMAC secret of `GET /v1/auth_stream/secret`, `whsec_…`, which signs
    ///   `card_authorization.approval_request`).
    /// - Options: `embedTargetOrigin` (``LithicOptions``), for card details and PIN setting.
    public static var lithic: ProviderFactory {
        ProviderFactory(
            kind: .lithic,
            descriptor: LithicProvider.descriptor,
            environments: LithicAPI.environments,
            credentials: [
                CredentialSpec("apiKey", required: true, summary: "Lithic API key (the Authorization header)"),
                CredentialSpec(
                    "webhookSecret", required: false,
                    summary: "the event subscription's secret (whsec_…), which signs webhook-signature"),
                CredentialSpec(
                    "asaSecret", required: false,
                    summary: "the Auth Stream Access HMAC secret (whsec_…, GET /v1/auth_stream/secret)"),
            ],
            options: LithicOptions.self,
            make: { setup, options in try LithicProvider(setup: setup, options: options) }
        )
    }
}

/// A Lithic instance's `options`.
public struct LithicOptions: ProviderOptions, Equatable {
    /// The HTTPS origin of the page that embeds Lithic's card and PIN frames (`target_origin` of
    /// `POST /v1/cards/{card_token}/embed`: "Canonical HTTPS origin … must not contain a path, query parameters,
    /// fragment, or credentials"). Required for card details and PIN setting; nil leaves them refused.
    public var embedTargetOrigin: String?

    enum CodingKeys: String, CodingKey { case embedTargetOrigin }

    public static let specs: [OptionSpec] = [
        OptionSpec(
            CodingKeys.embedTargetOrigin, type: .string,
            summary: "target_origin of Lithic's embed sessions: the https origin of the page showing the frames")
    ]

    public init(embedTargetOrigin: String? = nil) {
        self.embedTargetOrigin = embedTargetOrigin
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let origin = try container.decodeIfPresent(String.self, forKey: .embedTargetOrigin)
        if let origin, !Self.isOrigin(origin) {
            throw DecodingError.dataCorruptedError(
                forKey: .embedTargetOrigin, in: container,
                debugDescription: "must be an https origin without path, query, fragment or credentials")
        }
        embedTargetOrigin = origin
    }

    /// `https://host[:port]`, nothing more.
    static func isOrigin(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), components.scheme == "https",
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil,
            components.path.isEmpty, components.query == nil, components.fragment == nil
        else { return false }
        return true
    }
}
