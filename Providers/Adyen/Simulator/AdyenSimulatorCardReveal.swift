import CardGatewaySimulation
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization
import _CryptoExtras

// Card details and PIN with real cryptography (issue 40; `Providers/Adyen/README.md`, "Card details and PIN"):
//
// - `GET /publicKey?purpose=panReveal|pinReveal|pinChange&format=pem|jwk`: one RSA-2048 key pair per purpose, made
//   when first asked for and replaced once it expires (``AdyenSimulator/Seed/publicKeyLifetimeDays`` after it was
//   made, at the start of that day in UTC; `publicKeyExpiryDate` is that date, `yyyy-MM-dd`, as the spec's example).
// - The app's session key: AES-256, encrypted with the purpose's public key (RSA PKCS #1 v1.5), in hexadecimal.
// - `POST /paymentInstruments/reveal`: `encryptedData` = AES-256-CBC (zero IV, PKCS #7) of
//   `{"cvc":…,"expiration":{"month":…,"year":…},"pan":…}`, in hexadecimal.
// - `POST /pins/reveal`: the PIN as an ISO 9564 format 4 block enciphered with the session key and a fresh 16-digit
//   `token` in place of the PAN, in hexadecimal.
// - `POST /pins/change`: deciphers the app's block with its session key and `token`, records the PIN (a later
//   reveal shows it) and answers `completed`.
//
// A session key encrypted with another key (another purpose's, an expired one) or already used once, a token used
// once already, and a PIN block that does not decipher to a format 4 PIN field are refused with Adyen-style 422s.
// Which padding, mode and payload Adyen uses is not stated in the parts of Adyen's documents we could read; the
// choices above follow the sample code listed in the README and are marked unverified there.

extension AdyenSimulator {

    /// `GET /publicKey`: `purpose` (default `pinReveal`) and `format` (default `pem`), as the spec says.
    func getPublicKey(_ request: Request) throws -> SimulatedResponse {
        let items = SimulatorHTTP.queryItems(request.uri.query)
        let purpose = items.first { $0.name == "purpose" }?.value ?? "pinReveal"
        let format = items.first { $0.name == "format" }?.value ?? "pem"
        var invalid: [(String, String, String)] = []
        if !Self.revealPurposes.contains(purpose) {
            invalid.append(("purpose", String(purpose.prefix(20)), "must be one of pinChange, pinReveal, panReveal"))
        }
        if !["pem", "jwk"].contains(format) {
            invalid.append(("format", String(format.prefix(20)), "must be jwk or pem"))
        }
        guard invalid.isEmpty else {
            throw failure(
                422, AdyenSimulatorErrors.invalidQuery, "Invalid query parameter", "A query parameter is not valid.",
                invalidFields: invalid)
        }
        try authorize(request, role: Self.role(forPurpose: purpose))
        let key = try revealState.currentKey(for: purpose)
        let value: String
        if format == "pem" {
            value = ByteEncoding.base64(key.publicKeyDER)
        } else {
            let jwk: [String: Any] = [
                "kty": "RSA", "use": "enc", "n": Self.base64URL(key.modulus), "e": Self.base64URL(key.publicExponent),
            ]
            let data = try JSONSerialization.data(withJSONObject: jwk, options: [.sortedKeys])
            value = String(decoding: data, as: UTF8.self)
        }
        return .json(200, ["publicKey": value, "publicKeyExpiryDate": SimulatorDateTime.fullDate(key.expires)])
    }

    /// `POST /paymentInstruments/reveal`.
    func revealCardDetails(_ request: Request, body: Data) throws -> SimulatedResponse {
        try authorize(request, role: .panReveal)
        let object = try revealBody(body, required: ["paymentInstrumentId", "encryptedKey"])
        let (instrument, card) = try revealableCard(object["paymentInstrumentId"] ?? "")
        let sessionKey = try revealState.sessionKey(object["encryptedKey"] ?? "", purpose: "panReveal", simulator: self)
        let details: [String: Any] = [
            "pan": Seed.cardNumber(of: instrument.id, bin: card.bin, lastFour: card.lastFour),
            "cvc": Seed.cvc(of: instrument.id),
            "expiration": ["month": card.expiryMonth, "year": card.expiryYear],
        ]
        let plaintext = try JSONSerialization.data(withJSONObject: details, options: [.sortedKeys])
        let encrypted = try AES._CBC.encrypt(
            plaintext, using: sessionKey, iv: AES._CBC.IV(ivBytes: [UInt8](repeating: 0, count: 16)))
        return .json(200, ["encryptedData": ByteEncoding.hex(encrypted).uppercased()])
    }

