import CardGatewaySimulation
import Crypto
import Foundation

/// The route handlers: each runs under the engine's lock (PaysafeSimulatorModel.swift).
extension PaysafeSimulatorEngine {
    // MARK: OAuth

    func issueToken(_ request: PaysafeSimulatorRequest) -> SimulatedResponse {
        locked {
            guard
                SimulatorHTTP.basicCredentialsMatch(
                    request.header("authorization"), user: credentials.clientID, password: credentials.clientSecret),
                request.parameter("brand") == credentials.brand
            else { return PaysafeSimulatorErrors.unauthorized("The authentication credentials are invalid.") }
            let fields = SimulatorHTTP.formFields(request.body)
            guard let grant = fields.first(where: { $0.name == "grant_type" })?.value else {
                return PaysafeSimulatorErrors.fieldErrors([("grant_type", "must not be null")])
            }
            guard grant == "client_credentials" else {
                return PaysafeSimulatorErrors.fieldErrors([
                    ("grant_type", "the simulator issues client_credentials tokens only")
                ])
            }
            let token = ids.next(prefix: "psat_", length: 32)
            tokens.put(
                token,
                PaysafeSimulatorAccessToken(
                    brand: credentials.brand,
                    expires: clock.now().addingTimeInterval(TimeInterval(credentials.tokenLifetime))))
            return .json(
                200,
                [
                    "access_token": token, "expires_in": credentials.tokenLifetime, "token_type": "Bearer",
                    "scope": "whitelabelWallet",
                ])
        }
    }

    /// The 401 for a missing, unknown or expired bearer token (never an SCA challenge), or nil when it is valid.
    private func authorize(_ request: PaysafeSimulatorRequest) -> SimulatedResponse? {
        guard let value = SimulatorHTTP.bearerToken(request.header("authorization")), let token = tokens.get(value)
        else {
            return PaysafeSimulatorErrors.unauthorized("The authentication credentials are invalid.")
        }
        guard clock.now() < token.expires else { return PaysafeSimulatorErrors.expired }
        return nil
    }

    private func customer(
        _ request: PaysafeSimulatorRequest
    ) -> Result<PaysafeSimulatorCustomer, PaysafeSimulatorFailure> {
        let id = request.parameter("customerId")
        guard let customer = customers.get(id) else {
            return .failure(
                PaysafeSimulatorFailure(PaysafeSimulatorErrors.notFound("Customer id [\(id)] does not exist")))
        }
        return .success(customer)
    }

    private func card(
        _ request: PaysafeSimulatorRequest, customer: PaysafeSimulatorCustomer
    ) -> Result<PaysafeSimulatorCard, PaysafeSimulatorFailure> {
        let id = request.parameter("cardId")
        guard let card = cards.get(id), card.customerId == customer.id else {
            return .failure(PaysafeSimulatorFailure(PaysafeSimulatorErrors.notFound("Card id [\(id)] does not exist")))
        }
        return .success(card)
    }

    /// Authorises, then finds the customer and (when `needsCard`) the card.
    private func resolve(
        _ request: PaysafeSimulatorRequest, needsCard: Bool
    ) -> Result<(PaysafeSimulatorCustomer, PaysafeSimulatorCard?), PaysafeSimulatorFailure> {
        if let refusal = authorize(request) { return .failure(PaysafeSimulatorFailure(refusal)) }
        switch customer(request) {
        case .failure(let error): return .failure(error)
        case .success(let customer):
            guard needsCard else { return .success((customer, nil)) }
            return card(request, customer: customer).map { (customer, $0) }
        }
    }

    private func includes(
        _ request: PaysafeSimulatorRequest
    ) -> Result<(tokenizations: Bool, actions: Bool), PaysafeSimulatorFailure> {
        guard let value = request.queryValue("include"), !value.isEmpty else { return .success((false, false)) }
        let words = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let unknown = words.filter { $0 != "TOKENIZATIONS" && $0 != "AVAILABLE_ACTIONS" }
        guard unknown.isEmpty else {
            return .failure(
                PaysafeSimulatorFailure(
                    PaysafeSimulatorErrors.fieldErrors([("include", "unknown value \(unknown[0])")])))
        }
        return .success((words.contains("TOKENIZATIONS"), words.contains("AVAILABLE_ACTIONS")))
    }

    // MARK: Cards

