import CardGatewaySimulation
import Foundation

extension StripeSimulator {
    /// Stripe's error body for a fault: 5xx as `api_error`, 429 as `rate_limit`, 402 as `card_error`, the rest as
    /// `invalid_request_error`; with a `Request-Id`.
    public func faultResponse(status: Int, message: String) -> SimulatedResponse {
        let error: StripeSimulatorFailure
        switch status {
        case 402:
            error = StripeSimulatorFailure(
                status: status, type: "card_error", code: "card_declined", message: message, param: nil)
        case 404 where message.hasPrefix("no such route"):
            // Stripe names the method and path it did not recognise: "Unrecognized request URL (GET: /v1/…)".
            let call = message.dropFirst("no such route".count).trimmingCharacters(in: .whitespaces)
            error = .invalid(
                "Unrecognized request URL \(call). Check the path and method against Stripe's API reference.",
                status: 404)
        case 429:
            error = StripeSimulatorFailure(
                status: status, type: "invalid_request_error", code: "rate_limit", message: message, param: nil)
        case 500...:
            error = StripeSimulatorFailure(status: status, type: "api_error", code: nil, message: message, param: nil)
        default:
            error = StripeSimulatorFailure(
                status: status, type: "invalid_request_error", code: nil, message: message, param: nil)
        }
        return jsonResponse(error.status, error.json).withHeader(
            "Request-Id", requestIDs.next(prefix: "req_", length: 14))
    }
}

/// An error answered in Stripe's shape: `{"error":{"type","code","message","param",…}}`.
struct StripeSimulatorFailure: Error, Sendable {
    var status: Int
    var type: String
    var code: String?
    var message: String
    var param: String?
    var declineCode: String?
    /// Whether the result is kept under the request's idempotency key. Stripe keeps results once an endpoint started
    /// executing (including 500s) but not for requests refused by validation.
    var savedForIdempotency: Bool = false

    static func invalid(
        _ message: String, param: String? = nil, code: String? = nil, status: Int = 400
    ) -> StripeSimulatorFailure {
        StripeSimulatorFailure(
            status: status, type: "invalid_request_error", code: code, message: message, param: param)
    }

    static func unknownParameter(_ name: String) -> StripeSimulatorFailure {
        invalid("Received unknown parameter: \(name)", param: name, code: "parameter_unknown")
    }

    static func missingParameter(_ name: String) -> StripeSimulatorFailure {
        invalid("Missing required param: \(name).", param: name, code: "parameter_missing")
    }

    static func invalidValue(_ name: String, _ value: String, allowed: [String]) -> StripeSimulatorFailure {
        invalid(
            "Invalid \(name): \"\(value)\" is not one of \(allowed.joined(separator: ", ")).", param: name,
            code: "parameter_invalid_string")
    }

    static func noSuch(_ what: String, _ id: String, param: String? = nil, status: Int = 404) -> StripeSimulatorFailure
    {
        invalid("No such \(what): '\(id)'", param: param, code: "resource_missing", status: status)
    }

    var json: StripeSimulatorJSON {
        var members: [(String, StripeSimulatorJSON)] = []
        if let code { members.append(("code", .string(code))) }
        if let declineCode { members.append(("decline_code", .string(declineCode))) }
        if let code {
            members.append(
                (
                    "doc_url",
                    .string("https://stripe.com/docs/error-codes/\(code.replacingOccurrences(of: "_", with: "-"))")
                ))
        }
        members.append(("message", .string(message)))
        if let param { members.append(("param", .string(param))) }
        members.append(("type", .string(type)))
        return ["error": .object(members)]
    }
}
