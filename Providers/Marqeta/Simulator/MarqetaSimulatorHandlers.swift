import CardGatewaySimulation
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

extension MarqetaSimulator {
    // MARK: Cards

    func getCard(_ context: SimulatorContext) throws -> SimulatedResponse {
        let token = context.parameters.get("token") ?? ""
        guard let card = state.cards.get(token) else {
            throw failure(404, MarqetaSimulatorErrors.notFound, "Card not found")
        }
        return .json(200, card.json())
    }

    /// `GET /cards/user/{token}?count=&start_index=&sort_by=`: the user's cards, newest first by default
    /// (`sort_by` defaults to `-lastModifiedTime` in Marqeta's document), `count` 1–100 (default 5).
    func listCards(_ request: Request, _ context: SimulatorContext) throws -> SimulatedResponse {
        let user = context.parameters.get("token") ?? ""
        guard Seed.users.contains(user) else { throw failure(404, MarqetaSimulatorErrors.notFound, "User not found") }
        let cards = state.cards.all().filter { $0.userToken == user }
        let items = cards.map {
            Listed(json: $0.json(), created: $0.created, lastModified: $0.lastModified, sequence: $0.sequence)
        }
        return try page(request, items: try sorted(items, request, default: "-lastModifiedTime"))
    }

    /// `POST /cards` `{user_token, card_product_token, token?}`: 201 with the card; a virtual product's card is
    /// `ACTIVE` upon issue, a physical one `UNACTIVATED`. With a `token`, Marqeta's idempotency applies (see
    /// ``idempotent(_:_:_:)``); without one the simulator mints the token.
    func createCard(_ body: Data) throws -> SimulatedResponse {
        let object = try jsonObject(body)
        let user = try string(object, "user_token", max: 36)
        let product = try string(object, "card_product_token", max: 36)
        return try idempotent("POST /cards", object) { given in
            guard Seed.users.contains(user) else {
                throw failure(400, MarqetaSimulatorErrors.unknownReference, "User not found: \(user)")
            }
            guard let type = Seed.cardProducts[product] else {
                throw failure(400, MarqetaSimulatorErrors.unknownReference, "Card product not found: \(product)")
            }
            let sequence = state.cards.count + 1
            let token = given ?? "card_sim_new_" + String(format: "%04d", sequence)
            let lastFour = String(format: "%04d", state.ids.nextInt(in: 0...9999))
            let now = simulationClock.now()
            let card = MarqetaSimulatorCard(
                token: token, userToken: user, cardProductToken: product, lastFour: lastFour, expiration: "1230",
                state: type == "VIRTUAL_PAN" ? "ACTIVE" : "UNACTIVATED",
                stateReason: "New card", instrumentType: type, created: now, lastModified: now, sequence: sequence
            )
            guard state.cards.insertIfAbsent(token, card) else {
                throw failure(
                    409, MarqetaSimulatorErrors.duplicateToken, "Token already associated with a different payload")
            }
            return .json(201, card.json())
        }
    }

