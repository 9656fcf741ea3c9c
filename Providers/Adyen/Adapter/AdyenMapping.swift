@_spi(AdapterSupport) import CardGateway
import Foundation

/// Turns Adyen's wire types into the normalised model. Pure functions, tested field by field.
enum AdyenMapping {
    /// A payment instrument as a card. Throws `invalidRequest` when the instrument is not a card (a
    /// `bankAccount` instrument has no `card` object).
    static func card(
        _ instrument: AdyenWirePaymentInstrument, ref: CardRef, walletTokens: [WalletToken] = []
    ) throws -> Card {
        guard let card = instrument.card else {
            let kind = instrument.type.map { " (type \(SafeText.scrub($0, maxLength: 40)))" } ?? ""
            throw CardGatewayError(
                .invalidRequest, "payment instrument \(SafeText.scrub(ref.id, maxLength: 64)) is not a card\(kind)",
                fieldErrors: [.init(field: "card.id", message: "not a card")]
            )
        }
        return Card(
            ref: CardRef(id: instrument.id, customer: ref.customer),
            status: cardStatus(instrument.status),
            providerStatus: instrument.status ?? "",
            statusReason: instrument.statusReason,
            type: cardType(formFactor: card.formFactor),
            scheme: scheme(brand: card.brand),
            lastFour: card.lastFour,
            expiry: expiry(card.expiration),
            bin: card.bin,
            cardholderName: card.cardholderName,
            walletTokens: walletTokens
        )
    }

    /// `active`, `inactive`, `suspended`, `closed` (PaymentInstrument `status`).
    static func cardStatus(_ status: String?) -> CardStatus {
        switch status {
        case "active": return .active
        case "inactive": return .inactive
        case "suspended": return .suspended
        case "closed": return .cancelled
        default: return .unknown
        }
    }

    /// The `status` a listing filters on for a normalised status; nil for statuses Adyen has no word for.
    static func instrumentStatus(for status: CardStatus) -> String? {
        switch status {
        case .active: return "active"
        case .inactive: return "inactive"
        case .suspended: return "suspended"
        case .cancelled: return "closed"
        default: return nil
        }
    }

    /// The `status` an intent sets: lock → `suspended` (Adyen has no separate cardholder lock), unlock →
    /// `active`, cancel → `closed` (final).
    static func instrumentStatus(for intent: CardStatusIntent) -> String {
        switch intent {
        case .lock: return "suspended"
        case .unlock: return "active"
        default: return "closed"
        }
    }

    /// The `statusReason` sent for a normalised reason: Adyen's own word where it has one; `cardholderRequest` is
    /// `other` (its `statusComment` says so); nil sends none.
    static func statusReason(_ reason: CardStatusReason?) -> String? {
        guard let reason else { return nil }
        switch reason {
        case .lost: return "lost"
        case .stolen: return "stolen"
        case .damaged: return "damaged"
        case .suspectedFraud: return "suspectedFraud"
        default: return "other"
        }
    }

    /// The network token `status` an intent sets: suspend → `suspended`, resume → `active`, delete → `closed`.
    static func networkTokenStatus(for intent: WalletTokenIntent) -> AdyenNetworkTokenStatus {
        switch intent {
        case .suspend: return .suspended
        case .resume: return .active
        default: return .closed
        }
    }

    /// `physical`, `virtual`, `unknown` (Card `formFactor`).
    static func cardType(formFactor: String?) -> CardType {
        switch formFactor {
        case "physical": return .physical
        case "virtual": return .virtual
        default: return .unknown
        }
    }

    /// `visa`, `mc` (Card `brand`).
    static func scheme(brand: String?) -> CardScheme {
        switch brand?.lowercased() {
        case "visa": return .visa
        case "mc", "mastercard": return .mastercard
        default: return .unknown
        }
    }

