@_spi(AdapterSupport) import CardGateway
@_spi(AdapterSupport) import CardGatewayTesting
import CardGatewayTrustPayments
import Crypto
import Foundation
import Testing
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import HTTPTypes
import Logging
import TrustPaymentsSimulator

/// Fixed values the unit tests share.
enum Fixture {
    static let instance = "tp"
    static let webservicesUsername = "ws@merchant.test"
    static let webservicesPassword = "ws-password-0123456789"
    static let jwtUsername = "jwt.user@merchant.test"
    static let jwtSecret = "jwt-secret-abcdefghijklmnopqrstuvwxyz"
    static let siteReference = "test_site12345"
    /// 2024-11-06T13:42:13Z
    static let now = Date(timeIntervalSince1970: 1_730_900_533)
    static let baseURL = URL(string: "https://webservices.securetrading.net")!

    static func configuration(
        options: [String: JSONValue] = [:], credentials: [String: Secret]? = nil
    ) -> ProviderInstanceConfiguration {
        var allOptions: [String: JSONValue] = ["siteReference": .string(siteReference)]
        allOptions.merge(options) { _, new in new }
        return ProviderInstanceConfiguration(
            name: instance, kind: .trustpayments, environment: "sandbox", baseURL: baseURL,
            credentials: credentials ?? [
                "webservicesUsername": Secret(webservicesUsername), "webservicesPassword": Secret(webservicesPassword),
                "jwtUsername": Secret(jwtUsername), "jwtSecret": Secret(jwtSecret),
            ],
            options: allOptions
        )
    }

    static func setup(
        transport: any HTTPTransport = ScriptedTransport([]),
        store: any CredentialReferenceStore = InMemoryCredentialReferenceStore(),
        now: Date = Fixture.now, options: [String: JSONValue] = [:], baseURL: URL = Fixture.baseURL
    ) throws -> ProviderSetup {
        var configuration = configuration(options: options)
        configuration.baseURL = baseURL
        let http = try ProviderHTTPClient.testing(
            instance: instance, kind: .trustpayments, baseURL: baseURL, transport: transport)
        return ProviderSetup(
            configuration: configuration, http: http, logger: OperationContext.noopLogger, credentialStore: store,
            now: { now })
    }

    /// A store holding the parent reference the charge tests use, saved by this instance.
    static func storeWithParent() -> InMemoryCredentialReferenceStore {
        InMemoryCredentialReferenceStore([credential("2-9-4617572", scheme: .visa, brand: "VISA")])
    }

    static func provider(
        transport: any HTTPTransport = ScriptedTransport([]),
        store: any CredentialReferenceStore = Fixture.storeWithParent(),
        now: Date = Fixture.now, options: [String: JSONValue] = [:], requestReference: String = "Atest0001"
    ) throws -> TrustPaymentsProvider {
        try TrustPaymentsProvider(
            setup: setup(transport: transport, store: store, now: now, options: options),
            requestReference: { requestReference })
    }

    static func consent() -> CardholderConsent {
        CardholderConsent(recordedAt: now.addingTimeInterval(-5), evidence: "terms-v3 checkbox save-card")
    }

    static func credential(
        _ reference: String, scheme: CardScheme, brand: String, provider: String? = instance, customer: String? = nil
    ) -> StoredCredential {
        StoredCredential(
            reference: reference, provider: provider, maskedPAN: "411111######1111", brand: brand, scheme: scheme,
            customer: customer, created: now)
    }
}

/// A JWT toolkit written independently of the adapter's: its own base64url, `HMAC<SHA256>` straight from Crypto,
/// `JSONSerialization` for the JSON. Tests use it to read what the adapter mints and to build what the gateway
/// would send.
enum IndependentJWT {
    static func base64URLDecode(_ text: String) -> Data? {
        var normalised = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while normalised.count % 4 != 0 { normalised += "=" }
        return Data(base64Encoded: normalised)
    }