    func listCards(_ request: PaysafeSimulatorRequest) -> SimulatedResponse {
        locked {
            let resolved = resolve(request, needsCard: false)
            guard case .success(let (customer, _)) = resolved else { return resolved.failureResponse }
            var problems: [(String, String)] = []
            var statuses: Set<String>?
            if let value = request.queryValue("status"), !value.isEmpty {
                let words = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                if let bad = words.first(where: { !Self.cardStatuses.contains($0) }) {
                    problems.append(("status", "unknown card status \(bad)"))
                }
                statuses = Set(words)
            }
            let cardType = request.queryValue("cardType")
            if let cardType, cardType != "PHYSICAL", cardType != "VIRTUAL" {
                problems.append(("cardType", "must be PHYSICAL or VIRTUAL"))
            }
            var limit = 10
            if let text = request.queryValue("limit") {
                if let value = Int(text), value > 0 {
                    limit = value
                } else {
                    problems.append(("limit", "must be a positive integer"))
                }
            }
            var offset = 0
            if let text = request.queryValue("offset") {
                if let value = Int(text), value >= 0 {
                    offset = value
                } else {
                    problems.append(("offset", "must be zero or a positive integer"))
                }
            }
            let include = includes(request)
            guard case .success(let flags) = include else { return include.failureResponse }
            guard problems.isEmpty else { return PaysafeSimulatorErrors.fieldErrors(problems) }

            let matching = cards.all().filter { card in
                card.customerId == customer.id && (statuses?.contains(card.status) ?? true)
                    && (cardType.map { $0 == card.cardType } ?? true)
            }
            let page = matching.dropFirst(offset).prefix(limit)
            return .json(
                200,
                [
                    "cards": page.map {
                        Wire.card($0, includeTokenizations: flags.tokenizations, includeActions: flags.actions)
                    },
                    "meta": ["numberOfRecords": matching.count, "limit": limit, "page": offset / limit + 1],
                ])
        }
    }

    func getCard(_ request: PaysafeSimulatorRequest) -> SimulatedResponse {
        // The card is read under the lock and its JSON written outside it: written inside, the lock was the
        // simulator's bottleneck with hundreds of callers (load/paysafe, docs/LOAD.md).
        let read: Result<(PaysafeSimulatorCard, (tokenizations: Bool, actions: Bool)), PaysafeSimulatorFailure> =
            lock.withLock { _ in
                let resolved = resolve(request, needsCard: true)
                guard case .success(let (_, found)) = resolved, let card = found else {
                    return .failure(PaysafeSimulatorFailure(resolved.failureResponse))
                }
                return includes(request).map { (card, $0) }
            }
        switch read {
        case .success(let (card, flags)):
            return .json(200, Wire.card(card, includeTokenizations: flags.tokenizations, includeActions: flags.actions))
        case .failure(let error):
            return error.response
        }
    }

