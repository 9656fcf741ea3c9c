import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayTesting
import CardGatewayTrustPayments
import Foundation
import HTTPTypes
import Logging
import Testing
import TrustPaymentsSimulator

typealias Seed = TrustPaymentsSimulator.Seed

/// Shared values for tests that run the simulator.
enum SimFixture {
    /// The simulator's fixed clock: 2024-11-06T13:42:13Z.
    static let now = Date(timeIntervalSince1970: 1_730_900_533)

    /// The simulator's seeded transactions, as this adapter instance's credential store would hold them had it
    /// verified them: the gateway, not the store, then decides what each one allows.
    static func seededStore() -> InMemoryCredentialReferenceStore {
        let references = [
            Seed.Transaction.storedVisaAccountCheck, Seed.Transaction.storedVisaAuth, Seed.Transaction.storedAmexAccountCheck,
            Seed.Transaction.storedMastercardAuth, Seed.Transaction.unstoredAuth, Seed.Transaction.declinedAccountCheck,
            Seed.Transaction.otherMerchantStored,
        ]
        return InMemoryCredentialReferenceStore(references.map {
            StoredCredential(reference: $0, provider: "tp-sim", maskedPAN: "411111######1111", brand: "VISA", scheme: .visa, created: now)
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
        var http = try ProviderHTTPClient.testing(instance: "tp-sim", kind: .trustpayments, baseURL: handle.baseURL, transport: transport, timeout: timeout)
        if let logger {
            http = try ProviderHTTPClient(
                instance: "tp-sim", kind: .trustpayments, baseURL: handle.baseURL, transport: transport, timeout: timeout,
                retry: http.retry, logger: logger, sleep: { _ in }, random: { 0.5 }
            )
        }
        let clock = handle.simulator.clock
        let setup = ProviderSetup(
            configuration: configuration, http: http, logger: logger ?? OperationContext.noopLogger, credentialStore: store,
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
        let request = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:\(handle.port)", path: path, headerFields: fields)
        let response = try await AsyncHTTPClientTransport().send(request, body: body, timeout: .seconds(30))
        return RawResponse(status: response.response.status.code, headers: response.response.headerFields, body: response.body)
    }

    /// POSTs a Webservices envelope with `requests` to `/json/`.
    static func webservices(
        _ handle: SimulatorHandle, _ requests: [[String: Any]], alias: String = Seed.webservicesUsername, version: String = "1.00",
        headers: [String: String] = [:], basic: (String, String)? = (Seed.webservicesUsername, Seed.webservicesPassword)
    ) async throws -> RawResponse {
        let envelope: [String: Any] = ["alias": alias, "version": version, "request": requests, "libraryversion": "test"]
        return try await post(handle, "/json/", body: try JSONText.data(envelope), headers: headers, basic: basic)
    }

    /// A card request (ACCOUNTCHECK by default) as the official Python client would build it.
    static func cardRequest(
        types: [String] = ["ACCOUNTCHECK"], pan: String = Seed.Card.visa, securityCode: String = "123", amount: String = "1050",
        cof: String? = "1", site: String = Seed.siteReference, extra: [String: Any] = [:]
    ) -> [String: Any] {
        var request: [String: Any] = [
            "sitereference": site, "requesttypedescriptions": types, "accounttypedescription": "ECOM", "currencyiso3a": "GBP",
            "baseamount": amount, "pan": pan, "expirydate": Seed.expiryDate, "securitycode": securityCode,
        ]
        if let cof { request["credentialsonfile"] = cof }
        request.merge(extra) { _, new in new }
        return request
    }

    /// A merchant-initiated AUTH on a parent.
    static func childRequest(parent: String, reason: String? = "C", amount: String = "1050", cof: String = "2", extra: [String: Any] = [:]) -> [String: Any] {
        var request: [String: Any] = [
            "sitereference": Seed.siteReference, "requesttypedescriptions": ["AUTH"], "accounttypedescription": "ECOM",
            "currencyiso3a": "GBP", "baseamount": amount, "parenttransactionreference": parent, "credentialsonfile": cof,
        ]
        if let reason { request["initiationreason"] = reason }
        request.merge(extra) { _, new in new }
        return request
    }

    /// A session JWT minted independently of the adapter.
    static func sessionJWT(payload: [String: Any], secret: String = Seed.jwtSecret, iss: String = Seed.jwtUsername) throws -> String {
        try IndependentJWT.make(claims: ["iss": iss, "iat": Int(SimFixture.now.timeIntervalSince1970), "payload": payload], secret: secret)
    }

    static func storePayload(types: [String] = ["ACCOUNTCHECK"], amount: String = "1050") -> [String: Any] {
        [
            "sitereference": Seed.siteReference, "accounttypedescription": "ECOM", "currencyiso3a": "GBP", "baseamount": amount,
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
