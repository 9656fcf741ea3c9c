@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import Foundation
import Logging
import Synchronization

/// The contract every adapter passes: given an adapter's factory pointed at its simulator, it runs the
/// scenarios for each capability the adapter declares and the error scenarios, asserting the normalised
/// results and what went over the wire, and finally checks that no secret or card data reached a log line or
/// an error's description.
///
/// Run it from your own tests (Swift Testing or XCTest):
/// ```swift
/// @Test func contract() async {
///     let report = await ContractSuite.run(MyContract.subject)
///     #expect(report.passed, "\(report)")
/// }
/// ```
public enum ContractSuite: Sendable {
    /// Runs every applicable scenario against a fresh simulator on 127.0.0.1.
    /// - Parameter timeout: the per-request timeout of the adapter in the timeout scenario, which delays the answer
    ///   past it. Every other scenario gives requests 15 seconds, so a loaded machine does not fail them.
    public static func run(_ subject: ContractSubject, timeout: Duration = .milliseconds(800)) async -> ContractReport {
        do {
            return try await withSimulator(subject.simulator) { handle in
                await ContractRun(subject: subject, handle: handle, timeout: timeout).run()
            }
        } catch {
            return ContractReport(
                subject: subject.name,
                scenarios: [.init(name: "start simulator", outcome: .failed(["the simulator did not start: \(error)"]))]
            )
        }
    }
}

/// A list of strings shared between scenario closures.
final class LockedStrings: Sendable {
    private let values = Mutex<[String]>([])
    func withLock<R>(_ body: (inout [String]) -> R) -> R { values.withLock { body(&$0) } }
}

/// Short sensitive values (a CVV) with the name they would appear next to.
final class LockedLabelledValues: Sendable {
    private let values = Mutex<[(label: String, value: String)]>([])
    func withLock<R>(_ body: (inout [(label: String, value: String)]) -> R) -> R { values.withLock { body(&$0) } }
}

/// Collects failed expectations for one scenario.
final class ScenarioChecks: Sendable {
    private let messages = Mutex<[String]>([])

    func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fail(message()) }
    }

    func fail(_ message: String) { messages.withLock { $0.append(message) } }

    var failures: [String] { messages.withLock { $0 } }
}

struct ContractRun {
    let subject: ContractSubject
    let handle: SimulatorHandle
    let timeout: Duration
    /// Where the adapter's HTTP attempts send their spans and metrics (nil: none; see ContractSuite+Telemetry).
    var observability: GatewayObservability? = nil
    let capture = LogCapture()
    let errorDescriptions = LockedStrings()
    let derivedNeedles = LockedStrings()
    let labelledNeedles = LockedLabelledValues()

    var descriptor: ProviderDescriptor { subject.factory.descriptor }
    var context: OperationContext { OperationContext(logger: capture.logger(label: "contract.\(subject.name)")) }

    /// The patience of every scenario but the timeout one.
    static let requestTimeout: Duration = .seconds(15)

    func makeProvider(timeout: Duration = ContractRun.requestTimeout) throws -> any CardProvider {
        let configuration = ProviderInstanceConfiguration(
            name: "contract-\(subject.name)", kind: subject.factory.kind, environment: nil, baseURL: handle.baseURL,
            credentials: subject.credentials, options: subject.options, timeout: timeout, retry: .none
        )
        let http = try ProviderHTTPClient(
            instance: configuration.name, kind: configuration.kind, baseURL: handle.baseURL,
            transport: AsyncHTTPClientTransport(),
            timeout: timeout, retry: .none, logger: capture.logger(label: "contract.http"),
            attemptMiddlewares: observability.map { [$0.attemptTelemetry()] } ?? []
        )
        let setup = ProviderSetup(
            configuration: configuration, http: http, logger: capture.logger(label: "contract.provider"),
            credentialStore: subject.credentialStore)
        return try subject.factory.make(setup)
    }

