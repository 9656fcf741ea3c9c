import CardGateway
import Foundation
import HTTPTypes
import Logging

// Card details, PIN reveal and PIN change for the signed-in user's own cards (docs/CARD_REVEAL.md, "Server").
//
// The clear number, CVC and PIN never pass through this server: it relays what the app supplied (a nonce, an
// encrypted session key) to the card's provider and hands back what the app needs (an ephemeral key, data only the
// app can decrypt, a client access token, a single-use link). Around the gateway's two steps the routes add what a
// bank's security review asks of them: the user's own cards only (the same 404 for a foreign card as for an unknown
// one), `Cache-Control: no-store` (as on every authenticated route), a rate limit of their own per user, an audit
// line for each session attempt (who, which card, which purpose, when, the outcome; never the material), and,
// optionally, a recent sign-in (the bearer JWT's `auth_time`).

/// The reveal routes' own limits.
public struct CardRevealPolicy: Sendable, Equatable {
    /// Reveal calls (offers and sessions) a minute one user may make, on top of the server's per-user limit. 0 turns
    /// the limit off.
    public var rateLimitPerUser: Int
    /// When set, the reveal routes need a sign-in no older than this: the authenticator must report when the user
    /// signed in (``JWTBearerAuthenticator`` reads the token's `auth_time` claim), and a token without it, or with an
    /// older one, is answered 401 (`recentSignInRequired`, with `WWW-Authenticate: Bearer
    /// error="insufficient_user_authentication", max_age=…` as RFC 9470 states it). The directory's static tokens
    /// carry no sign-in time, so with them every reveal is refused: set it with JWT authentication only.
    public var maxAuthenticationAge: Duration?

    /// - Parameters:
    ///   - rateLimitPerUser: reveal calls a minute per user; 10 by default, 0 for none.
    ///   - maxAuthenticationAge: the oldest sign-in accepted; nil (no requirement) by default.
    public init(rateLimitPerUser: Int = 10, maxAuthenticationAge: Duration? = nil) {
        self.rateLimitPerUser = rateLimitPerUser
        self.maxAuthenticationAge = maxAuthenticationAge
    }

    /// A sign-in time up to this far in the future (clock skew between the identity provider and the server) counts
    /// as now; further is refused.
    static let futureLeeway: TimeInterval = 60
}

extension ProvisioningAPI {
    func revealOffer(_ input: Operations.RevealOffer.Input) async throws -> Operations.RevealOffer.Output {
        let scope = try RequestScope.required()
        let user = try scope.authenticatedUser()
        try await server.requireRecentSignIn(scope, user: user)
        try server.spendRevealAllowance(of: user)
        let owned = try await server.ownedCard(input.path.cardId, of: user)
        let purpose = try CardRevealWire.purpose(input.query.purpose)
        let context = try scope.operationContext()
        try requireOffered(purpose.operation, for: owned)
        let offer = try await gateway.revealOffer(for: owned.ref, purpose: purpose, via: owned.route, context: context)
        return .ok(.init(body: .json(try CardRevealWire.offer(cardID: owned.id, offer))))
    }

    func revealSession(_ input: Operations.RevealSession.Input) async throws -> Operations.RevealSession.Output {
        let scope = try RequestScope.required()
        let user = try scope.authenticatedUser()
        let audit = CardRevealAudit(
            logger: scope.logger, user: user, cardID: input.path.cardId, purpose: input.path.purpose.rawValue,
            at: server.now())
        do {
            try await server.requireRecentSignIn(scope, user: user)
            try server.spendRevealAllowance(of: user)
            let owned = try await server.ownedCard(input.path.cardId, of: user)
            let purpose = try CardRevealWire.purpose(input.path.purpose)
            guard case .json(let body) = input.body else { throw APIProblem.unsupportedMediaType() }
            let request = try CardRevealWire.request(from: body, card: owned.ref, purpose: purpose)
            let context = try scope.operationContext()
            try requireOffered(purpose.operation, for: owned)
            // The flow the card's provider declares, read from its descriptor: what the body must carry is checked
            // here, naming the document's fields, before the gateway (which checks again) asks anyone.
            let instance = try gateway.resolve(owned.route, operation: purpose.operation)
            if let flow = instance.descriptor.revealFlows[purpose] {
                let problems = request.problems(in: flow).errors.map {
                    FieldProblem(field: CardRevealWire.field($0.field), message: $0.message)
                }
                if !problems.isEmpty {
                    var checks = FieldChecks()
                    for problem in problems { checks.refuse(problem.field, problem.message) }
                    try checks.finish()
                }
            }
            let session = try await gateway.revealSession(request, via: owned.route, context: context)
            audit.record(
                outcome: "issued", provider: session.provider, flow: session.flow.rawValue, kind: session.material.kind)
            return .ok(.init(body: .json(try CardRevealWire.session(cardID: owned.id, session))))
        } catch {
            audit.record(outcome: "refused", error: RequestScopeMiddleware.cause(of: error))
            throw error
        }
    }
}

