import CardGatewaySimulation
import Foundation

/// Paysafe's error bodies as the simulator writes them.
///
/// Error codes: `5269`, `5068`, `5023`, `5279` and `5275` are Paysafe's. Every `DW-…` and `SIM-…` code (`DW-CARD-*`,
/// `DW-SCA-*`, `DW-SECURE-LINK-*`, `SIM-SIGNATURE-INVALID`) is the simulator's own: Paysafe publishes no code for these
/// refusals, and the adapter keys no row on them (they map by their HTTP status).
enum PaysafeSimulatorErrors {
    static let fieldErrorDetail =
        "Either you submitted a request that is missing a mandatory field or the value of a field does not match the format expected."

    /// `{"error":{"code","message","details","fieldErrors"}}`.
    static func error(
        _ status: Int, _ code: String, _ message: String, details: [String]? = nil, fieldErrors: [(String, String)] = []
    ) -> SimulatedResponse {
        var body: [String: Any] = ["code": code, "message": message]
        if let details { body["details"] = details }
        if !fieldErrors.isEmpty { body["fieldErrors"] = fieldErrors.map { ["field": $0.0, "error": $0.1] } }
        return SimulatedResponse.json(status, ["error": body])
    }

    static func fieldErrors(_ errors: [(String, String)]) -> SimulatedResponse {
        error(400, "5068", "Field error(s)", details: [fieldErrorDetail], fieldErrors: errors)
    }

    static func notFound(_ what: String) -> SimulatedResponse {
        error(
            404, "5269", "The ID(s) specified in the URL do not correspond to the values in the system.",
            details: [what])
    }

    static func unauthorized(_ message: String) -> SimulatedResponse {
        error(401, "5279", message)
    }

    /// An expired access token: 401 with `5275` (expired credentials, Paysafe's error catalogue).
    static let expired = error(401, "5275", "The authentication credentials have expired.")

    static let notParseable = error(400, "5023", "You submitted a request that is not parseable.")
}

/// A response that ends a handler early.
struct PaysafeSimulatorFailure: Error {
    var response: SimulatedResponse
    init(_ response: SimulatedResponse) { self.response = response }
}

extension Result where Failure == PaysafeSimulatorFailure {
    /// The early response of a failure (a 500 if called on a success, which no handler does).
    var failureResponse: SimulatedResponse {
        if case .failure(let error) = self { return error.response }
        return PaysafeSimulatorErrors.error(500, "500", "Internal simulator error.")
    }
}
