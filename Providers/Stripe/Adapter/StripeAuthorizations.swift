@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// Real-time authorizations (docs.stripe.com/issuing/controls/real-time-authorizations): Stripe posts the event
/// `issuing_authorization.request`, whose `data.object` is the `issuing.authorization` with its `pending_request`, to
/// the synchronous endpoint, signed with `Stripe-Signature` by that endpoint's own secret, and reads from an HTTP 200
/// within two seconds the header `Stripe-Version` (required) and the JSON `{"approved": bool, "amount"?: int,
/// "metadata"?: {…}}`. Without an answer in time Stripe applies the account's timeout setting.
extension StripeProvider: AuthorizationResponding {
    /// The event type of a real-time authorization request.
    static let authorizationRequestType = "issuing_authorization.request"
    /// The `metadata` key our decline reason is written under: Stripe's answer takes no reason of its own.
    static let declineReasonMetadataKey = "decline_reason"

    /// Our decline reasons as written in the answer's `metadata.decline_reason`: the one table. Stripe's answer has no
    /// decline reason (only `approved`, `amount` and `metadata`), and Stripe records every decline by the endpoint as
    /// `request_history.reason` `webhook_declined` whatever the metadata says; the metadata stays on the authorization
    /// for the integrator's own reading (Providers/Stripe/README.md).
    static let declineReasonMetadata: [AuthorizationDeclineReason: String] = [
        .insufficientFunds: "insufficientFunds",
        .merchantCategoryBlocked: "merchantCategoryBlocked",
        .merchantCountryBlocked: "merchantCountryBlocked",
        .amountLimitExceeded: "amountLimitExceeded",
        .cardInactive: "cardInactive",
        .suspectedFraud: "suspectedFraud",
        .other: "other",
    ]

    /// The `echo` key of the `Stripe-Version` the answer carries.
    static let stripeVersionEcho = "stripeVersion"

    /// Checks `Stripe-Signature` with the instance's `authorizationWebhookSecret` (constant-time, the timestamp no older
    /// than the webhook tolerance), then reads the event:
    ///
    /// - the `issuing.authorization`'s `id` (`iauth_…`) is the request's id, `card.id` the card;
    /// - `pending_request.amount` / `currency` (lower case at Stripe) the amount, `merchant_amount` /
    ///   `merchant_currency` the merchant amount when it differs, `is_amount_controllable` whether a smaller amount may
    ///   be approved, `network_risk_score` as given;
    /// - `merchant_data.name`, `category_code` (four digits), `country` (alpha-2 at Stripe), `city`, `network_id`;
    /// - `authorization_method` the entry mode;
    /// - the kind is `incremental` when `request_history` already holds an approved request of this authorization
    ///   (Stripe's `request_history`: "If the merchant changes the authorization by performing an incremental
    ///   authorization, you can look at this field to see the previous requests"; its `pending_request.amount` is then
    ///   "the additional amount Stripe will hold"), `authorization` otherwise.
    ///
    /// The answer's `Stripe-Version` is the event's `api_version` (the version its data was rendered with), or the
    /// instance's `apiVersion` option when the event has none.
    public func authorization(from delivery: WebhookDelivery, now: Date) throws -> ProviderAuthorization {
        guard let secret = configuration.authorizationWebhookSecret else {
            throw CardGatewayError(
                .invalidConfiguration,
                "providers.\(http.instance).credentials.authorizationWebhookSecret is not configured, so Stripe's "
                    + "issuing_authorization.request cannot be verified",
                provider: http.instance, providerKind: .stripe)
        }
        try StripeWebhookVerifier(secrets: [secret], tolerance: configuration.webhookTolerance).verify(
            delivery, now: now)
        let event: StripeAuthorizationEventWire
        do {
            event = try StripeJSON.decoder().decode(StripeAuthorizationEventWire.self, from: delivery.body)
        } catch {
            throw CardGatewayError.invalidRequest("the body is not a Stripe issuing_authorization.request event")
        }
        guard event.type == Self.authorizationRequestType, event.object == nil || event.object == "event" else {
            throw CardGatewayError.invalidRequest(
                "the Stripe event is \(event.type), not \(Self.authorizationRequestType)")
        }
        let wire = event.data.object
        guard wire.object == nil || wire.object == "issuing.authorization" else {
            throw CardGatewayError.invalidRequest("the event's object is not an issuing.authorization")
        }
        guard !wire.id.isEmpty, !wire.card.id.isEmpty else {
            throw CardGatewayError.invalidRequest("the issuing.authorization has no id or no card")
        }
        guard let pending = wire.pendingRequest else {
            throw CardGatewayError.invalidRequest("the issuing.authorization has no pending_request")
        }
        let currency = pending.currency.uppercased()
        guard pending.amount > 0, Money.isCurrencyCode(currency) else {
            throw CardGatewayError.invalidRequest(
                "pending_request must hold a positive amount in an ISO 4217 currency")
        }
        let amount = Money(minorUnits: pending.amount, currency: currency)
        var merchantAmount: Money?
        if let value = pending.merchantAmount, let code = pending.merchantCurrency?.uppercased(), value > 0,
            Money.isCurrencyCode(code), code != currency || value != pending.amount
        {
            merchantAmount = Money(minorUnits: value, currency: code)
        }
        guard let version = event.apiVersion ?? configuration.apiVersion, StripeAPIVersion.isValid(version) else {
            throw CardGatewayError.invalidRequest(
                "the event has no api_version and options.apiVersion is not set, so the answer's Stripe-Version is unknown"
            )
        }
        let merchant = wire.merchantData
        let request = AuthorizationRequest(
            id: wire.id, providerKind: .stripe,
            kind: (wire.requestHistory ?? []).contains(where: { $0.approved == true }) ? .incremental : .authorization,
            card: CardRef(id: wire.card.id), amount: amount, merchantAmount: merchantAmount,
            amountAdjustable: pending.isAmountControllable ?? false,
            merchant: AuthorizationRequest.Merchant(
                name: merchant?.name, categoryCode: Self.categoryCode(merchant?.categoryCode),
                country: Self.alpha2(merchant?.country), city: merchant?.city, networkID: merchant?.networkID),
            entryMode: wire.authorizationMethod, networkRiskScore: pending.networkRiskScore)
        return ProviderAuthorization(request: request, echo: [Self.stripeVersionEcho: version])
    }

