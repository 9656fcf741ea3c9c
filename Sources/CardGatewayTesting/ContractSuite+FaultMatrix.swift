@_spi(AdapterSupport) import CardGateway
import AsyncHTTPClient
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import Foundation
import HTTPTypes
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One operation of the adapter that the fault matrix faults: `prepare` runs on a fresh simulator before each
/// cell (to obtain a stored credential, say) and returns the call whose provider request is faulted.
struct MatrixOperation: Sendable {
    typealias Call = @Sendable (any CardProvider, OperationContext) async throws -> Void
    let name: String
    let prepare: @Sendable (any CardProvider, OperationContext) async throws -> Call

    init(_ name: String, prepare: @escaping @Sendable (any CardProvider, OperationContext) async throws -> Call) {
        self.name = name
        self.prepare = prepare
    }

    init(_ name: String, call: @escaping Call) {
        self.init(name) { _, _ in call }
    }
}

/// The provider request an operation ends with, as the adapter built it.
struct MatrixTarget: Sendable {
    var method: String
    var path: String
    var requestClass: FaultMatrix.RequestClass
}

/// Records each logical request the adapter sends (a request middleware: once per request, before retries), and
/// marks it with the cell it belongs to, so that the journal tells a cell's requests from a late answer to an
/// earlier scenario's delayed request on the same path.
final class RequestRecorder: ProviderMiddleware, Sendable {
    /// The header that carries the cell's mark; the simulators ignore it and journal it.
    static let cellHeader = HTTPField.Name("X-Contract-Cell")!
    private let recorded = Mutex<[MatrixTarget]>([])
    private let cell = Mutex<String?>(nil)

    func intercept(
        _ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext
    ) async throws -> ProviderResponse {
        // The path as the simulator sees it: the base URL's path, if any, before the request's.
        let base = context.baseURL.path.hasSuffix("/") ? String(context.baseURL.path.dropLast()) : context.baseURL.path
        recorded.withLock {
            $0.append(
                MatrixTarget(
                    method: request.method.rawValue, path: base + request.path,
                    requestClass: FaultMatrix.RequestClass(request.repeatability)))
        }
        var request = request
        if let mark = cell.withLock({ $0 }) { request.headers[Self.cellHeader] = mark }
        return try await next(request, context)
    }

    /// Marks every request sent from now on as `mark`'s.
    func mark(_ mark: String) { cell.withLock { $0 = mark } }

    var last: MatrixTarget? { recorded.withLock { $0.last } }
    func clear() { recorded.withLock { $0.removeAll() } }
}

/// Sends requests to a port where nothing listens while armed for a method and path, so the connection is
/// refused before anything is sent; every other request goes to the simulator.
final class RefusingRouteTransport: HTTPTransport, Sendable {
    private let base: any HTTPTransport
    private let deadAuthority: String
    private let armed = Mutex<(method: String, path: String)?>(nil)

    init(base: any HTTPTransport, deadAuthority: String) {
        self.base = base
        self.deadAuthority = deadAuthority
    }

    func arm(method: String, path: String) { armed.withLock { $0 = (method, path) } }
    func disarm() { armed.withLock { $0 = nil } }

    func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        var request = request
        if let target = armed.withLock({ $0 }), request.method.rawValue == target.method,
            (request.path ?? "").split(separator: "?", maxSplits: 1).first.map(String.init) == target.path
        {
            request.authority = deadAuthority
        }
        return try await base.send(request, body: body, timeout: timeout)
    }
}

/// A TCP port on 127.0.0.1 that is bound but never listens, so connecting to it is refused at once. It stays
/// bound until closed, so no other process can take it meanwhile.
final class RefusedPort: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else {
            throw CardGatewayError(.invalidConfiguration, "no socket for the refused-connection fault")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw CardGatewayError(.invalidConfiguration, "could not bind a port for the refused-connection fault")
        }
        self.descriptor = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}

