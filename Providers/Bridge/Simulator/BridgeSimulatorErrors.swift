import CardGatewaySimulation
import Foundation

extension BridgeSimulator {
    /// Bridge's error body for `status`: 401 in the 401 examples' shape, 5xx in the 500 example's `errors[]`
    /// shape, anything else in schema `Error`.
    public func faultResponse(status: Int, message: String) -> SimulatedResponse {
        switch status {
        case 401: return BridgeSimulatorErrors.authentication(code: "invalid", message: message)
        case 500...599: return BridgeSimulatorErrors.unexpected(status: status, message: message)
        // The spec's only 404 example (NotFoundError) uses code "Invalid", as the simulator's own 404s do.
        case 404: return BridgeSimulatorErrors.error(404, code: "Invalid", message: message)
        case 429: return BridgeSimulatorErrors.error(429, code: "rate_limited", message: message)
        default: return BridgeSimulatorErrors.error(status, code: "invalid_request", message: message)
        }
    }
}

/// Bridge's three error shapes.
enum BridgeSimulatorErrors {
    /// Schema `Error`.
    static func error(
        _ status: Int, code: String, message: String, location: String? = nil, key: String? = nil
    ) -> SimulatedResponse {
        var body: [String: Any] = ["code": code, "message": message]
        if let location, let key { body["source"] = ["location": location, "key": key] }
        return .json(status, body)
    }

    /// The 401 examples: `location` and `name` at the top level.
    static func authentication(code: String, message: String) -> SimulatedResponse {
        .json(401, ["code": code, "location": "header", "name": "Api-Key", "message": message])
    }

    /// The 500 example: `{"errors":[{"code":"unexpected","message":…}]}`.
    static func unexpected(status: Int, message: String) -> SimulatedResponse {
        .json(status, ["errors": [["code": "unexpected", "message": message]]])
    }

    /// Body validation problems, answered together as one 400 whose `source.key` lists every field.
    struct Problems {
        var keys: [String] = []
        var messages: [String] = []
        var isEmpty: Bool { keys.isEmpty }

        mutating func add(_ key: String, _ message: String) {
            keys.append(key)
            messages.append(message)
        }

        var response: SimulatedResponse {
            BridgeSimulatorErrors.error(
                400, code: "invalid_parameters", message: messages.joined(separator: "; "), location: "body",
                key: keys.joined(separator: ","))
        }
    }
}
