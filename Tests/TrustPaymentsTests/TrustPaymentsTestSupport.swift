import CardGateway
import CardGatewayTesting
import CardGatewayTrustPayments
import Crypto
import Foundation
import Testing

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

    static func configuration(options: [String: JSONValue] = [:], credentials: [String: Secret]? = nil) -> ProviderInstanceConfiguration {
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
        transport: any HTTPTransport = ScriptedTransport([]), store: any CredentialReferenceStore = InMemoryCredentialReferenceStore(),
        now: Date = Fixture.now, options: [String: JSONValue] = [:], baseURL: URL = Fixture.baseURL
    ) throws -> ProviderSetup {
        var configuration = configuration(options: options)
        configuration.baseURL = baseURL
        let http = try ProviderHTTPClient.testing(instance: instance, kind: .trustpayments, baseURL: baseURL, transport: transport)
        return ProviderSetup(configuration: configuration, http: http, logger: OperationContext.noopLogger, credentialStore: store, now: { now })
    }

    /// A store holding the parent reference the charge tests use, saved by this instance.
    static func storeWithParent() -> InMemoryCredentialReferenceStore {
        InMemoryCredentialReferenceStore([credential("2-9-4617572", scheme: .visa, brand: "VISA")])
    }

    static func provider(
        transport: any HTTPTransport = ScriptedTransport([]), store: any CredentialReferenceStore = Fixture.storeWithParent(),
        now: Date = Fixture.now, options: [String: JSONValue] = [:], requestReference: String = "Atest0001"
    ) throws -> TrustPaymentsProvider {
        try TrustPaymentsProvider(setup: setup(transport: transport, store: store, now: now, options: options), requestReference: { requestReference })
    }

    static func consent() -> CardholderConsent {
        CardholderConsent(recordedAt: now.addingTimeInterval(-5), evidence: "terms-v3 checkbox save-card")
    }

    static func credential(_ reference: String, scheme: CardScheme, brand: String, provider: String? = instance, customer: String? = nil) -> StoredCredential {
        StoredCredential(reference: reference, provider: provider, maskedPAN: "411111######1111", brand: brand, scheme: scheme, customer: customer, created: now)
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
            headerText: String(decoding: headerData, as: UTF8.self), header: header, claims: claims, signature: signature,
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

    static func accountCheck(reference: String = "42-9-80103", errorcode: String = "0", settlestatus: String = "0", pan: String = "411111######1111", type: String = "VISA") -> [String: Any] {
        [
            "requesttypedescription": "ACCOUNTCHECK", "errorcode": errorcode, "errormessage": errorcode == "0" ? "Ok" : "Decline",
            "transactionreference": reference, "settlestatus": settlestatus, "maskedpan": pan, "paymenttypedescription": type,
            "accounttypedescription": "ECOM", "acquirerresponsecode": "00", "credentialsonfile": "1",
            "transactionstartedtimestamp": "2024-11-06 13:42:13", "livestatus": "0",
        ]
    }

    static func auth(reference: String = "42-9-80104", errorcode: String = "0", settlestatus: String = "0", pan: String = "411111######1111", type: String = "VISA") -> [String: Any] {
        [
            "requesttypedescription": "AUTH", "errorcode": errorcode, "errormessage": errorcode == "0" ? "Ok" : "Error",
            "transactionreference": reference, "settlestatus": settlestatus, "maskedpan": pan, "paymenttypedescription": type,
            "authcode": "TEST44", "baseamount": "1050", "currencyiso3a": "GBP", "acquirerresponsecode": "00",
        ]
    }

    static func threeDQuery(reference: String = "42-9-80102", errorcode: String = "0") -> [String: Any] {
        ["requesttypedescription": "THREEDQUERY", "errorcode": errorcode, "errormessage": "Ok", "transactionreference": reference, "enrolled": "Y", "status": "Y"]
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