    /// `POST /cardtransitions`: `card_token`, `state` (`ACTIVE`, `SUSPENDED`, `TERMINATED`), `channel` and
    /// `reason_code` checked; `TERMINATED` is final and a card cannot go to the state it is in. Idempotent by `token`.
    func cardTransition(_ body: Data) throws -> SimulatedResponse {
        let object = try jsonObject(body)
        let token = try string(object, "card_token", max: 36)
        let target = try string(object, "state", max: 20)
        let channel = try string(object, "channel", max: 20)
        guard ["ACTIVE", "SUSPENDED", "TERMINATED"].contains(target) else {
            throw invalid("state must be ACTIVE, SUSPENDED or TERMINATED")
        }
        guard ["API", "IVR", "FRAUD", "ADMIN", "SYSTEM"].contains(channel) else {
            throw invalid("channel must be API, IVR, FRAUD, ADMIN or SYSTEM")
        }
        let reasonCode = object["reason_code"] as? String
        if let reasonCode, !Self.reasonCodes.contains(reasonCode) {
            throw invalid("reason_code is not a Marqeta reason code")
        }
        if let reason = object["reason"] as? String, reason.count > 255 {
            throw invalid("reason must be at most 255 chars")
        }
        return try idempotent("POST /cardtransitions", object) { given in
            guard let card = state.cards.get(token) else {
                throw failure(404, MarqetaSimulatorErrors.notFound, "Card not found")
            }
            guard card.state != "TERMINATED" else {
                throw failure(
                    400, MarqetaSimulatorErrors.illegalCardTransition,
                    "Card is TERMINATED; a terminated card cannot transition")
            }
            guard card.state != target else {
                throw failure(400, MarqetaSimulatorErrors.illegalCardTransition, "Card is already \(target)")
            }
            let now = simulationClock.now()
            let updated =
                state.cards.update(token) {
                    $0.state = target; $0.stateReason = (object["reason"] as? String) ?? ""; $0.lastModified = now
                } ?? card
            let type: String
            switch (card.state, target) {
            case ("SUSPENDED", "ACTIVE"): type = "state.reinstated"
            case (_, "ACTIVE"): type = "state.activated"
            case (_, "SUSPENDED"): type = "state.suspended"
            default: type = "state.terminated"
            }
            // `card_transition_response`: every required member (`pan` masked, `barcode`, `pin_is_set` included).
            var answer: [String: Any] = [
                "token": given ?? state.ids.uuid(), "card_token": token, "user_token": card.userToken, "state": target,
                "type": type, "channel": channel,
                "fulfillment_status": updated.fulfillmentStatus, "card_product_token": card.cardProductToken,
                "last_four": card.lastFour, "pan": updated.maskedPAN,
                "barcode": updated.barcode, "pin_is_set": false, "expedite": false, "expiration": card.expiration,
                "expiration_time": Self.expirationTime(card.expiration),
                "created_time": SimulatorDateTime.format(now),
            ]
            if let reasonCode { answer["reason_code"] = reasonCode }
            if let reason = object["reason"] as? String { answer["reason"] = reason }
            return .json(201, answer)
        }
    }

    // MARK: Provisioning

    /// `POST /digitalwalletprovisionrequests/applepay`: certificates (one or more), nonce and nonce signature, all
    /// standard Base64, for an `ACTIVE` card; answers the three payload parts in Base64, derived from the inputs.
    func provisionApple(_ body: Data) throws -> SimulatedResponse {
        let object = try jsonObject(body)
        let card = try provisionableCard(object)
        guard let certificates = object["certificates"] as? [String], !certificates.isEmpty else {
            throw invalid("certificates must be an array of one or more Base64 certificates")
        }
        var decoded: [Data] = []
        for certificate in certificates {
            guard let bytes = ByteEncoding.decodeBase64(certificate), !bytes.isEmpty else {
                throw invalid("certificates must be Base64-encoded")
            }
            decoded.append(bytes)
        }
        guard let nonce = (object["nonce"] as? String).flatMap(ByteEncoding.decodeBase64), !nonce.isEmpty else {
            throw invalid("nonce must be Base64-encoded")
        }
        guard let signature = (object["nonce_signature"] as? String).flatMap(ByteEncoding.decodeBase64),
            !signature.isEmpty
        else {
            throw invalid("nonce_signature must be Base64-encoded")
        }
        state.lastApplePayDigests.withLock {
            $0 = (decoded + [nonce, signature]).map { ByteEncoding.hex(SHA256.hash(data: $0)) }
        }
        let seed = Data(card.token.utf8) + nonce + signature
        let now = SimulatorDateTime.format(simulationClock.now())
        return .json(
            201,
            [
                "created_time": now, "last_modified_time": now, "card_token": card.token,
                "encrypted_pass_data": Self.derived("encrypted_pass_data", seed, 96).base64EncodedString(),
                "activation_data": Self.derived("activation_data", seed, 48).base64EncodedString(),
                "ephemeral_public_key": Self.derived("ephemeral_public_key", seed, 65).base64EncodedString(),
            ])
    }

    /// `POST …/androidpay` (`wallet_account_id` 1–50, `device_id` 1–24 chars): `push_tokenize_request_data` of
    /// `android_push_tokenize_request_data`, with an opaque payment card made from the inputs.
    func provisionGoogle(_ body: Data) throws -> SimulatedResponse {
        let object = try jsonObject(body)
        let account = try string(object, "wallet_account_id", max: 50)
        let device = try string(object, "device_id", max: 24)
        let card = try provisionableCard(object)
        var opaque = Data("androidpay|\(card.token)|".utf8)
        opaque.append(contentsOf: SHA256.hash(data: Data("\(account)|\(device)".utf8)))
        opaque.append(contentsOf: [0xc0, 0xff, 0xee, 0x00, 0x01])
        let now = SimulatorDateTime.format(simulationClock.now())
        return .json(
            201,
            [
                "created_time": now, "last_modified_time": now, "card_token": card.token,
                "push_tokenize_request_data": [
                    "display_name": "Marqeta Sim Card", "last_digits": card.lastFour, "network": "VISA",
                    "token_service_provider": "TOKEN_PROVIDER_VISA",
                    "opaque_payment_card": opaque.base64EncodedString(),
                    "user_address": [
                        "name": "Sim Cardholder", "address1": "180 Grand Ave", "address2": "Suite 500",
                        "city": "Oakland", "state": "CA", "postal_code": "94612", "country": "US",
                        "phone": "5105550100",
                    ],
                ] as [String: Any],
            ])
    }