extension ProvisioningServer {
    /// Spends one of the user's reveal calls; 429 past the reveal limit.
    func spendRevealAllowance(of user: AppUser) throws {
        if let revealRateLimiter, let wait = revealRateLimiter.spend(user.id) {
            throw APIProblem.rateLimited(retryAfter: wait, scope: "user for card details and PIN")
        }
    }

    /// With ``CardRevealPolicy/maxAuthenticationAge`` set: the request's bearer token must say the user signed in
    /// within it (read again from the authenticator, which verified the same token for this request).
    func requireRecentSignIn(_ scope: RequestScope, user: AppUser) async throws {
        guard let maxAge = configuration.cardReveal.maxAuthenticationAge else { return }
        guard let header = scope.request.headerFields[.authorization] else {
            throw APIProblem.unauthenticated(invalidToken: false)
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIProblem.unauthenticated(invalidToken: false)
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard let authentication = try await authenticator.authentication(forBearerToken: token),
            authentication.user.id == user.id
        else {
            throw APIProblem.unauthenticated(invalidToken: true)
        }
        let age = now().timeIntervalSince(authentication.authenticatedAt ?? .distantPast)
        guard age <= RateLimiter.seconds(maxAge), age >= -CardRevealPolicy.futureLeeway else {
            throw APIProblem.recentSignInRequired(maxAge: maxAge)
        }
    }
}

extension APIProblem {
    /// The token is valid but its sign-in is too old, or it does not say when it was: sign in again (RFC 9470).
    static func recentSignInRequired(maxAge: Duration) -> APIProblem {
        let seconds = Int(RateLimiter.seconds(maxAge).rounded(.down))
        return APIProblem(
            status: .unauthorized, type: "recentSignInRequired", title: "Recent sign-in required",
            detail:
                "Sign in again; showing card details or the PIN needs a sign-in within the last \(seconds) seconds.",
            code: nil,
            headers: [
                .wwwAuthenticate:
                    "Bearer realm=\"provisioning-server\", error=\"insufficient_user_authentication\", error_description=\"A more recent sign-in is required\", max_age=\(seconds)"
            ]
        )
    }
}

/// One audit line per session attempt, at notice level: who, which card (its public id), which purpose, when, and
/// the outcome; never what was supplied or returned.
struct CardRevealAudit {
    let logger: Logger
    let user: AppUser
    let cardID: String
    let purpose: String
    let at: Date

    func record(
        outcome: String, provider: String? = nil, flow: String? = nil, kind: String? = nil, error: (any Error)? = nil
    ) {
        var metadata: Logger.Metadata = [
            "audit": "cardReveal",
            "user.id": .string(user.id),
            // A card id that breaks the pattern is logged as such, never as given.
            "card.id": .string(OwnedCard.isValidID(cardID) ? cardID : "(invalid)"),
            "purpose": .string(purpose),
            "at": .string(ISO8601DateFormatter().string(from: at)),
            "outcome": .string(outcome),
        ]
        if let provider { metadata["provider"] = .string(provider) }
        if let flow { metadata["flow"] = .string(flow) }
        if let kind { metadata["material"] = .string(kind) }
        if let error { metadata["error.code"] = .string(ProblemRendering(error, requestID: "").logCode) }
        logger.notice("card reveal session", metadata: metadata)
    }
}

/// The reveal types as the generated wire types of `openapi.yaml`.
enum CardRevealWire {
    static func purpose(_ purpose: Components.Schemas.RevealPurpose) throws -> RevealPurpose {
        guard let value = RevealPurpose(rawValue: purpose.rawValue) else {
            throw APIProblem.invalidRequest(
                "Unknown purpose.",
                errors: [FieldProblem(field: "purpose", message: "must be cardDetails, pinReveal or pinChange")])
        }
        return value
    }

