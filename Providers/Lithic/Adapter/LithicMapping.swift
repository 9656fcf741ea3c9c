@_spi(AdapterSupport) import CardGateway
import Foundation

/// Lithic's resources in the normalised model.
enum LithicMapping {
    /// Card `state` → ``CardStatus``: `OPEN` active, `PAUSED` locked (declines, "can be resumed at a later time"),
    /// `CLOSED` cancelled (final), `PENDING_ACTIVATION` and `PENDING_FULFILLMENT` inactive.
    static func cardStatus(_ state: String) -> CardStatus {
        switch state {
        case LithicAPI.CardState.open: return .active
        case LithicAPI.CardState.paused: return .locked
        case LithicAPI.CardState.closed: return .cancelled
        case LithicAPI.CardState.pendingActivation, LithicAPI.CardState.pendingFulfillment: return .inactive
        default: return .unknown
        }
    }

    /// The Lithic card states of a normalised status (the listing's filter).
    static func cardStates(for status: CardStatus) -> Set<String> {
        switch status {
        case .active: return [LithicAPI.CardState.open]
        case .locked: return [LithicAPI.CardState.paused]
        case .cancelled: return [LithicAPI.CardState.closed]
        case .inactive: return [LithicAPI.CardState.pendingActivation, LithicAPI.CardState.pendingFulfillment]
        default: return []
        }
    }

    /// Card `type` → ``CardType``: `PHYSICAL` physical; `VIRTUAL`, `SINGLE_USE`, `MERCHANT_LOCKED` and the deprecated
    /// `UNLOCKED` and `DIGITAL_WALLET` virtual.
    static func cardType(_ type: String?) -> CardType {
        switch type {
        case "PHYSICAL"?: return .physical
        case "VIRTUAL"?, "SINGLE_USE"?, "MERCHANT_LOCKED"?, "UNLOCKED"?, "DIGITAL_WALLET"?: return .virtual
        default: return .unknown
        }
    }

    /// `exp_month` (`MM`) and `exp_year` (`YYYY`) → expiry.
    static func expiry(month: String?, year: String?) -> CardExpiry? {
        guard let month, let year, month.count == 2, year.count == 4, let m = Int(month), let y = Int(year),
            (1...12).contains(m)
        else { return nil }
        return CardExpiry(month: m, year: y)
    }

    /// Lithic's timestamps: `2021-06-28T22:53:15Z` (cards) and `2023-08-28T15:57:14.578051` (tokenizations, UTC
    /// without a zone designator, as the document's examples show).
    static func date(_ text: String?) -> Date? {
        guard let text, !text.isEmpty else { return nil }
        if let date = InternetDateTime.parse(text) { return date }
        // No zone designator (tokenizations), or more fractional digits than the reader takes: the whole seconds as
        // UTC, the fraction added.
        let body = text.hasSuffix("Z") || text.hasSuffix("z") ? String(text.dropLast()) : text
        let parts = body.split(separator: ".", maxSplits: 1)
        guard let whole = parts.first, let seconds = InternetDateTime.parse(whole + "Z") else { return nil }
        guard parts.count == 2 else { return seconds }
        let digits = parts[1]
        guard !digits.isEmpty, digits.allSatisfy(\.isNumber), let fraction = Double("0." + digits) else { return nil }
        return seconds.addingTimeInterval(fraction)
    }

    /// The card, or `invalidResponse` when Lithic's answer lacks its token or state.
    static func card(_ wire: LithicWireCard, requested: CardRef?) throws -> Card {
        guard let token = wire.token, !token.isEmpty else {
            throw CardGatewayError(
                .invalidResponse, "Lithic's card answer has no token", providerKind: .lithic,
                mayHaveReachedProvider: true)
        }
        guard let state = wire.state, !state.isEmpty else {
            throw CardGatewayError(
                .invalidResponse, "Lithic's card answer has no state", providerKind: .lithic,
                mayHaveReachedProvider: true)
        }
        let lastFour = wire.lastFour.flatMap { $0.count == 4 && $0.allSatisfy(\.isNumber) ? $0 : nil }
        return Card(
            ref: CardRef(id: token, customer: wire.accountToken ?? requested?.customer), status: cardStatus(state),
            providerStatus: state,
            statusReason: wire.substatus.map { SafeText.scrub($0, maxLength: 32) },
            type: cardType(wire.type), scheme: .unknown,
            lastFour: lastFour, expiry: expiry(month: wire.expMonth, year: wire.expYear),
            program: wire.cardProgramToken, created: date(wire.created)
        )
    }

    /// Tokenization `status` → ``WalletTokenStatus``: `ACTIVE` active, `PAUSED` suspended, `DEACTIVATED` deleted
    /// (final: "Deactivating the token is a permanent operation"), `PENDING_2FA`, `PENDING_ACTIVATION` and
    /// `INACTIVE` requested (not usable yet), `UNKNOWN` unknown.
    static func tokenStatus(_ status: String) -> WalletTokenStatus {
        switch status {
        case LithicAPI.TokenStatus.active: return .active
        case LithicAPI.TokenStatus.paused: return .suspended
        case LithicAPI.TokenStatus.deactivated: return .deleted
        case LithicAPI.TokenStatus.pending2FA, LithicAPI.TokenStatus.pendingActivation,
            LithicAPI.TokenStatus.inactive:
            return .requested
        default: return .unknown
        }
    }

    /// `token_requestor_name` → wallet: `APPLE_PAY`, `GOOGLE_PAY` and `ANDROID_PAY`, `SAMSUNG_PAY` (the document's
    /// "Digital wallet type" enumeration); other wallets and merchant names are nil.
    static func wallet(_ requestor: String?) -> Wallet? {
        switch requestor {
        case "APPLE_PAY"?: return .applePay
        case "GOOGLE_PAY"?, "ANDROID_PAY"?: return .googlePay
        case "SAMSUNG_PAY"?: return .samsungPay
        default: return nil
        }
    }

    /// The token, or nil when it has no token or status.
    static func walletToken(_ wire: LithicWireTokenization) -> WalletToken? {
        guard let token = wire.token, !token.isEmpty, let status = wire.status, !status.isEmpty else { return nil }
        return WalletToken(
            id: token, wallet: wallet(wire.tokenRequestorName), status: tokenStatus(status), providerStatus: status,
            created: date(wire.createdAt)
        )
    }
}
