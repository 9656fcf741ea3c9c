@_spi(AdapterSupport) import CardGateway
import CardGatewayExampleKit
import Foundation
import TrustPaymentsSimulator

extension TrustPaymentsExampleRoom {
    public func demo(_ steps: DemoSteps, _ recorder: inout DemoRecorder) async {
        await steps.trustPayments(&recorder)
    }
}

extension DemoSteps {
    // MARK: Trust Payments: store, verify, charge, reuse

    func trustPayments(_ recorder: inout DemoRecorder) async {
        typealias Seed = TrustPaymentsSimulator.Seed
        // Stored-credential operations route by operation; any key reaches the Trust Payments instance.
        let via = RouteTarget.key(RouteKey(currency: "GBP"))
        let name = Instance.trustPayments
        let amount = Money(minorUnits: 1050, currency: "GBP")
        // Each step's result is carried to the next in a locked box, never in a var captured by the async closures.
        let session = Carried<ClientSession>()
        let resultJWT = Carried<Secret>()
        let stored = Carried<StoredCredential>()

        await recorder.step("credentials on file: session to store a card", name) {
            let request = ClientSessionRequest(
                intent: .store(
                    consent: CardholderConsent(recordedAt: Date(), evidence: "demo: save-card checkbox, terms v1")),
                amount: amount)
            let minted = try await gateway.clientSession(request, via: via)
            session.value = minted
            return "session JWT for the mobile SDK"
                + (minted.expires.map { ", expires \(InternetDateTime.format($0))" } ?? "")
        }
        await recorder.step("credentials on file: the mobile SDK pays (simulated)", name) {
            guard let session = session.value else {
                throw DemoExpectationFailure(message: "no session from the previous step")
            }
            // What the Trust Payments mobile SDK does on the phone with the card the cardholder typed.
            let jwt = try await simulators.trustPayments.sdkPayment(
                sessionJWT: session.token.revealedValue, pan: Seed.Card.visa, expiryDate: Seed.expiryDate,
                securityCode: "123")
            resultJWT.value = Secret(jwt)
            return "the SDK returned a signed response JWT"
        }
        await recorder.step("credentials on file: verify the SDK's result", name) {
            guard let resultJWT = resultJWT.value else {
                throw DemoExpectationFailure(message: "no SDK result from the previous step")
            }
            let credential = try await gateway.verifyResult(resultJWT, customer: "demo-customer-1", via: via)
            stored.value = credential
            return
                "stored reference \(credential.reference): \(credential.brand ?? credential.scheme.rawValue) \(credential.maskedPAN)"
        }
        await recorder.step("credentials on file: merchant-initiated charge", name) {
            guard let stored = stored.value else {
                throw DemoExpectationFailure(message: "no stored credential from the previous step")
            }
            let result = try await gateway.charge(
                ChargeRequest(reference: stored.reference, amount: amount, initiator: .merchant(.unscheduled)), via: via
            )
            try expect(
                result.status == .authorised || result.status == .settled, "the charge is \(result.status.rawValue)")
            return
                "\(result.status.rawValue) \(result.amount.minorUnits) \(result.amount.currency), transaction \(result.transactionReference)"
        }
        await recorder.step("credentials on file: session to pay with the stored card", name) {
            guard let stored = stored.value else {
                throw DemoExpectationFailure(message: "no stored credential from an earlier step")
            }
            let minted = try await gateway.clientSession(
                ClientSessionRequest(intent: .reuse(reference: stored.reference), amount: amount), via: via)
            return "session JWT for a cardholder-initiated payment"
                + (minted.securityCodeLength.map { " (security code of \($0) digits)" } ?? "")
        }
    }
}
