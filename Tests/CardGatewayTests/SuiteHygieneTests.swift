import Foundation
import Testing

/// Issue 38: every suite has a time limit, so a test that hangs fails by itself instead of holding CI until its
/// 90 minutes run out. Read from the test sources, so a new suite without one fails here.
@Suite("Every test suite has a time limit", .timeLimit(.minutes(1)))
struct SuiteHygieneTests {
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    @Test("every @Suite attribute carries .timeLimit")
    func everySuiteHasATimeLimit() throws {
        let files = try #require(FileManager.default.enumerator(at: Self.tests, includingPropertiesForKeys: nil))
        var checked = 0
        var missing: [String] = []
        for case let url as URL in files where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            for (number, code) in lines.enumerated() where code.hasPrefix("@Suite") {
                checked += 1
                // The attribute, which swift-format may spread over several lines: up to the declaration it marks.
                let attribute = lines[number...].prefix { line in
                    !["struct ", "final class ", "class ", "enum ", "extension ", "actor "].contains {
                        line.hasPrefix($0)
                    }
                }
                if !attribute.contains(where: { $0.contains(".timeLimit(") }) {
                    missing.append("\(url.lastPathComponent):\(number + 1)")
                }
            }
        }
        #expect(checked > 100, "found only \(checked) suites under \(Self.tests.path)")
        #expect(missing.isEmpty, "suites without a time limit: \(missing)")
    }
}
