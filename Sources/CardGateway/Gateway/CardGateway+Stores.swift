import Crypto
import Foundation
import Logging

// The gateway's per-operation bookkeeping: the operation ledger around writes and the provisioning journal
// around wallet and stored-credential operations.

extension CardGateway {
    /// A copy of this gateway that records writes in `ledger` and operations in `journal` (both in memory unless
    /// given), with `policy` for retention and waiting. Instances of a service that share a database share their
    /// ledger, so a retry on any of them with the same idempotency key is never sent twice.
    public func using(
        ledger: (any OperationLedger)? = nil, journal: (any ProvisioningJournal)? = nil,
        ledgerPolicy: LedgerPolicy? = nil
    ) -> CardGateway {
        var copy = self
        if let ledger { copy.operationLedger = ledger }
        if let journal { copy.provisioningJournal = journal }
        if let ledgerPolicy { copy.ledgerPolicy = ledgerPolicy }
        return copy
    }
}

// MARK: Operation ledger

/// A canonical, length-prefixed list of an operation's parameters, hashed with SHA-256. Secrets (a PIN, a CVV) are
/// never part of it: a short secret's hash could be reversed by trying every value.
struct LedgerFingerprint {
    private var text = ""

    init(_ operation: GatewayOperation, instance: String) {
        add("operation", operation.rawValue)
        add("instance", instance)
    }

    mutating func add(_ name: String, _ value: String?) {
        text += name
        if let value { text += "=\(value.utf8.count):\(value)\n" } else { text += "-\n" }
    }

    var digest: String {
        ByteEncoding.hex(SHA256.hash(data: Data(text.utf8)))
    }

    static func charge(_ request: ChargeRequest, instance: String) -> String {
        var print = LedgerFingerprint(.charge, instance: instance)
        print.add("reference", request.reference)
        print.add("amount", String(request.amount.minorUnits))
        print.add("currency", request.amount.currency)
        switch request.initiator.kind {
        case .customer: print.add("initiator", "customer")
        default: print.add("initiator", "\(request.initiator.kind):\(request.initiator.merchantReason?.rawValue ?? "")")
        }
        print.add("order", request.orderReference)
        return print.digest
    }

    static func createCard(_ request: CreateCardRequest, instance: String) -> String {
        var print = LedgerFingerprint(.createCard, instance: instance)
        print.add("customer", request.customer)
        print.add("type", request.type.rawValue)
        print.add("program", request.program)
        print.add("currency", request.currency)
        print.add("mobile", request.mobile)
        print.add("pin", request.pin == nil ? "absent" : "present")
        print.add("externalID", request.externalID)
        if let address = request.deliveryAddress {
            for (name, value) in [
                ("address1", address.address1), ("address2", address.address2), ("address3", address.address3),
                ("city", address.city),
                ("country", address.countryCode), ("state", address.state), ("postalCode", address.postalCode),
            ] as [(String, String?)] {
                print.add(name, value)
            }
        } else {
            print.add("deliveryAddress", nil)
        }
        print.add("terms", request.termsAndConditionsAccepted.map { String($0) })
        print.add("eDisclosure", request.eDisclosureAccepted.map { String($0) })
        // Added later: only when set, so that a request without them keeps the digest it had before (a retry
        // across an upgrade still matches its ledger entry). The name is hashed with the rest, like `mobile`.
        if let name = request.cardholderName { print.add("cardholderName", name) }
        if let country = request.issuingCountryCode { print.add("issuingCountry", country) }
        return print.digest
    }

    static func activateCard(_ request: ActivateCardRequest, instance: String) -> String {
        var print = LedgerFingerprint(.activateCard, instance: instance)
        print.add("card", request.card.id)
        print.add("customer", request.card.customer)
        return print.digest
    }

    static func statusChange(_ change: CardStatusRequest, instance: String) -> String {
        var print = LedgerFingerprint(change.intent.operation, instance: instance)
        print.add("card", change.card.id)
        print.add("customer", change.card.customer)
        print.add("reason", change.reason?.rawValue)
        print.add("comment", change.comment)
        return print.digest
    }

