import CardGatewaySimulation
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

// Card details and PIN change in the simulator.
//
// As Bridge documents them (spec and the guide "Safely reveal card details to customers"):
// - `POST …/card_accounts/{id}/ephemeral_keys {"client_nonce"}` (Api-Key and Idempotency-Key) → `{"ephemeral_key"}`,
//   one-time, valid five minutes, bound to the nonce. The nonce is HMAC-SHA256 of `nonce:{timestamp}` keyed by the
//   front end's secret.
// - The front end calls Bridge with the key as the `Authorization` credential and the secret and timestamp as query
//   parameters; Bridge checks the key belongs to the nonce derived from them, is unused and unexpired, and answers the
//   number, security code and expiry.
// - `POST …/card_accounts/{id}/pin` → `{"url"}`, single-use and time-limited.
//
// The simulator's own (Bridge does not publish them; marked in the README): the read is
// `GET /v0/card_details?client_secret=…&client_timestamp=…` with `Authorization: Bearer <ephemeral_key>`, answering
// `{"card_number","card_security_code","expiry"}`; the nonce may be the HMAC in hex or Base64; a failed proof does not
// use the key up; the PIN URL is `http://<host>/secure/update-pin?token=…` on the simulator, lives five minutes, and
// its first opening uses it; keys and PIN URLs are refused for `pending` and `inactive` accounts (400
// `card_account_not_active`). Times come from the simulator's clock.

/// One ephemeral key for card details.
struct BridgeSimulatorRevealKey: Sendable, Equatable {
    var key: String
    var accountID: String
    var nonce: String
    var expires: Date
    var used: Bool
}

/// One PIN update URL.
struct BridgeSimulatorPINLink: Sendable, Equatable {
    var token: String
    var accountID: String
    var expires: Date
    var used: Bool
}

/// The simulator's card-reveal state: keys and PIN URLs, by their secret.
final class BridgeSimulatorRevealState: Sendable {
    let keys = SimulatorStore<String, BridgeSimulatorRevealKey>()
    let pinLinks = SimulatorStore<String, BridgeSimulatorPINLink>()

    func reset() {
        keys.reset(to: [])
        pinLinks.reset(to: [])
    }
}

extension BridgeSimulator {
    /// How long an ephemeral key works ("This key is only valid for 5 minutes").
    public static let ephemeralKeyLifetime: TimeInterval = 5 * 60
    /// How long a PIN update URL works (*choice*: Bridge says only "time-limited").
    public static let pinLinkLifetime: TimeInterval = 5 * 60
    /// The front end's read of the card with an ephemeral key (*the simulator's own path*).
    public static let cardDetailsPath = "/v0/card_details"
    /// The secure PIN frame the PIN update URL points at (*the simulator's own path*).
    public static let pinFramePath = "/secure/update-pin"

    /// The security code the simulator shows for a card account (derived from its id), nil for an unknown account.
    public func securityCode(of cardAccountID: String) -> String? {
        accounts.get(cardAccountID).map { Self.securityCode($0) }
    }

    /// The nonce a front end derives from its secret and timestamp, as the guide's snippets do: HMAC-SHA256 of
    /// `nonce:{timestamp}` keyed by the secret's UTF-8 bytes, in lower-case hex.
    public static func clientNonce(secret: String, timestamp: Int64) -> String {
        ByteEncoding.hex(Data(hmac(secret: secret, timestamp: timestamp)))
    }

    static func hmac(secret: String, timestamp: Int64) -> [UInt8] {
        Array(
            HMAC<SHA256>.authenticationCode(
                for: Data("nonce:\(timestamp)".utf8), using: SymmetricKey(data: Data(secret.utf8))))
    }

    private func refuseUnlessRevealable(_ account: BridgeSimulatorCardAccount) -> SimulatedResponse? {
        guard account.status != "active", account.status != "frozen" else { return nil }
        return BridgeSimulatorErrors.error(
            400, code: "card_account_not_active",
            message: "The card account is \(account.status); its details and PIN are not available",
            location: "path", key: "cardAccountID"
        )
    }

