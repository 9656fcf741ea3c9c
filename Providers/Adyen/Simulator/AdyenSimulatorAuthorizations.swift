import CardGatewaySimulation
import Foundation
import HTTPTypes

// Relayed authorisation (`balancePlatform.authorisation.relayed`, Adyen's
// BalancePlatformRelayedAuthorisationNotification-v4): the simulator plays Adyen's side of a card payment. It sends a
// `RelayedAuthorisationRequest` with HTTP Basic credentials to the order's URL, waits up to Adyen's two seconds, reads
// the `RelayedAuthorisationResponse` of an HTTP 200, and otherwise applies the configured fallback, as Adyen documents
// ("If we do not receive the response within two seconds, we apply your fallback logic").
extension AdyenSimulator {
    /// The webhook's `type`.
    public static let relayedAuthorisationType = "balancePlatform.authorisation.relayed"
    /// Adyen's deadline for the answer (the document's "within two seconds").
    public static let relayedAuthorisationDeadline: Duration = .seconds(2)

    /// The relayed authorisation webhook as configured in the Balance Platform Customer Area: the HTTP Basic
    /// credentials Adyen sends (the integrator's `authorizationUsername` / `authorizationPassword`), and the fallback
    /// logic applied when no usable answer arrives in time.
    public struct RelayedAuthorisationSettings: Sendable {
        /// Adyen's two fallback choices ("Default approval", "Default refusal").
        public enum Fallback: String, Sendable {
            case defaultApproval
            case defaultRefusal
        }

        public var username: String
        public var password: String
        public var fallback: Fallback

        public init(username: String, password: String, fallback: Fallback) {
            self.username = username
            self.password = password
            self.fallback = fallback
        }

        /// The seed's user name: configure it as the instance's `authorizationUsername`.
        public static let username = "relayed-authorisation@SimulatedBalancePlatform"
        /// The seed's password: configure it as the instance's `authorizationPassword`.
        public static let password = "simulator-relayed-authorisation-password"
        /// The seed's credentials and the default refusal (no approval nobody made).
        public static let `default` = RelayedAuthorisationSettings(
            username: username, password: password, fallback: .defaultRefusal)
    }

    /// One relayed authorisation and what Adyen made of it.
    public struct RelayedAuthorisationRecord: Sendable {
        /// The request's `id`.
        public var id: String
        public var paymentInstrumentID: String
        /// The `RelayedAuthorisationRequest` sent, byte for byte; nil when the payment was refused before relaying.
        public var request: Data?
        /// The headers sent with it (`Authorization`, `Content-Type`).
        public var headers: [(String, String)]
        /// `Authorised` or `Refused`: the outcome.
        public var status: String
        /// The answer's `refusalReason`, when it refused.
        public var refusalReason: String?
        /// `relayedAuthorisation` (the answer decided), `fallback`, or `adyen` (refused before relaying: the card is
        /// not active).
        public var decidedBy: String
        /// Why the fallback was applied (`timeout`, `no answer`, `HTTP 500`, `unreadable answer: …`).
        public var fallbackReason: String?
        /// The HTTP status answered, when there was an answer in time.
        public var httpStatus: Int?
        /// How long Adyen waited.
        public var elapsed: Duration
        /// What the control path answers (`POST /__simulator/authorizations`).
        public var json: [String: Any] {
            var object: [String: Any] = [
                "id": id, "type": AdyenSimulator.relayedAuthorisationType, "paymentInstrumentId": paymentInstrumentID,
                "status": status, "decidedBy": decidedBy, "relayed": request != nil,
                "fallbackApplied": fallbackReason != nil,
                "elapsedMilliseconds": Int(elapsed.milliseconds),
            ]
            if let refusalReason { object["refusalReason"] = refusalReason }
            if let fallbackReason { object["fallbackReason"] = fallbackReason }
            if let httpStatus { object["httpStatus"] = httpStatus }
            return object
        }
    }

    /// The relayed authorisations sent since the simulator started (or was reset), oldest first.
    public func relayedAuthorisations() -> [RelayedAuthorisationRecord] {
        state.relayed.withLock { $0 }
    }

