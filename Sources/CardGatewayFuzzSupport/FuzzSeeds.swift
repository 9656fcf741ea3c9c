import CardGateway
import Foundation

/// The ids, credentials and inputs the harnesses use. They are the simulators' published seed values (test values,
/// not secrets of anyone's), so that the same operations recorded against the simulators give the seed corpus real
/// answers. Each room adds its own (`FuzzSeeds.<Name>`, in `Providers/<Name>/Fuzz`); here are the shared ones.
package enum FuzzSeeds {
    /// Apple Pay input of plausible shape: two DER-looking certificates, a nonce and its signature.
    package static let applePay = ProvisioningInput.applePay(
        ApplePayProvisioningInput(
            certificates: [
                Data([0x30, 0x82, 0x01, 0x0a] + Array(repeating: 0x41, count: 64)),
                Data([0x30, 0x82, 0x01, 0x0a] + Array(repeating: 0x42, count: 64)),
            ],
            nonce: Data([0x5a, 0x1c, 0x0e, 0x77]), nonceSignature: Data(repeating: 0x90, count: 64)
        )
    )
    package static let googlePay = ProvisioningInput.googlePay(
        GooglePayProvisioningInput(clientDeviceID: "sim-device-1", clientWalletAccountID: "sim-wallet-account-1"))
}

/// Valid answers to the reads an operation makes before its write (``FixedAnswer``), in the shape of the
/// simulators' answers (the corpus's `card-200` and `token-200` files). Each room adds its own.
package enum FuzzFixed {}
