import CardGateway
import Foundation
import Synchronization

/// A user of the mobile app, as the server's directory knows them.
public struct AppUser: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A stable, non-secret identifier. It appears in logs and is the `customer` of the user's stored credentials.
    public var id: String
    /// How the app greets the user; never used for decisions.
    public var displayName: String?

    /// - Parameters:
    ///   - id: the stable, non-secret user id.
    ///   - displayName: an optional name for display.
    public init(id: String, displayName: String? = nil) {
        self.id = id
        self.displayName = displayName
    }

    public var description: String { "AppUser(\(id))" }
}

/// A card an app user owns: how the app names it and how the gateway reaches it.
public struct OwnedCard: Sendable, Equatable {
    /// The public id the app uses in URLs (`/v1/cards/{cardId}`). Never the provider's id. It matches
    /// ``idPattern``: the directory file refuses any other, and the server answers 400 for any other in a path.
    public var id: String

    /// The rule for public card ids, as openapi.yaml states it: 1 to 64 of letters, digits, `.`, `_`, `~` and `-`,
    /// not starting with a dot (so never a dot segment).
    public static let idPattern = "^[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,63}$"

    /// Whether `id` matches ``idPattern``.
    public static func isValidID(_ id: String) -> Bool { isPathSafe(id, maxLength: 64) }

    /// A wallet token id the server accepts in a path: `^[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,127}$`.
    public static let tokenIDPattern = "^[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,127}$"

    /// Letters, digits and `._~-`, not starting with a dot, 1 to `maxLength` bytes.
    static func isPathSafe(_ id: String, maxLength: Int) -> Bool {
        let bytes = Array(id.utf8)
        guard (1...maxLength).contains(bytes.count), bytes[0] != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
                || byte == UInt8(ascii: "-")
        }
    }
    /// The card at its provider.
    public var ref: CardRef
    /// How the gateway picks the provider instance: usually `.key(RouteKey(issuer:program:bin:))` or `.instance(name)`.
    public var route: RouteTarget
    /// What the app shows ("Travel card").
    public var displayName: String
    /// The wallets the app offers for this card, in the order it shows them.
    public var wallets: [Wallet]

    /// - Parameters:
    ///   - id: the public card id used in URLs.
    ///   - ref: the card at its provider.
    ///   - route: how the gateway reaches the card's provider instance.
    ///   - displayName: what the app shows.
    ///   - wallets: the wallets the app offers for this card.
    public init(
        id: String, ref: CardRef, route: RouteTarget, displayName: String, wallets: [Wallet] = [.applePay, .googlePay]
    ) {
        self.id = id
        self.ref = ref
        self.route = route
        self.displayName = displayName
        self.wallets = wallets
    }
}

/// Who the app users are, which cards they own, and which stored credentials they hold.
///
/// The server asks the directory before anything reaches a provider: a card or a stored credential the
/// directory does not list for the authenticated user is answered with 404. Implement it over the app's own
/// user and card tables; ``InMemoryCardDirectory`` serves tests and examples.
public protocol CardDirectory: Sendable {
    /// The user a bearer token belongs to, or nil. Compare tokens in constant time (``Secret`` `==` does).
    func user(forToken token: String) async throws -> AppUser?
    /// The user with this id, or nil; what ``JWTBearerAuthenticator`` maps a token's user claim to. The default
    /// knows no user, so that a directory that does not implement it refuses every JWT.
    func user(id: String) async throws -> AppUser?
    /// Every card the user owns.
    func cards(of user: AppUser) async throws -> [OwnedCard]
    /// One of the user's cards by its public id; nil when the card is unknown or belongs to someone else.
    func card(_ id: String, of user: AppUser) async throws -> OwnedCard?
    /// Records a verified stored credential as the user's. Throws ``CardGatewayError`` `conflict` when the
    /// reference is already recorded for another user.
    func recordCredential(_ credential: StoredCredential, for user: AppUser) async throws
    /// The user's stored credentials, oldest first.
    func credentials(of user: AppUser) async throws -> [StoredCredential]
    /// One of the user's stored credentials by its provider reference; nil when unknown or someone else's.
    func credential(reference: String, of user: AppUser) async throws -> StoredCredential?
}

