import AdyenSimulator
import AsyncHTTPClient
import CardGatewaySimulation
import Foundation
import MarqetaSimulator
import NIOCore
import StripeSimulator

// The card network's side of the authorization benchmark (issue 47), in a process of its own: it sends a provider's
// signed authorization requests to one endpoint at a fixed rate (open loop: a request's latency counts from the
// instant it was due, so a stall is not hidden by sending later) or with a fixed number in flight (closed loop), and
// prints one JSON line with what it saw. Run by scripts/authorization-benchmark against the provisioning server's
// `POST /authorizations/{instance}` and FloorProxy's fixed answer; by hand:
//
//     swift build -c release --package-path Benchmarks --product AuthorizationLoad
//     Benchmarks/.build/release/AuthorizationLoad --kind stripe --url http://127.0.0.1:8080/authorizations/us-issuing \
//         --rate 1000 --warmup 1 --seconds 5 [--pid 1234] [--in-flight 128]
//
// Every message is built and signed before the clock starts, by the provider's simulator (its seed's card, secret and
// Basic credentials: those `cardgateway simulate --write-config` writes for the server), each with its own
// authorization id, so that the gateway decides every one instead of answering a repeated delivery from its ledger.
// An answer counts as answered when it is HTTP 200 and an approval in the provider's shape (Stripe `approved: true`,
// Adyen `Authorised`, Marqeta's `jit_funding`). `--pid` names processes (comma-separated) whose CPU (utime + stime from
// /proc) over the measured window is reported per request. It lives in Load/, not Benchmarks/: package-benchmark runs
// every executable under Benchmarks/ as a benchmark.

struct Options {
    var kind = ""
    var url = ""
    var rate = 1_000
    var inFlight = 0
    var warmup = 1.0
    var seconds = 5.0
    var pids: [Int] = []

    init(_ arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        func number(_ name: String) throws -> Double {
            guard let value = iterator.next().flatMap(Double.init), value >= 0 else {
                throw UsageError(description: "\(name) needs a number")
            }
            return value
        }
        while let argument = iterator.next() {
            switch argument {
            case "--kind": kind = iterator.next() ?? ""
            case "--url": url = iterator.next() ?? ""
            case "--rate": rate = max(1, Int(try number(argument)))
            case "--in-flight": inFlight = Int(try number(argument))
            case "--warmup": warmup = try number(argument)
            case "--seconds": seconds = max(0.1, try number(argument))
            case "--pid": pids = (iterator.next() ?? "").split(separator: ",").compactMap { Int($0) }
            default: throw UsageError(description: "unknown argument \(argument)")
            }
        }
        guard ["stripe", "adyen", "marqeta"].contains(kind), url.hasPrefix("http://127.0.0.1") else {
            throw UsageError(
                description:
                    "usage: AuthorizationLoad --kind stripe|adyen|marqeta --url http://127.0.0.1:PORT/PATH "
                    + "[--rate N | --in-flight N] [--warmup S] [--seconds S] [--pid PID,…]")
        }
    }
}

struct UsageError: Error, CustomStringConvertible {
    var description: String
}

/// One message as the network sends it.
struct Message: Sendable {
    var headers: [(String, String)]
    var body: ByteBuffer
}

