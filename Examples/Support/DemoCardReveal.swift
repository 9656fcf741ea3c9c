import AdyenSimulator
import BridgeSimulator
import CardGateway
import CardGatewayAsyncHTTPClient
import Foundation
import HTTPTypes
import LithicSimulator
import MarqetaSimulator
import PaysafeSimulator
import StripeSimulator

// The demo's card details and PIN steps (CardDetailsAndPIN.md): for every purpose each provider offers, the backend's
// two steps through the gateway (offer, session), then the app's side on the simulator, the way the provider's
// front-end library or SDK does it. The demo prints what a cardholder would see on a lock screen and nothing more:
// the last four digits, never the full number, CVC or PIN.

extension RevealPurpose {
    /// The purpose in words.
    var title: String {
        switch self {
        case .pinReveal: "PIN"
        case .pinChange: "PIN change"
        default: "card details"
        }
    }
}

/// The app's side of a reveal, against the simulators: plain HTTP requests, as the provider's front-end library would
/// send them.
struct DemoFrontEnd: Sendable {
    let transport = AsyncHTTPClientTransport()

    /// `GET url` with these headers; the status and the body.
    func get(_ url: URL, headers: [String: String] = [:]) async throws -> (status: Int, body: Data) {
        guard let scheme = url.scheme, let host = url.host else {
            throw DemoExpectationFailure(message: "not an absolute URL")
        }
        let authority = url.port.map { "\(host):\($0)" } ?? host
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        var request = HTTPRequest(method: .get, scheme: scheme, authority: authority, path: path)
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            guard let field = HTTPField.Name(name) else { continue }
            request.headerFields[field] = value
        }
        let response = try await transport.send(request, body: nil, timeout: .seconds(10))
        return (Int(response.response.status.code), response.body)
    }

    /// The JSON object in `body`.
    static func object(_ body: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw DemoExpectationFailure(message: "the answer is not a JSON object")
        }
        return object
    }
}

/// What the demo may print of a card number: its last four, after bullets.
func lastFourOnly(_ number: String?) throws -> String {
    let digits = (number ?? "").filter(\.isNumber)
    guard digits.count >= 4 else { throw DemoExpectationFailure(message: "the app got no card number") }
    return "•••• " + String(digits.suffix(4))
}

extension DemoSteps {
    /// Every purpose each provider instance declares, on a seeded card.
    func cardReveal(_ recorder: inout DemoRecorder) async {
        let plans: [(instance: String, via: RouteTarget, card: CardRef)] = [
            (
                Instance.paysafe, .key(RouteKey(issuer: Issuer.paysafe)),
                CardRef(id: PaysafeSimulator.Seed.activeCardID, customer: PaysafeSimulator.Seed.euCustomer)
            ),
            (Instance.adyen, .key(RouteKey(issuer: Issuer.adyen)), CardRef(id: AdyenSimulator.Seed.activeVisaID)),
            (Instance.stripe, .key(RouteKey(issuer: Issuer.stripe)), CardRef(id: StripeSimulator.Seed.activeCardID)),
            (
                Instance.bridge, .key(RouteKey(issuer: Issuer.bridge)),
                CardRef(id: BridgeSimulator.Seed.activeVisa, customer: BridgeSimulator.Seed.customerID)
            ),
            (Instance.marqeta, .key(RouteKey(issuer: Issuer.marqeta)), CardRef(id: MarqetaSimulator.Seed.activeCard)),
            (Instance.lithic, .key(RouteKey(issuer: Issuer.lithic)), CardRef(id: LithicSimulator.Seed.activeCard)),
        ]
        for plan in plans {
            let descriptor = gateway.instance(named: plan.instance)?.descriptor
            let flows = descriptor?.revealFlows ?? [:]
            guard !flows.isEmpty else {
                recorder.skip(
                    "card reveal", plan.instance,
                    because: "\(descriptor?.kind.name ?? plan.instance) shows no card details or PIN to the front end")
                continue
            }
            for purpose in RevealPurpose.allCases where flows[purpose] != nil {
                await recorder.step("card reveal: \(purpose.title)", plan.instance) {
                    let offer = try await gateway.revealOffer(for: plan.card, purpose: purpose, via: plan.via)
                    let shown = try await appSide(offer, via: plan.via, kind: descriptor?.kind.name ?? "")
                    return "by \(offer.flow): \(shown)"
                }
            }
        }
    }

