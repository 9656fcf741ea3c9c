import Foundation
import SwiftASN1

/// Checks on what the app hands the backend for a provisioning round trip, made by the gateway before any
/// provider is asked, so that a malformed chain, an empty nonce or an id with a line break never reaches one.
///
/// The limits are generous bounds on what PassKit and Google's push-provisioning API produce, not the
/// providers' own limits: a chain is PassKit's leaf then subordinate certificate (each one DER-encoded X.509,
/// a few hundred bytes to a few KiB), a nonce and its signature are tens of bytes, Google's ids are short
/// printable strings.
public enum ProvisioningInputChecks: Sendable {
    /// PassKit's chain: the leaf certificate, then the subordinate CA's.
    public static let certificateCount = 2
    /// The largest certificate accepted, in bytes.
    public static let maxCertificateBytes = 16 * 1024
    /// The largest nonce or nonce signature accepted, in bytes.
    public static let maxNonceBytes = 4 * 1024
    /// The longest Google device or wallet account id accepted, in UTF-8 bytes.
    public static let maxWalletIDLength = 256
    /// The largest issuer-SDK output accepted, in bytes.
    public static let maxSDKOutputBytes = 256 * 1024
    /// The longest SDK API version accepted.
    public static let maxAPIVersionLength = 64
    /// The longest app version accepted (Marqeta's `provisioning_app_version` allows 50).
    public static let maxAppVersionLength = 50

    /// Every problem with `request`: the input's own, an input of another wallet
    /// than the request's (Samsung Pay's ids are not Google Pay's), and the app version.
    @_spi(AdapterSupport) public static func problems(in request: ProvisioningRequest) -> ValidationProblems {
        var problems = problems(in: request.input)
        if let inputWallet = request.input.wallet, inputWallet != request.wallet {
            problems.add("input", "carries \(inputWallet) input for a \(request.wallet) provisioning")
        }
        if let version = request.appVersion {
            if version.isEmpty || version.utf8.count > maxAppVersionLength
                || !version.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7f })
            {
                problems.add("appVersion", "must be 1 to \(maxAppVersionLength) printable ASCII characters")
            }
        }
        return problems
    }

    /// Every problem with `input`, by field path (`input.certificates[1]`), never quoting a value.
    @_spi(AdapterSupport) public static func problems(in input: ProvisioningInput) -> ValidationProblems {
        var problems = ValidationProblems()
        if let apple = input.applePay {
            if apple.certificates.count != certificateCount {
                problems.add(
                    "input.certificates",
                    "must hold exactly \(certificateCount) certificates, the leaf then the subordinate CA's (got \(apple.certificates.count))"
                )
            }
            for (index, certificate) in apple.certificates.enumerated() {
                let field = "input.certificates[\(index)]"
                if certificate.isEmpty {
                    problems.add(field, "is empty")
                } else if certificate.count > maxCertificateBytes {
                    problems.add(field, "is larger than \(maxCertificateBytes) bytes")
                } else if !isDERCertificate(certificate.revealedBytes) {
                    problems.add(field, "is not a DER-encoded X.509 certificate")
                }
            }
            check(apple.nonce, field: "input.nonce", into: &problems)
            check(apple.nonceSignature, field: "input.nonceSignature", into: &problems)
        } else if let google = input.googlePay {
            check(google.clientDeviceID, field: "input.clientDeviceID", into: &problems)
            check(google.clientWalletAccountID, field: "input.clientWalletAccountID", into: &problems)
        } else if let samsung = input.samsungPay {
            check(samsung.deviceID, field: "input.deviceID", into: &problems)
            check(samsung.walletUserID, field: "input.walletUserID", into: &problems)
        } else if input.kind == .issuerSDK {
            if let output = input.issuerSDKOutput {
                if output.isEmpty {
                    problems.add("input.sdkOutput", "is empty (leave it out to start the exchange)")
                } else if output.count > maxSDKOutputBytes {
                    problems.add("input.sdkOutput", "is larger than \(maxSDKOutputBytes) bytes")
                }
            }
        } else if let apiVersion = input.issuerSDKAPIVersion {
            if apiVersion.isEmpty {
                problems.add("input.apiVersion", "is required: the API version the issuer SDK asked for")
            } else if apiVersion.utf8.count > maxAPIVersionLength || !isPrintableASCII(apiVersion) {
                problems.add(
                    "input.apiVersion",
                    "must be at most \(maxAPIVersionLength) printable ASCII characters without spaces")
            }
        }
        return problems
    }

    /// Whether `bytes` is one DER-encoded X.509 certificate: a SEQUENCE of the to-be-signed SEQUENCE, the
    /// signature algorithm SEQUENCE and the signature BIT STRING, in definite-length DER with nothing after it.
    /// The certificate is not verified (the provider and the wallet do that); the check only keeps what is
    /// plainly not a certificate away from the provider.
    public static func isDERCertificate(_ bytes: Data) -> Bool {
        guard let node = try? DER.parse(Array(bytes)), node.identifier == .sequence,
            case .constructed(let children) = node.content
        else {
            return false
        }
        var parts = children.makeIterator()
        guard let toBeSigned = parts.next(), toBeSigned.identifier == .sequence, case .constructed = toBeSigned.content,
            let algorithm = parts.next(), algorithm.identifier == .sequence,
            let signature = parts.next(), signature.identifier == .bitString,
            parts.next() == nil
        else { return false }
        return true
    }

    private static func check(_ value: SensitiveData, field: String, into problems: inout ValidationProblems) {
        if value.isEmpty {
            problems.add(field, "is empty")
        } else if value.count > maxNonceBytes {
            problems.add(field, "is larger than \(maxNonceBytes) bytes")
        }
    }

    private static func check(_ id: String, field: String, into problems: inout ValidationProblems) {
        if id.isEmpty {
            problems.add(field, "is required")
        } else if id.utf8.count > maxWalletIDLength || !isPrintableASCII(id) {
            problems.add(field, "must be at most \(maxWalletIDLength) printable ASCII characters without spaces")
        }
    }

    private static func isPrintableASCII(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7f }
    }
}
