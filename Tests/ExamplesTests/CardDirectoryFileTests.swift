import CardGateway
import CardGatewayAsyncHTTPClient
import Foundation
import ExampleSupport
import ProvisioningServerApp
import Testing

/// `provisioning-server --directory FILE`: users, tokens and cards from JSON.
@Suite("Card directory file", .timeLimit(.minutes(5)))
struct CardDirectoryFileTests {
    let resolver = SecretResolver(environment: ["ALICE_TOKEN": "alice-token-from-env-123456"])

    @Test("users, tokens from env and literal references, cards by route or by instance")
    func loads() async throws {
        let document = #"""
            {"users": [
              {"id": "alice", "displayName": "Alice", "token": "env:ALICE_TOKEN",
               "cards": [{"id": "travel", "cardID": "PI1", "route": {"issuer": "adyen-bank", "currency": "EUR"}, "wallets": ["apple-pay"]},
                         {"id": "us", "cardID": "ic_1", "customer": "cus_1", "provider": "us-issuing", "displayName": "US card"}]},
              {"id": "bob", "token": "literal:bob-token-literal-0000000"}
            ]}
            """#
        let accounts = try CardDirectoryFile.accounts(from: Data(document.utf8), secrets: resolver)
        #expect(accounts.map(\.user.id) == ["alice", "bob"])
        let directory = InMemoryCardDirectory(accounts: accounts)
        let alice = try #require(try await directory.user(forToken: "alice-token-from-env-123456"))
        #expect(alice.id == "alice")
        #expect(try await directory.user(forToken: "bob-token-literal-0000000")?.id == "bob")
        #expect(try await directory.user(forToken: "ALICE_TOKEN") == nil)
        let cards = try await directory.cards(of: alice)
        #expect(cards.map(\.id) == ["travel", "us"])
        #expect(cards[0].route == .key(RouteKey(issuer: "adyen-bank", currency: "EUR")))
        #expect(cards[0].wallets == [.applePay])
        #expect(cards[1].route == .instance("us-issuing"))
        #expect(cards[1].ref == CardRef(id: "ic_1", customer: "cus_1"))
        #expect(cards[1].wallets == [.applePay, .googlePay])
    }

    @Test("every problem is reported with its path, and no token value is in any message")
    func problems() throws {
        let document = #"""
            {"users": [
              {"id": "alice", "token": "env:MISSING_TOKEN", "cards": [{"id": "a", "cardID": "x"}, {"id": "a", "cardID": "y", "provider": "p", "route": {"issuer": "i"}}]},
              {"id": "alice", "token": "literal:short", "extra": 1},
              {"token": "plain-token-without-a-prefix-000", "cards": [{"id": "c", "cardID": "z", "route": {"planet": "mars"}, "wallets": ["cash"]}]},
              {"id": "carol", "token": "literal:same-token-for-two-users-0"},
              {"id": "dave", "token": "literal:same-token-for-two-users-0"}
            ], "version": 2}
            """#
        do {
            _ = try CardDirectoryFile.accounts(from: Data(document.utf8), secrets: resolver)
            Issue.record("expected problems")
        } catch let error as ConfigurationError {
            let paths = error.problems.map(\.path)
            for expected in [
                "version", "users[0].token", "users[0].cards[0]", "users[0].cards[1]", "users[1].id", "users[1].token",
                "users[1].extra",
                "users[2].id", "users[2].token", "users[2].cards[0].route.planet", "users[2].cards[0].wallets[0]",
                "users[4].token",
            ] {
                #expect(paths.contains(expected), "\(expected) in \(paths)")
            }
            let text = error.description
            for secret in ["short", "plain-token-without-a-prefix-000", "same-token-for-two-users-0"] {
                #expect(!text.contains(secret), "\(secret)")
            }
        }
    }

    @Test("the startup route check names every card, and the stored-credential route, the gateway cannot serve")
    func routeProblems() throws {
        let document = #"""
            {"providers": {"us": {"kind": "stripe", "baseURL": "http://127.0.0.1:9", "credentials": {"secretKey": "literal:sk_test_abcdefgh12345678"}}},
             "routes": [{"when": {"issuer": "stripe-us"}, "use": "us"}]}
            """#
        let configuration = try GatewayConfiguration.load(from: Data(document.utf8), registry: ExampleRegistry.all)
        let gateway = try CardGateway(configuration: configuration, registry: ExampleRegistry.all)
        let accounts = [
            InMemoryCardDirectory.Account(
                user: AppUser(id: "u"), token: Secret("token-token-token-1"),
                cards: [
                    OwnedCard(id: "a", ref: CardRef(id: "ic_1"), route: .instance("us"), displayName: "A"),
                    OwnedCard(id: "b", ref: CardRef(id: "ic_2"), route: .instance("typo"), displayName: "B"),
                    OwnedCard(
                        id: "c", ref: CardRef(id: "ic_3"), route: .key(RouteKey(issuer: "stripe-us")), displayName: "C"),
                    OwnedCard(
                        id: "d", ref: CardRef(id: "ic_4"), route: .key(RouteKey(issuer: "nobody")), displayName: "D"),
                ])
        ]
        let problems = CardDirectoryFile.routeProblems(
            accounts, gateway: gateway, storedCredentialRoute: .instance("us"))
        #expect(
            Set(problems.map(\.path)) == [
                "users[0].cards[1]", "users[0].cards[1].wallets.applePay", "users[0].cards[1].wallets.googlePay",
                "users[0].cards[3]", "users[0].cards[3].wallets.applePay", "users[0].cards[3].wallets.googlePay",
                "--stored-credentials-provider",
            ])
        #expect(
            CardDirectoryFile.routeProblems(
                accounts.map {
                    var a = $0; a.cards = [a.cards[0]]; return a
                }, gateway: gateway, storedCredentialRoute: nil
            ).isEmpty)
    }
}
