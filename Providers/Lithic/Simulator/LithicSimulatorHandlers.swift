import CardGatewaySimulation
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

// The simulator's digital wallet provisioning (`POST /v1/cards/{card_token}/provision`).
extension LithicSimulator {
    /// SHA-256 hex digests of the bytes the last Apple Pay provisioning request carried, Base64-decoded: the
    /// certificate, the nonce, then the nonce signature. The journal masks those fields.
    public var lastApplePayDigests: [String] { state.lastApplePayDigests.withLock { $0 } }

    /// `digital_wallet` (`APPLE_PAY`, `GOOGLE_PAY`, `SAMSUNG_PAY`); Apple Pay's `certificate`, `nonce` and
    /// `nonce_signature` are Base64 (all three, or none: "Omit to receive only `activationData`"); Google and Samsung
    /// need `client_device_id` and `client_wallet_account_id` ("Required for both wallets"). Only an `OPEN` card is
    /// provisioned (the refusal's status, 422, is *unconfirmed*). Answers `provisioning_payload`: Apple's
    /// `{activationData, encryptedData, ephemeralPublicKey}` (Base64 of bytes derived from the inputs), or for Google
    /// and Samsung the Base64 of a JSON object standing for the wallet's opaque card.
    func provision(_ context: SimulatorContext, _ body: Data) throws -> SimulatedResponse {
        let token = context.parameters.get("card_token") ?? ""
        let object = try jsonObject(body)
        guard let wallet = object["digital_wallet"] as? String,
            ["APPLE_PAY", "GOOGLE_PAY", "SAMSUNG_PAY"].contains(wallet)
        else {
            throw invalid("digital_wallet must be APPLE_PAY, GOOGLE_PAY or SAMSUNG_PAY")
        }
        guard let card = state.cards.get(token) else { throw failure(404, "Card not found.") }
        guard card.state == "OPEN" else {
            throw failure(422, "Card is \(card.state); only OPEN cards can be added to a digital wallet.")
        }
        if wallet == "APPLE_PAY" {
            let given = ["certificate", "nonce", "nonce_signature"].map { object[$0] as? String }
            var decoded: [Data] = []
            if given.contains(where: { $0 != nil }) {
                for (name, value) in zip(["certificate", "nonce", "nonce_signature"], given) {
                    guard let value, let bytes = ByteEncoding.decodeBase64(value), !bytes.isEmpty else {
                        throw invalid("\(name) must be Base64-encoded")
                    }
                    decoded.append(bytes)
                }
                state.lastApplePayDigests.withLock {
                    $0 = decoded.map { ByteEncoding.hex(SHA256.hash(data: $0)) }
                }
            }
            let seed = Data(card.token.utf8) + decoded.reduce(Data(), +)
            var payload: [String: Any] = [
                "activationData": Self.derived("activationData", seed, 48).base64EncodedString()
            ]
            if !decoded.isEmpty {
                payload["encryptedData"] = Self.derived("encryptedData", seed, 96).base64EncodedString()
                payload["ephemeralPublicKey"] = Self.derived("ephemeralPublicKey", seed, 65).base64EncodedString()
            }
            return .json(200, ["provisioning_payload": payload])
        }
        guard let device = object["client_device_id"] as? String, !device.isEmpty,
            let account = object["client_wallet_account_id"] as? String, !account.isEmpty
        else {
            throw invalid("client_device_id and client_wallet_account_id are required for \(wallet)")
        }
        let opaque: [String: Any] = [
            "wallet": wallet, "card": card.token, "last_four": card.lastFour,
            "ciphertext": Self.derived(wallet, Data("\(card.token)|\(device)|\(account)".utf8), 64)
                .base64EncodedString(),
        ]
        let json = (try? JSONSerialization.data(withJSONObject: opaque, options: [.sortedKeys])) ?? Data()
        return .json(200, ["provisioning_payload": json.base64EncodedString()])
    }

    /// `size` bytes derived from `label` and `seed` (SHA-256 in counter mode).
    static func derived(_ label: String, _ seed: Data, _ size: Int) -> Data {
        var bytes = Data()
        var counter = 0
        while bytes.count < size {
            bytes.append(contentsOf: SHA256.hash(data: Data("\(label)|\(counter)|".utf8) + seed))
            counter += 1
        }
        return bytes.prefix(size)
    }
}
