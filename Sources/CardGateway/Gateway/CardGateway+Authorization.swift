import CoreMetrics
import Foundation
import Logging
import Synchronization

// Real-time authorization (the DocC article "Real-time authorization"): the provider asks, the gateway answers in
// time, whatever the decider does.
extension CardGateway {
    /// Answers one real-time authorization request that instance `name`'s provider sent.
    ///
    /// The adapter authenticates and reads the delivery; a delivery that is not authentic throws
    /// ``CardGatewayError/Code/signatureInvalid`` (answer 401) and reaches no decider. Then, within the instance's
    /// budget (``AuthorizationSettings/budget(forDeadline:)``, from the moment this call starts):
    ///
    /// 1. a repeated delivery of an authorization already decided gets the recorded decision (the operation ledger,
    ///    shared across instances when it is PostgreSQL); one still being decided elsewhere is waited for;
    /// 2. an informative message is acknowledged; the local rules (``GatewayConfiguration/authorizationRules``)
    ///    decline what they match;
    /// 3. otherwise `decider` decides, or, without one, the request is approved (the rules are the whole policy);
    /// 4. when the decider has not answered by the end of the budget, fails, or answers what the request cannot take
    ///    (a partial amount where none is allowed), the instance's stand-in is the decision, and the outcome says so.
    ///
    /// The call returns at the end of the budget at the latest, with the answer in the provider's wire; what it
    /// answers is what the ledger records, so every delivery of one authorization gets the same answer.
    ///
    /// - Parameters:
    ///   - delivery: the provider's HTTP request, body byte for byte.
    ///   - name: the provider instance the request arrived for.
    ///   - decider: the integrator's policy; nil to let the rules decide alone.
    ///   - now: the wall clock for the provider's signed timestamps; the gateway clock's ``GatewayClock/date`` by
    ///     default.
    ///   - context: the logger and request id (its deadline and idempotency key are the gateway's to set here).
    public func respondToAuthorization(
        _ delivery: WebhookDelivery, instance name: String, decider: (any AuthorizationDecider)?, now: Date? = nil,
        context: OperationContext = OperationContext()
    ) async throws -> AuthorizationOutcome {
        let started = clock.now
        let instance = try resolve(.instance(name), operation: .authorization)
        guard let responder = instance.provider as? any AuthorizationResponding,
            let deadline = instance.descriptor.authorizationDeadline
        else {
            throw CardGatewayError(
                .unsupported, "\(name) (\(instance.kind)) does not answer real-time authorizations", provider: name,
                providerKind: instance.kind)
        }
        let settings = instance.configuration.authorizations
        let budget = settings.budget(forDeadline: deadline)
        let answerBy = started + budget

        var authorization: ProviderAuthorization
        do {
            authorization = try responder.authorization(from: delivery, now: now ?? clock.date)
        } catch {
            let gatewayError =
                (error as? CardGatewayError)?.attributed(to: name, kind: instance.kind)
                ?? CardGatewayError(
                    .invalidRequest, "the authorization request could not be read", provider: name,
                    providerKind: instance.kind)
            countAuthorization(instance, outcome: "rejected", decidedBy: nil)
            throw gatewayError
        }
        authorization.request.instance = name
        authorization.request.providerKind = instance.kind
        authorization.request.deadline = clock.date.addingTimeInterval(budget.timeInterval)
        let request = authorization.request

        let decided = await decideOnce(
            request, instance: instance, decider: decider, standIn: settings.standIn, answerBy: answerBy,
            context: context)
        let answer: AuthorizationAnswer
        do {
            answer = try responder.answer(decided.decision, to: authorization)
        } catch {
            // The decision was checked against the request, so only an adapter's fault lands here: say so loudly,
            // and answer nothing rather than something the provider may misread.
            context.logger.error(
                "the adapter could not write its answer to an authorization",
                metadata: ["provider": .string(name), "authorization": .string(request.id)])
            countAuthorization(instance, outcome: "failed", decidedBy: decided.decidedByName)
            throw error
        }
        let outcome = AuthorizationOutcome(
            request: request, decision: decided.decision, decidedBy: decided.decidedByName,
            standInReason: decided.standInReason, rule: decided.rule, replayed: decided.replayed, answer: answer)
        record(outcome, instance: instance, elapsed: clock.now - started, context: context)
        return outcome
    }