    func run() async -> ContractReport {
        await subject.simulator.reset()
        handle.faults.clear()
        var scenarios: [ContractReport.Scenario] = []
        let provider: any CardProvider
        do {
            provider = try makeProvider()
        } catch {
            return ContractReport(
                subject: subject.name,
                scenarios: [
                    .init(name: "make provider", outcome: .failed(["the factory failed: \(String(describing: error))"]))
                ])
        }

        func scenario(_ name: String, skip: String? = nil, _ body: (ScenarioChecks) async throws -> Void) async {
            if let skip {
                scenarios.append(.init(name: name, outcome: .skipped(skip)))
                return
            }
            handle.faults.clear()
            let checks = ScenarioChecks()
            do {
                try await body(checks)
            } catch {
                record(error)
                checks.fail("unexpected error: \(String(describing: error))")
            }
            handle.faults.clear()
            scenarios.append(.init(name: name, outcome: checks.failures.isEmpty ? .passed : .failed(checks.failures)))
        }

        // The descriptor must agree with the factory and with what the adapter implements.
        await scenario("descriptor") { checks in
            checks.expect(provider.descriptor == descriptor, "the instance's descriptor differs from the factory's")
            let implements: [(Capability, Bool)] = [
                (.cardLookup, provider is any CardLookup), (.cardListing, provider is any CardListing),
                (.cardIssuance, provider is any CardIssuance),
                (.cardActivation, provider is any CardActivation), (.cardPIN, provider is any CardPINManagement),
                (.cardPrograms, provider is any CardPrograms),
                (.walletTokenListing, provider is any WalletTokenListing),
                (.walletTokenControl, provider is any WalletTokenControl),
                (.walletProvisioning, provider is any WalletProvisioning),
                (.storedCredentials, provider is any StoredCredentials),
                (.webhooks, provider is any WebhookVerifying),
                (.authorizations, provider is any AuthorizationResponding),
            ]
            for (capability, conforms) in implements {
                checks.expect(
                    descriptor.capabilities.contains(capability) == conforms,
                    "capability \(capability) declared: \(descriptor.capabilities.contains(capability)), implemented: \(conforms)"
                )
            }
            // Locking and cancellation share one protocol: declaring either needs it, implementing it needs one of them.
            let statusDeclared =
                descriptor.capabilities.contains(.cardLocking) || descriptor.capabilities.contains(.cardCancellation)
            checks.expect(
                statusDeclared == (provider is any CardStatusControl),
                "cardLocking or cardCancellation declared: \(statusDeclared), CardStatusControl implemented: \(provider is any CardStatusControl)"
            )
            checks.expect(
                descriptor.capabilities.contains(.walletProvisioning) == !descriptor.provisioningFlows.isEmpty,
                "provisioning flows must be declared exactly when walletProvisioning is")
        }

        await runLookup(provider, scenario)
        await runCardManagement(provider, scenario)
        await runWalletTokens(provider, scenario)
        await runProvisioning(provider, scenario)
        await runStoredCredentials(provider, scenario)
        await runWebhooks(provider, scenario)
        await runCardReveal(provider, scenario)
        await runAuthorizations(provider, scenario)
        await runErrors(provider, scenario)
        await runFaultMatrix(provider, scenario)

        await scenario("redaction: logs and error descriptions") { checks in
            let needles =
                (subject.credentials.values.map(\.revealedValue) + subject.sensitiveValues
                + derivedNeedles.withLock { $0 })
                .filter { $0.count >= 4 }
            for leak in capture.leaks(of: needles) { checks.fail("a log line contains sensitive value \(mask(leak))") }
            let descriptions = errorDescriptions.withLock { $0 }
            for needle in needles {
                for description in descriptions where description.contains(needle) {
                    checks.fail(
                        "an error description contains sensitive value \(mask(needle)): \(description.prefix(80))…")
                }
            }
            for (label, value) in labelledNeedles.withLock({ $0 }) {
                for text in [capture.text] + descriptions where Self.mentions(text, label: label, value: value) {
                    checks.fail(
                        "a log line or error description carries the \(label) next to its name: \(mask(String(text.prefix(40))))"
                    )
                }
            }
            checks.expect(!capture.all.isEmpty, "the adapter logged nothing through the logger it was given")
        }
        return ContractReport(subject: subject.name, scenarios: scenarios)
    }

