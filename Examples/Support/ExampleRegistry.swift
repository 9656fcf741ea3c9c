import CardGateway

// The kit, and what the rooms add to its names (`EmbeddedSimulators.Instance.stripe`, `SampleInputs.issuerSDKOutput`…),
// wherever ExampleSupport is imported.
@_exported import CardGatewayExampleKit
@_exported import AdyenExamples
@_exported import BridgeExamples
@_exported import LithicExamples
@_exported import MarqetaExamples
@_exported import PaysafeExamples
@_exported import StripeExamples
@_exported import TrustPaymentsExamples

/// The rooms the example programs know, in the order their simulators start and their demo steps run: the one list
/// a new provider's room joins (with Package.swift's `providers`).
public enum ExampleRooms: Sendable {
    public static let all: [any ExampleRoom.Type] = [
        PaysafeExampleRoom.self, AdyenExampleRoom.self, StripeExampleRoom.self, BridgeExampleRoom.self,
        TrustPaymentsExampleRoom.self, MarqetaExampleRoom.self, LithicExampleRoom.self,
    ]
}

/// The adapters the example programs know: every room's.
///
/// A service of your own registers only the adapters it links, the same way:
/// `var registry = ProviderRegistry(); registry.register(.stripe)`.
public enum ExampleRegistry: Sendable {
    public static let all = ProviderRegistry(ExampleRooms.all.map { $0.factory })
}
