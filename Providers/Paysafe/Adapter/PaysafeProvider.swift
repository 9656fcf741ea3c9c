@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes
import Logging

/// The Paysafe Embedded Wallets adapter: the prepaid card service of the business (B2B) API, Apple Pay and
/// Google Pay provisioning by encrypted payload, SCA challenges, secure card-details links and the card status and
/// card token webhooks.
///
/// No PIN change: Paysafe's business update page says "Pin change is an unavailable action for Business APIs", so
/// `cardPIN` is not declared and an update carrying a PIN is refused with `unsupported` before any request.
///
/// Every business call carries an OAuth bearer token from the brand's token endpoint, cached until shortly
/// before it expires; concurrent callers share one token request, and a plain 401 (not an SCA challenge)
/// replaces the token once. Writes carry no idempotency key (Paysafe documents none), so they are never
/// repeated once they may have reached Paysafe; reads are retried as the instance's policy allows.
public struct PaysafeProvider: CardListing, CardIssuance, CardActivation, CardStatusControl, CardPrograms,
    WalletTokenListing, WalletProvisioning, WebhookVerifying
{
    /// What every Paysafe instance can do: the card service but its PIN change (unavailable on the business API).
    public static let providerDescriptor = ProviderDescriptor(
        kind: .paysafe,
        capabilities: Capability.cardService.subtracting([.cardPIN]).union([
            .cardLookup, .walletTokenListing, .walletProvisioning, .webhooks, .cardDetailsReveal,
        ]),
        provisioningFlows: [.applePay: .encryptedPayload, .googlePay: .encryptedPayload],
        revealFlows: [.cardDetails: .secureLink]
    )

    public var descriptor: ProviderDescriptor { Self.providerDescriptor }

    public let configuration: PaysafeConfiguration
    /// The instance's client with the bearer token, and the plumbing of every call (``PaysafeErrors`` for its
    /// errors).
    let calls: ProviderCalls
    var http: ProviderHTTPClient { calls.http }
    let now: @Sendable () -> Date
    let tokens: PaysafeTokenCache
    /// The decoded HMAC key of request signatures, when ``PaysafeConfiguration/signedRequests`` names any write.
    let requestSigningKey: SensitiveData?

    /// Builds the adapter from configuration (what `ProviderFactory.paysafe` does).
    public init(setup: ProviderSetup) throws {
        try self.init(configuration: PaysafeConfiguration(setup: setup), http: setup.http, now: setup.now)
    }

    /// Builds the adapter from configuration with its options already decoded.
    public init(setup: ProviderSetup, options: PaysafeOptions) throws {
        try self.init(
            configuration: PaysafeConfiguration(setup: setup, options: options), http: setup.http, now: setup.now)
    }

    /// Builds the adapter from explicit settings.
    @_spi(AdapterSupport) public init(
        configuration: PaysafeConfiguration, http: ProviderHTTPClient, now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        guard !configuration.brand.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CardGatewayError(
                .invalidConfiguration, "the Paysafe brand identity is required", provider: http.instance,
                providerKind: .paysafe)
        }
        guard configuration.userAgent.count <= PaysafeOptions.userAgentMaxLength else {
            throw CardGatewayError(
                .invalidConfiguration,
                "the Paysafe userAgent must be at most \(PaysafeOptions.userAgentMaxLength) characters (Paysafe's limit)",
                provider: http.instance, providerKind: .paysafe)
        }
        if configuration.signedRequests.isEmpty {
            requestSigningKey = nil
        } else {
            guard let secret = configuration.requestSigningSecret, !secret.isEmpty else {
                throw CardGatewayError(
                    .invalidConfiguration,
                    "providers.\(http.instance).credentials.requestSigningSecret is required by options.signRequests: paste Paysafe's HMAC secret key (Base64 text) as given",
                    provider: http.instance, providerKind: .paysafe)
            }
            requestSigningKey = SensitiveData(
                try PaysafeSignature.key(secret, credential: "requestSigningSecret", instance: http.instance))
        }
        self.configuration = configuration
        self.now = now
        // The token request authenticates itself (client credentials), so it goes out on the client without
        // the bearer middleware; every business call gets the bearer token from the shared cache.
        let tokenClient = http.unauthenticated
        let tokens = PaysafeTokenCache(now: now) { [configuration, now] context in
            try await PaysafeProvider.issueToken(
                http: tokenClient, configuration: configuration, now: now, context: context)
        }
        self.tokens = tokens
        self.calls = ProviderCalls(
            http.authenticated(by: PaysafeAuthentication(tokens: tokens)), provider: "Paysafe", kind: .paysafe,
            requestID: { PaysafeErrors.requestID($0.headers) },
            errors: { [instance = http.instance] response, request in
                // Paysafe writes carry no idempotency key (`.never`): after a 5xx the write may have happened, so it
                // must be looked up, not repeated.
                PaysafeErrors.error(for: response, operation: request.operation, instance: instance)
                    .answering(request)
            })
    }

    // MARK: Card service

    /// `"scaDetails"` (with its quotes), searched for in every successful answer.
    static let scaDetailsMarker = Array("\"scaDetails\"".utf8)

    /// Whether the body holds ``scaDetailsMarker``: a plain scan of a copy of its bytes. Foundation's
    /// `Data.firstRange(of:)` reads the bytes one by one through the generic `DataProtocol` path: 35 % of a Paysafe
    /// card read (`gateway/paysafe/card`, `PROBE_TIME=1 CallgrindProbe`: 87 µs a call before, 46 with a scan), and on
    /// a 2.5 KB answer 195 µs against 2 µs for this scan (`swiftc -O`, 200,000 scans).
    static func mentionsSCADetails(_ body: Data) -> Bool {
        let marker = scaDetailsMarker
        let bytes = Array(body)
        guard bytes.count >= marker.count else { return false }
        for start in 0...(bytes.count - marker.count) where bytes[start] == marker[0] {
            if bytes[start..<(start + marker.count)].elementsEqual(marker) { return true }
        }
        return false
    }

    public func card(_ ref: CardRef, context: OperationContext) async throws -> Card {
        var problems = ValidationProblems()
        PaysafeValidation.cardID(ref.id, field: "card.id", into: &problems)
        PaysafeValidation.customer(ref.customer, field: "card.customer", into: &problems)
        try problems.throwIfAny()
        return try await fetchCard(ref, context: context, primary: true)
    }

    // MARK: Plumbing

    func fetchCard(_ ref: CardRef, context: OperationContext, primary: Bool) async throws -> Card {
        let customer = ref.customer ?? ""
        let response = try await perform(
            PaysafeCall(
                .get, PaysafeAPI.card(customer: customer, card: ref.id), query: [("include", PaysafeAPI.includeAll)],
                operation: "get a card", sendsSCA: primary),
            context: context
        )
        return PaysafeMapping.card(
            try calls.decode(PaysafeWireCard.self, from: response, what: "card"), customer: customer)
    }

    /// The card in a write's answer, or the card fetched again when the answer has no body.
    func cardFromWriteResponse(
        _ response: ProviderResponse, ref: CardRef, what: String, context: OperationContext
    ) async throws -> Card {
        if response.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            return try await fetchCard(ref, context: context, primary: false)
        }
        return PaysafeMapping.card(
            try calls.decode(PaysafeWireCard.self, from: response, what: what), customer: ref.customer)
    }

    /// Sends one business call (with the solved SCA, when the call is the operation's main request); the bearer
    /// token and its one replacement after a plain 401 are ``PaysafeAuthentication``'s. An SCA 401 becomes
    /// `scaRequired`.
    func perform(_ call: PaysafeCall, context: OperationContext) async throws -> ProviderResponse {
        let sca = call.sendsSCA ? context.sca : nil
        var request = call.request(sca: sca)
        if let operation = call.signing, let key = requestSigningKey,
            configuration.signedRequests.contains(operation)
        {
            // The body as sent, or the URL path when there is none (request-signing page).
            request.headers[PaysafeAPI.requestSignatureHeader] = PaysafeSignature.sign(
                call.body ?? Data(call.path.utf8), key: key.revealedBytes)
        }
        let response = try await http.send(request, context: context)
        if response.status == 401,
            let challenge = try PaysafeSCA.challenge(in: response) ?? PaysafeSCA.challenge(inBody: response.body)
        {
            throw PaysafeSCA.error(
                challenge, status: response.status, headers: response.headers, instance: http.instance)
        }
        guard response.isSuccess else { throw calls.error(for: response, answering: request) }
        if Self.mentionsSCADetails(response.body), let challenge = PaysafeSCA.challenge(inBody: response.body) {
            throw PaysafeSCA.error(
                challenge, status: response.status, headers: response.headers, instance: http.instance)
        }
        return response
    }

    /// `POST /digitalwallets/v1/auth/brands/{brand}/token` with client credentials.
    static func issueToken(
        http: ProviderHTTPClient, configuration: PaysafeConfiguration, now: @Sendable () -> Date,
        context: OperationContext = OperationContext()
    ) async throws -> PaysafeAccessToken {
        var headers = HTTPFields()
        headers[.authorization] = HeaderAuthentication.basicValue(
            username: configuration.clientID.revealedValue, password: configuration.clientSecret.revealedValue)
        headers[.contentType] = "application/x-www-form-urlencoded"
        // Issuing a token changes nothing at Paysafe, so the request may be repeated like a read.
        let request = ProviderRequest(
            .post, PaysafeAPI.token(brand: configuration.brand), headers: headers,
            body: URLEncoding.formBody([("grant_type", "client_credentials")]), repeatability: .safe,
            operation: "issue an access token"
        )
        let issuedAt = now()
        let response = try await http.send(request, context: context)
        guard response.isSuccess else {
            var error = PaysafeErrors.error(
                for: response, operation: "issue an access token", instance: http.instance)
            if response.status == 400 || response.status == 401 {
                error.code = .authenticationFailed
                error.message =
                    "Paysafe refused the client credentials for brand \(SafeText.scrub(configuration.brand, maxLength: 60)) (HTTP \(response.status))"
            }
            throw error
        }
        guard let wire = try? JSONDecoder().decode(PaysafeWireToken.self, from: response.body),
            !wire.accessToken.isEmpty
        else {
            throw CardGatewayError(
                .invalidResponse, "Paysafe's token answer has no access_token", provider: http.instance,
                providerKind: .paysafe,
                httpStatus: response.status, requestID: PaysafeErrors.requestID(response.headers),
                mayHaveReachedProvider: true
            )
        }
        let lifetime = TimeInterval(max(0, wire.expiresIn?.value ?? 0))
        let margin = min(configuration.tokenRefreshMargin, lifetime / 2)
        return PaysafeAccessToken(
            value: Secret(wire.accessToken), refreshAt: issuedAt.addingTimeInterval(lifetime - margin))
    }

    /// One encoder for every request body.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    func encode(_ value: some Encodable) throws -> Data {
        do { return try Self.encoder.encode(value) } catch {
            throw CardGatewayError.invalidRequest("the request could not be encoded")
        }
    }
}