    /// Whether `text` has `value` within a few characters after `label` (`"cvv":"456"`, `cvv=456`, `cvv: 456`).
    static func mentions(_ text: String, label: String, value: String) -> Bool {
        let lowered = text.lowercased()
        var searchFrom = lowered.startIndex
        while let found = lowered.range(of: label, range: searchFrom..<lowered.endIndex) {
            let window = lowered[found.upperBound...].prefix(value.count + 8)
            if window.contains(value) { return true }
            searchFrom = found.upperBound
        }
        return false
    }

    func mask(_ value: String) -> String { "\(value.prefix(2))…(\(value.count) chars)" }

    func record(_ error: any Error) {
        errorDescriptions.withLock {
            $0.append(String(describing: error)); $0.append(String(reflecting: error))
        }
    }

    func remember(_ data: SensitiveData) {
        guard data.count >= 6 else { return }
        let bytes = data.revealedBytes
        derivedNeedles.withLock {
            $0.append(bytes.base64EncodedString())
            $0.append(ByteEncoding.hex(bytes))
            if let text = String(data: bytes, encoding: .utf8), text.count >= 8 { $0.append(text) }
        }
    }

    /// Runs `body` expecting a `CardGatewayError` with `code`.
    func expectError(
        _ code: CardGatewayError.Code, _ checks: ScenarioChecks, _ body: () async throws -> Void
    ) async -> CardGatewayError? {
        do {
            try await body()
            checks.fail("expected \(code), but the call succeeded")
            return nil
        } catch let error as CardGatewayError {
            record(error)
            checks.expect(error.code == code, "expected \(code), got \(error.code): \(error.message)")
            checks.expect(!error.message.isEmpty, "the error has no message")
            return error
        } catch {
            record(error)
            checks.fail("expected CardGatewayError \(code), got \(type(of: error))")
            return nil
        }
    }

    /// Journal entries added since `count`, without control-path or auth-token requests.
    func newEntries(since count: Int) -> [JournalEntry] {
        Array(handle.journal.entries().dropFirst(count))
    }

    /// A declared capability without fixtures: skipped only when the subject waives it, with its reason;
    /// otherwise a failure, so that an adapter cannot pass a contract it was never run against.
    func missing(
        _ area: WaivedArea, _ name: String, _ what: String,
        _ scenario: (String, String?, (ScenarioChecks) async throws -> Void) async -> Void
    ) async {
        if let reason = area.reason(in: subject.fixtures) {
            await scenario(name, "waived: \(reason)") { _ in }
        } else {
            await scenario(name, nil) { checks in
                checks.fail(
                    "\(what), though the descriptor declares it; give the fixtures or waive \(area) with a reason")
            }
        }
    }

    /// What a waiver can name: a capability, one wallet's provisioning, or the error scenarios.
    enum WaivedArea: CustomStringConvertible {
        case capability(Capability)
        case wallet(Wallet)
        case errors

        func reason(in fixtures: ContractFixtures) -> String? {
            switch self {
            case .capability(let capability): return fixtures.waived[capability]
            case .wallet(let wallet): return fixtures.waivedWallets[wallet]
            case .errors: return fixtures.waivedErrors
            }
        }

        var description: String {
            switch self {
            case .capability(let capability): return "waived[.\(capability.rawValue)]"
            case .wallet(let wallet): return "waivedWallets[.\(wallet.rawValue)]"
            case .errors: return "waivedErrors"
            }
        }
    }

    // MARK: Lookup

