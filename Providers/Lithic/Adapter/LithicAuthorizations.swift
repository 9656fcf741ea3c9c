@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

// Lithic Auth Stream Access (ASA): Lithic posts `card_authorization.approval_request` (the document's `webhooks`
// section: `{event_type}` and the `authorization` schema) to the program's responder endpoint, signed like a webhook
// (Standard Webhooks headers, keyed with the ASA HMAC secret of `GET /v1/auth_stream/secret`); the responder answers
// HTTP 200 with `asa-response` (`result`, `token`, `approved_amount`?, `balance`?). "Any other response will decline
// the authorization"; a 5XX makes Lithic "immediately retry the request once". Providers/Lithic/README.md cites each
// fact.
extension LithicProvider: AuthorizationResponding {
    /// Verifies the request (``LithicStandardWebhook``, with the instance's `asaSecret`) and reads it
    /// (``LithicASA/read(_:now:)``).
    public func authorization(from delivery: WebhookDelivery, now: Date) throws -> ProviderAuthorization {
        guard let asa else {
            throw CardGatewayError(
                .invalidConfiguration,
                "providers.\(http.instance).credentials.asaSecret is not configured, so Lithic ASA requests cannot be verified",
                provider: http.instance, providerKind: .lithic)
        }
        _ = try asa.verify(delivery, now: now)
        do {
            return try LithicASA.read(delivery.body)
        } catch let problem as LithicASA.Problem {
            throw CardGatewayError(
                .invalidRequest, "Lithic's ASA request could not be read: \(problem.reason)", provider: http.instance,
                providerKind: .lithic)
        }
    }

    /// The `asa-response`: HTTP 200, `{"result", "token"}`, `approved_amount` for a partial approval, `balance` for a
    /// balance inquiry (``LithicASA/answer(_:to:)``).
    public func answer(
        _ decision: AuthorizationDecision, to authorization: ProviderAuthorization
    ) throws -> AuthorizationAnswer {
        try LithicASA.answer(decision, to: authorization)
    }
}

/// Lithic's ASA wire, read and written (plain functions, so the tests reach each rule alone).
enum LithicASA {
    struct Problem: Error {
        var reason: String
    }

    /// `card_authorization.approval_request`: the event type of an ASA request.
    static let eventType = "card_authorization.approval_request"

    /// The request: `token` (the transaction's, repeated in the answer) is the id; `card.token` the card;
    /// `amounts.cardholder` (`amount` in minor units, `currency`) the amount, `amounts.merchant` the merchant's when it
    /// differs; `status` the kind (`BALANCE_INQUIRY` a balance inquiry, every other status an authorization, credits
    /// included: Lithic asks for a decision on each); `merchant` (`descriptor`, `mcc`, `city`, `country` alpha-3 turned
    /// to alpha-2, `acceptor_id`); `pos.entry_mode.pan`; `network_risk_score`. The amount may be reduced only when
    /// `pos.terminal.partial_approval_capable` is true.
    static func read(_ body: Data) throws -> ProviderAuthorization {
        let wire: LithicWireASARequest
        do {
            wire = try JSONDecoder().decode(LithicWireASARequest.self, from: body)
        } catch {
            throw Problem(reason: DecodingProblem.describe(error))
        }
        guard wire.eventType == nil || wire.eventType == eventType else {
            throw Problem(reason: "event_type is not \(eventType)")
        }
        guard let token = wire.token, !token.isEmpty else { throw Problem(reason: "it has no token") }
        guard let card = wire.card?.token, !card.isEmpty else { throw Problem(reason: "it has no card.token") }
        guard let cardholder = wire.amounts?.cardholder, let minor = cardholder.amount,
            let currency = cardholder.currency, currency.count == 3
        else {
            throw Problem(reason: "it has no amounts.cardholder amount and currency")
        }
        var merchantAmount: Money?
        if let merchant = wire.amounts?.merchant, let amount = merchant.amount, let code = merchant.currency,
            code != currency || amount != minor
        {
            merchantAmount = Money(minorUnits: abs(amount), currency: code)
        }
        let kind: AuthorizationRequest.Kind = wire.status == "BALANCE_INQUIRY" ? .balanceInquiry : .authorization
        let mcc = wire.merchant?.mcc.flatMap { $0.count == 4 && $0.allSatisfy(\.isNumber) ? $0 : nil }
        let request = AuthorizationRequest(
            id: token, providerKind: .lithic, kind: kind, card: CardRef(id: card),
            amount: Money(minorUnits: abs(minor), currency: currency), merchantAmount: merchantAmount,
            amountAdjustable: wire.pos?.terminal?.partialApprovalCapable ?? false,
            merchant: .init(
                name: wire.merchant?.descriptor.map { SafeText.scrub($0, maxLength: 64) }, categoryCode: mcc,
                country: CountryCodes.alpha2(wire.merchant?.country),
                city: wire.merchant?.city.map { SafeText.scrub($0, maxLength: 64) },
                networkID: wire.merchant?.acceptorID.map { SafeText.scrub($0, maxLength: 64) }),
            entryMode: wire.pos?.entryMode?.pan, networkRiskScore: wire.networkRiskScore)
        return ProviderAuthorization(request: request, echo: ["token": token])
    }

    /// The decline `result` for a reason, from the `asa-response` enumeration: insufficient funds
    /// `INSUFFICIENT_FUNDS`, a blocked merchant category or country `UNAUTHORIZED_MERCHANT`, an amount limit
    /// `VELOCITY_EXCEEDED`, an inactive card `CARD_PAUSED`, suspected fraud and any other reason `SUSPECTED_FRAUD`
    /// (the enumeration has no generic decline; every value but `APPROVED` declines).
    static func result(for reason: AuthorizationDeclineReason?) -> String {
        switch reason {
        case .insufficientFunds?: return "INSUFFICIENT_FUNDS"
        case .merchantCategoryBlocked?, .merchantCountryBlocked?: return "UNAUTHORIZED_MERCHANT"
        case .amountLimitExceeded?: return "VELOCITY_EXCEEDED"
        case .cardInactive?: return "CARD_PAUSED"
        default: return "SUSPECTED_FRAUD"
        }
    }

    static func answer(
        _ decision: AuthorizationDecision, to authorization: ProviderAuthorization
    ) throws
        -> AuthorizationAnswer
    {
        var object: [String: Any] = [
            "token": authorization.echo["token"] ?? authorization.request.id,
            "result": decision.approved ? "APPROVED" : result(for: decision.reason),
        ]
        if decision.approved, let amount = decision.amount { object["approved_amount"] = amount.minorUnits }
        if decision.approved, let balance = decision.balance {
            object["balance"] = ["amount": balance.minorUnits, "available": balance.minorUnits]
        }
        let body = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return AuthorizationAnswer(status: .ok, headers: headers, body: body)
    }
}
