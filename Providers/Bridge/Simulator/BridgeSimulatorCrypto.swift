import CardGatewaySimulation
import Crypto
import Foundation
import _CryptoExtras

/// Just enough DER to be sure a certificate field holds one X.509-shaped certificate: an outer SEQUENCE with a
/// definite, minimally encoded length that spans the whole input, whose content is exactly three TLVs —
/// SEQUENCE (tbsCertificate), SEQUENCE (signatureAlgorithm), BIT STRING (signatureValue) — each well formed.
enum SimulatorDER {
    struct TLV {
        var tag: UInt8
        var content: Range<Int>
        var end: Int
    }

    /// Reads one TLV at `offset`; nil when it is not DER (indefinite or non-minimal length, overrun, high tag).
    static func readTLV(_ bytes: [UInt8], at offset: Int, limit: Int) -> TLV? {
        guard offset + 2 <= limit else { return nil }
        let tag = bytes[offset]
        guard tag & 0x1f != 0x1f else { return nil }
        let first = Int(bytes[offset + 1])
        var length = 0
        var start = offset + 2
        if first < 0x80 {
            length = first
        } else {
            let count = first & 0x7f
            guard count >= 1, count <= 4, start + count <= limit, bytes[start] != 0 else { return nil }
            for index in 0..<count { length = length << 8 | Int(bytes[start + index]) }
            guard length >= 0x80 else { return nil }
            start += count
        }
        guard start + length <= limit else { return nil }
        return TLV(tag: tag, content: start..<(start + length), end: start + length)
    }

    static func isCertificate(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        guard let outer = readTLV(bytes, at: 0, limit: bytes.count), outer.tag == 0x30, outer.end == bytes.count else { return false }
        var children: [UInt8] = []
        var offset = outer.content.lowerBound
        while offset < outer.content.upperBound {
            guard let child = readTLV(bytes, at: offset, limit: outer.content.upperBound) else { return false }
            children.append(child.tag)
            offset = child.end
        }
        return children == [0x30, 0x30, 0x03]
    }
}

/// The wallet payloads the simulator makes: real ciphertext, never the card data in clear.
enum SimulatorPayloads {
    struct ApplePayload {
        var activationData: Data
        var encryptedPassData: Data
        /// Uncompressed P-256 point: 65 bytes starting 0x04.
        var ephemeralPublicKey: Data
    }

    static func passEncryptionKey() throws -> P256.KeyAgreement.PrivateKey {
        try P256.KeyAgreement.PrivateKey(rawRepresentation: BridgeSimulator.Seed.passEncryptionPrivateKeyRaw)
    }

    static func symmetricKey(_ secret: SharedSecret) -> SymmetricKey {
        secret.x963DerivedSymmetricKey(using: SHA256.self, sharedInfo: BridgeSimulator.Seed.passEncryptionSharedInfo, outputByteCount: 32)
    }

    /// Encrypts the card data for Apple Pay under a fresh ephemeral key.
    static func apple(account: SimulatedCardAccount, nonce: Data, nonceSignature: Data) throws -> ApplePayload {
        let ephemeral = P256.KeyAgreement.PrivateKey()
        let shared = try ephemeral.sharedSecretFromKeyAgreement(with: try passEncryptionKey().publicKey)
        let plaintext = try JSONSerialization.data(
            withJSONObject: [
                "primaryAccountNumber": account.pan, "expiration": account.expiry,
                "name": [account.firstName, account.middleName, account.lastName].compactMap { $0 }.joined(separator: " "),
                "nonce": ByteEncoding.hex(nonce), "nonceSignature": ByteEncoding.hex(nonceSignature),
            ],
            options: [.sortedKeys]
        )
        let sealed = try AES.GCM.seal(plaintext, using: symmetricKey(shared))
        guard let combined = sealed.combined else { throw SimulatorCryptoError.sealFailed }
        var activationMessage = Data(account.id.utf8)
        activationMessage.append(nonce)
        let activation = Data(HMAC<SHA256>.authenticationCode(for: activationMessage, using: SymmetricKey(data: Data(BridgeSimulator.Seed.activationSecret.utf8))))
        return ApplePayload(activationData: activation, encryptedPassData: combined, ephemeralPublicKey: ephemeral.publicKey.x963Representation)
    }

    /// Decrypts `encrypted_pass_data` with the simulator's key (tests use it to prove the payload is real).
    static func openApple(encryptedPassData: Data, ephemeralPublicKey: Data) throws -> Data {
        let ephemeral = try P256.KeyAgreement.PublicKey(x963Representation: ephemeralPublicKey)
        let shared = try passEncryptionKey().sharedSecretFromKeyAgreement(with: ephemeral)
        return try AES.GCM.open(try AES.GCM.SealedBox(combined: encryptedPassData), using: symmetricKey(shared))
    }

    static func opcKey() -> SymmetricKey {
        SymmetricKey(data: SHA256.hash(data: Data(BridgeSimulator.Seed.opaquePaymentCardSecret.utf8)))
    }

    /// Seals the card data for Google Pay; the result is Base64url without padding.
    static func google(account: SimulatedCardAccount, walletAccountID: String, deviceID: String) throws -> String {
        let plaintext = try JSONSerialization.data(
            withJSONObject: [
                "pan": account.pan, "expiry": account.expiry, "client_wallet_account_id": walletAccountID, "client_device_id": deviceID,
            ],
            options: [.sortedKeys]
        )
        guard let combined = try AES.GCM.seal(plaintext, using: opcKey()).combined else { throw SimulatorCryptoError.sealFailed }
        return ByteEncoding.base64URL(combined)
    }

    static func openGoogle(_ opaque: Data) throws -> Data {
        try AES.GCM.open(try AES.GCM.SealedBox(combined: opaque), using: opcKey())
    }
}

enum SimulatorCryptoError: Error {
    case sealFailed
}

/// The simulator's webhook signing keys: 2048-bit RSA, generated once per process on first use.
enum SimulatorWebhookKey {
    /// Signs genuine deliveries.
    static let shared = generate()
    /// Signs forged deliveries (``BridgeSimulator/forgedWebhook(body:at:)``).
    static let forger = generate()

    private static func generate() -> _RSA.Signing.PrivateKey {
        do {
            return try _RSA.Signing.PrivateKey(keySize: .bits2048)
        } catch {
            fatalError("the Bridge simulator could not generate an RSA webhook key: \(error)")
        }
    }
}