/// `count` distinct signed requests of `kind` for an approvable purchase (USD 12.50, or EUR for Adyen, at a grocery
/// in the US: no rule of the simulate configuration declines it).
func messages(kind: String, count: Int) throws -> [Message] {
    let merchant = AuthorizationOrder.Merchant(
        name: "Corner Shop", categoryCode: "5411", country: "US", city: "Seattle")
    func order(_ card: String, _ currency: String) -> AuthorizationOrder {
        AuthorizationOrder(
            url: "http://127.0.0.1/", card: card, amount: 1_250, currency: currency, merchant: merchant)
    }
    switch kind {
    case "stripe":
        let simulator = StripeSimulator()
        return try (0..<count).map { _ in
            guard
                let signed = simulator.signedAuthorizationRequest(
                    card: StripeSimulator.Seed.activeCardID, amount: 1_250, merchant: merchant)
            else { throw UsageError(description: "the Stripe simulator has no seeded active card") }
            return Message(headers: signed.headers, body: ByteBuffer(bytes: signed.body))
        }
    case "adyen":
        let simulator = AdyenSimulator()
        let settings = simulator.relayedAuthorisation
        let headers = [
            (
                "Authorization",
                SimulatorHTTP.basicAuthorization(user: settings.username, password: settings.password)
            ),
            ("Content-Type", "application/json"),
        ]
        return try (0..<count).map { _ in
            guard let body = simulator.relayedAuthorisationMessage(for: order(AdyenSimulator.Seed.activeVisaID, "EUR"))
            else { throw UsageError(description: "the Adyen simulator refused the order") }
            return Message(headers: headers, body: ByteBuffer(bytes: body))
        }
    default:
        let simulator = MarqetaSimulator()
        return try (0..<count).map { _ in
            guard let message = simulator.jitFundingRequest(order(MarqetaSimulator.Seed.activeCard, "USD")) else {
                throw UsageError(description: "the Marqeta simulator refused the order")
            }
            return Message(headers: message.headers, body: ByteBuffer(bytes: message.body))
        }
    }
}

/// Nil when `body` (with HTTP `status`) is an approval in `kind`'s shape; else what it is.
func approvalProblem(kind: String, status: UInt, body: ByteBuffer) -> String? {
    guard status == 200 else { return "HTTP \(status)" }
    let object = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any]
    switch kind {
    case "stripe":
        return object?["approved"] as? Bool == true ? nil : "not approved"
    case "adyen":
        let decision = object?["authorisationDecision"] as? [String: Any]
        return decision?["status"] as? String == "Authorised" ? nil : "not Authorised"
    default:
        return object?["jit_funding"] is [String: Any] ? nil : "no jit_funding"
    }
}

/// utime + stime of the processes, in seconds (/proc/<pid>/stat fields 14 and 15).
func cpuSeconds(_ pids: [Int]) -> Double {
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    return pids.reduce(0) { total, pid in
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return total }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return total }
        return total + (user + system) / ticks
    }
}

func ownCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// What one request saw.
struct Outcome: Sendable {
    var measured: Bool
    var latency: Duration
    var problem: String?
}

func send(_ message: Message, kind: String, url: String, client: HTTPClient) async -> String? {
    var request = HTTPClientRequest(url: url)
    request.method = .POST
    for (name, value) in message.headers { request.headers.add(name: name, value: value) }
    request.body = .bytes(message.body)
    do {
        let response = try await client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1024 * 1024)
        return approvalProblem(kind: kind, status: response.status.code, body: body)
    } catch {
        return "\(type(of: error))"
    }
}

/// The requests' outcomes and the CPU marks around the measured window.
struct Run: Sendable {
    var outcomes: [Outcome]
    var cpu: (before: Double, after: Double)
    var own: (before: Double, after: Double)
    var window: Duration
}

/// Closed loop: `inFlight` callers, each sending its next message as soon as its answer is in; answers that arrive
/// in the warm-up are not counted.
func closedLoop(_ options: Options, _ prepared: [Message], client: HTTPClient) async -> Run {
    let clock = ContinuousClock()
    let measuredFrom = clock.now + .seconds(options.warmup)
    let end = measuredFrom + .seconds(options.seconds)
    let marks = Task {
        try? await clock.sleep(until: measuredFrom)
        return (cpuSeconds(options.pids), ownCPUSeconds())
    }
    let outcomes = await withTaskGroup(of: [Outcome].self) { group in
        for caller in 0..<options.inFlight {
            group.addTask {
                // Caller k sends messages k, k + inFlight, k + 2 × inFlight, …: none is sent twice.
                var seen: [Outcome] = []
                for index in stride(from: caller, to: prepared.count, by: options.inFlight) {
                    guard clock.now < end else { break }
                    let sent = clock.now
                    let problem = await send(prepared[index], kind: options.kind, url: options.url, client: client)
                    let done = clock.now
                    if sent >= measuredFrom && done <= end {
                        seen.append(Outcome(measured: true, latency: done - sent, problem: problem))
                    }
                }
                return seen
            }
        }
        return await group.reduce(into: []) { $0 += $1 }
    }
    let before = await marks.value
    return Run(
        outcomes: outcomes, cpu: (before.0, cpuSeconds(options.pids)), own: (before.1, ownCPUSeconds()),
        window: .seconds(options.seconds))
}

