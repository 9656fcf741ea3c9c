import CardGatewaySimulation
import Foundation
import HTTPTypes
import Hummingbird

extension AdyenSimulator {
    // MARK: Handlers

    func handle(
        _ request: Request, _ context: SimulatorContext, _ body: () throws -> SimulatedResponse
    ) async -> Response {
        await handleWithBody(request, context) { _ in try body() }
    }

    func handleWithBody(
        _ request: Request, _ context: SimulatorContext, _ body: (Data) throws -> SimulatedResponse
    ) async -> Response {
        do {
            let buffer = try await request.body.collect(upTo: 1 << 20)
            return try body(Data(buffer.readableBytesView)).hummingbirdResponse
        } catch let error as AdyenSimulatorFailure {
            return error.response.hummingbirdResponse
        } catch {
            return faultResponse(status: 400, message: "The request could not be read.").hummingbirdResponse
        }
    }

    func getPaymentInstrument(_ request: Request, _ context: SimulatorContext) throws -> SimulatedResponse {
        try authorize(request, role: .paymentInstruments)
        let instrument = try existingInstrument(context)
        return .json(200, instrument.json)
    }

    /// `GET /balanceAccounts/{id}/paymentInstruments?offset=&limit=&status=`: the account's instruments in
    /// creation order, `limit` 1–100 (default 10), `hasNext` / `hasPrevious`.
    func listPaymentInstruments(_ request: Request, _ context: SimulatorContext) throws -> SimulatedResponse {
        try authorize(request, role: .paymentInstruments)
        let account = context.parameters.get("id") ?? ""
        let all = state.instruments.all().filter { $0.balanceAccountID == account }
        guard !all.isEmpty || state.balanceAccounts.contains(account) else {
            throw failure(404, AdyenSimulatorErrors.notFound, "Not found", "Balance account not found.")
        }
        let items = SimulatorHTTP.queryItems(request.uri.query)
        func parameter(_ name: String) -> String? { items.first { $0.name == name }?.value }
        var invalid: [(String, String, String)] = []
        func integer(_ name: String, default value: Int, range: ClosedRange<Int>) -> Int {
            guard let text = parameter(name) else { return value }
            guard let number = Int(text), range.contains(number) else {
                invalid.append(
                    (
                        name, String(text.prefix(20)),
                        "must be an integer from \(range.lowerBound) to \(range.upperBound)"
                    ))
                return value
            }
            return number
        }
        let limit = integer("limit", default: 10, range: 1...100)
        let offset = integer("offset", default: 0, range: 0...Int(Int32.max))
        let status = parameter("status")
        if let status, !AdyenSimulator.instrumentStatuses.contains(status) {
            invalid.append(("status", String(status.prefix(20)), "must be one of active, inactive, suspended, closed"))
        }
        guard invalid.isEmpty else {
            throw failure(
                422, AdyenSimulatorErrors.invalidQuery, "Invalid query parameter", "A query parameter is not valid.",
                invalidFields: invalid)
        }
        let matching = all.filter { status == nil || $0.status == status }
        let page = Array(matching.dropFirst(offset).prefix(limit))
        return .json(
            200,
            [
                "paymentInstruments": page.map(\.json),
                "hasNext": offset + page.count < matching.count,
                "hasPrevious": offset > 0 && !matching.isEmpty,
            ])
    }

    /// `PATCH /paymentInstruments/{id}` with `status`, `statusReason`, `statusComment` (the status fields of
    /// `PaymentInstrumentUpdateRequest`; its other fields are refused by this simulator). `closed` is final;
    /// `other` needs a `statusComment`. Answers the whole instrument (`UpdatePaymentInstrument`).
    func patchPaymentInstrument(
        _ request: Request, _ context: SimulatorContext, body: Data
    ) throws -> SimulatedResponse {
        try authorize(request, role: .paymentInstruments)
        return try idempotent(request, body: body) { try updatePaymentInstrument(context, body: body) }
    }