    /// `POST /pins/reveal`.
    func revealPIN(_ request: Request, body: Data) throws -> SimulatedResponse {
        try authorize(request, role: .pinReveal)
        let object = try revealBody(body, required: ["paymentInstrumentId", "encryptedKey"])
        let (instrument, _) = try revealableCard(object["paymentInstrumentId"] ?? "")
        let sessionKey = try revealState.sessionKey(object["encryptedKey"] ?? "", purpose: "pinReveal", simulator: self)
        let token = revealState.newToken()
        let pin = revealState.pin(of: instrument.id)
        let block = try AdyenSimulatorPINBlock.encipher(
            pin: pin, token: token, key: sessionKey, random: revealState.randomBytes(8))
        return .json(200, ["encryptedPinBlock": ByteEncoding.hex(block).uppercased(), "token": token])
    }

    /// `POST /pins/change`.
    func changePIN(_ request: Request, body: Data) throws -> SimulatedResponse {
        try authorize(request, role: .pinChange)
        let object = try revealBody(
            body, required: ["paymentInstrumentId", "encryptedKey", "encryptedPinBlock", "token"])
        let (instrument, _) = try revealableCard(object["paymentInstrumentId"] ?? "")
        let token = object["token"] ?? ""
        guard token.count == 16, token.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else {
            throw failure(
                422, AdyenSimulatorErrors.invalidPINToken, "Invalid token", "The token must be 16 digits.",
                invalidFields: [("token", "", "must be 16 digits")]
            )
        }
        let sessionKey = try revealState.sessionKey(
            object["encryptedKey"] ?? "", purpose: "pinChange", simulator: self, consume: false)
        guard let blockBytes = ByteEncoding.decodeHex(object["encryptedPinBlock"] ?? ""), blockBytes.count == 16,
            let pin = try? AdyenSimulatorPINBlock.decipher(blockBytes, token: token, key: sessionKey)
        else {
            throw failure(
                422, AdyenSimulatorErrors.invalidPINBlock, "Invalid PIN block",
                "The encryptedPinBlock is not an ISO 9564 format 4 PIN block under this session key and token.",
                invalidFields: [("encryptedPinBlock", "", "must decipher to a format 4 PIN field")]
            )
        }
        guard revealState.useToken(token) else {
            throw failure(
                422, AdyenSimulatorErrors.pinTokenUsed, "Invalid token", "The token was already used for a PIN change.")
        }
        _ = try revealState.sessionKey(object["encryptedKey"] ?? "", purpose: "pinChange", simulator: self)
        revealState.setPIN(pin, of: instrument.id)
        return .json(200, ["status": "completed"])
    }

    /// The body's string members; refuses a body that is not an object, a missing or non-string required member and
    /// any other member (the spec's `additionalProperties: false`).
    private func revealBody(_ body: Data, required: [String]) throws -> [String: String] {
        let object = try jsonObject(body, status: 422)
        var invalid: [(String, String, String)] = []
        for name in required where !((object[name] as? String).map { !$0.isEmpty } ?? false) {
            invalid.append((name, "", "is required"))
        }
        for name in object.keys.sorted() where !required.contains(name) {
            invalid.append((name, "", "is not a field of this request"))
        }
        guard invalid.isEmpty else {
            throw failure(
                422, AdyenSimulatorErrors.missingField, "Invalid request", "The request has missing or unknown fields.",
                invalidFields: invalid)
        }
        return object.compactMapValues { $0 as? String }
    }

    /// An existing card that is not closed (Adyen reveals nothing of a closed card: the simulator's choice).
    private func revealableCard(_ id: String) throws -> (AdyenSimulatorInstrument, AdyenSimulatorCard) {
        guard let instrument = state.instruments.get(id) else {
            throw failure(404, AdyenSimulatorErrors.notFound, "Not found", "Payment instrument not found.")
        }
        guard let card = instrument.card else {
            throw failure(
                422, AdyenSimulatorErrors.notACard, "Invalid payment instrument",
                "The payment instrument is not a card.")
        }
        guard instrument.status != "closed" else {
            throw failure(
                422, AdyenSimulatorErrors.instrumentNotActive, "Invalid payment instrument",
                "The payment instrument is closed.")
        }
        return (instrument, card)
    }

