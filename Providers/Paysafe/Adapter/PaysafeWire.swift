import CardGateway
import Foundation

// Codable mirrors of Paysafe's JSON. Unknown fields are ignored; fields the documentation marks required are
// non-optional, so a response without them fails to decode and surfaces as `invalidResponse`. Fields whose
// shape is not documented (marked [U]) decode leniently.

/// `{access_token, expires_in, token_type, scope}`. [C]
struct PaysafeWireToken: Decodable {
    var accessToken: String
    var expiresIn: PaysafeFlexibleInt?
    var tokenType: String?
    var scope: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case tokenType = "token_type"
        case scope
    }
}

/// An integer Paysafe may send as a number or as a numeric string.
struct PaysafeFlexibleInt: Decodable, Equatable {
    var value: Int

    init(_ value: Int) { self.value = value }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            value = number
        } else if let text = try? container.decode(String.self),
            let number = Int(text.trimmingCharacters(in: .whitespaces))
        {
            value = number
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected an integer")
        }
    }
}

/// A string Paysafe may send as a string or a number (error codes: `"5269"`).
struct PaysafeFlexibleString: Decodable, Equatable {
    var value: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            value = text
        } else if let number = try? container.decode(Int.self) {
            value = String(number)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a string")
        }
    }
}

/// `{"error":{"code","message","details","fieldErrors":[{"field","error"}]}}`. [C]
struct PaysafeWireErrorEnvelope: Decodable {
    struct Body: Decodable {
        struct FieldError: Decodable {
            var field: String?
            var error: String?
        }

        var code: PaysafeFlexibleString?
        var message: String?
        var details: [String]?
        var fieldErrors: [FieldError]?
    }

    var error: Body
}

/// A card (list item and get). `cardId` and `status` are required; everything else is optional. [C]
struct PaysafeWireCard: Decodable {
    struct Expiry: Decodable {
        var month: PaysafeFlexibleInt
        var year: PaysafeFlexibleInt
    }

    var cardId: String
    var status: String
    var statusReason: String?
    var expiry: Expiry?
    var bin: String?
    var lastFour: String?
    var customerId: PaysafeFlexibleString?
    var cardType: String?
    var programName: String?
    var currency: String?
    var createdDate: String?
    var accountId: PaysafeFlexibleString?
    var scheme: String?
    var externalId: String?
    var isPinSet: Bool?
    var tokenizations: PaysafeWireTokenizationList?
    var availableActions: [PaysafeWireAvailableAction]?
}

/// One mobile wallet tokenization of a card (`MobileWalletTokenization`). [C fields, U container]
struct PaysafeWireTokenization: Decodable {
    var dpanRef: String?
    var walletId: String?
    var walletType: String?
    var status: String?
}

/// The `tokenizations` include. The SDK calls it a `MobileWalletTokenizationList` holding a list; the list's
/// property name is not documented [U], so an array, or an object holding an array under any key, is accepted.
struct PaysafeWireTokenizationList: Decodable {
    var items: [PaysafeWireTokenization]

    static let preferredKeys = ["mobileWallets", "tokenizations", "items", "wallets"]

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        // An object (what the sandbox answers) is tried first, so that the usual answer costs no failed attempt; a
        // value that is not an object must be the list itself (or the decoding fails, as before).
        guard let container = try? decoder.container(keyedBy: AnyKey.self) else {
            items = try decoder.singleValueContainer().decode([PaysafeWireTokenization].self)
            return
        }
        // The documented names first, in this order, then any other member holding such a list.
        for name in Self.preferredKeys {
            if let key = AnyKey(stringValue: name), container.contains(key),
                let list = try? container.decode([PaysafeWireTokenization].self, forKey: key)
            {
                items = list
                return
            }
        }
        for key in container.allKeys where !Self.preferredKeys.contains(key.stringValue) {
            if let list = try? container.decode([PaysafeWireTokenization].self, forKey: key) {
                items = list
                return
            }
        }
        items = []
    }
}