    func createCard(_ request: PaysafeSimulatorRequest) -> SimulatedResponse {
        locked {
            let resolved = resolve(request, needsCard: false)
            guard case .success(let (customer, _)) = resolved else { return resolved.failureResponse }
            guard let body = request.json else { return PaysafeSimulatorErrors.notParseable }
            let isUS = customer.region == "US"
            var problems: [(String, String)] = []

            let programName = body["programName"] as? String
            let program = programName.flatMap { programs.get($0) }
            if programName?.isEmpty ?? true {
                problems.append(("programName", "must not be null"))
            } else if program == nil || program?.region != customer.region {
                problems.append(("programName", "is not a program the customer is eligible for"))
            }
            let currency = body["currency"] as? String
            if let currency, currency.utf8.count == 3, currency.uppercased() == currency {
                if let program, !program.currencies.contains(currency) {
                    problems.append(("currency", "is not offered by the program"))
                }
            } else {
                problems.append(("currency", "size must be between 3 and 3"))
            }
            if let mobile = body["mobile"] {
                if !((mobile as? String).map(Wire.isMobile) ?? false) {
                    problems.append(("mobile", "must match \"^\\+\\d+\\s?\\d{1,16}$\""))
                }
            }
            if let pin = body["cardPin"] {
                if isUS {
                    problems.append(("cardPin", "must be null for US customers"))
                } else if !((pin as? String).map { Wire.isDigits($0, count: 4) } ?? false) {
                    problems.append(("cardPin", "size must be between 4 and 4"))
                }
            }
            if let externalId = body["externalId"], ((externalId as? String)?.count ?? 41) > 40 {
                problems.append(("externalId", "size must be between 0 and 40"))
            }
            if ((body["userAgent"] as? String) ?? "").isEmpty { problems.append(("userAgent", "must not be null")) }
            let address = body["deliveryAddress"] as? [String: Any]
            if let program {
                if program.cardType == "PHYSICAL" && address == nil {
                    problems.append(("deliveryAddress", "must not be null for a PHYSICAL card"))
                }
                if program.cardType == "VIRTUAL" && address != nil {
                    problems.append(("deliveryAddress", "must be null for a VIRTUAL card"))
                }
            }
            if let address { problems += addressProblems(address, isUS: isUS) }
            if isUS {
                if !(body["termsAndConditionsAccepted"] is Bool) {
                    problems.append(("termsAndConditionsAccepted", "must not be null"))
                }
                if !(body["eDisclosureAccepted"] is Bool) {
                    problems.append(("eDisclosureAccepted", "must not be null"))
                }
            }
            guard problems.isEmpty, let program, let currency else {
                return PaysafeSimulatorErrors.fieldErrors(problems)
            }

            let live = cards.all().filter {
                $0.customerId == customer.id && $0.programName == program.name && Self.liveStatuses.contains($0.status)
            }
            guard live.count < program.allowableCards else {
                return PaysafeSimulatorErrors.error(
                    409, "DW-CARD-LIMIT-REACHED",
                    "The customer holds the maximum number of cards allowed on this program.")
            }

            let cardId = ids.uuid()
            let digest = Data(SHA256.hash(data: Data(cardId.utf8)))
            let lastFour = String(format: "%04d", (Int(digest[0]) << 8 | Int(digest[1])) % 10_000)
            let now = clock.now()
            let year = Calendar(identifier: .gregorian).component(.year, from: now) + 3
            let status = program.cardType == "VIRTUAL" ? "ACTIVE" : (program.isDigital ? "DIGITAL" : "ISSUED")
            let card = PaysafeSimulatorCard(
                cardId: cardId, customerId: customer.id, status: status, statusReason: nil, cardType: program.cardType,
                scheme: program.scheme,
                programName: program.name, currency: currency, bin: program.scheme == "VISA" ? "453978" : "533944",
                lastFour: lastFour,
                expiryMonth: Calendar(identifier: .gregorian).component(.month, from: now), expiryYear: year,
                mobile: (body["mobile"] as? String) ?? customer.mobile, createdDate: now,
                activationDate: status == "ACTIVE" ? now : nil,
                accountId: String(200_000_000 + cards.all().count), externalId: body["externalId"] as? String,
                deliveryAddress: address?.compactMapValues { $0 as? String }, cvv: Seed.createdCardCVV,
                pin: body["cardPin"] as? String
            )
            cards.put(cardId, card)
            return .json(201, Wire.card(card, includeTokenizations: false, includeActions: false))
        }
    }

