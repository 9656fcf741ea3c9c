import CardGateway
import Testing

/// Helpers every test target shares (a plain target, not a product: it imports Swift Testing).

/// Runs `body` and returns the ``CardGatewayError`` it throws; records an issue when it throws nothing or
/// throws another error.
public func gatewayError(
    _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
) async -> CardGatewayError? {
    do {
        try await body()
        Issue.record("expected a CardGatewayError, nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch {
        return capturedGatewayError(error, sourceLocation: sourceLocation)
    }
}

/// The same for synchronous code.
public func gatewayError(
    _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
) -> CardGatewayError? {
    do {
        try body()
        Issue.record("expected a CardGatewayError, nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch {
        return capturedGatewayError(error, sourceLocation: sourceLocation)
    }
}

private func capturedGatewayError(_ error: any Error, sourceLocation: SourceLocation) -> CardGatewayError? {
    if let error = error as? CardGatewayError { return error }
    Issue.record("expected a CardGatewayError, got \(type(of: error))", sourceLocation: sourceLocation)
    return nil
}
