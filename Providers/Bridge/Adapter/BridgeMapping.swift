import CardGateway
import Foundation

/// Turns Bridge's wire types into the gateway's model, and the gateway's requests into Bridge's.
enum BridgeMapping {
    // MARK: Card accounts

    /// `CardAccount` → ``Card``. `id` and `status` are required; everything else is optional.
    static func card(
        _ account: BridgeCardAccount, requested: CardRef, httpStatus: Int, requestID: String?
    ) throws -> Card {
        guard let id = account.id, !id.isEmpty else {
            throw CardGatewayError.invalidResponse(
                "Bridge's card account has no id", httpStatus: httpStatus, requestID: requestID)
        }
        guard let providerStatus = account.status, !providerStatus.isEmpty else {
            throw CardGatewayError.invalidResponse(
                "Bridge's card account has no status", httpStatus: httpStatus, requestID: requestID)
        }
        let freezes = account.freezes ?? []
        let status = cardStatus(providerStatus, freezes: freezes)
        let details = account.cardDetails
        return Card(
            ref: CardRef(id: id, customer: account.customerID ?? requested.customer),
            status: status,
            providerStatus: providerStatus,
            statusReason: statusReason(providerStatus, freezes: freezes, statusReason: account.statusReason),
            type: .unknown,
            scheme: scheme(bin: details?.bin),
            lastFour: details?.last4,
            expiry: expiry(details?.expiry),
            bin: details?.bin,
            cardholderName: cardholderName(account.cardholderName),
            availableActions: actions(status, freezes: freezes)
        )
    }

    /// Bridge's status → ours. A frozen account is `locked` when every freeze was placed by the customer (the
    /// cardholder can lift it), otherwise `suspended` (a developer or Bridge freeze, or no freeze listed). Bridge's
    /// spec allows `initiator` `bridge`: Bridge's own freeze, which neither the cardholder nor we can lift.
    static func cardStatus(_ providerStatus: String, freezes: [BridgeCardFreeze]) -> CardStatus {
        switch providerStatus {
        case "active": return .active
        case "pending": return .pending
        case "inactive": return .inactive
        case "frozen":
            let byCustomer =
                !freezes.isEmpty && freezes.allSatisfy { $0.initiator == BridgeFreezeInitiator.customer.rawValue }
            return byCustomer ? .locked : .suspended
        default: return .unknown
        }
    }

    /// For a frozen account, the freeze reasons (`lost_or_stolen, other`); otherwise Bridge's `status_reason`.
    static func statusReason(_ providerStatus: String, freezes: [BridgeCardFreeze], statusReason: String?) -> String? {
        if providerStatus == "frozen" {
            let reasons = freezes.compactMap(\.reason).filter { !$0.isEmpty }
            if !reasons.isEmpty { return reasons.joined(separator: ", ") }
        }
        return statusReason.flatMap { $0.isEmpty ? nil : SafeText.scrub($0) }
    }

    /// The initiators whose freezes the API may lift, made once (not on every card read).
    static let liftableInitiators = Set(BridgeFreezeInitiator.allCases.map(\.rawValue))

    /// What can be done next. A freeze whose initiator is neither `developer` nor `customer` (Bridge's own, or an
    /// initiator added later) cannot be lifted through the API, so a card held by one offers no unlock.
    static func actions(_ status: CardStatus, freezes: [BridgeCardFreeze] = []) -> [CardAction] {
        switch status {
        case .active: return [.lock]
        case .locked, .suspended:
            return freezes.contains { !liftableInitiators.contains($0.initiator ?? "") } ? [] : [.unlock]
        default: return []
        }
    }

    /// The `CardFreezeReason` for a normalised reason. Bridge requires one from its closed list, and every
    /// normalised reason has a place: lost and stolen → lost_or_stolen, suspectedFraud → suspected_fraud,
    /// cardholderRequest → planned_inactivity (a temporary lock the cardholder asked for), damaged, other and none →
    /// other.
    static func freezeReason(_ reason: CardStatusReason?) -> BridgeFreezeReason {
        guard let reason else { return .other }
        switch reason {
        case .lost, .stolen: return .lostOrStolen
        case .suspectedFraud: return .suspectedFraud
        case .cardholderRequest: return .plannedInactivity
        default: return .other
        }
    }

    /// The network from the BIN: 4 → Visa; 51–55 and 2221–2720 → Mastercard; 34/37 → Amex; 6011/65 → Discover.
    static func scheme(bin: String?) -> CardScheme {
        guard let bin, bin.count >= 4, bin.allSatisfy({ $0.isASCII && $0.isNumber }), let prefix4 = Int(bin.prefix(4))
        else {
            return .unknown
        }
        let prefix2 = prefix4 / 100
        if bin.hasPrefix("4") { return .visa }
        if (51...55).contains(prefix2) || (2221...2720).contains(prefix4) { return .mastercard }
        if prefix2 == 34 || prefix2 == 37 { return .amex }
        if prefix4 == 6011 || prefix2 == 65 { return .discover }
        return .unknown
    }