    static func base64URLEncode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func hmac(_ input: String, secret: String) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(secret.utf8))))
    }

    struct Decoded {
        var headerText: String
        var header: [String: Any]
        var claims: [String: Any]
        var signature: Data
        var signingInput: String
        var rawParts: [String]

        var payload: [String: Any] { claims["payload"] as? [String: Any] ?? [:] }

        func signatureIsValid(secret: String) -> Bool { IndependentJWT.hmac(signingInput, secret: secret) == signature }
    }

    static func decode(_ token: String) throws -> Decoded {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        for part in parts { #expect(!part.contains("="), "base64url without padding") }
        let headerData = try #require(base64URLDecode(parts[0]))
        let claimsData = try #require(base64URLDecode(parts[1]))
        let header = try #require(try JSONSerialization.jsonObject(with: headerData) as? [String: Any])
        let claims = try #require(try JSONSerialization.jsonObject(with: claimsData) as? [String: Any])
        let signature = try #require(base64URLDecode(parts[2]))
        return Decoded(
            headerText: String(decoding: headerData, as: UTF8.self), header: header, claims: claims,
            signature: signature,
            signingInput: parts[0] + "." + parts[1], rawParts: parts
        )
    }

    /// Signs `claims` with HS256 (or writes `alg` as given, signing with HMAC-SHA256 regardless, or with no
    /// signature when `alg` is `none`).
    static func make(claims: [String: Any], secret: String, alg: String = "HS256") throws -> String {
        let header = try JSONSerialization.data(withJSONObject: ["alg": alg, "typ": "JWT"], options: [.sortedKeys])
        let body = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let input = base64URLEncode(header) + "." + base64URLEncode(body)
        if alg == "none" { return input + "." }
        return input + "." + base64URLEncode(hmac(input, secret: secret))
    }

    /// The response JWT the gateway would hand the SDK, in Trust Payments' published shape: `iat` and `payload`
    /// with `response` (and `aud` only when one is given).
    static func response(
        elements: [[String: Any]], iat: Date = Fixture.now, aud: Any? = nil, secret: String = Fixture.jwtSecret,
        alg: String = "HS256", nestedJWT: String? = nil, extraClaims: [String: Any] = [:]
    ) throws -> String {
        var payload: [String: Any] = [
            "requestreference": "W42-4fq45cb0", "version": "1.00", "response": elements, "secrand": "PAGPFy57L",
        ]
        if let nestedJWT { payload["jwt"] = nestedJWT }
        var claims: [String: Any] = ["iat": Int(iat.timeIntervalSince1970), "payload": payload]
        if let aud { claims["aud"] = aud }
        claims.merge(extraClaims) { _, new in new }
        return try make(claims: claims, secret: secret, alg: alg)
    }

    static func accountCheck(
        reference: String = "42-9-80103", errorcode: String = "0", settlestatus: String = "0",
        pan: String = "411111######1111", type: String = "VISA"
    ) -> [String: Any] {
        [
            "requesttypedescription": "ACCOUNTCHECK", "errorcode": errorcode,
            "errormessage": errorcode == "0" ? "Ok" : "Decline",
            "transactionreference": reference, "settlestatus": settlestatus, "maskedpan": pan,
            "paymenttypedescription": type,
            "accounttypedescription": "ECOM", "acquirerresponsecode": "00", "credentialsonfile": "1",
            "transactionstartedtimestamp": "2024-11-06 13:42:13", "livestatus": "0",
        ]
    }

    static func auth(
        reference: String = "42-9-80104", errorcode: String = "0", settlestatus: String = "0",
        pan: String = "411111######1111", type: String = "VISA"
    ) -> [String: Any] {
        [
            "requesttypedescription": "AUTH", "errorcode": errorcode, "errormessage": errorcode == "0" ? "Ok" : "Error",
            "transactionreference": reference, "settlestatus": settlestatus, "maskedpan": pan,
            "paymenttypedescription": type,
            "authcode": "TEST44", "baseamount": "1050", "currencyiso3a": "GBP", "acquirerresponsecode": "00",
        ]
    }

    static func threeDQuery(reference: String = "42-9-80102", errorcode: String = "0") -> [String: Any] {
        [
            "requesttypedescription": "THREEDQUERY", "errorcode": errorcode, "errormessage": "Ok",
            "transactionreference": reference, "enrolled": "Y", "status": "Y",
        ]
    }
}

