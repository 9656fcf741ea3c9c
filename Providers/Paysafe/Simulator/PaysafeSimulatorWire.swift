import CardGatewaySimulation
import Crypto
import Foundation

/// Paysafe's JSON as the simulator writes it, and small wire helpers. Error bodies: PaysafeSimulatorErrors.swift.
enum PaysafeSimulatorWire {
    /// Non-empty hexadecimal in either case, an even number of digits.
    static func isHex(_ text: String) -> Bool {
        !text.isEmpty && ByteEncoding.decodeHex(text) != nil
    }

    static func isDigits(_ text: String, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// `^\+\d+\s?\d{1,16}$`.
    static func isMobile(_ text: String) -> Bool {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard text.hasPrefix("+") else { return false }
        let digits: (Substring) -> Bool = { !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        switch parts.count {
        case 1: return text.utf8.count >= 3 && digits(text.dropFirst())
        case 2: return digits(parts[0].dropFirst()) && digits(parts[1]) && parts[1].count <= 16
        default: return false
        }
    }

    /// Bytes derived from `seed` and `label`, `count` long: HMAC-SHA256 blocks in counter mode.
    static func derive(_ seed: Data, label: String, count: Int) -> Data {
        var output = Data()
        var block = 0
        let key = SymmetricKey(data: seed)
        while output.count < count {
            block += 1
            let mac = HMAC<SHA256>.authenticationCode(for: Data("\(label)|\(block)".utf8), using: key)
            output.append(contentsOf: Data(mac))
        }
        return output.prefix(count)
    }

    /// Paysafe's `Signature` (developer.paysafe.com/en/api-docs/embedded-wallets/request-signing/):
    /// `Base64(HMAC-SHA256(key, message))`, the key being the Base64-DECODED secret (whitespace ignored, as the page
    /// prints the secret wrapped). Nil when the secret is not Base64.
    static func signature(secret: String, message: Data) -> String? {
        let compact = String(String.UnicodeScalarView(secret.unicodeScalars.filter { !$0.properties.isWhitespace }))
        guard let key = ByteEncoding.decodeBase64(compact), !key.isEmpty else { return nil }
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
            .base64EncodedString()
    }

    // MARK: Objects

    static func card(_ card: PaysafeSimulatorCard, includeTokenizations: Bool, includeActions: Bool) -> [String: Any] {
        var object: [String: Any] = [
            "cardId": card.cardId, "status": card.status,
            "expiry": ["month": card.expiryMonth, "year": card.expiryYear],
            "bin": card.bin, "lastFour": card.lastFour, "customerId": card.customerId, "cardType": card.cardType,
            "programName": card.programName, "currency": card.currency,
            "createdDate": SimulatorDateTime.format(card.createdDate),
            "accountId": card.accountId, "scheme": card.scheme, "isPinSet": card.pin != nil,
        ]
        if let mobile = card.mobile { object["mobile"] = mobile }
        if let reason = card.statusReason { object["statusReason"] = reason }
        if let date = card.activationDate { object["activationDate"] = SimulatorDateTime.format(date) }
        if let externalId = card.externalId { object["externalId"] = externalId }
        if let address = card.deliveryAddress { object["deliveryAddress"] = address }
        if includeTokenizations {
            object["tokenizations"] = ["mobileWallets": card.tokenizations.map(tokenization)]
        }
        if includeActions {
            object["availableActions"] = actions(for: card).map { ["action": $0] }
        }
        return object
    }

    static func tokenization(_ item: PaysafeSimulatorTokenization) -> [String: Any] {
        var object: [String: Any] = ["walletType": item.walletType, "status": item.status]
        if let dpanRef = item.dpanRef { object["dpanRef"] = dpanRef }
        if let walletId = item.walletId { object["walletId"] = walletId }
        return object
    }

    /// What the customer may do with the card now.
    static func actions(for card: PaysafeSimulatorCard) -> [String] {
        switch card.status {
        case "ACTIVE": return ["LOCK", "CANCEL", "SHOW_DETAILS", "SHOW_PIN", "SET_PIN"]
        case "LOCKED": return ["UNLOCK", "CANCEL"]
        case "DIGITAL": return ["ACTIVATE", "LOCK", "CANCEL", "SHOW_DETAILS"]
        case "ISSUED": return ["ACTIVATE"]
        default: return []
        }
    }

    static func program(_ program: PaysafeSimulatorProgram) -> [String: Any] {
        var object: [String: Any] = [
            "name": program.name, "cardType": program.cardType, "scheme": program.scheme,
            "currencies": program.currencies,
            "allowableCards": program.allowableCards,
        ]
        if program.cardType == "PHYSICAL" { object["isDigital"] = program.isDigital }
        return object
    }
}
