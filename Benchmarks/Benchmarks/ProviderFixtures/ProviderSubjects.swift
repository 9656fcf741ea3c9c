import CardGateway
// The benchmark subjects' types (ProviderSubject, BenchOperation, CardOperations) are the example kit's, named by
// every target that imports ProviderFixtures.
@_exported import CardGatewayExampleKit
import ExampleSupport

struct FixtureFailure: Error, CustomStringConvertible {
    var description: String
}

// Each room brings its subject (Providers/<Name>/Examples/<Name>ExampleBenchmark.swift, issue 46); the providers
// benchmarked are the rooms of `ExampleRooms.all` that give one, in its order.
extension ProviderSubject {
    /// The providers of the per-call benchmarks, each with a fresh simulator.
    public static func all() -> [ProviderSubject] {
        ExampleRooms.all.filter { !$0.benchmarkLiveOnly }.compactMap { $0.benchmarkSubject() }
    }

    /// The subject of one provider of ``liveKinds``, with a fresh simulator.
    public static func named(_ kind: String) -> ProviderSubject? {
        ExampleRooms.all.first { $0.kind == kind }?.benchmarkSubject()
    }

    /// The providers of the per-call benchmarks (adapter/, gateway/, their thresholds).
    public static let kinds = all().map(\.kind)

    /// The providers of the benchmarks on a live simulator (e2e/, load/): every room's subject, the per-call
    /// benchmarks' first.
    public static let liveKinds =
        kinds + ExampleRooms.all.filter { $0.benchmarkLiveOnly }.compactMap { $0.benchmarkSubject()?.kind }

    /// Every benchmarked operation of one provider, by name (without building a simulator's answers).
    public static func operationNames(_ kind: String) -> [String] { named(kind)?.operations.map(\.name) ?? [] }
}
