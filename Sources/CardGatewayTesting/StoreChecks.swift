import CardGateway
import Foundation
import Synchronization

/// A check of ``StoreChecks`` that did not hold.
public struct StoreCheckFailure: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The behaviour every implementation of the gateway's store protocols must have, as checks that throw
/// ``StoreCheckFailure`` at the first that does not hold. The in-memory stores and `CardGatewayPostgres` run the same
/// checks, so the two cannot drift; run them against your own implementation too.
///
/// Every key, reference and customer a check writes starts with `namespace`, so several runs can share one
/// database.
public enum StoreChecks {
    static func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw StoreCheckFailure(message()) }
    }

    /// A date the store can keep exactly: whole milliseconds.
    static func date(_ seconds: TimeInterval) -> Date {
        Date(timeIntervalSince1970: (seconds * 1000).rounded() / 1000)
    }

    static func close(_ lhs: Date?, _ rhs: Date?) -> Bool {
        guard let lhs, let rhs else { return lhs == nil && rhs == nil }
        return abs(lhs.timeIntervalSince(rhs)) < 0.001
    }

    static func same(_ lhs: StoredCredential?, _ rhs: StoredCredential?) -> Bool {
        guard let lhs, let rhs else { return lhs == nil && rhs == nil }
        return lhs.reference == rhs.reference && lhs.provider == rhs.provider && lhs.maskedPAN == rhs.maskedPAN
            && lhs.brand == rhs.brand
            && lhs.scheme == rhs.scheme && lhs.customer == rhs.customer && close(lhs.created, rhs.created)
            && close(lhs.consentRecordedAt, rhs.consentRecordedAt) && close(lhs.lastUsed, rhs.lastUsed)
    }

    // MARK: Credential references

    /// Save, look up by reference and by customer (oldest first), save again (the newer save wins), note a use,
    /// remove one, remove all of a customer's.
    public static func credentialStore(
        _ store: any CredentialReferenceStore, namespace: String = UUID().uuidString
    ) async throws {
        let customer = "\(namespace)-customer"
        let first = StoredCredential(
            reference: "\(namespace)-1", provider: "tp", maskedPAN: "411111######1111", brand: "VISA", scheme: .visa,
            customer: customer,
            created: date(1_730_900_000), consentRecordedAt: date(1_730_899_990.5)
        )
        let second = StoredCredential(
            reference: "\(namespace)-2", provider: "tp", maskedPAN: "340000#####0009", brand: "AMEX", scheme: .amex,
            customer: customer,
            created: date(1_730_900_100)
        )
        let other = StoredCredential(
            reference: "\(namespace)-3", provider: "tp-eu", maskedPAN: "555555######4444", brand: nil,
            scheme: .mastercard, customer: nil,
            created: date(1_730_900_200)
        )
        try await require(store.credential(reference: first.reference) == nil, "an unknown reference must give nil")
        try await store.save(second)
        try await store.save(first)
        try await store.save(other)
        let read = try await store.credential(reference: first.reference)
        try require(same(read, first), "a saved credential must read back as saved: \(String(describing: read))")
        try await require(
            same(store.credential(reference: other.reference), other),
            "a credential without customer or brand must read back")
        let listed = try await store.credentials(customer: customer)
        try require(
            listed.map(\.reference) == [first.reference, second.reference],
            "credentials(customer:) must list the customer's, oldest first: \(listed.map(\.reference))")
        try await require(
            store.credentials(customer: "\(namespace)-nobody").isEmpty, "an unknown customer has no credentials")

        var updated = second
        updated.customer = "\(namespace)-customer-2"
        updated.brand = "AMEX CORPORATE"
        try await store.save(updated)
        try await require(
            same(store.credential(reference: second.reference), updated), "saving a reference again must replace it")
        try await require(
            store.credentials(customer: customer).map(\.reference) == [first.reference],
            "a moved credential leaves the old customer")

        let used = date(1_730_901_000)
        try await store.markUsed(reference: first.reference, at: used)
        try await require(
            close(store.credential(reference: first.reference)?.lastUsed, used), "markUsed must set lastUsed")
        try await store.markUsed(reference: "\(namespace)-unknown", at: used)
        try await require(
            store.credential(reference: "\(namespace)-unknown") == nil, "markUsed must not create a credential")

        try await store.remove(reference: first.reference)
        try await require(store.credential(reference: first.reference) == nil, "a removed credential must be gone")
        try await store.remove(reference: first.reference)
        let removed = try await store.removeAll(customer: "\(namespace)-customer-2")
        try require(removed == 1, "removeAll(customer:) must remove the customer's one credential, removed \(removed)")
        try await require(store.credential(reference: second.reference) == nil, "removeAll(customer:) must remove it")
        try await require(same(store.credential(reference: other.reference), other), "other credentials must stay")
        try await store.remove(reference: other.reference)
    }

    // MARK: Operation ledger

    static func intent(_ key: String, lease: Duration = .seconds(60), fingerprint: String = "f1") -> LedgerIntent {
        LedgerIntent(key: key, operation: .charge, instance: "tp", fingerprint: fingerprint, lease: lease)
    }

    static func claimedOwner(_ claim: LedgerClaim, _ what: String) throws -> UUID {
        guard case .claimed(let owner) = claim else {
            throw StoreCheckFailure("\(what): expected a claim, got \(claim)")
        }
        return owner
    }

    static func existingRecord(_ claim: LedgerClaim, _ what: String) throws -> LedgerRecord {
        guard case .existing(let record) = claim else {
            throw StoreCheckFailure("\(what): expected the existing record, got a new claim")
        }
        return record
    }

    /// Claim, repeat, record each outcome, release, a lease that runs out (`unknown`, and the owner's late word
    /// still counts), another owner's write ignored, reconciliation, and many claims at once giving one owner.
    /// `advance` moves the ledger's clock past a lease: give a ledger on a test clock (an in-memory one made with
    /// `InMemoryOperationLedger(clock: manualClock.gatewayClock())`) and a closure that advances that clock. Nothing
    /// here sleeps.
    public static func ledger(
        _ ledger: any OperationLedger, namespace: String = UUID().uuidString,
        advance: @Sendable (Duration) async throws -> Void
    ) async throws {
        // A new key is claimed, and a repeat sees it pending.
        let key = "\(namespace)-a"
        try await require(ledger.record(key: key) == nil, "an unknown key has no record")
        let owner = try await claimedOwner(ledger.claim(intent(key)), "first claim")
        var record = try await existingRecord(ledger.claim(intent(key, fingerprint: "f2")), "repeat while pending")
        try require(
            record.state == .pending && record.fingerprint == "f1",
            "a repeat sees the first claim pending with its fingerprint: \(record)")
        try require(
            record.operation == "charge" && record.instance == "tp" && record.key == key,
            "the record names operation, instance and key")
        try require(
            record.expires.timeIntervalSince(record.created) > 3600,
            "records are kept for the retention (24 h by default)")

        // Another owner's outcome is ignored; the owner's is recorded and replayed.
        try await ledger.record(.succeeded(Data("{\"x\":1}".utf8)), key: key, owner: UUID())
        try await require(ledger.record(key: key)?.state == .pending, "an outcome from another owner must be ignored")
        let outcome = Data("{\"transactionReference\":\"1-2-3\"}".utf8)
        try await ledger.record(.succeeded(outcome), key: key, owner: owner)
        record = try await existingRecord(ledger.claim(intent(key)), "repeat after success")
        try require(
            record.state == .succeeded && record.outcome == outcome, "a repeat gets the recorded outcome: \(record)")
        try await ledger.record(.unknown, key: key, owner: owner)
        try await require(ledger.record(key: key)?.state == .succeeded, "a settled record must not change again")

        // A refusal is recorded with its details.
        let failedKey = "\(namespace)-b"
        let failedOwner = try await claimedOwner(ledger.claim(intent(failedKey)), "claim b")
        let failure = RecordedFailure(
            code: .declined, message: "the issuer declined the payment", providerCode: "70000", httpStatus: 200,
            requestID: "A0001")
        try await ledger.record(.failed(failure), key: failedKey, owner: failedOwner)
        record = try await existingRecord(ledger.claim(intent(failedKey)), "repeat after failure")
        try require(
            record.state == .failed && record.failure == failure && record.outcome == nil,
            "a repeat gets the recorded failure: \(record)")

        // A released claim can be claimed again by a new owner.
        let releasedKey = "\(namespace)-c"
        let releasing = try await claimedOwner(ledger.claim(intent(releasedKey)), "claim c")
        try await ledger.release(key: releasedKey, owner: UUID())
        try await require(ledger.record(key: releasedKey)?.state == .pending, "another owner cannot release a claim")
        try await ledger.release(key: releasedKey, owner: releasing)
        try await require(ledger.record(key: releasedKey) == nil, "a released claim leaves no record")
        let again = try await claimedOwner(ledger.claim(intent(releasedKey)), "claim c again")
        try require(again != releasing, "a new claim has a new owner")

        // A lease that runs out leaves the operation unknown, and it stays unknown.
        let crashedKey = "\(namespace)-d"
        let crashed = try await claimedOwner(ledger.claim(intent(crashedKey, lease: .milliseconds(200))), "claim d")
        try await advance(.milliseconds(400))
        record = try await existingRecord(ledger.claim(intent(crashedKey)), "repeat after the lease ran out")
        try require(record.state == .unknown, "a pending claim past its lease is unknown: \(record.state)")
        record = try await existingRecord(ledger.claim(intent(crashedKey)), "repeat of an unknown operation")
        try require(record.state == .unknown, "an unknown operation stays unknown: \(record.state)")
        try await ledger.release(key: crashedKey, owner: crashed)
        try await require(
            ledger.record(key: crashedKey)?.state == .unknown,
            "an unknown operation cannot be released, only reconciled")
        try await ledger.record(.succeeded(outcome), key: crashedKey, owner: crashed)
        try await require(
            ledger.record(key: crashedKey)?.state == .succeeded, "the owner's late outcome settles an unknown operation"
        )

        // Reconciliation.
        let reconciledKey = "\(namespace)-e"
        _ = try await claimedOwner(ledger.claim(intent(reconciledKey, lease: .milliseconds(1))), "claim e")
        try await advance(.milliseconds(50))
        try await require(existingRecord(ledger.claim(intent(reconciledKey)), "e").state == .unknown, "e is unknown")
        try await ledger.reconcile(key: reconciledKey, to: .failed(failure))
        try await require(ledger.record(key: reconciledKey)?.state == .failed, "reconciled as failed")
        try await ledger.reconcile(key: reconciledKey, to: .forget)
        try await require(ledger.record(key: reconciledKey) == nil, "a forgotten record is gone")
        _ = try await claimedOwner(ledger.claim(intent(reconciledKey)), "claim e after forgetting")

        // Many claims at once: one owner.
        let racedKey = "\(namespace)-f"
        let claims = try await withThrowingTaskGroup(of: LedgerClaim.self) { group in
            for _ in 0..<16 { group.addTask { try await ledger.claim(intent(racedKey)) } }
            return try await group.reduce(into: [LedgerClaim]()) { $0.append($1) }
        }
        let owners = claims.filter { if case .claimed = $0 { return true } else { return false } }
        try require(owners.count == 1, "16 simultaneous claims must give exactly one owner, gave \(owners.count)")
    }

    /// Records expire after the ledger's retention, counted from the end of their claim's lease: give a ledger whose
    /// retention is `retention`, on a test clock that `advance` moves.
    public static func ledgerExpiry(
        _ ledger: any OperationLedger, retention: Duration, namespace: String = UUID().uuidString,
        advance: @Sendable (Duration) async throws -> Void
    ) async throws {
        let lease = Duration.seconds(1)
        let key = "\(namespace)-x"
        let first = try await claimedOwner(ledger.claim(intent(key, lease: lease)), "claim x")
        try await ledger.record(.succeeded(Data("{}".utf8)), key: key, owner: first)
        try await advance(retention)
        try await require(
            ledger.record(key: key)?.state == .succeeded, "a record is kept for the retention after its lease ends")
        try await advance(lease + .milliseconds(300))
        try await require(ledger.record(key: key) == nil, "an expired record must not be returned")
        let second = try await claimedOwner(
            ledger.claim(intent(key, lease: lease, fingerprint: "other")), "claim x after expiry")
        try require(second != first, "an expired key can be claimed again")
        try await ledger.record(.succeeded(Data("{}".utf8)), key: key, owner: second)
        let expiredKey = "\(namespace)-y"
        _ = try await claimedOwner(ledger.claim(intent(expiredKey, lease: lease)), "claim y")
        try await advance(retention + lease + .milliseconds(300))
        let purged = try await ledger.purgeExpired()
        try require(purged >= 2, "purgeExpired must delete the expired records, deleted \(purged)")

        // A lease longer than the retention: the claim in flight, and the unknown it turns into, outlive the retention
        // (were they to expire, a repeat would claim the key and send the operation a second time).
        let longKey = "\(namespace)-z"
        let longLease = retention * 2
        let inFlight = try await claimedOwner(ledger.claim(intent(longKey, lease: longLease)), "claim z")
        try await advance(retention + .milliseconds(300))
        _ = try await ledger.purgeExpired()
        let held = try await existingRecord(ledger.claim(intent(longKey)), "z past the retention, within its lease")
        try require(held.state == .pending, "a claim in flight past the retention is still pending: \(held)")
        try await advance(retention)
        _ = try await ledger.purgeExpired()
        let lapsed = try await existingRecord(ledger.claim(intent(longKey)), "z past its lease")
        try require(lapsed.state == .unknown, "past its lease the claim is unknown, not expired: \(lapsed)")
        try await advance(retention)
        _ = try await ledger.purgeExpired()
        let renewed = try await claimedOwner(ledger.claim(intent(longKey)), "z past lease and retention")
        try require(renewed != inFlight, "past its lease and the retention, the key is free")
    }

    // MARK: Provisioning journal

    /// Append, newest first, per card, limit.
    public static func journal(_ journal: any ProvisioningJournal, namespace: String = UUID().uuidString) async throws {
        let card = "\(namespace)-card"
        let entries = [
            ProvisioningJournalEntry(
                at: date(1_730_900_000), operation: .provisioningOffer, instance: "paysafe", card: card,
                wallet: .applePay, flow: .encryptedPayload,
                outcome: ProvisioningJournalEntry.succeeded, latencyMilliseconds: 12, requestID: "req-1"
            ),
            ProvisioningJournalEntry(
                at: date(1_730_900_001), operation: .provision, instance: "paysafe", card: card, wallet: .applePay,
                flow: .encryptedPayload,
                outcome: "timeout", latencyMilliseconds: 5000, requestID: "req-2", providerRequestID: "ps-77"
            ),
            ProvisioningJournalEntry(
                at: date(1_730_900_002), operation: .charge, instance: "tp", card: "\(namespace)-ref",
                outcome: "declined", latencyMilliseconds: 80
            ),
        ]
        for entry in entries { try await journal.append(entry) }
        let forCard = try await journal.entries(card: card, limit: 10)
        try require(forCard.count == 2, "entries(card:) must give the card's two entries, gave \(forCard.count)")
        try require(
            forCard.first?.operation == .provision && forCard.last?.operation == .provisioningOffer, "newest first")
        let provision = forCard[0]
        let expected = entries[1]
        try require(
            provision.instance == expected.instance && provision.wallet == .applePay
                && provision.flow == .encryptedPayload
                && provision.outcome == "timeout" && provision.latencyMilliseconds == 5000
                && provision.requestID == "req-2"
                && provision.providerRequestID == "ps-77" && close(provision.at, expected.at),
            "an entry must read back as appended: \(provision)"
        )
        let limited = try await journal.entries(card: card, limit: 1)
        try require(limited.count == 1 && limited[0].operation == .provision, "limit keeps the newest")
        let charge = try await journal.entries(card: "\(namespace)-ref", limit: 5)
        try require(
            charge.count == 1 && charge[0].wallet == nil && charge[0].flow == nil && charge[0].outcome == "declined",
            "a charge entry has no wallet")
    }
}
