/// Every operation the gateway routes, named as routes and the CLI name them (`"operation": "provision"`).
///
/// A struct with static members rather than an enum, so that a new operation breaks no caller's `switch`
/// (match what you handle and keep a `default`). Each operation names the capability it needs.
public struct GatewayOperation: GrowableName, Codable {
    public let rawValue: String
    /// The capability an instance needs to serve this operation.
    public let capability: Capability

    private init(_ rawValue: String, _ capability: Capability) {
        self.rawValue = rawValue
        self.capability = capability
    }

    public static func == (lhs: GatewayOperation, rhs: GatewayOperation) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    public static let card = GatewayOperation("card", .cardLookup)
    public static let listCards = GatewayOperation("listCards", .cardListing)
    public static let createCard = GatewayOperation("createCard", .cardIssuance)
    public static let activateCard = GatewayOperation("activateCard", .cardActivation)
    public static let lockCard = GatewayOperation("lockCard", .cardLocking)
    public static let unlockCard = GatewayOperation("unlockCard", .cardLocking)
    public static let cancelCard = GatewayOperation("cancelCard", .cardCancellation)
    public static let setCardPIN = GatewayOperation("setCardPIN", .cardPIN)
    public static let programs = GatewayOperation("programs", .cardPrograms)
    public static let listWalletTokens = GatewayOperation("listWalletTokens", .walletTokenListing)
    public static let suspendWalletToken = GatewayOperation("suspendWalletToken", .walletTokenControl)
    public static let resumeWalletToken = GatewayOperation("resumeWalletToken", .walletTokenControl)
    public static let deleteWalletToken = GatewayOperation("deleteWalletToken", .walletTokenControl)
    public static let provisioningOffer = GatewayOperation("provisioningOffer", .walletProvisioning)
    public static let provision = GatewayOperation("provision", .walletProvisioning)
    public static let confirmProvisioning = GatewayOperation("confirmProvisioning", .walletProvisioning)
    public static let clientSession = GatewayOperation("clientSession", .storedCredentials)
    public static let verifyResult = GatewayOperation("verifyResult", .storedCredentials)
    public static let charge = GatewayOperation("charge", .storedCredentials)
    public static let webhook = GatewayOperation("webhook", .webhooks)
    /// Both steps of ``RevealPurpose/cardDetails`` (offer and session).
    public static let cardDetailsReveal = GatewayOperation("cardDetailsReveal", .cardDetailsReveal)
    /// Both steps of ``RevealPurpose/pinReveal``.
    public static let pinReveal = GatewayOperation("pinReveal", .pinReveal)
    /// Both steps of ``RevealPurpose/pinChange``.
    public static let pinChange = GatewayOperation("pinChange", .pinChange)
    /// A real-time authorization request the provider sent (``AuthorizationResponding``).
    public static let authorization = GatewayOperation("authorization", .authorizations)

    public static let allCases: [GatewayOperation] = [
        .card, .listCards, .createCard, .activateCard, .lockCard, .unlockCard, .cancelCard, .setCardPIN, .programs,
        .listWalletTokens, .suspendWalletToken, .resumeWalletToken, .deleteWalletToken, .provisioningOffer, .provision,
        .confirmProvisioning, .clientSession, .verifyResult, .charge, .webhook, .cardDetailsReveal, .pinReveal,
        .pinChange, .authorization,
    ]
}
