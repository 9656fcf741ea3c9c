import CardGatewayFuzzHarnesses
import Foundation
import Testing

/// Every file of the seed corpus (`Fuzz/Corpus/<target>/`) and every crash the fuzzers ever found
/// (`Fuzz/Regressions/<target>/`) runs through its harness in plain `swift test`, so that a crash fixed once
/// stays fixed without a libFuzzer build.
@Suite("Fuzz regressions", .timeLimit(.minutes(5)))
struct FuzzRegressionTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    static func files(_ kind: String, target: String) -> [URL] {
        let folder = fuzzFolder.appendingPathComponent(kind).appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// Runs the inputs on a thread of their own: the harnesses wait for their async work with a semaphore,
    /// which must not block a thread of the cooperative pool.
    static func runOffPool(_ target: FuzzTargets.Target, _ inputs: [Data]) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                for input in inputs { target.run(input) }
                done.resume()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    @Test(
        "every target has a seed corpus, and every corpus and regression input runs without a crash",
        arguments: FuzzTargets.all.map(\.name))
    func corpusAndRegressions(_ name: String) async throws {
        let target = try #require(FuzzTargets.target(named: name))
        let corpus = Self.files("Corpus", target: name)
        #expect(!corpus.isEmpty, "Fuzz/Corpus/\(name)/ is empty")
        let inputs = try (corpus + Self.files("Regressions", target: name)).map { try Data(contentsOf: $0) }
        await Self.runOffPool(target, inputs)
    }

    @Test("the corpus folders name only known targets")
    func foldersNameTargets() {
        let known = Set(FuzzTargets.all.map(\.name))
        for kind in ["Corpus", "Regressions"] {
            let folders =
                (try? FileManager.default.contentsOfDirectory(atPath: Self.fuzzFolder.appendingPathComponent(kind).path))
                ?? []
            for folder in folders where !folder.hasPrefix(".") {
                #expect(known.contains(folder), "Fuzz/\(kind)/\(folder) is not a fuzz target")
            }
        }
    }
}