extension ContractRun {
    /// The patience of an attempt in the cells whose answer is delayed, dropped or cut off; in the timeout cells the
    /// simulator answers `matrixDelay` later. The cells answered in full wait ``requestTimeout``.
    static let matrixTimeout: Duration = .milliseconds(400)
    static let matrixDelay: Duration = .milliseconds(1_000)
    /// Two attempts, so every cell also shows what the client repeats; no wait for `Retry-After`.
    static let matrixRetry = RetryPolicy(
        maxAttempts: 2, baseDelay: .milliseconds(5), maxDelay: .milliseconds(20), maxRetryAfter: .zero)

    /// The operations the adapter supports, from the fixtures it was given.
    func matrixOperations(_ provider: any CardProvider) -> [MatrixOperation] {
        var operations: [MatrixOperation] = []
        let fixtures = subject.fixtures
        if descriptor.capabilities.contains(.cardLookup), provider is any CardLookup, let lookup = fixtures.lookup {
            operations.append(
                MatrixOperation("card lookup") { provider, context in
                    _ = try await (provider as! any CardLookup).card(lookup.existing, context: context)
                })
        }
        let capabilities = descriptor.capabilities
        if let cards = fixtures.cards {
            if capabilities.contains(.cardListing), provider is any CardListing {
                operations.append(
                    MatrixOperation("list cards") { provider, context in
                        _ = try await (provider as! any CardListing).listCards(
                            CardQuery(customer: cards.customer, limit: 2), context: context)
                    })
            }
            if capabilities.contains(.cardPrograms), provider is any CardPrograms {
                operations.append(
                    MatrixOperation("programs") { provider, context in
                        _ = try await (provider as! any CardPrograms).programs(
                            customer: cards.customer, context: context)
                    })
            }
            if capabilities.contains(.cardIssuance), provider is any CardIssuance, let create = cards.createVirtual {
                operations.append(
                    MatrixOperation("create card") { provider, context in
                        _ = try await (provider as! any CardIssuance).createCard(create, context: context)
                    })
            }
            if capabilities.contains(.cardActivation), provider is any CardActivation, let activation = cards.activation
            {
                operations.append(
                    MatrixOperation("activate card") { provider, context in
                        _ = try await (provider as! any CardActivation).activateCard(activation, context: context)
                    })
            }
            if capabilities.contains(.cardLocking), provider is any CardStatusControl, let lockable = cards.lockable {
                operations.append(
                    MatrixOperation("lock card") { provider, context in
                        _ = try await (provider as! any CardStatusControl).changeStatus(
                            CardStatusRequest(card: lockable, intent: .lock), context: context)
                    })
            }
            if capabilities.contains(.cardPIN), provider is any CardPINManagement, let pin = cards.pinChange {
                operations.append(
                    MatrixOperation("set PIN") { provider, context in
                        _ = try await (provider as! any CardPINManagement).setPIN(pin, context: context)
                    })
            }
        }
        if let tokens = fixtures.walletTokens {
            if capabilities.contains(.walletTokenListing), provider is any WalletTokenListing {
                operations.append(
                    MatrixOperation("list wallet tokens") { provider, context in
                        _ = try await (provider as! any WalletTokenListing).walletTokens(
                            of: tokens.card, context: context)
                    })
            }
            if capabilities.contains(.walletTokenControl), provider is any WalletTokenControl {
                operations.append(
                    MatrixOperation("suspend wallet token") { provider, context in
                        _ = try await (provider as! any WalletTokenControl).changeWalletToken(
                            WalletTokenRequest(card: tokens.card, token: tokens.token, intent: .suspend),
                            context: context
                        )
                    })
            }
        }
        if descriptor.capabilities.contains(.walletProvisioning), provider is any WalletProvisioning,
            let provisioning = fixtures.provisioning
        {
            @Sendable func wallets(_ provider: any CardProvider) -> any WalletProvisioning {
                provider as! any WalletProvisioning
            }
            for wallet in descriptor.wallets {
                operations.append(
                    MatrixOperation("\(wallet) offer") { provider, context in
                        _ = try await wallets(provider).offer(
                            for: provisioning.eligible, wallet: wallet, context: context)
                    })
                if let planned = provisioning.inputs[wallet]?.first {
                    let input = provisioning.answer?(planned, nil) ?? planned
                    operations.append(
                        MatrixOperation("\(wallet) provision") { provider, context in
                            _ = try await wallets(provider).provision(
                                ProvisioningRequest(card: provisioning.eligible, wallet: wallet, input: input),
                                context: context)
                        })
                }
            }
            if let confirmation = provisioning.confirmation {
                // A confirmation follows a provisioning of its wallet (on the fresh simulator of each cell).
                let planned = provisioning.inputs[confirmation.wallet]?.first
                operations.append(
                    MatrixOperation("provisioning confirm") { provider, context in
                        if let planned {
                            let input = provisioning.answer?(planned, nil) ?? planned
                            _ = try await wallets(provider).provision(
                                ProvisioningRequest(card: confirmation.card, wallet: confirmation.wallet, input: input),
                                context: context)
                        }
                        return { provider, context in
                            try await wallets(provider).confirm(confirmation, context: context)
                        }
                    })
            }
        }
        if descriptor.capabilities.contains(.storedCredentials), provider is any StoredCredentials,
            let stored = fixtures.storedCredentials
        {
            @Sendable func credentials(_ provider: any CardProvider) -> any StoredCredentials {
                provider as! any StoredCredentials
            }
            let handle = self.handle
            operations.append(
                MatrixOperation("client session") { provider, context in
                    _ = try await credentials(provider).clientSession(stored.storeSession, context: context)
                })
            operations.append(
                MatrixOperation("verify result") { provider, context in
                    let session = try await credentials(provider).clientSession(stored.storeSession, context: context)
                    let result = try await stored.completeInSDK(session, handle)
                    return { provider, context in
                        _ = try await credentials(provider).verifyResult(result, context: context)
                    }
                })
            operations.append(
                MatrixOperation("merchant-initiated charge") { provider, context in
                    let session = try await credentials(provider).clientSession(stored.storeSession, context: context)
                    let result = try await stored.completeInSDK(session, handle)
                    let credential = try await credentials(provider).verifyResult(result, context: context)
                    let charge = ChargeRequest(
                        reference: credential.reference, amount: stored.chargeAmount, initiator: .merchant(.unscheduled)
                    )
                    return { provider, context in _ = try await credentials(provider).charge(charge, context: context) }
                })
        }
        return operations
    }