    /// `"MM/YY"` or `"MM/YYYY"` → ``CardExpiry``; nil when the text is not in that form or the month is not 1–12.
    static func expiry(_ text: String?) -> CardExpiry? {
        guard let parts = text?.split(separator: "/", omittingEmptySubsequences: false), parts.count == 2,
            parts[0].count == 2, parts[1].count == 2 || parts[1].count == 4,
            let month = Int(parts[0]), let year = Int(parts[1]), (1...12).contains(month)
        else { return nil }
        return CardExpiry(month: month, year: year)
    }

    /// The names Bridge gave, each trimmed of `CharacterSet.whitespaces`, the non-empty ones joined by a space; nil when
    /// none is left.
    static func cardholderName(_ name: BridgeCardAccount.CardholderName?) -> String? {
        guard let name else { return nil }
        let parts = [name.firstName, name.middleName, name.lastName].compactMap {
            $0?.trimmingCharacters(in: .whitespaces)
        }
        .filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    // MARK: Provisioning

    static func walletProvider(_ wallet: Wallet) -> String? {
        switch wallet {
        case .applePay: return "apple_pay"
        case .googlePay: return "google_pay"
        default: return nil
        }
    }

    /// Encodes raw bytes as Bridge's `encoding` says: lower-case hex or standard Base64.
    static func encode(_ bytes: Data, as encoding: BridgeCertificateEncoding) -> String {
        switch encoding {
        case .hex: return ByteEncoding.hex(bytes)
        case .base64: return ByteEncoding.base64(bytes)
        }
    }

    /// `CardPushProvisioningResponse` → the payload for the wallet.
    static func provisioningResponse(
        _ response: BridgeProvisioningResponse, wallet: Wallet, httpStatus: Int, requestID: String?
    ) throws -> ProvisioningResponse {
        func invalid(_ message: String) -> CardGatewayError {
            CardGatewayError.invalidResponse(message, httpStatus: httpStatus, requestID: requestID)
        }
        let expected = walletProvider(wallet) ?? wallet.rawValue
        if let provider = response.walletProvider, provider != expected {
            throw invalid(
                "Bridge answered for wallet_provider \(SafeText.scrub(provider, maxLength: 32)), not \(expected)")
        }
        switch wallet {
        case .applePay:
            guard let apple = response.applePay else {
                throw invalid("Bridge's provisioning answer has no apple_pay object")
            }
            func bytes(_ value: String?, _ name: String) throws -> SensitiveData {
                guard let value, !value.isEmpty else {
                    throw invalid("Bridge's provisioning answer has no apple_pay.\(name)")
                }
                guard let data = ByteEncoding.decodeBase64(value), !data.isEmpty else {
                    throw invalid("Bridge's apple_pay.\(name) is not Base64")
                }
                return SensitiveData(data)
            }
            return .applePay(
                ApplePayPayload(
                    activationData: try bytes(apple.activationData, "activation_data"),
                    encryptedPassData: try bytes(apple.encryptedPassData, "encrypted_pass_data"),
                    ephemeralPublicKey: try bytes(apple.ephemeralPublicKey, "ephemeral_public_key")
                ))
        case .googlePay:
            guard let google = response.googlePay else {
                throw invalid("Bridge's provisioning answer has no google_pay object")
            }
            guard let opaque = google.opaquePaymentCard, !opaque.isEmpty else {
                throw invalid("Bridge's provisioning answer has no google_pay.opaque_payment_card")
            }
            // Base64 or Base64url: checked, then handed to the app exactly as Bridge sent it (the app passes
            // these bytes to `PushTokenizeRequest.setOpaquePaymentCard`).
            guard let decoded = ByteEncoding.decodeBase64Lenient(opaque), !decoded.isEmpty else {
                throw invalid("Bridge's google_pay.opaque_payment_card is neither Base64 nor Base64url")
            }
            return .googlePay(GooglePayPayload(opaquePaymentCard: SensitiveData(Data(opaque.utf8))))
        default:
            throw CardGatewayError.unsupported("Bridge does not provision cards to \(wallet)")
        }
    }

    // MARK: Freezes

    static func freezeResult(_ freeze: BridgeCardFreeze, card: CardRef) -> BridgeFreezeResult {
        BridgeFreezeResult(
            card: card, status: freeze.status, initiator: freeze.initiator, reason: freeze.reason,
            reasonDetail: freeze.reasonDetail.map { SafeText.scrub($0) },
            startingAt: BridgeDates.parse(freeze.startingAt),
            endingAt: BridgeDates.parse(freeze.endingAt), createdAt: BridgeDates.parse(freeze.createdAt)
        )
    }
}
