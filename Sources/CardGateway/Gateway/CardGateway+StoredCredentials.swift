import Foundation

// Stored credentials: a session for the provider's SDK, the SDK's result verified and kept, and charges on a kept
// credential.
extension CardGateway {
    public func clientSession(
        _ request: ClientSessionRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> ClientSession {
        try await perform(
            .clientSession, on: (any StoredCredentials).self, via: target, context: context,
            journal: JournalEntry(card: request.intent.reference)
        ) { provider, _ in try await provider.clientSession(request, context: context) }
    }

    /// Verifies the SDK's result and keeps the reference in the credential store, with the cardholder's consent to
    /// storing the card (the consent given with the store session) when there is one, as the card schemes require it
    /// recorded.
    public func verifyResult(
        _ token: Secret, customer: String? = nil, consent: CardholderConsent? = nil, via target: RouteTarget,
        context: OperationContext = OperationContext()
    ) async throws -> StoredCredential {
        try await verifyAndKeep(token, customer: customer, consent: consent, via: target, context: context)
    }

    private func verifyAndKeep(
        _ token: Secret, customer: String?, consent: CardholderConsent?, via target: RouteTarget,
        context: OperationContext
    ) async throws -> StoredCredential {
        try await perform(
            .verifyResult, on: (any StoredCredentials).self, via: target, context: context,
            journal: JournalEntry(card: nil),
            afterCall: { credential, instance, _ in
                try await keep(credential, customer: customer, consent: consent, instance: instance)
            }
        ) { provider, _ in try await provider.verifyResult(token, context: context) }
    }

    /// Names the instance, the customer and the consent on a verified credential and saves it in the credential store.
    private func keep(
        _ credential: StoredCredential, customer: String?, consent: CardholderConsent?, instance: ProviderInstance
    ) async throws -> StoredCredential {
        var credential = credential
        credential.provider = instance.name
        if credential.customer == nil { credential.customer = customer }
        if let consent { credential.consentRecordedAt = consent.recordedAt }
        do {
            try await credentialStore.save(credential)
        } catch let error as CardGatewayError {
            throw error.attributed(to: instance.name, kind: instance.kind)
        } catch {
            // The result was verified but not kept: the caller must not treat the card as stored.
            throw CardGatewayError(
                .providerUnavailable,
                "the verified credential \(credential.reference) could not be saved in the credential store (\(type(of: error)))",
                provider: instance.name, providerKind: instance.kind, isRetryable: true
            )
        }
        return credential
    }

    public func charge(
        _ request: ChargeRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> ChargeResult {
        try await perform(
            .charge, on: (any StoredCredentials).self, via: target, context: context,
            journal: JournalEntry(card: request.reference),
            ledger: { instance, _ in valueRecord { LedgerFingerprint.charge(request, instance: instance.name) } },
            afterCall: { result, instance, _ in
                await markUsed(request.reference, instance: instance, context: context)
                return result
            }
        ) { provider, _ in try await provider.charge(request, context: context) }
    }
}
