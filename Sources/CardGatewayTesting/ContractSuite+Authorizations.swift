import CardGateway
import Foundation

// Real-time authorizations (the DocC article "Real-time authorization"): the contract every adapter declaring
// `Capability.authorizations` is held to. The descriptor gives the provider's deadline; a request the provider would
// send (built the provider's way: its published example, signed or authenticated as it publishes) is read into a
// normalised request; an approval, a partial approval where the request allows it and a decline are each answered in
// a body the provider can read; and a delivery with the wrong credentials, or one changed after signing, is refused
// with `signatureInvalid` before anything is read.

extension ContractFixtures {
    /// What the authorization scenarios need (``ContractFixtures/authorizations``).
    public struct Authorizations: Sendable {
        /// What to send.
        public enum Variant: Sendable, CaseIterable {
            /// A purchase to decide, authenticated as the provider does.
            case request
            /// Authenticated with a secret or credentials the adapter was not configured with.
            case wrongCredentials
            /// The body changed after it was signed (for providers that sign the body; skipped otherwise).
            case tampered
        }

        /// A delivery of the given variant, as the provider sends it, at `now`.
        public var delivery: @Sendable (Variant, Date) throws -> WebhookDelivery
        /// False for providers that authenticate with credentials rather than a signature over the body.
        public var signsBody: Bool
        /// Checks a provider's answer against what the provider accepts (its published schema or example), returning
        /// each problem; called with the answers to an approval and a decline.
        public var validateAnswer: @Sendable (AuthorizationAnswer, AuthorizationDecision) -> [String]

        public init(
            signsBody: Bool, delivery: @escaping @Sendable (Variant, Date) throws -> WebhookDelivery,
            validateAnswer: @escaping @Sendable (AuthorizationAnswer, AuthorizationDecision) -> [String] = { _, _ in []
            }
        ) {
            self.signsBody = signsBody
            self.delivery = delivery
            self.validateAnswer = validateAnswer
        }
    }
}

extension ContractRun {
    func runAuthorizations(
        _ provider: any CardProvider, _ scenario: (String, String?, (ScenarioChecks) async throws -> Void) async -> Void
    ) async {
        guard descriptor.capabilities.contains(.authorizations),
            let responder = provider as? any AuthorizationResponding
        else { return }
        guard let fixture = subject.fixtures.authorizations else {
            await missing(.capability(.authorizations), "authorizations", "no authorization fixtures given", scenario)
            return
        }
        let now = Date()
        await scenario("authorizations: the descriptor gives the provider's deadline", nil) { checks in
            let deadline = descriptor.authorizationDeadline ?? .zero
            checks.expect(
                deadline > .zero && deadline <= .seconds(10),
                "authorizationDeadline must be the provider's published deadline, not \(deadline)")
        }
        await scenario("authorizations: a request is read and normalised", nil) { checks in
            let read = try responder.authorization(from: try fixture.delivery(.request, now), now: now)
            let request = read.request
            checks.expect(!request.id.isEmpty, "the request has no id")
            checks.expect(request.providerKind == descriptor.kind, "the request names \(request.providerKind)")
            checks.expect(request.amount.minorUnits > 0, "the amount \(request.amount) is not positive")
            checks.expect(Money.isCurrencyCode(request.amount.currency), "\(request.amount.currency) is not ISO 4217")
            checks.expect(!request.card.id.isEmpty, "the request names no card")
            if let country = request.merchant.country {
                checks.expect(
                    country.utf8.count == 2 && country.allSatisfy { $0.isASCII && $0.isUppercase },
                    "the merchant country \(country) is not ISO 3166-1 alpha-2")
            }
            if let code = request.merchant.categoryCode {
                checks.expect(
                    code.utf8.count == 4 && code.allSatisfy { $0.isASCII && $0.isNumber },
                    "the merchant category code \(code) is not four digits")
            }
            var decisions: [AuthorizationDecision] = [.approve(), .decline(.insufficientFunds)]
            if request.amountAdjustable, request.amount.minorUnits > 1 {
                decisions.append(
                    .approve(
                        amount: Money(minorUnits: request.amount.minorUnits / 2, currency: request.amount.currency)))
            }
            for decision in decisions {
                let answer = try responder.answer(decision, to: read)
                checks.expect(!answer.body.isEmpty, "the answer to \(decision) has no body")
                for problem in fixture.validateAnswer(answer, decision) {
                    checks.fail("the answer to \(decision): \(problem)")
                }
            }
        }
        for variant in [ContractFixtures.Authorizations.Variant.wrongCredentials, .tampered] {
            let skip = variant == .tampered && !fixture.signsBody ? "the provider signs no body" : nil
            await scenario("authorizations: a \(variant) delivery is refused", skip) { checks in
                let delivery = try fixture.delivery(variant, now)
                _ = await expectError(.signatureInvalid, checks) {
                    _ = try responder.authorization(from: delivery, now: now)
                }
            }
        }
    }
}
