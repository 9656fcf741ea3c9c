import CardGatewaySimulation
import Foundation
import HTTPTypes

// Stripe's side of real-time authorizations (docs.stripe.com/issuing/controls/real-time-authorizations and
// /issuing/purchases/authorizations): for a purchase on an active card Stripe creates an `issuing.authorization` with a
// `pending_request`, posts the event `issuing_authorization.request` to the synchronous endpoint signed with that
// endpoint's secret, and waits two seconds for HTTP 200 with `Stripe-Version` and `{"approved", "amount"?,
// "metadata"?}`. It records each request in the authorization's `request_history` with its `reason`:
// `webhook_approved`, `webhook_declined`, `webhook_timeout` (no answer in time: the account's timeout setting decides),
// or `webhook_error` (an answer it cannot use). An inactive or canceled card is declined without asking
// (`card_inactive`, `card_canceled`).

/// One request of an authorization, as `request_history` records it.
struct StripeSimulatorAuthorizationRequest: Sendable {
    var amount: Int64
    var currency: String
    var merchantAmount: Int64
    var merchantCurrency: String
    var approved: Bool
    var reason: String
    var reasonMessage: String?
    var created: Int64
    var authorizationCode: String?
}

/// An `issuing.authorization` as the simulator keeps it.
struct StripeSimulatorAuthorization: Sendable {
    var id: String
    var cardID: String
    var created: Int64
    var currency: String
    var merchantCurrency: String
    /// The total approved, in the card's currency (0 until a request is approved).
    var amount: Int64 = 0
    var merchantAmount: Int64 = 0
    var approved = false
    var status = "pending"
    var authorizationMethod = "online"
    var merchant: AuthorizationOrder.Merchant
    var metadata: [(String, String)] = []
    var history: [StripeSimulatorAuthorizationRequest] = []
}

extension StripeSimulator {
    /// Stripe's wait for the synchronous endpoint's answer.
    public static let authorizationDeadlineMilliseconds = 2000
    /// What the simulated account's webhook timeout setting does with an authorization whose answer did not come in
    /// time (Stripe: "Stripe uses your webhook timeout settings to approve or decline the authorization"): declines.
    public static let authorizationTimeoutApproves = false

    /// The pending request the network puts to the endpoint.
    struct PendingAuthorizationRequest: Sendable {
        var amount: Int64
        var currency: String
        var controllable: Bool
    }

    /// Plays Stripe for one order: builds the `issuing.authorization` (a new one, or for `kind` `incremental` the card's
    /// latest approved authorization still pending, under its id) with its `pending_request`, sends the
    /// `issuing_authorization.request` event signed with ``Credentials/authorizationWebhookSecret`` under two seconds,
    /// Stripe's deadline (or the order's `deadlineMilliseconds`: shorter to play a tighter network, or longer, up to
    /// ``SimulatedNetwork/longestTestDeadline``, so that a test on a loaded machine checks the wiring and not the
    /// machine's speed), reads the answer as Stripe does, and answers HTTP 200 with the authorization as Stripe then
    /// renders it. An unknown card is Stripe's 400 `resource_missing`; a deadline above the longest, another kind, or a
    /// currency other than the card's, a 400 `invalid_request_error`.
    public func authorize(_ order: AuthorizationOrder) async -> SimulatedResponse? {
        let deadline = order.deadlineMilliseconds ?? Self.authorizationDeadlineMilliseconds
        guard deadline <= SimulatedNetwork.longestTestDeadline else {
            return errorResponse(
                .invalid(
                    "deadlineMilliseconds must be at most \(SimulatedNetwork.longestTestDeadline) (Stripe itself waits two seconds for the answer).",
                    param: "deadlineMilliseconds"))
        }
        let kind = order.kind ?? "authorization"
        guard kind == "authorization" || kind == "incremental" else {
            return errorResponse(
                .invalidValue("kind", kind, allowed: ["authorization", "incremental"]))
        }
        guard let card = cards.get(order.card) else {
            return errorResponse(.noSuch("issuing card", order.card, param: "card", status: 400))
        }
        let currency = order.currency.lowercased()
        guard currency == card.currency else {
            return errorResponse(
                .invalid(
                    "The simulator authorizes in the card's currency (\(card.currency)); \(currency) would need a conversion rate.",
                    param: "currency"))
        }
        let now = Int64(simulationClock.now().timeIntervalSince1970)
        var authorization: StripeSimulatorAuthorization
        if kind == "incremental" {
            guard
                let latest = authorizations.filter({ $0.cardID == card.id && $0.approved && $0.status == "pending" })
                    .max(by: { $0.created < $1.created })
            else {
                return errorResponse(
                    .invalid(
                        "The card \(card.id) has no approved authorization still pending to increment.", param: "card"))
            }
            authorization = latest
        } else {
            authorization = StripeSimulatorAuthorization(
                id: ids.next(prefix: "iauth_", length: 24), cardID: card.id, created: now, currency: card.currency,
                merchantCurrency: currency, merchant: order.merchant)
        }
        let pending = PendingAuthorizationRequest(
            amount: order.amount, currency: currency, controllable: order.amountAdjustable ?? false)

        guard card.status == "active" else {
            // Stripe declines without asking the endpoint when the card is not active.
            let reason = card.status == "canceled" ? "card_canceled" : "card_inactive"
            record(&authorization, pending, approved: false, amount: nil, reason: reason, message: nil, at: now)
            authorizations.put(authorization.id, authorization)
            return jsonResponse(200, render(authorization: authorization, pending: nil))
        }

        let signed = authorizationRequest(authorization, pending: pending)
        var fields = HTTPFields()
        for (name, value) in signed.headers {
            if let fieldName = HTTPField.Name(name) { fields[fieldName] = value }
        }
        let reply = await SimulatedNetwork.send(
            signed.body, headers: fields, to: order.url, deadline: .milliseconds(deadline))
        let read = Self.read(reply, pending: pending)
        // An incremental request settles on the authorization as it stands now.
        authorization = authorizations.get(authorization.id) ?? authorization
        record(
            &authorization, pending, approved: read.approved, amount: read.amount, reason: read.reason,
            message: read.message, at: now)
        for (key, value) in read.metadata {
            if let index = authorization.metadata.firstIndex(where: { $0.0 == key }) {
                authorization.metadata[index].1 = value
            } else {
                authorization.metadata.append((key, value))
            }
        }
        authorizations.put(authorization.id, authorization)
        return jsonResponse(200, render(authorization: authorization, pending: nil))
    }