    static let revealPurposes = ["panReveal", "pinReveal", "pinChange"]

    static func role(forPurpose purpose: String) -> Role {
        switch purpose {
        case "pinReveal": .pinReveal
        case "pinChange": .pinChange
        default: .panReveal
        }
    }

    /// A JWK integer (RFC 7518 section 6.3.1): big-endian without leading zero bytes, in Base64url without padding.
    static func base64URL(_ data: Data) -> String {
        var bytes = data
        while bytes.count > 1, bytes.first == 0 { bytes = bytes.dropFirst() }
        return ByteEncoding.base64URL(Data(bytes))
    }
}

extension AdyenSimulator.Seed {
    /// How long a public key the simulator makes lasts, in days (its `publicKeyExpiryDate` is the start, in UTC, of
    /// the day this many days after it was made). The simulator's choice: Adyen documents no lifetime.
    public static let publicKeyLifetimeDays = 30

    /// The full card number the simulator reveals for a card: its BIN, six digits from the instrument id, and its
    /// last four, with the last of the six chosen so that the number passes the Luhn check.
    public static func cardNumber(of instrumentID: String, bin: String, lastFour: String) -> String {
        let digest = Array(SHA256.hash(data: Data("adyen-simulator pan \(instrumentID)".utf8)))
        let middle = digest.prefix(5).map { String($0 % 10) }.joined()
        for check in 0...9 {
            let candidate = bin + middle + String(check) + lastFour
            if luhn(candidate) { return candidate }
        }
        return bin + middle + "0" + lastFour
    }

    /// The card number of a seeded card (nil for an unknown id or a bank account).
    public static func cardNumber(of instrumentID: String) -> String? {
        guard let card = instruments.first(where: { $0.0 == instrumentID })?.1.card else { return nil }
        return cardNumber(of: instrumentID, bin: card.bin, lastFour: card.lastFour)
    }

    /// The three-digit CVC the simulator reveals for a card.
    public static func cvc(of instrumentID: String) -> String {
        let digest = Array(SHA256.hash(data: Data("adyen-simulator cvc \(instrumentID)".utf8)))
        return digest.prefix(3).map { String($0 % 10) }.joined()
    }

    /// The four-digit PIN a card has until it is changed.
    public static func initialPIN(of instrumentID: String) -> String {
        let digest = Array(SHA256.hash(data: Data("adyen-simulator pin \(instrumentID)".utf8)))
        return digest.prefix(4).map { String($0 % 10) }.joined()
    }

    static func luhn(_ digits: String) -> Bool {
        var sum = 0
        for (index, character) in digits.reversed().enumerated() {
            guard var digit = character.wholeNumberValue else { return false }
            if index % 2 == 1 {
                digit *= 2
                if digit > 9 { digit -= 9 }
            }
            sum += digit
        }
        return sum % 10 == 0
    }
}

/// An ISO 9564 format 4 PIN block, enciphered with AES as Adyen's PIN endpoints use it, with the 16-digit `token`
/// in the place of the PAN: PIN field `4 N P…P A…A` + 8 random bytes, PAN field `4` + token + fifteen `0`s;
/// block = E(E(PIN field) ⊕ PAN field). Public so that a test or demo acting as the app can make and read blocks.
public enum AdyenSimulatorPINBlock {
    /// The format 4 block for `pin` (4 to 12 digits) under `key` and `token` (16 digits).
    public static func encipher(pin: String, token: String, key: SymmetricKey, random: [UInt8]) throws -> Data {
        guard (4...12).contains(pin.count), pin.allSatisfy(\.isASCIIDigit), random.count == 8 else {
            throw PINBlockError.invalidPIN
        }
        var field = [UInt8](repeating: 0, count: 16)
        let nibbles =
            [4, pin.count] + pin.compactMap(\.wholeNumberValue) + Array(repeating: 0xA, count: 14 - pin.count)
        for index in 0..<8 { field[index] = UInt8(nibbles[2 * index] << 4 | nibbles[2 * index + 1]) }
        for index in 0..<8 { field[8 + index] = random[index] }
        var block = field
        try AES.permute(&block, key: key)
        let pan = try panField(token)
        for index in 0..<16 { block[index] ^= pan[index] }
        try AES.permute(&block, key: key)
        return Data(block)
    }

