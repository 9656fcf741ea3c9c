@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes
import Logging
import Synchronization

// Card details, PIN reveal and PIN change for the signed-in user's own cards (docs/SERVER.md, "Card details and PIN").
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

/// Where the reveal rate limit counts one user's calls: in this process by default, or in a store that every instance
/// of the server shares (PostgreSQL's `PostgresRateLimits`), so that a user's calls count across instances.
public struct RevealAllowance: Sendable {
    private let spendOne: @Sendable (_ userID: String, _ perMinute: Int) async throws -> Duration?

    /// - Parameter spend: spends one call of the user's allowance of `perMinute` calls a minute; returns nil when the
    ///   call was there, else how long until it will be (nothing spent). An error refuses the request (the count
    ///   cannot be kept, so the call is not allowed).
    public init(spend: @escaping @Sendable (_ userID: String, _ perMinute: Int) async throws -> Duration?) {
        self.spendOne = spend
    }

    /// Token buckets in this process (``RateLimiter``): each instance of the server counts on its own.
    public static func inMemory() -> RevealAllowance {
        let limiters = Mutex<[Int: RateLimiter]>([:])
        return RevealAllowance { userID, perMinute in
            let limiter = limiters.withLock { limiters in
                if let limiter = limiters[perMinute] { return limiter }
                let limiter = RateLimiter(perMinute: perMinute)
                limiters[perMinute] = limiter
                return limiter
            }
            return limiter.spend(userID)
        }
    }

    func spend(_ userID: String, perMinute: Int) async throws -> Duration? { try await spendOne(userID, perMinute) }
}

extension ProvisioningAPI {
    func revealOffer(_ input: Operations.RevealOffer.Input) async throws -> Operations.RevealOffer.Output {
        let scope = try RequestScope.required()
        let user = try scope.authenticatedUser()
        try await server.requireRecentSignIn(scope, user: user)
        try await server.spendRevealAllowance(of: user)
        let owned = try await server.ownedCard(input.path.cardId, of: user)
        let purpose = try CardRevealWire.purpose(input.query.purpose)
        let context = try scope.operationContext()
        try requireOffered(purpose.operation, for: owned)
        let offer = try await gateway.revealOffer(for: owned.ref, purpose: purpose, via: owned.route, context: context)
        return .ok(.init(body: .json(try CardRevealWire.offer(cardID: owned.id, offer))))
    }

    /// The session. Its audit line is written by ``RequestScopeMiddleware`` once the answer is known (refusals before
    /// this handler included); the handler only notes the instance, flow and material it got to.
    func revealSession(_ input: Operations.RevealSession.Input) async throws -> Operations.RevealSession.Output {
        let scope = try RequestScope.required()
        let user = try scope.authenticatedUser()
        try await server.requireRecentSignIn(scope, user: user)
        try await server.spendRevealAllowance(of: user)
        let owned = try await server.ownedCard(input.path.cardId, of: user)
        let purpose = try CardRevealWire.purpose(input.path.purpose)
        guard case .json(let body) = input.body else { throw APIProblem.unsupportedMediaType() }
        let context = try scope.operationContext()
        try requireOffered(purpose.operation, for: owned)
        // The flow the card's provider declares, read from its descriptor: the body must be that flow's, with what
        // the flow takes for the purpose, before the gateway (which checks again) asks anyone.
        let instance = try gateway.resolve(owned.route, operation: purpose.operation)
        scope.revealAudit.note(provider: instance.name)
        guard let flow = instance.descriptor.revealFlows[purpose] else {
            throw APIProblem.notOfferedForCard(purpose.operation)
        }
        scope.revealAudit.note(flow: flow.rawValue)
        let request = try CardRevealWire.request(from: body, flow: flow, card: owned.ref, purpose: purpose)
        let problems = request.problems(in: flow).errors.map {
            FieldProblem(field: CardRevealWire.field($0.field), message: $0.message)
        }
        if !problems.isEmpty {
            var checks = FieldChecks()
            for problem in problems { checks.refuse(problem.field, problem.message) }
            try checks.finish()
        }
        let session = try await gateway.revealSession(request, via: owned.route, context: context)
        scope.revealAudit.note(provider: session.provider, flow: session.flow.rawValue, material: session.material.kind)
        return .ok(.init(body: .json(try CardRevealWire.session(cardID: owned.id, session))))
    }
}