    func runLookup(
        _ provider: any CardProvider, _ scenario: (String, String?, (ScenarioChecks) async throws -> Void) async -> Void
    ) async {
        let declared = descriptor.capabilities.contains(.cardLookup)
        guard declared, let lookup = provider as? any CardLookup else { return }
        guard let fixture = subject.fixtures.lookup else {
            await missing(.capability(.cardLookup), "lookup: existing card", "no lookup fixtures given", scenario)
            return
        }
        await scenario("lookup: existing card", nil) { checks in
            let before = handle.journal.entries().count
            let card = try await lookup.card(fixture.existing, context: context)
            checks.expect(
                card.ref.id == fixture.existing.id, "the card id is \(card.ref.id), expected \(fixture.existing.id)")
            checks.expect(
                card.status == fixture.expectedStatus,
                "the status is \(card.status), expected \(fixture.expectedStatus)")
            if let lastFour = fixture.expectedLastFour {
                checks.expect(card.lastFour == lastFour, "last four is \(card.lastFour ?? "nil"), expected \(lastFour)")
            }
            checks.expect(!card.providerStatus.isEmpty, "providerStatus is empty")
            let wire = newEntries(since: before)
            let reads = wire.filter { $0.method == "GET" && $0.path.contains(fixture.existing.id) }
            checks.expect(
                !reads.isEmpty,
                "no GET naming the card id went over the wire (saw \(wire.map { "\($0.method) \($0.path)" }))")
            checks.expect(
                wire.allSatisfy { $0.responseStatus < 400 },
                "a request failed on the way: \(wire.map { "\($0.method) \($0.path) \($0.responseStatus)" })")
        }
        await scenario("lookup: missing card is notFound", nil) { checks in
            _ = await expectError(.notFound, checks) { _ = try await lookup.card(fixture.missing, context: context) }
        }
    }

    // MARK: Provisioning