    /// The PIN in a format 4 `block` under `key` and `token`; throws unless the block deciphers to a PIN field.
    public static func decipher(_ block: Data, token: String, key: SymmetricKey) throws -> String {
        guard block.count == 16 else { throw PINBlockError.invalidBlock }
        var bytes = [UInt8](block)
        try AES.inversePermute(&bytes, key: key)
        let pan = try panField(token)
        for index in 0..<16 { bytes[index] ^= pan[index] }
        try AES.inversePermute(&bytes, key: key)
        let nibbles = bytes.prefix(8).flatMap { [Int($0 >> 4), Int($0 & 0x0F)] }
        let length = nibbles[1]
        guard nibbles[0] == 4, (4...12).contains(length), nibbles[2..<(2 + length)].allSatisfy({ $0 <= 9 }),
            nibbles[(2 + length)...].allSatisfy({ $0 == 0xA })
        else { throw PINBlockError.invalidBlock }
        return nibbles[2..<(2 + length)].map(String.init).joined()
    }

    /// `4` + the 16-digit token + fifteen `0`s, as 16 bytes.
    static func panField(_ token: String) throws -> [UInt8] {
        guard token.count == 16, token.allSatisfy(\.isASCIIDigit) else { throw PINBlockError.invalidToken }
        let nibbles = [4] + token.compactMap(\.wholeNumberValue) + Array(repeating: 0, count: 15)
        return (0..<16).map { UInt8(nibbles[2 * $0] << 4 | nibbles[2 * $0 + 1]) }
    }

    public enum PINBlockError: Error, Sendable {
        case invalidPIN, invalidBlock, invalidToken
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

/// The simulator's key pairs, PINs, issued and used tokens, and used session keys.
final class AdyenSimulatorRevealState: Sendable {
    struct KeyPair: Sendable {
        /// PKCS #1 DER of the private key (the key type itself is not `Sendable`).
        var privateKeyDER: Data
        var publicKeyDER: Data
        var modulus: Data
        var publicExponent: Data
        var expires: Date
    }

    private struct State {
        var keys: [String: KeyPair] = [:]
        var pins: [String: String] = [:]
        var usedTokens: Set<String> = []
        var usedSessionKeys: Set<String> = []
    }

    private let state = Mutex(State())
    let clock: SimulationClock

    init(clock: SimulationClock) { self.clock = clock }

    func reset() { state.withLock { $0 = State() } }

    /// The purpose's key pair, made now when there is none or the last one expired.
    func currentKey(for purpose: String) throws -> KeyPair {
        let now = clock.now()
        if let key = state.withLock({ $0.keys[purpose] }), now < key.expires { return key }
        let privateKey = try _RSA.Encryption.PrivateKey(keySize: .bits2048)
        let primitives = try privateKey.publicKey.getKeyPrimitives()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let expiryDay = calendar.startOfDay(
            for: now.addingTimeInterval(Double(AdyenSimulator.Seed.publicKeyLifetimeDays) * 86_400))
        let pair = KeyPair(
            privateKeyDER: privateKey.derRepresentation, publicKeyDER: privateKey.publicKey.derRepresentation,
            modulus: primitives.modulus,
            publicExponent: primitives.publicExponent, expires: expiryDay
        )
        state.withLock { $0.keys[purpose] = pair }
        return pair
    }

