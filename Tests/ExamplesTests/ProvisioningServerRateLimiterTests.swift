import Foundation
import Synchronization
import Testing

@testable import ProvisioningServerApp

/// The token buckets behind the rate limits, on a clock the test moves.
@Suite("Provisioning server: rate limiter", .timeLimit(.minutes(5)))
struct ProvisioningServerRateLimiterTests {
    final class ManualClock: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(_ duration: Duration) { instant.withLock { $0 += duration } }
    }

    @Test("a minute's allowance at once, then refills at perMinute / 60 a second; the wait is what is missing")
    func refills() {
        let clock = ManualClock()
        let limiter = RateLimiter(perMinute: 60, now: { clock.now })
        for _ in 0..<60 { #expect(limiter.spend("alice") == nil) }
        #expect(limiter.spend("alice") == .seconds(1), "one token refills in 1 s at 60 a minute")
        #expect(limiter.spend("bob") == nil, "another key has its own bucket")
        clock.advance(.milliseconds(500))
        #expect(limiter.spend("alice") == .milliseconds(500))
        #expect(limiter.spend("alice", cost: 0.25) == nil, "a quarter is there already")
        clock.advance(.milliseconds(750))
        #expect(limiter.spend("alice") == nil)
    }

    @Test("memory is bounded: refilled buckets go first, then the one used longest ago")
    func bounded() {
        let clock = ManualClock()
        let limiter = RateLimiter(perMinute: 60, maxKeys: 3, now: { clock.now })
        for key in ["a", "b", "c"] {
            #expect(limiter.spend(key) == nil)
            clock.advance(.milliseconds(100))
        }
        #expect(limiter.count == 3)
        #expect(limiter.spend("d") == nil)
        #expect(limiter.count == 3, "the table grew past its bound")
        // A minute later every bucket has refilled: a new key drops them all.
        clock.advance(.seconds(60))
        #expect(limiter.spend("e") == nil)
        #expect(limiter.count == 1)
    }

    @Test("cheap reads cost a quarter; refresh=true and provider calls cost one")
    func costs() {
        #expect(AuthenticationMiddleware.cost(of: "walletExtension", path: "/v1/wallet-extension") == 0.25)
        #expect(
            AuthenticationMiddleware.cost(of: "walletExtension", path: "/v1/wallet-extension?refresh=false") == 0.25)
        #expect(AuthenticationMiddleware.cost(of: "walletExtension", path: "/v1/wallet-extension?refresh=true") == 1)
        #expect(AuthenticationMiddleware.cost(of: "walletExtensionStatus", path: nil) == 0.25)
        #expect(AuthenticationMiddleware.cost(of: "listCredentials", path: nil) == 0.25)
        for operation in [
            "listCards", "getCard", "provisioningOffer", "provision", "confirmProvisioning", "credentialSession",
            "credentialResult",
        ] {
            #expect(AuthenticationMiddleware.cost(of: operation, path: nil) == 1, "\(operation)")
        }
    }
}
