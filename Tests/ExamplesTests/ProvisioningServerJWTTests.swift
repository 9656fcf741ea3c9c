import CardGateway
import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import ProvisioningServerApp
import Synchronization
import Testing

/// Bearer JWTs verified against a JWKS (``JWTBearerAuthenticator``), with ES256 keys made in the test and the JWKS
/// served by an injected fetch that counts its calls.
@Suite("Provisioning server: bearer JWTs", .timeLimit(.minutes(5)))
struct ProvisioningServerJWTTests {
    static let issuer = "https://id.example.test/"
    static let audience = "cardgateway-api"

    struct Claims: JWTPayload {
        var iss: String
        var aud: String
        var sub: String
        var exp: Double
        var nbf: Double?
        var uid: String?

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// The identity provider: its signing keys, and the JWKS it publishes (which keys, as the test says).
    final class IdentityProvider: Sendable {
        let keys: [String: ES256PrivateKey]
        private let state = Mutex<(published: [String], fetches: Int)>(([], 0))

        init(kids: [String]) {
            keys = Dictionary(uniqueKeysWithValues: kids.map { ($0, ES256PrivateKey()) })
        }

        func publish(_ kids: [String]) { state.withLock { $0.published = kids } }
        var fetches: Int { state.withLock { $0.fetches } }

        func jwks() throws -> Data {
            let kids = state.withLock { state -> [String] in
                state.fetches += 1
                return state.published
            }
            let entries = try kids.map { kid -> [String: String] in
                let parameters = try #require(keys[kid]?.publicKey.parameters)
                return [
                    "kty": "EC", "crv": "P-256", "x": parameters.x, "y": parameters.y, "kid": kid, "alg": "ES256",
                    "use": "sig",
                ]
            }
            return try JSONSerialization.data(withJSONObject: ["keys": entries])
        }

        func token(
            kid: String, sub: String = "user-alice", iss: String = ProvisioningServerJWTTests.issuer,
            aud: String = ProvisioningServerJWTTests.audience,
            expiresIn: TimeInterval = 300, notBefore: TimeInterval? = nil, uid: String? = nil
        ) async throws -> String {
            let collection = JWTKeyCollection()
            await collection.add(ecdsa: try #require(keys[kid]), kid: JWKIdentifier(string: kid))
            let now = Date().timeIntervalSince1970
            let claims = Claims(
                iss: iss, aud: aud, sub: sub, exp: now + expiresIn, nbf: notBefore.map { now + $0 }, uid: uid)
            return try await collection.sign(claims, kid: JWKIdentifier(string: kid))
        }
    }

    static func fixture(
        _ provider: IdentityProvider, userClaim: String = "sub", minimumRefreshInterval: Duration = .seconds(60)
    ) throws -> Fixture {
        let configuration = JWTBearerAuthenticator.Configuration(
            issuer: issuer, audience: audience, jwksURL: URL(string: "https://id.example.test/.well-known/jwks.json")!,
            userClaim: userClaim,
            minimumRefreshInterval: minimumRefreshInterval
        )
        return try Fixture(
            configuration: ProvisioningServer.Configuration(
                storedCredentialRoute: .instance("cof"), rateLimitPerUser: 0, rateLimitPerAddress: 0),
            authenticator: { directory in
                try JWTBearerAuthenticator(
                    configuration: configuration, directory: directory, fetch: { _ in try provider.jwks() })
            }
        )
    }

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
    }

    @Test("a valid ES256 token names the directory's user; the static tokens are no longer accepted")
    func validToken() async throws {
        let provider = IdentityProvider(kids: ["k1"])
        provider.publish(["k1"])
        let fixture = try Self.fixture(provider)
        try await fixture.withClient { client in
            let alice = try await client.send(.get, "/v1/cards", token: try await provider.token(kid: "k1"))
            #expect(alice.status == 200)
            #expect(try alice.json()["cards"]?.arrayValue?.count == 3)
            let bob = try await client.send(
                .get, "/v1/cards", token: try await provider.token(kid: "k1", sub: "user-bob"))
            #expect(try bob.json()["cards"]?.arrayValue?.count == 1)
            #expect(
                try await client.send(.get, "/v1/cards", token: try await provider.token(kid: "k1", sub: "user-nobody"))
                    .status == 401)
            #expect(try await client.send(.get, "/v1/cards", token: Fixture.aliceToken).status == 401)
        }
        #expect(provider.fetches == 1, "the JWKS is cached")
    }