    /// Runs every fault of ``FaultMatrix`` against every operation, one scenario per cell.
    func runFaultMatrix(
        _ provider: any CardProvider, _ scenario: (String, String?, (ScenarioChecks) async throws -> Void) async -> Void
    ) async {
        let operations = matrixOperations(provider)
        guard !operations.isEmpty else { return }
        let refused: RefusedPort
        do { refused = try RefusedPort() } catch {
            await scenario("fault matrix", nil) { checks in
                checks.fail("could not prepare the refused-connection fault: \(error)")
            }
            return
        }
        let faults = FaultMatrix.Fault.allCases
        var cells = 0
        var skipped: [String] = []
        for operation in operations {
            // A clean run finds the request the operation ends with and how the adapter declared it.
            var target: MatrixTarget?
            await scenario("fault matrix: \(operation.name), no fault", nil) { checks in
                let (made, recorder, _) = try makeMatrixProvider(deadPort: refused.port, timeout: Self.requestTimeout)
                await subject.simulator.reset()
                let call = try await operation.prepare(made, context)
                recorder.clear()
                try await call(made, context)
                target = recorder.last
                if let target {
                    checks.expect(
                        target.method != "GET" || target.requestClass == .safe, "a GET must be declared safe to repeat")
                    checks.expect(
                        target.method != "POST" || target.requestClass != .safe,
                        "POST \(target.path) is declared safe to repeat without an idempotency key")
                }
            }
            guard let target else {
                skipped.append(operation.name)
                continue
            }
            for fault in faults {
                cells += 1
                await scenario("fault matrix: \(operation.name) × \(fault)", nil) { checks in
                    try await runCell(operation, target: target, fault: fault, refusedPort: refused.port, checks)
                }
            }
        }
        withExtendedLifetime(refused) {}
        print(
            "fault matrix \(subject.name): \(cells) cells (\(cells / max(1, faults.count)) operations × \(faults.count) faults)"
                + (skipped.isEmpty
                    ? "" : "; sends nothing to the provider, so not faulted: \(skipped.joined(separator: ", "))"))
    }

