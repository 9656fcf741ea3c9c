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
    let gateway: SimulatedGateway

    /// The clock behind expiry checks, JWT `iat` and timestamps (settable through `/__simulator/clock`).
    public var clock: SimulationClock? { gateway.clock }

    /// - Parameters:
    ///   - clock: the clock for expiry checks, JWT `iat` and timestamps.
    ///   - credentials: the users and sites accepted.
    public init(clock: SimulationClock = SimulationClock(), credentials: Credentials = .default) {
        self.credentials = credentials
        self.gateway = SimulatedGateway(credentials: credentials, clock: clock)
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

    /// The gateway's error pages are Apache HTML (the docs show the 401 page).
    public func faultResponse(status: Int, message: String) -> SimulatedResponse {
        if status == 401 {
            return .text(401, Self.authorizationRequiredPage, contentType: "text/html; charset=iso-8859-1")
        }
        let reason = Self.reasonPhrase(status)
        let escaped = message.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        let page = """
            <!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">
            <html><head>
            <title>\(status) \(reason)</title>
            </head><body>
            <h1>\(reason)</h1>
            <p>\(escaped)</p>
            </body></html>
            """
        return .text(status, page, contentType: "text/html; charset=iso-8859-1")
    }

    static let authorizationRequiredPage = """
        <!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">
        <html><head>
        <title>401 Authorization Required</title>
        </head><body>
        <h1>Authorization Required</h1>
        <p>This server could not verify that you
        are authorized to access the document
        requested.  Either you supplied the wrong
        credentials (e.g., bad password), or your
        browser doesn't understand how to supply
        the credentials required.</p>
        </body></html>
        """

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 413: return "Request Entity Too Large"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Error"
        }
    }

    // MARK: Webservices JSON

    func handleWebservices(authorization: String?, requestReferenceHeader: String?, body: Data) -> SimulatedResponse {
        guard let basic = SimulatorHTTP.basicCredentials(authorization),
            ConstantTime.equals(basic.user.utf8, credentials.webservicesUsername.utf8),
            ConstantTime.equals(basic.password.utf8, credentials.webservicesPassword.utf8)
        else {
            return faultResponse(status: 401, message: "Authorization Required")
        }
        guard let envelope = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            return webservicesEnvelope(
                requestReference: requestReferenceHeader,
                elements: [gateway.errorElement("10205", data: ["invalid json"])])
        }
        let requests = envelope["request"] as? [Any]
        let firstReference = (requests?.first as? [String: Any])?["requestreference"] as? String
        let requestReference = requestReferenceHeader ?? firstReference
        guard envelope["alias"] as? String == basic.user else {
            return webservicesEnvelope(
                requestReference: requestReference, elements: [gateway.errorElement("30000", data: ["alias"])])
        }
        guard envelope["version"] as? String == "1.00" else {
            return webservicesEnvelope(
                requestReference: requestReference, elements: [gateway.errorElement("30007", data: ["version"])])
        }
        guard let requests, !requests.isEmpty, let objects = requests as? [[String: Any]] else {
            return webservicesEnvelope(
                requestReference: requestReference, elements: [gateway.errorElement("60025", data: ["request"])])
        }
        let elements = objects.flatMap {
            gateway.process($0, allowedSites: Set(credentials.siteReferences), operatorName: basic.user)
        }
        return webservicesEnvelope(requestReference: requestReference, elements: elements)
    }

    private func webservicesEnvelope(requestReference: String?, elements: [[String: Any]]) -> SimulatedResponse {
        .json(
            200,
            [
                "requestreference": requestReference ?? gateway.gatewayRequestReference(), "version": "1.00",
                "response": elements,
                "secrand": gateway.secrand(),
            ] as [String: Any])
    }

    // MARK: Mobile SDK JWT

    /// `/jwt/`: one code path for the HTTP route and ``sdkPayment(sessionJWT:pan:expiryDate:securityCode:)``.
    func handleJWT(body: Data) async -> SimulatedResponse {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            return webservicesEnvelope(
                requestReference: nil, elements: [gateway.errorElement("10205", data: ["invalid json"])])
        }
        guard let alias = object["alias"] as? String, ConstantTime.equals(alias.utf8, credentials.jwtUsername.utf8)
        else {
            return faultResponse(status: 401, message: "Authorization Required")
        }
        guard object["version"] as? String == "1.00" else {
            return await signedResponse(
                alias: alias, elements: [gateway.errorElement("30007", data: ["version"])], requestJWT: nil)
        }
        guard let token = object["jwt"] as? String,
            let claims = await SimulatorJWT.verify(token, secret: credentials.jwtSecret),
            claims["iss"] as? String == alias, let payload = claims["payload"] as? [String: Any]
        else {
            return await signedResponse(
                alias: alias, elements: [gateway.errorElement("30000", data: ["jwt"])], requestJWT: nil)
        }
        // The payment must be made within 15 minutes of the session's iat (Trust Payments' legacy docs; the error
        // code for a late or iat-less token is not documented, so the JWT field error is used).
        let issuedAt = (claims["iat"] as? NSNumber)?.doubleValue
        let age = issuedAt.map { gateway.clock.now().timeIntervalSince1970 - $0 }
        guard let age, age <= Self.sessionLifetime, age >= -60 else {
            return await signedResponse(
                alias: alias, elements: [gateway.errorElement("30000", data: ["jwt"])], requestJWT: nil)
        }
        var fields = payload
        let cardFields = ((object["request"] as? [Any])?.first as? [String: Any]) ?? [:]
        for name in ["pan", "securitycode", "expirydate"] {
            if let value = cardFields[name] { fields[name] = value }
        }
        if fields["requesttypedescriptions"] == nil, let types = cardFields["requesttypedescriptions"] {
            fields["requesttypedescriptions"] = types
        }
        let elements = gateway.process(fields, allowedSites: Set(credentials.siteReferences), operatorName: alias)

        // The request JWT, re-signed, now naming the last successful transaction as parent.
        var nextPayload = payload
        if let last = elements.last(where: { $0["errorcode"] as? String == "0" })?["transactionreference"] as? String {
            nextPayload["parenttransactionreference"] = last
        }
        let now = Int(gateway.clock.now().timeIntervalSince1970)
        let resigned = await SimulatorJWT.signHS256(
            claims: ["iss": alias, "iat": now, "payload": nextPayload], secret: credentials.jwtSecret)
        return await signedResponse(alias: alias, elements: elements, requestJWT: resigned)
    }

    private func signedResponse(
        alias: String, elements: [[String: Any]], requestJWT: String?
    ) async -> SimulatedResponse {
        var payload: [String: Any] = [
            "requestreference": gateway.gatewayRequestReference(), "version": "1.00", "response": elements,
            "secrand": gateway.secrand(),
        ]
        if let requestJWT { payload["jwt"] = requestJWT }
        var claims: [String: Any] = ["iat": Int(gateway.clock.now().timeIntervalSince1970), "payload": payload]
        if credentials.audienceInResults { claims["aud"] = alias }
        guard let token = await SimulatorJWT.signHS256(claims: claims, secret: credentials.jwtSecret) else {
            return faultResponse(status: 500, message: "the simulator could not sign its response")
        }
        return .json(200, ["jwt": token])
    }

    /// Plays the mobile SDK in process, for the demo and tests: sends `sessionJWT` and the card fields through
    /// exactly the code `/jwt/` runs and returns the response JWT. An empty `pan` or `expiryDate` is left out (a
    /// reuse session inherits the card from its parent).
    public func sdkPayment(
        sessionJWT: String, pan: String, expiryDate: String, securityCode: String
    ) async throws -> String {
        let claims = SimulatorJWT.claims(sessionJWT)
        let alias = claims?["iss"] as? String ?? ""
        var card: [String: Any] = [:]
        if let types = (claims?["payload"] as? [String: Any])?["requesttypedescriptions"] {
            card["requesttypedescriptions"] = types
        }
        if !pan.isEmpty { card["pan"] = pan }
        if !expiryDate.isEmpty { card["expirydate"] = expiryDate }
        if !securityCode.isEmpty { card["securitycode"] = securityCode }
        let body: [String: Any] = [
            "alias": alias, "jwt": sessionJWT, "version": "1.00",
            "versioninfo": "Swift::CardGateway::TrustPaymentsSimulator::SDK",
            "request": [card],
        ]
        let response = await handleJWT(body: (try? JSONSerialization.data(withJSONObject: body)) ?? Data())
        guard response.status == 200,
            let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any],
            let token = object["jwt"] as? String
        else {
            throw SDKPaymentError(
                status: response.status,
                message: response.status == 401
                    ? "the session JWT's iss is not the simulator's JWT user"
                    : "the gateway answered without a response JWT")
        }
        return token
    }

    /// Whether the transaction holds a card on file (usable as a `credentialsonfile` 2 parent); nil when unknown.
    public func transactionHoldsStoredCard(_ reference: String) -> Bool? {
        gateway.transactions.get(reference)?.holdsStoredCard
    }
}
