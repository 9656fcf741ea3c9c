import CardGatewaySimulation
import Crypto
import Foundation

/// Who is calling, from the `Authorization` and `Stripe-Account` headers.
struct StripeSimulatorCaller: Sendable {
    var apiKey: String
    var livemode: Bool
    var account: String?
}

extension StripeSimulator {
    /// Answers one call: authentication, `Stripe-Version`, idempotency, then the route; every answer gets a
    /// `Request-Id`.
    func handle(_ call: StripeSimulatorCall, route: Route) -> SimulatedResponse {
        let requestID = requestIDs.next(prefix: "req_", length: 14)
        var version: String?
        var response: SimulatedResponse
        do {
            version = try apiVersion(call)
            if route == .pushProvisioningDetails {
                response = jsonResponse(200, try pushProvisioningDetails(call, version: version))
            } else if route == .retrieveCard, Self.isEphemeralKeyCall(call) {
                // Issuing Elements' read of the card with an ephemeral key (StripeSimulatorCardReveal.swift).
                response = jsonResponse(200, try revealCard(call, version: version))
            } else {
                let caller = try authenticate(call)
                if call.method == "POST", let key = call.header("idempotency-key") {
                    response = try idempotent(
                        call, route: route, caller: caller, version: version, key: key, requestID: requestID)
                } else {
                    response = jsonResponse(200, try perform(call, route: route, caller: caller, version: version))
                }
            }
        } catch {
            response = jsonResponse(error.status, error.json)
            // Stripe's own word on retrying: a key still in use may be retried later; a key reused with other
            // parameters never.
            if error.code == "idempotency_key_in_use" {
                response = response.withHeader("Stripe-Should-Retry", "true")
            } else if error.type == "idempotency_error" {
                response = response.withHeader("Stripe-Should-Retry", "false")
            }
        }
        if response.header("Request-Id") == nil { response = response.withHeader("Request-Id", requestID) }
        if response.header("Stripe-Version") == nil {
            response = response.withHeader("Stripe-Version", version ?? Seed.accountAPIVersion)
        }
        if let key = call.header("idempotency-key"), call.method == "POST", response.header("Idempotency-Key") == nil {
            response = response.withHeader("Idempotency-Key", key)
        }
        return response
    }

    /// Stripe's idempotency: first result (2xx or a 500 from inside the endpoint) saved per API key and replayed for
    /// the same parameters; other parameters are an `idempotency_error`; validation failures are not saved.
    private func idempotent(
        _ call: StripeSimulatorCall, route: Route, caller: StripeSimulatorCaller, version: String?, key: String,
        requestID: String
    ) throws(StripeSimulatorFailure) -> SimulatedResponse {
        guard !key.isEmpty, key.count <= 255 else {
            throw .invalid("Idempotency keys must be 1 to 255 characters long.", param: "Idempotency-Key")
        }
        let scope = "\(caller.apiKey)|\(caller.account ?? "")"
        let fingerprint = Data("\(call.method) \(call.path)\n\(call.params.canonical)".utf8)
        switch ledger.begin(key: key, scope: scope, fingerprint: fingerprint) {
        case .proceed, .expired:
            var response: SimulatedResponse
            do {
                response = jsonResponse(200, try perform(call, route: route, caller: caller, version: version))
            } catch  where error.savedForIdempotency {
                response = jsonResponse(error.status, error.json)
            } catch {
                ledger.abandon(key: key, scope: scope)
                throw error
            }
            response = response.withHeader("Request-Id", requestID).withHeader(
                "Stripe-Version", version ?? Seed.accountAPIVersion)
            ledger.record(key: key, scope: scope, fingerprint: fingerprint, response: response)
            return response
        case .replay(let first):
            var replayed = first.withHeader("Idempotent-Replayed", "true").withHeader("Request-Id", requestID)
            if let original = first.header("Request-Id") {
                replayed = replayed.withHeader("Original-Request", original)
            }
            return replayed
        case .conflict:
            throw StripeSimulatorFailure(
                status: 400, type: "idempotency_error", code: nil,
                message:
                    "The idempotency key '\(key)' was first used with other parameters; use a new key for a different request.",
                param: nil
            )
        case .inProgress:
            throw .invalid(
                "A request with idempotency key '\(key)' is still being processed; retry it later.",
                code: "idempotency_key_in_use", status: 409)
        }
    }

