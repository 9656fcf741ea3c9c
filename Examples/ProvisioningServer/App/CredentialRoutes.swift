import CardGateway
import Foundation
import Hummingbird

/// A stored credential as the app sees it (masked PAN only).
struct StoredCredentialView: Encodable, Sendable {
    var reference: String
    var provider: String?
    var maskedPAN: String
    var brand: String?
    var scheme: CardScheme
    var created: Date

    init(_ credential: StoredCredential) {
        reference = credential.reference
        provider = credential.provider
        maskedPAN = credential.maskedPAN
        brand = credential.brand
        scheme = credential.scheme
        created = credential.created
    }
}

struct StoredCredentialListView: Encodable, Sendable {
    var credentials: [StoredCredentialView]
}

struct ClientSessionView: Encodable, Sendable {
    var token: String
    var securityCodeLength: Int?
    var expiresAt: Date?
}

extension ProvisioningServer {
    /// Where stored-credential operations go; 501 when the server has none configured.
    func storedCredentialRoute() throws -> RouteTarget {
        guard let route = configuration.storedCredentialRoute else {
            throw APIProblem.unsupported("This server is not configured for stored credentials.")
        }
        return route
    }

    /// `POST /v1/credentials/session`: a token for the provider's SDK, to store a card with consent or to pay
    /// with one the user owns.
    func credentialSession(_ scope: RequestScope, _ user: AppUser) async throws -> Response {
        let route = try storedCredentialRoute()
        let request = try Self.clientSessionRequest(from: try await scope.jsonBody(), customer: user.id)
        if case .reuse(let reference) = request.intent {
            guard try await directory.credential(reference: reference, of: user) != nil else {
                throw APIProblem.notFound("No stored credential with this reference belongs to the authenticated user.")
            }
        }
        let session = try await gateway.clientSession(request, via: route, context: try scope.operationContext(user: user))
        return JSONOutput.response(ClientSessionView(
            token: session.token.revealedValue, securityCodeLength: session.securityCodeLength, expiresAt: session.expires
        ))
    }

    /// Reads `{"intent": "store"|"reuse", "consent"?, "reference"?, "amount", "paymentMethod"?, "orderReference"?}`.
    static func clientSessionRequest(from data: Data, customer: String) throws -> ClientSessionRequest {
        var body = try JSONBody(data, allowed: ["intent", "consent", "reference", "amount", "paymentMethod", "orderReference"])
        let intentName = body.string("intent", maxLength: 16)
        let amount: Money? = body.object("amount", allowed: ["minorUnits", "currency"]) { amount in
            let minorUnits = amount.integer("minorUnits")
            let currency = amount.string("currency", maxLength: 3)
            guard let minorUnits, let currency else { return nil }
            let money = Money(minorUnits: minorUnits, currency: currency)
            if minorUnits <= 0 { amount.refuse("minorUnits", "must be a positive number of minor units") }
            if !Money.isCurrencyCode(currency) { amount.refuse("currency", "must be an ISO 4217 alpha-3 code such as GBP") }
            return money
        }
        var paymentMethod = PaymentMethodKind.card
        if let name = body.string("paymentMethod", required: false, maxLength: 32) {
            if let kind = PaymentMethodKind(rawValue: name) {
                paymentMethod = kind
            } else {
                body.refuse("paymentMethod", "must be one of \(PaymentMethodKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        let orderReference = body.string("orderReference", required: false, maxLength: 64)

        var intent: ClientSessionRequest.Intent?
        switch intentName {
        case "store":
            if body.has("reference") { body.refuse("reference", "is only allowed with intent reuse") }
            let consent: CardholderConsent? = body.object("consent", allowed: ["recordedAt", "evidence"]) { consent in
                let recordedAt = consent.date("recordedAt")
                let evidence = consent.string("evidence", maxLength: 500)
                guard let recordedAt, let evidence else { return nil }
                return CardholderConsent(recordedAt: recordedAt, evidence: evidence)
            }
            if let consent { intent = .store(consent: consent) }
        case "reuse":
            if body.has("consent") { body.refuse("consent", "is only allowed with intent store") }
            if let reference = body.string("reference", maxLength: 128) { intent = .reuse(reference: reference) }
        case nil:
            break
        default:
            body.refuse("intent", "must be store or reuse")
        }
        try body.finish()
        guard let intent, let amount else { throw APIProblem.invalidRequest("The session request is incomplete.") }
        return ClientSessionRequest(intent: intent, amount: amount, paymentMethod: paymentMethod, customer: customer, orderReference: orderReference)
    }

    /// `POST /v1/credentials/result`: verifies the SDK's result JWT and records the credential as the user's.
    func credentialResult(_ scope: RequestScope, _ user: AppUser) async throws -> Response {
        let route = try storedCredentialRoute()
        var body = try JSONBody(try await scope.jsonBody(), allowed: ["jwt"])
        let jwt = body.string("jwt", maxLength: 16 * 1024)
        try body.finish()
        guard let jwt else { throw APIProblem.invalidRequest("jwt is required.") }
        let credential = try await gateway.verifyResult(Secret(jwt), customer: user.id, via: route, context: try scope.operationContext(user: user))
        try await directory.recordCredential(credential, for: user)
        return JSONOutput.response(StoredCredentialView(credential))
    }

    /// `GET /v1/credentials`: the user's stored credentials.
    func listCredentials(_ scope: RequestScope, _ user: AppUser) async throws -> Response {
        let credentials = try await directory.credentials(of: user)
        return JSONOutput.response(StoredCredentialListView(credentials: credentials.map(StoredCredentialView.init)))
    }
}
