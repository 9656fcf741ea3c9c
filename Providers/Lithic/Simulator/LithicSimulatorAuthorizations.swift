import CardGatewaySimulation
import Crypto
import Foundation
import HTTPTypes

// Lithic's side of Auth Stream Access: the platform posts `card_authorization.approval_request` (`{event_type}` and
// the `authorization` schema) to the responder endpoint, signed like a webhook with the ASA HMAC secret, reads the
// `asa-response`, retries once at once after a 5XX ("This will cause Lithic to immediately retry the request once"),
// and declines without an answer in time (`CUSTOMER_ASA_TIMEOUT`, a `detailed_result` of the document) or with a
// result other than `APPROVED`.
extension LithicSimulator {
    /// One ASA request as the simulator sends it.
    public struct ASARequest: Sendable {
        /// The transaction `token` the answer must repeat.
        public var token: String
        /// The requested amount in minor units, and its currency.
        public var amount: Int64
        public var currency: String
        /// `pos.terminal.partial_approval_capable`.
        public var partialApprovalCapable: Bool
        /// `Content-Type` and the Standard Webhooks headers.
        public var headers: [(String, String)]
        public var body: Data
    }

    /// The ASA deadline the simulator applies when an order names none: two seconds (*unconfirmed*: the document
    /// gives no value).
    public static let asaDefaultTimeoutMilliseconds = 2000

    /// The ASA request for `order`, signed with `secret` (the ASA secret by default) at `date` (the simulation clock's
    /// now by default), or nil when the order's card is not one of the simulator's. `status` is `AUTHORIZATION`, or
    /// `BALANCE_INQUIRY` for an order of kind `balanceInquiry`.
    public func asaRequest(
        _ order: AuthorizationOrder, secret: String = Seed.asaSecret, at date: Date? = nil
    ) -> ASARequest? {
        guard let card = state.cards.get(order.card) else { return nil }
        let sequence = state.asaSequence.withLock { value -> Int in
            value += 1
            return value
        }
        let now = date ?? simulationClock.now()
        let token = Self.uuidShaped("asa|\(sequence)|\(order.card)")
        let inquiry = order.kind == "balanceInquiry"
        let amount = inquiry ? 0 : order.amount
        let partial = !inquiry && (order.amountAdjustable ?? false)
        let country = order.merchant.country.map { SimulatedCountryCodes.alpha3($0) ?? $0 } ?? "USA"
        let money: [String: Any] = ["amount": amount, "currency": order.currency]
        let payload: [String: Any] = [
            "event_type": "card_authorization.approval_request", "token": token,
            "status": inquiry ? "BALANCE_INQUIRY" : "AUTHORIZATION",
            "created": SimulatorDateTime.format(now), "acquirer_fee": 0, "amount": amount,
            "authorization_amount": amount,
            "merchant_amount": amount, "settled_amount": 0, "cash_amount": 0, "cardholder_currency": order.currency,
            "merchant_currency": order.currency, "transaction_initiator": "CARDHOLDER", "network": "VISA",
            "network_risk_score": 12,
            "amounts": [
                "cardholder": ["amount": amount, "currency": order.currency, "conversion_rate": "1.000000"],
                "merchant": money, "settlement": NSNull(), "hold": NSNull(),
            ] as [String: Any],
            "avs": ["address": "", "zipcode": "", "address_on_file_match": "NOT_PRESENT"],
            "card": [
                "token": card.token, "last_four": card.lastFour, "memo": card.memo, "spend_limit": 0,
                "spend_limit_duration": "TRANSACTION", "state": card.state, "type": card.type,
            ] as [String: Any],
            "merchant": [
                "acceptor_id": "333301802529120", "acquiring_institution_id": "191231",
                "city": order.merchant.city ?? "NEW YORK", "country": country,
                "descriptor": order.merchant.name ?? "SIM MERCHANT", "mcc": order.merchant.categoryCode ?? "5812",
                "state": "", "postal_code": NSNull(), "street_address": NSNull(), "phone_number": NSNull(),
            ] as [String: Any],
            "pos": [
                "entry_mode": [
                    "card": "NOT_PRESENT", "cardholder": "NOT_PRESENT", "pan": "ECOMMERCE", "pin_entered": false,
                ],
                "terminal": [
                    "attended": false, "card_retention_capable": false, "on_premise": false, "operator": "UNKNOWN",
                    "partial_approval_capable": partial, "pin_capability": "NOT_CAPABLE", "type": "ECOMMERCE",
                ],
            ] as [String: Any],
            "service_location": NSNull(), "name_validation": NSNull(),
        ]
        let signed = self.signed(payload, secret: secret, at: now)
        return ASARequest(
            token: token, amount: amount, currency: order.currency, partialApprovalCapable: partial,
            headers: signed.headers, body: signed.body)
    }