    /// The AES key in `encryptedKey` (hexadecimal), decrypted with the purpose's current, unexpired private key;
    /// marks it used unless `consume` is false. Adyen-style 422s for anything else.
    func sessionKey(
        _ encryptedKey: String, purpose: String, simulator: AdyenSimulator, consume: Bool = true
    ) throws -> SymmetricKey {
        func refused(_ detail: String) -> AdyenSimulatorFailure {
            simulator.failure(
                422, AdyenSimulatorErrors.invalidEncryptedKey, "Invalid encryptedKey", detail,
                invalidFields: [
                    ("encryptedKey", "", "must be an AES-256 key encrypted with the current \(purpose) public key")
                ]
            )
        }
        let current = state.withLock { $0.keys[purpose] }
        guard let pair = current, clock.now() < pair.expires else {
            throw refused("There is no current \(purpose) public key: get one with GET /publicKey first.")
        }
        guard let ciphertext = ByteEncoding.decodeHex(encryptedKey), !ciphertext.isEmpty,
            let privateKey = try? _RSA.Encryption.PrivateKey(derRepresentation: pair.privateKeyDER),
            let keyBytes = try? privateKey.decrypt(ciphertext, padding: ._WEAK_AND_INSECURE_PKCS_V1_5),
            keyBytes.count == 32
        else {
            throw refused("The encryptedKey could not be decrypted with the current \(purpose) public key.")
        }
        let fingerprint = ByteEncoding.hex(SHA256.hash(data: ciphertext))
        let fresh = state.withLock { state -> Bool in
            guard !state.usedSessionKeys.contains(fingerprint) else { return false }
            if consume { state.usedSessionKeys.insert(fingerprint) }
            return true
        }
        guard fresh else {
            throw simulator.failure(
                422, AdyenSimulatorErrors.sessionKeyUsed, "Invalid encryptedKey",
                "This encryptedKey was already used: make a new session key.")
        }
        return SymmetricKey(data: keyBytes)
    }

    /// A fresh 16-digit token (first digit not 0).
    func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(Int.random(in: 1...9, using: &generator))
            + (0..<15).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
    }

    func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// Whether `token` had not been used for a change yet; marks it used.
    func useToken(_ token: String) -> Bool {
        state.withLock { $0.usedTokens.insert(token).inserted }
    }

    func pin(of instrument: String) -> String {
        state.withLock { $0.pins[instrument] } ?? AdyenSimulator.Seed.initialPIN(of: instrument)
    }

    func setPIN(_ pin: String, of instrument: String) {
        state.withLock { $0.pins[instrument] = pin }
    }
}

/// The simulated cardholder app's side of the flow (what Adyen's card reveal SDKs do): for tests, demos and the
/// contract suite. Not a model of security: it exists to drive the simulator with real cryptography.
public enum AdyenSimulatorApp {
    /// A session: the app's AES-256 key and that key encrypted (RSA PKCS #1 v1.5) with the `pem` public key Adyen
    /// gave (Base64 DER), in capital hexadecimal.
    public static func session(publicKeyPEM: String) throws -> (key: SymmetricKey, encryptedKey: String) {
        guard let der = ByteEncoding.decodeBase64(publicKeyPEM) else {
            throw AdyenSimulatorPINBlock.PINBlockError.invalidBlock
        }
        let publicKey = try _RSA.Encryption.PublicKey(derRepresentation: der)
        let key = SymmetricKey(size: .bits256)
        let encrypted = try key.withUnsafeBytes {
            try publicKey.encrypt(Data($0), padding: ._WEAK_AND_INSECURE_PKCS_V1_5)
        }
        return (key, ByteEncoding.hex(encrypted).uppercased())
    }

    /// The card details in `encryptedData` (AES-256-CBC, zero IV): the JSON object Adyen encrypted.
    public static func cardDetails(_ encryptedData: String, key: SymmetricKey) throws -> [String: Any] {
        guard let bytes = ByteEncoding.decodeHex(encryptedData) else {
            throw AdyenSimulatorPINBlock.PINBlockError.invalidBlock
        }
        let plain = try AES._CBC.decrypt(bytes, using: key, iv: AES._CBC.IV(ivBytes: [UInt8](repeating: 0, count: 16)))
        guard let object = try JSONSerialization.jsonObject(with: plain) as? [String: Any] else {
            throw AdyenSimulatorPINBlock.PINBlockError.invalidBlock
        }
        return object
    }

    /// A new PIN block for `pin` under `key` and a fresh 16-digit token the app made: (block in capital hex, token).
    public static func pinChange(pin: String, key: SymmetricKey) throws -> (encryptedPinBlock: String, token: String) {
        let state = AdyenSimulatorRevealState(clock: SimulationClock())
        let token = state.newToken()
        let block = try AdyenSimulatorPINBlock.encipher(pin: pin, token: token, key: key, random: state.randomBytes(8))
        return (ByteEncoding.hex(block).uppercased(), token)
    }
}