    /// A brand variant (`visadebit`, `mc_prepaid_mrw`, `mcmaestro`) to its network. *Unverified*: inferred from
    /// the variants Adyen's docs show.
    static func scheme(brandVariant: String?) -> CardScheme? {
        guard let variant = brandVariant?.lowercased(), !variant.isEmpty else { return nil }
        if variant.hasPrefix("visa") { return .visa }
        if variant.hasPrefix("mc") || variant.hasPrefix("mastercard") || variant.hasPrefix("maestro") {
            return .mastercard
        }
        return nil
    }

    /// `{"month": "03", "year": "2028"}` (strings); nil unless both are numbers and the month is 1–12.
    static func expiry(_ expiry: AdyenWireExpiry?) -> CardExpiry? {
        guard let monthText = expiry?.month?.trimmingCharacters(in: .whitespaces),
            let yearText = expiry?.year?.trimmingCharacters(in: .whitespaces),
            let month = Int(monthText), let year = Int(yearText), (1...12).contains(month), year >= 0
        else { return nil }
        return CardExpiry(month: month, year: year)
    }

    /// A network token as a wallet token; nil when Adyen sent it without an id (the spec allows that), since a
    /// token that cannot be named cannot be acted on.
    static func walletToken(_ token: AdyenWireNetworkToken) -> WalletToken? {
        guard let id = token.id, !id.isEmpty else { return nil }
        return WalletToken(
            id: id,
            wallet: wallet(tokenType: token.type, walletType: nil, tokenRequestorName: token.tokenRequestor?.name),
            status: tokenStatus(token.status),
            providerStatus: token.status ?? "",
            lastFour: token.tokenLastFour,
            network: scheme(brandVariant: token.brandVariant),
            created: date(token.creationDate)
        )
    }

    /// `active`, `inactive` (requested, not yet usable), `suspended`, `closed` (final).
    static func tokenStatus(_ status: String?) -> WalletTokenStatus {
        switch status {
        case "active": return .active
        case "inactive": return .requested
        case "suspended": return .suspended
        case "closed": return .deleted
        default: return .unknown
        }
    }

    /// The wallet of a token. Adyen's docs table gives `type` as the wallet name (`applePay`, `googlePay`), the
    /// OpenAPI as `wallet` / `cof`; webhooks add `wallet.type` (deprecated in v2 for `tokenRequestor.name`).
    /// Order: an explicit wallet name, then the token requestor's name (*unverified* heuristic: "Apple Pay",
    /// "Google Pay"/"Android Pay", "Samsung Pay"); `cof` tokens and unknown requestors have no wallet.
    static func wallet(tokenType: String?, walletType: String?, tokenRequestorName: String?) -> Wallet? {
        for candidate in [walletType, tokenType] {
            if let candidate, let wallet = Wallet(parsing: candidate) { return wallet }
        }
        if tokenType?.lowercased() == "cof" { return nil }
        guard let name = tokenRequestorName?.lowercased() else { return nil }
        if name.contains("apple") { return .applePay }
        if name.contains("google") || name.contains("android") { return .googlePay }
        if name.contains("samsung") { return .samsungPay }
        return nil
    }

    /// ISO 8601 with offset (`2021-01-01T01:00:00+01:00`), with or without fractional seconds; nil otherwise.
    static func date(_ text: String?) -> Date? {
        guard let text, !text.isEmpty else { return nil }
        return InternetDateTime.parse(text)
    }

    /// Why a card is not eligible for a wallet, or nil when it is. Only `active` instruments are.
    static func ineligibility(_ card: Card) -> IneligibilityReason? {
        guard card.status != .active else { return nil }
        let word =
            card.providerStatus.isEmpty ? "of unknown status" : SafeText.scrub(card.providerStatus, maxLength: 40)
        var message = "the card is \(word), only active cards can be added to a wallet"
        if let reason = card.statusReason, !reason.isEmpty {
            message += " (statusReason: \(SafeText.scrub(reason, maxLength: 60)))"
        }
        return IneligibilityReason(code: "cardNotActive", message: message)
    }
}
