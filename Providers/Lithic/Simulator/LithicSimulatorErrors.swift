import CardGatewaySimulation
import Foundation

/// Lithic's error body, `error` in the document: `{"message", "debugging_request_id"}` (both required; the id a
/// UUID). Lithic documents statuses and messages, no codes; the messages below are the document's where it gives one
/// (`components/responses/Unauthorized`), the simulator's own otherwise (*unconfirmed*, see the README).
public enum LithicSimulatorErrors: Sendable {
    /// `Unauthorized`: "Please provide API key in Authorization header" (no header).
    public static let missingKey = "Please provide API key in Authorization header"
    /// `Unauthorized`: "Could not find API key" (an unknown key).
    public static let unknownKey = "Could not find API key"

    /// The error body; the request id is derived from the message and status, so answers are reproducible.
    static func body(_ status: Int, _ message: String) -> SimulatedResponse {
        let digest = LithicSimulator.hexDigest("error|\(status)|\(message)", count: 32)
        let chars = Array(digest)
        let id =
            String(chars[0..<8]) + "-" + String(chars[8..<12]) + "-4" + String(chars[13..<16]) + "-8"
            + String(chars[17..<20]) + "-" + String(chars[20..<32])
        return .json(status, ["message": message, "debugging_request_id": id])
    }
}

/// A refusal in Lithic's shape, thrown inside handlers.
struct LithicSimulatorFailure: Error {
    var response: SimulatedResponse
}
