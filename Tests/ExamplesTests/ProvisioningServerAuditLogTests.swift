import CardGatewayAsyncHTTPClient
import ExampleSupport
import Foundation
import HTTPTypes
import Testing

/// The built `provisioning-server` with `--log-level critical`: the card details and PIN audit trail still gets a line
/// per attempt, in the `--audit-log` file, refusals before the handler included.
@Suite("provisioning-server: the audit trail whatever the log level", .serialized, .timeLimit(.minutes(5)))
struct ProvisioningServerAuditLogTests {
    /// One request to the server; the status.
    static func post(
        port: Int, path: String, token: String?, body: String, requestID: String
    ) async throws -> Int {
        var request = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:\(port)", path: path)
        if let token { request.headerFields[.authorization] = "Bearer \(token)" }
        request.headerFields[.contentType] = "application/json"
        request.headerFields[HTTPField.Name("X-Request-ID")!] = requestID
        let response = try await AsyncHTTPClientTransport().send(
            request, body: Data(body.utf8), timeout: .seconds(30))
        return Int(response.response.status.code)
    }

    @Test(
        "--log-level critical --audit-log FILE: no token, a bad body, another flow, the per-address limit, each a JSON line with who, card, purpose, outcome, reason and request id"
    )
    func auditTrail() async throws {
        let executable = try ProvisioningServerTraceExportTests.executable()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("audit.jsonl")
        let server = try ServerProcess(
            executable: executable, environment: [:],
            arguments: [
                "--log-level", "critical", "--audit-log", file.path, "--rate-limit-per-address", "4",
                "--reveal-rate-limit-per-user", "0",
            ])
        defer { server.kill() }
        let port = try await server.waitForPort()
        let session = "/v1/cards/travel/reveal/cardDetails"
        let token = DemoUsers.aliceToken
        let key = "U2VjcmV0QXVkaXRLZXk="
        // 1: no token; 2: a body without its flow; 3: a nonce for Alice's Adyen card; 4: the wrong flow again, the
        // address's fourth request; 5: past the address's limit, refused before any route.
        let statuses = [
            try await Self.post(port: port, path: session, token: nil, body: "{}", requestID: "audit-1"),
            try await Self.post(
                port: port, path: session, token: token, body: #"{"encryptedKey":"\#(key)"}"#, requestID: "audit-2"),
            try await Self.post(
                port: port, path: session, token: token, body: #"{"flow":"clientNonce","clientNonce":"\#(key)"}"#,
                requestID: "audit-3"),
            try await Self.post(
                port: port, path: session, token: token, body: #"{"flow":"clientNonce","clientNonce":"\#(key)"}"#,
                requestID: "audit-4"),
            try await Self.post(port: port, path: session, token: token, body: "{}", requestID: "audit-5"),
        ]
        #expect(statuses == [401, 400, 409, 409, 429])
        _ = try await server.terminate()
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        let records = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String])
        }
        #expect(records.map { $0["request.id"] } == ["audit-1", "audit-2", "audit-3", "audit-4", "audit-5"])
        #expect(records.allSatisfy { $0["audit"] == "cardReveal" && $0["outcome"] == "refused" })
        #expect(records.allSatisfy { $0["card.id"] == "travel" && $0["purpose"] == "cardDetails" && $0["at"] != nil })
        #expect(
            records.map { $0["reason"] } == [
                "unauthenticated", "invalidRequest", "wrongRevealFlow", "wrongRevealFlow", "rateLimited",
            ])
        #expect(records.map { $0["user.id"] } == [nil, "alice", "alice", "alice", nil])
        #expect(records.map { $0["http.status"] } == ["401", "400", "409", "409", "429"])
        #expect(records[2]["provider"] == "adyen-issuing" && records[2]["flow"] == "encryptedSessionKey")
        // Nothing the app sent, no token; and the server's own log, at critical, said nothing of these requests.
        let text = lines.joined(separator: "\n")
        #expect(!text.contains(key) && !text.contains(token))
        #expect(!server.stderr.contains("card reveal session"))
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }
}
