import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayTesting
import Foundation
import HTTPTypes
import ProvisioningServerApp
import ServiceLifecycle
import Testing

@Suite("Provisioning server: the service", .timeLimit(.minutes(5)))
struct ProvisioningServerServiceTests {
    @Test("the service binds 127.0.0.1 on a free port, answers /health, and returns after a graceful shutdown")
    func startHealthAndGracefulShutdown() async throws {
        let fixture = try Fixture()
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let service = ProvisioningServerService(server: fixture.server, host: "127.0.0.1", port: 0) { port in
            continuation.yield(port)
        }
        #expect(service.host == "127.0.0.1")
        let group = ServiceGroup(services: [service], logger: fixture.logs.logger(label: "service-group", level: .info))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { continuation.finish() }
                try await group.run()
            }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            #expect(port > 0)
            let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: "/health")
            let response = try await AsyncHTTPClientTransport().send(request, body: nil, timeout: .seconds(30))
            #expect(response.response.status.code == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"status":"ok"}"#)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(fixture.logs.all.contains { $0.message == "provisioning server listening" })
        #expect(fixture.logs.all.contains { $0.message == "provisioning server stopped" })
    }
}