/// JSON helpers for comparing bodies.
enum JSONText {
    static func object(_ data: Data?) throws -> [String: Any] {
        let data = try #require(data)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func data(_ object: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    /// Both as canonical JSON values (key order ignored).
    static func same(_ lhs: Data?, _ rhs: Any) throws -> Bool {
        let left = try JSONValue.parse(try #require(lhs))
        let right = try JSONValue.parse(try data(rhs))
        return left == right
    }
}

typealias Seed = TrustPaymentsSimulator.Seed

/// Shared values for tests that run the simulator.
enum SimFixture {
    /// The simulator's fixed clock: 2024-11-06T13:42:13Z.
    static let now = Date(timeIntervalSince1970: 1_730_900_533)

    /// The simulator's seeded transactions, as this adapter instance's credential store would hold them had it
    /// verified them: the gateway, not the store, then decides what each one allows.
    static func seededStore() -> InMemoryCredentialReferenceStore {
        let references = [
            Seed.Transaction.storedVisaAccountCheck, Seed.Transaction.storedVisaAuth,
            Seed.Transaction.storedAmexAccountCheck,
            Seed.Transaction.storedMastercardAuth, Seed.Transaction.unstoredAuth, Seed.Transaction.declinedAccountCheck,
            Seed.Transaction.otherMerchantStored,
        ]
        return InMemoryCredentialReferenceStore(
            references.map {
                StoredCredential(
                    reference: $0, provider: "tp-sim", maskedPAN: "411111######1111", brand: "VISA", scheme: .visa,
                    created: now)
            })
    }

    static func simulator() -> TrustPaymentsSimulator {
        TrustPaymentsSimulator(clock: SimulationClock(fixed: now))
    }

    /// An adapter pointed at the simulator, over real HTTP unless another transport is given.
    static func provider(
        _ handle: SimulatorHandle, transport: any HTTPTransport = AsyncHTTPClientTransport(),
        store: any CredentialReferenceStore = SimFixture.seededStore(), password: String = Seed.webservicesPassword,
        timeout: Duration = .seconds(30), logger: Logger? = nil
    ) throws -> TrustPaymentsProvider {
        let configuration = ProviderInstanceConfiguration(
            name: "tp-sim", kind: .trustpayments, environment: nil, baseURL: handle.baseURL,
            credentials: [
                "webservicesUsername": Secret(Seed.webservicesUsername), "webservicesPassword": Secret(password),
                "jwtUsername": Secret(Seed.jwtUsername), "jwtSecret": Secret(Seed.jwtSecret),
            ],
            options: ["siteReference": .string(Seed.siteReference)]
        )
        var http = try ProviderHTTPClient.testing(
            instance: "tp-sim", kind: .trustpayments, baseURL: handle.baseURL, transport: transport, timeout: timeout)
        if let logger {
            http = try ProviderHTTPClient(
                instance: "tp-sim", kind: .trustpayments, baseURL: handle.baseURL, transport: transport,
                timeout: timeout,
                retry: http.retry, logger: logger, clock: ManualClock(advancesOnSleep: true).gatewayClock()
            )
        }
        let clock = handle.simulator.clock
        let setup = ProviderSetup(
            configuration: configuration, http: http, logger: logger ?? OperationContext.noopLogger,
            credentialStore: store,
            now: { clock?.now() ?? SimFixture.now }
        )
        return try TrustPaymentsProvider(setup: setup)
    }

    static func consent() -> CardholderConsent { CardholderConsent(recordedAt: now, evidence: "terms-v3 save-card") }
}

/// One raw HTTP exchange with a simulator, through AsyncHTTPClient.
struct RawResponse {
    var status: Int
    var headers: HTTPFields
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }
    func json() throws -> [String: Any] { try JSONText.object(body) }
    /// The `response` elements of a Webservices envelope.
    func elements() throws -> [[String: Any]] { try #require(try json()["response"] as? [[String: Any]]) }
}

enum Raw {
    static func post(
        _ handle: SimulatorHandle, _ path: String, body: Data, headers: [String: String] = [:],
        basic: (String, String)? = (Seed.webservicesUsername, Seed.webservicesPassword)
    ) async throws -> RawResponse {
        var fields = HTTPFields()
        fields[.contentType] = "application/json;charset=utf-8"
        if let basic { fields[.authorization] = "Basic " + Data("\(basic.0):\(basic.1)".utf8).base64EncodedString() }
        for (name, value) in headers {
            if let fieldName = HTTPField.Name(name) { fields[fieldName] = value }
        }
        let request = HTTPRequest(
            method: .post, scheme: "http", authority: "127.0.0.1:\(handle.port)", path: path, headerFields: fields)
        let response = try await AsyncHTTPClientTransport().send(request, body: body, timeout: .seconds(30))
        return RawResponse(
            status: response.response.status.code, headers: response.response.headerFields, body: response.body)
    }

    /// POSTs a Webservices envelope with `requests` to `/json/`.
    static func webservices(
        _ handle: SimulatorHandle, _ requests: [[String: Any]], alias: String = Seed.webservicesUsername,
        version: String = "1.00",
        headers: [String: String] = [:], basic: (String, String)? = (Seed.webservicesUsername, Seed.webservicesPassword)
    ) async throws -> RawResponse {
        let envelope: [String: Any] = [
            "alias": alias, "version": version, "request": requests, "libraryversion": "test",
        ]
        return try await post(handle, "/json/", body: try JSONText.data(envelope), headers: headers, basic: basic)
    }

    /// A card request (ACCOUNTCHECK by default) as the official Python client would build it.
    static func cardRequest(
        types: [String] = ["ACCOUNTCHECK"], pan: String = Seed.Card.visa, securityCode: String = "123",
        amount: String = "1050",
        cof: String? = "1", site: String = Seed.siteReference, extra: [String: Any] = [:]
    ) -> [String: Any] {
        var request: [String: Any] = [
            "sitereference": site, "requesttypedescriptions": types, "accounttypedescription": "ECOM",
            "currencyiso3a": "GBP",
            "baseamount": amount, "pan": pan, "expirydate": Seed.expiryDate, "securitycode": securityCode,
        ]
        if let cof { request["credentialsonfile"] = cof }
        request.merge(extra) { _, new in new }
        return request
    }

    /// A merchant-initiated AUTH on a parent.
    static func childRequest(
        parent: String, reason: String? = "C", amount: String = "1050", cof: String = "2", extra: [String: Any] = [:]
    ) -> [String: Any] {
        var request: [String: Any] = [
            "sitereference": Seed.siteReference, "requesttypedescriptions": ["AUTH"], "accounttypedescription": "ECOM",
            "currencyiso3a": "GBP", "baseamount": amount, "parenttransactionreference": parent,
            "credentialsonfile": cof,
        ]
        if let reason { request["initiationreason"] = reason }
        request.merge(extra) { _, new in new }
        return request
    }

    /// A session JWT minted independently of the adapter.
    static func sessionJWT(
        payload: [String: Any], secret: String = Seed.jwtSecret, iss: String = Seed.jwtUsername
    ) throws -> String {
        try IndependentJWT.make(
            claims: ["iss": iss, "iat": Int(SimFixture.now.timeIntervalSince1970), "payload": payload], secret: secret)
    }

    static func storePayload(types: [String] = ["ACCOUNTCHECK"], amount: String = "1050") -> [String: Any] {
        [
            "sitereference": Seed.siteReference, "accounttypedescription": "ECOM", "currencyiso3a": "GBP",
            "baseamount": amount,
            "requesttypedescriptions": types, "credentialsonfile": "1",
        ]
    }
}

/// A transaction reference in the gateway's `N-N-NNNNNNN` shape.
func isTransactionReference(_ text: String?) -> Bool {
    guard let text else { return false }
    let groups = text.split(separator: "-", omittingEmptySubsequences: false)
    return groups.count == 3 && groups.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) } && groups[2].count == 7
}
