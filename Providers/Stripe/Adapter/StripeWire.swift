import Foundation

// Stripe's JSON, mirrored as it arrives. Internal: the public model is in StripeMapping.swift.
// Only the fields the adapter reads are declared; unknown fields are ignored, and optional ones may be absent
// or null. Missing required ones make decoding fail, which the adapter reports as `invalidResponse`.

/// An object Stripe may return as its id or, expanded, as the object itself.
enum StripeExpandable<Object: Decodable & Sendable>: Decodable, Sendable {
    case id(String)
    case object(Object)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let id = try? container.decode(String.self) {
            self = .id(id)
        } else {
            self = .object(try container.decode(Object.self))
        }
    }
}

struct StripeIdentified: Decodable, Sendable {
    var id: String
}

struct StripeCardholderWire: Decodable, Sendable {
    var id: String
    var name: String?
}

extension StripeExpandable where Object == StripeCardholderWire {
    var id: String {
        switch self {
        case .id(let id): return id
        case .object(let object): return object.id
        }
    }
}

extension StripeExpandable where Object == StripeIdentified {
    var id: String {
        switch self {
        case .id(let id): return id
        case .object(let object): return object.id
        }
    }
}

/// `issuing.card`.
struct StripeCardWire: Decodable, Sendable {
    struct Wallets: Decodable, Sendable {
        struct Wallet: Decodable, Sendable {
            var eligible: Bool
            var ineligibleReason: String?
        }
        var applePay: Wallet?
        var googlePay: Wallet?
        var primaryAccountIdentifier: String?
    }

    var id: String
    var object: String?
    var status: String
    var type: String?
    var brand: String?
    var last4: String?
    var expMonth: Int?
    var expYear: Int?
    var currency: String?
    var created: Int64?
    var cancellationReason: String?
    var cardholder: StripeExpandable<StripeCardholderWire>?
    var wallets: Wallets?
    var livemode: Bool?
}

/// `issuing.token`.
struct StripeTokenWire: Decodable, Sendable {
    var id: String
    var object: String?
    var card: StripeExpandable<StripeIdentified>
    var status: String
    var walletProvider: String?
    var network: String?
    var last4: String?
    var created: Int64?
    var deviceFingerprint: String?
    var networkUpdatedAt: Int64?
}

/// `ephemeral_key`.
struct StripeEphemeralKeyWire: Decodable, Sendable {
    struct AssociatedObject: Decodable, Sendable {
        var id: String
        var type: String
    }

    var id: String
    var object: String?
    var created: Int64?
    var expires: Int64
    var secret: String?
    var associatedObjects: [AssociatedObject]?
    var livemode: Bool?
}

/// A list: `{"object":"list","data":[…],"has_more":…,"url":…}`.
struct StripeListWire<Item: Decodable & Sendable>: Decodable, Sendable {
    var object: String?
    var data: [Item]
    var hasMore: Bool?
    var url: String?
}

/// `{"error":{…}}`.
struct StripeErrorWire: Decodable, Sendable {
    struct Body: Decodable, Sendable {
        var type: String?
        var code: String?
        var message: String?
        var param: String?
        var declineCode: String?
        var docUrl: String?
        var requestLogUrl: String?
    }
    var error: Body
}

/// An `event`, with its object decoded as `Object`.
struct StripeEventWire<Object: Decodable & Sendable>: Decodable, Sendable {
    struct EventData: Decodable, Sendable {
        var object: Object
        var previousAttributes: PreviousAttributes?
    }
    struct PreviousAttributes: Decodable, Sendable {
        var status: String?
    }

    var id: String
    var type: String
    var created: Int64?
    var data: EventData
}

/// What is read of an event before its type is known.
struct StripeEventHeaderWire: Decodable, Sendable {
    var id: String
    var object: String?
    var type: String
    var created: Int64?
}

enum StripeJSON {
    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