    /// The decision for `request`, made once across every gateway that shares the ledger, and in any case by
    /// `answerBy`: the first decision settled wins, and it is the one recorded and answered.
    private func decideOnce(
        _ request: AuthorizationRequest, instance: ProviderInstance, decider: (any AuthorizationDecider)?,
        standIn: AuthorizationSettings.StandIn, answerBy: ContinuousClock.Instant, context: OperationContext
    ) async -> DecidedAuthorization {
        let first = FirstDecision()
        var ledgerContext = context
        // The kind and amount are part of the key: Stripe sends an incremental authorization under the id of the
        // authorization it adds to, and that is a new question.
        ledgerContext.idempotencyKey =
            "authorization:\(request.id):\(request.kind.rawValue):\(request.amount.minorUnits)\(request.amount.currency)"
        ledgerContext.deadline = answerBy
        let fingerprint = ledgerContext.idempotencyKey!
        let keyedContext = ledgerContext
        let rules = configuration.authorizationRules
        let clock = self.clock
        let gateway = self
        let work: @Sendable () async -> DecidedAuthorization = {
            do {
                return try await gateway.ledgered(
                    .authorization, instance, fingerprint: fingerprint, context: keyedContext,
                    encode: { try CardGateway.ledgerEncoder.encode($0) },
                    replay: { data in
                        var recorded = try CardGateway.ledgerDecoder.decode(DecidedAuthorization.self, from: data)
                        recorded.replayed = true
                        return first.settle(recorded)
                    },
                    send: {
                        first.settle(
                            await Self.decide(
                                request, rules: rules, decider: decider, standIn: standIn, answerBy: answerBy,
                                clock: clock, asking: first.markAsking))
                    })
            } catch let error as CardGatewayError where error.code == .providerUnavailable {
                // The ledger itself failed before anything was decided: decide without it rather than decline every
                // purchase while the database is away (a repeat in that window may be decided again).
                context.logger.error(
                    "the operation ledger failed; deciding an authorization without it",
                    metadata: ["provider": .string(instance.name)])
                return first.settle(
                    await Self.decide(
                        request, rules: rules, decider: decider, standIn: standIn, answerBy: answerBy, clock: clock,
                        asking: first.markAsking))
            } catch {
                // Decided elsewhere and still open at the deadline, or its outcome unknown: the stand-in.
                return first.settle(
                    .standIn(
                        standIn,
                        because: "another delivery of this authorization is being decided, or its outcome is unknown"
                    ))
            }
        }
        if let decided = await Self.race(until: answerBy, clock: clock, cancellingLateWork: false, work) {
            return decided
        }
        // The decider's own deadline and this one are the same instant: whichever wakes first, say what was late.
        return first.settle(
            .standIn(standIn, because: first.asking ? Self.lateDecider : "no decision was made within the budget"))
    }

    /// The rules, then the decider against the clock.
    private static func decide(
        _ request: AuthorizationRequest, rules: [AuthorizationRule], decider: (any AuthorizationDecider)?,
        standIn: AuthorizationSettings.StandIn, answerBy: ContinuousClock.Instant, clock: GatewayClock,
        asking: @Sendable () -> Void
    ) async -> DecidedAuthorization {
        if request.kind == .informative {
            return DecidedAuthorization(decision: .approve(), decidedBy: .acknowledgement)
        }
        if let rule = AuthorizationRule.firstMatch(in: rules, for: request) {
            return DecidedAuthorization(decision: .decline(rule.reason), decidedBy: .rules, rule: rule.name)
        }
        guard let decider else { return DecidedAuthorization(decision: .approve(), decidedBy: .rules) }
        asking()
        let answered = await race(until: answerBy, clock: clock, cancellingLateWork: true) {
            do {
                return Result<AuthorizationDecision, any Error>.success(try await decider.decide(request))
            } catch {
                return .failure(error)
            }
        }
        switch answered {
        case nil:
            return .standIn(standIn, because: lateDecider)
        case .failure(let error)?:
            return .standIn(standIn, because: "the decider failed (\(type(of: error)))")
        case .success(let decision)?:
            if let problem = decision.problem(answering: request) {
                return .standIn(standIn, because: "the decider's decision \(problem)")
            }
            return DecidedAuthorization(decision: decision, decidedBy: .decider)
        }
    }

    private static let lateDecider = "the decider did not answer within the budget"

    /// `work`'s result, or nil when `deadline` on `clock` comes first. Returns at the deadline whatever `work` does:
    /// work that is late goes on in its own task (cancelled when `cancellingLateWork`), and its result is dropped.
    static func race<T: Sendable>(
        until deadline: ContinuousClock.Instant, clock: GatewayClock, cancellingLateWork: Bool,
        _ work: @escaping @Sendable () async -> T
    ) async -> T? {
        let finish = RaceFinish<T>()
        var worker: Task<Void, Never>?
        var timer: Task<Void, Never>?
        let result = await withCheckedContinuation { continuation in
            finish.start(continuation)
            worker = Task { finish.finish(await work()) }
            timer = Task {
                do {
                    try await clock.sleep(until: deadline)
                    finish.finish(nil)
                } catch {
                    // Cancelled: the work won.
                }
            }
        }
        timer?.cancel()
        if result == nil, cancellingLateWork { worker?.cancel() }
        return result
    }

