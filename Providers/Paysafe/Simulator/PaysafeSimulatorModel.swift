import CardGatewaySimulation
import Foundation
import Synchronization

// The simulator's own records. They mirror what Paysafe keeps, not the adapter's types.

struct PaysafeSimulatorCustomer: Sendable {
    var id: String
    /// "ROW" or "US".
    var region: String
    /// Card updates and secure details ask for SCA.
    var requiresSCA: Bool
    var name: String
    var mobile: String
    var address1: String
    var city: String
    var countryCode: String
    var state: String?
    var postalCode: String
}

struct PaysafeSimulatorProgram: Sendable {
    var name: String
    var cardType: String
    var scheme: String
    var currencies: [String]
    var allowableCards: Int
    var isDigital: Bool
    var region: String
}

struct PaysafeSimulatorTokenization: Sendable {
    var dpanRef: String?
    var walletId: String?
    var walletType: String
    var status: String
    var created: Date
}

struct PaysafeSimulatorCard: Sendable {
    var cardId: String
    var customerId: String
    var status: String
    var statusReason: String?
    var cardType: String
    var scheme: String
    var programName: String
    var currency: String
    var bin: String
    var lastFour: String
    var expiryMonth: Int
    var expiryYear: Int
    var mobile: String?
    var createdDate: Date
    var activationDate: Date?
    var accountId: String
    var externalId: String?
    var deliveryAddress: [String: String]?
    var cvv: String
    var pin: String?
    var tokenizations: [PaysafeSimulatorTokenization] = []
    var failedActivations: Int = 0
}

struct PaysafeSimulatorAccessToken: Sendable {
    var brand: String
    var expires: Date
}

struct PaysafeSimulatorSCAEvent: Sendable {
    enum Status: String, Sendable {
        case pending = "PENDING"
        case verified = "VERIFIED"
        case rejected = "REJECTED"
        case failed = "FAILED"
        case used = "USED"
    }

    var eventId: String
    var walletOperationId: String
    var customerId: String
    /// What the challenge guards ("PATCH <cardId>", "SECURE-DETAILS <cardId>").
    var operation: String
    var status: Status
    var created: Date
    var expires: Date
    var attempts: Int
}

/// One request as the engine sees it, whatever carried it.
struct PaysafeSimulatorRequest: Sendable {
    var method: String
    var parameters: [String: String]
    var query: [(name: String, value: String)]
    /// Lower-cased names.
    var headers: [String: String]
    var body: Data
    /// The request's authority (`Host`): the simulator's own address, for the links it answers.
    var authority: String = ""

    func parameter(_ name: String) -> String { parameters[name] ?? "" }
    func header(_ name: String) -> String? { headers[name.lowercased()] }
    func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// The body as a JSON object. Top-level `null` members are dropped: Paysafe treats an explicit null like an
    /// absent optional field (its own CardRequest example sends `"cardPin": null`).
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?.filter { !($0.value is NSNull) }
    }
}

/// The simulator's state and request handling. Every handler runs under one lock, so a request's reads and
/// writes of several records are atomic.
final class PaysafeSimulatorEngine: Sendable {
    typealias Wire = PaysafeSimulatorWire
    typealias Seed = PaysafeSimulator.Seed

    let credentials: PaysafeSimulator.Credentials
    let clock: SimulationClock
    let ids = DeterministicIDs(seed: 7)
    let customers = SimulatorStore<String, PaysafeSimulatorCustomer>(
        PaysafeSimulatorSeedData.customers.map { ($0.id, $0) })
    let programs = SimulatorStore<String, PaysafeSimulatorProgram>(
        PaysafeSimulatorSeedData.programs.map { ($0.name, $0) })
    let cards = SimulatorStore<String, PaysafeSimulatorCard>(PaysafeSimulatorSeedData.cards.map { ($0.cardId, $0) })
    let tokens = SimulatorStore<String, PaysafeSimulatorAccessToken>()
    let scaEvents = SimulatorStore<String, PaysafeSimulatorSCAEvent>()
    /// Secure-details links by token (PaysafeSimulatorCardReveal.swift).
    let secureLinks = SimulatorStore<String, PaysafeSimulatorSecureLink>()
    let lock = Mutex(0)

    static let cardStatuses: Set<String> = [
        "ACTIVE", "PENDING", "CANCELLED", "SUSPENDED", "APPLIED", "DIGITAL", "REJECTED", "LOCKED", "EXPIRED", "ISSUED",
    ]
    static let walletTypes: Set<String> = ["APPLE_PAY", "GOOGLE_PAY", "SAMSUNG_PAY"]
    static let scaMethods: Set<String> = ["PASSWORD", "PIN", "PASSKEYS", "OTP", "PUSH_NOTIFICATION", "BIOMETRIC"]
    static let scaChannels: Set<String> = ["SMS", "EMAIL", "AUTHENTICATOR", "PUSH_NOTIFICATION", "REDIRECT"]
    /// The update transitions the simulator enforces (the project's inferred reading of Paysafe's table).
    static let transitions: [String: Set<String>] = [
        "ACTIVE": ["LOCKED", "CANCELLED"], "LOCKED": ["ACTIVE", "CANCELLED"],
        "DIGITAL": ["ACTIVE", "CANCELLED", "LOCKED"],
    ]
    static let liveStatuses: Set<String> = ["ACTIVE", "ISSUED", "DIGITAL", "PENDING", "APPLIED", "LOCKED", "SUSPENDED"]

    init(credentials: PaysafeSimulator.Credentials, clock: SimulationClock) {
        self.credentials = credentials
        self.clock = clock
    }

    func reset() {
        lock.withLock { _ in
            customers.reset(to: PaysafeSimulatorSeedData.customers.map { ($0.id, $0) })
            programs.reset(to: PaysafeSimulatorSeedData.programs.map { ($0.name, $0) })
            cards.reset(to: PaysafeSimulatorSeedData.cards.map { ($0.cardId, $0) })
            tokens.reset(to: [])
            scaEvents.reset(to: [])
            secureLinks.reset(to: [])
            ids.reset()
        }
    }

    /// Runs `body` under the lock.
    func locked(_ body: () -> SimulatedResponse) -> SimulatedResponse {
        lock.withLock { _ in body() }
    }
}