    private func authenticate(_ call: StripeSimulatorCall) throws(StripeSimulatorFailure) -> StripeSimulatorCaller {
        let authorization = call.header("authorization")
        guard let key = SimulatorHTTP.bearerToken(authorization) ?? SimulatorHTTP.basicCredentials(authorization)?.user,
            !key.isEmpty
        else {
            throw .invalid(
                "No API key was given. Send your secret key in the Authorization header, as 'Bearer sk_…' or as the user name of Basic authentication.",
                status: 401
            )
        }
        let livemode: Bool
        if ConstantTime.equals(key.utf8, credentials.testSecretKey.utf8) {
            livemode = false
        } else if ConstantTime.equals(key.utf8, credentials.liveSecretKey.utf8) {
            livemode = true
        } else {
            throw .invalid("Invalid API Key provided: \(Self.masked(key))", status: 401)
        }
        var account: String?
        if let requested = call.header("stripe-account") {
            guard requested == Seed.connectedAccountID else {
                throw .invalid(
                    "The API key has no access to account '\(requested)', or that account does not exist.", status: 403)
            }
            account = requested
        }
        return StripeSimulatorCaller(apiKey: key, livemode: livemode, account: account)
    }

    /// `sk_test_****1234`.
    static func masked(_ key: String) -> String {
        let parts = key.split(separator: "_", maxSplits: 2, omittingEmptySubsequences: false)
        let prefix = parts.count == 3 ? "\(parts[0])_\(parts[1])_" : ""
        return prefix + String(repeating: "*", count: 4) + String(key.suffix(4))
    }

    /// The validated `Stripe-Version`, nil when absent. Accepts `YYYY-MM-DD`, an optional `.name`, and beta
    /// suffixes (`; name=v1`).
    private func apiVersion(_ call: StripeSimulatorCall) throws(StripeSimulatorFailure) -> String? {
        guard let version = call.header("stripe-version") else { return nil }
        guard Self.isVersion(version) else {
            throw .invalid("Invalid Stripe API version: \(version)", param: "Stripe-Version")
        }
        return version
    }