    func updatePaymentInstrument(_ context: SimulatorContext, body: Data) throws -> SimulatedResponse {
        let instrument = try existingInstrument(context)
        let object = try jsonObject(body)
        var invalid: [(String, String, String)] = []
        for key in object.keys.sorted() where !["status", "statusReason", "statusComment"].contains(key) {
            invalid.append((key, "", "is not supported by the simulator (only status, statusReason, statusComment)"))
        }
        let status = object["status"]
        if let status, !((status as? String).map { AdyenSimulator.instrumentStatuses.contains($0) } ?? false) {
            invalid.append(
                (
                    "status", String(String(describing: status).prefix(40)),
                    "must be one of active, inactive, suspended, closed"
                ))
        }
        let reason = object["statusReason"]
        if let reason, !((reason as? String).map { AdyenSimulator.instrumentStatusReasons.contains($0) } ?? false) {
            invalid.append(
                (
                    "statusReason", String(String(describing: reason).prefix(40)),
                    "must be one of \(AdyenSimulator.instrumentStatusReasons.joined(separator: ", "))"
                ))
        }
        let comment = object["statusComment"]
        if let comment, !(comment is String) {
            invalid.append(("statusComment", "", "must be a string"))
        }
        if (reason as? String) == "other", ((comment as? String) ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
            invalid.append(("statusComment", "", "is required when statusReason is other"))
        }
        guard invalid.isEmpty else {
            throw failure(
                422, AdyenSimulatorErrors.invalidInstrumentUpdate, "Invalid payment instrument",
                "The request has invalid fields.", invalidFields: invalid)
        }
        guard instrument.status != "closed" else {
            throw failure(
                422, AdyenSimulatorErrors.instrumentClosed, "Invalid payment instrument status",
                "The payment instrument is closed; the closed status is final."
            )
        }
        let updated = state.instruments.update(instrument.id) { stored in
            if let status = status as? String, status != stored.status {
                stored.status = status
                // A status change without a reason clears the previous one (a reactivated card has none).
                stored.statusReason = nil
                stored.statusComment = nil
            }
            if let reason = reason as? String { stored.statusReason = reason }
            if let comment = comment as? String { stored.statusComment = comment }
        }
        // Adyen sends `balancePlatform.paymentInstrument.updated` "when you successfully update a payment instrument".
        send(paymentInstrumentWebhook(type: Self.paymentInstrumentUpdated, instrument: updated ?? instrument))
        return .json(200, (updated ?? instrument).json)
    }

    /// `POST /paymentInstruments` (`PaymentInstrumentInfo`) for `type` `card` only: `balanceAccountId`,
    /// `issuingCountryCode` (two capital letters) and `card` with `brand` (`visa` or `mc`), `brandVariant`,
    /// `cardholderName` (1–26 characters) and `formFactor` (`virtual` or `physical`) are required; `status` may be
    /// `active`, `inactive` or `suspended`, and is `active` when absent except for a physical card, which starts
    /// `inactive` (the spec's "exceptions for cards based on the formFactor"). Missing or invalid fields are a 422
    /// naming them; an unknown balance account is a 404. Answers the new instrument (`PaymentInstrument`).
    func postPaymentInstrument(
        _ request: Request, _ context: SimulatorContext, body: Data
    ) throws -> SimulatedResponse {
        try authorize(request, role: .paymentInstruments)
        return try idempotent(request, body: body) { try createPaymentInstrument(body: body) }
    }

