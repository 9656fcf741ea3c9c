import CardGateway
import CardGatewayTesting
import Foundation
import Testing

@testable import CardGatewayStripe
import SharedTestSupport

@Suite("Stripe issuing tokens", .timeLimit(.minutes(5)))
struct StripeTokenTests {
    @Test func listTokensQueryAndMapping() async throws {
        let transport = ScriptedTransport([
            .stripe(
                200,
                Fixture.list(
                    [
                        Fixture.token(id: "intok_1"),
                        Fixture.token(id: "intok_2", walletProvider: nil, network: "mastercard"),
                    ], hasMore: true))
        ])
        let page = try await Fixture.provider(transport).listTokens(
            card: Fixture.cardRef, status: .active, limit: 2, startingAfter: "intok_0", context: OperationContext())
        #expect(
            transport.requests.first?.path
                == "/v1/issuing/tokens?card=ic_1GWQp6EESaYspYZ9uSEZOcq9&status=active&limit=2&starting_after=intok_0")
        #expect(page.items.map(\.id) == ["intok_1", "intok_2"])
        #expect(page.nextStartingAfter == "intok_2")
        let first = try #require(page.items.first)
        #expect(first.card == Fixture.cardRef)
        #expect(first.token.wallet == .applePay)
        #expect(first.token.status == .active)
        #expect(first.token.providerStatus == "active")
        #expect(first.token.lastFour == "9876")
        #expect(first.token.network == .visa)
        #expect(first.token.created == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(first.deviceFingerprint == "fp_1")
        #expect(first.networkUpdatedAt == Date(timeIntervalSince1970: 1_700_000_100))
        #expect(page.items[1].token.wallet == nil)
        #expect(page.items[1].token.network == .mastercard)
    }

    @Test(arguments: [
        ("requested", WalletTokenStatus.requested), ("active", .active), ("suspended", .suspended),
        ("deleted", .deleted), ("odd", .unknown),
    ])
    func tokenStatusMapping(stripe: String, status: WalletTokenStatus) async throws {
        let transport = ScriptedTransport([.stripe(200, Fixture.token(status: stripe))])
        let token = try await Fixture.provider(transport).token(id: "intok_1FixtureToken", context: OperationContext())
        #expect(token.token.status == status)
        #expect(token.token.providerStatus == stripe)
        #expect(transport.requests.first?.path == "/v1/issuing/tokens/intok_1FixtureToken")
        #expect(transport.requests.first?.method == "GET")
    }

    @Test(arguments: [("apple_pay", Wallet.applePay), ("google_pay", .googlePay), ("samsung_pay", .samsungPay)])
    func walletProviderMapping(stripe: String, wallet: Wallet) async throws {
        let transport = ScriptedTransport([.stripe(200, Fixture.token(walletProvider: stripe))])
        #expect(
            try await Fixture.provider(transport).token(id: "intok_1", context: OperationContext()).token.wallet
                == wallet)
    }

    @Test func expandedCardOnATokenIsRead() async throws {
        let json = Fixture.token().replacingOccurrences(
            of: #""card":"ic_1GWQp6EESaYspYZ9uSEZOcq9""#, with: #""card":\#(Fixture.card(id: "ic_expanded"))"#)
        let transport = ScriptedTransport([.stripe(200, json)])
        #expect(
            try await Fixture.provider(transport).token(id: "intok_1", context: OperationContext()).card.id
                == "ic_expanded")
    }

    @Test(arguments: [
        (WalletTokenStatus.active, "status=active"), (.suspended, "status=suspended"), (.deleted, "status=deleted"),
    ])
    func updateTokenBody(status: WalletTokenStatus, body: String) async throws {
        let transport = ScriptedTransport([.stripe(200, Fixture.token(status: status.rawValue))])
        let token = try await Fixture.provider(transport).updateToken(
            id: "intok_1", status: status, context: OperationContext())
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/v1/issuing/tokens/intok_1")
        #expect(request.bodyText == body)
        #expect(request.header("Idempotency-Key") != nil)
        #expect(token.token.status == status)
    }

    @Test func tokenValidation() async throws {
        let transport = ScriptedTransport([])
        let provider = try Fixture.provider(transport)
        let requested = await gatewayError {
            _ = try await provider.updateToken(id: "intok_1", status: .requested, context: OperationContext())
        }
        #expect(requested?.fieldErrors.map(\.field) == ["status"])
        let noID = await gatewayError { _ = try await provider.token(id: "", context: OperationContext()) }
        #expect(noID?.fieldErrors.map(\.field) == ["id"])
        let list = await gatewayError {
            _ = try await provider.listTokens(
                card: CardRef(id: ""), status: .unknown, limit: 0, context: OperationContext())
        }
        #expect(list?.fieldErrors.map(\.field) == ["card.id", "status", "limit"])
        #expect(transport.requestCount == 0)
    }
}
