import Foundation

// Stripe's JSON, mirrored as it arrives. Internal: the public model is in StripeMapping.swift.
// Only the fields the adapter reads are declared; unknown fields are ignored, and optional ones may be absent
// or null. Missing required ones make decoding fail, which the adapter reports as `invalidResponse`.
// Each type names its snake_case keys itself (`CodingKeys`), as Stripe spells them.

/// An object Stripe may return as its id or, expanded, as the object itself.
enum StripeExpandable<Object: Decodable & Sendable>: Decodable, Sendable {
    case id(String)
    case object(Object)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // A card's cardholder always comes expanded: it is read as an object first, so that the common answer
        // throws (and builds) no error. Other expandables usually come as ids. Either way, when neither reading
        // works, the object's error is the one reported, as it always was.
        if Object.self is StripeCardholderWire.Type {
            do {
                self = .object(try container.decode(Object.self))
            } catch {
                guard let id = try? container.decode(String.self) else { throw error }
                self = .id(id)
            }
        } else if let id = try? container.decode(String.self) {
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

            enum CodingKeys: String, CodingKey {
                case eligible
                case ineligibleReason = "ineligible_reason"
            }
        }
        var applePay: Wallet?
        var googlePay: Wallet?
        var primaryAccountIdentifier: String?

        enum CodingKeys: String, CodingKey {
            case applePay = "apple_pay"
            case googlePay = "google_pay"
            case primaryAccountIdentifier = "primary_account_identifier"
        }
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

    enum CodingKeys: String, CodingKey {
        case id, object, status, type, brand, last4, currency, created, cardholder, wallets, livemode
        case expMonth = "exp_month"
        case expYear = "exp_year"
        case cancellationReason = "cancellation_reason"
    }
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

    enum CodingKeys: String, CodingKey {
        case id, object, card, status, network, last4, created
        case walletProvider = "wallet_provider"
        case deviceFingerprint = "device_fingerprint"
        case networkUpdatedAt = "network_updated_at"
    }
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

    enum CodingKeys: String, CodingKey {
        case id, object, created, expires, secret, livemode
        case associatedObjects = "associated_objects"
    }
}

/// A list: `{"object":"list","data":[…],"has_more":…,"url":…}`.
struct StripeListWire<Item: Decodable & Sendable>: Decodable, Sendable {
    var object: String?
    var data: [Item]
    var hasMore: Bool?
    var url: String?

    enum CodingKeys: String, CodingKey {
        case object, data, url
        case hasMore = "has_more"
    }
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

        enum CodingKeys: String, CodingKey {
            case type, code, message, param
            case declineCode = "decline_code"
            case docUrl = "doc_url"
            case requestLogUrl = "request_log_url"
        }
    }
    var error: Body
}

/// An `event`, with its object decoded as `Object`.
struct StripeEventWire<Object: Decodable & Sendable>: Decodable, Sendable {
    struct EventData: Decodable, Sendable {
        var object: Object
        var previousAttributes: PreviousAttributes?

        enum CodingKeys: String, CodingKey {
            case object
            case previousAttributes = "previous_attributes"
        }
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
    /// One decoder for every answer: the default key strategy,
    /// since every wire type names its snake_case keys.
    static func decoder() -> JSONDecoder { shared }

    private static let shared = JSONDecoder()

    /// The encoder of the answers the adapter writes (keys sorted, as Stripe's own examples are).
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
}

/// The answer to `issuing_authorization.request`: `approved`; `amount` only for a smaller approved amount, `metadata`
/// only on a decline (absent members are left out, not written as null).
struct StripeAuthorizationAnswerWire: Encodable, Sendable {
    var approved: Bool
    var amount: Int64?
    var metadata: [String: String]?
}

/// `issuing_authorization.request`: the members the adapter reads.
struct StripeAuthorizationEventWire: Decodable, Sendable {
    struct EventData: Decodable, Sendable {
        var object: StripeAuthorizationWire
    }

    var id: String
    var object: String?
    var type: String
    var apiVersion: String?
    var data: EventData

    enum CodingKeys: String, CodingKey {
        case id, object, type, data
        case apiVersion = "api_version"
    }
}

/// `issuing.authorization`, the members the adapter reads.
struct StripeAuthorizationWire: Decodable, Sendable {
    /// `card`: the `issuing.card` (always expanded in Stripe's schema); an id alone is read too.
    struct CardWire: Decodable, Sendable {
        var id: String

        init(from decoder: any Decoder) throws {
            if let id = try? decoder.singleValueContainer().decode(String.self) {
                self.id = id
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
        }

        enum CodingKeys: String, CodingKey { case id }
    }

    struct PendingRequest: Decodable, Sendable {
        var amount: Int64
        var currency: String
        var isAmountControllable: Bool?
        var merchantAmount: Int64?
        var merchantCurrency: String?
        var networkRiskScore: Int?

        enum CodingKeys: String, CodingKey {
            case amount, currency
            case isAmountControllable = "is_amount_controllable"
            case merchantAmount = "merchant_amount"
            case merchantCurrency = "merchant_currency"
            case networkRiskScore = "network_risk_score"
        }
    }

    struct MerchantData: Decodable, Sendable {
        var name: String?
        var categoryCode: String?
        var country: String?
        var city: String?
        var networkID: String?

        enum CodingKeys: String, CodingKey {
            case name, country, city
            case categoryCode = "category_code"
            case networkID = "network_id"
        }
    }

    struct RequestHistory: Decodable, Sendable {
        var approved: Bool?
    }

    var id: String
    var object: String?
    var card: CardWire
    var authorizationMethod: String?
    var pendingRequest: PendingRequest?
    var merchantData: MerchantData?
    var requestHistory: [RequestHistory]?

    enum CodingKeys: String, CodingKey {
        case id, object, card
        case authorizationMethod = "authorization_method"
        case pendingRequest = "pending_request"
        case merchantData = "merchant_data"
        case requestHistory = "request_history"
    }
}
