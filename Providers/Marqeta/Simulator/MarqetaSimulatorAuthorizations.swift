import CardGatewaySimulation
import Crypto
import Foundation
import HTTPTypes

// Marqeta's side of Gateway JIT Funding (core-api/gateway-jit-funding-messages): the platform posts a transaction whose
// `gpa_order.jit_funding` asks the program gateway funding source to fund it, with the funding source's HTTP Basic
// credentials, waits `timeout_millis` (3 s unless configured, 1,000–7,000), reads HTTP 200 as approval and 402 as
// denial, and records the exchange in `gpa_order.funding.gateway_log` (`gateway_log_model`). Without an answer in time,
// or with one it cannot read, Marqeta declines (the simulator plays no Commando Mode).

extension MarqetaSimulator {
    /// One JIT Funding request as the simulator sends it.
    public struct JITFundingMessage: Sendable {
        /// The transaction `token`: the id the integrator's gateway sees.
        public var transactionToken: String
        /// `gpa_order.jit_funding.token`.
        public var jitToken: String
        /// `gpa_order.jit_funding.method`.
        public var method: String
        /// `gpa_order.jit_funding.user_token`.
        public var userToken: String
        /// The requested amount in minor units, and its currency.
        public var amount: Int64
        public var currency: String
        /// Whether the message offers a partial approval (`pos.partial_approval_capable`).
        public var partialApprovalCapable: Bool
        /// `Content-Type`, `Accept` and `Authorization` (Basic).
        public var headers: [(String, String)]
        public var body: Data

        public init(
            transactionToken: String, jitToken: String, method: String, userToken: String, amount: Int64,
            currency: String, partialApprovalCapable: Bool, headers: [(String, String)] = [], body: Data = Data()
        ) {
            self.transactionToken = transactionToken
            self.jitToken = jitToken
            self.method = method
            self.userToken = userToken
            self.amount = amount
            self.currency = currency
            self.partialApprovalCapable = partialApprovalCapable
            self.headers = headers
            self.body = body
        }
    }

    /// Marqeta's default `timeout_millis` for a JIT Funding request.
    public static let jitDefaultTimeoutMilliseconds = 3000
    /// The largest `timeout_millis` a program gateway funding source takes (`gateway_program_funding_source_request`).
    public static let jitMaximumTimeoutMilliseconds = 7000

    /// The JIT Funding method for an order's `kind`: `authorization` (the default) → `pgfs.authorization`, `incremental`
    /// → `pgfs.authorization.incremental`, `balanceInquiry` → `pgfs.balanceinquiry`, `informative` →
    /// `pgfs.authorization.clearing`; nil for another kind.
    public static func jitMethod(forKind kind: String?) -> (method: String, type: String)? {
        switch kind ?? "authorization" {
        case "authorization": ("pgfs.authorization", "authorization")
        case "incremental": ("pgfs.authorization.incremental", "authorization.incremental")
        case "balanceInquiry": ("pgfs.balanceinquiry", "balanceinquiry")
        case "informative": ("pgfs.authorization.clearing", "authorization.clearing")
        default: nil
        }
    }