    /// `POST …/samsungpay` (`wallet_user_id` 1–50, `device_id` 1–24 chars): the swagger's
    /// `digital_wallet_samsung_pay_provision_response`, whose `push_tokenize_request_data` is a
    /// `samsung_push_tokenize_request_data` (`display_name`, `last_digits`, `network`, `token_service_provider`,
    /// `extra_provision_payload`, `card_type`); no `opaque_payment_card`. `extra_provision_payload` stands for the
    /// encrypted card data Samsung's SDK takes: Base64 of bytes derived from the card and the inputs.
    func provisionSamsung(_ body: Data) throws -> SimulatedResponse {
        let object = try jsonObject(body)
        let user = try string(object, "wallet_user_id", max: 50)
        let device = try string(object, "device_id", max: 24)
        let card = try provisionableCard(object)
        let payload =
            Data("samsungpay|".utf8)
            + Self.derived("extra_provision_payload", Data("\(card.token)|\(user)|\(device)".utf8), 64)
        let now = SimulatorDateTime.format(simulationClock.now())
        return .json(
            201,
            [
                "created_time": now, "last_modified_time": now, "card_token": card.token,
                "push_tokenize_request_data": [
                    "display_name": "Marqeta Sim Card", "last_digits": card.lastFour, "network": "VISA",
                    "token_service_provider": "VI",
                    "extra_provision_payload": payload.base64EncodedString(), "card_type": "DEBIT",
                ],
            ])
    }

    /// The card of a provisioning request: `card_token` (1–36), `device_type` (every value of the swagger's
    /// enumeration) and `provisioning_app_version` (1–50) checked; the card must exist and be `ACTIVE`.
    func provisionableCard(_ object: [String: Any]) throws -> MarqetaSimulatorCard {
        let token = try string(object, "card_token", max: 36)
        let device = try string(object, "device_type", max: 20)
        guard Self.deviceTypes.contains(device) else {
            throw invalid("device_type must be one of \(Self.deviceTypes.joined(separator: ", "))")
        }
        _ = try string(object, "provisioning_app_version", max: 50)
        guard let card = state.cards.get(token) else {
            throw failure(404, MarqetaSimulatorErrors.notFound, "Card not found")
        }
        guard card.state == "ACTIVE" else {
            throw failure(
                400, MarqetaSimulatorErrors.cardNotActive, "Card is \(card.state); only ACTIVE cards can be provisioned"
            )
        }
        return card
    }

    /// `device_type` of the three provision requests: the enumeration of `digital_wallet_*_provision_request` in
    /// Marqeta's Core API document.
    static let deviceTypes = [
        "MOBILE_PHONE", "WATCH", "TABLET", "WEARABLE_DEVICE", "HOUSEHOLD_DEVICE", "AUTOMOBILE_DEVICE",
    ]

    /// `size` bytes derived from `label` and `seed` (SHA-256 in counter mode).
    static func derived(_ label: String, _ seed: Data, _ size: Int) -> Data {
        var bytes = Data()
        var counter = 0
        while bytes.count < size {
            bytes.append(contentsOf: SHA256.hash(data: Data("\(label)|\(counter)|".utf8) + seed))
            counter += 1
        }
        return bytes.prefix(size)
    }

    // MARK: Digital wallet tokens

    /// `GET /digitalwallettokens/card/{card_token}?count=&start_index=&sort_by=`: newest first by default (`sort_by`
    /// defaults to `-createdTime` in Marqeta's document).
    func listTokens(_ request: Request, _ context: SimulatorContext) throws -> SimulatedResponse {
        let card = context.parameters.get("token") ?? ""
        guard state.cards.get(card) != nil else {
            throw failure(404, MarqetaSimulatorErrors.notFound, "Card not found")
        }
        let tokens = state.tokens.all().filter { $0.cardToken == card }
        let items = tokens.map {
            Listed(json: $0.json(), created: $0.created, lastModified: $0.lastModified, sequence: $0.sequence)
        }
        return try page(request, items: try sorted(items, request, default: "-createdTime"))
    }