extension CardDirectory {
    /// No user: implement it to use bearer JWTs.
    public func user(id: String) async throws -> AppUser? { nil }

    /// Looks the reference up among ``credentials(of:)``; override it when the store can look it up directly.
    public func credential(reference: String, of user: AppUser) async throws -> StoredCredential? {
        try await credentials(of: user).first { $0.reference == reference }
    }
}

/// A directory kept in memory, seeded from values; for tests, examples and demos.
public final class InMemoryCardDirectory: CardDirectory {
    /// One user with their bearer token and cards.
    public struct Account: Sendable {
        /// The user.
        public var user: AppUser
        /// The user's bearer token, compared in constant time.
        public var token: Secret
        /// The user's cards; ids are unique per user.
        public var cards: [OwnedCard]

        /// - Parameters:
        ///   - user: the user.
        ///   - token: the bearer token the app sends for this user.
        ///   - cards: the cards the user owns.
        public init(user: AppUser, token: Secret, cards: [OwnedCard] = []) {
            self.user = user
            self.token = token
            self.cards = cards
        }
    }

    private struct CredentialRecord {
        var userID: String
        var credential: StoredCredential
    }

    private struct State {
        var accounts: [Account]
        var credentials: [String: CredentialRecord] = [:]
    }

    private let state: Mutex<State>

    /// - Parameter accounts: the users, their tokens and cards. Card ids are unique per user.
    public init(accounts: [Account]) {
        self.state = Mutex(State(accounts: accounts))
    }

    public func user(forToken token: String) async throws -> AppUser? {
        guard !token.isEmpty else { return nil }
        let candidate = Secret(token)
        return state.withLock { state in
            // Every token is compared, so the time taken does not tell which account (if any) matched.
            var found: AppUser?
            for account in state.accounts where account.token == candidate {
                found = account.user
            }
            return found
        }
    }

    public func user(id: String) async throws -> AppUser? {
        state.withLock { state in state.accounts.first { $0.user.id == id }?.user }
    }

    public func cards(of user: AppUser) async throws -> [OwnedCard] {
        state.withLock { state in state.accounts.first { $0.user.id == user.id }?.cards ?? [] }
    }

    public func card(_ id: String, of user: AppUser) async throws -> OwnedCard? {
        state.withLock { state in state.accounts.first { $0.user.id == user.id }?.cards.first { $0.id == id } }
    }

    public func recordCredential(_ credential: StoredCredential, for user: AppUser) async throws {
        try state.withLock { state in
            if let existing = state.credentials[credential.reference], existing.userID != user.id {
                throw CardGatewayError(.conflict, "the stored credential is already registered to another user")
            }
            state.credentials[credential.reference] = CredentialRecord(userID: user.id, credential: credential)
        }
    }

    public func credentials(of user: AppUser) async throws -> [StoredCredential] {
        state.withLock { state in
            state.credentials.values.filter { $0.userID == user.id }.map(\.credential)
                .sorted { ($0.created, $0.reference) < ($1.created, $1.reference) }
        }
    }

    public func credential(reference: String, of user: AppUser) async throws -> StoredCredential? {
        state.withLock { state in
            guard let record = state.credentials[reference], record.userID == user.id else { return nil }
            return record.credential
        }
    }

    /// Adds a card to a user's account (replacing a card with the same id). Does nothing for an unknown user.
    public func addCard(_ card: OwnedCard, toUser userID: String) {
        state.withLock { state in
            guard let index = state.accounts.firstIndex(where: { $0.user.id == userID }) else { return }
            state.accounts[index].cards.removeAll { $0.id == card.id }
            state.accounts[index].cards.append(card)
        }
    }

    /// Removes a card from a user's account.
    public func removeCard(_ cardID: String, fromUser userID: String) {
        state.withLock { state in
            guard let index = state.accounts.firstIndex(where: { $0.user.id == userID }) else { return }
            state.accounts[index].cards.removeAll { $0.id == cardID }
        }
    }
}
