@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes
import Logging

/// Cards on file with Trust Payments.
///
/// - ``clientSession(_:context:)`` mints the HS256 JWT the mobile SDK takes: store a card with the cardholder's
///   consent (`credentialsonfile` 1), or pay with a stored one where the app collects only the security code
///   (`credentialsonfile` 2 with `parenttransactionreference`).
/// - ``verifyResult(_:context:)`` checks the response JWT (signature, audience, age) before trusting any field,
///   checks every element of its `response`, and keeps the reference in the credential store.
/// - ``charge(_:context:)`` takes a merchant-initiated payment through the Webservices JSON API. It is never
///   repeated once it may have reached the gateway.
///
/// Apple Pay and Google Pay sessions are refused: Trust Payments documents that Apple Pay does not support
/// tokenization by transaction reference, and documents nothing for Google Pay.
public struct TrustPaymentsProvider: StoredCredentials {
    /// What every Trust Payments instance can do: stored credentials, nothing else.
    public static let staticDescriptor = ProviderDescriptor(kind: .trustpayments, capabilities: [.storedCredentials])

    /// Stored credentials only: no card look-up, no wallet provisioning, no webhooks.
    public var descriptor: ProviderDescriptor { Self.staticDescriptor }

    let setup: ProviderSetup
    /// The instance's client, with the Webservices user's HTTP Basic authentication.
    let http: ProviderHTTPClient
    let webservicesUsername: Secret
    let jwtUsername: Secret
    let jwtSecret: Secret
    /// The configured site reference (`sitereference`).
    public let siteReference: String
    /// The oldest response JWT accepted.
    public let jwtMaxAge: TimeInterval
    let makeRequestReference: @Sendable () -> String

    /// Builds the adapter from a provider setup (the gateway does this from configuration; tests do it with
    /// `ProviderHTTPClient.testing`). Throws `invalidConfiguration` for a missing credential or option.
    public init(setup: ProviderSetup) throws {
        try self.init(setup: setup, requestReference: { TrustPaymentsProvider.randomRequestReference() })
    }

    /// As ``init(setup:)``, with the generator of `requestreference` values (the official client sends `A` and
    /// eight random characters).
    public init(setup: ProviderSetup, requestReference: @escaping @Sendable () -> String) throws {
        self.setup = setup
        webservicesUsername = try setup.credential("webservicesUsername")
        let webservicesPassword = try setup.credential("webservicesPassword")
        jwtUsername = try setup.credential("jwtUsername")
        jwtSecret = try setup.credential("jwtSecret")
        var problems: [String] = []
        if webservicesUsername.isEmpty { problems.append("credentials.webservicesUsername must not be empty") }
        if jwtUsername.isEmpty { problems.append("credentials.jwtUsername must not be empty") }
        if jwtSecret.isEmpty { problems.append("credentials.jwtSecret must not be empty") }
        var options: TrustPaymentsOptions?
        do { options = try setup.options(TrustPaymentsOptions.self) } catch let error as CardGatewayError {
            problems += error.fieldErrors.map { "\($0.field) \($0.message)" }
        }
        if !problems.isEmpty {
            throw CardGatewayError(
                .invalidConfiguration, "providers.\(setup.instance): " + problems.joined(separator: "; "),
                provider: setup.instance, providerKind: .trustpayments
            )
        }
        http = setup.http.authenticated(
            by: HeaderAuthentication.basic(username: webservicesUsername, password: webservicesPassword))
        guard let options else {
            throw CardGatewayError(
                .invalidConfiguration, "providers.\(setup.instance).options cannot be read", provider: setup.instance)
        }
        siteReference = options.siteReference
        jwtMaxAge = TimeInterval(options.jwtMaxAgeSeconds)
        makeRequestReference = requestReference
    }

    /// `A` and eight random lower-case letters and digits, like the official client's `requestreference`.
    static func randomRequestReference() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return "A" + String((1...8).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] })
    }
}