/// One entry of `availableActions`: documented as "an array of CardAvailableActions which has an available
/// action field" [U]; a bare string or an object with `action` (or any single string field) is accepted.
struct PaysafeWireAvailableAction: Decodable {
    var value: String?

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The fields read, in order, from an action given as an object.
    private static let names = ["action", "availableAction", "name", "type"]

    init(from decoder: any Decoder) throws {
        // The documented shape (an object) is read first, so that the usual answer throws (and builds) no error;
        // a bare string is read when it is not an object. When neither works, the object's error is reported, as
        // it always was.
        let container: KeyedDecodingContainer<AnyKey>
        do {
            container = try decoder.container(keyedBy: AnyKey.self)
        } catch {
            guard let text = try? decoder.singleValueContainer().decode(String.self) else { throw error }
            value = text
            return
        }
        for name in Self.names {
            if let key = AnyKey(stringValue: name), let text = try? container.decode(String.self, forKey: key) {
                value = text
                return
            }
        }
        value =
            container.allKeys.sorted { $0.stringValue < $1.stringValue }.lazy.compactMap {
                try? container.decode(String.self, forKey: $0)
            }.first
    }
}

/// `{"cards":[…],"meta":{numberOfRecords, limit, page}}`. [C]
struct PaysafeWireCardList: Decodable {
    struct Meta: Decodable {
        var numberOfRecords: PaysafeFlexibleInt?
        var limit: PaysafeFlexibleInt?
        var page: PaysafeFlexibleInt?
    }

    var cards: [PaysafeWireCard]
    var meta: Meta?
}

/// A program. [C]
struct PaysafeWireProgram: Decodable {
    var name: String
    var cardType: String?
    var scheme: String?
    var currencies: [String]?
    var allowableCards: PaysafeFlexibleInt?
    var isDigital: Bool?
}

/// `{"programs":[…]}` [C: "the response will contain a non-empty programs array"]; a bare array is accepted.
struct PaysafeWirePrograms: Decodable {
    var programs: [PaysafeWireProgram]

    enum CodingKeys: String, CodingKey { case programs }

    init(from decoder: any Decoder) throws {
        if let list = try? decoder.singleValueContainer().decode([PaysafeWireProgram].self) {
            programs = list
        } else {
            programs = try decoder.container(keyedBy: CodingKeys.self).decode(
                [PaysafeWireProgram].self, forKey: .programs)
        }
    }
}

/// `CardTokenization`: the wallet payload. `cardNetwork` and `tokenProvider` are required. [C]
struct PaysafeWireCardTokenization: Decodable {
    struct Customer: Decodable {
        var name: String?
    }

    var opaquePaymentCard: String?
    var encryptedPassData: String?
    var ephemeralPublicKey: String?
    var activationData: String?
    var cardNetwork: String
    var tokenProvider: String
    var customer: Customer?
    var cardLastDigits: String?
}

/// The secure-details answer. Only "a URL with a short expiration time" is documented [C]; the field names
/// are [U], so the common spellings are accepted.
struct PaysafeWireSecureDetails: Decodable {
    var url: String?
    var secureDetailsUrl: String?
    var expirationTime: String?
    var expiresAt: String?
    var expiryTime: String?
    var expiresIn: PaysafeFlexibleInt?
}

/// The SCA challenge inside `WWW-Authenticate: SCA … auth-param1="<base64 JSON>"`. [C]
struct PaysafeWireSCAEvent: Decodable {
    struct Verification: Decodable {
        var method: String
        var channel: String?
        var target: String?
    }

    var eventId: String
    var walletOperationId: String
    var authenticationMode: String?
    var availableVerifications: [Verification]?
    var creationTime: String?
    var expirationTime: String?
}

/// `{"scaDetails": {…}}`. [C]
struct PaysafeWireSCAEnvelope: Decodable {
    var scaDetails: PaysafeWireSCAEvent
}

/// The outsourced SCA attempt response. [C: id, eventId, walletOperationId, status; others optional]
struct PaysafeWireSCAAttempt: Decodable {
    var id: PaysafeFlexibleString?
    var eventId: String?
    var walletOperationId: String?
    var status: String?
    var statusReason: String?
    var allowableAttempts: PaysafeFlexibleInt?
    var currentAttempts: PaysafeFlexibleInt?
}

