import AsyncHTTPClient
import CardGateway
import Foundation
import JWTKit
import Logging
import NIOCore

/// Turns the bearer token of a request into the app user it stands for. The server asks it for every operation that
/// needs authentication, before the request body is read; a nil answer is 401.
///
/// Two implementations: ``DirectoryTokenAuthenticator`` (the directory's static tokens, for the demo and tests) and
/// ``JWTBearerAuthenticator`` (OAuth 2 / OpenID Connect access tokens verified against the identity provider's JWKS).
public protocol Authenticator: Sendable {
    /// The user `token` stands for; nil when the token is not valid (unknown, expired, badly signed).
    /// Throw only when the answer cannot be known now (the identity provider's keys cannot be fetched).
    func user(forBearerToken token: String) async throws -> AppUser?
    /// The user `token` stands for and, where the token says, when they signed in (for routes that need a recent
    /// sign-in, CardRevealAPI.swift); nil when the token is not valid. By default ``user(forBearerToken:)`` with no
    /// sign-in time.
    func authentication(forBearerToken token: String) async throws -> BearerAuthentication?
}

/// Who a bearer token stands for, and when they signed in.
public struct BearerAuthentication: Sendable, Equatable {
    public var user: AppUser
    /// When the user signed in (OpenID Connect's `auth_time`); nil when the token does not say.
    public var authenticatedAt: Date?

    public init(user: AppUser, authenticatedAt: Date? = nil) {
        self.user = user
        self.authenticatedAt = authenticatedAt
    }
}

extension Authenticator {
    public func authentication(forBearerToken token: String) async throws -> BearerAuthentication? {
        try await user(forBearerToken: token).map { BearerAuthentication(user: $0) }
    }
}

/// The directory file's static tokens: ``CardDirectory/user(forToken:)``, compared in constant time.
public struct DirectoryTokenAuthenticator: Authenticator {
    /// Where the tokens are.
    public let directory: any CardDirectory

    /// - Parameter directory: the users and their tokens.
    public init(directory: any CardDirectory) {
        self.directory = directory
    }

    public func user(forBearerToken token: String) async throws -> AppUser? {
        try await directory.user(forToken: token)
    }
}

/// Bearer JWTs from an OAuth 2 / OpenID Connect identity provider, verified against its JWKS with jwt-kit: the
/// signature with a key of the JWKS named by the token's `kid`, the algorithm against an allow-list (never `none` or
/// an HMAC algorithm, whose key would be public), the issuer, the audience, the expiry (required) and not-before,
/// with a small leeway for clock skew. One claim (`sub` by default) names the directory's user
/// (``CardDirectory/user(id:)``); a token for a user the directory does not know is refused like a bad token.
///
/// The JWKS is fetched on first use and again when a token names a `kid` it does not hold (the identity provider
/// rotated its keys), at most once per ``Configuration/minimumRefreshInterval``, so that tokens with made-up `kid`s
/// cannot turn the server into a load generator against the identity provider.
public final class JWTBearerAuthenticator: Authenticator {
    /// What a token must satisfy.
    public struct Configuration: Sendable {
        /// The `iss` the tokens must carry, exactly.
        public var issuer: String
        /// An `aud` value the tokens must carry (the API's identifier at the identity provider).
        public var audience: String
        /// Where the identity provider publishes its keys: https, or http on a loopback address only.
        public var jwksURL: URL
        /// The claim whose string value is the directory's user id.
        public var userClaim: String
        /// The `alg` values accepted; asymmetric algorithms only.
        public var algorithms: Set<String>
        /// Clock skew tolerated on `exp` and `nbf`.
        public var leeway: Duration
        /// The shortest time between two fetches of the JWKS.
        public var minimumRefreshInterval: Duration

        /// The asymmetric algorithms that may be allowed; HMAC and `none` never are.
        public static let supportedAlgorithms: Set<String> = [
            "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA",
        ]

        /// - Parameters:
        ///   - issuer: the required `iss`.
        ///   - audience: the required `aud` value.
        ///   - jwksURL: the identity provider's JWKS (https, or http on loopback).
        ///   - userClaim: the claim naming the user; `sub` by default.
        ///   - algorithms: the accepted `alg` values; RS256 and ES256 by default.
        ///   - leeway: clock skew tolerated; 60 s by default.
        ///   - minimumRefreshInterval: the shortest time between two JWKS fetches; 30 s by default.
        public init(
            issuer: String, audience: String, jwksURL: URL, userClaim: String = "sub",
            algorithms: Set<String> = ["RS256", "ES256"],
            leeway: Duration = .seconds(60), minimumRefreshInterval: Duration = .seconds(30)
        ) {
            self.issuer = issuer
            self.audience = audience
            self.jwksURL = jwksURL
            self.userClaim = userClaim
            self.algorithms = algorithms
            self.leeway = leeway
            self.minimumRefreshInterval = minimumRefreshInterval
        }