    private func countAuthorization(
        _ instance: ProviderInstance, outcome: String, decidedBy: AuthorizationDecidedBy?
    ) {
        Counter(
            label: GatewayObservability.Names.authorizations,
            dimensions: [
                (GatewayObservability.Dimensions.kind, instance.kind.name),
                (GatewayObservability.Dimensions.instance, instance.name),
                (GatewayObservability.Dimensions.outcome, outcome),
                (GatewayObservability.Dimensions.decidedBy, decidedBy?.rawValue ?? "none"),
            ],
            factory: observability.metrics
        ).increment()
    }

    private func record(
        _ outcome: AuthorizationOutcome, instance: ProviderInstance, elapsed: Duration, context: OperationContext
    ) {
        countAuthorization(
            instance, outcome: outcome.decision.approved ? "approved" : "declined", decidedBy: outcome.decidedBy)
        CoreMetrics.Timer(
            label: GatewayObservability.Names.authorizationDuration,
            dimensions: [
                (GatewayObservability.Dimensions.kind, instance.kind.name),
                (GatewayObservability.Dimensions.instance, instance.name),
                (GatewayObservability.Dimensions.decidedBy, outcome.decidedBy.rawValue),
            ],
            factory: observability.metrics
        ).recordNanoseconds(elapsed.nanoseconds)
        if outcome.decidedBy == .standIn {
            Counter(
                label: GatewayObservability.Names.authorizationStandIns,
                dimensions: [
                    (GatewayObservability.Dimensions.kind, instance.kind.name),
                    (GatewayObservability.Dimensions.instance, instance.name),
                ],
                factory: observability.metrics
            ).increment()
        }
        var metadata: Logger.Metadata = [
            "provider": .string(instance.name), "authorization": .string(outcome.request.id),
            "decision": .string(outcome.decision.description), "decidedBy": .string(outcome.decidedBy.rawValue),
        ]
        if let reason = outcome.standInReason { metadata["standInReason"] = .string(reason) }
        if let rule = outcome.rule { metadata["rule"] = .string(rule) }
        if outcome.replayed { metadata["replayed"] = "true" }
        let level: Logger.Level = outcome.decidedBy == .standIn ? .warning : .info
        context.logger.log(level: level, "authorization answered", metadata: metadata)
    }
}

/// A decision and how it was made: what the ledger records for an authorization and replays to a repeat.
struct DecidedAuthorization: Sendable, Codable {
    var approved: Bool
    var amount: Money?
    var balance: Money?
    var reason: String?
    var decidedBy: String
    var rule: String?
    var standInReason: String?
    var replayed = false

    init(
        decision: AuthorizationDecision, decidedBy: AuthorizationDecidedBy, rule: String? = nil,
        standInReason: String? = nil
    ) {
        approved = decision.approved
        amount = decision.amount
        balance = decision.balance
        reason = decision.reason?.rawValue
        self.decidedBy = decidedBy.rawValue
        self.rule = rule
        self.standInReason = standInReason
    }

    static func standIn(_ standIn: AuthorizationSettings.StandIn, because reason: String) -> DecidedAuthorization {
        DecidedAuthorization(
            decision: standIn == .approve ? .approve() : .decline(.other), decidedBy: .standIn, standInReason: reason)
    }

    var decision: AuthorizationDecision {
        approved
            ? .approve(amount: amount, balance: balance) : .decline(AuthorizationDeclineReason(reading: reason ?? ""))
    }

    /// A name this version does not know reads as the stand-in's (a record written by a newer version).
    var decidedByName: AuthorizationDecidedBy { AuthorizationDecidedBy(rawValue: decidedBy) ?? .standIn }

    private enum CodingKeys: String, CodingKey {
        case approved, amount, balance, reason, decidedBy, rule, standInReason
    }
}

/// The first decision settled for one delivery: whoever comes second (a late decider, the ledger's replay after the
/// deadline's stand-in) gets the first one back, so that the answer sent and the decision recorded are the same.
private final class FirstDecision: Sendable {
    private let value = Mutex<DecidedAuthorization?>(nil)
    private let askedDecider = Mutex(false)

    /// The decider has been asked (so a stand-in at the deadline is the decider's lateness).
    @Sendable func markAsking() { askedDecider.withLock { $0 = true } }
    var asking: Bool { askedDecider.withLock { $0 } }

    func settle(_ decided: DecidedAuthorization) -> DecidedAuthorization {
        value.withLock { current in
            if let current { return current }
            current = decided
            return decided
        }
    }
}

/// Resumes a race's continuation once, with the first result.
private final class RaceFinish<T: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<T?, Never>?, finished: Bool)>((nil, false))

    func start(_ continuation: CheckedContinuation<T?, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func finish(_ value: T?) {
        let continuation = state.withLock { state -> CheckedContinuation<T?, Never>? in
            guard !state.finished else { return nil }
            state.finished = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: value)
    }
}