    /// The matrix's client: the default transport's settings, except that a refused connection fails the attempt at
    /// once. AsyncHTTPClient retries establishing a connection until the request's deadline by default, so without
    /// this the refused cell would last its whole timeout and end as a timeout or a refusal depending on the
    /// machine's pace. Process-wide and never shut down, like the default transport's client.
    static let matrixClient: HTTPClient = {
        var configuration = AsyncHTTPClientTransport.configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// A provider for one cell: retries as ``matrixRetry``, the attempt timeout given, a response size limit, a
    /// recorder of the adapter's requests and a transport that can refuse the target's connection.
    func makeMatrixProvider(
        deadPort: Int, timeout: Duration
    ) throws -> (any CardProvider, RequestRecorder, RefusingRouteTransport) {
        let recorder = RequestRecorder()
        let transport = RefusingRouteTransport(
            base: AsyncHTTPClientTransport(client: Self.matrixClient, maxResponseBytes: FaultMatrix.maxResponseBytes),
            deadAuthority: "127.0.0.1:\(deadPort)"
        )
        let configuration = ProviderInstanceConfiguration(
            name: "matrix-\(subject.name)", kind: subject.factory.kind, environment: nil, baseURL: handle.baseURL,
            credentials: subject.credentials, options: subject.options, timeout: timeout, retry: Self.matrixRetry
        )
        let http = try ProviderHTTPClient(
            instance: configuration.name, kind: configuration.kind, baseURL: handle.baseURL, transport: transport,
            timeout: timeout, retry: Self.matrixRetry, logger: capture.logger(label: "contract.matrix.http"),
            requestMiddlewares: [recorder]
        )
        let setup = ProviderSetup(
            configuration: configuration, http: http, logger: capture.logger(label: "contract.matrix"),
            credentialStore: subject.credentialStore)
        return (try subject.factory.make(setup), recorder, transport)
    }

    func runCell(
        _ operation: MatrixOperation, target: MatrixTarget, fault: FaultMatrix.Fault, refusedPort: Int,
        _ checks: ScenarioChecks
    ) async throws {
        let expected = FaultMatrix.expectation(for: fault, on: target.requestClass)
        // Only the cell about a late answer waits `matrixTimeout`, which is what it exercises; every other cell (a
        // refused, dropped or cut-off connection ends the attempt by itself) waits as long as any call, so a loaded
        // machine's slow answer is never taken for a timeout (under AddressSanitizer with two builds beside it, a
        // refused connection and a plain answer both once took longer than 400 ms).
        let timeout = fault == .slowerThanTimeout ? Self.matrixTimeout : Self.requestTimeout
        let (provider, recorder, transport) = try makeMatrixProvider(deadPort: refusedPort, timeout: timeout)
        let mark = UUID().uuidString
        recorder.mark(mark)
        await subject.simulator.reset()
        handle.faults.clear()
        // One key for the operation, so a repeat after the fault is the same logical request.
        var context = self.context
        context.idempotencyKey = "matrix-\(subject.name)-\(operation.name)-\(fault.rawValue)"
        let call = try await operation.prepare(provider, context)
        let before = handle.journal.entries().count
        if let action = FaultMatrix.action(for: fault, delayMilliseconds: Int(Self.matrixDelay.milliseconds)) {
            handle.faults.inject(
                FaultRule(
                    count: Self.matrixRetry.maxAttempts, pathPrefix: target.path, method: target.method, action: action)
            )
        } else {
            transport.arm(method: target.method, path: target.path)
        }
        let cell = "\(target.requestClass) \(target.method) \(target.path)"
        do {
            try await call(provider, context)
            checks.fail("\(cell): expected \(expected), but the call succeeded")
        } catch let error as CardGatewayError {
            record(error)
            checks.expect(
                error.code == expected.code,
                "\(cell): code is \(error.code), expected \(expected.code) (\(error.message))")
            checks.expect(
                error.isRetryable == expected.retryable,
                "\(cell): retryable is \(error.isRetryable), expected \(expected.retryable)")
            checks.expect(
                error.mayHaveReachedProvider == expected.mayHaveReachedProvider,
                "\(cell): mayHaveReachedProvider is \(error.mayHaveReachedProvider), expected \(expected.mayHaveReachedProvider)"
            )
            if let retryAfter = expected.retryAfter {
                checks.expect(
                    error.retryAfter == retryAfter,
                    "\(cell): retryAfter is \(error.retryAfter.map { "\($0)" } ?? "nil"), expected \(retryAfter)")
            }
            if !error.isRetryable && error.retryAfter != nil {
                checks.fail("\(cell): a non-retryable error carries retryAfter")
            }
        }
        handle.faults.clear()
        transport.disarm()
        // The simulator answers delayed attempts late; let them land in the journal first (a signal, not a sleep).
        await handle.faults.delayedAnswersSettled()
        // This cell's requests only: a delayed request of an earlier scenario is journaled when it is answered.
        func sent() -> [JournalEntry] {
            newEntries(since: before).filter {
                $0.method == target.method && $0.path == target.path
                    && $0.header(RequestRecorder.cellHeader.rawName) == mark
            }
        }
        let faulted = sent()
        if target.requestClass == .unkeyed && expected.mayHaveReachedProvider {
            checks.expect(
                faulted.count == 1,
                "\(cell): an unkeyed write whose outcome is unknown was sent \(faulted.count) times, expected once")
        }
        checks.expect(
            faulted.count <= Self.matrixRetry.maxAttempts,
            "\(cell): sent \(faulted.count) times with \(Self.matrixRetry.maxAttempts) attempts allowed")
        if target.requestClass == .keyed {
            let keys = Set(faulted.map { entry in entry.headers.first { $0.key.contains("idempotency") }?.value ?? "" })
            checks.expect(
                keys.count <= 1 && !keys.contains(""),
                "\(cell): the attempts carried idempotency keys \(keys.count) different or missing")
        }
        if target.requestClass == .keyedByContent {
            let bodies = Set(faulted.map(\.body))
            checks.expect(
                bodies.count <= 1 && !bodies.contains(Data()),
                "\(cell): the attempts carried \(bodies.count) different bodies, or none")
        }
        // Reads and keyed writes recover once the fault clears; an unkeyed write with an unknown outcome is left
        // for its caller to check.
        if target.requestClass != .unkeyed || !expected.mayHaveReachedProvider {
            // The repeat is the same logical request (the same operation key) with the patience of any call.
            let patient: any CardProvider
            if timeout == Self.requestTimeout {
                patient = provider
            } else {
                let (made, patientRecorder, _) = try makeMatrixProvider(
                    deadPort: refusedPort, timeout: Self.requestTimeout)
                patientRecorder.mark(mark)
                patient = made
            }
            do {
                try await call(patient, context)
            } catch {
                record(error)
                checks.fail(
                    "\(cell): the repeat after the fault cleared failed: \(String(describing: error).prefix(200))")
            }
        }
        if target.method != "GET" {
            let executions = sent().filter(\.executedSuccessfully)
            checks.expect(executions.count <= 1, "\(cell): the write was executed \(executions.count) times")
        }
    }
}
