import CardGateway
import Foundation

/// Loads an ``InMemoryCardDirectory`` from a JSON file: the app's users, their bearer tokens (as secret
/// references) and their cards. For a small deployment or a staging server; a production app implements
/// ``CardDirectory`` over its own user and card tables.
///
/// ```json
/// {
///   "users": [
///     { "id": "alice", "displayName": "Alice", "token": "env:ALICE_APP_TOKEN",
///       "cards": [
///         { "id": "travel", "displayName": "Travel card", "cardID": "11111111-0000-4000-8000-000000000001",
///           "customer": "cust-eu-1001", "route": { "issuer": "paysafe-eu" }, "wallets": ["applePay", "googlePay"] },
///         { "id": "us", "displayName": "US card", "cardID": "ic_1SimActiveEligible000000", "provider": "us-issuing" }
///       ] }
///   ]
/// }
/// ```
///
/// A card names either `route` (any of `issuer`, `program`, `bin`, `country`, `currency`, `tenant`) or
/// `provider` (an instance name). `wallets` defaults to both Apple Pay and Google Pay. Tokens take the forms of
/// the gateway configuration's credentials: `env:NAME`, `file:PATH` or `literal:VALUE` (tests only), and must be
/// at least 16 characters. Every problem is reported at once, each with its JSON path; no value of a token is
/// ever part of a message.
public enum CardDirectoryFile: Sendable {
    /// The shortest bearer token accepted.
    public static let minimumTokenLength = 16

    public static func load(
        contentsOf url: URL, secrets: SecretResolver = SecretResolver()
    ) throws -> InMemoryCardDirectory {
        let data = try read(url)
        var resolver = secrets
        if resolver.baseDirectory == nil { resolver.baseDirectory = url.deletingLastPathComponent() }
        return InMemoryCardDirectory(accounts: try accounts(from: data, secrets: resolver))
    }