    /// The JIT Funding request for `order`, authenticated with `username` / `password` (the funding source's by
    /// default), or nil when the order's card is not one of the simulator's or its kind is not one it sends. The body
    /// is a `transaction_model`: the transaction's `token`, `type`, `state`, users, `card_token`, `amount` and
    /// `request_amount` (decimals in the currency's exponent), `currency_code`, `card_acceptor` (`country_code`
    /// alpha-3, as in Marqeta's transaction examples), `pos` and the `gpa_order` whose `jit_funding` asks for the money
    /// (a balance inquiry asks for `0`).
    public func jitFundingRequest(
        _ order: AuthorizationOrder, username: String = Seed.authorizationUsername,
        password: String = Seed.authorizationPassword
    ) -> JITFundingMessage? {
        guard let card = state.cards.get(order.card), let (method, type) = Self.jitMethod(forKind: order.kind) else {
            return nil
        }
        let sequence = state.jitSequence.withLock { value -> Int in
            value += 1
            return value
        }
        let now = SimulatorDateTime.format(simulationClock.now())
        let transaction = Self.uuid("transaction|\(sequence)|\(order.card)")
        let jitToken = Self.uuid("jit_funding|\(sequence)|\(order.card)")
        let requested = method == "pgfs.balanceinquiry" ? 0 : order.amount
        let partial = type == "authorization" && (order.amountAdjustable ?? false)
        let amount = Self.decimalNumber(requested, currency: order.currency)
        let jit: [String: Any] = [
            "token": jitToken, "method": method, "user_token": card.userToken, "acting_user_token": card.userToken,
            "amount": amount,
        ]
        var acceptor: [String: Any] = [:]
        if let name = order.merchant.name { acceptor["name"] = name }
        if let mcc = order.merchant.categoryCode { acceptor["mcc"] = mcc }
        if let city = order.merchant.city { acceptor["city"] = city }
        if let country = order.merchant.country {
            acceptor["country_code"] = SimulatedCountryCodes.alpha3(country) ?? country
        }
        let message: [String: Any] = [
            "token": transaction, "type": type, "state": "PENDING", "identifier": String(sequence),
            "user_token": card.userToken, "acting_user_token": card.userToken, "card_token": card.token,
            "amount": amount, "request_amount": amount, "currency_code": order.currency, "created_time": now,
            "user_transaction_time": now, "network": "VISA", "subnetwork": "VISANET",
            "card_acceptor": acceptor,
            "pos": [
                "partial_approval_capable": partial, "card_presence": false, "card_holder_presence": false,
                "purchase_amount_only": false, "is_recurring": false,
            ],
            "gpa_order": [
                "token": Self.uuid("gpa_order|\(sequence)|\(order.card)"), "amount": amount,
                "currency_code": order.currency, "created_time": now, "last_modified_time": now, "state": "PENDING",
                "transaction_token": transaction, "user_token": card.userToken,
                "funding_source_token": Seed.gatewayFundingSource,
                "funding": [
                    "amount": amount,
                    "source": [
                        "active": true, "created_time": SimulatorDateTime.format(Seed.created),
                        "last_modified_time": SimulatorDateTime.format(Seed.created), "is_default_account": false,
                        "token": Seed.gatewayFundingSource,
                        "type": "programgateway",
                    ] as [String: Any],
                ] as [String: Any],
                "response": ["code": "0000", "memo": "Approved or completed successfully"],
                "jit_funding": jit,
            ] as [String: Any],
        ]
        let body =
            (try? JSONSerialization.data(withJSONObject: message, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        let basic = SimulatorHTTP.basicAuthorization(user: username, password: password)
        return JITFundingMessage(
            transactionToken: transaction, jitToken: jitToken, method: method, userToken: card.userToken,
            amount: requested, currency: order.currency, partialApprovalCapable: partial,
            headers: [("Content-Type", "application/json"), ("Accept", "application/json"), ("Authorization", basic)],
            body: body)
    }

    /// Plays Marqeta for one order: sends ``jitFundingRequest(_:username:password:)`` with
    /// ``SimulatedNetwork/send(_:headers:to:deadline:client:)`` under `timeout_millis` (the order's
    /// `deadlineMilliseconds`, at most 7,000; 3,000 by default), reads the answer as Marqeta does and answers what it
    /// recorded (``recordJITOutcome(_:reply:)``). An unknown card is Marqeta's 404 error body; a kind the simulator
    /// does not send, or a deadline above 7,000 ms, a 400.
    public func authorize(_ order: AuthorizationOrder) async -> SimulatedResponse? {
        let timeout = order.deadlineMilliseconds ?? Self.jitDefaultTimeoutMilliseconds
        guard timeout <= Self.jitMaximumTimeoutMilliseconds else {
            return errorBody(
                400, MarqetaSimulatorErrors.genericCode(400), "timeout_millis must be between 1000 and 7000")
        }
        guard Self.jitMethod(forKind: order.kind) != nil else {
            return errorBody(
                400, MarqetaSimulatorErrors.genericCode(400),
                "kind must be authorization, incremental, balanceInquiry or informative")
        }
        guard let message = jitFundingRequest(order) else {
            return errorBody(404, MarqetaSimulatorErrors.notFound, "Card not found")
        }
        var fields = HTTPFields()
        for (name, value) in message.headers {
            if let field = HTTPField.Name(name) { fields[field] = value }
        }
        let reply = await SimulatedNetwork.send(
            message.body, headers: fields, to: order.url, deadline: .milliseconds(timeout))
        return .json(200, recordJITOutcome(message, reply: reply))
    }

    /// What Marqeta records of one exchange, as the control call answers it: `token` (the transaction), `state`
    /// (`PENDING` when funded, `DECLINED` otherwise), `approved_amount` (a decimal, when funded), `decline_reason`
    /// (the gateway's, when it gave one of Marqeta's), and `gateway_log` as `gateway_log_model` has it: `order_number`
    /// (the transaction token), `transaction_id` (the JIT Funding token), `duration` (ms), `timed_out`, `message`, and
    /// `response` (`code`: the HTTP status as text; `data.jit_funding`: the gateway's object) when there was an answer.
    ///
    /// Marqeta funds on HTTP 200 with a `jit_funding` that repeats the request's `token`, `method` and `user_token` and
    /// whose `amount` is the request's (or, when the message offered a partial approval, a positive amount below it);
    /// it is denied on HTTP 402, and declined on anything else, on an answer it cannot read, and without an answer in
    /// time.
    public func recordJITOutcome(_ message: JITFundingMessage, reply: NetworkReply) -> [String: Any] {
        recordJITOutcome(message, outcome: reply.outcome, elapsed: reply.elapsed)
    }

    /// ``recordJITOutcome(_:reply:)`` for an outcome that took `elapsed`.
    public func recordJITOutcome(
        _ message: JITFundingMessage, outcome: NetworkReply.Outcome, elapsed: Duration
    ) -> [String: Any] {
        let milliseconds = elapsed.milliseconds
        var log: [String: Any] = [
            "order_number": message.transactionToken, "transaction_id": message.jitToken,
            "duration": Int(milliseconds), "timed_out": false,
        ]
        var record: [String: Any] = ["token": message.transactionToken, "state": "DECLINED"]
        switch outcome {
        case .timedOut:
            log["timed_out"] = true
            log["message"] = "Gateway timed out; declined"
        case .failed:
            log["message"] = "Gateway could not be reached; declined"
        case .answered(let status, _, let body):
            let jit =
                (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["jit_funding"] as? [String: Any]
            var response: [String: Any] = ["code": String(status)]
            if let jit { response["data"] = ["jit_funding": jit] }
            log["response"] = response
            let amount = jit.flatMap { Self.minorUnits($0["amount"], currency: message.currency) }
            let echoes =
                jit.map {
                    ($0["token"] as? String) == message.jitToken && ($0["method"] as? String) == message.method
                        && ($0["user_token"] as? String) == message.userToken
                } ?? false
            if status == 200, echoes, let amount,
                amount == message.amount
                    || (message.partialApprovalCapable && amount > 0 && amount < message.amount)
            {
                record["state"] = "PENDING"
                record["approved_amount"] = Self.decimalNumber(amount, currency: message.currency)
                log["message"] = "Approved or completed successfully"
            } else if status == 402, echoes {
                log["message"] = "Declined by gateway"
                if let reason = jit?["decline_reason"] as? String, Self.declineReasons.contains(reason) {
                    record["decline_reason"] = reason
                }
            } else {
                log["message"] = "Gateway answer not accepted; declined"
            }
        }
        record["gateway_log"] = log
        if let data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]) {
            state.jitOutcomes.put(message.transactionToken, data)
        }
        return record
    }

    /// What the simulator recorded of the JIT Funding request for transaction `token`, as JSON.
    public func jitOutcome(_ token: String) -> Data? { state.jitOutcomes.get(token) }

    /// `jit_funding_api.decline_reason`'s values.
    public static let declineReasons: Set<String> = [
        "INVALID_AMOUNT", "INSUFFICIENT_FUNDS", "TRANSACTION_NOT_PERMITTED", "SUSPECTED_FRAUD", "AMOUNT_LIMIT_EXCEEDED",
        "TRANSACTION_COUNT_LIMIT_EXCEEDED", "DUPLICATE_TRANSACTION", "INVALID_MERCHANT", "INVALID_CARD",
        "NO_CREDIT_ACCOUNT", "EXPIRED_CARD", "NO_CHECKING_ACCOUNT", "NO_SAVINGS_ACCOUNT", "STOP_PAYMENT",
        "REVOCATION_AUTHORIZATION_ORDER", "REVOCATION_ALL_AUTHORIZATION_ORDER", "SOFT_DECLINE_AUTHENTICATION_REQUIRED",
        "CLOSED_ACCOUNT", "SOFT_DECLINE_PIN_REQUIRED", "CARD_NOT_ACTIVE", "CARDHOLDER_NOT_ACTIVE", "BLOCKED_BY_ISSUER",
        "BLOCKED_BY_CARDHOLDER", "BLOCKED_MERCHANT_BY_CARDHOLDER", "INVALID_DRIVER_NUMBER", "INVALID_VEHICLE_NUMBER",
    ]

    // MARK: Amounts and countries

    /// ISO 4217 minor units of every currency whose exponent is not 2.
    static let exponents: [String: Int] = [
        "BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0, "RWF": 0, "UGX": 0,
        "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
        "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
        "CLF": 4, "UYW": 4,
    ]

    /// `minor` units of `currency` as a JSON number in the currency's exponent (an NSDecimalNumber, written exactly).
    static func decimalNumber(_ minor: Int64, currency: String) -> NSDecimalNumber {
        NSDecimalNumber(mantissa: minor.magnitude, exponent: Int16(-(exponents[currency] ?? 2)), isNegative: minor < 0)
    }

    /// A JSON decimal (number or string) in minor units of `currency`, when exact.
    static func minorUnits(_ value: Any?, currency: String) -> Int64? {
        let text: String
        if let string = value as? String {
            text = string
        } else if let number = value as? Int {
            text = String(number)
        } else if let number = value as? Double, number.isFinite {
            text = "\(number)"
        } else {
            return nil
        }
        guard var amount = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { return nil }
        amount *= pow(Decimal(10), exponents[currency] ?? 2)
        var rounded = Decimal()
        NSDecimalRound(&rounded, &amount, 0, .plain)
        guard rounded == amount else { return nil }
        return NSDecimalNumber(decimal: rounded).int64Value
    }

    /// A stable UUID-shaped token (Marqeta's tokens are UUIDs in its examples).
    static func uuid(_ seed: String) -> String {
        let hex = ByteEncoding.hex(SHA256.hash(data: Data(seed.utf8)))
        let characters = Array(hex.prefix(32))
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }

}
