@_spi(AdapterSupport) import CardGateway
import Foundation

/// Push provisioning to Apple Pay, Google Pay and Samsung Pay: one endpoint for the three wallets,
/// `POST /v1/cards/{card_token}/provision` (Provision card (Digital Wallet)), whose `digital_wallet` names the wallet.
extension LithicProvider: WalletProvisioning {
    /// Eligibility from the card (only an `OPEN` card is offered; the reason names any other state) and the card's
    /// existing tokenizations. Every wallet is the encrypted-payload flow.
    public func offer(for card: CardRef, wallet: Wallet, context: OperationContext) async throws -> ProvisioningOffer {
        let mapped = try await self.card(card, context: context)
        guard let flow = descriptor.provisioningFlows[wallet] else {
            return ProvisioningOffer(
                card: mapped.ref, wallet: wallet, eligible: false, ineligibleReason: .walletNotSupported(wallet),
                flow: nil, cardholderName: nil, lastFour: mapped.lastFour, network: mapped.scheme,
                expiry: mapped.expiry)
        }
        let reason: IneligibilityReason? =
            mapped.providerStatus == LithicAPI.CardState.open ? nil : .cardNotActive(mapped.providerStatus)
        let tokens = try await walletTokens(of: mapped.ref, context: context)
        return ProvisioningOffer(
            card: mapped.ref, wallet: wallet, eligible: reason == nil, ineligibleReason: reason, flow: flow,
            cardholderName: nil, lastFour: mapped.lastFour, network: mapped.scheme, expiry: mapped.expiry,
            existingTokens: tokens)
    }

    /// One provisioning request. Apple Pay: `digital_wallet: APPLE_PAY` with `certificate` (Apple's leaf certificate,
    /// "Base64 encoded in PEM format with headers and trailers omitted": the Base64 of the DER bytes PassKit gives
    /// first), `nonce` and `nonce_signature` (Base64); answers `provisioning_payload` as
    /// `{activationData, encryptedData, ephemeralPublicKey}`, each Base64, returned decoded as an ``ApplePayPayload``.
    /// Google Pay and Samsung Pay: `digital_wallet: GOOGLE_PAY` / `SAMSUNG_PAY` with `client_device_id` and
    /// `client_wallet_account_id`; answers `provisioning_payload` as a Base64 string ("Base64 encoded JSON payload
    /// representing a payment card that can be passed to a device's digital wallet"), handed to the wallet as it is
    /// (the UTF-8 of the string, as Google's `opaquePaymentCard` and Samsung's payload take it). Sent once: Lithic
    /// documents no idempotency key for this endpoint.
    public func provision(
        _ request: ProvisioningRequest, context: OperationContext
    ) async throws -> ProvisioningResponse {
        guard descriptor.provisioningFlows[request.wallet] != nil else {
            throw CardGatewayError(
                .unsupported, "Lithic cannot provision cards to \(request.wallet)", provider: http.instance,
                providerKind: .lithic)
        }
        var problems = ValidationProblems()
        ProviderIDs.check(
            request.card.id, field: "card.id", what: "a Lithic card token", maxLength: LithicAPI.tokenMaxLength,
            into: &problems)
        let body: LithicWireProvisionRequest
        if request.wallet == .applePay, let input = request.input.applePay {
            problems.require(
                !(input.certificates.first?.isEmpty ?? true), "input.certificates",
                "Lithic needs Apple's leaf certificate (the first PassKit gives)")
            problems.require(!input.nonce.isEmpty, "input.nonce", "is empty")
            problems.require(!input.nonceSignature.isEmpty, "input.nonceSignature", "is empty")
            try problems.throwIfAny()
            body = LithicWireProvisionRequest(
                digitalWallet: "APPLE_PAY",
                certificate: input.certificates.first.map { ByteEncoding.base64($0.revealedBytes) },
                nonce: ByteEncoding.base64(input.nonce.revealedBytes),
                nonceSignature: ByteEncoding.base64(input.nonceSignature.revealedBytes))
        } else if request.wallet == .googlePay, let input = request.input.googlePay {
            check(input.clientDeviceID, field: "input.clientDeviceID", into: &problems)
            check(input.clientWalletAccountID, field: "input.clientWalletAccountID", into: &problems)
            try problems.throwIfAny()
            body = LithicWireProvisionRequest(
                digitalWallet: "GOOGLE_PAY", clientDeviceID: input.clientDeviceID,
                clientWalletAccountID: input.clientWalletAccountID)
        } else if request.wallet == .samsungPay, let input = request.input.samsungPay {
            check(input.deviceID, field: "input.deviceID", into: &problems)
            check(input.walletUserID, field: "input.walletUserID", into: &problems)
            try problems.throwIfAny()
            body = LithicWireProvisionRequest(
                digitalWallet: "SAMSUNG_PAY", clientDeviceID: input.deviceID, clientWalletAccountID: input.walletUserID)
        } else {
            throw CardGatewayError(
                .invalidRequest,
                "Lithic provisions \(request.wallet) by its own encrypted-payload input; the request carries \(request.input)",
                provider: http.instance, providerKind: .lithic)
        }
        let response = try await calls.send(
            ProviderRequest(
                .post, LithicAPI.provision(request.card.id), headers: calls.headers(json: true),
                body: try calls.encode(body),
                repeatability: .never, operation: "provision \(request.wallet)"),
            context: context
        )
        let answer = try calls.decode(LithicWireProvisionResponse.self, from: response, what: "provisioning")
        switch (request.wallet, answer.provisioningPayload) {
        case (.applePay, .apple(let apple)?):
            func part(_ text: String?, _ name: String) throws -> SensitiveData {
                guard let text, !text.isEmpty else {
                    throw calls.invalidResponse("Lithic's Apple Pay provisioning_payload has no \(name)", response)
                }
                guard let bytes = ByteEncoding.decodeBase64(text), !bytes.isEmpty else {
                    throw calls.invalidResponse("Lithic's \(name) is not Base64", response)
                }
                return SensitiveData(bytes)
            }
            return .applePay(
                ApplePayPayload(
                    activationData: try part(apple.activationData, "activationData"),
                    encryptedPassData: try part(apple.encryptedData, "encryptedData"),
                    ephemeralPublicKey: try part(apple.ephemeralPublicKey, "ephemeralPublicKey")))
        case (.googlePay, .text(let text)?) where !text.isEmpty:
            return .googlePay(GooglePayPayload(opaquePaymentCard: SensitiveData(Data(text.utf8))))
        case (.samsungPay, .text(let text)?) where !text.isEmpty:
            return .samsungPay(SamsungPayPayload(extraProvisionPayload: SensitiveData(Data(text.utf8))))
        default:
            throw calls.invalidResponse(
                "Lithic's answer has no provisioning_payload of the shape \(request.wallet) takes", response)
        }
    }

    /// Lithic needs nothing once the wallet reports success (the tokenization follows as `tokenization.*` events).
    public func confirm(_ confirmation: ProvisioningConfirmation, context: OperationContext) async throws {}

    private func check(_ value: String, field: String, into problems: inout ValidationProblems) {
        problems.require(
            !value.isEmpty && value.count <= 255
                && !value.unicodeScalars.contains { $0.properties.generalCategory == .control },
            field, "must be 1 to 255 characters without control characters")
    }
}