    /// The `issuing_authorization.request` delivery for `authorization` asking `pending`: the event (its `api_version`
    /// the account's, ``Seed/accountAPIVersion``) with `Stripe-Signature` by ``Credentials/authorizationWebhookSecret``
    /// (or `secret`), `Content-Type: application/json; charset=utf-8`, `Accept: application/json` (Stripe's changelog
    /// 2025-03-31.basil, "HTTP Accept headers for webhooks now specify JSON during Issuing authorizations") and Stripe's
    /// webhook `User-Agent`.
    func authorizationRequest(
        _ authorization: StripeSimulatorAuthorization, pending: PendingAuthorizationRequest, secret: String? = nil,
        timestamp: Date? = nil
    ) -> (headers: [(String, String)], body: Data) {
        let object = render(authorization: authorization, pending: pending)
        var signed = signedWebhook(
            type: "issuing_authorization.request", object: object, timestamp: timestamp,
            secret: secret ?? credentials.authorizationWebhookSecret)
        signed.headers.append(("Accept", "application/json"))
        signed.headers.append(("User-Agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)"))
        return signed
    }

    /// A signed `issuing_authorization.request` for a new authorization on `card` (the published fixture's merchant
    /// unless given), as the network would send it: for tests and the CLI that check an endpoint by hand. Nil for an
    /// unknown card.
    public func signedAuthorizationRequest(
        card: String, amount: Int64, merchant: AuthorizationOrder.Merchant? = nil, controllable: Bool = false,
        secret: String? = nil, timestamp: Date? = nil
    ) -> (headers: [(String, String)], body: Data)? {
        guard let stored = cards.get(card) else { return nil }
        let now = Int64(simulationClock.now().timeIntervalSince1970)
        let authorization = StripeSimulatorAuthorization(
            id: ids.next(prefix: "iauth_", length: 24), cardID: card, created: now, currency: stored.currency,
            merchantCurrency: stored.currency,
            merchant: merchant
                ?? AuthorizationOrder.Merchant(
                    name: "Rocket Rides", categoryCode: "4121", country: "US", city: "San Francisco"))
        return authorizationRequest(
            authorization,
            pending: PendingAuthorizationRequest(amount: amount, currency: stored.currency, controllable: controllable),
            secret: secret, timestamp: timestamp)
    }

    /// The authorization as Stripe renders it (`issuing.authorization`), nil when there is none.
    public func authorizationObject(_ id: String) -> StripeSimulatorJSON? {
        authorizations.get(id).map { render(authorization: $0, pending: nil) }
    }

