import AdyenFuzz
import BridgeFuzz
import CardGatewayFuzzSupport
import Foundation
import LithicFuzz
import MarqetaFuzz
import PaysafeFuzz
import StripeFuzz
import TrustPaymentsFuzz

/// Every fuzz target by name: the name is the libFuzzer target's (`scripts/fuzz <name>`), the folder of its
/// seed corpus (`Fuzz/Corpus/<name>/`) and of its regressions (`Fuzz/Regressions/<name>/`).
public enum FuzzTargets {
    public typealias Target = FuzzTarget

    /// One line a room: the targets its `Providers/<Name>/Fuzz` brings (`FuzzTarget.<name>`, in
    /// `<Name>FuzzHarnesses.swift`).
    static let rooms: [[FuzzTarget]] = [
        FuzzTarget.paysafe,
        FuzzTarget.adyen,
        FuzzTarget.stripe,
        FuzzTarget.bridge,
        FuzzTarget.trustPayments,
        FuzzTarget.marqeta,
        FuzzTarget.lithic,
    ]

    public static let all: [Target] =
        rooms.flatMap { $0 } + [
            Target(
                name: "configuration", summary: "configuration loading, validation and every adapter's checks",
                run: ConfigurationHarness.run),
            Target(
                name: "internet-date-time",
                summary: "the RFC 3339 reader InternetDateTime: no trap; what it reads reads back from what it writes",
                run: InternetDateTimeHarness.run),
        ]

    public static func target(named name: String) -> Target? { all.first { $0.name == name } }
}