    func createPaymentInstrument(body: Data) throws -> SimulatedResponse {
        let object = try jsonObject(body)
        var invalid: [(String, String, String)] = []
        func text(_ value: Any?) -> String? { value as? String }
        func shown(_ value: Any?) -> String { value.map { String(String(describing: $0).prefix(40)) } ?? "" }
        let type = object["type"]
        if type == nil {
            invalid.append(("type", "", "is required"))
        } else if text(type) != "card" {
            invalid.append(("type", shown(type), "must be card (the simulator issues no bank accounts)"))
        }
        let account = text(object["balanceAccountId"]) ?? ""
        if account.isEmpty { invalid.append(("balanceAccountId", shown(object["balanceAccountId"]), "is required")) }
        let country = text(object["issuingCountryCode"]) ?? ""
        if country.count != 2 || !country.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) }) {
            invalid.append(
                ("issuingCountryCode", shown(object["issuingCountryCode"]), "must be an ISO 3166-1 alpha-2 code"))
        }
        let status = object["status"]
        if let status, !["active", "inactive", "suspended"].contains(text(status) ?? "") {
            invalid.append(("status", shown(status), "must be one of active, inactive, suspended"))
        }
        let card = object["card"] as? [String: Any]
        if card == nil { invalid.append(("card", "", "is required when type is card")) }
        let brand = text(card?["brand"]) ?? ""
        let variant = text(card?["brandVariant"]) ?? ""
        let name = text(card?["cardholderName"]) ?? ""
        let formFactor = text(card?["formFactor"]) ?? ""
        if let card {
            if !["visa", "mc"].contains(brand) {
                invalid.append(("card.brand", shown(card["brand"]), "must be visa or mc"))
            }
            if variant.isEmpty { invalid.append(("card.brandVariant", shown(card["brandVariant"]), "is required")) }
            if name.trimmingCharacters(in: .whitespaces).isEmpty || name.count > 26 {
                invalid.append(("card.cardholderName", "", "is required, at most 26 characters"))
            }
            if !["virtual", "physical"].contains(formFactor) {
                invalid.append(("card.formFactor", shown(card["formFactor"]), "must be virtual or physical"))
            }
        }
        guard invalid.isEmpty else {
            throw failure(
                422, AdyenSimulatorErrors.invalidInstrumentCreate, "Invalid payment instrument",
                "The request has invalid fields.", invalidFields: invalid)
        }
        guard state.balanceAccounts.contains(account) else {
            throw failure(404, AdyenSimulatorErrors.unknownBalanceAccount, "Not found", "Balance account not found.")
        }
        let number = state.instruments.all().count + 1
        let id = "PI3227" + state.ids.next(prefix: "", length: 19).uppercased()
        let expiry = Calendar(identifier: .gregorian).dateComponents(
            in: TimeZone(identifier: "UTC")!, from: state.clock.now())
        let instrument = AdyenSimulatorInstrument(
            id: id, type: "card", status: text(status) ?? (formFactor == "physical" ? "inactive" : "active"),
            statusReason: nil, description: nil,
            card: AdyenSimulatorCard(
                brand: brand, brandVariant: variant, cardholderName: name, formFactor: formFactor,
                bin: brand == "visa" ? "491761" : "555544",
                lastFour: String(format: "%04d", 6000 + number % 4000),
                expiryMonth: String(format: "%02d", expiry.month ?? 1),
                expiryYear: String((expiry.year ?? 2026) + 3)
            ),
            iban: nil, balanceAccountID: account, issuingCountryCode: country
        )
        state.instruments.put(id, instrument)
        // Adyen sends `balancePlatform.paymentInstrument.created` "when you successfully create a payment instrument".
        send(paymentInstrumentWebhook(type: Self.paymentInstrumentCreated, instrument: instrument))
        return .json(200, instrument.json)
    }

    func getActivationData(_ request: Request, _ context: SimulatorContext) throws -> SimulatedResponse {
        try authorize(request, role: .networkTokenActivationData)
        let instrument = try provisionableInstrument(context)
        let input = state.startExchange(instrument.id) { session in
            sdkInput(instrument: instrument.id, session: session, round: 0, output: Data())
        }
        return .json(200, ["sdkInput": input.base64EncodedString()])
    }

    func postActivationData(
        _ request: Request, _ context: SimulatorContext, body: Data
    ) throws -> SimulatedResponse {
        try authorize(request, role: .networkTokenActivationData)
        return try idempotent(request, body: body) { try activationStep(context, body: body) }
    }

    /// Runs `action` under the request's `Idempotency-Key`, when it has one: the first answer is kept (2xx or a
    /// refusal after work was done) and replayed for the same key and request; the same key with a different
    /// request is a 422, a key still in progress a 409. Keys are scoped to the company account (every simulated
    /// credential belongs to the same one). Adyen documents the header for POST; the simulator honours it on its
    /// PATCH routes too (see the README's unverified facts).
    func idempotent(
        _ request: Request, body: Data, _ action: () throws -> SimulatedResponse
    ) throws -> SimulatedResponse {
        guard let key = request.headers[HTTPField.Name("Idempotency-Key")!] else {
            return try action()
        }
        guard !key.isEmpty, key.count <= 64 else {
            throw failure(
                422, AdyenSimulatorErrors.invalidIdempotencyKey, "Invalid Idempotency-Key",
                "The Idempotency-Key must have 1 to 64 characters.")
        }
        let scope = "company"
        let fingerprint = Data("\(request.method.rawValue) \(request.uri.path)\n".utf8) + body
        switch state.ledger.begin(key: key, scope: scope, fingerprint: fingerprint) {
        case .replay(let first):
            return first
        case .conflict, .expired:
            throw failure(
                422, AdyenSimulatorErrors.idempotencyConflict, "Idempotency key reused",
                "The Idempotency-Key was already used with a different request.", key: key
            )
        case .inProgress:
            throw failure(
                409, AdyenSimulatorErrors.idempotencyConflict, "Request in progress",
                "A request with this Idempotency-Key is still being processed.", key: key)
        case .proceed:
            do {
                let response = try action().withHeader("Idempotency-Key", key)
                state.ledger.record(key: key, scope: scope, fingerprint: fingerprint, response: response)
                return response
            } catch let error as AdyenSimulatorFailure {
                // Refused before any work was done: nothing to replay, the key may be used again.
                state.ledger.abandon(key: key, scope: scope)
                throw AdyenSimulatorFailure(response: error.response.withHeader("Idempotency-Key", key))
            }
        }
    }

    /// One POST of the exchange.
    func activationStep(_ context: SimulatorContext, body: Data) throws -> SimulatedResponse {
        let instrument = try provisionableInstrument(context)
        let object = try jsonObject(body)
        guard let value = object["sdkOutput"] else {
            throw failure(
                422, AdyenSimulatorErrors.missingField, "Invalid sdkOutput", "The sdkOutput is required.",
                invalidFields: [("sdkOutput", "", "is required")]
            )
        }
        guard let text = value as? String, let output = ByteEncoding.decodeBase64(text), !output.isEmpty else {
            throw failure(
                422, AdyenSimulatorErrors.invalidSDKOutput, "Invalid sdkOutput",
                "The sdkOutput is not valid Base64 data from the provisioning SDK.",
                invalidFields: [("sdkOutput", String(String(describing: value).prefix(40)), "must be standard Base64")]
            )
        }
        let step = state.advanceExchange(instrument.id, output: output) { session, round in
            sdkInput(instrument: instrument.id, session: session, round: round, output: output)
        }
        switch step {
        case .notStarted:
            throw failure(
                422, AdyenSimulatorErrors.noExchange, "Network token provisioning not started",
                "Get the network token activation data for this payment instrument before posting sdkOutput."
            )
        case .stale:
            throw failure(
                422, AdyenSimulatorErrors.staleSDKOutput, "Invalid sdkOutput",
                "The sdkOutput does not answer the latest sdkInput of this provisioning session.",
                invalidFields: [("sdkOutput", "", "must answer the latest sdkInput")]
            )
        case .advanced(let exchange):
            if exchange.completed {
                let wallet =
                    String(decoding: output, as: UTF8.self).contains(Seed.googlePayMarker) ? "Google Pay" : "Apple Pay"
                _ = state.createToken(on: instrument, requestor: wallet)
            }
            return .json(200, ["sdkInput": exchange.lastInput.base64EncodedString()])
        }
    }

    func listNetworkTokens(_ request: Request, _ context: SimulatorContext) throws -> SimulatedResponse {
        try authorize(request, role: .networkTokens)
        let instrument = try existingInstrument(context)
        let tokens = state.tokens.all().filter { $0.paymentInstrumentID == instrument.id }
        return .json(200, ["networkTokens": tokens.map(\.json)])
    }

    func getNetworkToken(_ request: Request, _ context: SimulatorContext) throws -> SimulatedResponse {
        try authorize(request, role: .networkTokens)
        let token = try existingToken(context)
        return .json(200, ["token": token.json])
    }

    func patchNetworkToken(
        _ request: Request, _ context: SimulatorContext, body: Data
    ) throws -> SimulatedResponse {
        try authorize(request, role: .networkTokens)
        return try idempotent(request, body: body) { try updateNetworkToken(context, body: body) }
    }

    func updateNetworkToken(_ context: SimulatorContext, body: Data) throws -> SimulatedResponse {
        let token = try existingToken(context)
        // PATCH /networkTokens/{id} lists no 400 in the spec: a body that is not an object is a 422 there.
        let object = try jsonObject(body, status: 422)
        let allowed = ["active", "suspended", "closed"]
        guard let status = object["status"] as? String, allowed.contains(status) else {
            let given = object["status"].map { String(String(describing: $0).prefix(40)) } ?? ""
            throw failure(
                422, AdyenSimulatorErrors.invalidTokenStatus, "Invalid network token status",
                "The status must be active, suspended or closed.",
                invalidFields: [("status", given, "must be one of active, suspended, closed")]
            )
        }
        guard token.status != "closed" else {
            throw failure(
                422, AdyenSimulatorErrors.tokenClosed, "Invalid network token status",
                "The network token is closed; the closed status is final.")
        }
        state.tokens.update(token.id) { $0.status = status }
        return SimulatedResponse(status: 202)
    }

    func existingInstrument(_ context: SimulatorContext) throws -> AdyenSimulatorInstrument {
        let id = context.parameters.get("id") ?? ""
        guard let instrument = state.instruments.get(id) else {
            throw failure(404, AdyenSimulatorErrors.notFound, "Not found", "Payment instrument not found.")
        }
        return instrument
    }

    /// An existing, active card instrument; otherwise Adyen-style 422s.
    func provisionableInstrument(_ context: SimulatorContext) throws -> AdyenSimulatorInstrument {
        let instrument = try existingInstrument(context)
        guard instrument.card != nil else {
            throw failure(
                422, AdyenSimulatorErrors.notACard, "Invalid payment instrument",
                "The payment instrument is not a card.")
        }
        guard instrument.status == "active" else {
            throw failure(
                422, AdyenSimulatorErrors.instrumentNotActive, "Invalid payment instrument",
                "Network tokens can only be provisioned for active payment instruments; this one is \(instrument.status)."
            )
        }
        return instrument
    }

    func existingToken(_ context: SimulatorContext) throws -> AdyenSimulatorNetworkToken {
        let id = context.parameters.get("networkTokenId") ?? ""
        guard let token = state.tokens.get(id) else {
            throw failure(404, AdyenSimulatorErrors.notFound, "Not found", "Network token not found.")
        }
        return token
    }

    func jsonObject(_ body: Data, status: Int = 400) throws -> [String: Any] {
        guard !body.isEmpty, let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            let code = status == 422 ? AdyenSimulatorErrors.bodyNotAnObject : AdyenSimulatorErrors.genericCode(400)
            throw failure(status, code, AdyenSimulatorErrors.title(status), "The request body is not a JSON object.")
        }
        return object
    }
}
