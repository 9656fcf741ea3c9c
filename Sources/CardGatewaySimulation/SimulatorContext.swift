import Foundation
import Hummingbird
import NIOCore

/// The request context every simulator route receives.
///
/// Besides Hummingbird's core context it keeps the NIO ``channel`` the request arrived on (so the kit can drop the
/// connection for a ``FaultAction/dropConnection`` fault) and the request body, which the kit collects once before
/// any route handler runs. Handlers may read the body either from ``requestBody`` or, as usual, from
/// `request.body` / `request.decode(as:context:)`: the collected bytes are stored back into the request.
public struct SimulatorContext: RequestContext {
    /// Hummingbird's core per-request storage (logger, endpoint path, route parameters).
    public var coreContext: CoreRequestContextStorage

    /// The channel (TCP connection) the request arrived on.
    public let channel: any Channel

    /// The complete request body, collected by the kit before the route handler runs (empty for requests without a body).
    public var requestBody: Data

    /// Largest request body the simulators accept: 8 MiB. Larger bodies are answered with HTTP 413 in the provider's error shape.
    public var maxUploadSize: Int { SimulatorContext.maximumBodySize }

    /// The request body limit used by the kit, in bytes.
    public static let maximumBodySize = 8 * 1024 * 1024

    /// Creates the context for one request; called by Hummingbird.
    /// - Parameter source: The application's request context source, carrying the channel and the logger.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = CoreRequestContextStorage(source: source)
        self.channel = source.channel
        self.requestBody = Data()
    }

    /// The request body as UTF-8 text (invalid sequences are repaired with U+FFFD).
    public var requestBodyText: String {
        String(decoding: self.requestBody, as: UTF8.self)
    }
}
