import AdyenSimulator
import CardGateway
import CardGatewaySimulation
import Foundation
import Testing

/// The simulator's responses checked against Adyen's OpenAPI documents, committed in `Tests/AdyenTests/Fixtures`
/// (a missing document fails the test: nothing here is skipped).
@Suite("Adyen simulator responses against the OpenAPI schemas")
struct AdyenSpecConformanceTests {
    static let serviceSpec = "adyen-BalancePlatformService-v2.json"
    static let notificationSpec = "adyen-BalancePlatformConfigurationNotification-v2.json"
    typealias Seed = AdyenSimulator.Seed

    @Test("responses validate against BalancePlatformService-v2")
    func serviceResponses() async throws {
        let checker = try #require(SchemaChecker.load(Self.serviceSpec))
        try await withSimulator(AdyenSimulator()) { handle in
            let raw = RawClient(handle: handle)
            var checked: [(String, Data, String)] = []
            for id in [Seed.activeVisaID, Seed.activeMastercardID, Seed.inactiveMastercardID, Seed.suspendedVisaID, Seed.closedMastercardID, Seed.bankAccountID] {
                checked.append(("GET instrument \(id)", try await raw.send(.get, "/paymentInstruments/\(id)").body, "PaymentInstrument"))
                checked.append(("GET tokens \(id)", try await raw.send(.get, "/paymentInstruments/\(id)/networkTokens").body, "ListNetworkTokensResponse"))
            }
            let path = "/paymentInstruments/\(Seed.activeVisaID)/networkTokenActivationData"
            let started = try await raw.send(.get, path)
            let round1 = try await raw.send(.post, path, body: raw.answering(started))
            let round2 = try await raw.send(.post, path, body: raw.answering(round1))
            checked.append(("GET activation", started.body, "NetworkTokenActivationDataResponse"))
            checked.append(("POST activation 1", round1.body, "NetworkTokenActivationDataResponse"))
            checked.append(("POST activation 2", round2.body, "NetworkTokenActivationDataResponse"))
            checked.append(("GET tokens after", try await raw.send(.get, "/paymentInstruments/\(Seed.activeVisaID)/networkTokens").body, "ListNetworkTokensResponse"))
            checked.append(("GET token", try await raw.send(.get, "/networkTokens/\(Seed.activeApplePayTokenID)").body, "GetNetworkTokenResponse"))
            // The lifecycle endpoints: listing, the instrument update and card issuance.
            let listing = "/balanceAccounts/\(Seed.balanceAccountID)/paymentInstruments"
            checked.append(("GET listing", try await raw.send(.get, listing + "?limit=2&offset=0").body, "PaginatedPaymentInstrumentsResponse"))
            checked.append(("GET listing last page", try await raw.send(.get, listing + "?limit=100&offset=2").body, "PaginatedPaymentInstrumentsResponse"))
            let lock = try await raw.send(.patch, "/paymentInstruments/\(Seed.lockableVisaID)", body: Data(#"{"status":"suspended","statusReason":"lost"}"#.utf8))
            #expect(lock.status == 200)
            checked.append(("PATCH instrument", lock.body, "UpdatePaymentInstrument"))
            let create = try await raw.send(.post, "/paymentInstruments", body: Data(#"""
                {"type":"card","balanceAccountId":"\#(Seed.balanceAccountID)","issuingCountryCode":"NL",
                 "card":{"brand":"visa","brandVariant":"visadebit","cardholderName":"Sam Hill","formFactor":"virtual"}}
                """#.utf8))
            #expect(create.status == 200)
            checked.append(("POST instrument", create.body, "PaymentInstrument"))
            let errors: [(String, RawClient.Reply)] = [
                ("401", try await raw.send(.get, "/paymentInstruments/\(Seed.activeVisaID)", apiKey: "wrong")),
                ("403", try await raw.send(.get, path, apiKey: AdyenSimulator.Credentials.apiKeyWithoutActivationRole)),
                ("404", try await raw.send(.get, "/networkTokens/NWTK_UNKNOWN")),
                ("422 invalidFields", try await raw.send(.post, path, body: Data("{\"sdkOutput\":\"-_-_\"}".utf8))),
                ("422 no exchange", try await raw.send(.post, path, body: Data("{\"sdkOutput\":\"AAEC\"}".utf8))),
                ("400", try await raw.send(.patch, "/networkTokens/\(Seed.activeApplePayTokenID)", body: Data("[]".utf8))),
                ("unknown route", try await raw.send(.get, "/balanceAccounts/BA1")),
                ("422 listing limit", try await raw.send(.get, "/balanceAccounts/\(Seed.balanceAccountID)/paymentInstruments?limit=0")),
                ("422 closed instrument", try await raw.send(.patch, "/paymentInstruments/\(Seed.closedMastercardID)", body: Data(#"{"status":"active"}"#.utf8))),
                ("422 create without cardholder", try await raw.send(.post, "/paymentInstruments", body: Data(#"{"type":"card","balanceAccountId":"\#(Seed.balanceAccountID)"}"#.utf8))),
            ]
            for (name, reply) in errors {
                #expect(reply.status >= 400, "\(name)")
                checked.append(("error \(name)", reply.body, "RestServiceError"))
            }
            handle.faults.inject(FaultRule(count: 1, action: .status(500, retryAfterSeconds: nil, message: "boom")))
            checked.append(("fault 500", try await raw.send(.get, "/paymentInstruments/\(Seed.activeVisaID)").body, "RestServiceError"))

            for (name, body, schema) in checked {
                let problems = checker.problems(body, schema: schema)
                #expect(problems.isEmpty, "\(name) against \(schema): \(problems)")
            }
            #expect(checked.count == 32)
        }
    }

    @Test("signed webhooks validate against NetworkTokenNotificationRequest")
    func webhooks() throws {
        let checker = try #require(SchemaChecker.load(Self.notificationSpec))
        let simulator = AdyenSimulator()
        for type in [AdyenSimulator.networkTokenCreated, AdyenSimulator.networkTokenUpdated] {
            for token in [Seed.activeApplePayTokenID, Seed.inactiveGooglePayTokenID, Seed.closedCardTokenID, "NWTK_UNKNOWN"] {
                let body = simulator.signedWebhook(type: type, token: token).body
                let problems = checker.problems(body, schema: "NetworkTokenNotificationRequest")
                #expect(problems.isEmpty, "\(type) \(token): \(problems)")
            }
        }
    }

    @Test("the checker itself catches a wrong type, a missing required field and an unknown field")
    func checkerCatches() throws {
        let checker = try #require(SchemaChecker.load(Self.serviceSpec))
        #expect(!checker.problems(Data("{\"title\":\"t\",\"status\":\"401\",\"detail\":\"d\",\"errorCode\":\"x\",\"type\":\"u\"}".utf8), schema: "RestServiceError").isEmpty)
        #expect(!checker.problems(Data("{\"title\":\"t\",\"status\":401,\"detail\":\"d\",\"type\":\"u\"}".utf8), schema: "RestServiceError").isEmpty)
        #expect(!checker.problems(Data("{\"sdkInput\":\"AA==\",\"extra\":1}".utf8), schema: "NetworkTokenActivationDataResponse").isEmpty)
        #expect(!checker.problems(Data("{\"networkTokens\":[{\"id\":\"N\",\"status\":\"gone\"}]}".utf8), schema: "ListNetworkTokensResponse").isEmpty)
        #expect(checker.problems(Data("{\"sdkInput\":\"AA==\"}".utf8), schema: "NetworkTokenActivationDataResponse").isEmpty)
    }
}
