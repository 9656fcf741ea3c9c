import ArgumentParser
import CardGatewayCLI

/// The `cardgateway` executable: the command tree lives in `CardGatewayCLI` so tests can drive it.
@main
extension CardGatewayCommand {}