    static func isVersion(_ text: String) -> Bool {
        let segments = text.split(separator: ";", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard let first = segments.first else { return false }
        let parts = first.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let date = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard date.count == 3, date[0].count == 4, date[1].count == 2, date[2].count == 2,
            date.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let month = Int(date[1]), let day = Int(date[2]), (1...12).contains(month), (1...31).contains(day)
        else { return false }
        if parts.count == 2,
            parts[1].isEmpty || !parts[1].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
        {
            return false
        }
        return segments.dropFirst().allSatisfy { segment in
            let pair = segment.split(separator: "=", omittingEmptySubsequences: false)
            return pair.count == 2 && !pair[0].isEmpty && !pair[1].isEmpty
        }
    }

    private func perform(
        _ call: StripeSimulatorCall, route: Route, caller: StripeSimulatorCaller, version: String?
    ) throws(StripeSimulatorFailure) -> StripeSimulatorJSON {
        switch route {
        case .createEphemeralKey: return try createEphemeralKey(call, caller: caller, version: version)
        case .deleteEphemeralKey: return try deleteEphemeralKey(call, caller: caller)
        case .listCards: return try listCards(call, caller: caller)
        case .createCard: return try createCard(call, caller: caller)
        case .retrieveCard: return try retrieveCard(call, caller: caller)
        case .updateCard: return try updateCard(call, caller: caller)
        case .listCardholders: return try listCardholders(call, caller: caller)
        case .retrieveCardholder: return try retrieveCardholder(call, caller: caller)
        case .listTokens: return try listTokens(call, caller: caller)
        case .retrieveToken: return try retrieveToken(call, caller: caller)
        case .updateToken: return try updateToken(call, caller: caller)
        case .pushProvisioningDetails: throw .invalid("Unrecognized request URL.", status: 404)
        }
    }

    private var now: Int64 { Int64(simulationClock.now().timeIntervalSince1970) }

    // MARK: Ephemeral keys

    private func createEphemeralKey(
        _ call: StripeSimulatorCall, caller: StripeSimulatorCaller, version: String?
    ) throws(StripeSimulatorFailure) -> StripeSimulatorJSON {
        guard let version else {
            throw .invalid(
                "Creating an ephemeral key needs a Stripe-Version header naming the API version your Stripe mobile SDK uses (for example 2020-08-27)."
            )
        }
        try call.params.requireKnown(["issuing_card", "customer", "nonce", "verification_session", "expand"])
        try requireExpansions(call.params.list("expand"), allowed: [])
        // Stripe's Issuing Elements guide sends `issuing_card` together with a `nonce` from Stripe.js
        // (`createEphemeralKeyNonce`), so a nonce may accompany the card; the other scopes stand alone.
        let scopes = ["customer", "issuing_card", "verification_session"].filter { call.params.contains($0) }
        guard scopes.count == 1 || (scopes.isEmpty && call.params.contains("nonce")) else {
            throw .invalid("Pass exactly one of customer, issuing_card, nonce or verification_session.")
        }
        if call.params.contains("nonce"), scopes != ["issuing_card"] {
            throw .invalid(
                "A nonce creates an ephemeral key for an issuing card: pass it with issuing_card.", param: "nonce")
        }
        guard let cardID = call.params.string("issuing_card") else {
            throw .invalid(
                "This simulator mints ephemeral keys for issuing cards only.", param: scopes.first ?? "nonce")
        }
        guard let card = cards.get(cardID) else {
            throw .noSuch("issuing card", cardID, param: "issuing_card", status: 400)
        }
        let nonce = call.params.string("nonce")
        if let nonce { try requireUnusedNonce(nonce) }
        if card.failsInternally { throw Self.internalError }
        let created = now
        let key = StripeSimulatorEphemeralKey(
            id: ids.next(prefix: "ephkey_1", length: 23),
            secret: ids.next(prefix: caller.livemode ? "ek_live_" : "ek_test_", length: 99),
            cardID: cardID, created: created, expires: created + Int64(Seed.ephemeralKeyLifetime),
            livemode: caller.livemode,
            apiVersion: version, revoked: false, nonce: nonce
        )
        ephemeralKeys.put(key.id, key)
        return render(key: key, includeSecret: true)
    }

    private func deleteEphemeralKey(
        _ call: StripeSimulatorCall, caller: StripeSimulatorCaller
    ) throws(StripeSimulatorFailure) -> StripeSimulatorJSON {
        try call.params.requireKnown(["expand"])
        let id = call.id ?? ""
        let nowValue = now
        guard let key = ephemeralKeys.get(id), !key.revoked, key.expires > nowValue else {
            throw .noSuch("ephemeral key", id)
        }
        let revoked =
            ephemeralKeys.update(id) { key in
                key.revoked = true
                key.expires = nowValue
            } ?? key
        return render(key: revoked, includeSecret: false)
    }

    static let internalError = StripeSimulatorFailure(
        status: 500, type: "api_error", code: nil, message: "An unexpected error occurred inside the simulated Stripe.",
        param: nil,
        savedForIdempotency: true
    )

    // MARK: Cards

    private func listCards(
        _ call: StripeSimulatorCall, caller: StripeSimulatorCaller
    ) throws(StripeSimulatorFailure) -> StripeSimulatorJSON {
        let params = call.params
        try params.requireKnown([
            "limit", "starting_after", "ending_before", "status", "type", "cardholder", "created", "exp_month",
            "exp_year", "last4", "personalization_design",
            "expand",
        ])
        try requireExpansions(params.list("expand"), allowed: ["data.replaced_by", "data.replacement_for"])
        let status = params.string("status")
        if let status, !["active", "inactive", "canceled"].contains(status) {
            throw .invalidValue("status", status, allowed: ["active", "inactive", "canceled"])
        }
        let type = params.string("type")
        if let type, !["physical", "virtual"].contains(type) {
            throw .invalidValue("type", type, allowed: ["physical", "virtual"])
        }
        let created = try createdFilter(params)
        let selected = cards.all().filter { card in
            (status == nil || card.status == status) && (type == nil || card.type == type)
                && (params.string("cardholder").map { $0 == card.cardholderID } ?? true)
                && (params.string("last4").map { $0 == card.last4 } ?? true)
                && (params.string("personalization_design").map { $0 == card.personalizationDesign } ?? true)
                && (params.string("exp_month").map { $0 == String(card.expMonth) } ?? true)
                && (params.string("exp_year").map { $0 == String(card.expYear) } ?? true)
                && created(card.created)
        }
        return try page(
            selected, params: params, url: "/v1/issuing/cards", what: "issuing card", id: \.id, created: \.created
        ) {
            render(card: $0, livemode: caller.livemode)
        }
    }

    /// `POST /v1/issuing/cards`: `currency` and `type` required, `cardholder` must exist, a physical card needs
    /// `shipping`; `status` active or inactive (the default).
    private func createCard(
        _ call: StripeSimulatorCall, caller: StripeSimulatorCaller
    ) throws(StripeSimulatorFailure) -> StripeSimulatorJSON {
        let params = call.params
        try params.requireKnown([
            "cardholder", "currency", "type", "status", "shipping", "metadata", "spending_controls", "exp_month",
            "exp_year", "financial_account",
            "personalization_design", "pin", "replacement_for", "replacement_reason", "second_line", "expand",
        ])
        try requireExpansions(params.list("expand"), allowed: ["replaced_by", "replacement_for"])
        guard let currency = params.string("currency") else { throw .missingParameter("currency") }
        guard let type = params.string("type") else { throw .missingParameter("type") }
        guard ["physical", "virtual"].contains(type) else {
            throw .invalidValue("type", type, allowed: ["physical", "virtual"])
        }
        guard ["usd", "eur", "gbp"].contains(currency) else {
            throw .invalid(
                "Issuing cards can be created in usd, eur or gbp, not \(currency).", param: "currency",
                code: "parameter_invalid_string")
        }
        guard let holderID = params.string("cardholder") else { throw .missingParameter("cardholder") }
        guard cardholders.get(holderID) != nil else {
            throw .noSuch("issuing cardholder", holderID, param: "cardholder", status: 400)
        }
        let status = params.string("status") ?? "inactive"
        guard ["active", "inactive"].contains(status) else {
            throw .invalidValue("status", status, allowed: ["active", "inactive"])
        }
        if type == "physical", !params.contains("shipping") {
            throw .invalid("A physical card needs shipping details.", param: "shipping")
        }
        let id = ids.next(prefix: "ic_1", length: 24)
        let digits = ids.nextInt(in: 0...9999)
        let created = now
        let card = StripeSimulatorCard(
            id: id, cardholderID: holderID, status: status, type: type, brand: "Visa",
            last4: String(format: "%04d", digits),
            expMonth: 12, expYear: 2030, currency: currency, created: created, applePay: .eligible,
            googlePay: .eligible,
            primaryAccountIdentifier: nil, metadata: params.object("metadata").filter { !$0.1.isEmpty },
            personalizationDesign: params.string("personalization_design")
        )
        cards.put(id, card)
        return render(card: card, livemode: caller.livemode)
    }

    private func retrieveCard(
        _ call: StripeSimulatorCall, caller: StripeSimulatorCaller
    ) throws(StripeSimulatorFailure) -> StripeSimulatorJSON {
        try call.params.requireKnown(["expand"])
        try requireExpansions(call.params.list("expand"), allowed: ["replaced_by", "replacement_for"])
        let id = call.id ?? ""
        guard let card = cards.get(id) else { throw .noSuch("issuing card", id) }
        return render(card: card, livemode: caller.livemode)
    }

    private func updateCard(
        _ call: StripeSimulatorCall, caller: StripeSimulatorCaller
    ) throws(StripeSimulatorFailure) -> StripeSimulatorJSON {
        let params = call.params
        try params.requireKnown(["status", "cancellation_reason", "metadata", "pin", "expand"])
        try requireExpansions(params.list("expand"), allowed: ["replaced_by", "replacement_for"])
        let id = call.id ?? ""
        guard let card = cards.get(id) else { throw .noSuch("issuing card", id) }
        let encryptedPIN = try Self.encryptedPIN(params)
        if encryptedPIN != nil, card.status == "canceled" {
            throw .invalid("This card is canceled; its PIN cannot be changed.", param: "pin", code: "card_canceled")
        }
        let status = params.string("status")
        if let status, !["active", "inactive", "canceled"].contains(status) {
            throw .invalidValue("status", status, allowed: ["active", "inactive", "canceled"])
        }
        let reason = params.string("cancellation_reason")
        if let reason {
            guard ["lost", "stolen"].contains(reason) else {
                throw .invalidValue("cancellation_reason", reason, allowed: ["lost", "stolen"])
            }
            guard status == "canceled" else {
                throw .invalid(
                    "cancellation_reason can only be given when canceling the card (status=canceled).",
                    param: "cancellation_reason")
            }
        }
        if status != nil, card.status == "canceled" {
            throw .invalid(
                "This card is canceled; a canceled card cannot change status.", param: "status",
                code: "status_transition_invalid")
        }
        if card.failsInternally { throw Self.internalError }
        let metadata = params.object("metadata")
        let updated =
            cards.update(id) { card in
                if let encryptedPIN { card.encryptedPINs.append(encryptedPIN) }
                if let status {
                    card.status = status
                    if status == "canceled" { card.cancellationReason = reason }
                }
                for (key, value) in metadata {
                    card.metadata.removeAll { $0.0 == key }
                    if !value.isEmpty { card.metadata.append((key, value)) }
                }
            } ?? card
        return render(card: updated, livemode: caller.livemode)
    }

    /// `pin[encrypted_number]` (Stripe's `encrypted_pin_param`: one member, a string of at most 5000 characters), or nil
    /// when no `pin` is sent. The simulator cannot decrypt it (Stripe's private key is Stripe's): it keeps the text.
    static func encryptedPIN(_ params: StripeSimulatorParams) throws(StripeSimulatorFailure) -> String? {
        guard params.contains("pin") else { return nil }
        let members = params.object("pin")
        for (name, _) in members where name != "encrypted_number" { throw .unknownParameter("pin[\(name)]") }
        guard members.count == 1, let value = members.first?.1 else {
            throw .invalid("pin must be a hash with encrypted_number.", param: "pin")
        }
        guard !value.isEmpty, value.count <= 5000 else {
            throw .invalid(
                "pin[encrypted_number] must be 1 to 5000 characters long.", param: "pin[encrypted_number]")
        }
        return value
    }

    // MARK: Cardholders

    private func listCardholders(
        _ call: StripeSimulatorCall, caller: StripeSimulatorCaller
    ) throws(StripeSimulatorFailure) -> StripeSimulatorJSON {
        let params = call.params
        try params.requireKnown([
            "limit", "starting_after", "ending_before", "email", "phone_number", "status", "type", "created", "expand",
        ])
        try requireExpansions(params.list("expand"), allowed: [])
        let created = try createdFilter(params)
        let selected = cardholders.all().filter { holder in
            (params.string("email").map { $0 == holder.email } ?? true)
                && (params.string("phone_number").map { $0 == holder.phoneNumber } ?? true)
                && (params.string("status").map { $0 == "active" } ?? true)
                && (params.string("type").map { $0 == "individual" } ?? true)
                && created(holder.created)
        }
        return try page(
            selected, params: params, url: "/v1/issuing/cardholders", what: "issuing cardholder", id: \.id,
            created: \.created
        ) {
            render(cardholder: $0, livemode: caller.livemode)
        }
    }

    private func retrieveCardholder(
        _ call: StripeSimulatorCall, caller: StripeSimulatorCaller
    ) throws(StripeSimulatorFailure) -> StripeSimulatorJSON {
        try call.params.requireKnown(["expand"])
        try requireExpansions(call.params.list("expand"), allowed: [])
        let id = call.id ?? ""
        guard let holder = cardholders.get(id) else { throw .noSuch("issuing cardholder", id) }
        return render(cardholder: holder, livemode: caller.livemode)
    }

    // MARK: Tokens

    private func listTokens(
        _ call: StripeSimulatorCall, caller: StripeSimulatorCaller
    ) throws(StripeSimulatorFailure) -> StripeSimulatorJSON {
        let params = call.params
        try params.requireKnown(["card", "status", "created", "limit", "starting_after", "ending_before", "expand"])
        try requireExpansions(params.list("expand"), allowed: [])
        guard let cardID = params.string("card") else { throw .missingParameter("card") }
        guard cards.get(cardID) != nil else { throw .noSuch("issuing card", cardID, param: "card", status: 400) }
        let status = params.string("status")
        let statuses = ["active", "deleted", "requested", "suspended"]
        if let status, !statuses.contains(status) { throw .invalidValue("status", status, allowed: statuses) }
        let created = try createdFilter(params)
        let selected = tokens.all().filter {
            $0.cardID == cardID && (status == nil || $0.status == status) && created($0.created)
        }
        let url = "/v1/issuing/tokens"
        return try page(selected, params: params, url: url, what: "issuing token", id: \.id, created: \.created) {
            render(token: $0, livemode: caller.livemode, expand: [])
        }
    }

    private func retrieveToken(
        _ call: StripeSimulatorCall, caller: StripeSimulatorCaller
    ) throws(StripeSimulatorFailure) -> StripeSimulatorJSON {
        try call.params.requireKnown(["expand"])
        let expand = call.params.list("expand")
        try requireExpansions(expand, allowed: ["network_data", "card"])
        let id = call.id ?? ""
        guard let token = tokens.get(id) else { throw .noSuch("issuing token", id) }
        return render(token: token, livemode: caller.livemode, expand: Set(expand))
    }

    private func updateToken(
        _ call: StripeSimulatorCall, caller: StripeSimulatorCaller
    ) throws(StripeSimulatorFailure) -> StripeSimulatorJSON {
        let params = call.params
        try params.requireKnown(["status", "expand"])
        let expand = params.list("expand")
        try requireExpansions(expand, allowed: ["network_data", "card"])
        let id = call.id ?? ""
        guard let token = tokens.get(id) else { throw .noSuch("issuing token", id) }
        guard let status = params.string("status") else { throw .missingParameter("status") }
        guard ["active", "suspended", "deleted"].contains(status) else {
            throw .invalidValue("status", status, allowed: ["active", "suspended", "deleted"])
        }
        let allowed: Set<String>
        switch token.status {
        case "active", "suspended": allowed = ["active", "suspended", "deleted"]
        case "requested": allowed = ["deleted"]
        default: allowed = []
        }
        guard allowed.contains(status) else {
            throw .invalid(
                "A \(token.status) token cannot become \(status).", param: "status", code: "status_transition_invalid")
        }
        let nowValue = now
        let updated =
            tokens.update(id) { token in
                token.status = status
                token.networkUpdatedAt = nowValue
            } ?? token
        return render(token: updated, livemode: caller.livemode, expand: Set(expand))
    }

    // MARK: Push provisioning details (called by the mobile SDK with the ephemeral key)

    private func pushProvisioningDetails(
        _ call: StripeSimulatorCall, version: String?
    ) throws(StripeSimulatorFailure) -> StripeSimulatorJSON {
        guard let secret = SimulatorHTTP.bearerToken(call.header("authorization")), secret.hasPrefix("ek_") else {
            throw .invalid("This endpoint takes an ephemeral key (ek_…) as the Bearer token.", status: 401)
        }
        guard let key = ephemeralKeys.all().first(where: { ConstantTime.equals($0.secret.utf8, secret.utf8) }),
            !key.revoked
        else {
            throw .invalid("Invalid API Key provided: \(Self.masked(secret))", status: 401)
        }
        guard now < key.expires else {
            throw .invalid("The ephemeral key has expired; mint a new one.", code: "api_key_expired", status: 401)
        }
        let cardID = call.id ?? ""
        guard key.cardID == cardID else {
            throw .invalid("The ephemeral key does not grant access to this card.", status: 403)
        }
        guard version == key.apiVersion else {
            throw .invalid(
                "Use the API version the ephemeral key was created with (\(key.apiVersion)).", param: "Stripe-Version")
        }
        let params = call.params
        try params.requireKnown(["ios", "android", "expand"])
        guard let card = cards.get(cardID) else { throw .noSuch("issuing card", cardID) }
        let ios = params.contains("ios")
        guard ios != params.contains("android") else { throw .invalid("Pass exactly one of ios or android.") }
        var material = Data(cardID.utf8)
        if ios {
            let certificates = params.list("ios[certificates]")
            guard !certificates.isEmpty, certificates.allSatisfy({ ByteEncoding.decodeBase64($0) != nil }) else {
                throw .invalid("ios[certificates] must be Base64 DER certificates.", param: "ios[certificates]")
            }
            for field in ["nonce", "nonce_signature"] {
                guard let hex = params.string("ios[\(field)]"), !hex.isEmpty, hex.count % 2 == 0,
                    hex.allSatisfy(\.isHexDigit)
                else {
                    throw .invalid("ios[\(field)] must be hexadecimal.", param: "ios[\(field)]")
                }
                material.append(Data(hex.utf8))
            }
        } else {
            for field in ["wallet_account_id", "device_id"] {
                guard let value = params.string("android[\(field)]"), !value.isEmpty else {
                    throw .missingParameter("android[\(field)]")
                }
                material.append(Data(value.utf8))
            }
        }
        let wallet = ios ? card.applePay : card.googlePay
        guard card.status == "active", wallet.eligible else {
            throw .invalid("This card cannot be added to the wallet now.", param: "card", code: "card_not_eligible")
        }
        func derived(_ label: String) -> String {
            Data(SHA256.hash(data: Data(label.utf8) + material)).base64EncodedString()
        }
        return .object([
            ("object", "issuing.push_provisioning_details"),
            ("activation_data", .string(derived("activation"))),
            ("contents", .string(derived("contents") + derived("contents-2"))),
            ("ephemeral_public_key", .string(derived("ephemeral-public-key"))),
        ])
    }

    // MARK: Shared

    private func requireExpansions(_ expand: [String], allowed: Set<String>) throws(StripeSimulatorFailure) {
        for path in expand where !allowed.contains(path) {
            throw .invalid("The property \(path) cannot be expanded.", param: "expand")
        }
    }

    /// `created=N` or `created[gt|gte|lt|lte]=N`.
    private func createdFilter(
        _ params: StripeSimulatorParams
    ) throws(StripeSimulatorFailure) -> @Sendable (Int64) -> Bool {
        var bounds: [(String, Int64)] = []
        if let exact = params.string("created") {
            guard let value = Int64(exact) else {
                throw .invalid("Invalid integer: \(exact)", param: "created", code: "parameter_invalid_integer")
            }
            bounds.append(("eq", value))
        }
        for (op, text) in params.object("created") {
            guard ["gt", "gte", "lt", "lte"].contains(op) else { throw .unknownParameter("created[\(op)]") }
            guard let value = Int64(text) else {
                throw .invalid("Invalid integer: \(text)", param: "created[\(op)]", code: "parameter_invalid_integer")
            }
            bounds.append((op, value))
        }
        let fixed = bounds
        return { created in
            fixed.allSatisfy { op, value in
                switch op {
                case "gt": return created > value
                case "gte": return created >= value
                case "lt": return created < value
                case "lte": return created <= value
                default: return created == value
                }
            }
        }
    }

    /// A Stripe list page (newest first) with `starting_after` / `ending_before` cursors.
    private func page<Item>(
        _ items: [Item], params: StripeSimulatorParams, url: String, what: String, id: KeyPath<Item, String>,
        created: KeyPath<Item, Int64>,
        render: (Item) -> StripeSimulatorJSON
    ) throws(StripeSimulatorFailure) -> StripeSimulatorJSON {
        let limit = try params.integer("limit", in: 1...100) ?? 10
        let after = params.string("starting_after")
        let before = params.string("ending_before")
        if after != nil && before != nil {
            throw .invalid("starting_after and ending_before cannot be combined.", param: "ending_before")
        }
        let sorted = items.sorted {
            $0[keyPath: created] != $1[keyPath: created]
                ? $0[keyPath: created] > $1[keyPath: created] : $0[keyPath: id] < $1[keyPath: id]
        }
        var window: ArraySlice<Item>
        var hasMore: Bool
        if let after {
            guard let index = sorted.firstIndex(where: { $0[keyPath: id] == after }) else {
                throw .noSuch(what, after, param: "starting_after", status: 400)
            }
            window = sorted[(index + 1)...]
            hasMore = window.count > limit
            window = window.prefix(limit)
        } else if let before {
            guard let index = sorted.firstIndex(where: { $0[keyPath: id] == before }) else {
                throw .noSuch(what, before, param: "ending_before", status: 400)
            }
            window = sorted[..<index]
            hasMore = window.count > limit
            window = window.suffix(limit)
        } else {
            window = sorted[...]
            hasMore = window.count > limit
            window = window.prefix(limit)
        }
        return .object([
            ("object", "list"),
            ("data", .array(window.map(render))),
            ("has_more", .bool(hasMore)),
            ("url", .string(url)),
        ])
    }
}