    /// The session the app asks the backend for, and what the app does with it.
    func appSide(_ offer: RevealOffer, via: RouteTarget, kind: String) async throws -> String {
        let frontEnd = DemoFrontEnd()
        let card = offer.card
        let purpose = offer.purpose
        switch offer.flow {
        case .encryptedSessionKey:
            // Adyen: the app makes an AES key, encrypts it with the offer's public key, and alone can decrypt the answer.
            guard let publicKey = offer.publicKey?.value else {
                throw DemoExpectationFailure(message: "the offer has no public key")
            }
            let app = try AdyenSimulatedApp.session(publicKeyPEM: publicKey)
            switch purpose {
            case .pinReveal:
                let session = try await gateway.revealSession(
                    RevealSessionRequest(card: card, purpose: purpose, encryptedKey: Secret(app.encryptedKey)), via: via
                )
                guard
                    let block = session.material.encryptedPINBlock.flatMap({ ByteEncoding.decodeHex($0.revealedValue) }
                    ), let token = session.material.pinToken
                else {
                    throw DemoExpectationFailure(message: "no PIN block in the session")
                }
                let pin = try PINBlock4.decipher(block, token: token.revealedValue, key: app.key)
                try expect(pin.count >= 4 && pin.allSatisfy(\.isNumber), "the PIN block did not decipher to a PIN")
                return
                    "the app deciphered a \(pin.count)-digit PIN with its own key (the backend relayed an encrypted block)"
            case .pinChange:
                // The app makes the new PIN block and the 16-digit token it encrypts it with (Adyen's
                // PinChangeRequest.token: "The 16-digit token that you used to generate the encryptedPinBlock"): nothing
                // of a PIN reveal is needed or used.
                let change = try AdyenSimulatedApp.pinChange(pin: "2580", key: app.key)
                let session = try await gateway.revealSession(
                    RevealSessionRequest(
                        card: card, purpose: purpose, encryptedKey: Secret(app.encryptedKey),
                        encryptedPINBlock: Secret(change.encryptedPinBlock),
                        pinToken: Secret(change.token)
                    ),
                    via: via
                )
                let status = session.material.pinChangeStatus?.rawValue ?? "?"
                try expect(session.material.pinChangeStatus == .completed, "the PIN change is \(status)")
                return "the app's encrypted PIN block was accepted: \(status)"
            default:
                let session = try await gateway.revealSession(
                    RevealSessionRequest(card: card, purpose: purpose, encryptedKey: Secret(app.encryptedKey)), via: via
                )
                guard let data = session.material.encryptedData else {
                    throw DemoExpectationFailure(message: "no encrypted data in the session")
                }
                let details = try AdyenSimulatedApp.cardDetails(data.revealedValue, key: app.key)
                return
                    "the app decrypted \(try lastFourOnly(details["pan"] as? String)) (the backend relayed encrypted data)"
            }
        case .clientNonce:
            return try await clientNonce(offer, via: via, kind: kind, frontEnd: frontEnd)
        case .encryptedPIN:
            // Stripe: the front end encrypts the new PIN under Stripe's public key (Stripe's PIN management guide,
            // "Encrypting PINs") and the backend relays the ciphertext as pin[encrypted_number]; only Stripe can read
            // it. The simulator keeps the ciphertext without reading it, so the demo's front end sends random bytes in
            // its place, and says so.
            let ciphertext = Data((0..<256).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            let session = try await gateway.revealSession(
                RevealSessionRequest(card: card, purpose: purpose, encryptedPINBlock: Secret(ciphertext)), via: via)
            let status = session.material.pinChangeStatus?.rawValue ?? "?"
            try expect(session.material.pinChangeStatus == .completed, "the PIN change is \(status)")
            return
                "the front end's encrypted PIN (random bytes here: the simulator does not decrypt) was relayed: \(status)"
        case .clientAccessToken where kind == "lithic":
            // Lithic's embed session: the front end loads Lithic's frames with it (`GET /v1/embed?session=&type=`),
            // each frame type once.
            let session = try await gateway.revealSession(RevealSessionRequest(card: card, purpose: purpose), via: via)
            guard let token = session.material.clientAccessToken, let base = running?.handle(kind)?.baseURL,
                let encoded = token.revealedValue.addingPercentEncoding(withAllowedCharacters: .alphanumerics)
            else {
                throw DemoExpectationFailure(message: "no embed session, or no simulator")
            }
            let url = try Self.url(base, "/v1/embed?session=\(encoded)&type=PAN")
            let frame = try await frontEnd.get(url)
            try expect(frame.status == 200, "the PAN frame answered \(frame.status)")
            let again = try await frontEnd.get(url)
            try expect(again.status != 200, "the session opened the PAN frame twice")
            let page = String(decoding: frame.body, as: UTF8.self)
            let shown = page.range(of: "<div id=\"value\">").map { start in
                String(page[start.upperBound...].prefix { $0 != "<" })
            }
            return "Lithic's PAN frame shows \(try lastFourOnly(shown)); the session opens it once"
        case .clientAccessToken:
            // Marqeta.js: the token opens the card in Marqeta's frames (the simulator's stand-in read).
            let session = try await gateway.revealSession(RevealSessionRequest(card: card, purpose: purpose), via: via)
            guard let token = session.material.clientAccessToken, let base = running?.handle(kind)?.baseURL else {
                throw DemoExpectationFailure(message: "no client access token, or no simulator")
            }
            let url = try Self.url(base, MarqetaSimulator.marqetaJSPath + "/" + card.id)
            let read = try await frontEnd.get(url, headers: ["Authorization": "Bearer \(token.revealedValue)"])
            try expect(read.status == 200, "the front end's read answered \(read.status)")
            let again = try await frontEnd.get(url, headers: ["Authorization": "Bearer \(token.revealedValue)"])
            try expect(again.status != 200, "the token worked twice")
            return
                "Marqeta.js shows \(try lastFourOnly(try DemoFrontEnd.object(read.body)["last_four"] as? String)); the token works once"
        case .secureLink:
            // Paysafe's secure details, Bridge's PIN frame: the app opens the link; it works once.
            let session = try await gateway.revealSession(RevealSessionRequest(card: card, purpose: purpose), via: via)
            guard let link = session.material.secureLink.flatMap({ URL(string: $0.revealedValue) }) else {
                throw DemoExpectationFailure(message: "no link in the session")
            }
            let opened = try await frontEnd.get(link)
            try expect(opened.status == 200, "the link answered \(opened.status)")
            let again = try await frontEnd.get(link)
            try expect(again.status != 200, "the link worked twice")
            let page = String(decoding: opened.body, as: UTF8.self)
            if purpose == .cardDetails {
                return
                    "the app's secure view shows \(try lastFourOnly(Self.lastFour(inPage: page))); the link works once"
            }
            return "the app opened the provider's secure \(purpose.title) frame; the link works once"
        default:
            throw DemoExpectationFailure(message: "the demo does not know the \(offer.flow) flow")
        }
    }

    /// Stripe Issuing Elements and Bridge: the front end's nonce, the key bound to it, the card read with both.
    func clientNonce(
        _ offer: RevealOffer, via: RouteTarget, kind: String, frontEnd: DemoFrontEnd
    ) async throws -> String {
        guard let base = running?.handle(kind)?.baseURL else {
            throw DemoExpectationFailure(message: "no \(kind) simulator")
        }
        let card = offer.card
        switch kind {
        case "bridge":
            // The front end's secret and timestamp, and the nonce it derives from them (Bridge's guide).
            let secret = "demo-front-end-" + UUID().uuidString
            let timestamp = Int64(Date().timeIntervalSince1970)
            let nonce = BridgeSimulator.clientNonce(secret: secret, timestamp: timestamp)
            let session = try await gateway.revealSession(
                RevealSessionRequest(card: card, purpose: offer.purpose, clientNonce: Secret(nonce)), via: via)
            guard let key = session.material.ephemeralKeySecret else {
                throw DemoExpectationFailure(message: "no ephemeral key in the session")
            }
            var components = URLComponents()
            components.queryItems = [
                URLQueryItem(name: "client_secret", value: secret),
                URLQueryItem(name: "client_timestamp", value: String(timestamp)),
            ]
            let url = try Self.url(base, BridgeSimulator.cardDetailsPath + "?" + (components.percentEncodedQuery ?? ""))
            let read = try await frontEnd.get(url, headers: ["Authorization": "Bearer \(key.revealedValue)"])
            try expect(read.status == 200, "the front end's read answered \(read.status)")
            return
                "the front end reads \(try lastFourOnly(try DemoFrontEnd.object(read.body)["card_number"] as? String)) with the key bound to its nonce"
        default:
            // Stripe.js: a nonce for the card, then the card with the key's secret and the nonce.
            let nonce = "ephkn_pub_demo" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            let session = try await gateway.revealSession(
                RevealSessionRequest(
                    card: card, purpose: offer.purpose, clientNonce: Secret(nonce), apiVersion: offer.apiVersion),
                via: via
            )
            guard let key = session.material.ephemeralKeySecret else {
                throw DemoExpectationFailure(message: "no ephemeral key in the session")
            }
            let expand =
                offer.purpose == .pinReveal ? "expand%5B%5D=pin.number" : "expand%5B%5D=number&expand%5B%5D=cvc"
            let url = try Self.url(base, "/v1/issuing/cards/\(card.id)?\(expand)&nonce=\(nonce)")
            var headers = ["Authorization": "Bearer \(key.revealedValue)"]
            if let version = offer.apiVersion { headers["Stripe-Version"] = version }
            let read = try await frontEnd.get(url, headers: headers)
            try expect(read.status == 200, "the front end's read answered \(read.status)")
            let object = try DemoFrontEnd.object(read.body)
            if offer.purpose == .pinReveal {
                let pin = (object["pin"] as? [String: Any])?["number"] as? String ?? ""
                try expect(pin.count >= 4, "Stripe.js got no PIN")
                return
                    "Stripe's PIN element shows a \(pin.count)-digit PIN, read with the key bound to the front end's nonce"
            }
            return
                "Stripe's elements show \(try lastFourOnly(object["number"] as? String)), read with the key bound to the front end's nonce"
        }
    }

    /// `path` (with its query) on the simulator at `base`'s host and port.
    static func url(_ base: URL, _ path: String) throws -> URL {
        guard let scheme = base.scheme, let host = base.host,
            let url = URL(string: "\(scheme)://\(host)\(base.port.map { ":\($0)" } ?? "")\(path)")
        else {
            throw DemoExpectationFailure(message: "cannot build the front end's URL")
        }
        return url
    }

    /// The last four digits a secure view shows after its bullets.
    static func lastFour(inPage page: String) -> String? {
        guard let range = page.range(of: "•••• ", options: .backwards) else { return nil }
        let digits = page[range.upperBound...].prefix(while: \.isNumber)
        return digits.count == 4 ? String(digits) : nil
    }
}
