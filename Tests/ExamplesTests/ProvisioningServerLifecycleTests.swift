import CardGateway
import ExampleSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import AdyenSimulator
import PaysafeSimulator
import ProvisioningServerApp
import StripeSimulator
import Testing

/// The card and wallet-token lifecycle routes, on the demo users and the embedded simulators.
@Suite("provisioning-server: card and wallet-token lifecycle", .timeLimit(.minutes(5)))
struct ProvisioningServerLifecycleTests {
    typealias Paysafe = PaysafeSimulator.Seed

    @Test("lock and unlock a card; the provider gets one write each and the answer is the card in its new status")
    func lockUnlock() async throws {
        try await DemoServerTests.withDemoServer { client, running in
            let journal = try #require(running.handle("paysafe")).journal
            journal.clear()
            let locked = try await client.send(
                .post, "/v1/cards/everyday/status", token: DemoUsers.aliceToken,
                json: #"{"intent":"lock","reason":"lost"}"#)
            #expect(locked.status == 200, "\(locked.text)")
            #expect(try locked.json()["status"]?.stringValue == "locked")
            #expect(try locked.json()["id"]?.stringValue == "everyday", "the public id, never the provider's")
            #expect(locked.header("Cache-Control") == "no-store")
            let writes = journal.entries().filter { $0.method != "GET" && $0.path.hasSuffix(Paysafe.activeCardID) }
            #expect(writes.count == 1)
            #expect(writes.first?.bodyText.contains("\"LOCKED\"") == true)

            let unlocked = try await client.send(
                .post, "/v1/cards/everyday/status", token: DemoUsers.aliceToken, json: #"{"intent":"unlock"}"#)
            #expect(unlocked.status == 200, "\(unlocked.text)")
            #expect(try unlocked.json()["status"]?.stringValue == "active")
        }
    }

    @Test("cancel is final: unlocking a cancelled card is 409 invalidCardState")
    func cancelIsFinal() async throws {
        try await DemoServerTests.withDemoServer { client, _ in
            let cancelled = try await client.send(
                .post, "/v1/cards/frozen/status", token: DemoUsers.aliceToken,
                json: #"{"intent":"cancel","reason":"stolen"}"#)
            #expect(cancelled.status == 200, "\(cancelled.text)")
            #expect(try cancelled.json()["status"]?.stringValue == "cancelled")
            let reopened = try await client.send(
                .post, "/v1/cards/frozen/status", token: DemoUsers.aliceToken, json: #"{"intent":"unlock"}"#)
            #expect(reopened.status == 409)
            #expect(try reopened.problem()["code"]?.stringValue == "invalidCardState")
            #expect(reopened.header("Retry-After") == nil)
        }
    }

    @Test("another user's card is 404 and bad bodies are 400; nothing reaches the provider")
    func ownershipAndInput() async throws {
        try await DemoServerTests.withDemoServer { client, running in
            let journal = try #require(running.handle("paysafe")).journal
            journal.clear()
            let bobs = try await client.send(
                .post, "/v1/cards/everyday/status", token: DemoUsers.bobToken, json: #"{"intent":"lock"}"#)
            #expect(bobs.status == 404)
            for body in [
                #"{"intent":"freeze"}"#, #"{"intent":"lock","reason":"bored"}"#, #"{"intent":"lock","extra":1}"#,
                #"{}"#, #"{"intent":"lock","intent":"cancel"}"#,
            ] {
                let reply = try await client.send(
                    .post, "/v1/cards/everyday/status", token: DemoUsers.aliceToken, json: body)
                #expect(reply.status == 400, "\(body): \(reply.status) \(reply.text)")
            }
            let badToken = try await client.send(
                .post, "/v1/cards/everyday/tokens/..%2F..%2Fx/status", token: DemoUsers.aliceToken,
                json: #"{"intent":"suspend"}"#)
            #expect(badToken.status == 400, "\(badToken.text)")
            #expect(journal.entries().isEmpty, "\(journal.entries().map { "\($0.method) \($0.path)" })")
        }
    }

    @Test(
        "reason other needs a comment (Adyen records other only with one); the comment reaches Adyen as statusComment")
    func otherNeedsComment() async throws {
        try await DemoServerTests.withDemoServer { client, running in
            let journal = try #require(running.handle("adyen")).journal
            journal.clear()
            let bare = #"{"intent":"lock","reason":"other"}"#
            for body in [
                bare, #"{"intent":"lock","reason":"other","comment":"   "}"#,
                #"{"intent":"lock","reason":"other","comment":"a\nb"}"#,
            ] {
                let reply = try await client.send(
                    .post, "/v1/cards/travel/status", token: DemoUsers.aliceToken, json: body)
                #expect(reply.status == 400, "\(body): \(reply.text)")
                #expect(firstErrorField(try reply.problem()) == "comment", "\(body)")
            }
            #expect(
                journal.entries().isEmpty,
                "a refused body reached Adyen: \(journal.entries().map { "\($0.method) \($0.path)" })")

            let locked = try await client.send(
                .post, "/v1/cards/travel/status", token: DemoUsers.aliceToken,
                json: #"{"intent":"lock","reason":"other","comment":"card left at a hotel"}"#
            )
            #expect(locked.status == 200, "\(locked.text)")
            let write = try #require(journal.entries().last { $0.method == "PATCH" })
            #expect(write.bodyText.contains(#""statusComment":"card left at a hotel""#), "\(write.bodyText)")
            #expect(write.bodyText.contains(#""statusReason":"other""#), "\(write.bodyText)")
        }
    }

    @Test(
        "a card's wallet tokens are listed; a provider without token control is 409 unsupported before anything is sent"
    )
    func tokens() async throws {
        try await DemoServerTests.withDemoServer { client, running in
            let listed = try await client.send(.get, "/v1/cards/everyday/tokens", token: DemoUsers.aliceToken)
            #expect(listed.status == 200, "\(listed.text)")
            #expect(try listed.json()["cardId"]?.stringValue == "everyday")
            #expect(try listed.json()["tokens"]?.arrayValue != nil)

            let journal = try #require(running.handle("paysafe")).journal
            // Paysafe's API has no wallet-token suspension: 409 unsupported, and nothing is read or sent.
            journal.clear()
            let unsupported = try await client.send(
                .post, "/v1/cards/everyday/tokens/any-token/status", token: DemoUsers.aliceToken,
                json: #"{"intent":"resume"}"#)
            #expect(unsupported.status == 409, "\(unsupported.text)")
            #expect(try unsupported.problem()["code"]?.stringValue == "unsupported")
            #expect(journal.entries().isEmpty)
        }
    }

    @Test("another card's token is 404 and nothing is written (Adyen)")
    func tokenOwnership() async throws {
        try await DemoServerTests.withDemoServer { client, running in
            let journal = try #require(running.handle("adyen")).journal
            journal.clear()
            let stranger = try await client.send(
                .post, "/v1/cards/travel/tokens/\(AdyenSimulator.Seed.walletActiveTokenID)/status",
                token: DemoUsers.aliceToken, json: #"{"intent":"suspend"}"#
            )
            #expect(stranger.status == 404, "\(stranger.text)")
            #expect(
                journal.entries().allSatisfy { $0.method == "GET" },
                "\(journal.entries().map { "\($0.method) \($0.path)" })")
        }
    }

    @Test(
        "the card's own token suspends and resumes with one keyed write each; a deleted token cannot be resumed (Stripe)"
    )
    func tokenLifecycle() async throws {
        try await DemoServerTests.withDemoServer { client, running in
            let journal = try #require(running.handle("stripe")).journal
            let token = StripeSimulator.Seed.activeApplePayTokenID
            let listed = try await client.send(.get, "/v1/cards/business/tokens", token: DemoUsers.aliceToken)
            #expect(listed.status == 200, "\(listed.text)")
            #expect(try listed.json()["tokens"]?.arrayValue?.contains { $0["id"]?.stringValue == token } == true)

            journal.clear()
            let suspended = try await client.send(
                .post, "/v1/cards/business/tokens/\(token)/status", token: DemoUsers.aliceToken,
                json: #"{"intent":"suspend","reason":"lost"}"#,
                headers: ["Idempotency-Key": "suspend-1"]
            )
            #expect(suspended.status == 200, "\(suspended.text)")
            #expect(try suspended.json()["status"]?.stringValue == "suspended")
            let writes = journal.entries(method: "POST", pathContains: "/v1/issuing/tokens/\(token)")
            #expect(writes.count == 1)
            #expect(writes.first?.bodyText.contains("status=suspended") == true)
            #expect(writes.first?.header("Idempotency-Key") != nil)
            // The same key again: the ledger answers, nothing more is sent.
            let repeated = try await client.send(
                .post, "/v1/cards/business/tokens/\(token)/status", token: DemoUsers.aliceToken,
                json: #"{"intent":"suspend","reason":"lost"}"#,
                headers: ["Idempotency-Key": "suspend-1"]
            )
            #expect(repeated.status == 200)
            #expect(journal.entries(method: "POST", pathContains: "/v1/issuing/tokens/\(token)").count == 1)

            let resumed = try await client.send(
                .post, "/v1/cards/business/tokens/\(token)/status", token: DemoUsers.aliceToken,
                json: #"{"intent":"resume"}"#)
            #expect(try resumed.json()["status"]?.stringValue == "active", "\(resumed.text)")
            let deleted = try await client.send(
                .post, "/v1/cards/business/tokens/\(token)/status", token: DemoUsers.aliceToken,
                json: #"{"intent":"delete"}"#)
            #expect(try deleted.json()["status"]?.stringValue == "deleted", "\(deleted.text)")
            let revived = try await client.send(
                .post, "/v1/cards/business/tokens/\(token)/status", token: DemoUsers.aliceToken,
                json: #"{"intent":"resume"}"#)
            #expect(revived.status == 409)
            #expect(try revived.problem()["code"]?.stringValue == "invalidCardState")
        }
    }
}
