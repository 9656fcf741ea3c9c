import CardGatewaySimulation
import Crypto
import Foundation

// Issuing Elements in the simulator (card details and PIN without the backend seeing them).
//
// Documented by Stripe: the backend creates the key with `POST /v1/ephemeral_keys` `issuing_card` + `nonce` (a nonce
// is "a single-use token, created by Stripe.js"); Stripe.js reads the card with the key's secret and the nonce
// (`stripe.retrieveIssuingCard(card, {ephemeralKeySecret, nonce, expand: ["number", "cvc", "pin.number"]})`); in test
// mode every PIN is 0000 (Issuing PIN management guide); `number` and `cvc` exist for virtual cards only (the card
// object's reference).
//
// The simulator's own (Stripe.js's wire is not published; marked in the README): the front-end read is
// `GET /v1/issuing/cards/{id}?expand[]=number&expand[]=cvc&expand[]=pin.number&nonce=<nonce>` with
// `Authorization: Bearer ek_…` and the `Stripe-Version` the key was created with. It refuses an unknown, revoked or
// expired key (401), a key of another card, a key created without a nonce, or another nonce (403), and any other
// expansion (400). A nonce creates one key only (400 on reuse). The number is a Luhn-valid test number ending in the
// card's `last4`; the CVC is derived from the card id.
extension StripeSimulator {
    /// The PIN every seeded card has in test mode (Stripe: "In test mode, all PINs are set to 0000 by default").
    public static let testModePIN = "0000"

    /// The full number the simulator shows Issuing Elements for `cardID` (a Luhn-valid test number ending in the card's
    /// `last4`), nil for an unknown card. For tests acting as the front end, to compare with what they read.
    public func cardNumber(of cardID: String) -> String? {
        cards.get(cardID).map(Self.cardNumber)
    }

    /// The CVC the simulator shows for `cardID`, nil for an unknown card.
    public func cvc(of cardID: String) -> String? {
        cards.get(cardID).map(Self.cvc)
    }

    static func isEphemeralKeyCall(_ call: StripeSimulatorCall) -> Bool {
        SimulatorHTTP.bearerToken(call.header("authorization"))?.hasPrefix("ek_") == true
    }

    /// A nonce creates one ephemeral key (Stripe: "A nonce is a single-use token that creates an ephemeral key").
    func requireUnusedNonce(_ nonce: String) throws(StripeSimulatorFailure) {
        guard !nonce.isEmpty else { throw .invalid("The nonce must not be empty.", param: "nonce") }
        if ephemeralKeys.all().contains(where: { $0.nonce == nonce }) {
            throw .invalid(
                "This nonce has already been used to create an ephemeral key; create a new nonce with Stripe.js.",
                param: "nonce")
        }
    }

    /// The card as Issuing Elements reads it with an ephemeral key and the nonce it was created with.
    func revealCard(_ call: StripeSimulatorCall, version: String?) throws(StripeSimulatorFailure) -> StripeSimulatorJSON
    {
        guard let secret = SimulatorHTTP.bearerToken(call.header("authorization")),
            let key = ephemeralKeys.all().first(where: { ConstantTime.equals($0.secret.utf8, secret.utf8) }),
            !key.revoked
        else {
            throw .invalid(
                "Invalid API Key provided: \(Self.masked(SimulatorHTTP.bearerToken(call.header("authorization")) ?? ""))",
                status: 401)
        }
        guard Int64(simulationClock.now().timeIntervalSince1970) < key.expires else {
            throw .invalid("The ephemeral key has expired; create a new one.", code: "api_key_expired", status: 401)
        }
        let cardID = call.id ?? ""
        guard key.cardID == cardID else {
            throw .invalid("The ephemeral key does not grant access to this card.", status: 403)
        }
        guard let bound = key.nonce else {
            throw .invalid("This ephemeral key was created without a nonce and cannot show card details.", status: 403)
        }
        guard let nonce = call.params.string("nonce"), nonce == bound else {
            throw .invalid(
                "The nonce does not match the one the ephemeral key was created with.", param: "nonce", status: 403)
        }
        guard version == key.apiVersion else {
            throw .invalid(
                "Use the API version the ephemeral key was created with (\(key.apiVersion)).", param: "Stripe-Version")
        }
        try call.params.requireKnown(["expand", "nonce"])
        let expand = call.params.list("expand")
        for path in expand where !["number", "cvc", "pin.number"].contains(path) {
            throw .invalid("The property \(path) cannot be expanded.", param: "expand")
        }
        guard let card = cards.get(cardID) else { throw .noSuch("issuing card", cardID) }
        var json = render(card: card, livemode: key.livemode)
        // `number` and `cvc`: "only available for virtual cards" (the card object's reference).
        if card.type == "virtual" {
            if expand.contains("number") { json = json.setting("number", .string(Self.cardNumber(card))) }
            if expand.contains("cvc") { json = json.setting("cvc", .string(Self.cvc(card))) }
        }
        if expand.contains("pin.number") { json = json.setting("pin", ["number": .string(Self.testModePIN)]) }
        return json
    }

    /// `4` (Visa) or `5` (MasterCard), filler, one check-making digit, then `last4`: 16 digits, Luhn-valid.
    static func cardNumber(_ card: StripeSimulatorCard) -> String {
        let prefix = card.brand == "MasterCard" ? "555555" : "400000"
        let filler = "00000"
        for digit in 0...9 {
            let candidate = prefix + filler + String(digit) + card.last4
            if luhnValid(candidate) { return candidate }
        }
        return prefix + filler + "0" + card.last4
    }

    static func cvc(_ card: StripeSimulatorCard) -> String {
        let digest = Array(SHA256.hash(data: Data("cvc:\(card.id)".utf8)))
        return String(format: "%03d", (Int(digest[0]) << 8 | Int(digest[1])) % 1000)
    }

    static func luhnValid(_ number: String) -> Bool {
        let digits = number.compactMap(\.wholeNumberValue)
        var sum = 0
        for (index, digit) in digits.reversed().enumerated() {
            if index % 2 == 1 {
                let doubled = digit * 2
                sum += doubled > 9 ? doubled - 9 : doubled
            } else {
                sum += digit
            }
        }
        return sum % 10 == 0
    }
}
