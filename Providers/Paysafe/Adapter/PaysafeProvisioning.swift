@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// Wallet provisioning: offers, tokenization and its confirmation.
extension PaysafeProvider {
    /// Only ACTIVE and DIGITAL cards are offered: a DIGITAL card is a physical card already usable online while
    /// it is being delivered, and Paysafe tokenizes it (it decides at tokenization). Existing tokenizations for
    /// the wallet are listed; a COMPLETED one does not make the card ineligible (the app checks its own device
    /// for the pass, Paysafe's tokenization may be on another device).
    public func offer(for ref: CardRef, wallet: Wallet, context: OperationContext) async throws -> ProvisioningOffer {
        let card = try await card(ref, context: context)
        let existing = card.walletTokens.filter { $0.wallet == wallet }
        guard let flow = descriptor.provisioningFlows[wallet] else {
            return ProvisioningOffer(
                card: card.ref, wallet: wallet, eligible: false, ineligibleReason: .walletNotSupported(wallet),
                flow: nil,
                cardholderName: card.cardholderName, lastFour: card.lastFour, network: card.scheme, expiry: card.expiry,
                existingTokens: existing
            )
        }
        let eligible = card.status == .active || card.status == .digital
        return ProvisioningOffer(
            card: card.ref, wallet: wallet, eligible: eligible,
            ineligibleReason: eligible
                ? nil
                : IneligibilityReason(
                    code: "cardNotActive",
                    message:
                        "the card is \(SafeText.scrub(card.providerStatus, maxLength: 40)); only ACTIVE and DIGITAL Paysafe cards can be added to a wallet"
                ),
            flow: flow, cardholderName: card.cardholderName, lastFour: card.lastFour, network: card.scheme,
            expiry: card.expiry,
            existingTokens: existing
        )
    }

    /// Tokenizes the card for Apple Pay (certificates, nonce and signature, hex-encoded on the wire) or Google
    /// Pay (device and wallet account ids; required for Visa cards, so the card is fetched when either is
    /// missing) and returns the wallet payload.
    public func provision(
        _ request: ProvisioningRequest, context: OperationContext
    ) async throws -> ProvisioningResponse {
        var problems = ValidationProblems()
        PaysafeValidation.provision(request, into: &problems)
        try problems.throwIfAny()
        let customer = request.card.customer ?? ""

        var wire = PaysafeWireTokenizationRequest(walletType: PaysafeMapping.walletType(request.wallet))
        if let input = request.input.applePay {
            wire.leafCertificate = ByteEncoding.hex(input.certificates[0].revealedBytes)
            wire.subordinateCertificate = ByteEncoding.hex(input.certificates[1].revealedBytes)
            wire.nonce = ByteEncoding.hex(input.nonce.revealedBytes)
            wire.nonceSignature = ByteEncoding.hex(input.nonceSignature.revealedBytes)
        } else if let input = request.input.googlePay {
            if PaysafeValidation.isBlank(input.clientDeviceID) || PaysafeValidation.isBlank(input.clientWalletAccountID)
            {
                let card = try await fetchCard(request.card, context: context, primary: false)
                PaysafeValidation.googleIDs(input, scheme: card.scheme, into: &problems)
                try problems.throwIfAny()
            }
            wire.clientDeviceId = PaysafeValidation.isBlank(input.clientDeviceID) ? nil : input.clientDeviceID
            wire.clientWalletAccountId =
                PaysafeValidation.isBlank(input.clientWalletAccountID) ? nil : input.clientWalletAccountID
        } else if request.input.flow == .encryptedPayload {
            throw CardGatewayError.invalidRequest(
                "this adapter provisions Apple Pay and Google Pay only", field: "input")
        } else {
            throw CardGatewayError.invalidRequest(
                "Paysafe provisions by encrypted payload, not by an issuer SDK", field: "input")
        }

        let response = try await perform(
            PaysafeCall(
                .post, PaysafeAPI.tokenizations(customer: customer, card: request.card.id), body: try encode(wire),
                operation: "tokenize a card", signing: .tokenize),
            context: context
        )
        let tokenization = try calls.decode(PaysafeWireCardTokenization.self, from: response, what: "tokenization")
        return try mapTokenization(tokenization, wallet: request.wallet, response: response)
    }

    /// Marks the card's tokenization for the wallet COMPLETED with the wallet's device account reference.
    public func confirm(_ confirmation: ProvisioningConfirmation, context: OperationContext) async throws {
        var problems = ValidationProblems()
        PaysafeValidation.confirm(confirmation, into: &problems)
        try problems.throwIfAny()
        let wire = PaysafeWireTokenizationUpdate(
            dpanRef: confirmation.deviceAccountReference,
            walletId: confirmation.walletID.flatMap { $0.isEmpty ? nil : $0 },
            walletType: PaysafeMapping.walletType(confirmation.wallet), status: "COMPLETED"
        )
        let response = try await perform(
            PaysafeCall(
                PaysafeAPI.updateTokenizationMethod,
                PaysafeAPI.tokenizations(customer: confirmation.card.customer ?? "", card: confirmation.card.id),
                body: try encode(wire), operation: "complete a tokenization", signing: .completeTokenization
            ),
            context: context
        )
        // The answer's fields are not documented, so none is read; but an answer that is not JSON (a proxy's HTML
        // page, a cut-off body) did not come from Paysafe's API and cannot be taken as the update's success.
        if !response.body.isEmpty {
            _ = try calls.decode(JSONValue.self, from: response, what: "tokenization update")
        }
    }

    private func mapTokenization(
        _ wire: PaysafeWireCardTokenization, wallet: Wallet, response: ProviderResponse
    ) throws -> ProvisioningResponse {
        let network = PaysafeMapping.network(wire.cardNetwork)
        switch wallet {
        case .applePay:
            var missing: [String] = []
            let activation = wire.activationData.flatMap(PaysafeMapping.base64)
            let passData = wire.encryptedPassData.flatMap(PaysafeMapping.base64)
            let ephemeral = wire.ephemeralPublicKey.flatMap(PaysafeMapping.base64)
            if activation == nil { missing.append("activationData") }
            if passData == nil { missing.append("encryptedPassData") }
            if ephemeral == nil { missing.append("ephemeralPublicKey") }
            guard let activation, let passData, let ephemeral else {
                throw calls.invalidResponse(
                    "Paysafe's Apple Pay tokenization lacks valid Base64 \(missing.joined(separator: ", "))", response)
            }
            return .applePay(
                ApplePayPayload(
                    activationData: SensitiveData(activation), encryptedPassData: SensitiveData(passData),
                    ephemeralPublicKey: SensitiveData(ephemeral),
                    network: network, tokenProvider: wire.tokenProvider
                ))
        default:
            // Google Pay and Samsung Pay (Paysafe's GOOGLE_PAY and SAMSUNG_PAY). Paysafe says to pass the opaque payment card as-is: it is kept as the string's UTF-8 bytes, which is
            // what Google's push tokenize takes (as every adapter does), never decoded.
            guard let opaque = wire.opaquePaymentCard, !opaque.isEmpty else {
                throw calls.invalidResponse(
                    "Paysafe's Google Pay tokenization lacks an opaquePaymentCard", response)
            }
            return .googlePay(
                GooglePayPayload(
                    opaquePaymentCard: SensitiveData(Data(opaque.utf8)), network: network,
                    tokenProvider: wire.tokenProvider, lastFour: wire.cardLastDigits
                ))
        }
    }
}
