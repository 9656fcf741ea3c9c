import CardGateway
import Dispatch
import Foundation
import HTTPTypes

/// Runs `body` to completion from synchronous code (a libFuzzer entry point or a test's loop). The caller's
/// thread waits on a semaphore; `body` runs on the cooperative pool, so the caller must not be on that pool.
package func runBlocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}

/// The statuses a fuzzed response can carry, picked by one input byte: successes, the client errors each
/// adapter maps, throttling, server errors and a redirect (which no adapter follows).
package enum FuzzResponses {
    package static let statuses: [Int] = [
        200, 201, 202, 204, 400, 401, 402, 403, 404, 409, 422, 429, 500, 502, 503, 302,
    ]
    package static let contentTypes: [String?] = [
        "application/json", "application/json; charset=utf-8", nil, "text/html",
    ]

    /// Status and content type from the selector byte: the low four bits pick the status, the next two the
    /// content type.
    package static func response(selector: UInt8) -> (status: Int, contentType: String?) {
        (statuses[Int(selector & 0x0f)], contentTypes[Int((selector >> 4) & 0x03)])
    }

    /// The selector byte that gives `status` with a JSON content type (for recording seeds); nil for a status
    /// the table lacks.
    package static func selector(status: Int) -> UInt8? {
        statuses.firstIndex(of: status).map { UInt8($0) }
    }
}

/// Answers every request with the same fuzzed response, so that whatever the adapter sends, the bytes it
/// decodes are the fuzzer's. A request that one of `fixed` matches (an OAuth token request, the read before a
/// write) gets that answer's body with status 200 instead, so that the operation behind it is reached.
package struct FuzzTransport: HTTPTransport {
    package var status: Int
    package var contentType: String?
    package var body: Data
    package var fixed: [FixedAnswer] = []

    package init(status: Int, contentType: String?, body: Data, fixed: [FixedAnswer] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.fixed = fixed
    }

    package func send(
        _ request: HTTPRequest, body requestBody: Data?, timeout: Duration
    ) async throws -> TransportResponse {
        if let answer = fixed.first(where: { $0.matches(request) }) {
            var fields = HTTPFields()
            fields[.contentType] = "application/json"
            return TransportResponse(response: HTTPResponse(status: .ok, headerFields: fields), body: answer.body)
        }
        var fields = HTTPFields()
        if let contentType { fields[.contentType] = contentType }
        return TransportResponse(response: HTTPResponse(status: .init(code: status), headerFields: fields), body: body)
    }
}

/// A fixed clock for every harness, so that the signed timestamps and JWT ages the seeds carry stay valid:
/// 2026-01-01T00:00:00Z.
public enum FuzzClock {
    public static let now = Date(timeIntervalSince1970: 1_767_225_600)
}

/// Why a harness's in-memory file read failed.
package struct FuzzNoSuchFile: Error {
    package init() {}
}
