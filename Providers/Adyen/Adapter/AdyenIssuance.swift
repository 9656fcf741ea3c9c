@_spi(AdapterSupport) import CardGateway
import Foundation

/// Card issuance on Adyen's Configuration API: `POST /paymentInstruments` with a `PaymentInstrumentInfo` of
/// `type` `card`. The table is in `Providers/Adyen/README.md` ("Lifecycle").
extension AdyenProvider {
    /// Creates a card payment instrument in the balance account `request.customer` (`POST /paymentInstruments`,
    /// sent with an `Idempotency-Key`) and answers it as a card.
    ///
    /// The body: `type` `card`, `balanceAccountId` (the customer), `issuingCountryCode` (the request's, else the
    /// delivery address's country), `reference` (the `externalID`, when given) and `card` with `formFactor`
    /// (`virtual` or `physical`), `brandVariant` (the `program`, such as `visadebit` or `mcprepaid`), `brand`
    /// (`visa` or `mc`, from the program's prefix) and `cardholderName`. A physical card also gets a
    /// `deliveryContact`: the delivery address, and the cardholder name split at its last space into first and
    /// last name. No `status` is sent: Adyen's default applies (`active`, with exceptions for some physical cards).
    ///
    /// Refused before anything is sent: a missing or unsafe balance account id, a currency that is not ISO 4217
    /// (Adyen's card takes none; it is checked for the contract's sake and not sent), a missing cardholder name or
    /// one longer than Adyen's 26 characters, no issuing country, a program that is not a Visa or Mastercard
    /// brand variant, an `unknown` type, a physical card without a delivery address or a two-part name, and a
    /// PIN (Adyen takes a PIN only as an encrypted block, by another call). `mobile` and the acceptances are not
    /// sent (Adyen's `card.authentication` needs a password too).
    public func createCard(_ request: CreateCardRequest, context: OperationContext) async throws -> Card {
        let body = try Self.creationBody(request)
        let encoded = try calls.encode(body)
        let digest = String(ByteEncoding.hex(MessageAuthentication.sha256(encoded)).prefix(24))
        let response = try await send(
            ProviderRequest(
                .post, AdyenAPI.paymentInstruments, headers: calls.headers(json: true), body: encoded,
                repeatability: .idempotent(
                    header: AdyenAPI.idempotencyKeyHeader, scope: "POST \(AdyenAPI.paymentInstruments) \(digest)"),
                operation: "create payment instrument"
            ),
            family: .paymentInstrument, context: context
        )
        let created = try calls.decode(
            AdyenWirePaymentInstrument.self, from: response, what: "created payment instrument")
        guard created.card != nil else {
            throw calls.invalidResponse("Adyen's new payment instrument is not a card", response)
        }
        return try mapCard(
            created, ref: CardRef(id: created.id, customer: created.balanceAccountId ?? request.customer))
    }

    /// The `PaymentInstrumentInfo` for `request`, or every problem with it as `invalidRequest`.
    static func creationBody(_ request: CreateCardRequest) throws -> AdyenWireCreatePaymentInstrumentRequest {
        var problems = ValidationProblems()
        ProviderIDs.check(
            request.customer, field: "customer", what: "an Adyen balance account id", maxLength: AdyenAPI.idMaxLength,
            into: &problems)
        problems.require(
            Money.isCurrencyCode(request.currency), "currency",
            "must be an ISO 4217 alpha-3 code in capitals, such as EUR")

        let formFactor: String?
        switch request.type {
        case .virtual: formFactor = "virtual"
        case .physical: formFactor = "physical"
        default:
            formFactor = nil
            problems.add("type", "must be virtual or physical")
        }

        let program = request.program
        let brand = AdyenAPI.brand(ofVariant: program)
        if program.isEmpty {
            problems.add("program", "is required: the Adyen brand variant, such as visadebit or mcprepaid")
        } else if program.utf8.count > AdyenAPI.brandVariantMaxLength
            || !program.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-")
            })
        {
            problems.add(
                "program",
                "is not an Adyen brand variant (letters, digits, _ and -, at most \(AdyenAPI.brandVariantMaxLength) characters)"
            )
        } else if brand == nil {
            problems.add(
                "program",
                "must be a Visa or Mastercard brand variant (starting visa or mc), as Adyen issues only those brands")
        }

        let name = (request.cardholderName ?? "").trimmingCharacters(in: .whitespaces)
        if name.isEmpty {
            problems.add("cardholderName", "is required: Adyen prints it on the card")
        } else if name.count > AdyenAPI.cardholderNameMaxLength {
            problems.add("cardholderName", "must be at most \(AdyenAPI.cardholderNameMaxLength) characters")
        } else if !name.unicodeScalars.allSatisfy({ !$0.properties.generalCategory.isControlOrFormat }) {
            problems.add("cardholderName", "must be printable text")
        }

        let country = (request.issuingCountryCode ?? request.deliveryAddress?.countryCode ?? "").uppercased()
        if country.isEmpty {
            problems.add(
                "issuingCountryCode",
                "is required (or a delivery address with a country): Adyen needs the issuing country")
        } else if country.count != 2 || !country.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) }) {
            problems.add(
                request.issuingCountryCode == nil ? "deliveryAddress.countryCode" : "issuingCountryCode",
                "must be an ISO 3166-1 alpha-2 code, such as NL")
        }

        if let reference = request.externalID {
            problems.require(
                !reference.isEmpty && reference.count <= AdyenAPI.referenceMaxLength, "externalID",
                "must be 1 to \(AdyenAPI.referenceMaxLength) characters (Adyen's reference)"
            )
        }
        problems.require(request.pin == nil, "pin", "Adyen does not take a PIN when a card is created")

        var contact: AdyenWireDeliveryContact?
        if request.type == .physical {
            if let address = request.deliveryAddress {
                let parts = name.split(separator: " ", omittingEmptySubsequences: true)
                if parts.count < 2, !name.isEmpty {
                    problems.add(
                        "cardholderName", "needs a first and a last name for a physical card's delivery contact")
                } else if let last = parts.last {
                    contact = AdyenWireDeliveryContact(
                        name: AdyenWireName(firstName: parts.dropLast().joined(separator: " "), lastName: String(last)),
                        address: AdyenWireDeliveryAddress(
                            city: address.city, country: address.countryCode.uppercased(), line1: address.address1,
                            line2: address.address2,
                            line3: address.address3, postalCode: address.postalCode, stateOrProvince: address.state
                        )
                    )
                }
            } else {
                problems.add("deliveryAddress", "is required for a physical card: Adyen sends it there")
            }
        }
        try problems.throwIfAny()

        return AdyenWireCreatePaymentInstrumentRequest(
            type: "card", balanceAccountId: request.customer, issuingCountryCode: country,
            reference: request.externalID,
            card: AdyenWireCardInfo(
                brand: brand ?? "", brandVariant: program, cardholderName: name, formFactor: formFactor ?? "",
                deliveryContact: contact
            )
        )
    }
}

extension Unicode.GeneralCategory {
    fileprivate var isControlOrFormat: Bool {
        switch self {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate, .privateUse: return true
        default: return false
        }
    }
}