    func runProvisioning(
        _ provider: any CardProvider, _ scenario: (String, String?, (ScenarioChecks) async throws -> Void) async -> Void
    ) async {
        guard descriptor.capabilities.contains(.walletProvisioning), let wallets = provider as? any WalletProvisioning
        else { return }
        guard let fixture = subject.fixtures.provisioning else {
            await missing(.capability(.walletProvisioning), "provisioning", "no provisioning fixtures given", scenario)
            return
        }
        for wallet in descriptor.wallets {
            let flow = descriptor.provisioningFlows[wallet]!
            await scenario("provisioning: \(wallet) offer for an eligible card", nil) { checks in
                let before = handle.journal.entries().count
                let offer = try await wallets.offer(for: fixture.eligible, wallet: wallet, context: context)
                checks.expect(
                    newEntries(since: before).contains { $0.method == "GET" && $0.path.contains(fixture.eligible.id) },
                    "the offer did not read the card from the provider"
                )
                checks.expect(
                    offer.eligible,
                    "the eligible card was offered as ineligible: \(offer.ineligibleReason?.description ?? "no reason")"
                )
                checks.expect(
                    offer.flow == flow,
                    "the offer's flow is \(offer.flow.map(\.rawValue) ?? "nil"), the descriptor says \(flow)")
                checks.expect(offer.wallet == wallet, "the offer is for \(offer.wallet)")
            }
            if let ineligible = fixture.ineligible {
                await scenario("provisioning: \(wallet) offer for an ineligible card", nil) { checks in
                    let offer = try await wallets.offer(for: ineligible, wallet: wallet, context: context)
                    checks.expect(!offer.eligible, "the ineligible card was offered as eligible")
                    checks.expect(offer.ineligibleReason != nil, "no reason given")
                }
            }
            guard let inputs = fixture.inputs[wallet], !inputs.isEmpty else {
                await missing(
                    .wallet(wallet), "provisioning: \(wallet) provision", "no inputs given for \(wallet)", scenario)
                continue
            }
            await scenario("provisioning: \(wallet) provision by \(flow)", nil) { checks in
                var previous: ProvisioningResponse?
                for (round, planned) in inputs.enumerated() {
                    let input = fixture.answer?(planned, previous) ?? planned
                    if let apple = input.applePay {
                        apple.certificates.forEach(remember); remember(apple.nonce); remember(apple.nonceSignature)
                    }
                    if let output = input.issuerSDKOutput { remember(output) }
                    let before = handle.journal.entries().count
                    let response = try await wallets.provision(
                        ProvisioningRequest(card: fixture.eligible, wallet: wallet, input: input), context: context)
                    previous = response
                    checks.expect(!newEntries(since: before).isEmpty, "round \(round + 1) sent nothing to the provider")
                    if flow == .encryptedPayload, wallet == .applePay, let payload = response.applePay {
                        checks.expect(
                            !payload.activationData.isEmpty && !payload.encryptedPassData.isEmpty
                                && !payload.ephemeralPublicKey.isEmpty, "an Apple payload part is empty")
                        remember(payload.encryptedPassData)
                        remember(payload.activationData)
                    } else if flow == .encryptedPayload, wallet == .googlePay, let payload = response.googlePay {
                        checks.expect(!payload.opaquePaymentCard.isEmpty, "the opaque payment card is empty")
                        remember(payload.opaquePaymentCard)
                    } else if flow == .encryptedPayload, wallet == .samsungPay, let payload = response.samsungPay {
                        checks.expect(!payload.extraProvisionPayload.isEmpty, "the extra provision payload is empty")
                        remember(payload.extraProvisionPayload)
                    } else if flow == .issuerSDKRelay, let input = response.issuerSDKInput {
                        checks.expect(!input.isEmpty, "round \(round + 1): the SDK input is empty")
                        remember(input)
                    } else if flow == .issuerSDKKey, let key = response.ephemeralKey {
                        checks.expect(!key.rawJSON.isEmpty, "the ephemeral key JSON is empty")
                        checks.expect(key.expires > Date(), "the ephemeral key has already expired")
                        if let json = try? JSONValue.parse(key.rawJSON.revealedBytes),
                            let secret = json["secret"]?.stringValue
                        {
                            derivedNeedles.withLock { $0.append(secret) }
                        }
                    } else {
                        checks.fail("round \(round + 1): a \(flow) flow for \(wallet) answered \(response)")
                    }
                }
            }
        }
        if let confirmation = fixture.confirmation {
            await scenario("provisioning: confirm", nil) { checks in
                let before = handle.journal.entries().count
                try await wallets.confirm(confirmation, context: context)
                let sent = newEntries(since: before)
                checks.expect(
                    sent.allSatisfy { $0.responseStatus < 400 },
                    "a confirm request failed: \(sent.map { "\($0.method) \($0.path) \($0.responseStatus)" })")
                checks.expect(
                    sent.allSatisfy { $0.method == "GET" || $0.path.contains(confirmation.card.id) },
                    "a confirm write does not name the card")
            }
        }
    }

    // MARK: Stored credentials