    @Test("expired, not yet valid, wrong audience and wrong issuer tokens are 401")
    func invalidClaims() async throws {
        let provider = IdentityProvider(kids: ["k1"])
        provider.publish(["k1"])
        let fixture = try Self.fixture(provider)
        try await fixture.withClient { client in
            let cases: [(String, String)] = [
                ("expired", try await provider.token(kid: "k1", expiresIn: -600)),
                ("not before in the future", try await provider.token(kid: "k1", notBefore: 600)),
                ("wrong audience", try await provider.token(kid: "k1", aud: "another-api")),
                ("wrong issuer", try await provider.token(kid: "k1", iss: "https://evil.example.test/")),
            ]
            for (name, token) in cases {
                let reply = try await client.send(.get, "/v1/cards", token: token)
                #expect(reply.status == 401, "\(name)")
                #expect(reply.header("WWW-Authenticate")?.contains("invalid_token") == true, "\(name)")
                #expect(!reply.text.contains(token), "\(name): the token is echoed")
            }
            // Within the leeway (60 s) an expiry just past is still accepted.
            #expect(
                try await client.send(.get, "/v1/cards", token: try await provider.token(kid: "k1", expiresIn: -5))
                    .status == 200)
        }
    }

    @Test("algorithms outside the allow-list (HS256, none) and tampered tokens are 401")
    func algorithmsRefused() async throws {
        let provider = IdentityProvider(kids: ["k1"])
        provider.publish(["k1"])
        let fixture = try Self.fixture(provider)
        try await fixture.withClient { client in
            // HS256 signed with a key the attacker knows, naming the published kid.
            let hmac = JWTKeyCollection()
            await hmac.add(
                hmac: HMACKey(from: "attacker-known-secret-of-32-bytes-or-more"), digestAlgorithm: .sha256, kid: "k1")
            let now = Date().timeIntervalSince1970
            let claims = Claims(iss: Self.issuer, aud: Self.audience, sub: "user-alice", exp: now + 300)
            let hs256 = try await hmac.sign(claims, kid: "k1")
            #expect(try await client.send(.get, "/v1/cards", token: hs256).status == 401)

            let payload = Self.base64URL(
                #"{"iss":"\#(Self.issuer)","aud":"\#(Self.audience)","sub":"user-alice","exp":\#(Int(now) + 300)}"#)
            let none = Self.base64URL(#"{"alg":"none","kid":"k1","typ":"JWT"}"#) + "." + payload + "."
            #expect(try await client.send(.get, "/v1/cards", token: none).status == 401)

            // A valid token whose payload is swapped for another user's.
            let valid = try await provider.token(kid: "k1")
            let parts = valid.split(separator: ".")
            let bobPayload = Self.base64URL(
                #"{"iss":"\#(Self.issuer)","aud":"\#(Self.audience)","sub":"user-bob","exp":\#(Int(now) + 300)}"#)
            #expect(
                try await client.send(.get, "/v1/cards", token: "\(parts[0]).\(bobPayload).\(parts[2])").status == 401)
            #expect(try await client.send(.get, "/v1/cards", token: valid).status == 200)
        }
    }

    @Test("an unknown kid fetches the JWKS again (a rotated key is accepted); made-up kids do not make it fetch again")
    func unknownKidRefreshes() async throws {
        let provider = IdentityProvider(kids: ["k1", "k2"])
        provider.publish(["k1"])
        let rotating = try Self.fixture(provider, minimumRefreshInterval: .zero)
        try await rotating.withClient { client in
            let first = try await client.send(.get, "/v1/cards", token: try await provider.token(kid: "k1"))
            #expect(first.status == 200)
            #expect(provider.fetches == 1)
            provider.publish(["k2"])
            let rotated = try await client.send(.get, "/v1/cards", token: try await provider.token(kid: "k2"))
            #expect(rotated.status == 200)
            #expect(provider.fetches == 2, "the unknown kid did not refresh the keys")
        }

        let bounded = IdentityProvider(kids: ["k1", "k9"])
        bounded.publish(["k1"])
        let fixture = try Self.fixture(bounded, minimumRefreshInterval: .seconds(60))
        try await fixture.withClient { client in
            let known = try await client.send(.get, "/v1/cards", token: try await bounded.token(kid: "k1"))
            #expect(known.status == 200)
            for _ in 0..<5 {
                let unknown = try await client.send(.get, "/v1/cards", token: try await bounded.token(kid: "k9"))
                #expect(unknown.status == 401)
            }
            #expect(bounded.fetches == 1, "unknown kids fetched the JWKS more than once a minute")
        }
    }

    @Test("while the JWKS cannot be fetched the answer is 503, retryable, never a 401 that would log the user out")
    func jwksUnavailable() async throws {
        struct IdentityProviderDown: Error {}
        let provider = IdentityProvider(kids: ["k1"])
        let configuration = JWTBearerAuthenticator.Configuration(
            issuer: Self.issuer, audience: Self.audience, jwksURL: URL(string: "https://id.example.test/jwks")!
        )
        let fixture = try Fixture(
            configuration: ProvisioningServer.Configuration(
                storedCredentialRoute: .instance("cof"), rateLimitPerUser: 0, rateLimitPerAddress: 0),
            authenticator: { directory in
                try JWTBearerAuthenticator(
                    configuration: configuration, directory: directory, fetch: { _ in throw IdentityProviderDown() })
            }
        )
        try await fixture.withClient { client in
            for _ in 0..<2 {
                let reply = try await client.send(.get, "/v1/cards", token: try await provider.token(kid: "k1"))
                #expect(reply.status == 503)
                let problem = try reply.problem()
                #expect(problem["retryable"] == .bool(true))
                #expect(problem["mayHaveReachedProvider"] == .bool(false))
                #expect(reply.header("Retry-After") == problem["retryAfterSeconds"]?.intValue.map(String.init))
            }
        }
        #expect(fixture.backend.totalCalls == 0)
    }

    @Test("the JWKS is fetched over HTTP from a server on 127.0.0.1; an error status is not taken for keys")
    func fetchesOverHTTP() async throws {
        let provider = IdentityProvider(kids: ["k1"])
        provider.publish(["k1"])
        let router = Router()
        router.get("/jwks.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(data: try provider.jwks())))
        }
        router.get("/broken.json") { _, _ in Response(status: .internalServerError) }
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let directory = InMemoryCardDirectory(accounts: [
                InMemoryCardDirectory.Account(user: AppUser(id: "user-alice"), token: Secret("unused-token-000000"))
            ])
            func authenticator(_ path: String) throws -> JWTBearerAuthenticator {
                try JWTBearerAuthenticator(
                    configuration: .init(
                        issuer: Self.issuer, audience: Self.audience,
                        jwksURL: URL(string: "http://127.0.0.1:\(port)\(path)")!),
                    directory: directory, fetch: JWTBearerAuthenticator.httpFetch()
                )
            }
            let token = try await provider.token(kid: "k1")
            #expect(try await authenticator("/jwks.json").user(forBearerToken: token)?.id == "user-alice")
            await #expect(throws: (any Error).self) {
                _ = try await authenticator("/broken.json").user(forBearerToken: token)
            }
        }
    }

    @Test("the user claim is configurable")
    func userClaim() async throws {
        let provider = IdentityProvider(kids: ["k1"])
        provider.publish(["k1"])
        let fixture = try Self.fixture(provider, userClaim: "uid")
        try await fixture.withClient { client in
            let bob = try await client.send(
                .get, "/v1/cards", token: try await provider.token(kid: "k1", sub: "ignored", uid: "user-bob"))
            #expect(bob.status == 200)
            let noClaim = try await client.send(
                .get, "/v1/cards", token: try await provider.token(kid: "k1", sub: "user-alice"))
            #expect(noClaim.status == 401)
        }
    }

    @Test("the configuration refuses a JWKS over plain HTTP off loopback, and symmetric or unknown algorithms")
    func configurationProblems() throws {
        func problems(_ url: String, _ algorithms: Set<String> = ["ES256"]) -> [String] {
            JWTBearerAuthenticator.Configuration(
                issuer: "i", audience: "a", jwksURL: URL(string: url)!, algorithms: algorithms
            ).problems
        }
        #expect(problems("https://id.example.test/jwks").isEmpty)
        #expect(problems("http://127.0.0.1:8081/jwks").isEmpty)
        #expect(problems("http://localhost/jwks").isEmpty)
        #expect(!problems("http://id.example.test/jwks").isEmpty)
        #expect(!problems("ftp://id.example.test/jwks").isEmpty)
        #expect(!problems("https://id.example.test/jwks", ["HS256"]).isEmpty)
        #expect(!problems("https://id.example.test/jwks", ["none"]).isEmpty)
        #expect(throws: JWTBearerAuthenticator.ConfigurationError.self) {
            try JWTBearerAuthenticator(
                configuration: .init(issuer: "i", audience: "a", jwksURL: URL(string: "http://id.example.test/jwks")!),
                directory: InMemoryCardDirectory(accounts: []), fetch: { _ in Data() }
            )
        }
    }
}
