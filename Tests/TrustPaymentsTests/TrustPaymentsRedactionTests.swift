import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import CardGatewayTrustPayments
import Foundation
import Testing
import TrustPaymentsSimulator
import SharedTestSupport

@Suite("Trust Payments redaction", .timeLimit(.minutes(5)))
struct RedactionTests {
    @Test("a whole flow logged at trace leaks no secret, token, card number or security code, nor do its errors")
    func noLeaks() async throws {
        let capture = LogCapture()
        let logger = capture.logger(level: .trace)
        let context = OperationContext(logger: logger, requestID: "req-1")
        let simulator = SimFixture.simulator()
        var needles = [
            Seed.jwtSecret, Seed.webservicesPassword,
            Data("\(Seed.webservicesUsername):\(Seed.webservicesPassword)".utf8).base64EncodedString(),
            Seed.Card.visa, Seed.Card.amex, Seed.Card.declined, "7391",
        ]
        var errors: [CardGatewayError] = []
        try await withSimulator(simulator) { handle in
            let provider = try SimFixture.provider(handle, logger: logger)
            let session = try await provider.clientSession(
                ClientSessionRequest(
                    intent: .store(consent: SimFixture.consent()), amount: Money(minorUnits: 1050, currency: "GBP"),
                    authorise: true), context: context)
            needles.append(session.token.revealedValue)
            let result = try await simulator.sdkPayment(
                sessionJWT: session.token.revealedValue, pan: Seed.Card.amex, expiryDate: Seed.expiryDate,
                securityCode: "7391")
            needles.append(result)
            let credential = try await provider.verifyResult(Secret(result), context: context)
            _ = try await provider.charge(
                ChargeRequest(
                    reference: credential.reference, amount: Money(minorUnits: 1050, currency: "GBP"),
                    initiator: .merchant(.unscheduled)), context: context)

            // Failures: a forged token, a decline, a wrong password, a dropped connection.
            let forged = try IndependentJWT.response(
                elements: [IndependentJWT.accountCheck()], aud: Seed.jwtUsername, secret: "forger")
            needles.append(forged)
            if let error = await gatewayError({ _ = try await provider.verifyResult(Secret(forged), context: context) })
            {
                errors.append(error)
            }
            let declinedSession = try await provider.clientSession(
                ClientSessionRequest(
                    intent: .store(consent: SimFixture.consent()), amount: Money(minorUnits: 1050, currency: "GBP")),
                context: context)
            let declined = try await simulator.sdkPayment(
                sessionJWT: declinedSession.token.revealedValue, pan: Seed.Card.declined, expiryDate: Seed.expiryDate,
                securityCode: "123")
            needles.append(contentsOf: [declinedSession.token.revealedValue, declined])
            if let error = await gatewayError({
                _ = try await provider.verifyResult(Secret(declined), context: context)
            }) {
                errors.append(error)
            }
            let wrong = try SimFixture.provider(handle, password: "wrong-password-xyz", logger: logger)
            needles.append("wrong-password-xyz")
            if let error = await gatewayError({
                _ = try await wrong.charge(
                    ChargeRequest(
                        reference: credential.reference, amount: Money(minorUnits: 1050, currency: "GBP"),
                        initiator: .merchant(.delayed)), context: context)
            }) {
                errors.append(error)
            }
            handle.faults.inject(FaultRule(count: 1, pathPrefix: "/json", action: .dropConnection))
            if let error = await gatewayError({
                _ = try await provider.charge(
                    ChargeRequest(
                        reference: credential.reference, amount: Money(minorUnits: 1050, currency: "GBP"),
                        initiator: .merchant(.delayed)), context: context)
            }) {
                errors.append(error)
            }
        }
        #expect(errors.count == 4)
        #expect(!capture.all.isEmpty)
        #expect(capture.leaks(of: needles).isEmpty)
        for error in errors {
            let texts = [error.description, error.debugDescription, String(reflecting: error), "\(error)"]
            for text in texts {
                #expect(needles.filter { text.contains($0) }.isEmpty, "\(error.code) leaks")
            }
        }
    }

    @Test("sessions and secrets describe themselves redacted")
    func descriptions() async throws {
        let provider = try Fixture.provider()
        let session = try await provider.clientSession(
            ClientSessionRequest(
                intent: .store(consent: Fixture.consent()), amount: Money(minorUnits: 1, currency: "GBP")),
            context: OperationContext())
        for text in [
            session.description, String(reflecting: session), "\(session.token)", String(reflecting: provider),
        ] {
            #expect(!text.contains(session.token.revealedValue))
            #expect(!text.contains(Fixture.jwtSecret))
            #expect(!text.contains(Fixture.webservicesPassword))
        }
    }
}