    func runStoredCredentials(
        _ provider: any CardProvider, _ scenario: (String, String?, (ScenarioChecks) async throws -> Void) async -> Void
    ) async {
        guard descriptor.capabilities.contains(.storedCredentials), let credentials = provider as? any StoredCredentials
        else { return }
        guard let fixture = subject.fixtures.storedCredentials else {
            await missing(
                .capability(.storedCredentials), "storedCredentials", "no stored-credential fixtures given", scenario)
            return
        }
        await scenario("storedCredentials: session, SDK result, verification, merchant-initiated charge", nil) {
            checks in
            let session = try await credentials.clientSession(fixture.storeSession, context: context)
            checks.expect(!session.token.isEmpty, "the session token is empty")
            derivedNeedles.withLock { $0.append(session.token.revealedValue) }
            let result = try await fixture.completeInSDK(session, handle)
            derivedNeedles.withLock { $0.append(result.revealedValue) }
            let credential = try await credentials.verifyResult(result, context: context)
            checks.expect(!credential.reference.isEmpty, "the stored credential has no reference")
            checks.expect(
                credential.maskedPAN.contains("*") || credential.maskedPAN.contains("#"),
                "the PAN is not masked: \(credential.maskedPAN.count) chars")
            let before = handle.journal.entries().count
            let charge = try await credentials.charge(
                ChargeRequest(
                    reference: credential.reference, amount: fixture.chargeAmount, initiator: .merchant(.unscheduled)),
                context: context)
            checks.expect(!charge.transactionReference.isEmpty, "the charge has no transaction reference")
            checks.expect(
                charge.parentReference == credential.reference, "the charge's parent is \(charge.parentReference)")
            checks.expect(
                newEntries(since: before).filter { $0.method == "POST" }.count == 1,
                "a charge must be sent exactly once")
        }
        await scenario("storedCredentials: storing without consent is refused", nil) { checks in
            var request = fixture.storeSession
            request.intent = .store(consent: nil)
            _ = await expectError(.invalidRequest, checks) {
                _ = try await credentials.clientSession(request, context: context)
            }
        }
        await scenario("storedCredentials: a forged result is refused", nil) { checks in
            _ = await expectError(.signatureInvalid, checks) {
                _ = try await credentials.verifyResult(
                    Secret("eyJhbGciOiJIUzI1NiJ9.eyJhdWQiOiJ4In0.c2lnbmF0dXJl"), context: context)
            }
        }
    }

    // MARK: Webhooks

    func runWebhooks(
        _ provider: any CardProvider, _ scenario: (String, String?, (ScenarioChecks) async throws -> Void) async -> Void
    ) async {
        guard descriptor.capabilities.contains(.webhooks), let verifier = provider as? any WebhookVerifying else {
            return
        }
        guard let fixture = subject.fixtures.webhooks else {
            await missing(.capability(.webhooks), "webhooks", "no webhook fixtures given", scenario)
            return
        }
        let now = Date()
        await scenario("webhooks: a valid delivery becomes events", nil) { checks in
            let events = try verifier.verify(try fixture.delivery(.valid, now), now: now)
            checks.expect(!events.isEmpty, "a valid delivery produced no events")
            checks.expect(events.allSatisfy { $0.providerKind == descriptor.kind }, "events name another provider kind")
        }
        for variant in [ContractFixtures.WebhookVariant.tampered, .stale, .wrongSecret] {
            let skip = variant == .stale && !fixture.signsTimestamp ? "the provider signs no timestamp" : nil
            await scenario("webhooks: \(variant) delivery is refused", skip) { checks in
                let delivery = try fixture.delivery(variant, now)
                _ = await expectError(.signatureInvalid, checks) { _ = try verifier.verify(delivery, now: now) }
            }
        }
    }

    // MARK: Errors

