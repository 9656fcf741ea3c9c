/// Every operation the gateway routes, named as routes and the CLI name them (`"operation": "provision"`).
public enum GatewayOperation: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case card
    case listCards
    case createCard
    case activateCard
    case updateCard
    case programs
    case provisioningOffer
    case provision
    case confirmProvisioning
    case clientSession
    case verifyResult
    case charge
    case webhook

    /// The capability an instance needs to serve this operation.
    public var capability: Capability {
        switch self {
        case .card: return .cardLookup
        case .listCards, .createCard, .activateCard, .updateCard, .programs: return .cardService
        case .provisioningOffer, .provision, .confirmProvisioning: return .walletProvisioning
        case .clientSession, .verifyResult, .charge: return .storedCredentials
        case .webhook: return .webhooks
        }
    }

    public var description: String { rawValue }
}