    static func setPIN(_ request: SetCardPINRequest, instance: String) -> String {
        var print = LedgerFingerprint(.setCardPIN, instance: instance)
        print.add("card", request.card.id)
        print.add("customer", request.card.customer)
        // The PIN itself never reaches the ledger, not even hashed: four digits are guessed from any digest.
        return print.digest
    }

    static func walletTokenChange(_ change: WalletTokenRequest, instance: String) -> String {
        var print = LedgerFingerprint(change.intent.operation, instance: instance)
        print.add("card", change.card.id)
        print.add("customer", change.card.customer)
        print.add("token", change.token)
        print.add("reason", change.reason?.rawValue)
        return print.digest
    }

    static func confirmProvisioning(_ confirmation: ProvisioningConfirmation, instance: String) -> String {
        var print = LedgerFingerprint(.confirmProvisioning, instance: instance)
        print.add("card", confirmation.card.id)
        print.add("customer", confirmation.card.customer)
        print.add("wallet", confirmation.wallet.rawValue)
        print.add("deviceAccountReference", confirmation.deviceAccountReference)
        print.add("walletID", confirmation.walletID)
        return print.digest
    }
}

/// What the gateway does with a claim after the provider answered with an error.
enum LedgerDisposition: Equatable {
    /// The provider provably did not act: forget the claim so that the operation may be sent again.
    case release
    /// The provider refused for good (a decline): a repeat gets the same refusal.
    case fail
    /// It may have acted: never send it again until reconciled.
    case unknown

    static func of(_ error: any Error) -> LedgerDisposition {
        guard let error = error as? CardGatewayError else { return .unknown }
        if !error.mayHaveReachedProvider { return .release }
        switch error.code {
        case .declined:
            // A repeated decline gains nothing and card schemes limit retries after one.
            return .fail
        case .invalidRequest, .authenticationFailed, .permissionDenied, .notFound, .cardNotEligible, .invalidCardState,
            .scaRequired, .conflict, .rateLimited, .unsupported, .invalidConfiguration:
            // The provider answered with a refusal that leaves nothing done; the caller may fix and repeat (with a
            // solved SCA challenge, say) under the same key.
            return .release
        default:
            return .unknown
        }
    }
}

extension CardGateway {
    /// Runs `send` at most once for the caller's idempotency key across every gateway sharing the ledger, and
    /// replays the recorded outcome to repeats. Without an idempotency key there is no logical operation to
    /// recognise, so `send` simply runs.
    func ledgered<T: Sendable>(
        _ operation: GatewayOperation, _ instance: ProviderInstance, fingerprint: @autoclosure () -> String,
        context: OperationContext,
        encode: (T) throws -> Data, replay: (Data) async throws -> T, send: () async throws -> T
    ) async throws -> T {
        guard let key = context.idempotencyKey, !key.isEmpty else { return try await send() }
        let configuration = instance.configuration
        let lease =
            ledgerPolicy.lease
            ?? max(.seconds(60), configuration.timeout * configuration.retry.maxAttempts + .seconds(10))
        let intent = LedgerIntent(
            key: key, operation: operation, instance: instance.name, fingerprint: fingerprint(), lease: lease)
        let clock = self.clock
        var waitUntil = clock.now + ledgerPolicy.maximumWait
        if let deadline = context.deadline, deadline < waitUntil { waitUntil = deadline }
        var pause = Duration.milliseconds(20)
        while true {
            let claim: LedgerClaim
            do {
                claim = try await operationLedger.claim(intent)
            } catch {
                throw Self.ledgerUnavailable(error, instance: instance, before: true)
            }
            switch claim {
            case .claimed(let owner):
                return try await runClaimed(
                    intent, owner: owner, instance: instance, context: context, encode: encode, send: send)
            case .existing(let record):
                guard record.fingerprint == intent.fingerprint else {
                    throw CardGatewayError(
                        .conflict,
                        "the idempotency key was used for a different \(record.operation) request; use a new key for a new operation",
                        provider: instance.name, providerKind: instance.kind, isRetryable: false,
                        mayHaveReachedProvider: false,
                        fieldErrors: [.init(field: "idempotencyKey", message: "was used with different parameters")]
                    )
                }
                switch record.state {
                case .succeeded:
                    context.logger.debug(
                        "ledger replays a recorded outcome",
                        metadata: ["operation": .string(operation.rawValue), "provider": .string(instance.name)])
                    guard let outcome = record.outcome else {
                        throw Self.unknownOutcome(instance: instance, operation: record.operation)
                    }
                    return try await replay(outcome)
                case .failed:
                    let failure =
                        record.failure ?? RecordedFailure(code: .invalidResponse, message: "the first attempt failed")
                    throw CardGatewayError(
                        failure.code, failure.message + " (recorded for this idempotency key)", provider: instance.name,
                        providerKind: instance.kind,
                        providerCode: failure.providerCode, httpStatus: failure.httpStatus,
                        requestID: failure.requestID, isRetryable: false,
                        mayHaveReachedProvider: true
                    )
                case .unknown:
                    throw Self.unknownOutcome(instance: instance, operation: record.operation)
                case .pending:
                    guard clock.now + pause <= waitUntil else {
                        throw CardGatewayError(
                            .conflict,
                            "an attempt with this idempotency key is still in progress; repeat later to get its outcome",
                            provider: instance.name, providerKind: instance.kind, isRetryable: true,
                            mayHaveReachedProvider: true,
                            retryAfter: .seconds(1),
                            fieldErrors: [.init(field: "idempotencyKey", message: "in use by an attempt in progress")]
                        )
                    }
                    try await clock.sleep(for: pause)
                    pause = min(pause * 2, .milliseconds(250))
                }
            }
        }
    }

