@_spi(AdapterSupport) import CardGateway
import Foundation

/// How a Stripe instance is set up: the keys and the options the factory reads from configuration
/// (`credentials.secretKey`, `credentials.webhookSecret`, `credentials.previousWebhookSecret`,
/// `credentials.authorizationWebhookSecret`, `options.stripeAccount`, `options.apiVersion`).
public struct StripeConfiguration: Sendable, CustomStringConvertible {
    /// `sk_live_…`/`sk_test_…` (or a restricted `rk_…` key), sent as `Authorization: Bearer`.
    public var secretKey: Secret
    /// The endpoint's signing secret (`whsec_…`). Without one, webhooks are refused as misconfigured.
    public var webhookSecret: Secret?
    /// The secret being rolled away from; signatures by either secret are accepted while both are set.
    public var previousWebhookSecret: Secret?
    /// The signing secret (`whsec_…`) of the synchronous endpoint that answers `issuing_authorization.request`
    /// (real-time authorizations): its own secret, not the ordinary webhook endpoint's. Without one, authorization
    /// requests are refused as misconfigured.
    public var authorizationWebhookSecret: Secret?
    /// A connected account (`acct_…`), sent as `Stripe-Account` on every request.
    public var stripeAccount: String?
    /// The `Stripe-Version` for ordinary calls; nil uses the account's default. Never used for ephemeral keys,
    /// which always carry the version the mobile SDK asked for.
    public var apiVersion: String?
    /// How far a webhook's signed timestamp may be from now, either way.
    public var webhookTolerance: TimeInterval

    public init(
        secretKey: Secret, webhookSecret: Secret? = nil, previousWebhookSecret: Secret? = nil,
        authorizationWebhookSecret: Secret? = nil, stripeAccount: String? = nil,
        apiVersion: String? = nil, webhookTolerance: TimeInterval = 300
    ) {
        self.secretKey = secretKey
        self.webhookSecret = webhookSecret
        self.previousWebhookSecret = previousWebhookSecret
        self.authorizationWebhookSecret = authorizationWebhookSecret
        self.stripeAccount = stripeAccount
        self.apiVersion = apiVersion
        self.webhookTolerance = webhookTolerance
    }

    /// True for a live-mode key, false for a test-mode key, nil when the key does not say.
    public var isLiveMode: Bool? {
        let key = secretKey.revealedValue
        if key.hasPrefix("sk_live_") || key.hasPrefix("rk_live_") { return true }
        if key.hasPrefix("sk_test_") || key.hasPrefix("rk_test_") { return false }
        return nil
    }

    /// Every problem with this configuration for `environment` ("sandbox" or "live"; nil when a base URL
    /// override is used), each naming its configuration key. Never contains a secret.
    public func problems(environment: String?) -> [CardGatewayError.FieldError] {
        var problems = ValidationProblems()
        let key = secretKey.revealedValue
        if key.hasPrefix("pk_") {
            problems.add(
                "credentials.secretKey",
                "is a publishable key (pk_…); the server needs a secret key (sk_…) or a restricted key (rk_…)")
        } else if !(key.hasPrefix("sk_") || key.hasPrefix("rk_")) || key.count < 8 {
            problems.add(
                "credentials.secretKey", "must be a Stripe secret key (sk_live_…, sk_test_…) or restricted key (rk_…)")
        } else if let live = isLiveMode {
            if live && environment == "sandbox" {
                problems.add(
                    "credentials.secretKey", "is a live-mode key but the environment is sandbox; use an sk_test_ key")
            } else if !live && environment == "live" {
                problems.add(
                    "credentials.secretKey", "is a test-mode key but the environment is live; use an sk_live_ key")
            }
        }
        for (name, secret) in [
            ("webhookSecret", webhookSecret), ("previousWebhookSecret", previousWebhookSecret),
            ("authorizationWebhookSecret", authorizationWebhookSecret),
        ] {
            if let secret, !secret.revealedValue.hasPrefix("whsec_") {
                problems.add("credentials.\(name)", "must be a webhook signing secret (whsec_…)")
            }
        }
        if let stripeAccount,
            !stripeAccount.hasPrefix("acct_") || stripeAccount.count < 6
                || stripeAccount.contains(where: { $0.isWhitespace })
        {
            problems.add("options.stripeAccount", "must be a connected account id (acct_…)")
        }
        if let apiVersion, !StripeAPIVersion.isValid(apiVersion) {
            problems.add("options.apiVersion", "must be a Stripe API version such as 2024-06-20 or 2025-03-31.basil")
        }
        if !(webhookTolerance > 0 && webhookTolerance.isFinite) {
            problems.add("webhookTolerance", "must be a positive number of seconds")
        }
        return problems.errors
    }