    /// Plays a card payment on the seeded card `order.card`: a `RelayedAuthorisationRequest` sent to `order.url`
    /// with the configured Basic credentials, under Adyen's two seconds (or the order's shorter deadline), the answer
    /// read as Adyen reads it, the fallback applied otherwise; answers the record (``RelayedAuthorisationRecord``).
    ///
    /// Refused with Adyen's `RestServiceError`: an unknown payment instrument or one that is not a card (404), a
    /// deadline above two seconds, a kind other than `authorization`, a merchant country that is not ISO 3166-1
    /// (422). A card that is not `active` is refused by Adyen itself, without relaying (`decidedBy` `adyen`).
    /// `amountAdjustable` is ignored: Adyen's answer has no amount.
    public func authorize(_ order: AuthorizationOrder) async -> SimulatedResponse? {
        let published = Int(Self.relayedAuthorisationDeadline.milliseconds)
        // Adyen's two seconds unless the order says otherwise: shorter to play a tighter network, longer (up to the
        // kit's longest) so that a test on a loaded machine checks the wiring and not the machine's speed.
        let deadline = order.deadlineMilliseconds ?? published
        guard deadline <= SimulatedNetwork.longestTestDeadline else {
            return restError(
                status: 422, errorCode: AdyenSimulatorErrors.genericCode(422), title: AdyenSimulatorErrors.title(422),
                detail:
                    "deadlineMilliseconds must be at most \(SimulatedNetwork.longestTestDeadline) (Adyen itself waits \(published) ms)."
            )
        }
        guard order.kind == nil || order.kind == "authorization" else {
            return restError(
                status: 422, errorCode: AdyenSimulatorErrors.genericCode(422), title: AdyenSimulatorErrors.title(422),
                detail: "Adyen relays authorisations only.")
        }
        guard let instrument = state.instruments.get(order.card), instrument.type == "card" else {
            return restError(
                status: 404, errorCode: AdyenSimulatorErrors.notFound, title: AdyenSimulatorErrors.title(404),
                detail: "Payment instrument not found.")
        }
        var country: String?
        if let code = order.merchant.country {
            guard let alpha3 = SimulatedCountryCodes.alpha3(code) else {
                return restError(
                    status: 422, errorCode: AdyenSimulatorErrors.genericCode(422),
                    title: AdyenSimulatorErrors.title(422),
                    detail: "The merchant country is not an ISO 3166-1 alpha-2 code.")
            }
            country = alpha3
        }
        let id = Self.relayedAuthorisationID()
        let body = relayedAuthorisationBody(id: id, order: order, instrument: instrument, country: country)

        guard instrument.status == "active" else {
            let record = RelayedAuthorisationRecord(
                id: id, paymentInstrumentID: instrument.id, request: nil, headers: [], status: "Refused",
                refusalReason: nil, decidedBy: "adyen", fallbackReason: nil, httpStatus: nil, elapsed: .zero)
            state.relayed.withLock { $0.append(record) }
            return .json(200, record.json)
        }

        let authorization = SimulatorHTTP.basicAuthorization(
            user: relayedAuthorisation.username, password: relayedAuthorisation.password)
        let headers: [(String, String)] = [("Authorization", authorization), ("Content-Type", "application/json")]
        var fields = HTTPFields()
        for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        let reply = await SimulatedNetwork.send(body, headers: fields, to: order.url, deadline: .milliseconds(deadline))

        var record = RelayedAuthorisationRecord(
            id: id, paymentInstrumentID: instrument.id, request: body, headers: headers, status: "Refused",
            refusalReason: nil, decidedBy: "relayedAuthorisation", fallbackReason: nil, httpStatus: nil,
            elapsed: reply.elapsed)
        switch reply.outcome {
        case .answered(let status, _, let answer):
            record.httpStatus = status
            if status != 200 {
                record.fallbackReason = "HTTP \(status)"
            } else {
                switch Self.readDecision(answer) {
                case .success(let decision):
                    record.status = decision.status
                    record.refusalReason = decision.refusalReason
                case .failure(let problem):
                    record.fallbackReason = "unreadable answer: \(problem.text)"
                }
            }
        case .timedOut:
            record.fallbackReason = "timeout"
        case .failed:
            record.fallbackReason = "no answer"
        }
        if record.fallbackReason != nil {
            record.decidedBy = "fallback"
            record.status = relayedAuthorisation.fallback == .defaultApproval ? "Authorised" : "Refused"
            record.refusalReason = nil
        }
        let kept = record
        state.relayed.withLock { $0.append(kept) }
        return .json(200, kept.json)
    }