    /// The document's name of a request field (`encryptedPinBlock` for the library's `encryptedPINBlock`).
    static func field(_ name: String) -> String {
        switch name {
        case RevealInput.encryptedPINBlock.rawValue: "encryptedPinBlock"
        case "card.id": "cardId"
        default: name
        }
    }

    static func input(_ input: RevealInput) -> Components.Schemas.RevealInput? {
        Components.Schemas.RevealInput(rawValue: field(input.rawValue))
    }

    /// The opaque values' rule, as the document's `RevealOpaque` states it.
    static func isOpaque(_ value: String) -> Bool {
        (1...4096).contains(value.utf8.count)
            && value.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                    || [
                        UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "_"), UInt8(ascii: "."),
                        UInt8(ascii: ":"), UInt8(ascii: "-"),
                    ].contains(byte)
            }
    }

    /// The library's request from the body, after the checks the generated decoding does not make.
    static func request(
        from body: Components.Schemas.RevealSessionRequest, card: CardRef, purpose: RevealPurpose
    ) throws -> RevealSessionRequest {
        var checks = FieldChecks()
        func opaque(_ value: String?, _ field: String) -> Secret? {
            guard let value else { return nil }
            guard isOpaque(value) else {
                checks.refuse(field, "must be 1 to 4096 letters, digits and +/=_.:-")
                return nil
            }
            return Secret(value)
        }
        let clientNonce = opaque(body.clientNonce, "clientNonce")
        let encryptedKey = opaque(body.encryptedKey, "encryptedKey")
        let encryptedPINBlock = opaque(body.encryptedPinBlock, "encryptedPinBlock")
        let pinToken = opaque(body.pinToken, "pinToken")
        let apiVersion = checks.token(body.apiVersion, "apiVersion", maxLength: 64, example: "2024-06-20")
        try checks.finish()
        return RevealSessionRequest(
            card: card, purpose: purpose, clientNonce: clientNonce, apiVersion: apiVersion, encryptedKey: encryptedKey,
            encryptedPINBlock: encryptedPINBlock,
            pinToken: pinToken
        )
    }

    static func flow(_ flow: RevealFlow) throws -> Components.Schemas.RevealFlow {
        guard let value = Components.Schemas.RevealFlow(rawValue: flow.rawValue) else {
            throw CardGatewayError(.invalidResponse, "the provider offered a flow this server does not know")
        }
        return value
    }

    static func offer(cardID: String, _ offer: RevealOffer) throws -> Components.Schemas.RevealOffer {
        guard let purpose = Components.Schemas.RevealPurpose(rawValue: offer.purpose.rawValue) else {
            throw CardGatewayError(.invalidResponse, "the provider offered a purpose this server does not know")
        }
        return .init(
            cardId: cardID, provider: offer.provider, purpose: purpose, flow: try flow(offer.flow),
            requires: offer.requires.compactMap(input),
            publicKey: offer.publicKey.map { .init(format: $0.format, value: $0.value, expiresAt: $0.expires) },
            apiVersion: offer.apiVersion,
            sessionLifetimeSeconds: offer.sessionLifetime.map { Int($0.components.seconds) },
            mayRequireSCA: offer.mayRequireSCA
        )
    }

    /// The session, its material revealed for the app (the one place the server hands it out).
    static func session(cardID: String, _ session: RevealSession) throws -> Components.Schemas.RevealSession {
        guard let purpose = Components.Schemas.RevealPurpose(rawValue: session.purpose.rawValue) else {
            throw CardGatewayError(.invalidResponse, "the provider answered a purpose this server does not know")
        }
        let material = session.material
        return .init(
            cardId: cardID, provider: session.provider, purpose: purpose, flow: try flow(session.flow),
            kind: material.kind,
            ephemeralKeyId: material.ephemeralKeyID, ephemeralKeySecret: material.ephemeralKeySecret?.revealedValue,
            encryptedData: material.encryptedData?.revealedValue,
            encryptedPinBlock: material.encryptedPINBlock?.revealedValue,
            pinToken: material.pinToken?.revealedValue, pinChangeStatus: material.pinChangeStatus?.rawValue,
            clientAccessToken: material.clientAccessToken?.revealedValue,
            secureLink: material.secureLink?.revealedValue, expiresAt: session.expires
        )
    }
}