    /// Plays Lithic for one order: sends ``asaRequest(_:secret:at:)`` under the order's deadline (two seconds by
    /// default), sends it once more at once after a 5XX, and answers what it recorded (``recordASAOutcome(_:replies:)``).
    /// An unknown card is Lithic's 404 error body.
    public func authorize(_ order: AuthorizationOrder) async -> SimulatedResponse? {
        let timeout = order.deadlineMilliseconds ?? Self.asaDefaultTimeoutMilliseconds
        guard let request = asaRequest(order) else {
            return LithicSimulatorErrors.body(404, "Card not found.")
        }
        var fields = HTTPFields()
        for (name, value) in request.headers {
            if let field = HTTPField.Name(name) { fields[field] = value }
        }
        var replies: [NetworkReply] = []
        for _ in 0..<2 {
            let reply = await SimulatedNetwork.send(
                request.body, headers: fields, to: order.url, deadline: .milliseconds(timeout))
            replies.append(reply)
            guard case .answered(let status, _, _) = reply.outcome, (500..<600).contains(status) else { break }
        }
        return .json(200, recordASAOutcome(request, replies: replies))
    }

    /// What Lithic records of one exchange, as the control call answers it: `token`, `result` (`APPROVED` or a decline
    /// reason), `detailed_result` (`CUSTOMER_ASA_TIMEOUT` without an answer in time, `CUSTOM_ASA_RESULT` for a result
    /// outside the enumeration), `approved_amount` (a partial approval), `attempts` (2 after a 5XX) and
    /// `elapsed_milliseconds`. Lithic approves on HTTP 200 whose `asa-response` says `APPROVED` for this `token`, with no
    /// `approved_amount` or, when the terminal takes a partial approval, a positive one below the request's.
    public func recordASAOutcome(_ request: ASARequest, replies: [NetworkReply]) -> [String: Any] {
        var record: [String: Any] = ["token": request.token, "result": "DECLINED", "attempts": replies.count]
        let last = replies.last
        if let elapsed = last?.elapsed {
            record["elapsed_milliseconds"] = Int(
                elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        }
        switch last?.outcome {
        case .timedOut?, .failed?, nil:
            record["detailed_result"] = "CUSTOMER_ASA_TIMEOUT"
        case .answered(let status, _, let body)?:
            let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
            let result = object?["result"] as? String
            let approved = object?["approved_amount"] as? Int64
            if status != 200 || object == nil || (object?["token"] as? String).map({ $0 != request.token }) == true {
                record["detailed_result"] = "CUSTOM_ASA_RESULT"
            } else if result == "APPROVED" {
                if let approved {
                    if request.partialApprovalCapable, approved > 0, approved < request.amount {
                        record["result"] = "APPROVED"
                        record["approved_amount"] = approved
                    } else {
                        record["detailed_result"] = "CUSTOM_ASA_RESULT"
                    }
                } else {
                    record["result"] = "APPROVED"
                }
            } else if let result, Self.asaResults.contains(result) {
                record["result"] = result
            } else {
                record["detailed_result"] = "CUSTOM_ASA_RESULT"
            }
        }
        if let data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]) {
            state.asaOutcomes.put(request.token, data)
        }
        return record
    }

    /// What the simulator recorded of the ASA request for transaction `token`, as JSON.
    public func asaOutcome(_ token: String) -> Data? { state.asaOutcomes.get(token) }

    /// `asa-response.result`'s enumeration.
    public static let asaResults: Set<String> = [
        "APPROVED", "AVS_INVALID", "CARD_PAUSED", "INSUFFICIENT_FUNDS", "UNAUTHORIZED_MERCHANT", "VELOCITY_EXCEEDED",
        "DRIVER_NUMBER_INVALID", "VEHICLE_NUMBER_INVALID", "SUSPECTED_FRAUD", "CHALLENGE",
    ]

    /// A stable UUID-shaped token.
    static func uuidShaped(_ seed: String) -> String {
        let chars = Array(hexDigest(seed, count: 32))
        return String(chars[0..<8]) + "-" + String(chars[8..<12]) + "-4" + String(chars[13..<16]) + "-8"
            + String(chars[17..<20]) + "-" + String(chars[20..<32])
    }

}
