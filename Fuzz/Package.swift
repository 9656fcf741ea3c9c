// swift-tools-version: 5.4
import PackageDescription

// The libFuzzer executable for CardGateway (docs/RELIABILITY.md, "Fuzzing"). Build and run it with
//
//     scripts/fuzz [seconds] [target…]
//
// which builds with
//
//     swift build --package-path Fuzz --scratch-path .build-fuzz -c debug --product cardgateway-fuzz \
//         -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,indirect-calls,trace-cmp,pc-table,inline-8bit-counters \
//         -Xcc -fsanitize=address -Xswiftc -use-ld=lld
//
// That is `-sanitize=fuzzer,address` taken apart. Every Swift target gets AddressSanitizer and the coverage
// instrumentation libFuzzer reads (what -sanitize=fuzzer turns on); the C targets (swift-crypto's BoringSSL)
// get AddressSanitizer; lld links instead of gold. Only this executable links libFuzzer itself and is compiled
// with -parse-as-library (the unsafe flags below). The reason: SwiftPM builds the root package's build-tool
// plugin executable (swift-openapi-generator's, for the provisioning server) whatever --product says, with the
// same -Xswiftc flags. Given -sanitize=fuzzer and -parse-as-library, its link pulled in libFuzzer's `main` and
// failed (undefined LLVMFuzzerTestOneInput), and gold crashed while reporting that: the
// "ld.gold: internal error in format_file_lineno" seen in CI.
//
// A separate package so that the root package's normal build never needs the sanitizers. One executable serves
// every target (CARDGATEWAY_FUZZ_TARGET picks it): one link instead of thirteen.
//
// Why tools version 5.4: from 5.5 on, SwiftPM compiles an executable's entry point under another name
// (`cardgateway_fuzz_main`) and asks the linker to alias `main` to it. Built with -parse-as-library there is no
// entry point (libFuzzer brings `main`), so that link fails with "undefined symbol 'cardgateway_fuzz_main'".
// With 5.4 SwiftPM does not rename, and libFuzzer's `main` links as it should. Swift 6 language mode and
// warnings as errors are still set below.

let package = Package(
    name: "CardGatewayFuzz",
    platforms: [.macOS("15.0")],
    dependencies: [
        .package(name: "CardGateway", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "cardgateway-fuzz",
            dependencies: [.product(name: "CardGatewayFuzzHarnesses", package: "CardGateway")],
            swiftSettings: [
                .unsafeFlags(["-warnings-as-errors", "-enable-upcoming-feature", "ExistentialAny", "-parse-as-library"])
            ],
            // libFuzzer (its `main` drives LLVMFuzzerTestOneInput) and the AddressSanitizer runtime, here only.
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]
        )
    ],
    swiftLanguageVersions: [.version("6")]
)
