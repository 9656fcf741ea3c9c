import CardGateway
import CardGatewayTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ProvisioningServerApp
import Testing

@Suite("Provisioning server: Apple's issuer wallet extension", .timeLimit(.minutes(5)))
struct ProvisioningServerWalletExtensionTests {
    /// One bundle for Alice asks for 5 offers (2 + 2 + 1 wallets) and starts 2 relays.
    static let callsPerBuild = 7

    @Test("status before any bundle is all false and asks no provider")
    func statusWithoutCache() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let reply = try await client.send(.get, "/v1/wallet-extension/status")
            #expect(reply.status == 200)
            let status = try reply.json()
            #expect(status["passEntriesAvailable"] == .bool(false))
            #expect(status["remotePassEntriesAvailable"] == .bool(false))
            #expect(status["requiresAuthentication"] == .bool(false))
            #expect(status["generatedAt"] == nil)
        }
        #expect(fixture.backend.totalCalls == 0)
    }

    @Test(
        "one call returns every card and wallet with offers and cached relay inputs; status and repeats come from the cache"
    )
    func bundleAndCache() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let first = try await client.send(.get, "/v1/wallet-extension")
            #expect(first.status == 200)
            let bundle = try first.json()
            #expect(bundle["cached"] == .bool(false))
            let entries = try #require(bundle["entries"]?.arrayValue)
            #expect(
                entries.map { "\($0["cardId"]?.stringValue ?? "")/\($0["wallet"]?.stringValue ?? "")" } == [
                    "card-payload/applePay", "card-payload/googlePay", "card-relay/applePay", "card-relay/googlePay",
                    "card-key/applePay",
                ])
            for entry in entries {
                #expect(entry["eligible"] == .bool(true))
                #expect(entry["lastFour"] == .string("4242"))
                #expect(entry["network"] == .string("visa"))
                #expect(entry["cardholderName"] == .string("Alice Example"))
                #expect(entry["primaryAccountIdentifier"]?.stringValue?.hasPrefix("PAI-") == true)
            }
            #expect(entries[0]["flow"] == .string("encryptedPayload"))
            #expect(entries[0]["sdkInput"] == nil)
            #expect(entries[2]["flow"] == .string("issuerSDKRelay"))
            #expect(entries[2]["sdkInput"] == .string("start-PI_2002".base64))
            #expect(entries[4]["flow"] == .string("issuerSDKKey"))
            #expect(bundle["status"]?["passEntriesAvailable"] == .bool(true))
            #expect(bundle["status"]?["remotePassEntriesAvailable"] == .bool(true))
            #expect(first.header("Cache-Control") == "no-store")
            #expect(fixture.backend.totalCalls == Self.callsPerBuild)

            let second = try await client.send(.get, "/v1/wallet-extension")
            #expect(try second.json()["cached"] == .bool(true))
            #expect(try second.json()["entries"] == bundle["entries"])

            for _ in 0..<3 {
                let status = try await client.send(.get, "/v1/wallet-extension/status")
                #expect(status.status == 200)
                #expect(try status.json()["passEntriesAvailable"] == .bool(true))
                #expect(try status.json()["remotePassEntriesAvailable"] == .bool(true))
                #expect(try status.json()["generatedAt"] != nil)
            }
            #expect(fixture.backend.totalCalls == Self.callsPerBuild)

            // Bob's bundle is his own.
            let bob = try await client.send(.get, "/v1/wallet-extension", token: Fixture.bobToken)
            #expect(
                try bob.json()["entries"]?.arrayValue?.map { $0["cardId"]?.stringValue } == [
                    Fixture.bobCard, Fixture.bobCard,
                ])
        }
    }

    @Test("refresh=true and the end of the TTL rebuild the bundle; the TTL is configurable")
    func refreshAndExpiry() async throws {
        let fixture = try Fixture(configuration: ProvisioningServer.Configuration(walletExtensionTTL: .seconds(60)))
        try await fixture.withClient { client in
            _ = try await client.send(.get, "/v1/wallet-extension")
            #expect(fixture.backend.totalCalls == Self.callsPerBuild)

            let refreshed = try await client.send(.get, "/v1/wallet-extension?refresh=true")
            #expect(try refreshed.json()["cached"] == .bool(false))
            #expect(fixture.backend.totalCalls == 2 * Self.callsPerBuild)

            fixture.clock.advance(seconds: 59)
            #expect(try await client.send(.get, "/v1/wallet-extension").json()["cached"] == .bool(true))
            #expect(fixture.backend.totalCalls == 2 * Self.callsPerBuild)

            fixture.clock.advance(seconds: 2)
            // Past the TTL the status still answers from the cache it has, without a provider call.
            #expect(
                try await client.send(.get, "/v1/wallet-extension/status").json()["passEntriesAvailable"] == .bool(true)
            )
            #expect(fixture.backend.totalCalls == 2 * Self.callsPerBuild)
            #expect(try await client.send(.get, "/v1/wallet-extension").json()["cached"] == .bool(false))
            #expect(fixture.backend.totalCalls == 3 * Self.callsPerBuild)

            #expect(try await client.send(.get, "/v1/wallet-extension?refresh=maybe").status == 400)
        }
    }

    @Test("concurrent requests for one user share one build")
    func concurrentRequestsShareABuild() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<6 {
                    group.addTask { try await client.send(.get, "/v1/wallet-extension").status }
                }
                for try await status in group { #expect(status == 200) }
            }
        }
        #expect(fixture.backend.totalCalls == Self.callsPerBuild)
    }

    @Test("a failing card is reported in its entries and the others are still served")
    func failingCard() async throws {
        let fixture = try Fixture()
        fixture.backend.fail(cardID: "pc_1001", with: CardGatewayError(.timeout, "slow"))
        try await fixture.withClient { client in
            let bundle = try await client.send(.get, "/v1/wallet-extension").json()
            let entries = try #require(bundle["entries"]?.arrayValue)
            #expect(entries.count == 5)
            #expect(entries[0]["error"]?["status"] == .number(504))
            #expect(entries[0]["eligible"] == .bool(false))
            #expect(entries[0]["provider"] == .string("payload"))
            #expect(entries[2]["error"] == nil)
            #expect(entries[2]["sdkInput"] != nil)
            #expect(bundle["status"]?["passEntriesAvailable"] == .bool(true))
        }
    }

    @Test("a verified card-status webhook drops the bundles holding that card")
    func webhookInvalidates() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            _ = try await client.send(.get, "/v1/wallet-extension")
            _ = try await client.send(.get, "/v1/wallet-extension", token: Fixture.bobToken)
            let body = Data(#"{"id":"evt_1","card":"PI_2002","status":"suspended"}"#.utf8)
            let reply = try await client.sendRaw(
                .post, "/webhooks/relay", body: body, headers: ["X-Fake-Signature": FakeBackend.signature(body)])
            #expect(reply.status == 204)
            let alice = try await client.send(.get, "/v1/wallet-extension/status").json()
            #expect(alice["generatedAt"] == nil)
            #expect(alice["passEntriesAvailable"] == .bool(false))
            // Bob does not hold that card: his bundle stays.
            let bob = try await client.send(.get, "/v1/wallet-extension/status", token: Fixture.bobToken).json()
            #expect(bob["generatedAt"] != nil)
        }
    }
}