    /// What Stripe makes of the endpoint's reply.
    struct ReadAnswer {
        var approved: Bool
        var amount: Int64?
        var reason: String
        var message: String?
        var metadata: [(String, String)] = []
    }

    /// Stripe's reading of the answer: HTTP 200, a `Stripe-Version`, JSON (the only content type it accepts) with a
    /// boolean `approved`, an `amount` only when the request's amount is controllable (positive, at most the request's),
    /// and `metadata` of strings. No answer within the deadline is `webhook_timeout` (the timeout setting decides);
    /// anything else is `webhook_error` with a `reason_message`, and declines.
    static func read(_ reply: NetworkReply, pending: PendingAuthorizationRequest) -> ReadAnswer {
        func error(_ message: String) -> ReadAnswer {
            ReadAnswer(approved: false, amount: nil, reason: "webhook_error", message: message)
        }
        switch reply.outcome {
        case .timedOut:
            return ReadAnswer(approved: authorizationTimeoutApproves, amount: nil, reason: "webhook_timeout")
        case .failed:
            return error("The webhook endpoint could not be reached.")
        case .answered(let status, let headers, let body):
            guard status == 200 else { return error("The webhook endpoint answered HTTP \(status), not 200.") }
            guard let version = headers[HTTPField.Name("Stripe-Version")!], !version.isEmpty else {
                return error("The response has no Stripe-Version header.")
            }
            if let type = headers[.contentType],
                type.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
                    != "application/json"
            {
                return error("The response's Content-Type is not application/json.")
            }
            guard case .object(let object)? = try? JSONDecoder().decode(StripeSimulatorAnswerValue.self, from: body)
            else {
                return error("The response body is not a JSON object.")
            }
            let unknown = Set(object.keys).subtracting(["approved", "amount", "metadata"])
            if let first = unknown.sorted().first { return error("Received unknown parameter: \(first).") }
            guard case .bool(let approved)? = object["approved"] else {
                return error("Missing required param: approved.")
            }
            var amount: Int64?
            if let value = object["amount"] {
                guard pending.controllable else {
                    return error("amount can only be given when pending_request.is_amount_controllable is true.")
                }
                guard case .int(let number) = value, number > 0, number <= pending.amount else {
                    return error("amount must be a positive integer no greater than pending_request.amount.")
                }
                amount = number
            }
            var metadata: [(String, String)] = []
            if let value = object["metadata"] {
                guard case .object(let pairs) = value, pairs.count <= 50 else {
                    return error("metadata must be an object of at most 50 keys.")
                }
                for (key, member) in pairs.sorted(by: { $0.key < $1.key }) {
                    guard case .string(let text) = member, key.count <= 40, text.count <= 500 else {
                        return error("metadata keys are at most 40 characters, values strings of at most 500.")
                    }
                    metadata.append((key, text))
                }
            }
            var read = ReadAnswer(
                approved: approved, amount: approved ? amount : nil,
                reason: approved ? "webhook_approved" : "webhook_declined")
            read.metadata = metadata
            return read
        }
    }

    /// Appends the request to `request_history` and settles the authorization as Stripe does: an approval holds the
    /// amount approved (the answer's `amount`, or the request's) and leaves the authorization `pending`; a declined
    /// first request closes it; a declined incremental request leaves what was approved before.
    func record(
        _ authorization: inout StripeSimulatorAuthorization, _ pending: PendingAuthorizationRequest, approved: Bool,
        amount: Int64?,
        reason: String, message: String?, at now: Int64
    ) {
        let code = approved ? "S" + String(format: "%06d", ids.nextInt(in: 0...999_999)) : nil
        authorization.history.append(
            StripeSimulatorAuthorizationRequest(
                amount: pending.amount, currency: pending.currency, merchantAmount: pending.amount,
                merchantCurrency: pending.currency, approved: approved, reason: reason, reasonMessage: message,
                created: now, authorizationCode: code))
        if approved {
            let held = amount ?? pending.amount
            authorization.amount += held
            authorization.merchantAmount += held
            authorization.approved = true
            authorization.status = "pending"
        } else if !authorization.approved {
            authorization.status = "closed"
        }
    }

