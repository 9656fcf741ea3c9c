@_spi(AdapterSupport) import CardGateway
@_spi(AdapterSupport) import CardGatewayBridge
@_spi(AdapterSupport) import CardGatewayTesting
import Crypto
import Foundation
import HTTPTypes
import Testing
import X509
import _CryptoExtras

/// Test inputs for Bridge tests.
///
/// The certificates are real X.509 certificates in DER (swift-certificates: a fresh P-256 key each, self-issued,
/// ECDSA-SHA256), as Bridge's simulator parses them; all are longer than 127 bytes, so they use the long length form.
enum BridgeFixtures {
    static let apiKey = "sk-test-bridge-1f4e9c2a7b"
    static let baseURL = URL(string: "https://api.sandbox.bridge.xyz/v0")!

    /// DER TLV with a correct definite length.
    static func der(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [tag]
        let length = content.count
        if length < 0x80 {
            out.append(UInt8(length))
        } else if length <= 0xff {
            out += [0x81, UInt8(length)]
        } else {
            out += [0x82, UInt8(length >> 8), UInt8(length & 0xff)]
        }
        return out + content
    }

    /// A self-issued X.509 certificate whose subject common name is `name`, for a fresh P-256 key.
    static func certificate(name: String) -> Data {
        let key = P256.Signing.PrivateKey()
        do {
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
                notValidBefore: Date(timeIntervalSince1970: 1_767_225_600),
                notValidAfter: Date(timeIntervalSince1970: 1_893_456_000),
                issuer: try DistinguishedName { CommonName(name) }, subject: try DistinguishedName { CommonName(name) },
                signatureAlgorithm: .ecdsaWithSHA256, extensions: Certificate.Extensions(),
                issuerPrivateKey: Certificate.PrivateKey(key)
            )
            return Data(try certificate.serializeAsPEM().derBytes)
        } catch {
            fatalError("the Bridge test certificate could not be made: \(error)")
        }
    }

    /// The leaf (Apple's per-device certificate).
    static let leafCertificate = certificate(name: "Test Leaf")
    /// The subordinate (Apple's intermediate).
    static let subordinateCertificate = certificate(name: "Test Sub CA")
    /// A third certificate, for chains that are too long.
    static let rootCertificate = certificate(name: "Test Root")
    static let nonce = Data([0xea, 0xa5, 0xa7, 0x3a, 0x10, 0x01, 0xfe, 0xed])
    static let nonceSignature = Data((0..<72).map { UInt8(truncatingIfNeeded: 0xb0 &+ $0 &* 3) })

    static var appleInput: ProvisioningInput {
        .applePay(
            ApplePayProvisioningInput(
                certificates: [leafCertificate, subordinateCertificate], nonce: nonce, nonceSignature: nonceSignature))
    }

    static let googleWalletAccountID = "gwa-3c1d2e"
    static let googleDeviceID = "gdev-9a8b7c"

    static var googleInput: ProvisioningInput {
        .googlePay(
            GooglePayProvisioningInput(clientDeviceID: googleDeviceID, clientWalletAccountID: googleWalletAccountID))
    }

    static let customer = "2c6c1d8e4b5a4f0f9d3e7a1b5c9d0e2f"
    static let cardAccount = "8f1e2d3c4b5a49687766554433221100"
    static var ref: CardRef { CardRef(id: cardAccount, customer: customer) }

    /// Apple payload bytes the scripted Bridge answers with.
    static let activationData = Data("activation-data-for-test".utf8)
    static let encryptedPassData = Data((0..<48).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 200) })
    static let ephemeralPublicKey = Data([0x04] + (0..<64).map { UInt8(truncatingIfNeeded: $0 &+ 1) })

    static var appleResponseJSON: String {
        """
        {"wallet_provider":"apple_pay","apple_pay":{"activation_data":"\(activationData.base64EncodedString())",\
        "encrypted_pass_data":"\(encryptedPassData.base64EncodedString())",\
        "ephemeral_public_key":"\(ephemeralPublicKey.base64EncodedString())"},"some_new_field":{"x":1}}
        """
    }

    /// An OPC in Base64url (with `-` and `_`), as Bridge may send it.
    static let opaquePaymentCard = "eyJvcGMiOiJ0ZXN0LW9wYyJ9-_aGVsbG8x"

    static var googleResponseJSON: String {
        #"{"wallet_provider":"google_pay","google_pay":{"opaque_payment_card":"\#(opaquePaymentCard)"}}"#
    }

    /// A card account as `GET /customers/{id}/card_accounts/{id}` returns it (schema `CardAccount`).
    static func cardAccountJSON(
        status: String = "active", freezes: String = "[]", bin: String = "44325280", expiry: String = "10/29",
        statusReason: String? = nil
    ) -> String {
        """
        {"id":"\(cardAccount)","customer_id":"\(customer)","client_reference_id":"ref-1","status":"\(status)",\
        \(statusReason.map { "\"status_reason\":\"\($0)\"," } ?? "")\
        "cardholder_name":{"first_name":"Ada","middle_name":"King","last_name":"Lovelace"},\
        "card_details":{"last_4":"1264","expiry":"\(expiry)","bin":"\(bin)","pin_status":"ok"},\
        "balances":{"available":{"amount":"100.00","currency":"usdc"},"hold":{"amount":"0.00","currency":"usdc"}},\
        "freezes":\(freezes),"card_image_url":"https://example.invalid/img","unknown_extra":[1,2,3]}
        """
    }

    /// A Bridge adapter over a scripted transport.
    static func provider(
        _ transport: any HTTPTransport, encoding: BridgeCertificateEncoding = .base64, webhookPublicKey: String? = nil,
        retry: RetryPolicy? = nil
    ) throws -> BridgeProvider {
        let http =
            try retry.map {
                try ProviderHTTPClient.testing(kind: .bridge, baseURL: baseURL, transport: transport, retry: $0)
            } ?? ProviderHTTPClient.testing(kind: .bridge, baseURL: baseURL, transport: transport)
        return try BridgeProvider(
            http: http, apiKey: Secret(apiKey), webhookPublicKey: webhookPublicKey.map(Secret.init),
            certificateEncoding: encoding
        )
    }

    /// One RSA key for webhook tests that must fail verification (a key other than the endpoint's).
    static let otherWebhookKey: _RSA.Signing.PrivateKey = {
        do { return try _RSA.Signing.PrivateKey(keySize: .bits2048) } catch {
            fatalError("RSA key generation failed: \(error)")
        }
    }()
}

extension RecordedRequest {
    var jsonObject: [String: JSONValue]? { jsonBody?.objectValue }
}