/// Open loop: message `i` is due at start + i / rate, sent then whatever is still in flight; the first
/// `warmup × rate` are not counted.
func openLoop(_ options: Options, _ prepared: [Message], client: HTTPClient) async -> Run {
    let clock = ContinuousClock()
    let interval = Duration.seconds(1) / options.rate
    let warmupCount = Int(options.warmup * Double(options.rate))
    let start = clock.now + .milliseconds(20)
    var cpuBefore = 0.0
    var ownBefore = 0.0
    var windowStart = clock.now
    let outcomes = await withTaskGroup(of: Outcome.self) { group in
        for (index, message) in prepared.enumerated() {
            let due = start + interval * index
            try? await clock.sleep(until: due)
            if index == warmupCount {
                cpuBefore = cpuSeconds(options.pids)
                ownBefore = ownCPUSeconds()
                windowStart = clock.now
            }
            group.addTask {
                let problem = await send(message, kind: options.kind, url: options.url, client: client)
                return Outcome(measured: index >= warmupCount, latency: clock.now - due, problem: problem)
            }
        }
        return await group.reduce(into: []) { $0.append($1) }
    }
    return Run(
        outcomes: outcomes, cpu: (cpuBefore, cpuSeconds(options.pids)), own: (ownBefore, ownCPUSeconds()),
        window: clock.now - windowStart)
}

func microseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
}

/// The JSON line the script reads.
func report(_ run: Run, _ options: Options) -> [String: Any] {
    let measured = run.outcomes.filter(\.measured)
    let latencies = measured.map(\.latency).sorted()
    func percentile(_ p: Double) -> Double {
        guard !latencies.isEmpty else { return 0 }
        return microseconds(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))])
    }
    let failures = measured.filter { $0.problem != nil }
    let seconds = microseconds(run.window) / 1e6
    let count = Double(max(1, measured.count))
    return [
        "kind": options.kind, "mode": options.inFlight > 0 ? "in-flight" : "rate",
        "rate": options.rate, "inFlight": options.inFlight,
        "requests": measured.count, "failures": failures.count,
        "firstFailure": failures.first?.problem ?? NSNull(),
        "seconds": seconds, "perSecond": seconds > 0 ? Double(measured.count) / seconds : 0,
        "p50": percentile(0.50), "p99": percentile(0.99), "p999": percentile(0.999),
        "max": latencies.last.map(microseconds) ?? 0,
        "cpuPerRequest": (run.cpu.after - run.cpu.before) / count * 1e6,
        "senderCPUPerRequest": (run.own.after - run.own.before) / count * 1e6,
    ]
}

func main() async -> Int32 {
    let options: Options
    let prepared: [Message]
    do {
        options = try Options(Array(CommandLine.arguments.dropFirst()))
        // Open loop: exactly the requests the rate asks for. Closed loop: enough for 20,000 a second, never reused.
        let total = Int((options.warmup + options.seconds) * Double(options.inFlight > 0 ? 20_000 : options.rate))
        prepared = try messages(kind: options.kind, count: total)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        return 2
    }
    var configuration = HTTPClient.Configuration.singletonConfiguration
    configuration.redirectConfiguration = .disallow
    configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 1_024
    let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    let run =
        options.inFlight > 0
        ? await closedLoop(options, prepared, client: client) : await openLoop(options, prepared, client: client)
    try? await client.shutdown()
    let summary = report(run, options)
    let line = (try? JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])) ?? Data()
    FileHandle.standardOutput.write(line + Data("\n".utf8))
    let failures = summary["failures"] as? Int ?? 1
    let requests = summary["requests"] as? Int ?? 0
    return failures == 0 && requests > 0 ? 0 : 1
}

exit(await main())
