import CardGatewaySimulation
import Foundation
import HTTPTypes
import Hummingbird

/// A stand-in for the Trust Payments gateway: the Webservices JSON API (`POST /json/`) and the mobile SDK's JWT
/// endpoint (`POST /jwt/`), with the seed in ``Seed``.
///
/// - `/json/`: HTTP Basic auth with the Webservices user (wrong or missing → HTTP 401 with the gateway's HTML
///   page); the envelope `{"alias", "version", "request": [...]}` is checked (alias = the Basic user → else 30000
///   naming `alias`; version `1.00` → else 30007; a non-empty `request` array → else 60025); each request is
///   processed (site: unknown → 30001, not for this alias → 30006; fields → 30000 with `errordata`; parents →
///   20004 missing, 20033 invalid) and answered in `{"requestreference", "version", "response": [...], "secrand"}`.
///   The `requestreference` echoes the `REQUESTREFERENCE` header, else the first request's, as the official client
///   expects.
/// - `/jwt/`: the SDK's body `{alias, jwt, version, versioninfo, request: [{requesttypedescriptions, pan,
///   securitycode, expirydate}]}`; the request JWT must verify with the JWT secret (HS256/384/512) and its payload
///   gives amount, site, credentialsonfile and parent. The answer is `{"jwt": "<response JWT>"}`, HS256-signed, in
///   Trust Payments' published shape: claims `iat` and `payload` `{requestreference, version, jwt, response,
///   secrand}`, and no `aud` unless ``Credentials/audienceInResults`` asks for one (the JWT username).
///
/// Credentials on file: `credentialsonfile` 1 stores the card on the new transaction; 2 needs
/// `parenttransactionreference` naming a successful transaction that holds the card on file (20004 when there is
/// none, 20033 when it failed or never stored the card), and `initiationreason` A needs an AUTH parent (20033).
/// Successful children of a stored parent hold the card on file too.
public struct TrustPaymentsSimulator: ProviderSimulator {
    /// How long after its `iat` a session JWT may be used (15 minutes, per Trust Payments' legacy docs).
    public static let sessionLifetime: TimeInterval = 15 * 60

    /// The users and sites the simulated gateway accepts.
    public struct Credentials: Sendable {
        /// The Webservices user: HTTP Basic username and `alias` on `/json/`.
        public var webservicesUsername: String
        /// The Webservices user's password.
        public var webservicesPassword: String
        /// The JWT user: `iss` of request JWTs, `alias` on `/jwt/` (and `aud` of response JWTs when
        /// ``audienceInResults`` is set).
        public var jwtUsername: String
        /// The JWT user's HMAC secret.
        public var jwtSecret: String
        /// Sites these users may use (the first one holds the seeded transactions).
        public var siteReferences: [String]
        /// Whether response JWTs also carry `aud` (the JWT username). Trust Payments' published responses carry only
        /// `iat` and `payload`, so the default is false; set it to check that a gateway accepts either.
        public var audienceInResults = false

        /// Users and sites; see ``default`` for the seed.
        public init(
            webservicesUsername: String, webservicesPassword: String, jwtUsername: String, jwtSecret: String,
            siteReferences: [String]
        ) {
            self.webservicesUsername = webservicesUsername
            self.webservicesPassword = webservicesPassword
            self.jwtUsername = jwtUsername
            self.jwtSecret = jwtSecret
            self.siteReferences = siteReferences
        }

        /// The ``Seed`` values.
        public static let `default` = Credentials(
            webservicesUsername: Seed.webservicesUsername, webservicesPassword: Seed.webservicesPassword,
            jwtUsername: Seed.jwtUsername, jwtSecret: Seed.jwtSecret, siteReferences: [Seed.siteReference]
        )
    }

    /// Why ``sdkPayment(sessionJWT:pan:expiryDate:securityCode:)`` produced no response JWT.
    public struct SDKPaymentError: Error, Sendable, CustomStringConvertible {
        /// The HTTP status `/jwt/` would have answered.
        public var status: Int
        /// What went wrong, without card data.
        public var message: String
        public var description: String { "SDKPaymentError(status: \(status)): \(message)" }
    }

    /// `trustpayments`.
    public let kindName = "trustpayments"
    /// Empty: `/json/` and `/jwt/` sit at the host's root.
    public let basePath = ""
    /// The users and sites this simulator accepts.
    public let credentials: Credentials
    let gateway: TrustPaymentsSimulatorGateway

    /// The clock behind expiry checks, JWT `iat` and timestamps (settable through `/__simulator/clock`).
    public var clock: SimulationClock? { gateway.clock }

    /// - Parameters:
    ///   - clock: the clock for expiry checks, JWT `iat` and timestamps.
    ///   - credentials: the users and sites accepted.
    public init(clock: SimulationClock = SimulationClock(), credentials: Credentials = .default) {
        self.credentials = credentials
        self.gateway = TrustPaymentsSimulatorGateway(credentials: credentials, clock: clock)
    }

    /// Back to the seed: transactions, reference sequence and generated ids.
    public func reset() async { gateway.reset() }

    /// `POST /json/` and `POST /jwt/`.
    public func registerRoutes(on router: Router<SimulatorContext>) {
        router.post("/json/") { request, context -> SimulatedResponse in
            self.handleWebservices(
                authorization: request.headers[.authorization],
                requestReferenceHeader: HTTPField.Name("REQUESTREFERENCE").flatMap { request.headers[$0] },
                body: context.requestBody
            )
        }
        router.post("/jwt/") { _, context -> SimulatedResponse in
            await self.handleJWT(body: context.requestBody)
        }
    }

    /// Whether the transaction holds a card on file (usable as a `credentialsonfile` 2 parent); nil when unknown.
    public func transactionHoldsStoredCard(_ reference: String) -> Bool? {
        gateway.transactions.get(reference)?.holdsStoredCard
    }
}