    /// `POST /digitalwallettokentransitions`: `digital_wallet_token.token` (and `card_token`, if given, must be the
    /// token's card), `state` `ACTIVE`, `SUSPENDED` or `TERMINATED`. A transition the token's state does not allow
    /// answers 422 (`TERMINATED` and `REQUEST_DECLINED` are final: 422003; the state it is already in: 422004).
    /// Idempotent by `token`. The answer's `digital_wallet_token` is `{token}` only, as in Marqeta's example answer
    /// (../shared/specs/marqeta-examples/post-digitalwallettokentransitions.response-201.json).
    func tokenTransition(_ body: Data) throws -> SimulatedResponse {
        let object = try jsonObject(body)
        guard let reference = object["digital_wallet_token"] as? [String: Any] else {
            throw invalid("digital_wallet_token is required")
        }
        let token = try string(reference, "token", max: 36)
        let target = try string(object, "state", max: 20)
        guard ["ACTIVE", "SUSPENDED", "TERMINATED"].contains(target) else {
            throw invalid("state must be ACTIVE, SUSPENDED or TERMINATED")
        }
        if let channel = object["channel"] as? String,
            ![
                "TOKEN_SERVICE_PROVIDER", "TOKEN_SERVICE_PROVIDER_API", "DIGITAL_WALLET", "API", "IVR", "FRAUD",
                "ADMIN", "SYSTEM",
            ].contains(channel)
        {
            throw invalid("channel is not a Marqeta channel")
        }
        if let reasonCode = object["reason_code"] as? String, !Self.reasonCodes.contains(reasonCode) {
            throw invalid("reason_code is not a Marqeta reason code")
        }
        if let reason = object["reason"] as? String, reason.count > 255 {
            throw invalid("reason must be at most 255 chars")
        }
        return try idempotent("POST /digitalwallettokentransitions", object) { given in
            guard let stored = state.tokens.get(token) else {
                throw failure(404, MarqetaSimulatorErrors.notFound, "Digital wallet token not found")
            }
            if let card = reference["card_token"] as? String, card != stored.cardToken {
                throw failure(404, MarqetaSimulatorErrors.notFound, "Digital wallet token not found for this card")
            }
            guard stored.state != "TERMINATED", stored.state != "REQUEST_DECLINED" else {
                throw failure(
                    422, MarqetaSimulatorErrors.illegalTokenTransition,
                    "Digital wallet token is \(stored.state); it cannot transition to \(target)")
            }
            guard stored.state != target else {
                throw failure(
                    422, MarqetaSimulatorErrors.tokenAlreadyInState, "Digital wallet token is already \(target)")
            }
            let now = simulationClock.now()
            state.tokens.update(token) {
                $0.state = target; $0.lastModified = now
            }
            let type: String
            switch target {
            case "ACTIVE": type = stored.state == "SUSPENDED" ? "state.reinstated" : "state.activated"
            case "SUSPENDED": type = "state.suspended"
            default: type = "state.terminated"
            }
            var answer: [String: Any] = [
                "token": given ?? state.ids.uuid(), "state": target, "type": type,
                "channel": object["channel"] as? String ?? "API", "created_time": SimulatorDateTime.format(now),
                "fulfillment_status": "PROVISIONED",
                // Marqeta's example answer: `digital_wallet_token` is `{token}` only.
                "digital_wallet_token": ["token": stored.token],
            ]
            if let reasonCode = object["reason_code"] as? String { answer["reason_code"] = reasonCode }
            if let reason = object["reason"] as? String { answer["reason"] = reason }
            return .json(201, answer)
        }
    }

    // MARK: Idempotency

