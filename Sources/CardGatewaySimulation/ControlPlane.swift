import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Serves the kit's control path, `/__simulator/...`, on every simulator. See ``SimulatorControlPath`` for the routes.
struct ControlPlane: Sendable {
    let simulator: any ProviderSimulator
    let journal: RequestJournal
    let faults: FaultInjector

    /// Largest control request body accepted.
    private static let maximumBodySize = 1024 * 1024

    func respond(to request: Request) async throws -> Response {
        var request = request
        let body: Data
        do {
            body = Data(buffer: try await request.collectBody(upTo: Self.maximumBodySize))
        } catch is NIOTooManyBytesError {
            return Self.error(413, "control request body is too large")
        }
        var path = request.uri.path
        while path.count > SimulatorControlPath.prefix.count, path.hasSuffix("/") {
            path.removeLast()
        }
        let method = request.method
        switch path {
        case SimulatorControlPath.faults:
            switch method {
            case .post: return self.injectFaults(body)
            case .get: return Self.encoded(self.faults.pending)
            case .delete:
                self.faults.clear()
                return Self.noContent
            default: return Self.methodNotAllowed("GET, POST, DELETE")
            }
        case SimulatorControlPath.journal:
            switch method {
            case .get:
                let filter = SimulatorHTTP.queryItems(request.uri.query).last { $0.name == "pathContains" }?.value
                return Self.encoded(filter.map { self.journal.entries(pathContains: $0) } ?? self.journal.entries())
            case .delete:
                self.journal.clear()
                return Self.noContent
            default: return Self.methodNotAllowed("GET, DELETE")
            }
        case SimulatorControlPath.reset:
            guard method == .post else { return Self.methodNotAllowed("POST") }
            await self.simulator.reset()
            self.faults.clear()
            self.journal.clear()
            return Self.noContent
        case SimulatorControlPath.clock:
            guard let clock = self.simulator.clock else {
                return Self.error(404, "simulator \"\(self.simulator.kindName)\" has no settable clock")
            }
            switch method {
            case .get: return Self.encoded(ClockState(now: clock.now()))
            case .post: return Self.changeClock(clock, body)
            default: return Self.methodNotAllowed("GET, POST")
            }
        case SimulatorControlPath.info:
            guard method == .get else { return Self.methodNotAllowed("GET") }
            return Self.encoded(
                SimulatorInfo(
                    kind: self.simulator.kindName,
                    basePath: self.simulator.basePath,
                    hasClock: self.simulator.clock != nil,
                    journalCount: self.journal.count,
                    pendingFaults: self.faults.pending.count
                )
            )
        case SimulatorControlPath.authorizations:
            guard method == .post else { return Self.methodNotAllowed("POST") }
            let order: AuthorizationOrder
            do { order = try JSONDecoder().decode(AuthorizationOrder.self, from: body) } catch {
                return Self.error(400, "invalid authorization order: \(Self.describe(error))")
            }
            let problems = order.problems
            guard problems.isEmpty else {
                return Self.error(400, "invalid authorization order: " + problems.joined(separator: "; "))
            }
            guard let answer = await self.simulator.authorize(order) else {
                return Self.error(404, "simulator \"\(self.simulator.kindName)\" does not play real-time authorization")
            }
            return answer.hummingbirdResponse
        default:
            return Self.error(404, "unknown control path \(path)")
        }
    }

    private func injectFaults(_ body: Data) -> Response {
        let decoder = JSONDecoder()
        do {
            let firstByte = body.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
            let rules: [FaultRule]
            if firstByte == UInt8(ascii: "[") {
                rules = try decoder.decode([FaultRule].self, from: body)
            } else {
                rules = [try decoder.decode(FaultRule.self, from: body)]
            }
            for rule in rules {
                self.faults.inject(rule)
            }
            return Self.noContent
        } catch {
            return Self.error(400, "invalid fault rule: \(Self.describe(error))")
        }
    }

    private static func changeClock(_ clock: SimulationClock, _ body: Data) -> Response {
        let command: ClockCommand
        do {
            command = try JSONDecoder().decode(ClockCommand.self, from: body)
        } catch {
            return Self.error(400, "invalid clock command: \(Self.describe(error))")
        }
        switch (command.advanceSeconds, command.now) {
        case (let seconds?, nil):
            guard seconds.isFinite else { return Self.error(400, "advanceSeconds must be a finite number") }
            clock.advance(by: seconds)
        case (nil, let now?):
            guard let date = SimulatorDateTime.parse(now) else {
                return Self.error(400, "now must be an ISO 8601 date-time")
            }
            clock.set(date)
        default:
            return Self.error(400, "give exactly one of advanceSeconds and now")
        }
        return Self.noContent
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            return Self.describe(context)
        case DecodingError.keyNotFound(let key, let context):
            return "missing \(Self.path(context.codingPath + [key]))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return Self.describe(context)
        default:
            return "body is not valid JSON"
        }
    }

    private static func describe(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty
            ? context.debugDescription : "\(Self.path(context.codingPath)): \(context.debugDescription)"
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    private static var noContent: Response {
        Response(status: .noContent)
    }

    private static func methodNotAllowed(_ allowed: String) -> Response {
        var response = Self.error(405, "method not allowed; use \(allowed)")
        response.headers[.allow] = allowed
        return response
    }

    private static func error(_ status: Int, _ message: String) -> Response {
        SimulatedResponse.json(status, ["error": message]).hummingbirdResponse
    }

    private static func encoded(_ value: some Encodable) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return SimulatedResponse.json(200, encodable: value, encoder: encoder).hummingbirdResponse
    }
}

/// Body of `POST /__simulator/clock`.
private struct ClockCommand: Decodable {
    var advanceSeconds: Double?
    var now: String?
}

/// Body of `GET /__simulator/clock`.
private struct ClockState: Encodable {
    var now: Date

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(SimulatorDateTime.format(self.now, fraction: .milliseconds), forKey: .now)
        try container.encode(self.now.timeIntervalSince1970, forKey: .epochSeconds)
    }

    private enum CodingKeys: String, CodingKey {
        case now, epochSeconds
    }
}

/// Body of `GET /__simulator/info`.
private struct SimulatorInfo: Encodable {
    var kind: String
    var basePath: String
    var hasClock: Bool
    var journalCount: Int
    var pendingFaults: Int
}
