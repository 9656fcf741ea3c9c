@_spi(AdapterSupport) import CardGateway
import Foundation

/// Checks requests against Paysafe's documented rules before anything is sent. Each check adds every problem
/// it finds, naming the field; the caller throws them all at once.
enum PaysafeValidation {
    // MARK: Character classes (ASCII only, as the documented patterns mean)

    static func isDigits(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    static func isDigits(_ text: String, count: Int) -> Bool {
        text.utf8.count == count && isDigits(text)
    }

    static func isUpperLetters(_ text: String, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }

    /// `^\+\d+\s?\d{1,16}$`: a plus, digits, at most one whitespace, then 1–16 digits (with no whitespace the
    /// pattern needs at least two digits in all).
    static func isMobile(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "+") else { return false }
        let body = bytes.dropFirst()
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D]
        let isDigit: (UInt8) -> Bool = { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        if let space = body.firstIndex(where: { whitespace.contains($0) }) {
            let before = body[body.startIndex..<space]
            let after = body[body.index(after: space)...]
            return !before.isEmpty && before.allSatisfy(isDigit) && (1...16).contains(after.count)
                && after.allSatisfy(isDigit)
        }
        return body.count >= 2 && body.allSatisfy(isDigit)
    }

    /// Letters (any script), spaces, hyphen and period.
    static func isCityName(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                scalar == " " || scalar == "-" || scalar == "." || CharacterSet.letters.contains(scalar)
            }
    }

    /// `^[a-zA-Z0-9- ]*$` (US postal codes).
    static func isUSPostalCode(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: " ")
        }
    }

    static func isBlank(_ text: String?) -> Bool {
        // Every scalar white space (what trimming `.whitespacesAndNewlines` would remove), checked without bridging
        // to NSString.
        text?.unicodeScalars.allSatisfy(\.properties.isWhitespace) ?? true
    }

    // MARK: Requests

    /// Paysafe documents no length for its ids (UUIDs and numbers in its examples); 128 leaves room.
    static let idMaxLength = 128

    static func customer(_ customer: String?, field: String, into problems: inout ValidationProblems) {
        guard !isBlank(customer) else {
            problems.add(field, "is required: Paysafe addresses cards under their customer")
            return
        }
        ProviderIDs.check(
            customer, field: field, what: "a Paysafe customer id", maxLength: idMaxLength, into: &problems)
    }

    static func cardID(_ id: String, field: String, into problems: inout ValidationProblems) {
        ProviderIDs.check(
            isBlank(id) ? nil : id, field: field, what: "a Paysafe card id", maxLength: idMaxLength, into: &problems)
    }

    static func query(_ query: CardQuery, into problems: inout ValidationProblems) {
        customer(query.customer, field: "customer", into: &problems)
        if query.types.contains(.unknown) { problems.add("types", "can only filter on physical or virtual cards") }
        if query.statuses.contains(.unknown) { problems.add("statuses", "cannot filter on the unknown status") }
        if let limit = query.limit { problems.require(limit > 0, "limit", "must be positive") }
        problems.require(query.offset >= 0, "offset", "must not be negative")
        problems.require(query.cursor == nil, "cursor", "Paysafe pages by offset; give offset instead")
    }

    /// `CardRequest` rules. [C]
    static func create(_ request: CreateCardRequest, region: PaysafeRegion, into problems: inout ValidationProblems) {
        userAgent(request.userAgent, into: &problems)
        customer(request.customer, field: "customer", into: &problems)
        problems.require(!isBlank(request.program), "program", "is required (the programName from programs())")
        if isBlank(request.currency) {
            problems.add("currency", "is required")
        } else {
            problems.require(
                isUpperLetters(request.currency, count: 3), "currency",
                "must be an ISO 4217 alpha-3 code in capitals, such as EUR")
        }
        if let mobile = request.mobile {
            problems.require(isMobile(mobile), "mobile", "must look like +1 123456789 (pattern ^\\+\\d+\\s?\\d{1,16}$)")
        }
        if let pin = request.pin {
            if region == .us {
                problems.add("pin", "cannot be set at creation for US customers: set it afterwards with a PIN update")
            } else {
                problems.require(isDigits(pin.revealedValue, count: 4), "pin", "must be exactly 4 digits")
            }
        }
        if let externalID = request.externalID {
            problems.require(externalID.count <= 40, "externalID", "must be at most 40 characters")
        }
        switch request.type {
        case .physical:
            if let address = request.deliveryAddress {
                deliveryAddress(address, region: region, into: &problems)
            } else {
                problems.add("deliveryAddress", "is required for a physical card")
            }
        case .virtual:
            problems.require(request.deliveryAddress == nil, "deliveryAddress", "must be empty for a virtual card")
        default:
            problems.add("type", "must be physical or virtual")
        }
        if region == .us {
            problems.require(
                request.termsAndConditionsAccepted != nil, "termsAndConditionsAccepted",
                "must be present for US customers")
            problems.require(
                request.eDisclosureAccepted != nil, "eDisclosureAccepted", "must be present for US customers")
        }
    }

    /// `DeliveryAddress` rules. [C]
    static func deliveryAddress(
        _ address: DeliveryAddress, region: PaysafeRegion, into problems: inout ValidationProblems
    ) {
        let prefix = "deliveryAddress."
        problems.require((4...40).contains(address.address1.count), prefix + "address1", "must be 4 to 40 characters")
        if let line = address.address2 {
            problems.require(line.count <= 30, prefix + "address2", "must be at most 30 characters")
        }
        if let line = address.address3 {
            problems.require(line.count <= 30, prefix + "address3", "must be at most 30 characters")
        }
        if isBlank(address.city) {
            problems.add(prefix + "city", "is required")
        } else {
            problems.require(
                address.city.count <= 30 && isCityName(address.city), prefix + "city",
                "must be at most 30 letters, spaces, hyphens or periods")
        }
        problems.require(
            isUpperLetters(address.countryCode, count: 2), prefix + "countryCode",
            "must be an ISO 3166-1 alpha-2 code in capitals, such as BG")
        if let state = address.state, region == .us {
            problems.require(
                isUpperLetters(state, count: 2) || isUpperLetters(state, count: 3), prefix + "state",
                "must be a US state abbreviation of 2 or 3 capital letters, such as NY")
        } else if let state = address.state {
            problems.require(
                !isBlank(state) && state.count <= 3, prefix + "state",
                "must be a state or province abbreviation of at most 3 characters")
        } else if region == .us {
            problems.add(prefix + "state", "is required for US customers")
        }
        if isBlank(address.postalCode) {
            problems.add(prefix + "postalCode", "is required")
        } else if region == .us {
            problems.require(
                isUSPostalCode(address.postalCode), prefix + "postalCode",
                "may hold only letters, digits, hyphens and spaces for US customers")
        } else {
            problems.require(address.postalCode.count <= 16, prefix + "postalCode", "must be at most 16 characters")
        }
    }

    /// `CardActivationRequest` rules. [C]
    /// The cardholder's `userAgent`, when the request carries one: Paysafe takes at most 1,000 characters [C:
    /// `CardUpdateRequest`, `CardActivationRequest`].
    static func userAgent(_ value: String?, into problems: inout ValidationProblems) {
        guard let value else { return }
        problems.require(!isBlank(value), "userAgent", "must not be blank when given")
        problems.require(
            value.count <= PaysafeOptions.userAgentMaxLength, "userAgent",
            "must be at most \(PaysafeOptions.userAgentMaxLength) characters (Paysafe's limit)")
    }

    static func activate(_ request: ActivateCardRequest, into problems: inout ValidationProblems) {
        userAgent(request.userAgent, into: &problems)
        cardID(request.card.id, field: "card.id", into: &problems)
        customer(request.card.customer, field: "card.customer", into: &problems)
        problems.require(
            isDigits(request.lastFour, count: 4), "lastFour", "must be the last 4 digits of the card number")
        problems.require(isDigits(request.cvv.revealedValue, count: 3), "cvv", "must be exactly 3 digits")
    }

    /// `CardUpdateRequest` rules [C: `statusReason` ≤ 200] (the transition itself is checked against the card's status
    /// separately; a PIN change is refused before this, the business API having none).
    static func update(_ request: UpdateCardRequest, into problems: inout ValidationProblems) {
        userAgent(request.userAgent, into: &problems)
        cardID(request.card.id, field: "card.id", into: &problems)
        customer(request.card.customer, field: "card.customer", into: &problems)
        if case .status(_, let reason?) = request.change {
            problems.require(!isBlank(reason), "statusReason", "must not be blank when given")
            problems.require(reason.count <= 200, "statusReason", "must be at most 200 characters")
        }
    }

    /// `CardTokenizationRequest` rules that need no card data. [C]
    static func provision(_ request: ProvisioningRequest, into problems: inout ValidationProblems) {
        cardID(request.card.id, field: "card.id", into: &problems)
        customer(request.card.customer, field: "card.customer", into: &problems)
        if request.wallet == .applePay, let input = request.input.applePay {
            if input.certificates.count != 2 {
                problems.add(
                    "input.certificates",
                    "must hold exactly two certificates, leaf first then subordinate (got \(input.certificates.count))")
            } else {
                problems.require(
                    !input.certificates[0].isEmpty, "input.certificates[0]", "the leaf certificate is empty")
                problems.require(
                    !input.certificates[1].isEmpty, "input.certificates[1]", "the subordinate certificate is empty")
            }
            problems.require(!input.nonce.isEmpty, "input.nonce", "is required")
            problems.require(!input.nonceSignature.isEmpty, "input.nonceSignature", "is required")
        } else if request.wallet == .googlePay, request.input.googlePay != nil {
            return
        } else if request.wallet == .applePay || request.wallet == .googlePay {
            problems.add(
                "input",
                "\(request.wallet) needs \(request.wallet == .applePay ? "Apple Pay certificates, nonce and signature" : "Google Pay device and wallet account ids")"
            )
        } else {
            problems.add("wallet", "this adapter provisions Apple Pay and Google Pay only")
        }
    }

    /// Google Pay ids are required for VISA cards [C]; they are also required when the scheme is unknown, since
    /// the card may then be a Visa.
    static func googleIDs(
        _ input: GooglePayProvisioningInput, scheme: CardScheme, into problems: inout ValidationProblems
    ) {
        guard scheme != .mastercard else { return }
        problems.require(!isBlank(input.clientDeviceID), "input.clientDeviceID", "is required for Visa cards")
        problems.require(
            !isBlank(input.clientWalletAccountID), "input.clientWalletAccountID", "is required for Visa cards")
    }

    static func confirm(_ confirmation: ProvisioningConfirmation, into problems: inout ValidationProblems) {
        cardID(confirmation.card.id, field: "card.id", into: &problems)
        customer(confirmation.card.customer, field: "card.customer", into: &problems)
        problems.require(
            !isBlank(confirmation.deviceAccountReference), "deviceAccountReference", "is required (the dpanRef)")
        problems.require(
            confirmation.wallet != .samsungPay, "wallet", "this adapter provisions Apple Pay and Google Pay only")
    }
}