extension ProvisioningServer {
    /// Spends one of the user's reveal calls (in this process, or in the shared store every instance counts in); 429
    /// past the reveal limit.
    func spendRevealAllowance(of user: AppUser) async throws {
        let perMinute = configuration.cardReveal.rateLimitPerUser
        guard perMinute > 0 else { return }
        if let wait = try await revealAllowance.spend(user.id, perMinute: perMinute) {
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
        guard age <= maxAge.timeInterval, age >= -CardRevealPolicy.futureLeeway else {
            throw APIProblem.recentSignInRequired(maxAge: maxAge)
        }
    }
}

extension APIProblem {
    /// The token is valid but its sign-in is too old, or it does not say when it was: sign in again (RFC 9470).
    static func recentSignInRequired(maxAge: Duration) -> APIProblem {
        let seconds = Int(maxAge.timeInterval.rounded(.down))
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

    /// The library's request from the body: the checks the generated decoding does not make (400, naming the field),
    /// then the body's flow against the card's (409 when it is another flow's, or, for `encryptedSessionKey`, another
    /// purpose's: the new PIN's block and token go with `pinChange` only).
    static func request(
        from body: Components.Schemas.RevealSessionRequest, flow: RevealFlow, card: CardRef, purpose: RevealPurpose
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
        var request = RevealSessionRequest(card: card, purpose: purpose)
        let bodyFlow: String
        switch body {
        case .clientNonce(let given):
            bodyFlow = given.flow.rawValue
            request.clientNonce = opaque(given.clientNonce, "clientNonce")
            if let version = given.apiVersion {
                if isAPIVersion(version) {
                    request.apiVersion = version
                } else {
                    checks.refuse(
                        "apiVersion", "must be a Stripe API version of 2020-03-02 or later, such as 2024-06-20")
                }
            }
        case .encryptedSessionKey(let given):
            bodyFlow = given.flow.rawValue
            request.encryptedKey = opaque(given.encryptedKey, "encryptedKey")
            request.encryptedPINBlock = opaque(given.encryptedPinBlock, "encryptedPinBlock")
            if let token = given.pinToken {
                if isPINToken(token) {
                    request.pinToken = Secret(token)
                } else {
                    checks.refuse("pinToken", "must be the 16-digit token the app made the PIN block with")
                }
            }
        case .encryptedPIN(let given):
            bodyFlow = given.flow.rawValue
            request.encryptedPINBlock = opaque(given.encryptedPinBlock, "encryptedPinBlock")
        case .clientAccessToken(let given):
            bodyFlow = given.flow.rawValue
        case .secureLink(let given):
            bodyFlow = given.flow.rawValue
        }
        try checks.finish()
        let given = fields(of: body)
        guard bodyFlow == flow.rawValue else {
            throw wrongFlow(flow: flow, purpose: purpose, given: ["flow"] + given)
        }
        if flow == .encryptedSessionKey {
            let needed = Set(flow.inputs(for: purpose).map { field($0.rawValue) })
            let pinFields: Set<String> = ["encryptedPinBlock", "pinToken"]
            let misplaced = pinFields.filter { needed.contains($0) != given.contains($0) }
            if !misplaced.isEmpty { throw wrongFlow(flow: flow, purpose: purpose, given: misplaced.sorted()) }
        }
        return request
    }

    /// The members the body gives, by the document's names.
    static func fields(of body: Components.Schemas.RevealSessionRequest) -> [String] {
        switch body {
        case .clientNonce(let given): ["clientNonce"] + (given.apiVersion == nil ? [] : ["apiVersion"])
        case .encryptedSessionKey(let given):
            ["encryptedKey"] + (given.encryptedPinBlock == nil ? [] : ["encryptedPinBlock"])
                + (given.pinToken == nil ? [] : ["pinToken"])
        case .encryptedPIN: ["encryptedPinBlock"]
        case .clientAccessToken, .secureLink: []
        }
    }

    /// A well-formed body for another flow (or purpose) than the card's: 409, naming the fields that do not fit and
    /// saying what to send.
    static func wrongFlow(flow: RevealFlow, purpose: RevealPurpose, given: [String]) -> APIProblem {
        let inputs = flow.inputs(for: purpose).map { field($0.rawValue) }
        let expected =
            "flow \(flow.rawValue)" + (inputs.isEmpty ? " and nothing else" : " with " + inputs.joined(separator: ", "))
        return APIProblem(
            status: .conflict, type: "wrongRevealFlow", title: "Body of another reveal flow",
            detail: "This card's provider serves \(purpose.rawValue) by the \(flow.rawValue) flow; send \(expected).",
            code: .invalidRequest,
            errors: given.map { FieldProblem(field: $0, message: "does not fit this card's flow; send \(expected)") }
        )
    }

    /// The document's `pinToken` rule: 16 digits (Adyen's `PinChangeRequest.token`).
    static func isPINToken(_ value: String) -> Bool {
        value.utf8.count == 16 && value.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// The document's `apiVersion` rule: a Stripe API version dated 2020-03-02 or later (`YYYY-MM-DD`, month 01 to 12,
    /// day 01 to 31, year 2020 to 2099), optionally followed by a dot and 1 to 32 lower-case letters (a release name).
    static func isAPIVersion(_ value: String) -> Bool {
        let parts = value.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2 {
            let name = parts[1].utf8
            guard (1...32).contains(name.count), name.allSatisfy({ $0 >= 0x61 && $0 <= 0x7a }) else { return false }
        }
        let date = Array(parts[0].utf8)
        guard date.count == 10, date[4] == UInt8(ascii: "-"), date[7] == UInt8(ascii: "-") else { return false }
        func number(_ range: Range<Int>) -> Int? {
            var result = 0
            for byte in date[range] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                result = result * 10 + Int(byte - 0x30)
            }
            return result
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return false }
        guard (2020...2099).contains(year), (1...12).contains(month), (1...31).contains(day) else { return false }
        return (year, month, day) >= (2020, 3, 2)
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
