import CardGatewaySimulation
import Crypto
import Foundation
import X509
import _CryptoExtras

/// Certificates as the simulator makes and reads them, with swift-certificates.
enum BridgeSimulatorCertificates {
    /// True when `data` is exactly one DER-encoded X.509 certificate: nothing before or after it, definite and
    /// minimal lengths, every field of the structure well formed. The chain is not validated: PassKit's certificates
    /// are Apple's, and the simulator holds none of Apple's keys.
    static func isCertificate(_ data: Data) -> Bool {
        (try? Certificate(derEncoded: Array(data))) != nil
    }

    /// The seed's chain (``BridgeSimulator/TestInputs``): "Simulator Subordinate CA", issued by a "Simulator Root CA"
    /// whose certificate is not published, and "Simulator Leaf", issued by the subordinate.
    static let seedChain: (leaf: Data, subordinate: Data) = {
        do {
            let root = try key(0x31)
            let subordinate = try key(0x42)
            return (
                leaf: try make(
                    subject: "Simulator Leaf", key: try key(0x53), issuer: "Simulator Subordinate CA",
                    issuerKey: subordinate, serial: [0x10, 0x2f], isCA: false),
                subordinate: try make(
                    subject: "Simulator Subordinate CA", key: subordinate, issuer: "Simulator Root CA", issuerKey: root,
                    serial: [0x10, 0x2e], isCA: true)
            )
        } catch {
            fatalError("the Bridge simulator could not make its seed certificates: \(error)")
        }
    }()

    /// A fixed P-256 key (test value, never a real key): 32 bytes from `seed`, well below the group order.
    static func key(_ seed: UInt8) throws -> P256.Signing.PrivateKey {
        try P256.Signing.PrivateKey(
            rawRepresentation: Data((0..<32).map { UInt8(truncatingIfNeeded: seed &+ $0 &* 13) }))
    }

    /// A certificate for `key`, issued to `subject` and signed (ECDSA with SHA-256) with `issuerKey` in `issuer`'s
    /// name, valid from 2026 to 2036, in DER. A CA certificate says so in its basic constraints.
    static func make(
        subject: String, key: P256.Signing.PrivateKey, issuer: String, issuerKey: P256.Signing.PrivateKey,
        serial: [UInt8], isCA: Bool
    ) throws -> Data {
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(bytes: serial),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: Date(timeIntervalSince1970: 1_767_225_600),  // 2026-01-01T00:00:00Z
            notValidAfter: Date(timeIntervalSince1970: 2_082_758_400),  // 2036-01-01T00:00:00Z
            issuer: try DistinguishedName { CommonName(issuer) },
            subject: try DistinguishedName { CommonName(subject) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(
                    isCA
                        ? BasicConstraints.isCertificateAuthority(maxPathLength: 0)
                        : BasicConstraints.notCertificateAuthority)
            },
            issuerPrivateKey: Certificate.PrivateKey(issuerKey)
        )
        return Data(try certificate.serializeAsPEM().derBytes)
    }
}

/// The wallet payloads the simulator makes: real ciphertext, never the card data in clear.
enum BridgeSimulatorPayloads {
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
        secret.x963DerivedSymmetricKey(
            using: SHA256.self, sharedInfo: BridgeSimulator.Seed.passEncryptionSharedInfo, outputByteCount: 32)
    }

    /// Encrypts the card data for Apple Pay under a fresh ephemeral key.
    static func apple(account: BridgeSimulatorCardAccount, nonce: Data, nonceSignature: Data) throws -> ApplePayload {
        let ephemeral = P256.KeyAgreement.PrivateKey()
        let shared = try ephemeral.sharedSecretFromKeyAgreement(with: try passEncryptionKey().publicKey)
        let plaintext = try JSONSerialization.data(
            withJSONObject: [
                "primaryAccountNumber": account.pan, "expiration": account.expiry,
                "name": [account.firstName, account.middleName, account.lastName].compactMap { $0 }.joined(
                    separator: " "),
                "nonce": ByteEncoding.hex(nonce), "nonceSignature": ByteEncoding.hex(nonceSignature),
            ],
            options: [.sortedKeys]
        )
        let sealed = try AES.GCM.seal(plaintext, using: symmetricKey(shared))
        guard let combined = sealed.combined else { throw BridgeSimulatorCryptoError.sealFailed }
        var activationMessage = Data(account.id.utf8)
        activationMessage.append(nonce)
        let activation = Data(
            HMAC<SHA256>.authenticationCode(
                for: activationMessage, using: SymmetricKey(data: Data(BridgeSimulator.Seed.activationSecret.utf8))))
        return ApplePayload(
            activationData: activation, encryptedPassData: combined,
            ephemeralPublicKey: ephemeral.publicKey.x963Representation)
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
    static func google(account: BridgeSimulatorCardAccount, walletAccountID: String, deviceID: String) throws -> String
    {
        let plaintext = try JSONSerialization.data(
            withJSONObject: [
                "pan": account.pan, "expiry": account.expiry, "client_wallet_account_id": walletAccountID,
                "client_device_id": deviceID,
            ],
            options: [.sortedKeys]
        )
        guard let combined = try AES.GCM.seal(plaintext, using: opcKey()).combined else {
            throw BridgeSimulatorCryptoError.sealFailed
        }
        return ByteEncoding.base64URL(combined)
    }

    static func openGoogle(_ opaque: Data) throws -> Data {
        try AES.GCM.open(try AES.GCM.SealedBox(combined: opaque), using: opcKey())
    }
}

enum BridgeSimulatorCryptoError: Error {
    case sealFailed
}

/// The simulator's webhook signing keys: 2048-bit RSA, generated once per process on first use.
enum BridgeSimulatorWebhookKey {
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