    private func runClaimed<T: Sendable>(
        _ intent: LedgerIntent, owner: UUID, instance: ProviderInstance, context: OperationContext,
        encode: (T) throws -> Data, send: () async throws -> T
    ) async throws -> T {
        let ledger = operationLedger
        let key = intent.key
        let value: T
        do {
            value = try await send()
        } catch {
            let disposition = LedgerDisposition.of(error)
            let failure = (error as? CardGatewayError).map(RecordedFailure.init)
            await Self.settle(ledger, key: key, instance: instance, logger: context.logger, clock: clock) {
                switch disposition {
                case .release: try await ledger.release(key: key, owner: owner)
                case .fail: try await ledger.record(.failed(failure!), key: key, owner: owner)
                case .unknown: try await ledger.record(.unknown, key: key, owner: owner)
                }
            }
            throw error
        }
        let outcome: LedgerOutcome
        do { outcome = .succeeded(try encode(value)) } catch { outcome = .unknown }
        await Self.settle(ledger, key: key, instance: instance, logger: context.logger, clock: clock) {
            try await ledger.record(outcome, key: key, owner: owner)
        }
        return value
    }

    /// Runs a write to `store` out of reach of the caller's cancellation: in an unstructured task started here
    /// (`immediate`, see `settle`), or, for the in-memory journal and credential store, directly. Their writes never
    /// suspend or read the task's cancellation, so nothing can cut them short, and a task per write would be wasted.
    private static func shielded(
        _ store: some Sendable, _ write: @escaping @Sendable () async throws -> Void
    ) async throws {
        if store is InMemoryProvisioningJournal || store is InMemoryCredentialReferenceStore {
            try await write()
        } else {
            try await Task.immediate { try await write() }.value
        }
    }

    /// Writes an outcome even when the caller was cancelled (the provider's answer is in hand and must be kept), with
    /// two more tries. A record that cannot be written stays `pending` and turns `unknown` when its lease ends: a
    /// repeat is then refused rather than sent twice. The caller still gets the provider's answer.
    private static func settle(
        _ ledger: any OperationLedger, key: String, instance: ProviderInstance, logger: Logger, clock: GatewayClock,
        _ write: @escaping @Sendable () async throws -> Void
    ) async {
        // An unstructured task, so that the caller's cancellation does not reach the write; `immediate`, so that it
        // starts on this thread rather than being enqueued (an in-memory store's write completes before it returns).
        let written = await Task.immediate {
            for attempt in 1...3 {
                do {
                    try await write()
                    return true
                } catch {
                    if attempt < 3 { try? await clock.sleep(for: .milliseconds(50 * attempt)) }
                }
            }
            return false
        }.value
        if !written {
            logger.error(
                "the operation ledger could not record an outcome; the operation will count as unknown",
                metadata: [
                    "provider": .string(instance.name)
                ])
        }
    }

