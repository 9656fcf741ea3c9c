import CardGatewaySimulation
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import _CryptoExtras

extension BridgeSimulator {
    // MARK: Card accounts

    func getCardAccount(customer: BridgeSimulatorCustomer, account: BridgeSimulatorCardAccount) -> SimulatedResponse {
        .json(200, BridgeSimulatorWire.cardAccount(account))
    }

    /// `{"count": n, "data": [CardAccount]}`: every account of the customer, in the order they were created.
    func listCardAccounts(customer: BridgeSimulatorCustomer) -> SimulatedResponse {
        let owned = accounts.all().filter { $0.customerID == customer.id }
        return .json(200, ["count": owned.count, "data": owned.map(BridgeSimulatorWire.cardAccount)])
    }

    static let cardAccountCurrencies: Set<String> = ["usdc", "usdb"]
    static let cardAccountChains: Set<String> = [
        "arbitrum", "avalanche_c_chain", "base", "ethereum", "optimism", "polygon", "solana", "stellar",
    ]

    /// `PostCardAccountsInput`: `currency` and `chain` required; one card account per customer ("Currently, only
    /// one account can be provisioned per customer"; a second → 400 `card_account_already_exists`, *choice*). The
    /// new account is `active`, named after the customer, answered with 201.
    func createCardAccount(customer: BridgeSimulatorCustomer, body: Data) -> SimulatedResponse {
        var problems = BridgeSimulatorErrors.Problems()
        guard let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            problems.add("currency,chain", "The request body must be a JSON object with currency and chain")
            return problems.response
        }
        let known: Set<String> = [
            "client_reference_id", "currency", "chain", "crypto_account", "card_design_shortname",
        ]
        for key in json.keys.sorted() where !known.contains(key) {
            problems.add(key, "\(key) is not a known parameter")
        }
        let currency = json["currency"] as? String ?? ""
        let chain = json["chain"] as? String ?? ""
        if !Self.cardAccountCurrencies.contains(currency) { problems.add("currency", "currency must be usdc or usdb") }
        if !Self.cardAccountChains.contains(chain) {
            problems.add("chain", "chain must be one of \(Self.cardAccountChains.sorted().joined(separator: ", "))")
        }
        if let design = json["card_design_shortname"], !(design is String) {
            problems.add("card_design_shortname", "card_design_shortname must be a string")
        }
        guard problems.isEmpty else { return problems.response }
        guard !accounts.all().contains(where: { $0.customerID == customer.id }) else {
            return BridgeSimulatorErrors.error(
                400, code: "card_account_already_exists",
                message: "Only one card account can be provisioned per customer", location: "path", key: "customerID"
            )
        }
        let id = ids.next(prefix: "ca", length: 30)
        let digits = (0..<7).map { _ in String(ids.nextInt(in: 0...9)) }.joined()
        let pan = Self.luhnCompleted("44325280" + digits)
        let account = BridgeSimulatorCardAccount(
            id: id, customerID: customer.id, clientReferenceID: json["client_reference_id"] as? String ?? "",
            status: "active",
            firstName: customer.firstName, lastName: customer.lastName, pan: pan, expiry: "12/30",
            availableBalance: "0.00", currency: currency
        )
        accounts.put(id, account)
        return .json(201, BridgeSimulatorWire.cardAccount(account))
    }

    /// `prefix` (15 digits) with its Luhn check digit.
    static func luhnCompleted(_ prefix: String) -> String {
        let digits = prefix.compactMap(\.wholeNumberValue)
        var sum = 0
        for (index, digit) in digits.reversed().enumerated() {
            if index % 2 == 0 {
                let doubled = digit * 2
                sum += doubled > 9 ? doubled - 9 : doubled
            } else {
                sum += digit
            }
        }
        return prefix + String((10 - sum % 10) % 10)
    }

    // MARK: Provisioning

    func provision(
        customer: BridgeSimulatorCustomer, account: BridgeSimulatorCardAccount, body: Data
    ) -> SimulatedResponse {
        guard let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            return BridgeSimulatorErrors.error(
                400, code: "invalid_parameters", message: "The request body must be a JSON object", location: "body",
                key: "wallet_provider")
        }
        var problems = BridgeSimulatorErrors.Problems()
        let walletProvider = json["wallet_provider"] as? String
        switch walletProvider {
        case "apple_pay":
            guard let apple = json["apple_pay"] as? [String: Any] else {
                problems.add("apple_pay", "apple_pay is required for the apple_pay wallet provider")
                return problems.response
            }
            let encoding = apple["encoding"] as? String ?? "hex"
            // A string enum in the spec: anything present but not "hex" or "base64" (a number included) is refused.
            guard apple["encoding"] == nil || (apple["encoding"] is String && ["hex", "base64"].contains(encoding))
            else {
                problems.add("apple_pay.encoding", "encoding must be hex or base64")
                return problems.response
            }
            func field(_ name: String) -> Data? {
                guard let text = apple[name] as? String, !text.isEmpty else {
                    problems.add("apple_pay.\(name)", "\(name) is required")
                    return nil
                }
                guard let bytes = encoding == "hex" ? ByteEncoding.decodeHex(text) : ByteEncoding.decodeBase64(text),
                    !bytes.isEmpty
                else {
                    problems.add("apple_pay.\(name)", "\(name) is not valid \(encoding)")
                    return nil
                }
                return bytes
            }
            let leaf = field("leaf_cert")
            let subordinate = field("subordinate_cert")
            let nonce = field("nonce")
            let signature = field("nonce_signature")
            if let leaf, !BridgeSimulatorCertificates.isCertificate(leaf) {
                problems.add("apple_pay.leaf_cert", "leaf_cert must be exactly one DER-encoded certificate")
            }
            if let subordinate, !BridgeSimulatorCertificates.isCertificate(subordinate) {
                problems.add(
                    "apple_pay.subordinate_cert", "subordinate_cert must be exactly one DER-encoded certificate")
            }
            guard problems.isEmpty, let nonce, let signature else { return problems.response }
            if let refusal = refuseUnlessActive(account) { return refusal }
            do {
                let payload = try BridgeSimulatorPayloads.apple(
                    account: account, nonce: nonce, nonceSignature: signature)
                return .json(
                    200,
                    [
                        "wallet_provider": "apple_pay",
                        "apple_pay": [
                            "activation_data": payload.activationData.base64EncodedString(),
                            "encrypted_pass_data": payload.encryptedPassData.base64EncodedString(),
                            "ephemeral_public_key": payload.ephemeralPublicKey.base64EncodedString(),
                        ],
                    ])
            } catch {
                return faultResponse(status: 500, message: "An expected error occurred, you may try again later")
            }
        case "google_pay":
            guard let google = json["google_pay"] as? [String: Any] else {
                problems.add("google_pay", "google_pay is required for the google_pay wallet provider")
                return problems.response
            }
            let walletAccount = google["client_wallet_account_id"] as? String ?? ""
            let device = google["client_device_id"] as? String ?? ""
            if walletAccount.isEmpty {
                problems.add("google_pay.client_wallet_account_id", "client_wallet_account_id is required")
            }
            if device.isEmpty { problems.add("google_pay.client_device_id", "client_device_id is required") }
            guard problems.isEmpty else { return problems.response }
            if let refusal = refuseUnlessActive(account) { return refusal }
            do {
                let opaque = try BridgeSimulatorPayloads.google(
                    account: account, walletAccountID: walletAccount, deviceID: device)
                return .json(200, ["wallet_provider": "google_pay", "google_pay": ["opaque_payment_card": opaque]])
            } catch {
                return faultResponse(status: 500, message: "An expected error occurred, you may try again later")
            }
        default:
            problems.add("wallet_provider", "wallet_provider must be apple_pay or google_pay")
            return problems.response
        }
    }

    func refuseUnlessActive(_ account: BridgeSimulatorCardAccount) -> SimulatedResponse? {
        guard account.status != "active" else { return nil }
        return BridgeSimulatorErrors.error(
            400, code: "card_account_not_active",
            message: "The card account is \(account.status); only active card accounts can be provisioned",
            location: "path", key: "cardAccountID"
        )
    }

    // MARK: Freezes

    static let freezeReasons: Set<String> = [
        "lost_or_stolen", "suspicious_activity", "planned_inactivity", "suspected_fraud", "other",
    ]
    static let freezeInitiators: Set<String> = ["developer", "customer"]

    func freeze(customer: BridgeSimulatorCustomer, account: BridgeSimulatorCardAccount, body: Data) -> SimulatedResponse
    {
        var problems = BridgeSimulatorErrors.Problems()
        guard let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            problems.add("initiator,reason", "The request body must be a JSON object with initiator and reason")
            return problems.response
        }
        let initiator = json["initiator"] as? String ?? ""
        let reason = json["reason"] as? String ?? ""
        if !Self.freezeInitiators.contains(initiator) {
            problems.add("initiator", "initiator must be developer or customer")
        }
        if !Self.freezeReasons.contains(reason) {
            problems.add("reason", "reason must be one of \(Self.freezeReasons.sorted().joined(separator: ", "))")
        }
        let now = simulationClock.now()
        var startingAt = now
        var endingAt: Date?
        if let text = json["starting_at"] as? String {
            if let date = SimulatorDateTime.parse(text) {
                startingAt = date
            } else {
                problems.add("starting_at", "starting_at must be an ISO8601 date-time")
            }
        }
        if let text = json["ending_at"] as? String {
            if let date = SimulatorDateTime.parse(text) {
                endingAt = date
            } else {
                problems.add("ending_at", "ending_at must be an ISO8601 date-time")
            }
        }
        guard problems.isEmpty else { return problems.response }
        guard account.status == "active" || account.status == "frozen" else {
            return BridgeSimulatorErrors.error(
                400, code: "card_account_not_active",
                message: "The card account is \(account.status) and cannot be frozen", location: "path",
                key: "cardAccountID")
        }
        let freeze = BridgeSimulatorCardAccount.Freeze(
            initiator: initiator, reason: reason, reasonDetail: json["reason_detail"] as? String,
            startingAt: startingAt,
            endingAt: endingAt, createdAt: now
        )
        var replaced = false
        accounts.update(account.id) { stored in
            replaced = stored.freezes.contains { $0.initiator == initiator }
            stored.freezes.removeAll { $0.initiator == initiator }
            stored.freezes.append(freeze)
            stored.status = "frozen"
        }
        var object = BridgeSimulatorWire.freeze(freeze, cardAccountID: account.id)
        object["status"] = replaced ? "freeze_replaced" : "freeze_created"
        return .json(200, object)
    }

    func unfreeze(
        customer: BridgeSimulatorCustomer, account: BridgeSimulatorCardAccount, body: Data
    ) -> SimulatedResponse {
        var problems = BridgeSimulatorErrors.Problems()
        let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        let initiator = json?["initiator"] as? String ?? ""
        guard Self.freezeInitiators.contains(initiator) else {
            problems.add("initiator", "initiator must be developer or customer")
            return problems.response
        }
        guard let removed = account.freezes.first(where: { $0.initiator == initiator }) else {
            return BridgeSimulatorErrors.error(
                400, code: "freeze_not_found", message: "The card account has no freeze placed by \(initiator)",
                location: "body", key: "initiator")
        }
        accounts.update(account.id) { stored in
            stored.freezes.removeAll { $0.initiator == initiator }
            if stored.freezes.isEmpty && stored.status == "frozen" { stored.status = "active" }
        }
        var object = BridgeSimulatorWire.freeze(removed, cardAccountID: account.id)
        object["status"] = "freeze_removed"
        return .json(200, object)
    }
}
