import Foundation
import Testing

/// Every provider room follows the one template of `WritingAnAdapter.md` ("The room"): each file of
/// `Providers/<Name>/Adapter`, `Simulator`, `Fuzz`, `Examples` and `Tests/<Name>Tests` is either a role of the template,
/// named `<Name>` + role, or listed under "Extras" in the provider's README; and the README has the template's
/// sections, in its order, "Unverified facts" last. The template is read from the article, so the two cannot drift.
@Suite("Provider rooms follow one template", .timeLimit(.minutes(1)))
struct RoomTemplateTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let providers = ["Paysafe", "Adyen", "Stripe", "Bridge", "TrustPayments", "Marqeta", "Lithic"]

    /// The file names of one of the article's tables (the one whose header names `folder`), with `<Name>` in place.
    static func roles(in folder: String) throws -> [String] {
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/CardGateway/CardGateway.docc/WritingAnAdapter.md"),
            encoding: .utf8
        )
        var names: [String] = []
        var inTable = false
        for line in article.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("| `\(folder)`") {
                inTable = true
                continue
            }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { break }
            let cell = line.split(separator: "|").first.map(String.init) ?? ""
            for piece in cell.split(separator: "`").enumerated() where piece.offset % 2 == 1 {
                let name = String(piece.element)
                if name.hasSuffix(".swift") || name.hasSuffix(".py") { names.append(name) }
            }
        }
        return names
    }

    /// The files named in the README's "Extras" section.
    static func extras(of provider: String) throws -> Set<String> {
        let readme = try String(
            contentsOf: root.appendingPathComponent("Providers/\(provider)/README.md"), encoding: .utf8)
        guard let start = readme.range(of: "\n## Extras") else { return [] }
        let section = readme[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        var names: Set<String> = []
        for piece in section[..<end].split(separator: "`").enumerated() where piece.offset % 2 == 1 {
            let name = piece.element.split(separator: "/").last.map(String.init) ?? ""
            if name.hasSuffix(".swift") || name.hasSuffix(".py") { names.insert(name) }
        }
        return names
    }

    static func files(in path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(path).path)
            .filter { $0.hasSuffix(".swift") || $0.hasSuffix(".py") }
            .sorted()
    }

    @Test(
        "the article's tables give every role a file name",
        arguments: ["Providers/<Name>/Adapter/", "Providers/<Name>/Simulator/", "Tests/<Name>Tests/"])
    func articleNamesRoles(folder: String) throws {
        let roles = try Self.roles(in: folder)
        #expect(roles.count >= 8, "\(folder): \(roles)")
        #expect(roles.allSatisfy { $0.hasPrefix("<Name>") || !$0.hasSuffix(".swift") }, "\(roles)")
    }

    @Test("every file of a room is a role of the template or an extra its README lists", arguments: providers)
    func filesFollowTheTemplate(provider: String) throws {
        let extras = try Self.extras(of: provider)
        for (folder, path) in [
            ("Providers/<Name>/Adapter/", "Providers/\(provider)/Adapter"),
            ("Providers/<Name>/Simulator/", "Providers/\(provider)/Simulator"),
            ("Tests/<Name>Tests/", "Tests/\(provider)Tests"),
            ("Providers/<Name>/Fuzz/", "Providers/\(provider)/Fuzz"),
            ("Providers/<Name>/Examples/", "Providers/\(provider)/Examples"),
        ] {
            let roles = Set(try Self.roles(in: folder).map { $0.replacingOccurrences(of: "<Name>", with: provider) })
            for file in try Self.files(in: path) {
                #expect(
                    roles.contains(file) || extras.contains(file),
                    "\(path)/\(file) is neither a role of WritingAnAdapter.md's template nor listed under Extras in Providers/\(provider)/README.md"
                )
            }
        }
        // Every extra the README lists exists, so the list cannot go stale.
        let present = Set(
            try Self.files(in: "Providers/\(provider)/Adapter") + Self.files(in: "Providers/\(provider)/Simulator")
                + Self.files(in: "Tests/\(provider)Tests") + Self.files(in: "Providers/\(provider)/Fuzz")
                + Self.files(in: "Providers/\(provider)/Examples")
        )
        #expect(
            extras.subtracting(present).isEmpty,
            "Providers/\(provider)/README.md lists missing extras: \(extras.subtracting(present).sorted())")
    }

    @Test(
        "every room brings its fuzz harnesses, corpus recorder and example room, so no shared file switches on it",
        arguments: providers)
    func roomBringsItsOwnPieces(provider: String) throws {
        for path in [
            "Providers/\(provider)/Fuzz/\(provider)FuzzHarnesses.swift",
            "Tests/\(provider)Tests/\(provider)FuzzCorpusTests.swift",
            "Providers/\(provider)/Examples/\(provider)ExampleRoom.swift",
            "Providers/\(provider)/Examples/\(provider)ExampleDemo.swift",
        ] {
            #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path), "\(path)")
        }
    }

    @Test("every provider README has the template's sections, in order, unverified facts last", arguments: providers)
    func readmeLayout(provider: String) throws {
        let readme = try String(
            contentsOf: Self.root.appendingPathComponent("Providers/\(provider)/README.md"), encoding: .utf8)
        let headings = readme.split(separator: "\n").filter { $0.hasPrefix("## ") }.map { String($0.dropFirst(3)) }
        let template = [
            "What the adapter does", "Lifecycle", "Wallet provisioning", "Card details and PIN", "Errors", "Webhooks",
            "Simulator",
            "Extras", "Unverified facts",
        ]
        #expect(headings == template, "Providers/\(provider)/README.md: \(headings)")
    }

    // MARK: What each role file holds, both ways

    /// Rooms with a known drift from the content rules below, and what it is: their failures are recorded as known
    /// issues, and once the room is fixed the known issue is not recorded, which fails the test until the entry goes.
    static let knownDrift: [String: String] = [:]

    /// Expects `problems` to be empty, as a known issue for a room listed in ``knownDrift``.
    static func expectNone(_ problems: [String], provider: String) {
        if let drift = knownDrift[provider] {
            withKnownIssue("\(provider): \(drift)") {
                #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
            }
        } else {
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    /// The Swift files of one folder, by name, as text.
    static func sources(_ path: String) throws -> [String: String] {
        var texts: [String: String] = [:]
        for file in try files(in: path) where file.hasSuffix(".swift") {
            texts[file] = try String(contentsOf: root.appendingPathComponent("\(path)/\(file)"), encoding: .utf8)
        }
        return texts
    }

    /// Whether `text` has a match of the regular expression `pattern` (`^` and `$` match at line ends).
    static func matches(_ pattern: String, _ text: String) -> Bool {
        text.range(of: "(?m)" + pattern, options: .regularExpression) != nil
    }

    /// The capabilities the descriptors of `<Name>Provider.swift` declare: every `.name` in their `capabilities:`
    /// arguments, read as text. `Capability.cardService` counts as the card service's listing, locking and
    /// cancellation (what the `Lifecycle` role serves).
    static func declaredCapabilities(_ provider: String) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(provider)
        while let start = rest.range(of: "capabilities:") {
            var depth = 0
            var argument = ""
            for character in rest[start.upperBound...] {
                if character == "(" || character == "[" { depth += 1 }
                if character == ")" || character == "]" { depth -= 1 }
                if depth < 0 || (depth == 0 && character == ",") { break }
                argument.append(character)
            }
            for piece in argument.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == ".") }) {
                if piece.hasPrefix(".") { names.insert(String(piece.dropFirst())) }
                if piece.hasSuffix("cardService") {
                    names.formUnion(["cardListing", "cardLocking", "cardCancellation"])
                }
            }
            rest = rest[start.upperBound...]
        }
        return names
    }

    /// One rule: the files of `texts` that match `pattern` must be among `allowed` (a role's work sits in its file),
    /// and when `required`, the first of `allowed` must match it (the role file holds its role).
    static func placement(
        _ texts: [String: String], _ pattern: String, allowed: [String], required: Bool, rule: String, folder: String
    ) -> [String] {
        var problems: [String] = []
        for (file, text) in texts.sorted(by: { $0.key < $1.key })
        where !allowed.contains(file) && matches(pattern, text) {
            problems.append("\(folder)/\(file): \(rule), not here (only in \(allowed.joined(separator: " or ")))")
        }
        if required, let home = allowed.first, !matches(pattern, texts[home] ?? "") {
            problems.append("\(folder)/\(home): \(rule), missing")
        }
        return problems
    }

    @Test("each adapter role file holds its role, and no other file does its work", arguments: providers)
    func adapterRoles(provider p: String) throws {
        let folder = "Providers/\(p)/Adapter"
        let texts = try Self.sources(folder)
        func rule(_ pattern: String, _ allowed: [String], required: Bool = false, _ what: String) -> [String] {
            Self.placement(
                texts, pattern, allowed: allowed.map { "\(p)\($0).swift" }, required: required, rule: what,
                folder: folder)
        }
        var problems: [String] = []
        problems += rule(
            #"^(public |@_spi\(\w+\) public )?(final )?(struct|class|actor) \#(p)Provider\b"#, ["Provider"],
            required: true, "the adapter type \(p)Provider is declared")
        problems += rule(#"ProviderDescriptor\("#, ["Provider"], required: true, "the ProviderDescriptor is made")
        problems += rule(#"^extension ProviderFactory\b"#, ["Configuration"], required: true, "the ProviderFactory")
        problems += rule(#"ProviderKind\("#, ["Configuration"], required: true, "the ProviderKind")
        problems += rule(
            #"^enum \#(p)Errors\b"#, ["Errors"], required: true, "the error table enum \(p)Errors (not public)")
        problems += rule(
            #"^\s*(public |package |@_spi\(\w+\) public )?(enum|struct|class) \w*(Errors|ErrorTable|ErrorMapping)\b"#,
            ["Errors"], "an error table")
        problems += rule(
            #"^\s*((private|fileprivate|internal) )?struct \w+(<[^>]*>)?\s*:[^{\n]*\b(Codable|Decodable|Encodable)\b"#,
            ["Wire"], "a Codable wire struct")
        problems += rule(
            #"func (listCards\(_ \w+: CardQuery|changeStatus\(|changeWalletToken\(|walletTokens\(of )"#, ["Lifecycle"],
            "listing, lock, unlock, cancel or a wallet-token transition")
        problems += rule(#"func (revealOffer|revealSession)\("#, ["CardReveal"], "card details and PIN (CardReveal)")
        problems += rule(
            #"func authorization\(from \w+: WebhookDelivery"#, ["Authorizations"],
            "a real-time authorization (AuthorizationResponding)")
        problems += rule(
            #"func verify\(_ \w+: WebhookDelivery, now: Date\) throws -> \[GatewayEvent\]"#, ["Webhooks", "Provider"],
            "WebhookVerifying's verify(_:now:)")
        problems += rule(
            #"func (offer\(for \w+: CardRef, wallet:|provision\(_ \w+: ProvisioningRequest, context:)"#,
            ["Provisioning", "Provider"], "wallet provisioning")
        Self.expectNone(problems, provider: p)
    }

    @Test("each simulator role file holds its role, and no other file does its work", arguments: providers)
    func simulatorRoles(provider p: String) throws {
        let folder = "Providers/\(p)/Simulator"
        let texts = try Self.sources(folder)
        func rule(_ pattern: String, _ allowed: [String], required: Bool = false, _ what: String) -> [String] {
            Self.placement(
                texts, pattern, allowed: allowed.map { "\(p)Simulator\($0).swift" }, required: required, rule: what,
                folder: folder)
        }
        var problems: [String] = []
        problems += rule(
            #"^public struct \#(p)Simulator: ProviderSimulator\b"#, [""], required: true, "the ProviderSimulator")
        problems += rule(#"func registerRoutes\(on "#, [""], required: true, "the route table (registerRoutes)")
        problems += rule(#"router\.(get|post|put|patch|delete|head|on)\("#, [""], "a route")
        problems += rule(#"var (sensitiveHeaderNames|sensitiveBodyFields)\b"#, [""], "journal masking")
        problems += rule(#"^\s*(public )?enum \w*Errors\b"#, ["Errors"], "an error table")
        Self.expectNone(problems, provider: p)
    }

    @Test(
        "a declared capability has its role files, and a role file exists only for a declared capability",
        arguments: providers)
    func capabilitiesHaveRoleFiles(provider p: String) throws {
        let adapter = try Self.sources("Providers/\(p)/Adapter")
        let simulator = try Self.sources("Providers/\(p)/Simulator")
        let declared = Self.declaredCapabilities(adapter["\(p)Provider.swift"] ?? "")
        #expect(!declared.isEmpty, "Providers/\(p)/Adapter/\(p)Provider.swift: no capabilities: argument read")
        let roles: [(files: [String], capabilities: Set<String>, bothWays: Bool)] = [
            (["Adapter/\(p)Webhooks.swift", "Simulator/\(p)SimulatorWebhooks.swift"], ["webhooks"], true),
            (
                ["Adapter/\(p)Authorizations.swift", "Simulator/\(p)SimulatorAuthorizations.swift"], ["authorizations"],
                true
            ),
            (
                ["Adapter/\(p)CardReveal.swift", "Simulator/\(p)SimulatorCardReveal.swift"],
                ["cardDetailsReveal", "pinReveal", "pinChange"], true
            ),
            (
                ["Adapter/\(p)Lifecycle.swift"],
                ["cardListing", "cardLocking", "cardCancellation", "walletTokenListing", "walletTokenControl"], true
            ),
            // Provisioning may be a call in <Name>Provider.swift (the template's words), so only one way.
            (["Adapter/\(p)Provisioning.swift"], ["walletProvisioning"], false),
        ]
        for role in roles {
            let isDeclared = !declared.isDisjoint(with: role.capabilities)
            for file in role.files {
                let name = String(file.split(separator: "/").last ?? "")
                let exists = file.hasPrefix("Adapter/") ? adapter[name] != nil : simulator[name] != nil
                if exists {
                    #expect(
                        isDeclared,
                        "Providers/\(p)/\(file) exists, but \(p)Provider's descriptor declares none of \(role.capabilities.sorted())"
                    )
                } else if role.bothWays {
                    #expect(
                        !isDeclared,
                        "Providers/\(p)/\(file) is missing for \(declared.intersection(role.capabilities).sorted()), which \(p)Provider's descriptor declares"
                    )
                }
            }
        }
    }

    @Test(
        "the main files stay small: <Name>Provider.swift and <Name>Simulator.swift at most 400 lines",
        arguments: providers)
    func mainFilesStaySmall(provider p: String) throws {
        for file in ["Providers/\(p)/Adapter/\(p)Provider.swift", "Providers/\(p)/Simulator/\(p)Simulator.swift"] {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(lines <= 400, "\(file): \(lines) lines, more than 400: move work to the role files")
        }
    }
}
