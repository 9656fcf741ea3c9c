import Foundation

/// Which base URLs the gateway will talk to: `https://` anywhere, plain `http://` only to this machine
/// (127.0.0.0/8, ::1, localhost), so that credentials and card data never cross a network unencrypted.
public enum EndpointPolicy: Sendable {
    /// The problem with `url`, or nil when it is acceptable.
    public static func problem(with url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased() else { return "the URL has no scheme" }
        guard let host = url.host, !host.isEmpty else { return "the URL has no host" }
        if url.query != nil || url.fragment != nil { return "the URL must not have a query or fragment" }
        if url.user != nil || url.password != nil { return "the URL must not carry credentials" }
        switch scheme {
        case "https": return nil
        case "http":
            return isLoopback(host)
                ? nil : "plain http:// is refused except to loopback (127.0.0.1, ::1, localhost); use https://"
        default: return "the scheme \(scheme) is not supported; use https://"
        }
    }

    /// Throws `invalidConfiguration` unless the URL is acceptable.
    public static func validate(_ url: URL) throws {
        if let problem = problem(with: url) {
            throw CardGatewayError(
                .invalidConfiguration, "base URL \(url.scheme ?? "")://\(url.host ?? ""): \(problem)")
        }
    }

    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" || bare == "0:0:0:0:0:0:0:1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.allSatisfy({ UInt8($0) != nil }) else { return false }
        return octets[0] == "127"
    }
}
