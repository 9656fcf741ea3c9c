@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// The HTTP Basic credentials of the relayed authorisation webhook (the instance's `authorizationUsername` and
/// `authorizationPassword`), kept as the bytes of `username:password` to compare in constant time.
struct AdyenRelayedAuthorisationCredentials: Sendable {
    let userPass: SensitiveData

    /// Nil when neither is configured; `invalidConfiguration` when only one is, or one is empty or holds a colon in
    /// the user name (RFC 7617: the user name cannot contain one).
    init?(username: Secret?, password: Secret?, instance: String) throws {
        guard username != nil || password != nil else { return nil }
        let prefix = "providers.\(instance).credentials"
        guard let username, let password else {
            throw CardGatewayError(
                .invalidConfiguration,
                "\(prefix).authorizationUsername and authorizationPassword are configured together, or not at all",
                provider: instance, providerKind: .adyen)
        }
        let user = username.revealedValue
        guard !user.isEmpty, !user.contains(":"), !password.revealedValue.isEmpty else {
            throw CardGatewayError(
                .invalidConfiguration,
                "\(prefix).authorizationUsername must be a non-empty user name without a colon, and "
                    + "authorizationPassword must not be empty",
                provider: instance, providerKind: .adyen)
        }
        userPass = SensitiveData(Data((user + ":" + password.revealedValue).utf8))
    }
}

/// Relayed authorisation (`balancePlatform.authorisation.relayed`, Adyen's
/// `BalancePlatformRelayedAuthorisationNotification-v4`): Adyen asks, with HTTP Basic credentials, whether to
/// authorise a card payment, and reads `{"authorisationDecision": {"status": "Authorised" | "Refused",
/// "refusalReason"?}}` from an HTTP 200 within two seconds, or applies the fallback configured in the Customer Area.
extension AdyenProvider {
    /// The webhook's `type`.
    static let relayedAuthorisationType = "balancePlatform.authorisation.relayed"

    /// Our decline reasons in Adyen's `refusalReason`: the one table. Adyen's document types `refusalReason` as free
    /// text and publishes no values for it, so the reason's own name is sent (Providers/Adyen/README.md, [U]).
    static let refusalReasons: [AuthorizationDeclineReason: String] = [
        .insufficientFunds: "insufficientFunds",
        .merchantCategoryBlocked: "merchantCategoryBlocked",
        .merchantCountryBlocked: "merchantCountryBlocked",
        .amountLimitExceeded: "amountLimitExceeded",
        .cardInactive: "cardInactive",
        .suspectedFraud: "suspectedFraud",
        .other: "other",
    ]

