import Foundation
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// OpenTelemetry tracing for the provisioning server (swift-otel): W3C trace context in and out, spans exported to
/// an OTLP/HTTP collector. Off unless the standard OpenTelemetry environment variables ask for it, so that a server
/// started without them bootstraps no tracer and behaves exactly as before.
///
/// Switched on by `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), or by
/// `OTEL_TRACES_EXPORTER=otlp` (the collector then defaults to `http://localhost:4318`). Switched off again by
/// `OTEL_TRACES_EXPORTER=none` or `OTEL_SDK_DISABLED=true`. Every other `OTEL_*` variable that swift-otel reads
/// applies as usual (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`, `OTEL_SERVICE_NAME`, `OTEL_BSP_SCHEDULE_DELAY`, …).
///
/// Only tracing is bootstrapped: the server's metrics stay on Prometheus (`GET /metrics`) and its logs on swift-log,
/// whatever `OTEL_METRICS_EXPORTER` or `OTEL_LOGS_EXPORTER` say.
enum TraceExport {
    /// The service name spans are exported under, unless `OTEL_SERVICE_NAME` says otherwise.
    static let serviceName = "provisioning-server"

    /// Whether `environment` asks for OTLP trace export.
    static func isRequested(by environment: [String: String]) -> Bool {
        func value(_ key: String) -> String? {
            guard let raw = environment[key]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
            return raw
        }
        if value("OTEL_SDK_DISABLED")?.lowercased() == "true" { return false }
        if let exporter = value("OTEL_TRACES_EXPORTER")?.lowercased() { return exporter == "otlp" }
        return value("OTEL_EXPORTER_OTLP_ENDPOINT") != nil || value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != nil
    }

    /// When the process environment asks for it, bootstraps swift-distributed-tracing's `InstrumentationSystem` with
    /// swift-otel's tracer and returns the service that batches and exports its spans, to run in the server's
    /// `ServiceGroup` (before the server, so that it shuts down after it and flushes the last spans). Returns nil,
    /// bootstrapping nothing, otherwise. Must run before the gateway is built: the gateway takes the bootstrapped tracer
    /// when it is made.
    static func bootstrapIfRequested(logger: Logger) throws -> (any Service)? {
        let environment = ProcessInfo.processInfo.environment
        guard isRequested(by: environment) else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = serviceName
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.exporter = .otlp
        // Environment variables (endpoint, protocol, headers, sampler, batch delays…) are applied over this by
        // swift-otel; the tracer's propagator is W3C Trace Context unless OTEL_PROPAGATORS says otherwise.
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(backend.factory)
        logger.notice("exporting traces over OTLP", metadata: ["endpoint": .string(endpoint(in: environment))])
        return backend.service
    }

    /// The collector the environment names, for the start-up log line: scheme, host and port only (a URL's user
    /// info or query could hold a credential).
    static func endpoint(in environment: [String: String]) -> String {
        let named =
            environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] ?? environment["OTEL_EXPORTER_OTLP_ENDPOINT"]
            ?? "http://localhost:4318"
        guard let url = URLComponents(string: named), let scheme = url.scheme, let host = url.host else {
            return "(unparsed)"
        }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }
}