/// The status-card webhook body `{id, cardId, customerId, oldStatus, newStatus}` [C]; `eventTimestamp` is read when
/// present, as the token event has it [U for this event].
struct PaysafeWireStatusEvent: Decodable {
    var id: PaysafeFlexibleString
    var cardId: String
    var customerId: PaysafeFlexibleString?
    var oldStatus: String?
    var newStatus: String
    var eventTimestamp: String?
}

/// `CardTokenUpdateEvent` (docs.paysafe.com/api/embedded-wallets/webhooks/schemas/cardtokenupdateevent) [C]: `id`,
/// `cardId` and `customerId` required; `result`, `tokenAction`, `eventId` (≤ 50) and `eventTimestamp` (RFC 3339)
/// optional. `tokenAction` is what tells this event from the status event, so it is read as required here.
struct PaysafeWireTokenEvent: Decodable {
    var id: PaysafeFlexibleString
    var cardId: String
    var customerId: PaysafeFlexibleString
    var result: String?
    var tokenAction: String
    var eventId: PaysafeFlexibleString?
    var eventTimestamp: String?
}

/// Which webhook a signed body is: the status event has `newStatus`, the token event `tokenAction`.
struct PaysafeWireWebhookShape: Decodable {
    var hasNewStatus: Bool
    var hasTokenAction: Bool

    enum CodingKeys: String, CodingKey { case newStatus, tokenAction }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        hasNewStatus = container.contains(.newStatus)
        hasTokenAction = container.contains(.tokenAction)
    }
}

// MARK: Requests

/// `CardRequest` plus the REST schema's `userAgent`. [C]
struct PaysafeWireCardRequest: Encodable {
    struct DeliveryAddress: Encodable {
        var address1: String
        var address2: String?
        var address3: String?
        var city: String
        var countryCode: String
        var state: String?
        var postalCode: String
    }

    var programName: String
    var currency: String
    var mobile: String?
    var cardPin: String?
    var externalId: String?
    var userAgent: String
    var deliveryAddress: DeliveryAddress?
    var termsAndConditionsAccepted: Bool?
    var eDisclosureAccepted: Bool?
}

/// `CardActivationRequest`. [C]
struct PaysafeWireActivationRequest: Encodable {
    var lastFourDigits: String
    var cvv: String
    var userAgent: String
}

/// `CardUpdateRequest` (user-facing API) [C]: `status`, `statusReason` (≤ 200), `pin` (4) and `userAgent` (required,
/// ≤ 1,000). `pin` is never sent: the business API has no PIN change. The business update body is [U].
struct PaysafeWireUpdateRequest: Encodable {
    var status: String
    var statusReason: String?
    var userAgent: String
}

/// `CardTokenizationRequest`: certificates, nonce and signature hex-encoded. [C]
struct PaysafeWireTokenizationRequest: Encodable {
    var walletType: String
    var clientDeviceId: String?
    var clientWalletAccountId: String?
    var leafCertificate: String?
    var subordinateCertificate: String?
    var nonce: String?
    var nonceSignature: String?
}

/// The tokenization status update (`MobileWalletTokenization`). [U: body fields]
struct PaysafeWireTokenizationUpdate: Encodable {
    var dpanRef: String
    var walletId: String?
    var walletType: String
    var status: String
}

/// The outsourced SCA attempt. [C]
struct PaysafeWireSCAAttemptRequest: Encodable {
    struct Verification: Encodable {
        var method: String
        var channel: String?
    }

    var walletOperationId: String
    var verification: Verification
    /// Not in the documented body (`{walletOperationId, verification}`): sent only to report a failed or
    /// rejected challenge; a verified one sends the documented body alone. *Unverified.*
    var status: String?
}

/// The `SCA-Authorization` header's JSON. [C]
struct PaysafeWireSCAAuthorization: Encodable {
    struct Details: Encodable {
        var eventId: String
        var walletOperationId: String
    }

    var scaDetails: Details
}

/// The secure-details request body. Its fields are not documented [U]; an empty object is sent.
struct PaysafeWireSecureDetailsRequest: Encodable {}