    /// The `RelayedAuthorisationRequest` the simulator would send for `order`, without sending it (nil for an order
    /// ``authorize(_:)`` refuses before relaying): for tests and tools that check the message itself.
    public func relayedAuthorisationMessage(for order: AuthorizationOrder) -> Data? {
        guard let instrument = state.instruments.get(order.card), instrument.type == "card" else { return nil }
        var country: String?
        if let code = order.merchant.country {
            guard let alpha3 = SimulatedCountryCodes.alpha3(code) else { return nil }
            country = alpha3
        }
        let id = Self.relayedAuthorisationID()
        return relayedAuthorisationBody(id: id, order: order, instrument: instrument, country: country)
    }

    /// A `RelayedAuthorisationRequest` in the shape of Adyen's published example (amount negative for a debit,
    /// merchant country alpha-3, the payment instrument as `GET /paymentInstruments/{id}` shows it).
    func relayedAuthorisationBody(
        id: String, order: AuthorizationOrder, instrument: AdyenSimulatorInstrument, country: String?
    ) -> Data {
        let amount: [String: Any] = ["currency": order.currency, "value": -order.amount]
        var nameLocation: [String: Any] = [:]
        if let name = order.merchant.name { nameLocation["name"] = name }
        if let city = order.merchant.city { nameLocation["city"] = city }
        if let country { nameLocation["country"] = country }
        var merchantData: [String: Any] = ["merchantId": "000SIMULATED0001", "acquirerId": "012345"]
        if let mcc = order.merchant.categoryCode { merchantData["mcc"] = mcc }
        if !nameLocation.isEmpty { merchantData["nameLocation"] = nameLocation }
        let checks = [
            "PaymentInstrumentFound", "PaymentInstrumentActive", "PaymentInstrumentExpirationCheck", "TransactionRules",
        ]
        let object: [String: Any] = [
            "amount": amount, "originalAmount": amount, "authorisationType": "finalAuthorisation",
            "balanceAccount": ["id": instrument.balanceAccountID], "balancePlatform": Seed.balancePlatform,
            "entryMode": "contactless", "environment": "test", "id": id, "merchantData": merchantData,
            "paymentInstrument": instrument.json, "processingType": "pos", "reference": "SIM" + id,
            "transactionRulesResult": ["allHardBlockRulesPassed": true, "score": 0],
            "type": Self.relayedAuthorisationType,
            "validationResult": checks.map { ["result": "valid", "type": $0] },
        ]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
    }

    /// A new transfer id, 16 upper-case characters as in Adyen's example (`2ABCBA13456ABCDE`). Random rather than from
    /// the seeded sequence: the gateway's ledger (PostgreSQL, possibly) outlives a simulator's reset or restart, and a
    /// repeated id would be answered as a repeated delivery.
    static func relayedAuthorisationID() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16))
    }

    struct Problem: Error {
        var text: String
    }

    /// The answer as Adyen's document defines it (`RelayedAuthorisationResponse`, every object closed):
    /// `authorisationDecision.status` `Authorised` or `Refused`, an optional string `refusalReason`, an optional string
    /// `reference` and string-valued `metadata`. Anything else is unreadable.
    static func readDecision(_ body: Data) -> Result<(status: String, refusalReason: String?), Problem> {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            return .failure(Problem(text: "not a JSON object"))
        }
        let unknown = Set(object.keys).subtracting(["authorisationDecision", "reference", "metadata"])
        guard unknown.isEmpty else { return .failure(Problem(text: "undefined member \(unknown.sorted()[0])")) }
        if let reference = object["reference"], !(reference is String) {
            return .failure(Problem(text: "reference is not a string"))
        }
        if let metadata = object["metadata"] {
            guard let values = metadata as? [String: Any], values.values.allSatisfy({ $0 is String }) else {
                return .failure(Problem(text: "metadata is not an object of strings"))
            }
        }
        guard let decision = object["authorisationDecision"] as? [String: Any] else {
            return .failure(Problem(text: "no authorisationDecision"))
        }
        let unknownInDecision = Set(decision.keys).subtracting(["status", "refusalReason"])
        guard unknownInDecision.isEmpty else {
            return .failure(Problem(text: "undefined member authorisationDecision.\(unknownInDecision.sorted()[0])"))
        }
        guard let status = decision["status"] as? String, status == "Authorised" || status == "Refused" else {
            return .failure(Problem(text: "authorisationDecision.status is not Authorised or Refused"))
        }
        if let reason = decision["refusalReason"], !(reason is String) {
            return .failure(Problem(text: "refusalReason is not a string"))
        }
        return .success((status, decision["refusalReason"] as? String))
    }

}