    func runErrors(
        _ provider: any CardProvider, _ scenario: (String, String?, (ScenarioChecks) async throws -> Void) async -> Void
    ) async {
        let probe: (@Sendable (any CardProvider, OperationContext) async throws -> Void)?
        if let given = subject.fixtures.probe {
            probe = given
        } else if let lookup = subject.fixtures.lookup, provider is any CardLookup {
            probe = { provider, context in
                _ = try await (provider as! any CardLookup).card(lookup.existing, context: context)
            }
        } else {
            probe = nil
        }
        guard let probe else {
            await missing(.errors, "errors", "no probe operation: give fixtures.probe or lookup fixtures", scenario)
            return
        }
        // Find the path the probe sends, so faults hit it and not an auth-token request.
        var probePath: String?
        var probeMethod: String?
        await scenario("errors: probe succeeds", nil) { checks in
            let before = handle.journal.entries().count
            try await probe(provider, context)
            let sent = newEntries(since: before)
            probePath = sent.last?.path
            probeMethod = sent.last?.method
            checks.expect(probePath != nil, "the probe sent nothing")
        }
        guard let path = probePath else { return }
        func inject(_ action: FaultAction, count: Int = 3) {
            handle.faults.inject(FaultRule(count: count, pathPrefix: path, method: probeMethod, action: action))
        }
        let cases: [(String, FaultAction, CardGatewayError.Code)] = [
            (
                "errors: 401 is authenticationFailed", .status(401, retryAfterSeconds: nil, message: "bad credentials"),
                .authenticationFailed
            ),
            (
                "errors: 403 is permissionDenied", .status(403, retryAfterSeconds: nil, message: "forbidden"),
                .permissionDenied
            ),
            ("errors: 404 is notFound", .status(404, retryAfterSeconds: nil, message: "not found"), .notFound),
            (
                "errors: 503 is providerUnavailable", .status(503, retryAfterSeconds: nil, message: "maintenance"),
                .providerUnavailable
            ),
            ("errors: a malformed body is invalidResponse", .malformedBody(status: 200), .invalidResponse),
        ]
        for (name, action, code) in cases {
            await scenario(name, nil) { checks in
                inject(action)
                if let error = await expectError(code, checks, { try await probe(provider, context) }) {
                    if case .status(let status, _, _) = action {
                        checks.expect(
                            error.httpStatus == status,
                            "httpStatus is \(error.httpStatus.map(String.init) ?? "nil"), expected \(status)")
                    }
                    // A 503 to a read is worth repeating; one to a write without an idempotency key (a charge) may
                    // have been processed, so the adapter may rightly say it is not.
                    if code == .providerUnavailable && probeMethod == "GET" {
                        checks.expect(error.isRetryable, "a 503 to a read should be retryable")
                    }
                    if code == .authenticationFailed || code == .notFound {
                        checks.expect(!error.isRetryable, "\(code) should not be retryable")
                    }
                }
            }
        }
        await scenario("errors: 429 is rateLimited with Retry-After", nil) { checks in
            inject(.status(429, retryAfterSeconds: 7, message: "slow down"))
            if let error = await expectError(.rateLimited, checks, { try await probe(provider, context) }) {
                checks.expect(
                    error.retryAfter == .seconds(7),
                    "retryAfter is \(error.retryAfter.map { "\($0)" } ?? "nil"), expected 7 seconds")
                checks.expect(error.isRetryable, "rate limiting should be retryable")
            }
        }
        await scenario("errors: no answer within the timeout is timeout", nil) { checks in
            let delay = Int((timeout + .milliseconds(1_000)).milliseconds)
            let impatient = try makeProvider(timeout: timeout)
            inject(.delay(milliseconds: delay), count: 1)
            if let error = await expectError(.timeout, checks, { try await probe(impatient, context) }) {
                checks.expect(error.mayHaveReachedProvider, "a timed-out request may have reached the provider")
            }
            // Let the delayed request be answered and journaled before the next scenario (a signal, not a sleep).
            await handle.faults.delayedAnswersSettled()
        }
        await scenario("errors: a dropped connection is a transport failure", nil) { checks in
            inject(.dropConnection)
            do {
                try await probe(provider, context)
                checks.fail("expected a failure, the call succeeded")
            } catch let error as CardGatewayError {
                record(error)
                checks.expect(
                    [.transport, .timeout, .invalidResponse].contains(error.code),
                    "a dropped connection gave \(error.code)")
                checks.expect(error.mayHaveReachedProvider, "a dropped connection may have reached the provider")
            }
        }
        await scenario("errors: a truncated body is not accepted", nil) { checks in
            inject(.truncatedBody(status: 200))
            do {
                try await probe(provider, context)
                checks.fail("a truncated body was accepted")
            } catch let error as CardGatewayError {
                record(error)
                checks.expect(
                    [.transport, .invalidResponse].contains(error.code), "a truncated body gave \(error.code)")
            }
        }
        for extra in subject.fixtures.extraErrorScenarios {
            await scenario("errors: \(extra.name)", nil) { checks in
                _ = await expectError(extra.expected, checks) { try await extra.run(provider, context) }
            }
        }
    }
}
