@_spi(AdapterSupport) import CardGateway
import Foundation

/// Paysafe words ↔ the normalised model.
enum PaysafeMapping {
    // MARK: Enumerations

    /// Paysafe card status → normalised status. Anything else is `.unknown` (the word is kept verbatim in
    /// `Card.providerStatus`).
    static func status(_ word: String) -> CardStatus {
        switch word.uppercased() {
        case "ACTIVE": return .active
        case "ISSUED": return .inactive
        case "DIGITAL": return .digital
        case "PENDING", "APPLIED": return .pending
        case "LOCKED": return .locked
        case "SUSPENDED": return .suspended
        case "CANCELLED": return .cancelled
        case "EXPIRED": return .expired
        case "REJECTED": return .rejected
        default: return .unknown
        }
    }

    /// The Paysafe statuses a normalised status filter asks for (list `status=`), nil for `.unknown`.
    static func providerStatuses(for status: CardStatus) -> [String]? {
        switch status {
        case .active: return ["ACTIVE"]
        case .inactive: return ["ISSUED"]
        case .digital: return ["DIGITAL"]
        case .pending: return ["PENDING", "APPLIED"]
        case .locked: return ["LOCKED"]
        case .suspended: return ["SUSPENDED"]
        case .cancelled: return ["CANCELLED"]
        case .expired: return ["EXPIRED"]
        case .rejected: return ["REJECTED"]
        default: return nil
        }
    }

    static func cardType(_ word: String?) -> CardType {
        switch word?.uppercased() {
        case "PHYSICAL": return .physical
        case "VIRTUAL": return .virtual
        default: return .unknown
        }
    }

    static func providerCardType(_ type: CardType) -> String? {
        switch type {
        case .physical: return "PHYSICAL"
        case .virtual: return "VIRTUAL"
        default: return nil
        }
    }

    /// `VISA` → visa, `MC` → mastercard. [C]
    static func scheme(_ word: String?) -> CardScheme {
        switch word?.uppercased() {
        case "VISA": return .visa
        case "MC", "MASTERCARD": return .mastercard
        default: return .unknown
        }
    }

    /// The scheme from the BIN when Paysafe leaves `scheme` out (the documented list example has no `scheme`):
    /// 4 → Visa; 51–55 and 2221–2720 → Mastercard; otherwise unknown.
    static func scheme(fromBIN bin: String?) -> CardScheme {
        guard let bin, bin.count >= 4, bin.allSatisfy({ $0.isASCII && $0.isNumber }) else { return .unknown }
        if bin.hasPrefix("4") { return .visa }
        if let two = Int(bin.prefix(2)), (51...55).contains(two) { return .mastercard }
        if let four = Int(bin.prefix(4)), (2221...2720).contains(four) { return .mastercard }
        return .unknown
    }

    /// `CARD_NETWORK_VISA` / `CARD_NETWORK_MASTERCARD`. [C]
    static func network(_ word: String) -> CardScheme {
        switch word.uppercased() {
        case "CARD_NETWORK_VISA": return .visa
        case "CARD_NETWORK_MASTERCARD": return .mastercard
        default: return .unknown
        }
    }

    /// The actions of the entries that name one, in order, into an array made once at its final size (`compactMap`
    /// would grow it one entry at a time).
    static func actions(_ entries: [PaysafeWireAvailableAction]?) -> [CardAction] {
        guard let entries else { return [] }
        var actions: [CardAction] = []
        actions.reserveCapacity(entries.count)
        for entry in entries {
            if let word = entry.value { actions.append(action(word)) }
        }
        return actions
    }

    /// Available actions: the SDK's words, unknown ones kept verbatim. [C]
    static func action(_ word: String) -> CardAction {
        switch word.uppercased() {
        case "ACTIVATE": return .activate
        case "CANCEL": return .cancel
        case "UNLOCK": return .unlock
        case "LOCK": return .lock
        case "SHOW_DETAILS": return .showDetails
        case "SHOW_PIN": return .showPin
        case "SET_PIN": return .setPin
        default: return CardAction(rawValue: word)
        }
    }

    /// `MobileWalletType`. [C]
    static func wallet(_ word: String?) -> Wallet? {
        switch word?.uppercased() {
        case "APPLE_PAY": return .applePay
        case "GOOGLE_PAY": return .googlePay
        case "SAMSUNG_PAY": return .samsungPay
        default: return nil
        }
    }

    static func walletType(_ wallet: Wallet) -> String {
        switch wallet {
        case .applePay: return "APPLE_PAY"
        case .googlePay: return "GOOGLE_PAY"
        case .samsungPay: return "SAMSUNG_PAY"
        // A wallet Paysafe does not name: its MobileWalletType in Paysafe's own spelling, which Paysafe refuses.
        default: return wallet.rawValue.uppercased()
        }
    }

    /// `MobileWalletStatus`: INITIATED → requested, COMPLETED → active. [C]
    static func tokenStatus(_ word: String?) -> WalletTokenStatus {
        switch word?.uppercased() {
        case "INITIATED": return .requested
        case "COMPLETED": return .active
        default: return .unknown
        }
    }

    // MARK: Objects

    static func card(_ wire: PaysafeWireCard, customer: String?) -> Card {
        var scheme = scheme(wire.scheme)
        if scheme == .unknown && wire.scheme == nil { scheme = self.scheme(fromBIN: wire.bin) }
        let tokens = (wire.tokenizations?.items ?? []).enumerated().map { index, item in
            walletToken(item, index: index, network: scheme, lastFour: wire.lastFour)
        }
        return Card(
            ref: CardRef(id: wire.cardId, customer: wire.customerId?.value ?? customer),
            status: status(wire.status),
            providerStatus: wire.status,
            statusReason: wire.statusReason,
            type: cardType(wire.cardType),
            scheme: scheme,
            lastFour: wire.lastFour,
            expiry: wire.expiry.map { CardExpiry(month: $0.month.value, year: $0.year.value) },
            bin: wire.bin,
            program: wire.programName,
            currency: wire.currency,
            created: wire.createdDate.flatMap(date),
            walletTokens: tokens,
            availableActions: actions(wire.availableActions)
        )
    }

    static func walletToken(
        _ wire: PaysafeWireTokenization, index: Int, network: CardScheme?, lastFour: String?
    ) -> WalletToken {
        let id = wire.dpanRef ?? wire.walletId ?? "\(wire.walletType ?? "tokenization")-\(index)"
        return WalletToken(
            id: id, wallet: wallet(wire.walletType), status: tokenStatus(wire.status),
            providerStatus: wire.status ?? "",
            deviceAccountReference: wire.dpanRef, walletID: wire.walletId, lastFour: lastFour, network: network
        )
    }

    static func program(_ wire: PaysafeWireProgram) -> CardProgram {
        CardProgram(
            name: wire.name, type: cardType(wire.cardType), scheme: scheme(wire.scheme),
            currencies: wire.currencies ?? [],
            allowableCards: wire.allowableCards?.value ?? 1, isDigital: wire.isDigital ?? false
        )
    }

    /// RFC 3339 with or without fractional seconds; nil when it is neither.
    static func date(_ text: String) -> Date? {
        InternetDateTime.parse(text)
    }

    /// Decodes a Base64 payload field (standard first, then URL-safe or unpadded); nil when it is neither.
    static func base64(_ text: String) -> Data? {
        ByteEncoding.decodeBase64(text) ?? ByteEncoding.decodeBase64Lenient(text)
    }
}
