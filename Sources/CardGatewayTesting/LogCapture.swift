import Foundation
import Logging
import Synchronization

/// One captured log record, rendered to text (message and metadata) for searching.
public struct CapturedLogRecord: Sendable {
    public var level: Logger.Level
    public var message: String
    public var metadata: [String: String]
    public var label: String

    /// Everything a log backend would print.
    public var rendered: String {
        ([label, level.rawValue, message] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(
            separator: " ")
    }
}

/// Collects log records in memory, so tests can check what would have been printed.
public final class LogCapture: Sendable {
    private let records = Mutex<[CapturedLogRecord]>([])

    public init() {}

    /// A logger that writes here, at `level` and above.
    public func logger(label: String = "cardgateway.test", level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: label) { label in CapturingLogHandler(label: label, capture: self) }
        logger.logLevel = level
        return logger
    }

    public var all: [CapturedLogRecord] { records.withLock { $0 } }
    public var text: String { all.map(\.rendered).joined(separator: "\n") }

    public func clear() { records.withLock { $0.removeAll() } }

    func append(_ record: CapturedLogRecord) { records.withLock { $0.append(record) } }

    /// The needles (secrets, card data) that appear in any record; empty when none leaked.
    public func leaks(of needles: [String]) -> [String] {
        let haystack = text
        return needles.filter { !$0.isEmpty && haystack.contains($0) }
    }
}

struct CapturingLogHandler: LogHandler {
    let label: String
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        capture.append(
            CapturedLogRecord(
                level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }, label: label
            ))
    }
}
