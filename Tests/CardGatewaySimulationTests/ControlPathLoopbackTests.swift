import NIOCore
import Testing

@testable import CardGatewaySimulation

/// The control path rewrites a simulator's state and hands out its journal: it answers loopback clients only.
@Suite("Control path: loopback clients only", .timeLimit(.minutes(5)))
struct ControlPathLoopbackTests {
    @Test("127.0.0.0/8, ::1 and Unix sockets are loopback; other addresses are not")
    func loopbackAddresses() throws {
        #expect(SimulatorMiddleware.isLoopback(try SocketAddress(ipAddress: "127.0.0.1", port: 1)))
        #expect(SimulatorMiddleware.isLoopback(try SocketAddress(ipAddress: "127.10.0.7", port: 1)))
        #expect(SimulatorMiddleware.isLoopback(try SocketAddress(ipAddress: "::1", port: 1)))
        #expect(SimulatorMiddleware.isLoopback(try SocketAddress(unixDomainSocketPath: "/tmp/simulator.sock")))
        #expect(SimulatorMiddleware.isLoopback(nil), "no network peer (a router test)")
        #expect(!SimulatorMiddleware.isLoopback(try SocketAddress(ipAddress: "10.0.0.5", port: 1)))
        #expect(!SimulatorMiddleware.isLoopback(try SocketAddress(ipAddress: "192.168.1.20", port: 1)))
        #expect(!SimulatorMiddleware.isLoopback(try SocketAddress(ipAddress: "2001:db8::1", port: 1)))
        #expect(!SimulatorMiddleware.isLoopback(try SocketAddress(ipAddress: "0.0.0.0", port: 1)))
    }
}