    /// HTTP 200 with `Stripe-Version` (the event's) and `Content-Type: application/json`; the body
    /// `{"approved": true}`, `{"amount": n, "approved": true}` for a smaller amount (only where
    /// `is_amount_controllable` was true), or `{"approved": false, "metadata": {"decline_reason": "…"}}`.
    public func answer(
        _ decision: AuthorizationDecision, to authorization: ProviderAuthorization
    ) throws -> AuthorizationAnswer {
        let request = authorization.request
        guard let version = authorization.echo[Self.stripeVersionEcho] else {
            throw CardGatewayError.invalidRequest("the authorization was not read by the Stripe adapter")
        }
        var body = StripeAuthorizationAnswerWire(approved: decision.approved)
        if decision.approved, let amount = decision.amount {
            if let problem = decision.problem(answering: request) {
                throw CardGatewayError.invalidRequest("the decision \(problem)")
            }
            body.amount = amount.minorUnits
        }
        if !decision.approved {
            let reason = decision.reason ?? .other
            body.metadata = [
                Self.declineReasonMetadataKey: Self.declineReasonMetadata[reason] ?? Self.declineReasonMetadata[.other]!
            ]
        }
        let data = try StripeJSON.encoder.encode(body)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[StripeAPI.stripeVersionHeader] = version
        return AuthorizationAnswer(status: .ok, headers: headers, body: data)
    }

    /// Four digits, or nil.
    static func categoryCode(_ code: String?) -> String? {
        guard let code, code.utf8.count == 4, code.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return code
    }

    /// Stripe's `merchant_data.country` is ISO 3166-1 alpha-2 (Stripe's example: "US"): upper-cased, or nil for
    /// anything that is not two letters.
    static func alpha2(_ country: String?) -> String? {
        guard let country else { return nil }
        let code = country.trimmingCharacters(in: .whitespaces).uppercased()
        guard code.utf8.count == 2, code.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        return code
    }
}
