@_spi(AdapterSupport) import CardGateway
import Foundation

/// Marqeta's resources in the normalised model.
enum MarqetaMapping {
    /// Card `state` → ``CardStatus``: `UNACTIVATED` inactive, `ACTIVE` active, `SUSPENDED` suspended,
    /// `TERMINATED` cancelled (final). `LIMITED` (a program-specific restricted state) has no normalised
    /// equivalent and is `unknown`, with the word kept in `providerStatus`.
    static func cardStatus(_ state: String) -> CardStatus {
        switch state {
        case MarqetaAPI.CardState.unactivated: return .inactive
        case MarqetaAPI.CardState.active: return .active
        case MarqetaAPI.CardState.suspended: return .suspended
        case MarqetaAPI.CardState.terminated: return .cancelled
        default: return .unknown
        }
    }

    /// The Marqeta card state for a normalised status (the listing's status filter).
    static func cardStates(for status: CardStatus) -> Set<String> {
        switch status {
        case .inactive: return [MarqetaAPI.CardState.unactivated]
        case .active: return [MarqetaAPI.CardState.active]
        case .suspended: return [MarqetaAPI.CardState.suspended]
        case .cancelled: return [MarqetaAPI.CardState.terminated]
        default: return []
        }
    }

    /// `instrument_type` → ``CardType``: `VIRTUAL_PAN` virtual, `PHYSICAL_*` physical.
    static func cardType(_ instrumentType: String?) -> CardType {
        guard let instrumentType else { return .unknown }
        if instrumentType == "VIRTUAL_PAN" { return .virtual }
        if instrumentType.hasPrefix("PHYSICAL") { return .physical }
        return .unknown
    }

    /// `MMYY` → expiry.
    static func expiry(_ text: String?) -> CardExpiry? {
        guard let text, text.count == 4, text.allSatisfy(\.isASCII), let month = Int(text.prefix(2)),
            let year = Int(text.suffix(2)), (1...12).contains(month)
        else {
            return nil
        }
        return CardExpiry(month: month, year: year)
    }

    /// Marqeta's timestamps (`2024-01-31T23:59:59Z`, with or without fractional seconds).
    static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        return InternetDateTime.parse(text)
    }

    /// A network's name (`VISA`, `MASTERCARD`, `AMEX`, `DISCOVER`) → ``CardScheme``.
    static func scheme(_ network: String?) -> CardScheme {
        switch network?.uppercased() {
        case "VISA"?: return .visa
        case "MASTERCARD"?, "MC"?: return .mastercard
        case "AMEX"?, "AMERICAN_EXPRESS"?: return .amex
        case "DISCOVER"?: return .discover
        default: return .unknown
        }
    }

    /// The card, or `invalidResponse` when Marqeta's answer lacks its token or state.
    static func card(_ wire: MarqetaWireCard, requested: CardRef?) throws -> Card {
        guard let token = wire.token, !token.isEmpty else {
            throw CardGatewayError(
                .invalidResponse, "Marqeta's card answer has no token", providerKind: .marqeta,
                mayHaveReachedProvider: true)
        }
        guard let state = wire.state, !state.isEmpty else {
            throw CardGatewayError(
                .invalidResponse, "Marqeta's card answer has no state", providerKind: .marqeta,
                mayHaveReachedProvider: true)
        }
        let lastFour = wire.lastFour.flatMap { $0.count == 4 && $0.allSatisfy(\.isNumber) ? $0 : nil }
        return Card(
            ref: CardRef(id: token, customer: wire.userToken ?? requested?.customer), status: cardStatus(state),
            providerStatus: state,
            statusReason: wire.stateReason.map { SafeText.scrub($0, maxLength: 255) },
            type: cardType(wire.instrumentType), scheme: .unknown,
            lastFour: lastFour, expiry: expiry(wire.expiration), program: wire.cardProductToken,
            created: date(wire.createdTime)
        )
    }

    /// Token `state` → ``WalletTokenStatus``: `REQUESTED` requested, `ACTIVE` active, `SUSPENDED` suspended,
    /// `TERMINATED` and `REQUEST_DECLINED` (both final) deleted.
    static func tokenStatus(_ state: String) -> WalletTokenStatus {
        switch state {
        case MarqetaAPI.TokenState.requested: return .requested
        case MarqetaAPI.TokenState.active: return .active
        case MarqetaAPI.TokenState.suspended: return .suspended
        case MarqetaAPI.TokenState.terminated, MarqetaAPI.TokenState.requestDeclined: return .deleted
        default: return .unknown
        }
    }

    /// `token_service_provider.token_requestor_name` → wallet. *Unverified*: the exact requestor names beyond
    /// `APPLE_PAY`, `ANDROID_PAY` and `SAMSUNG_PAY`.
    static func wallet(_ requestor: String?) -> Wallet? {
        switch requestor?.uppercased() {
        case "APPLE_PAY"?: return .applePay
        case "ANDROID_PAY"?, "GOOGLE_PAY"?: return .googlePay
        case "SAMSUNG_PAY"?: return .samsungPay
        default: return nil
        }
    }

    /// The token, or nil when it has no token or state.
    static func walletToken(_ wire: MarqetaWireWalletToken) -> WalletToken? {
        guard let token = wire.token, !token.isEmpty, let state = wire.state, !state.isEmpty else { return nil }
        return WalletToken(
            id: token, wallet: wallet(wire.tokenServiceProvider?.tokenRequestorName), status: tokenStatus(state),
            providerStatus: state,
            created: date(wire.createdTime)
        )
    }
}