    /// `issuing.authorization`, with the members of Stripe's published example (fixtures3 `issuing.authorization`):
    /// `pending_request` only while the request is being asked.
    func render(
        authorization: StripeSimulatorAuthorization, pending: PendingAuthorizationRequest?
    ) -> StripeSimulatorJSON {
        let card: StripeSimulatorJSON =
            cards.get(authorization.cardID).map { render(card: $0, livemode: false) } ?? .string(authorization.cardID)
        let holder: StripeSimulatorJSON = .optional(cards.get(authorization.cardID)?.cardholderID)
        let merchant = authorization.merchant
        let pendingJSON: StripeSimulatorJSON =
            pending.map {
                [
                    "amount": .int($0.amount), "amount_details": nil, "currency": .string($0.currency),
                    "is_amount_controllable": .bool($0.controllable), "merchant_amount": .int($0.amount),
                    "merchant_currency": .string($0.currency), "network_risk_score": nil,
                ]
            } ?? .null
        let history: [StripeSimulatorJSON] = authorization.history.map {
            [
                "amount": .int($0.amount), "amount_details": nil, "approved": .bool($0.approved),
                "authorization_code": .optional($0.authorizationCode), "created": .int($0.created),
                "currency": .string($0.currency), "merchant_amount": .int($0.merchantAmount),
                "merchant_currency": .string($0.merchantCurrency), "network_risk_score": nil,
                "reason": .string($0.reason), "reason_message": .optional($0.reasonMessage),
                "requested_at": .int($0.created),
            ]
        }
        return .object([
            ("id", .string(authorization.id)),
            ("object", "issuing.authorization"),
            ("amount", .int(authorization.amount)),
            ("amount_details", nil),
            ("approved", .bool(authorization.approved)),
            ("authorization_method", .string(authorization.authorizationMethod)),
            ("balance_transactions", []),
            ("card", card),
            ("card_presence", nil),
            ("cardholder", holder),
            ("created", .int(authorization.created)),
            ("currency", .string(authorization.currency)),
            ("fleet", nil),
            ("fuel", nil),
            ("livemode", false),
            ("merchant_amount", .int(authorization.merchantAmount)),
            ("merchant_currency", .string(authorization.merchantCurrency)),
            (
                "merchant_data",
                [
                    "category": .string(Self.merchantCategory(merchant.categoryCode)),
                    "category_code": .string(merchant.categoryCode ?? "5999"), "city": .optional(merchant.city),
                    "country": .optional(merchant.country?.uppercased()), "name": .optional(merchant.name),
                    "network_id": "1234567890", "postal_code": nil, "state": nil, "tax_id": nil, "terminal_id": nil,
                    "url": nil,
                ]
            ),
            ("metadata", .object(authorization.metadata.map { ($0.0, .string($0.1)) })),
            (
                "network_data",
                ["acquiring_institution_id": nil, "system_trace_audit_number": nil, "transaction_id": nil]
            ),
            ("pending_request", pendingJSON),
            ("request_history", .array(history)),
            ("status", .string(authorization.status)),
            ("token", nil),
            ("transactions", []),
            (
                "verification_data",
                [
                    "address_line1_check": "not_provided", "address_postal_code_check": "not_provided",
                    "authentication_exemption": nil, "cvc_check": "match", "expiry_check": "match", "postal_code": nil,
                    "three_d_secure": nil,
                ]
            ),
            ("verified_by_fraud_challenge", nil),
            ("wallet", nil),
        ])
    }

    /// Stripe's `merchant_data.category` for the merchant category codes the simulator's orders use (Stripe's merchant
    /// categories guide, docs.stripe.com/issuing/categories); `miscellaneous` for any other code (the simulator's own
    /// word, not one of Stripe's).
    static func merchantCategory(_ code: String?) -> String {
        switch code {
        case "4121": "taxicabs_limousines"
        case "5411": "grocery_stores_supermarkets"
        case "5541": "service_stations"
        case "5542": "automated_fuel_dispensers"
        case "5812": "eating_places_restaurants"
        case "7011": "hotels_motels_and_resorts"
        case "7995": "betting_casino_gambling"
        default: "miscellaneous"
        }
    }

    func errorResponse(_ error: StripeSimulatorFailure) -> SimulatedResponse {
        jsonResponse(error.status, error.json).withHeader("Request-Id", requestIDs.next(prefix: "req_", length: 14))
    }
}

/// A JSON value as the simulated network reads an answer, booleans apart from numbers.
enum StripeSimulatorAnswerValue: Decodable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case number(Double)
    case string(String)
    case array([StripeSimulatorAnswerValue])
    case object([String: StripeSimulatorAnswerValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([StripeSimulatorAnswerValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: StripeSimulatorAnswerValue].self))
        }
    }
}
