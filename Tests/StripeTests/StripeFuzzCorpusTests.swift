import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayFuzzSupport
import CardGatewaySimulation
import Foundation
import StripeFuzz
import StripeSimulator
import Testing

/// Records the Stripe room's seed corpus (`Fuzz/Corpus/stripe-responses/`, `Fuzz/Corpus/stripe-webhooks/`) from its
/// simulator on the harnesses' fixed clock. Off unless `CARDGATEWAY_RECORD_FUZZ_CORPUS=1` (``FuzzCorpus`` says how).
@Suite("Stripe fuzz corpus recorder", .enabled(if: FuzzCorpus.isRecording), .timeLimit(.minutes(5)))
struct StripeFuzzCorpusTests {
    @Test func record() async throws {
        let clock = SimulationClock(fixed: FuzzClock.now)
        try await withSimulator(StripeSimulator(clock: clock)) { handle in
            try await FuzzCorpus.record(.stripe, through: AsyncHTTPClientTransport(), baseURL: handle.baseURL)
        }
        // Webhooks: the body signed by the harness, and the delivery as the simulator signed it (the simulator shares
        // the harness's test secret, so both verify).
        let stripe = StripeSimulator(clock: clock)
        typealias StripeSeed = StripeSimulator.Seed
        if let card = stripe.cardObject(StripeSeed.inactiveCardID) {
            try FuzzCorpus.webhook(
                "stripe", "card-updated",
                stripe.signedWebhook(
                    type: "issuing_card.updated", object: card, previousAttributes: ["status": "active"]),
                header: "Stripe-Signature")
            try FuzzCorpus.webhook(
                "stripe", "card-created", stripe.signedWebhook(type: "issuing_card.created", object: card),
                header: "Stripe-Signature")
        }
        if let token = stripe.tokenObject(StripeSeed.activeApplePayTokenID) {
            try FuzzCorpus.webhook(
                "stripe", "token-created", stripe.signedWebhook(type: "issuing_token.created", object: token),
                header: "Stripe-Signature")
            try FuzzCorpus.webhook(
                "stripe", "token-updated", stripe.signedWebhook(type: "issuing_token.updated", object: token),
                header: "Stripe-Signature")
        }
    }
}
