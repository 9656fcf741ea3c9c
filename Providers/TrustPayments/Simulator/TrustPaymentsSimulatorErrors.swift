import CardGatewaySimulation
import Foundation

extension TrustPaymentsSimulator {
    /// The gateway's error pages are Apache HTML (the docs show the 401 page).
    public func faultResponse(status: Int, message: String) -> SimulatedResponse {
        if status == 401 {
            return .text(401, Self.authorizationRequiredPage, contentType: "text/html; charset=iso-8859-1")
        }
        let reason = Self.reasonPhrase(status)
        let escaped = message.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        let page = """
            <!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">
            <html><head>
            <title>\(status) \(reason)</title>
            </head><body>
            <h1>\(reason)</h1>
            <p>\(escaped)</p>
            </body></html>
            """
        return .text(status, page, contentType: "text/html; charset=iso-8859-1")
    }

    static let authorizationRequiredPage = """
        <!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">
        <html><head>
        <title>401 Authorization Required</title>
        </head><body>
        <h1>Authorization Required</h1>
        <p>This server could not verify that you
        are authorized to access the document
        requested.  Either you supplied the wrong
        credentials (e.g., bad password), or your
        browser doesn't understand how to supply
        the credentials required.</p>
        </body></html>
        """

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 413: return "Request Entity Too Large"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Error"
        }
    }
}

/// The gateway's error table: its messages, as the official client's `errormessages.json` names them.
enum TrustPaymentsSimulatorErrors {
    static func message(_ code: String) -> String {
        switch code {
        case "0": return "Ok"
        case "10205": return "Malformed JSON"
        case "20004": return "Missing parent"
        case "20033": return "Invalid parent"
        case "30000": return "Invalid field"
        case "30001": return "Unknown site"
        case "30006": return "Invalid sitereference for alias"
        case "30007": return "Invalid version number"
        case "60010": return "Bank System Error"
        case "60018": return "Invalid requesttype"
        case "60022": return "Unauthenticated"
        case "60025": return "Invalid Request"
        case "60034": return "Manual investigation required"
        case "70000": return "Decline"
        case "71000": return "Soft decline"
        case "72000": return "Refer to issuer"
        default: return "Unknown error"
        }
    }
}
