import Foundation

// The one pattern every routed facade method follows, written once: each public method names its operation, its
// capability, what it records, and the provider call.
extension CardGateway {
    /// What a write records in the operation ledger so that it reaches its provider at most once per idempotency key:
    /// its fingerprint (worded only when the call carries a key), how its outcome is kept, and how a repeat is
    /// answered from what was kept.
    struct LedgerRecord<T: Sendable> {
        var fingerprint: () -> String
        var encode: (T) throws -> Data
        var replay: (Data) async throws -> T
    }

    /// Where a call appears in the provisioning journal: the card (or credential reference) and the wallet.
    struct JournalEntry {
        var card: String?
        var wallet: Wallet?
    }

    /// Runs one routed operation:
    ///
    /// 1. the context is checked and `target` routed to an instance that has the operation's capability
    ///    (``capability(_:_:_:context:)``);
    /// 2. `check` refuses what that instance cannot take, before anything is sent;
    /// 3. with `journal`, the call is journaled (``journaled(_:_:card:wallet:context:_:)``), around
    /// 4. with `ledger`, the ledger (``ledgered(_:_:fingerprint:context:encode:replay:send:)``), around
    /// 5. the provider call, in the operation's span, timed, counted and attributed to the instance
    ///    (``attributed(_:_:_:)``), then `afterCall` (keeping what the call returned, outside the span);
    /// 6. `stamp` names the instance on the answer, a replayed one too.
    func perform<P: Sendable, T: Sendable>(
        _ operation: GatewayOperation, on capability: P.Type, via target: RouteTarget, context: OperationContext,
        check: (ProviderInstance) throws -> Void = { _ in },
        journal: JournalEntry? = nil,
        ledger: ((ProviderInstance, P) -> LedgerRecord<T>)? = nil,
        afterCall: (T, ProviderInstance, P) async throws -> T = { value, _, _ in value },
        stamp: (inout T, ProviderInstance) -> Void = { _, _ in },
        call: (P, ProviderInstance) async throws -> T
    ) async throws -> T {
        let (instance, provider) = try self.capability(capability, target, operation, context: context)
        try check(instance)
        func send() async throws -> T {
            let value = try await attributed(instance, operation) { try await call(provider, instance) }
            return try await afterCall(value, instance, provider)
        }
        func recorded() async throws -> T {
            guard let ledger else { return try await send() }
            let record = ledger(instance, provider)
            return try await ledgered(
                operation, instance, fingerprint: record.fingerprint(), context: context, encode: record.encode,
                replay: record.replay, send: send)
        }
        var value: T
        if let journal {
            value = try await journaled(
                operation, instance, card: journal.card, wallet: journal.wallet, context: context, recorded)
        } else {
            value = try await recorded()
        }
        stamp(&value, instance)
        return value
    }

    /// A write whose outcome is kept as it is (JSON in the ledger) and replayed from it.
    func valueRecord<T: Codable & Sendable>(_ fingerprint: @escaping () -> String) -> LedgerRecord<T> {
        LedgerRecord(
            fingerprint: fingerprint, encode: { try Self.ledgerEncoder.encode($0) },
            replay: { try Self.ledgerDecoder.decode(T.self, from: $0) })
    }

    /// A write whose outcome is a card: the ledger keeps its reference only, and a repeat reads the card afresh from
    /// `provider` (as a ``GatewayOperation/card`` call, without the idempotency key).
    func cardRecord(
        _ fingerprint: @escaping () -> String, instance: ProviderInstance, provider: any CardLookup,
        context: OperationContext
    ) -> LedgerRecord<Card> {
        LedgerRecord(
            fingerprint: fingerprint, encode: { try Self.ledgerEncoder.encode($0.ref) },
            replay: { data in
                let ref = try Self.ledgerDecoder.decode(CardRef.self, from: data)
                var readContext = context
                readContext.idempotencyKey = nil
                return try await attributed(instance, .card) { try await provider.card(ref, context: readContext) }
            })
    }

    /// Names the instance as the card's provider.
    static func stampCard(_ card: inout Card, _ instance: ProviderInstance) { card.provider = instance.name }
}
