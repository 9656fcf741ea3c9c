// swift-tools-version: 5.4
import PackageDescription

// The libFuzzer executable for CardGateway (docs/RELIABILITY.md, "Fuzzing"). Build and run it with
//
//     scripts/fuzz [seconds] [target…]
//
// which builds with
//
//     swift build --package-path Fuzz --scratch-path .build-fuzz -c debug \
//         -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library
//
// A separate package so that the root package's normal build never needs -sanitize=fuzzer. One executable
// serves every target (CARDGATEWAY_FUZZ_TARGET picks it): one link instead of eleven.
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
        .package(name: "CardGateway", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "cardgateway-fuzz",
            dependencies: [.product(name: "CardGatewayFuzzHarnesses", package: "CardGateway")],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors", "-enable-upcoming-feature", "ExistentialAny"])]
        ),
    ],
    swiftLanguageVersions: [.version("6")]
)