    /// Marqeta's idempotency (core-api/idempotency): "All Core API `POST` calls are idempotent capable when the primary
    /// token is set in the request object"; reissuing "the same call, with identical content and primary token" answers
    /// `201`. The first successful answer of each `(route, token)` is kept with the request's canonical JSON: the same
    /// token and payload answer it again (the journal says `replayed`, nothing is done twice); the same token with
    /// another payload answers 409 "Token already associated with a different payload" (the swagger's 409 text on
    /// `POST /cards`, `/cardtransitions`, `/digitalwallettokentransitions`). A refused first request leaves the token
    /// free. `work` gets the body's `token`, or nil (the simulator then mints one).
    func idempotent(
        _ route: String, _ object: [String: Any], _ work: (String?) throws -> SimulatedResponse
    ) throws -> SimulatedResponse {
        guard let value = object["token"] else { return try work(nil) }
        guard let token = value as? String, (1...36).contains(token.count) else {
            throw invalid("token must be 1-36 chars")
        }
        let fingerprint = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        switch state.idempotency.begin(key: token, scope: route, fingerprint: fingerprint) {
        case .proceed:
            do {
                let response = try work(token)
                if (200..<300).contains(response.status) {
                    state.idempotency.record(key: token, scope: route, fingerprint: fingerprint, response: response)
                } else {
                    state.idempotency.abandon(key: token, scope: route)
                }
                return response
            } catch {
                state.idempotency.abandon(key: token, scope: route)
                throw error
            }
        case .replay(let first):
            return first
        case .conflict, .expired:
            throw failure(
                409, MarqetaSimulatorErrors.duplicateToken, "Token already associated with a different payload")
        case .inProgress:
            throw failure(
                409, MarqetaSimulatorErrors.duplicateToken, "A request with this token is still being processed")
        }
    }

    // MARK: Helpers

    /// A listed resource with what `sort_by` can order it by.
    struct Listed {
        var json: [String: Any]
        var created: Date
        var lastModified: Date
        var sequence: Int
    }

    /// Marqeta's `sort_by`: `lastModifiedTime`, `createdTime` or a field of the resource (the swagger's parameter; the
    /// Core API pages: "Use any field in the resource model, or one of the system fields lastModifiedTime or
    /// createdTime. Prefix the field name with a hyphen (-) to sort in descending order"). Equal values keep creation
    /// order (reversed when descending). A field the resources do not have as a string is refused (400).
    func sorted(_ items: [Listed], _ request: Request, default defaultOrder: String) throws -> [[String: Any]] {
        let query = SimulatorHTTP.queryItems(request.uri.query)
        let order = query.first { $0.name == "sort_by" }?.value ?? defaultOrder
        let descending = order.hasPrefix("-")
        let field = descending ? String(order.dropFirst()) : order
        let ascending: (Listed, Listed) -> Bool
        switch field {
        case "createdTime": ascending = { ($0.created, $0.sequence) < ($1.created, $1.sequence) }
        case "lastModifiedTime": ascending = { ($0.lastModified, $0.sequence) < ($1.lastModified, $1.sequence) }
        default:
            guard !field.isEmpty, items.allSatisfy({ $0.json[field] is String }) else {
                throw invalid(
                    "sort_by must be lastModifiedTime, createdTime or a text field of the resource, optionally prefixed with -"
                )
            }
            ascending = {
                (($0.json[field] as? String) ?? "", $0.sequence) < (($1.json[field] as? String) ?? "", $1.sequence)
            }
        }
        return items.sorted { descending ? ascending($1, $0) : ascending($0, $1) }.map(\.json)
    }

    /// Marqeta's paging: `count` (1–100, default 5) and `start_index` (default 0) → `count`, `start_index`,
    /// `end_index`, `is_more`, `data`.
    func page(_ request: Request, items: [[String: Any]]) throws -> SimulatedResponse {
        let query = SimulatorHTTP.queryItems(request.uri.query)
        func parameter(_ name: String) -> String? { query.first { $0.name == name }?.value }
        var count = 5
        var start = 0
        if let text = parameter("count") {
            guard let number = Int(text), (1...100).contains(number) else {
                throw invalid("count must be from 1 to 100")
            }
            count = number
        }
        if let text = parameter("start_index") {
            guard let number = Int(text), number >= 0 else { throw invalid("start_index must not be negative") }
            start = number
        }
        let slice = Array(items.dropFirst(start).prefix(count))
        return .json(
            200,
            [
                "count": slice.count, "start_index": start,
                "end_index": slice.isEmpty ? start : start + slice.count - 1,
                "is_more": start + slice.count < items.count, "data": slice,
            ])
    }

    func jsonObject(_ body: Data) throws -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            throw invalid("The request body must be a JSON object")
        }
        return object
    }

    func string(_ object: [String: Any], _ field: String, max: Int) throws -> String {
        guard let value = object[field] as? String, (1...max).contains(value.count) else {
            throw invalid("\(field) is required (1-\(max) chars)")
        }
        return value
    }
}
