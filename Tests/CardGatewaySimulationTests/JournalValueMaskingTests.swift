import AsyncHTTPClient
import CardGatewaySimulation
import Foundation
import Testing

/// The journal masks card data by value, not only under the names it lists: a card number under any key, a security
/// code or PIN under any casing of its name, a certificate chain wholesale wherever it sits.
@Suite("Journal masking by value", .timeLimit(.minutes(1)))
struct JournalValueMaskingTests {
    private static func masked(_ text: String) -> String {
        String(decoding: RequestJournal.maskedBody(Data(text.utf8)), as: UTF8.self)
    }

    @Test(
        "JSON: card numbers under unlisted keys, at any depth and in any spelling, are masked; ids, amounts, dates stay"
    )
    func jsonCardNumbersByValue() throws {
        let body =
            #"{"note":"4111111111111111","items":[{"x":{"deep":"5555 5555 5555 4444"}},"4000-0000-0000-0002"],"#
            + #""memo":"paid with 378282246310005, thanks","n":4242424242424242,"escaped":"\u0036011000990139424","#
            + #""4111111111111111":"key","id":"card_7Hk2","amount":1000,"createdAt":"2030-01-01T00:00:00Z","#
            + #""accountId":"127623047","notLuhn":"4111111111111112","tooLong":"41111111111111111113","zero":"0000000000000000","#
            + #""uuid":"41111111-1111-4115-abcd-0123456789ab","paysafeId":"11111111-0000-4000-8000-000000000001","#
            + #""mobile":"+49 15112345678","hex":"deadbeef4111111111111111","rate":"0.4111111111111111","#
            + #""expiry":"4111 1111 1111 1111 12/30"}"#
        let masked = Self.masked(body)
        #expect(
            masked
                == #"{"note":"<masked>","items":[{"x":{"deep":"<masked>"}},"<masked>"],"#
                + #""memo":"paid with <masked>, thanks","n":"<masked>","escaped":"<masked>","#
                + #""<masked>":"key","id":"card_7Hk2","amount":1000,"createdAt":"2030-01-01T00:00:00Z","#
                + #""accountId":"127623047","notLuhn":"4111111111111112","tooLong":"41111111111111111113","zero":"0000000000000000","#
                + #""uuid":"41111111-1111-4115-abcd-0123456789ab","paysafeId":"11111111-0000-4000-8000-000000000001","#
                + #""mobile":"+49 15112345678","hex":"deadbeef4111111111111111","rate":"0.4111111111111111","#
                + #""expiry":"<masked> 12/30"}"#
        )
        let parsed = try #require(
            try JSONSerialization.jsonObject(with: Data(masked.utf8)) as? [String: Any], "the masked body is still JSON"
        )
        #expect(parsed["amount"] as? Int == 1000)
        #expect(parsed["note"] as? String == JournalEntry.maskedValue)
        #expect(parsed["4111111111111111"] == nil)
        for pan in [
            "5555 5555 5555 4444", "4000-0000-0000-0002", "378282246310005", "4242424242424242", "6011000990139424",
            "4111 1111",
        ] {
            #expect(!masked.contains(pan), "\(pan.prefix(4))… leaked")
        }
    }

    @Test(
        "JSON: a security code or PIN under any casing is masked whatever its value; so is a certificate chain, nested")
    func jsonNamesAnyValue() throws {
        let body =
            #"{"payment":{"CVC":"737","Cvv2":842,"security_code":{"value":"913"},"cardDetails":[{"SecurityCode":"4321"}]},"#
            + #""pinBlock":"0412AC89ABCDEF67","pin_block":["04","12"],"newPin":"2468","PIN":"1357","pin_status":"SET","pin_is_set":true,"#
            + #""wallet":{"provisioning":{"certificates":["MIIBcertLeafAAA","MIIBcertSubBBB"],"leafCertificate":"30820aff01","#
            + #""subordinateCertificate":"30820b0002","nonce":"1a2b3c4d"}},"cvv":null,"reference":"order-42"}"#
        let masked = Self.masked(body)
        #expect(
            masked
                == #"{"payment":{"CVC":"<masked>","Cvv2":"<masked>","security_code":"<masked>","cardDetails":[{"SecurityCode":"<masked>"}]},"#
                + #""pinBlock":"<masked>","pin_block":"<masked>","newPin":"<masked>","PIN":"<masked>","pin_status":"SET","pin_is_set":true,"#
                + #""wallet":{"provisioning":{"certificates":"<masked>","leafCertificate":"<masked>","#
                + #""subordinateCertificate":"<masked>","nonce":"1a2b3c4d"}},"cvv":null,"reference":"order-42"}"#
        )
        #expect(
            try JSONSerialization.jsonObject(with: Data(masked.utf8)) is [String: Any], "the masked body is still JSON")
        for secret in ["737", "842", "913", "4321", "0412AC89", "2468", "1357", "MIIBcert", "30820aff01", "30820b0002"]
        {
            #expect(!masked.contains(secret), "\(secret) leaked")
        }
    }

    @Test("forms and queries: card numbers under any key, bracketed sensitive keys and certificate arrays are masked")
    func formsAndQueries() {
        let form =
            "note=4111111111111111&memo=card+4111+1111+1111+1111+exp&payment_method_data[card][cvc]=123"
            + "&wallet%5Bcertificates%5D%5B0%5D=MIIBAAA&certificates[]=MIIBBBB&Security_Code=9876&amount=1000&id=card_1&phone=%2B4915112345678"
        #expect(
            Self.masked(form)
                == "note=%3Cmasked%3E&memo=card%20%3Cmasked%3E%20exp&payment_method_data[card][cvc]=%3Cmasked%3E"
                + "&wallet%5Bcertificates%5D%5B0%5D=%3Cmasked%3E&certificates[]=%3Cmasked%3E&Security_Code=%3Cmasked%3E&amount=1000&id=card_1&phone=%2B4915112345678"
        )
        #expect(
            RequestJournal.maskedQuery("expand=data&ref=4111-1111-1111-1111&CVC=737&limit=10&4242424242424242")
                == "expand=data&ref=%3Cmasked%3E&CVC=%3Cmasked%3E&limit=10&%3Cmasked%3E"
        )
        #expect(RequestJournal.maskedQuery("expand=data&limit=10") == "expand=data&limit=10")
        #expect(
            Self.masked("card 4111111111111111, id 127623047") == "card <masked>, id 127623047",
            "other bodies: card numbers only")
    }

    @Test("over the wire: the journal shows no card number, security code or certificate sent under unlisted names")
    func overTheWire() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            try await withClient { client async throws in
                let json =
                    #"{"note":"4111111111111111","lines":[{"meta":{"text":"4111 1111 1111 1111"}}],"payment":{"Cvc2":"737"},"#
                    + #""device":{"chain":{"certificates":["MIIBcertLeafAAA","MIIBcertSubBBB"]}},"id":"item_seed","amount":1250}"#
                let first = try await send(
                    client, .POST, sim.at("/echo?ref=5555555555554444&expand=a"),
                    headers: [("X-Card", "5555-5555-5555-4444"), ("X-Visible", "yes")], body: json
                )
                #expect(first.status == 200)
                let second = try await send(
                    client, .POST, sim.at("/echo"),
                    body: "memo=4000000000000002&cvC=737&certificates%5B0%5D=MIIBcertLeafAAA&amount=1250")
                #expect(second.status == 200)
                _ = try await send(client, .GET, sim.at("/items/4242424242424242"))
            }
            let entries = sim.journal.entries()
            #expect(entries.count == 3)
            let needles = [
                "4111111111111111", "4111 1111 1111 1111", "5555555555554444", "5555-5555-5555-4444",
                "4000000000000002", "4242424242424242",
                "\"737\"", "=737", "MIIBcert",
            ]
            for entry in entries {
                // (Not the host header: the server's port is arbitrary digits.)
                let recorded =
                    [entry.path, entry.query ?? "", entry.bodyText]
                    + entry.headers.filter { $0.key != "host" }.map(\.value)
                for text in recorded {
                    for needle in needles { #expect(!text.contains(needle), "\(needle) leaked into the journal") }
                }
            }
            let body = try #require(try JSONSerialization.jsonObject(with: entries[0].body) as? [String: Any])
            #expect(body["id"] as? String == "item_seed")
            #expect(body["amount"] as? Int == 1250)
            #expect(body["note"] as? String == JournalEntry.maskedValue)
            #expect(entries[0].query == "ref=%3Cmasked%3E&expand=a")
            #expect(entries[0].header("x-card") == JournalEntry.maskedValue)
            #expect(entries[0].header("x-visible") == "yes")
            #expect(
                entries[1].bodyText == "memo=%3Cmasked%3E&cvC=%3Cmasked%3E&certificates%5B0%5D=%3Cmasked%3E&amount=1250"
            )
            #expect(entries[2].path == "/echo/v1/items/%3Cmasked%3E")
            #expect(entries[2].responseStatus == 404)
        }
    }
}