    /// Checks the `Authorization: Basic` header against the instance's `authorizationUsername` and
    /// `authorizationPassword` (one constant-time comparison of `user:password`), then reads the
    /// `RelayedAuthorisationRequest`:
    ///
    /// - `id` (the transfer's id) is the request's id; `paymentInstrument.id` the card (its `balanceAccountId` the
    ///   customer);
    /// - `amount.value` is signed, negative for a debit: its magnitude is the amount; `originalAmount` the merchant
    ///   amount when it differs;
    /// - `merchantData.mcc` (four digits), `merchantId`, `nameLocation{name, city, country}` with the alpha-3 country
    ///   converted to alpha-2 (an alpha-2 one is taken as it is; anything else is no country);
    /// - `entryMode` and `schemeRiskScore` as given;
    /// - the kind is always an authorization, and the amount never adjustable: Adyen's answer has no amount.
    ///
    /// Adyen signs no timestamp here, so `now` is not used.
    public func authorization(from delivery: WebhookDelivery, now: Date) throws -> ProviderAuthorization {
        guard let credentials = relayedAuthorisation else {
            throw CardGatewayError(
                .invalidConfiguration,
                "providers.\(http.instance).credentials.authorizationUsername and authorizationPassword are needed "
                    + "to answer Adyen relayed authorisations",
                provider: http.instance, providerKind: .adyen)
        }
        let values = delivery.headers[values: .authorization]
        guard values.count == 1, let header = values.first else {
            throw relayRefused(
                values.isEmpty ? "the Authorization header is missing" : "more than one Authorization header")
        }
        let parts = header.trimmingCharacters(in: .whitespaces).split(
            separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = ByteEncoding.decodeBase64(parts[1].trimmingCharacters(in: .whitespaces))
        else {
            throw relayRefused("the Authorization header is not HTTP Basic")
        }
        guard ConstantTime.equals(decoded, credentials.userPass.revealedBytes) else {
            throw relayRefused("the HTTP Basic credentials are not the instance's")
        }

        let message: AdyenWireRelayedAuthorisation
        do {
            message = try JSONDecoder().decode(AdyenWireRelayedAuthorisation.self, from: delivery.body)
        } catch {
            throw unreadable("the request could not be read (\(DecodingProblem.describe(error)))")
        }
        if let type = message.type, type != Self.relayedAuthorisationType {
            throw unreadable(
                "the notification type \(SafeText.scrub(type, maxLength: 64)) is not a relayed authorisation")
        }
        guard let id = message.id, !id.isEmpty else { throw unreadable("the request has no id") }
        guard let card = message.paymentInstrument?.id, !card.isEmpty else {
            throw unreadable("the request has no paymentInstrument.id")
        }
        guard let amount = try Self.money(message.amount, field: "amount", instance: http.instance) else {
            throw unreadable("the request has no amount")
        }
        var merchantAmount = try Self.money(message.originalAmount, field: "originalAmount", instance: http.instance)
        if merchantAmount == amount { merchantAmount = nil }
        let customer = (message.paymentInstrument?.balanceAccountId ?? message.balanceAccount?.id).flatMap {
            $0.isEmpty ? nil : $0
        }
        let merchantData = message.merchantData
        let location = merchantData?.nameLocation
        let request = AuthorizationRequest(
            id: id, providerKind: .adyen, kind: .authorization, card: CardRef(id: card, customer: customer),
            amount: amount, merchantAmount: merchantAmount, amountAdjustable: false,
            merchant: AuthorizationRequest.Merchant(
                name: location?.name.flatMap { $0.isEmpty ? nil : $0 },
                categoryCode: Self.categoryCode(merchantData?.mcc),
                country: CountryCodes.alpha2(location?.country),
                city: location?.city.flatMap { $0.isEmpty ? nil : $0 },
                networkID: merchantData?.merchantId.flatMap { $0.isEmpty ? nil : $0 }),
            entryMode: message.entryMode.flatMap { $0.isEmpty ? nil : $0 },
            networkRiskScore: message.schemeRiskScore)
        return ProviderAuthorization(request: request)
    }

    /// `RelayedAuthorisationResponse`: HTTP 200, `{"authorisationDecision": {"status": "Authorised"}}` or
    /// `{"authorisationDecision": {"refusalReason": "…", "status": "Refused"}}` (``refusalReasons``). A partial amount
    /// cannot be expressed and is refused (the gateway never asks: the request is not adjustable).
    public func answer(
        _ decision: AuthorizationDecision, to authorization: ProviderAuthorization
    ) throws -> AuthorizationAnswer {
        if decision.approved, let amount = decision.amount, amount != authorization.request.amount {
            throw CardGatewayError(
                .unsupported, "Adyen's relayed authorisation answer has no amount: it cannot approve \(amount)",
                provider: http.instance, providerKind: .adyen)
        }
        let answer = AdyenWireRelayedAuthorisationResponse(
            authorisationDecision: AdyenWireRelayedAuthorisationResponse.Decision(
                refusalReason: decision.approved ? nil : Self.refusalReasons[decision.reason ?? .other] ?? "other",
                status: decision.approved ? "Authorised" : "Refused"))
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return AuthorizationAnswer(status: .ok, headers: headers, body: try calls.encode(answer))
    }

    /// The magnitude of a signed Adyen amount, its currency upper case; nil when absent.
    static func money(
        _ amount: AdyenWireRelayedAuthorisation.Amount?, field: String, instance: String
    ) throws
        -> Money?
    {
        guard let amount else { return nil }
        func refuse(_ message: String) -> CardGatewayError {
            CardGatewayError(
                .invalidRequest, "Adyen relayed authorisation: \(field) \(message)", provider: instance,
                providerKind: .adyen)
        }
        guard let value = amount.value, let currency = amount.currency else {
            throw refuse("needs value and currency")
        }
        guard value != Int64.min else { throw refuse("is out of range") }
        let code = currency.uppercased()
        guard Money.isCurrencyCode(code) else { throw refuse("has a currency that is not ISO 4217") }
        return Money(
            minorUnits: value.magnitude > UInt64(Int64.max) ? Int64.max : Int64(value.magnitude), currency: code)
    }

    /// A merchant category code as the four digits the networks use (`"742"` → `"0742"`); nil for anything else.
    static func categoryCode(_ mcc: String?) -> String? {
        guard let mcc, !mcc.isEmpty, mcc.utf8.count <= 4, mcc.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return nil
        }
        return String(repeating: "0", count: 4 - mcc.utf8.count) + mcc
    }

    private func relayRefused(_ message: String) -> CardGatewayError {
        CardGatewayError(
            .signatureInvalid, "Adyen relayed authorisation refused: \(message)", provider: http.instance,
            providerKind: .adyen)
    }

    private func unreadable(_ message: String) -> CardGatewayError {
        CardGatewayError(
            .invalidRequest, "Adyen relayed authorisation: \(message)", provider: http.instance, providerKind: .adyen)
    }
}
