import CardGateway
@testable import CardGatewayCLI
import AdyenSimulator
import CardGatewaySimulation
import ExampleSupport
import Foundation
import PaysafeSimulator
import StripeSimulator
import Testing
import TrustPaymentsSimulator

/// `cardgateway demo`: its steps against the embedded simulators, its table and its exit status.
@Suite("cardgateway demo", .timeLimit(.minutes(5)))
struct DemoTests {
    typealias Instance = EmbeddedSimulators.Instance

    @Test("every step passes: card service, each provider's flows, stored credentials, webhooks")
    func allStepsPass() async throws {
        let report = try await Demo.run()
        #expect(report.passed, "\(report.failures)")
        func steps(_ instance: String) -> [String] { report.steps.filter { $0.instance == instance }.map(\.name) }

        let paysafe = steps(Instance.paysafe)
        for name in [
            "card service: list a customer's cards", "card service: card programs",
            "card service: create a virtual card (routed by program)",
            "card service: create a physical card", "card service: activate a physical card", "lifecycle: lock a card",
            "lifecycle: unlock it",
            "lifecycle: list a card's wallet tokens",
            "Apple Pay: provision", "Google Pay: provision", "Apple Pay: confirm", "webhook: verify a signed delivery",
        ] {
            #expect(paysafe.contains(name), "\(name)")
        }
        // Adyen: a relay started and continued over two round trips, per wallet.
        let adyen = steps(Instance.adyen)
        for wallet in ["Apple Pay", "Google Pay"] {
            #expect(adyen.filter { $0.hasPrefix("\(wallet): provision") }.count == 3, "\(wallet): \(adyen)")
        }
        #expect(steps(Instance.stripe).filter { $0.hasSuffix(": provision") }.count == 2)
        #expect(
            report.steps.filter { $0.instance == Instance.stripe && $0.name.hasSuffix(": provision") }.allSatisfy {
                $0.outcome.hasPrefix("ephemeral key ephkey_")
            })
        #expect(steps(Instance.bridge).contains("Apple Pay: provision"))
        #expect(steps(Instance.trustPayments).filter { $0.hasPrefix("credentials on file:") }.count == 5)
        // Lithic: one endpoint for the three wallets.
        let lithic = steps(Instance.lithic)
        for name in ["card: look up", "Apple Pay: provision", "Google Pay: provision", "Samsung Pay: provision"] {
            #expect(lithic.contains(name), "\(name): \(lithic)")
        }
        // Marqeta: the encrypted payload for all three wallets, Samsung Pay included.
        let marqeta = steps(Instance.marqeta)
        for name in [
            "card: look up", "Apple Pay: provision from a watch", "Google Pay: provision from a tablet",
            "Samsung Pay: offer", "Samsung Pay: provision from a phone",
        ] {
            #expect(marqeta.contains(name), "\(name): \(marqeta)")
        }
        #expect(
            report.steps.first { $0.instance == Instance.marqeta && $0.name.hasPrefix("Samsung Pay: provision") }?
                .outcome.hasPrefix("extra provision payload") == true)
        // One verified webhook per provider that sends them; Trust Payments' row is marked not applicable.
        let webhooks = report.steps.filter { $0.name == "webhook: verify a signed delivery" }
        #expect(
            webhooks.filter { $0.status == .passed }.map(\.instance).sorted()
                == [
                    Instance.adyen, Instance.bridge, Instance.paysafe, Instance.stripe, Instance.marqeta,
                    Instance.lithic,
                ].sorted())
        #expect(webhooks.first { $0.instance == Instance.trustPayments }?.status == .skipped)
        // Every skipped step says why, and only a capability the provider lacks is skipped.
        let skipped = report.steps.filter { $0.status == .skipped }
        #expect(skipped.allSatisfy { !$0.outcome.isEmpty }, "\(skipped)")
        #expect(
            report.steps.first {
                $0.instance == Instance.paysafe && $0.name == "lifecycle: suspend and resume a wallet token"
            }?.status == .skipped)
        // A lock/unlock round trip on every provider with a card lock, a token suspend/resume on every one with token control.
        for instance in [
            Instance.paysafe, Instance.adyen, Instance.stripe, Instance.bridge, Instance.marqeta, Instance.lithic,
        ] {
            #expect(
                report.steps.filter {
                    $0.instance == instance && ["lifecycle: lock a card", "lifecycle: unlock it"].contains($0.name)
                        && $0.status == .passed
                }.count == 2, "\(instance)")
        }
        for instance in [Instance.adyen, Instance.stripe, Instance.marqeta, Instance.lithic] {
            #expect(
                report.steps.filter {
                    $0.instance == instance
                        && ["lifecycle: suspend a wallet token", "lifecycle: resume it"].contains($0.name)
                        && $0.status == .passed
                }.count == 2, "\(instance)")
        }
    }

    @Test("outcomes never hold a secret, card number, CVV, payload or ephemeral key secret")
    func outcomesAreSafe() async throws {
        let report = try await Demo.run()
        let text = report.steps.map(\.outcome).joined(separator: "\n")
        for secret in [
            PaysafeSimulator.Credentials.default.clientSecret, PaysafeSimulator.Seed.issuedCardCVV + " ",
            StripeSimulator.Credentials.default.testSecretKey,
            "ek_test_", TrustPaymentsSimulator.Seed.Card.visa, TrustPaymentsSimulator.Seed.jwtSecret, "eyJ",
        ] {
            #expect(!text.contains(secret), "\(secret)")
        }
    }

    @Test(
        "card reveal: every purpose each provider declares runs on a seeded card, and the app side shows only the last four"
    )
    func cardReveal() async throws {
        let report = try await Demo.run()
        let reveal = report.steps.filter { $0.name.hasPrefix("card reveal") }
        #expect(reveal.allSatisfy { $0.status == .passed }, "\(reveal.filter { $0.status != .passed })")
        // One step per purpose each instance declares, named by the purpose.
        for (instance, kind) in [
            (Instance.paysafe, "paysafe"), (Instance.adyen, "adyen"), (Instance.stripe, "stripe"),
            (Instance.bridge, "bridge"), (Instance.marqeta, "marqeta"), (Instance.lithic, "lithic"),
        ] {
            let declared = ExampleRegistry.all.factories[ProviderKind(kind)]?.descriptor.revealFlows ?? [:]
            let names = reveal.filter { $0.instance == instance }.map(\.name)
            let expected = RevealPurpose.allCases.filter { declared[$0] != nil }.map {
                "card reveal: " + ($0 == .pinReveal ? "PIN" : $0 == .pinChange ? "PIN change" : "card details")
            }
            #expect(names == expected, "\(instance): \(names)")
        }
        // Card details: the last four of the seeded card, after bullets, from the app's side of each flow.
        let details = reveal.filter { $0.name == "card reveal: card details" }
        #expect(details.count >= 4)
        for step in details {
            #expect(
                step.outcome.range(of: #"•••• \d{4}"#, options: .regularExpression) != nil,
                "\(step.instance): \(step.outcome)")
        }
        #expect(
            details.first { $0.instance == Instance.adyen }?.outcome.contains(
                "•••• " + String(AdyenSimulator.Seed.cardNumber(of: AdyenSimulator.Seed.activeVisaID)?.suffix(4) ?? "?")
            ) == true)
        #expect(
            details.first { $0.instance == Instance.stripe }?.outcome.contains(
                "•••• " + String(StripeSimulator().cardNumber(of: StripeSimulator.Seed.activeCardID)?.suffix(4) ?? "?"))
                == true)
        // Nothing that looks like a card number (13 to 19 digits on their own; ids such as Paysafe's UUIDs end in 12), and none of the seeded cards' full numbers, CVCs or PINs.
        let text = report.steps.map(\.outcome).joined(separator: "\n")
        #expect(text.range(of: #"(?<![\d-])\d{13,19}(?![\d-])"#, options: .regularExpression) == nil)
        let adyenCard = AdyenSimulator.Seed.activeVisaID
        for secret in [
            AdyenSimulator.Seed.cardNumber(of: adyenCard) ?? "",
            StripeSimulator().cardNumber(of: StripeSimulator.Seed.activeCardID) ?? "",
        ] {
            #expect(!secret.isEmpty && !text.contains(secret))
        }
        #expect(!text.contains("PIN " + AdyenSimulator.Seed.initialPIN(of: adyenCard)) && !text.contains("2580"))
    }

    @Test("a provider that fails fails its steps with the gateway's code, and the rest still run")
    func failuresAreReported() async throws {
        let report = try await Demo.run(beforeSteps: { running in
            running.handle("stripe")?.faults.inject(
                FaultRule(count: 1_000, action: .status(500, retryAfterSeconds: 0, message: "down for the test")))
        })
        #expect(!report.passed)
        let failures = report.failures
        #expect(!failures.isEmpty)
        #expect(failures.allSatisfy { $0.instance == Instance.stripe })
        #expect(failures.allSatisfy { $0.errorCode == "providerUnavailable" })
        #expect(report.steps.filter { $0.instance == Instance.paysafe }.allSatisfy { $0.status != .failed })
        let table = DemoTable.render(report)
        #expect(table.contains("FAIL"))
        #expect(table.contains("\(failures.count) failed"))
    }

    @Test("the command prints the report as JSON and exits 0 when every step passes")
    func commandJSON() async throws {
        let run = await runCLI(["demo", "--quiet", "--json"])
        #expect(run.exitCode == 0, "\(run.stderr)")
        let report = try JSONDecoder().decode(DemoReport.self, from: Data(run.stdout.utf8))
        #expect(report.passed)
        #expect(report.steps.count > 40)
        #expect(run.stderr.isEmpty)
    }

    @Test("the table has a header, one row per step and a summary; progress goes to stderr")
    func commandTable() async throws {
        let run = await runCLI(["demo"])
        #expect(run.exitCode == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.first?.contains("STEP") == true && lines.first?.contains("PROVIDER") == true
                && lines.first?.contains("OUTCOME") == true)
        #expect(lines.last?.contains(" 0 failed") == true)
        #expect(run.stderr.contains("… card service: list a customer's cards"))
        // The card reveal rows, and no full card number anywhere in what the command printed.
        #expect(run.stdout.contains("card reveal: card details"))
        #expect(run.stdout.contains("•••• "))
        #expect(
            (run.stdout + run.stderr).range(of: #"(?<![\d-])\d{13,19}(?![\d-])"#, options: .regularExpression) == nil)
    }
}
