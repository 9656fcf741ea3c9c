import Foundation
import Testing

/// Every provider room follows the one template of `WritingAnAdapter.md` ("The room"): each file of
/// `Providers/<Name>/Adapter`, `Providers/<Name>/Simulator` and `Tests/<Name>Tests` is either a role of the template,
/// named `<Name>` + role, or listed under "Extras" in the provider's README; and the README has the template's
/// sections, in its order, "Unverified facts" last. The template is read from the article, so the two cannot drift.
@Suite("Provider rooms follow one template", .timeLimit(.minutes(1)))
struct RoomTemplateTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let providers = ["Paysafe", "Adyen", "Stripe", "Bridge", "TrustPayments", "Marqeta"]

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
                + Self.files(in: "Tests/\(provider)Tests")
        )
        #expect(
            extras.subtracting(present).isEmpty,
            "Providers/\(provider)/README.md lists missing extras: \(extras.subtracting(present).sorted())")
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
}