    /// The file's bytes, or a configuration problem at `$`.
    public static func read(_ url: URL) throws -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw ConfigurationError(problems: [
                ConfigurationProblem(path: "$", message: "the file \(url.path) cannot be read")
            ])
        }
    }

    /// Every card route (and the stored-credential route) that the gateway cannot serve, with the document path of
    /// the card: checked at startup, so that the server's own data never surfaces as a client's 400 later.
    public static func routeProblems(
        _ accounts: [InMemoryCardDirectory.Account], gateway: CardGateway, storedCredentialRoute: RouteTarget?
    ) -> [ConfigurationProblem] {
        var problems: [ConfigurationProblem] = []
        func check(_ route: RouteTarget, _ operation: GatewayOperation, _ path: String) {
            do {
                _ = try gateway.resolve(route, operation: operation)
            } catch let error as CardGatewayError {
                problems.append(ConfigurationProblem(path: path, message: "\(operation.rawValue): \(error.message)"))
            } catch {
                problems.append(
                    ConfigurationProblem(path: path, message: "\(operation.rawValue): the route cannot be resolved"))
            }
        }
        for (userIndex, account) in accounts.enumerated() {
            for (cardIndex, card) in account.cards.enumerated() {
                let path = "users[\(userIndex)].cards[\(cardIndex)]"
                check(card.route, .card, path)
                // Offers and provisioning route with the wallet in the key, as the gateway's facade does.
                for wallet in card.wallets {
                    var target = card.route
                    if case .key(var key) = target, key.wallet == nil {
                        key.wallet = wallet
                        target = .key(key)
                    }
                    for operation in [GatewayOperation.provisioningOffer, .provision] {
                        check(target, operation, "\(path).wallets.\(wallet.rawValue)")
                    }
                }
            }
        }
        if let storedCredentialRoute {
            for operation in [GatewayOperation.clientSession, .verifyResult] {
                check(storedCredentialRoute, operation, "--stored-credentials-provider")
            }
        }
        return problems
    }

    /// The accounts a directory document describes.
    public static func accounts(
        from data: Data, secrets: SecretResolver = SecretResolver()
    ) throws -> [InMemoryCardDirectory.Account] {
        var problems: [ConfigurationProblem] = []
        func problem(_ path: String, _ message: String) {
            problems.append(ConfigurationProblem(path: path, message: message))
        }

        guard let document = try? JSONValue.parse(data), let root = document.objectValue else {
            throw ConfigurationError(problems: [
                ConfigurationProblem(path: "$", message: "the document is not a JSON object")
            ])
        }
        for key in root.keys.sorted() where key != "users" { problem(key, "unknown key; expected users") }
        guard let users = root["users"]?.arrayValue else {
            problem("users", "required: an array of users")
            throw ConfigurationError(problems: problems)
        }

        var accounts: [InMemoryCardDirectory.Account] = []
        var userIDs = Set<String>()
        var tokens: [(path: String, token: Secret)] = []
        for (index, value) in users.enumerated() {
            let path = "users[\(index)]"
            guard let user = value.objectValue else {
                problem(path, "must be an object")
                continue
            }
            for key in user.keys.sorted() where !["id", "displayName", "token", "cards"].contains(key) {
                problem("\(path).\(key)", "unknown key; expected id, displayName, token or cards")
            }
            let id = requiredString(user, "id", path, &problems)
            if let id {
                if !userIDs.insert(id).inserted { problem("\(path).id", "user \(id) is listed twice") }
            }
            var token: Secret?
            if let text = requiredString(user, "token", path, &problems) {
                if let reference = SecretReference(parsing: text) {
                    switch secrets.resolve(reference) {
                    case .success(let resolved):
                        if resolved.revealedValue.count < minimumTokenLength {
                            problem("\(path).token", "must be at least \(minimumTokenLength) characters")
                        } else {
                            token = resolved
                        }
                    case .failure(let failure):
                        problem("\(path).token", failure.message)
                    }
                } else {
                    problem("\(path).token", "must be a secret reference: env:NAME, file:PATH or literal:VALUE")
                }
            }
            if let token {
                if let earlier = tokens.first(where: { $0.token == token }) {
                    problem("\(path).token", "the same token as \(earlier.path); every user needs their own")
                }
                tokens.append(("\(path).token", token))
            }
            let displayName = optionalString(user, "displayName", path, &problems)
            let cards = cardList(user["cards"], "\(path).cards", &problems)
            if let id, let token {
                accounts.append(
                    InMemoryCardDirectory.Account(
                        user: AppUser(id: id, displayName: displayName), token: token, cards: cards))
            }
        }
        guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
        return accounts
    }

    private static let routeDimensions = ["issuer", "program", "bin", "country", "currency", "tenant"]

    private static func cardList(
        _ value: JSONValue?, _ path: String, _ problems: inout [ConfigurationProblem]
    ) -> [OwnedCard] {
        guard let value else { return [] }
        guard let entries = value.arrayValue else {
            problems.append(ConfigurationProblem(path: path, message: "must be an array of cards"))
            return []
        }
        var cards: [OwnedCard] = []
        var ids = Set<String>()
        for (index, entry) in entries.enumerated() {
            let cardPath = "\(path)[\(index)]"
            guard let card = entry.objectValue else {
                problems.append(ConfigurationProblem(path: cardPath, message: "must be an object"))
                continue
            }
            let known = ["id", "displayName", "cardID", "customer", "route", "provider", "wallets"]
            for key in card.keys.sorted() where !known.contains(key) {
                problems.append(
                    ConfigurationProblem(
                        path: "\(cardPath).\(key)", message: "unknown key; expected \(known.joined(separator: ", "))"))
            }
            let id = requiredString(card, "id", cardPath, &problems)
            if let id, !OwnedCard.isValidID(id) {
                problems.append(
                    ConfigurationProblem(
                        path: "\(cardPath).id",
                        message: "must match \(OwnedCard.idPattern) (it is the card's id in URLs)"))
            }
            if let id, !ids.insert(id).inserted {
                problems.append(
                    ConfigurationProblem(path: "\(cardPath).id", message: "card \(id) is listed twice for this user"))
            }
            let cardID = requiredString(card, "cardID", cardPath, &problems)
            let customer = optionalString(card, "customer", cardPath, &problems)
            let displayName = optionalString(card, "displayName", cardPath, &problems)
            let route = target(card, cardPath, &problems)
            var wallets: [Wallet] = [.applePay, .googlePay]
            if let listed = card["wallets"] {
                if let names = listed.arrayValue, !names.isEmpty {
                    wallets = []
                    for (walletIndex, name) in names.enumerated() {
                        guard let text = name.stringValue, let wallet = Wallet(parsing: text) else {
                            problems.append(
                                ConfigurationProblem(
                                    path: "\(cardPath).wallets[\(walletIndex)]",
                                    message: "must be applePay, googlePay or samsungPay"))
                            continue
                        }
                        if !wallets.contains(wallet) { wallets.append(wallet) }
                    }
                } else {
                    problems.append(
                        ConfigurationProblem(
                            path: "\(cardPath).wallets", message: "must be a non-empty array of wallet names"))
                }
            }
            if let id, let cardID, let route {
                cards.append(
                    OwnedCard(
                        id: id, ref: CardRef(id: cardID, customer: customer), route: route,
                        displayName: displayName ?? id, wallets: wallets))
            }
        }
        return cards
    }

    private static func target(
        _ card: [String: JSONValue], _ path: String, _ problems: inout [ConfigurationProblem]
    ) -> RouteTarget? {
        switch (card["route"], card["provider"]) {
        case (nil, let provider?):
            guard let name = provider.stringValue, !name.isEmpty else {
                problems.append(
                    ConfigurationProblem(path: "\(path).provider", message: "must be a provider instance name"))
                return nil
            }
            return .instance(name)
        case (let route?, nil):
            guard let fields = route.objectValue, !fields.isEmpty else {
                problems.append(
                    ConfigurationProblem(
                        path: "\(path).route",
                        message: "must be an object with at least one of \(routeDimensions.joined(separator: ", "))"))
                return nil
            }
            var key = RouteKey()
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
                guard routeDimensions.contains(name) else {
                    problems.append(
                        ConfigurationProblem(
                            path: "\(path).route.\(name)",
                            message: "unknown route dimension; expected \(routeDimensions.joined(separator: ", "))"))
                    continue
                }
                guard let text = value.stringValue, !text.isEmpty else {
                    problems.append(
                        ConfigurationProblem(path: "\(path).route.\(name)", message: "must be a non-empty string"))
                    continue
                }
                switch name {
                case "issuer": key.issuer = text
                case "program": key.program = text
                case "bin": key.bin = text
                case "country": key.country = text
                case "currency": key.currency = text
                default: key.tenant = text
                }
            }
            return .key(key)
        case (nil, nil):
            problems.append(
                ConfigurationProblem(path: path, message: "needs route or provider: how the gateway reaches the card"))
            return nil
        case (_?, _?):
            problems.append(ConfigurationProblem(path: path, message: "give route or provider, not both"))
            return nil
        }
    }

    private static func requiredString(
        _ object: [String: JSONValue], _ key: String, _ path: String, _ problems: inout [ConfigurationProblem]
    ) -> String? {
        guard let value = object[key] else {
            problems.append(ConfigurationProblem(path: "\(path).\(key)", message: "required"))
            return nil
        }
        guard let text = value.stringValue, !text.isEmpty else {
            problems.append(ConfigurationProblem(path: "\(path).\(key)", message: "must be a non-empty string"))
            return nil
        }
        return text
    }

    private static func optionalString(
        _ object: [String: JSONValue], _ key: String, _ path: String, _ problems: inout [ConfigurationProblem]
    ) -> String? {
        guard object[key] != nil else { return nil }
        return requiredString(object, key, path, &problems)
    }
}