    static func unknownOutcome(instance: ProviderInstance, operation: String) -> CardGatewayError {
        CardGatewayError(
            .conflict,
            "the outcome of the \(operation) sent with this idempotency key is unknown, so it is not sent again; check it at the provider and reconcile the ledger record",
            provider: instance.name, providerKind: instance.kind, isRetryable: false, mayHaveReachedProvider: true,
            fieldErrors: [.init(field: "idempotencyKey", message: "outcome unknown")]
        )
    }

    static func ledgerUnavailable(_ error: any Error, instance: ProviderInstance, before: Bool) -> CardGatewayError {
        let detail = (error as? CardGatewayError)?.message ?? String(describing: type(of: error))
        return CardGatewayError(
            .providerUnavailable, "the operation ledger failed, so nothing was sent to the provider: \(detail)",
            provider: instance.name, providerKind: instance.kind, isRetryable: true, mayHaveReachedProvider: false
        )
    }

    static let ledgerEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let ledgerDecoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}

// MARK: Provisioning journal

extension CardGateway {
    /// Runs `body` and appends an entry for it to the provisioning journal. A journal that cannot be written is
    /// logged, never the caller's failure.
    func journaled<T>(
        _ operation: GatewayOperation, _ instance: ProviderInstance, card: String?, wallet: Wallet? = nil,
        context: OperationContext,
        _ body: () async throws -> T
    ) async throws -> T {
        let start = ContinuousClock.now
        let flow = wallet.flatMap { instance.descriptor.provisioningFlows[$0] }
        do {
            let value = try await body()
            await appendJournal(
                operation, instance, card: card, wallet: wallet, flow: flow,
                outcome: ProvisioningJournalEntry.succeeded, start: start, context: context, providerRequestID: nil)
            return value
        } catch let error as CardGatewayError {
            await appendJournal(
                operation, instance, card: card, wallet: wallet, flow: flow, outcome: error.code.rawValue, start: start,
                context: context, providerRequestID: error.requestID)
            throw error
        } catch is CancellationError {
            await appendJournal(
                operation, instance, card: card, wallet: wallet, flow: flow, outcome: "cancelled", start: start,
                context: context, providerRequestID: nil)
            throw CancellationError()
        } catch {
            await appendJournal(
                operation, instance, card: card, wallet: wallet, flow: flow, outcome: "error", start: start,
                context: context, providerRequestID: nil)
            throw error
        }
    }

    private func appendJournal(
        _ operation: GatewayOperation, _ instance: ProviderInstance, card: String?, wallet: Wallet?,
        flow: ProvisioningFlow?, outcome: String,
        start: ContinuousClock.Instant, context: OperationContext, providerRequestID: String?
    ) async {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Int(elapsed.milliseconds)
        let entry = ProvisioningJournalEntry(
            at: Date(), operation: operation, instance: instance.name, card: card, wallet: wallet, flow: flow,
            outcome: outcome,
            latencyMilliseconds: milliseconds, requestID: context.requestID, providerRequestID: providerRequestID
        )
        let journal = provisioningJournal
        do {
            try await Self.shielded(journal) { try await journal.append(entry) }
        } catch {
            context.logger.warning(
                "the provisioning journal could not be written",
                metadata: [
                    "provider": .string(instance.name), "operation": .string(operation.rawValue),
                ])
        }
    }
}

// MARK: Credential store

extension CardGateway {
    /// Notes a charge on the stored credential; a store that cannot is logged, never the caller's failure (the charge
    /// was taken).
    func markUsed(_ reference: String, instance: ProviderInstance, context: OperationContext) async {
        let store = credentialStore
        do {
            try await Self.shielded(store) { try await store.markUsed(reference: reference, at: Date()) }
        } catch {
            context.logger.warning(
                "the credential store could not note the charge", metadata: ["provider": .string(instance.name)])
        }
    }
}
