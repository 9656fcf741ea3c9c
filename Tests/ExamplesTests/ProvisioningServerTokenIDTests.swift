import CardGateway
import Foundation
@testable import ProvisioningServerApp
import Testing

/// A wallet token's id: the server answers only ids it accepts back in `POST /v1/cards/{cardId}/tokens/{tokenId}/status`,
/// and the document states that pattern on both sides.
@Suite("Provisioning server: wallet token ids", .timeLimit(.minutes(1)))
struct ProvisioningServerTokenIDTests {
    @Test("the document states the server's token id pattern on the path parameter and on WalletToken.id")
    func documentPattern() throws {
        let document = try JSONValue.parse(ProvisioningServer.openAPIDocument)
        let components = try #require(document["components"])
        let parameter = components["parameters"]?["tokenId"]?["schema"]
        let id = components["schemas"]?["WalletToken"]?["properties"]?["id"]
        #expect(parameter?["pattern"] == .string(OwnedCard.tokenIDPattern))
        #expect(id?["pattern"] == .string(OwnedCard.tokenIDPattern))
        #expect(id?["maxLength"]?.intValue == 128 && parameter?["maxLength"]?.intValue == 128)
    }

    @Test(
        "a token whose provider id breaks the pattern is left out of the lists the app gets; the others stay, in order")
    func listsKeepOnlyAddressableTokens() throws {
        let pattern = try Regex(OwnedCard.tokenIDPattern)
        let ids = [
            "intok_1SimApplePayActive000", "bad id", "NWTK00000000000000000000000007", ".hidden", "tok|x",
            String(repeating: "a", count: 129), String(repeating: "b", count: 128), "dwt_sim~1.2-3",
        ]
        let tokens = ids.map { WalletToken(id: $0, wallet: .applePay, status: .active, providerStatus: "ACTIVE") }
        let kept = WireModel.walletTokens(tokens).map(\.id)
        #expect(
            kept == [
                "intok_1SimApplePayActive000", "NWTK00000000000000000000000007", String(repeating: "b", count: 128),
                "dwt_sim~1.2-3",
            ])
        // The server's rule and the document's regular expression agree on every id.
        for id in ids {
            #expect(
                (try pattern.wholeMatch(in: id) != nil) == OwnedCard.isPathSafe(id, maxLength: 128), "\(id)")
        }
    }
}