        /// What is wrong with the configuration, in words for an operator; empty when nothing is.
        public var problems: [String] {
            var problems: [String] = []
            if issuer.isEmpty { problems.append("the JWT issuer is empty") }
            if audience.isEmpty { problems.append("the JWT audience is empty") }
            if userClaim.isEmpty { problems.append("the JWT user claim is empty") }
            if algorithms.isEmpty { problems.append("no JWT algorithm is allowed") }
            let unsupported = algorithms.subtracting(Self.supportedAlgorithms).sorted()
            if !unsupported.isEmpty {
                problems.append(
                    "JWT algorithms not allowed: \(unsupported.joined(separator: ", ")) (asymmetric algorithms only: \(Self.supportedAlgorithms.sorted().joined(separator: ", ")))"
                )
            }
            if !Self.isAcceptableJWKSURL(jwksURL) {
                problems.append("the JWKS URL must be https (http only on a loopback address)")
            }
            return problems
        }

        /// https anywhere; http only to 127.0.0.0/8, ::1 or localhost.
        public static func isAcceptableJWKSURL(_ url: URL) -> Bool {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
                return false
            }
            if scheme == "https" { return true }
            guard scheme == "http" else { return false }
            let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
        }
    }

    /// The configuration is not usable; ``problems`` says why.
    public struct ConfigurationError: Error, CustomStringConvertible {
        public var problems: [String]
        public var description: String { "invalid JWT authentication: " + problems.joined(separator: "; ") }
    }

    /// Fetches the JWKS document (its bytes).
    public typealias Fetch = @Sendable (_ url: URL) async throws -> Data

    public let configuration: Configuration
    let directory: any CardDirectory
    let keys: JWKSCache
    let now: @Sendable () -> Date
    let logger: Logger

    /// - Parameters:
    ///   - configuration: issuer, audience, JWKS URL, user claim, algorithms.
    ///   - directory: where the user claim is looked up.
    ///   - fetch: fetches the JWKS (``httpFetch(client:)`` in a program; a closure in tests).
    ///   - now: the clock for `exp` and `nbf`.
    ///   - logger: where refreshes and failures are logged (never a token).
    /// - Throws: ``ConfigurationError`` when the configuration is not usable.
    public init(
        configuration: Configuration, directory: any CardDirectory, fetch: @escaping Fetch,
        now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = OperationContext.noopLogger
    ) throws {
        let problems = configuration.problems
        guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
        self.configuration = configuration
        self.directory = directory
        self.keys = JWKSCache(
            url: configuration.jwksURL, fetch: fetch, minimumRefreshInterval: configuration.minimumRefreshInterval,
            logger: logger)
        self.now = now
        self.logger = logger
    }

    /// Fetches over HTTP with `client`: 10 s at most, 512 KiB at most, 200 only.
    public static func httpFetch(client: HTTPClient = .shared) -> Fetch {
        { url in
            var request = HTTPClientRequest(url: url.absoluteString)
            request.headers.add(name: "Accept", value: "application/json")
            let response = try await client.execute(request, timeout: .seconds(10))
            guard response.status == .ok else { throw JWKSFetchFailed(status: Int(response.status.code)) }
            return Data(buffer: try await response.body.collect(upTo: 512 * 1024))
        }
    }

    struct JWKSFetchFailed: Error, CustomStringConvertible {
        var status: Int
        var description: String { "the JWKS answered HTTP \(status)" }
    }

    public func user(forBearerToken token: String) async throws -> AppUser? {
        try await authentication(forBearerToken: token)?.user
    }

    /// The user, with the token's `auth_time` (when the user signed in) where it has one.
    public func authentication(forBearerToken token: String) async throws -> BearerAuthentication? {
        guard let header = Self.header(of: token), configuration.algorithms.contains(header.alg), let kid = header.kid
        else { return nil }
        guard let key = try await keys.key(kid: kid) else { return nil }
        // A key that states its algorithm is used with that one only.
        if let keyAlgorithm = key.algorithm, keyAlgorithm != header.alg { return nil }
        let claims: BearerClaims
        do {
            claims = try await key.collection.verify(token, as: BearerClaims.self)
        } catch {
            return nil
        }
        guard claims.isValid(for: configuration, at: now()), let userID = claims.strings[configuration.userClaim],
            !userID.isEmpty
        else { return nil }
        return try await directory.user(id: userID).map {
            BearerAuthentication(user: $0, authenticatedAt: claims.authTime)
        }
    }

    /// The token's `alg` and `kid`, read without verifying anything (to pick the key); nil when it is not a JWS.
    static func header(of token: String) -> (alg: String, kid: String?)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].utf8.count <= 2048, let data = Self.base64URLDecoded(parts[0]),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let alg = object["alg"] as? String
        else { return nil }
        return (alg, object["kid"] as? String)
    }

    static func base64URLDecoded(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// The claims the authenticator reads: registered ones typed, every other string claim by name.
struct BearerClaims: JWTPayload {
    var issuer: String?
    var audiences: [String] = []
    var expires: Date?
    var notBefore: Date?
    /// When the user signed in (OpenID Connect's `auth_time`, seconds since 1970).
    var authTime: Date?
    /// Every claim whose value is a string (`sub`, `iss`, custom ones).
    var strings: [String: String] = [:]

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for key in container.allKeys {
            switch key.stringValue {
            case "aud":
                if let one = try? container.decode(String.self, forKey: key) {
                    audiences = [one]
                } else {
                    audiences = (try? container.decode([String].self, forKey: key)) ?? []
                }
            case "exp":
                expires = (try? container.decode(Double.self, forKey: key)).map { Date(timeIntervalSince1970: $0) }
            case "nbf":
                notBefore = (try? container.decode(Double.self, forKey: key)).map { Date(timeIntervalSince1970: $0) }
            case "auth_time":
                authTime = (try? container.decode(Double.self, forKey: key)).map { Date(timeIntervalSince1970: $0) }
            default:
                if let value = try? container.decode(String.self, forKey: key) { strings[key.stringValue] = value }
            }
        }
        issuer = strings["iss"]
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (name, value) in strings { try container.encode(value, forKey: Key(stringValue: name)) }
        if !audiences.isEmpty { try container.encode(audiences, forKey: Key(stringValue: "aud")) }
        if let expires { try container.encode(expires.timeIntervalSince1970, forKey: Key(stringValue: "exp")) }
        if let notBefore { try container.encode(notBefore.timeIntervalSince1970, forKey: Key(stringValue: "nbf")) }
        if let authTime { try container.encode(authTime.timeIntervalSince1970, forKey: Key(stringValue: "auth_time")) }
    }

    /// Checked by ``isValid(for:at:)`` with the authenticator's clock, not here.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    func isValid(for configuration: JWTBearerAuthenticator.Configuration, at now: Date) -> Bool {
        let leeway = configuration.leeway.timeInterval
        guard issuer == configuration.issuer, audiences.contains(configuration.audience) else { return false }
        guard let expires, now.timeIntervalSince(expires) < leeway else { return false }
        if let notBefore, notBefore.timeIntervalSince(now) > leeway { return false }
        return true
    }
}

