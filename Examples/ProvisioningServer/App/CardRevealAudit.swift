@_spi(AdapterSupport) import CardGateway
import Foundation
import Logging
import Synchronization

/// The audit trail of `POST /v1/cards/{cardId}/reveal/{purpose}`: one line per attempt, whoever made it and however
/// it ended, on the server's audit logger (a channel of its own: the access log's level never silences it).
///
/// A line is written where the attempt ends: by ``RequestScopeMiddleware`` for every request that reached the
/// generated routes (a missing or invalid token, the user's rate limits, a body the decoding refused, the handler's
/// refusals, a session issued), and by ``RoutingProblemMiddleware`` for those refused before them (the per-address
/// limit, a body over the size limit). It says who (the user id, when the token was valid), which card (its public id,
/// never the provider's), which purpose, when, the outcome (`issued` or `refused`), the reason (the problem's type),
/// the HTTP status and the request id; for a session, the provider instance, the flow and the material's kind. Never a
/// value the app supplied or the provider returned, never a token.
struct CardRevealAudit: Sendable {
    let logger: Logger
    let now: @Sendable () -> Date

    /// The value of `audit` in every line.
    static let marker: Logger.MetadataValue = "cardReveal"
    /// The operation audited.
    static let operationID = "revealSession"

    /// The card id and purpose of a `POST /v1/cards/{cardId}/reveal/{purpose}` request (any other: nil), for a
    /// refusal made before the generated routing.
    static func target(method: String, path: String) -> (cardID: String, purpose: String)? {
        guard method == "POST" else { return nil }
        let segments = path.split(separator: "?", maxSplits: 1).first.map {
            $0.split(separator: "/", omittingEmptySubsequences: false)
        }
        guard let segments, segments.count == 6, segments[0].isEmpty, segments[1] == "v1", segments[2] == "cards",
            segments[4] == "reveal", !segments[3].isEmpty, !segments[5].isEmpty
        else { return nil }
        return (String(segments[3]), String(segments[5]))
    }

    /// Writes the line of one attempt.
    ///
    /// - Parameters:
    ///   - requestID: the request's id (as `X-Request-ID` answers it).
    ///   - userID: the authenticated user, when the token was valid.
    ///   - cardID: the card id of the path, as given (logged only when it is a valid public id).
    ///   - purpose: the purpose of the path, as given (logged only when it is one of the three).
    ///   - status: the HTTP status answered.
    ///   - failure: the refusal, when there was one.
    ///   - notes: what the handler got to (instance, flow, material).
    func record(
        requestID: String, userID: String?, cardID: String?, purpose: String?, status: Int,
        failure: ProblemRendering?, notes: RevealAuditNotes.Value
    ) {
        var metadata: Logger.Metadata = [
            "audit": Self.marker,
            "request.id": .string(requestID),
            // A card id or purpose that breaks the document's rule is logged as such, never as given.
            "card.id": .string(cardID.flatMap { OwnedCard.isValidID($0) ? $0 : nil } ?? "(invalid)"),
            "purpose": .string(purpose.flatMap { RevealPurpose(rawValue: $0)?.rawValue } ?? "(invalid)"),
            "at": .string(InternetDateTime.format(now())),
            "outcome": .string(failure == nil && (200..<300).contains(status) ? "issued" : "refused"),
            "http.status": .stringConvertible(status),
        ]
        if let userID { metadata["user.id"] = .string(userID) }
        if let failure {
            metadata["reason"] = .string(failure.reason)
            metadata["error.code"] = .string(failure.logCode)
        }
        if let provider = notes.provider ?? failure?.provider { metadata["provider"] = .string(provider) }
        if let flow = notes.flow { metadata["flow"] = .string(flow) }
        if let material = notes.material { metadata["material"] = .string(material) }
        logger.notice("card reveal session", metadata: metadata)
    }
}

/// What the session handler got to, for its audit line: the provider instance, the flow, the material's kind. Bound
/// in the ``RequestScope`` of every operation; only the reveal session's handler writes to it.
final class RevealAuditNotes: Sendable {
    struct Value: Sendable, Equatable {
        var provider: String?
        var flow: String?
        var material: String?
    }

    private let state = Mutex(Value())

    func note(provider: String? = nil, flow: String? = nil, material: String? = nil) {
        state.withLock { value in
            if let provider { value.provider = provider }
            if let flow { value.flow = flow }
            if let material { value.material = material }
        }
    }

    var value: Value { state.withLock { $0 } }
}

/// A logger for the audit trail: every record as one JSON object on a line of its own, at every level (setting a
/// level on it changes nothing, so no log level silences the trail).
///
/// ```swift
/// let audit = try AuditLog.logger(appendingTo: "/var/log/provisioning-server/audit.jsonl")
/// let server = ProvisioningServer(gateway: gateway, directory: directory, logger: logger, auditLogger: audit)
/// ```
public enum AuditLog {
    /// The label of the server's audit logger.
    public static let label = "provisioning-server.audit"

    /// A logger writing JSON lines to `handle` (standard error, say).
    public static func logger(writingTo handle: FileHandle, label: String = AuditLog.label) -> Logger {
        let sink = AuditSink(handle: handle)
        return Logger(label: label) { label in AuditLogHandler(label: label, sink: sink) }
    }

    /// A logger appending JSON lines to the file at `path`, created (readable by its owner only) when missing.
    public static func logger(appendingTo path: String, label: String = AuditLog.label) throws -> Logger {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
            else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        return logger(writingTo: handle, label: label)
    }
}

/// Where the audit lines go: one handle, one line at a time.
final class AuditSink: Sendable {
    private let handle: Mutex<FileHandle>

    init(handle: FileHandle) { self.handle = Mutex(handle) }

    func write(_ line: Data) {
        handle.withLock { handle in
            // A failed write must not fail the request; the trail's loss is the operator's to see (disk full).
            try? handle.write(contentsOf: line)
        }
    }
}

/// The audit trail's `LogHandler`: JSON lines, every level written.
struct AuditLogHandler: LogHandler {
    let label: String
    let sink: AuditSink
    var metadata: Logger.Metadata = [:]

    /// Always `trace`: the trail is written whatever level is set.
    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        var object: [String: String] = merged.mapValues { "\($0)" }
        object["label"] = label
        object["level"] = event.level.rawValue
        object["message"] = "\(event.message)"
        guard
            var line = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        line.append(UInt8(ascii: "\n"))
        sink.write(line)
    }
}
