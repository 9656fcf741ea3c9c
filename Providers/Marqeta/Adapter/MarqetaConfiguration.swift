import CardGateway
import Foundation
import HTTPTypes
import Logging

extension ProviderKind {
    /// Marqeta Core API (issuer processor).
    public static let marqeta = ProviderKind("marqeta")
}

extension ProviderFactory {
    /// Marqeta: `registry.register(.marqeta)`.
    ///
    /// - Environments: `sandbox` (`https://sandbox-api.marqeta.com/v3`). Production base URLs are issued per program:
    ///   name it as `baseURL`.
    /// - Credentials: `applicationToken` and `accessToken` (required: HTTP Basic username and password),
    ///   `webhookUsername` and `webhookPassword` (the Basic credentials configured on the Marqeta webhook), and
    ///   `webhookSecret` (the webhook's `secret`, for `X-Marqeta-Signature`). Verifying webhooks needs the Basic pair,
    ///   the secret, or both.
    /// - Options (defaults for what each ``ProvisioningRequest`` may say itself): `provisioningAppVersion` (the
    ///   `provisioning_app_version` Marqeta asks of every provisioning request, 1–50 characters, for requests that carry
    ///   no ``ProvisioningRequest/appVersion``) and `deviceType` (one of Marqeta's `device_type` values, `MOBILE_PHONE`
    ///   by default, for requests that carry no ``ProvisioningRequest/deviceType``).
    public static var marqeta: ProviderFactory {
        ProviderFactory(
            kind: .marqeta,
            descriptor: MarqetaProvider.descriptor,
            environments: MarqetaAPI.environments,
            credentials: [
                CredentialSpec(
                    "applicationToken", required: true, summary: "Marqeta application token (HTTP Basic username)"),
                CredentialSpec(
                    "accessToken", required: true, summary: "Marqeta user or admin access token (HTTP Basic password)"),
                CredentialSpec(
                    "webhookUsername", required: false, summary: "basic_auth_username configured on the Marqeta webhook"
                ),
                CredentialSpec(
                    "webhookPassword", required: false, summary: "basic_auth_password configured on the Marqeta webhook"
                ),
                CredentialSpec(
                    "webhookSecret", required: false,
                    summary: "the Marqeta webhook's secret, which signs X-Marqeta-Signature"),
                CredentialSpec(
                    "authorizationUsername", required: false,
                    summary: "basic_auth_username of the program gateway funding source (Gateway JIT Funding requests)"),
                CredentialSpec(
                    "authorizationPassword", required: false,
                    summary: "basic_auth_password of the program gateway funding source (Gateway JIT Funding requests)"),
            ],
            options: MarqetaOptions.self,
            make: { setup, options in try MarqetaProvider(setup: setup, options: options) }
        )
    }
}

/// A Marqeta instance's `options`: defaults for what a provisioning request does not say itself.
public struct MarqetaOptions: ProviderOptions, Equatable {
    /// `provisioning_app_version` of a provisioning request that carries no ``ProvisioningRequest/appVersion``; nil
    /// makes the app version required of every request.
    public var provisioningAppVersion: String?
    /// `device_type` of a provisioning request that carries no ``ProvisioningRequest/deviceType``.
    public var deviceType: String

    enum CodingKeys: String, CodingKey { case provisioningAppVersion, deviceType }

    public static let specs: [OptionSpec] = [
        OptionSpec(
            CodingKeys.provisioningAppVersion, type: .string,
            summary:
                "provisioning_app_version for push-provisioning requests that carry no appVersion (1-50 characters)"
        ),
        OptionSpec(
            CodingKeys.deviceType, type: .string, allowedValues: MarqetaAPI.deviceTypes,
            summary: "device_type for push-provisioning requests that carry no deviceType (default MOBILE_PHONE)"
        ),
    ]

    public init(provisioningAppVersion: String? = nil, deviceType: String = "MOBILE_PHONE") {
        self.provisioningAppVersion = provisioningAppVersion
        self.deviceType = deviceType
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decodeIfPresent(String.self, forKey: .provisioningAppVersion)
        if let version, version.isEmpty || version.count > MarqetaAPI.appVersionMaxLength {
            throw DecodingError.dataCorruptedError(
                forKey: .provisioningAppVersion, in: container, debugDescription: "must be 1 to 50 characters")
        }
        provisioningAppVersion = version
        let device = try container.decodeIfPresent(String.self, forKey: .deviceType) ?? MarqetaAPI.defaultDeviceType
        guard MarqetaAPI.deviceTypes.contains(device) else {
            throw DecodingError.dataCorruptedError(
                forKey: .deviceType, in: container,
                debugDescription: "must be one of \(MarqetaAPI.deviceTypes.joined(separator: ", "))")
        }
        deviceType = device
    }
}