/// The identity provider's keys, fetched on first use and again on an unknown `kid`, at most once per interval.
actor JWKSCache {
    struct Key: Sendable {
        /// A collection holding this one key (so that jwt-kit never falls back to another key).
        var collection: JWTKeyCollection
        /// The JWK's `alg`, when it states one.
        var algorithm: String?
    }

    let url: URL
    let fetch: JWTBearerAuthenticator.Fetch
    let minimumRefreshInterval: Duration
    let logger: Logger
    private var keys: [String: Key] = [:]
    private var lastFetch: ContinuousClock.Instant?
    /// Whether the last fetch failed: until one succeeds, an unknown `kid` is "cannot tell now" (503), not 401.
    private var lastFetchFailed = false
    /// The fetch under way, which concurrent requests with an unknown `kid` wait for instead of starting another.
    private var inFlight: Task<Void, any Error>?
    private(set) var fetchCount = 0

    init(url: URL, fetch: @escaping JWTBearerAuthenticator.Fetch, minimumRefreshInterval: Duration, logger: Logger) {
        self.url = url
        self.fetch = fetch
        self.minimumRefreshInterval = minimumRefreshInterval
        self.logger = logger
    }

    /// The key named `kid`, fetching the JWKS again when it is unknown and the last fetch is old enough.
    func key(kid: String) async throws -> Key? {
        if let key = keys[kid] { return key }
        if let inFlight {
            try await inFlight.value
            return keys[kid]
        }
        if let lastFetch, ContinuousClock.now - lastFetch < minimumRefreshInterval {
            if lastFetchFailed { throw APIProblem.authenticationUnavailable }
            return nil
        }
        lastFetch = .now
        let task = Task { try await self.refresh() }
        inFlight = task
        defer { inFlight = nil }
        do {
            try await task.value
            lastFetchFailed = false
        } catch {
            lastFetchFailed = true
            throw error
        }
        return keys[kid]
    }

    private func refresh() async throws {
        let data: Data
        do {
            data = try await fetch(url)
        } catch {
            logger.warning(
                "cannot fetch the JWKS",
                metadata: ["error": .string(SafeText.scrub(String(describing: error), maxLength: 200))])
            throw APIProblem.authenticationUnavailable
        }
        struct Document: Decodable {
            struct Entry: Decodable {
                var kid: String?
                var alg: String?
            }
            var keys: [Entry]
        }
        guard let document = try? JSONDecoder().decode(Document.self, from: data),
            let jwks = try? JSONDecoder().decode(JWKS.self, from: data),
            document.keys.count == jwks.keys.count
        else {
            logger.warning("the JWKS is not a JSON Web Key Set")
            throw APIProblem.authenticationUnavailable
        }
        fetchCount += 1
        var fresh: [String: Key] = [:]
        for (entry, jwk) in zip(document.keys, jwks.keys) {
            guard let kid = entry.kid else { continue }
            let collection = JWTKeyCollection()
            do {
                try await collection.add(jwk: jwk)
            } catch {
                // A key of a type jwt-kit cannot use (an encryption key, say) is left out.
                continue
            }
            fresh[kid] = Key(collection: collection, algorithm: entry.alg)
        }
        keys = fresh
        logger.info("JWKS fetched", metadata: ["keys": .stringConvertible(fresh.count)])
    }
}