    public var description: String {
        "StripeConfiguration(secretKey: <redacted>, webhookSecret: \(webhookSecret == nil ? "none" : "<redacted>"), authorizationWebhookSecret: \(authorizationWebhookSecret == nil ? "none" : "<redacted>"), stripeAccount: \(stripeAccount ?? "none"), apiVersion: \(apiVersion ?? "account default"))"
    }
}

extension ProviderKind {
    /// Stripe Issuing.
    public static let stripe = ProviderKind("stripe")
}

extension ProviderFactory {
    /// Stripe Issuing: register with `registry.register(.stripe)`.
    ///
    /// Configuration: `"kind": "stripe"`, `"environment": "sandbox"` or `"live"` (both https://api.stripe.com;
    /// the key decides the mode, and a key of the other mode is refused), credentials `secretKey` (required),
    /// `webhookSecret` and `previousWebhookSecret` (optional, `whsec_…`), `authorizationWebhookSecret` (optional, the
    /// real-time authorization endpoint's own `whsec_…`), options `stripeAccount` (`acct_…`, for
    /// Connect) and `apiVersion` (the `Stripe-Version` of ordinary calls).
    public static var stripe: ProviderFactory {
        ProviderFactory(
            kind: .stripe,
            descriptor: StripeProvider.descriptor,
            environments: ["sandbox": StripeAPI.baseURL, "live": StripeAPI.baseURL],
            credentials: [
                CredentialSpec(
                    "secretKey", required: true, summary: "secret key sk_live_…/sk_test_… (or restricted rk_…)"),
                CredentialSpec("webhookSecret", required: false, summary: "webhook endpoint signing secret whsec_…"),
                CredentialSpec(
                    "previousWebhookSecret", required: false, summary: "the previous whsec_… while a secret is rolled"),
                CredentialSpec(
                    "authorizationWebhookSecret", required: false,
                    summary:
                        "signing secret whsec_… of the real-time authorization endpoint (issuing_authorization.request)"
                ),
            ],
            options: StripeOptions.self,
            make: { setup, options in try StripeProvider(setup: setup, options: options) }
        )
    }
}

/// A Stripe instance's `options`, decoded once when the configuration loads.
public struct StripeOptions: ProviderOptions, Equatable {
    /// The connected account (`acct_…`) sent as `Stripe-Account`, for Connect.
    public var stripeAccount: String?
    /// The `Stripe-Version` of ordinary calls (never of ephemeral keys, which take the SDK's).
    public var apiVersion: String?

    enum CodingKeys: String, CodingKey { case stripeAccount, apiVersion }

    public static let specs: [OptionSpec] = [
        OptionSpec(CodingKeys.stripeAccount, type: .string, summary: "connected account acct_… sent as Stripe-Account"),
        OptionSpec(
            CodingKeys.apiVersion, type: .string,
            summary: "Stripe-Version for ordinary calls (never for ephemeral keys)"),
    ]

    public init(stripeAccount: String? = nil, apiVersion: String? = nil) {
        self.stripeAccount = stripeAccount
        self.apiVersion = apiVersion
    }
}
