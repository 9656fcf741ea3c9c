import CardGatewayFuzzHarnesses
import Foundation

// libFuzzer's entry points. Linked with -sanitize=fuzzer,address (Fuzz/Package.swift), libFuzzer supplies `main`;
// -parse-as-library keeps this file free of top-level code. CARDGATEWAY_FUZZ_TARGET names the harness
// (FuzzTargets.all).

/// The harness this process fuzzes, chosen once at start-up.
private let selected: FuzzTargets.Target = {
    let name = ProcessInfo.processInfo.environment["CARDGATEWAY_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTargets.target(named: name) else {
        let names = FuzzTargets.all.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("set CARDGATEWAY_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    _ = selected
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    selected.run(data)
    return 0
}
