import CardGateway
import Foundation
import Hummingbird

/// The request and response bodies of `POST /v1/cards/{cardId}/provisioning/{wallet}`, one shape per flow.
enum ProvisioningWire {
    /// Reads the body the flow expects; any other shape is a 400.
    ///
    /// - encrypted payload, Apple Pay: `{"certificates": [b64, …], "nonce": b64, "nonceSignature": b64}`
    /// - encrypted payload, Google Pay: `{"clientDeviceId": "…", "clientWalletAccountId": "…"}`
    /// - issuer SDK relay: `{"sdkOutput": b64}`, or `{}` to start
    /// - issuer SDK key: `{"apiVersion": "2020-08-27"}`
    static func input(from data: Data, flow: ProvisioningFlow, wallet: Wallet) throws -> ProvisioningInput {
        switch (flow, wallet) {
        case (.encryptedPayload, .applePay):
            var body = try JSONBody(data, allowed: ["certificates", "nonce", "nonceSignature"])
            let certificates = body.base64List("certificates", maxItems: 10)
            let nonce = body.base64("nonce", maxBytes: 1024)
            let signature = body.base64("nonceSignature", maxBytes: 4096)
            try body.finish()
            guard let certificates, let nonce, let signature else { throw APIProblem.invalidRequest("The Apple Pay provisioning body is incomplete.") }
            return .applePay(ApplePayProvisioningInput(certificates: certificates, nonce: nonce, nonceSignature: signature))

        case (.encryptedPayload, .googlePay):
            var body = try JSONBody(data, allowed: ["clientDeviceId", "clientWalletAccountId"])
            let deviceID = body.string("clientDeviceId", maxLength: 256)
            let accountID = body.string("clientWalletAccountId", maxLength: 256)
            try body.finish()
            guard let deviceID, let accountID else { throw APIProblem.invalidRequest("The Google Pay provisioning body is incomplete.") }
            return .googlePay(GooglePayProvisioningInput(clientDeviceID: deviceID, clientWalletAccountID: accountID))

        case (.encryptedPayload, _):
            throw APIProblem.unsupported("The server has no request shape for \(wallet) by the encrypted-payload flow.")

        case (.issuerSDKRelay, _):
            var body = try JSONBody(data, allowed: ["sdkOutput"])
            let output = body.base64("sdkOutput", required: false, maxBytes: 256 * 1024)
            try body.finish()
            return .issuerSDK(output: output.map(SensitiveData.init))

        case (.issuerSDKKey, _):
            var body = try JSONBody(data, allowed: ["apiVersion"])
            let version = body.string("apiVersion", maxLength: 64)
            if let version, !RequestScope.isSafeToken(version, maxLength: 64) {
                body.refuse("apiVersion", "must be an API version such as 2020-08-27")
            }
            try body.finish()
            guard let version else { throw APIProblem.invalidRequest("apiVersion is required.") }
            return .issuerSDKKey(apiVersion: version)

        default:
            throw APIProblem.unsupported("The server has no request shape for the \(flow) flow.")
        }
    }

    struct ApplePayView: Encodable {
        var activationData: String
        var encryptedPassData: String
        var ephemeralPublicKey: String
    }

    struct GooglePayView: Encodable {
        var opaquePaymentCard: String
        var network: CardScheme?
        var tokenProvider: String?
        var displayName: String?
        var lastFour: String?
    }

    struct RelayView: Encodable {
        var sdkInput: String
    }

    /// Writes the provider's answer: Base64 payloads, or the ephemeral key's JSON byte for byte.
    static func response(_ response: ProvisioningResponse) -> Response {
        switch response {
        case .applePay(let payload):
            return JSONOutput.response(ApplePayView(
                activationData: base64(payload.activationData), encryptedPassData: base64(payload.encryptedPassData),
                ephemeralPublicKey: base64(payload.ephemeralPublicKey)
            ))
        case .googlePay(let payload):
            return JSONOutput.response(GooglePayView(
                opaquePaymentCard: base64(payload.opaquePaymentCard), network: payload.network, tokenProvider: payload.tokenProvider,
                displayName: payload.displayName, lastFour: payload.lastFour
            ))
        case .issuerSDKInput(let input):
            return JSONOutput.response(RelayView(sdkInput: base64(input)))
        case .ephemeralKey(let key):
            return JSONOutput.raw(key.rawJSON.revealedBytes, contentType: "application/json")
        }
    }

    static func base64(_ data: SensitiveData) -> String { ByteEncoding.base64(data.revealedBytes) }
}