    private static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return ByteEncoding.hex(Data((0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    }

    func createEphemeralKey(account: BridgeSimulatorCardAccount, body: Data) -> SimulatedResponse {
        var problems = BridgeSimulatorErrors.Problems()
        guard let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            problems.add("client_nonce", "The request body must be a JSON object with client_nonce")
            return problems.response
        }
        for key in json.keys.sorted() where key != "client_nonce" {
            problems.add(key, "\(key) is not a known parameter")
        }
        let nonce = json["client_nonce"] as? String ?? ""
        if nonce.isEmpty { problems.add("client_nonce", "client_nonce is required") }
        guard problems.isEmpty else { return problems.response }
        if let refusal = refuseUnlessRevealable(account) { return refusal }
        let key = Self.randomToken()
        reveal.keys.put(
            key,
            BridgeSimulatorRevealKey(
                key: key, accountID: account.id, nonce: nonce,
                expires: simulationClock.now().addingTimeInterval(Self.ephemeralKeyLifetime), used: false
            ))
        return .json(200, ["ephemeral_key": key])
    }

    func createPINLink(account: BridgeSimulatorCardAccount, body: Data, authority: String) -> SimulatedResponse {
        // The operation takes no body: nothing, or an empty JSON object.
        if !body.isEmpty, ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any])?.isEmpty != true {
            return BridgeSimulatorErrors.error(
                400, code: "invalid_parameters", message: "This operation takes no request body", location: "body",
                key: "body")
        }
        if let refusal = refuseUnlessRevealable(account) { return refusal }
        let token = Self.randomToken()
        reveal.pinLinks.put(
            token,
            BridgeSimulatorPINLink(
                token: token, accountID: account.id,
                expires: simulationClock.now().addingTimeInterval(Self.pinLinkLifetime), used: false
            ))
        let host = authority.isEmpty ? "127.0.0.1" : authority
        return .json(200, ["url": "http://\(host)\(Self.pinFramePath)?token=\(token)"])
    }

    /// The front end's read: the key (one-time, unexpired) and the secret and timestamp its nonce was derived from.
    func cardDetails(authorization: String?, query: [(name: String, value: String)]) -> SimulatedResponse {
        guard let key = SimulatorHTTP.bearerToken(authorization), var stored = reveal.keys.get(key) else {
            return BridgeSimulatorErrors.error(
                401, code: "invalid", message: "Unknown ephemeral key", location: "header", key: "Authorization")
        }
        guard !stored.used else {
            return BridgeSimulatorErrors.error(
                401, code: "ephemeral_key_used", message: "This ephemeral key has already been used",
                location: "header", key: "Authorization")
        }
        guard simulationClock.now() < stored.expires else {
            return BridgeSimulatorErrors.error(
                401, code: "ephemeral_key_expired", message: "This ephemeral key has expired", location: "header",
                key: "Authorization")
        }
        let secret = query.last { $0.name == "client_secret" }?.value ?? ""
        guard !secret.isEmpty,
            let timestamp = query.last(where: { $0.name == "client_timestamp" }).flatMap({ Int64($0.value) })
        else {
            return BridgeSimulatorErrors.error(
                400, code: "invalid_parameters", message: "client_secret and client_timestamp are required",
                location: "query", key: "client_secret,client_timestamp")
        }
        let mac = Data(Self.hmac(secret: secret, timestamp: timestamp))
        let matchesHex = ConstantTime.equals(stored.nonce.lowercased().utf8, ByteEncoding.hex(mac).utf8)
        let matchesBase64 = ConstantTime.equals(stored.nonce.utf8, ByteEncoding.base64(mac).utf8)
        guard matchesHex || matchesBase64 else {
            return BridgeSimulatorErrors.error(
                401, code: "nonce_mismatch",
                message: "The ephemeral key was not created for a nonce derived from this secret and timestamp",
                location: "query", key: "client_secret")
        }
        guard let account = accounts.get(stored.accountID) else {
            return BridgeSimulatorErrors.error(404, code: "Invalid", message: "Unknown card account id")
        }
        stored.used = true
        reveal.keys.put(key, stored)
        return .json(
            200,
            ["card_number": account.pan, "card_security_code": Self.securityCode(account), "expiry": account.expiry])
    }

    /// The secure PIN frame: the first opening within its lifetime uses the URL up.
    func openPINFrame(query: [(name: String, value: String)]) -> SimulatedResponse {
        guard let token = query.last(where: { $0.name == "token" })?.value, var link = reveal.pinLinks.get(token) else {
            return .text(404, "This PIN update link is not valid.")
        }
        guard !link.used else { return .text(410, "This PIN update link has already been used.") }
        guard simulationClock.now() < link.expires else { return .text(410, "This PIN update link has expired.") }
        link.used = true
        reveal.pinLinks.put(token, link)
        return .text(
            200,
            "<!doctype html><title>Set your PIN</title><form method=\"post\"><input name=\"pin\" type=\"password\" inputmode=\"numeric\"></form>",
            contentType: "text/html; charset=utf-8")
    }

    static func securityCode(_ account: BridgeSimulatorCardAccount) -> String {
        let digest = Array(SHA256.hash(data: Data("cvc:\(account.id)".utf8)))
        return String(format: "%03d", (Int(digest[0]) << 8 | Int(digest[1])) % 1000)
    }
}