    private func addressProblems(_ address: [String: Any], isUS: Bool) -> [(String, String)] {
        var problems: [(String, String)] = []
        func text(_ key: String) -> String? { address[key] as? String }
        let address1 = text("address1") ?? ""
        if !(4...40).contains(address1.count) {
            problems.append(("deliveryAddress.address1", "size must be between 4 and 40"))
        }
        for key in ["address2", "address3"] where (text(key)?.count ?? 0) > 30 {
            problems.append(("deliveryAddress.\(key)", "size must be between 0 and 30"))
        }
        let city = text("city") ?? ""
        let cityAllowed = city.unicodeScalars.allSatisfy {
            $0 == " " || $0 == "-" || $0 == "." || CharacterSet.letters.contains($0)
        }
        if city.isEmpty || city.count > 30 || !cityAllowed {
            problems.append(("deliveryAddress.city", "must be at most 30 letters, spaces, hyphens or periods"))
        }
        let country = text("countryCode") ?? ""
        if country.utf8.count != 2 || !country.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) {
            problems.append(("deliveryAddress.countryCode", "must be an ISO 3166 alpha-2 code"))
        }
        if let state = text("state") {
            if state.isEmpty || state.count > 3 {
                problems.append(("deliveryAddress.state", "size must be between 1 and 3"))
            }
        } else if isUS {
            problems.append(("deliveryAddress.state", "must not be null for US customers"))
        }
        let postal = text("postalCode") ?? ""
        if postal.isEmpty {
            problems.append(("deliveryAddress.postalCode", "must not be null"))
        } else if isUS {
            let allowed = postal.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D
                    || $0 == 0x20
            }
            if !allowed { problems.append(("deliveryAddress.postalCode", "must match \"^[a-zA-Z0-9-\\ ]*$\"")) }
        } else if postal.count > 16 {
            problems.append(("deliveryAddress.postalCode", "size must be between 0 and 16"))
        }
        return problems
    }

    func activateCard(_ request: PaysafeSimulatorRequest) -> SimulatedResponse {
        locked {
            let resolved = resolve(request, needsCard: true)
            guard case .success(let (_, found)) = resolved, var card = found else { return resolved.failureResponse }
            guard let body = request.json else { return PaysafeSimulatorErrors.notParseable }
            var problems: [(String, String)] = []
            let lastFour = body["lastFourDigits"] as? String ?? ""
            let cvv = body["cvv"] as? String ?? ""
            if lastFour.count != 4 { problems.append(("lastFourDigits", "size must be between 4 and 4")) }
            if cvv.count != 3 { problems.append(("cvv", "size must be between 3 and 3")) }
            if ((body["userAgent"] as? String) ?? "").isEmpty { problems.append(("userAgent", "must not be null")) }
            guard problems.isEmpty else { return PaysafeSimulatorErrors.fieldErrors(problems) }
            if card.status == "ACTIVE" {
                return PaysafeSimulatorErrors.error(400, "DW-CARD-ALREADY-ACTIVATED", "The card is already activated.")
            }
            guard card.status == "ISSUED" || card.status == "DIGITAL" else {
                return PaysafeSimulatorErrors.error(
                    400, "DW-CARD-INVALID-STATUS", "Only ISSUED or DIGITAL cards can be activated.")
            }
            guard lastFour == card.lastFour && cvv == card.cvv else {
                card.failedActivations += 1
                if card.failedActivations >= Seed.activationAttemptsBeforeSuspension {
                    card.status = "SUSPENDED"
                    card.statusReason = "Wrong activation data"
                }
                cards.put(card.cardId, card)
                return PaysafeSimulatorErrors.error(
                    400, "DW-CARD-ACTIVATION-DATA-MISMATCH", "The activation data does not match the card.")
            }
            card.status = "ACTIVE"
            card.statusReason = nil
            card.failedActivations = 0
            card.activationDate = clock.now()
            cards.put(card.cardId, card)
            return .json(200, Wire.card(card, includeTokenizations: false, includeActions: false))
        }
    }

    func updateCard(_ request: PaysafeSimulatorRequest) -> SimulatedResponse {
        locked {
            let resolved = resolve(request, needsCard: true)
            guard case .success(let (customer, found)) = resolved, var card = found else {
                return resolved.failureResponse
            }
            guard let body = request.json else { return PaysafeSimulatorErrors.notParseable }
            // The business update page: "Pin change is an unavailable action for Business APIs".
            if body["pin"] != nil {
                return PaysafeSimulatorErrors.fieldErrors([
                    ("pin", "Pin change is an unavailable action for Business APIs")
                ])
            }
            var problems: [(String, String)] = []
            let status = body["status"] as? String
            if status == nil { problems.append(("status", "must not be null")) }
            // CardUpdateRequest: userAgent required, at most 1,000 characters; statusReason at most 200.
            if let userAgent = body["userAgent"] as? String, !userAgent.isEmpty {
                if userAgent.count > 1000 { problems.append(("userAgent", "size must be between 0 and 1000")) }
            } else {
                problems.append(("userAgent", "must not be null"))
            }
            if let reason = body["statusReason"] as? String, reason.count > 200 {
                problems.append(("statusReason", "size must be between 0 and 200"))
            }
            guard problems.isEmpty, let status else { return PaysafeSimulatorErrors.fieldErrors(problems) }
            guard Self.cardStatuses.contains(status) else {
                return PaysafeSimulatorErrors.fieldErrors([("status", "unknown card status")])
            }
            guard Self.transitions[card.status]?.contains(status) ?? false else {
                return PaysafeSimulatorErrors.error(
                    400, "DW-CARD-STATUS-TRANSITION-NOT-ALLOWED",
                    "The card cannot be changed from \(card.status) to \(status).")
            }
            if let challenge = requireSCA(customer: customer, operation: "PATCH \(card.cardId)", request: request) {
                return challenge
            }
            card.status = status
            card.statusReason = body["statusReason"] as? String
            cards.put(card.cardId, card)
            return .json(200, Wire.card(card, includeTokenizations: false, includeActions: false))
        }
    }

    func programs(_ request: PaysafeSimulatorRequest) -> SimulatedResponse {
        locked {
            let resolved = resolve(request, needsCard: false)
            guard case .success(let (customer, _)) = resolved else { return resolved.failureResponse }
            return .json(200, ["programs": programs.all().filter { $0.region == customer.region }.map(Wire.program)])
        }
    }

    // MARK: Tokenization

    func tokenize(_ request: PaysafeSimulatorRequest) -> SimulatedResponse {
        locked {
            let resolved = resolve(request, needsCard: true)
            guard case .success(let (customer, found)) = resolved, var card = found else {
                return resolved.failureResponse
            }
            guard let body = request.json else { return PaysafeSimulatorErrors.notParseable }
            let walletType = body["walletType"] as? String ?? ""
            guard Self.walletTypes.contains(walletType) else {
                return PaysafeSimulatorErrors.fieldErrors([
                    ("walletType", "must be one of APPLE_PAY, GOOGLE_PAY, SAMSUNG_PAY")
                ])
            }
            var problems: [(String, String)] = []
            if walletType == "APPLE_PAY" {
                for field in ["leafCertificate", "subordinateCertificate", "nonce", "nonceSignature"] {
                    guard let value = body[field] as? String, !value.isEmpty else {
                        problems.append((field, "must not be null for APPLE_PAY"))
                        continue
                    }
                    if !Wire.isHex(value) { problems.append((field, "must be hex-encoded")) }
                }
            } else if card.scheme == "VISA" {
                for field in ["clientDeviceId", "clientWalletAccountId"] where ((body[field] as? String) ?? "").isEmpty
                {
                    problems.append((field, "must not be null for VISA cards and \(walletType)"))
                }
            }
            guard problems.isEmpty else { return PaysafeSimulatorErrors.fieldErrors(problems) }
            guard card.status == "ACTIVE" || card.status == "DIGITAL" else {
                return PaysafeSimulatorErrors.error(
                    400, "DW-CARD-INVALID-STATUS", "A \(card.status) card cannot be tokenized.")
            }

            card.tokenizations.append(
                PaysafeSimulatorTokenization(
                    dpanRef: nil, walletId: body["clientWalletAccountId"] as? String, walletType: walletType,
                    status: "INITIATED", created: clock.now()
                ))
            cards.put(card.cardId, card)

            // Blobs derived from the request's fields (never the request's own bytes), the same for the same request.
            let fields = [
                "walletType", "leafCertificate", "subordinateCertificate", "nonce", "nonceSignature", "clientDeviceId",
                "clientWalletAccountId",
            ]
            let material = ([card.cardId] + fields.map { (body[$0] as? String) ?? "" }).joined(separator: "|")
            let seed = Data(SHA256.hash(data: Data(material.utf8)))
            let isVisa = card.scheme == "VISA"
            var response: [String: Any] = [
                "cardNetwork": isVisa ? "CARD_NETWORK_VISA" : "CARD_NETWORK_MASTERCARD",
                "tokenProvider": isVisa ? "TOKEN_PROVIDER_VISA" : "TOKEN_PROVIDER_MASTERCARD",
                "cardLastDigits": card.lastFour,
                "customer": customerObject(customer),
            ]
            if walletType == "APPLE_PAY" {
                response["activationData"] = Wire.derive(seed, label: "activationData", count: 48).base64EncodedString()
                response["encryptedPassData"] = Wire.derive(seed, label: "encryptedPassData", count: 256)
                    .base64EncodedString()
                response["ephemeralPublicKey"] =
                    (Data([0x04]) + Wire.derive(seed, label: "ephemeralPublicKey", count: 64)).base64EncodedString()
            } else {
                response["opaquePaymentCard"] = Wire.derive(seed, label: "opaquePaymentCard", count: 192)
                    .base64EncodedString()
            }
            return .json(201, response)
        }
    }

    private func customerObject(_ customer: PaysafeSimulatorCustomer) -> [String: Any] {
        var object: [String: Any] = [
            "name": customer.name, "mobile": customer.mobile, "address1": customer.address1, "city": customer.city,
            "countryCode": customer.countryCode, "postalCode": customer.postalCode,
        ]
        if let state = customer.state { object["state"] = state }
        return object
    }

    func updateTokenization(_ request: PaysafeSimulatorRequest) -> SimulatedResponse {
        locked {
            let resolved = resolve(request, needsCard: true)
            guard case .success(let (_, found)) = resolved, var card = found else { return resolved.failureResponse }
            guard let body = request.json else { return PaysafeSimulatorErrors.notParseable }
            var problems: [(String, String)] = []
            let dpanRef = body["dpanRef"] as? String ?? ""
            let walletType = body["walletType"] as? String ?? ""
            let status = body["status"] as? String ?? ""
            if dpanRef.isEmpty { problems.append(("dpanRef", "must not be null")) }
            if !Self.walletTypes.contains(walletType) {
                problems.append(("walletType", "must be one of APPLE_PAY, GOOGLE_PAY, SAMSUNG_PAY"))
            }
            if status != "COMPLETED" { problems.append(("status", "only COMPLETED can be set")) }
            guard problems.isEmpty else { return PaysafeSimulatorErrors.fieldErrors(problems) }
            let index =
                card.tokenizations.lastIndex { $0.walletType == walletType && $0.dpanRef == dpanRef }
                ?? card.tokenizations.lastIndex { $0.walletType == walletType && $0.status == "INITIATED" }
            guard let index else {
                return PaysafeSimulatorErrors.notFound("No \(walletType) tokenization of card [\(card.cardId)]")
            }
            card.tokenizations[index].status = "COMPLETED"
            card.tokenizations[index].dpanRef = dpanRef
            if let walletId = body["walletId"] as? String { card.tokenizations[index].walletId = walletId }
            cards.put(card.cardId, card)
            return .json(200, Wire.tokenization(card.tokenizations[index]))
        }
    }

    // MARK: Secure details and SCA

    func secureDetails(_ request: PaysafeSimulatorRequest) -> SimulatedResponse {
        locked {
            let resolved = resolve(request, needsCard: true)
            guard case .success(let (customer, found)) = resolved, let card = found else {
                return resolved.failureResponse
            }
            guard ["ACTIVE", "LOCKED", "DIGITAL", "ISSUED", "SUSPENDED"].contains(card.status) else {
                return PaysafeSimulatorErrors.error(
                    400, "DW-CARD-INVALID-STATUS", "The details of a \(card.status) card cannot be shown.")
            }
            if let challenge = requireSCA(
                customer: customer, operation: "SECURE-DETAILS \(card.cardId)", request: request)
            {
                return challenge
            }
            // A single-use link to the simulator's own secure view (PaysafeSimulatorCardReveal.swift).
            let token = ids.next(prefix: "sd_", length: 32)
            let expires = clock.now().addingTimeInterval(PaysafeSimulator.secureLinkLifetime)
            secureLinks.put(
                token, PaysafeSimulatorSecureLink(cardId: card.cardId, customerId: customer.id, expires: expires))
            return .json(
                200,
                [
                    "url": Self.secureViewURL(authority: request.authority, token: token),
                    "expirationTime": SimulatorDateTime.format(expires),
                ])
        }
    }

    /// nil when the customer needs no SCA or the request carries the authorization of a verified, unused event
    /// for this very operation (which it then uses up); otherwise the 401 challenge of a new event.
    private func requireSCA(
        customer: PaysafeSimulatorCustomer, operation: String, request: PaysafeSimulatorRequest
    ) -> SimulatedResponse? {
        guard customer.requiresSCA else { return nil }
        let now = clock.now()
        if let header = request.header("sca-authorization"), let data = ByteEncoding.decodeBase64(header),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let details = object["scaDetails"] as? [String: Any], let eventId = details["eventId"] as? String,
            let walletOperationId = details["walletOperationId"] as? String, var event = scaEvents.get(eventId),
            event.walletOperationId == walletOperationId, event.customerId == customer.id, event.operation == operation,
            event.status == .verified, now < event.expires
        {
            event.status = .used
            scaEvents.put(eventId, event)
            return nil
        }
        let event = PaysafeSimulatorSCAEvent(
            eventId: ids.uuid(), walletOperationId: ids.uuid(), customerId: customer.id, operation: operation,
            status: .pending,
            created: now, expires: now.addingTimeInterval(900), attempts: 0
        )
        scaEvents.put(event.eventId, event)
        let masked = String(customer.mobile.prefix(6)) + "*****" + String(customer.mobile.suffix(2))
        let challenge: [String: Any] = [
            "scaDetails": [
                "eventId": event.eventId, "walletOperationId": event.walletOperationId,
                "authenticationMode": "OUTSOURCED",
                "availableVerifications": [["method": "PIN"], ["method": "OTP", "channel": "SMS", "target": masked]],
                "creationTime": SimulatorDateTime.format(event.created),
                "expirationTime": SimulatorDateTime.format(event.expires),
            ]
        ]
        let json = (try? JSONSerialization.data(withJSONObject: challenge, options: [.sortedKeys])) ?? Data()
        // Paysafe documents two signals: the user-facing API's 401 with the event in WWW-Authenticate, and the
        // business API's event object in the operation response. Which status the business API uses is not
        // documented, so the simulator sends both: the 401 with the header, and the event object as its body.
        return SimulatedResponse(status: 401, headers: [("Content-Type", "application/json")], body: json)
            .withHeader("WWW-Authenticate", "SCA realm=\"Prepaid Cards\" auth-param1=\"\(json.base64EncodedString())\"")
    }

    func scaAttempt(_ request: PaysafeSimulatorRequest) -> SimulatedResponse {
        locked {
            if let refusal = authorize(request) { return refusal }
            let eventId = request.parameter("eventId")
            guard var event = scaEvents.get(eventId) else {
                return PaysafeSimulatorErrors.notFound("SCA event [\(eventId)] does not exist")
            }
            guard let body = request.json else { return PaysafeSimulatorErrors.notParseable }
            var problems: [(String, String)] = []
            let walletOperationId = body["walletOperationId"] as? String ?? ""
            let verification = body["verification"] as? [String: Any]
            let method = verification?["method"] as? String ?? ""
            let channel = verification?["channel"] as? String
            // The documented body has no status: an attempt reported without one is a verified challenge.
            let status = body["status"] as? String ?? "VERIFIED"
            if walletOperationId.isEmpty {
                problems.append(("walletOperationId", "must not be null"))
            } else if walletOperationId != event.walletOperationId {
                problems.append(("walletOperationId", "does not belong to the SCA event"))
            }
            if !Self.scaMethods.contains(method) {
                problems.append(
                    ("verification.method", "must be one of \(Self.scaMethods.sorted().joined(separator: ", "))"))
            }
            if let channel, !Self.scaChannels.contains(channel) {
                problems.append(
                    ("verification.channel", "must be one of \(Self.scaChannels.sorted().joined(separator: ", "))"))
            }
            if !["VERIFIED", "REJECTED", "FAILED"].contains(status) {
                problems.append(("status", "must be VERIFIED, REJECTED or FAILED"))
            }
            guard problems.isEmpty else { return PaysafeSimulatorErrors.fieldErrors(problems) }
            guard clock.now() < event.expires else {
                return PaysafeSimulatorErrors.error(
                    400, "DW-SCA-EVENT-EXPIRED", "The SCA event has expired; start the operation again.")
            }
            guard event.status == .pending else {
                return PaysafeSimulatorErrors.error(
                    400, "DW-SCA-EVENT-CLOSED", "The SCA event is no longer open for attempts.")
            }
            guard event.attempts < Seed.scaAllowableAttempts else {
                event.status = .failed
                scaEvents.put(eventId, event)
                return PaysafeSimulatorErrors.error(
                    400, "DW-SCA-ATTEMPTS-EXCEEDED", "No attempts are left for this SCA event.")
            }
            event.attempts += 1
            switch status {
            case "VERIFIED": event.status = .verified
            case "REJECTED": event.status = .rejected
            default: event.status = event.attempts >= Seed.scaAllowableAttempts ? .failed : .pending
            }
            scaEvents.put(eventId, event)
            var verificationObject: [String: Any] = ["method": method]
            if let channel { verificationObject["channel"] = channel }
            return .json(
                201,
                [
                    "id": ids.next(prefix: "", length: 7), "eventId": event.eventId,
                    "walletOperationId": event.walletOperationId,
                    "authenticationMode": "OUTSOURCED", "verification": verificationObject, "status": status,
                    "creationTime": SimulatorDateTime.format(clock.now()),
                    "allowableAttempts": Seed.scaAllowableAttempts,
                    "currentAttempts": event.attempts,
                ])
        }
    }
}
