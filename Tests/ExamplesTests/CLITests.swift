import AdyenSimulator
import BridgeSimulator
import CardGateway
import CardGatewaySimulation
import ExampleSupport
import Foundation
import PaysafeSimulator
import StripeSimulator
import Testing
import TrustPaymentsSimulator

/// `cardgateway` commands over a configuration file, run in-process against the embedded simulators.
@Suite("cardgateway CLI", .timeLimit(.minutes(5)))
struct CLITests {
    typealias Paysafe = PaysafeSimulator.Seed

    /// Values that must never appear on the CLI's output, whatever the command.
    static let secrets = [
        PaysafeSimulator.Credentials.default.clientSecret, PaysafeSimulator.Credentials.default.webhookSecret,
        AdyenSimulator.Credentials.apiKey, AdyenSimulator.Credentials.hmacKeyHex,
        StripeSimulator.Credentials.default.testSecretKey, StripeSimulator.Credentials.default.webhookSecret,
        BridgeSimulator.Seed.apiKey, TrustPaymentsSimulator.Seed.webservicesPassword,
        TrustPaymentsSimulator.Seed.jwtSecret,
    ]

    static func expectNoSecrets(
        _ run: CLIRun, _ extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for secret in secrets + extra {
            #expect(
                !run.stdout.contains(secret) && !run.stderr.contains(secret), "a secret reached the output",
                sourceLocation: sourceLocation)
        }
    }

    @Test(
        "config check: a valid file lists its instances; an invalid one reports every problem with its path and exits 1"
    )
    func configCheck() async throws {
        try await withSimulatorConfiguration { path, _ in
            let valid = await runCLI(["config", "check", "--config", path])
            #expect(valid.exitCode == 0)
            let report = try valid.json()
            #expect(report["valid"] == .bool(true))
            // The instances and routes of the examples' registration (EmbeddedSimulators), so a new provider
            // registered there needs no edit here.
            let written = try #require(
                JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            let instances = try #require(written["providers"] as? [String: Any]).keys.sorted()
            #expect(instances.count >= 5 && instances.contains("us-issuing"), "\(instances)")
            #expect(report["providers"]?.arrayValue?.compactMap(\.stringValue) == instances)
            #expect(report["routes"]?.intValue == (written["routes"] as? [Any])?.count)
            Self.expectNoSecrets(valid)
        }
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cardgateway-broken-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: broken) }
        try Data(
            #"""
            {"providers": {"a": {"kind": "stripe", "baseURL": "http://stripe.example.com", "credentials": {"secretKey": "literal:sk_test_leakcheck000000000000"}},
                           "b": {"kind": "nope"}},
             "routes": [{"when": {"currency": "eur"}, "use": "missing"}]}
            """#.utf8
        ).write(to: broken)
        let invalid = await runCLI(["config", "check", "--config", broken.path])
        #expect(invalid.exitCode == 1)
        let problems = try invalid.json()["problems"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
        #expect(problems.contains("providers.a.baseURL"))
        #expect(problems.contains("providers.b.kind"))
        #expect(problems.contains("routes[0].use"))
        #expect(problems.contains("routes[0].when.currency"))
        #expect(!invalid.stdout.contains("sk_test_leakcheck"))

        // A Stripe live key in a sandbox instance and a Trust Payments max age of 0: both refused, with their paths.
        try Data(
            #"""
            {"providers": {"us": {"kind": "stripe", "environment": "sandbox", "credentials": {"secretKey": "literal:sk_live_leakcheck00000000000"}},
                           "tp": {"kind": "trustpayments", "environment": "sandbox",
                                  "credentials": {"webservicesUsername": "literal:ws", "webservicesPassword": "literal:pw", "jwtUsername": "literal:ju", "jwtSecret": "literal:js"},
                                  "options": {"siteReference": "test_site12345", "jwtMaxAgeSeconds": 0}}},
             "routes": []}
            """#.utf8
        ).write(to: broken)
        let refused = await runCLI(["config", "check", "--config", broken.path])
        #expect(refused.exitCode == 1)
        let refusedReport = try refused.json()
        #expect(refusedReport["valid"] == .bool(false))
        let refusedPaths = refusedReport["problems"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
        // The max age of 0 is refused when the options are decoded, at load, with the option's path.
        #expect(refusedPaths.contains("providers.tp.options.jwtMaxAgeSeconds"), "\(refusedPaths)")
        #expect(!refused.stdout.contains("sk_live_leakcheck"))

        // Once the document loads, what only the adapter can tell (a live key in a sandbox instance) is reported too.
        try Data(
            #"""
            {"providers": {"us": {"kind": "stripe", "environment": "sandbox", "credentials": {"secretKey": "literal:sk_live_leakcheck00000000000"}}},
             "routes": []}
            """#.utf8
        ).write(to: broken)
        let adapterRefused = await runCLI(["config", "check", "--config", broken.path])
        #expect(adapterRefused.exitCode == 1)
        let adapterPaths =
            try adapterRefused.json()["problems"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
        #expect(adapterPaths.contains { $0.hasPrefix("providers.us") }, "\(adapterPaths)")
        #expect(!adapterRefused.stdout.contains("sk_live_leakcheck"))
    }

    @Test("route explain: the matched route and each earlier verdict; no match exits 1")
    func routeExplain() async throws {
        try await withSimulatorConfiguration { path, _ in
            let matched = await runCLI([
                "route", "explain", "--config", path, "--issuer", "stripe-us", "--operation", "provision",
            ])
            #expect(matched.exitCode == 0)
            let explanation = try matched.json()
            #expect(explanation["match"]?["instance"]?.stringValue == "us-issuing")
            #expect(explanation["decisions"]?.arrayValue?.count == 5)
            let unmatched = await runCLI([
                "route", "explain", "--config", path, "--issuer", "nobody", "--operation", "card",
            ])
            #expect(unmatched.exitCode == 1)
            #expect(try unmatched.json()["match"] == nil)
            let badOperation = await runCLI(["route", "explain", "--config", path, "--operation", "teleport"])
            #expect(badOperation.exitCode == 64)
            #expect(try badOperation.error()?["code"]?.stringValue == "invalidRequest")
        }
    }

    @Test("card list, get, create, activate and update go to Paysafe by issuer or program and print normalised JSON")
    func cardService() async throws {
        try await withSimulatorConfiguration { path, running in
            let journal = try #require(running.handle("paysafe")).journal
            let base = ["--config", path, "--issuer", "paysafe-eu", "--customer", Paysafe.euCustomer]

            let locked = await runCLI(["card", "list"] + base + ["--status", "locked"])
            #expect(locked.exitCode == 0, "\(locked.stderr)")
            let cards = try locked.json()["cards"]?.arrayValue ?? []
            #expect(!cards.isEmpty)
            #expect(cards.allSatisfy { $0["status"]?.stringValue == "locked" })
            #expect(
                journal.entries(method: "GET", pathContains: "/customers/\(Paysafe.euCustomer)/prepaid/cards").count
                    >= 1)

            let card = await runCLI(["card", "get"] + base + [Paysafe.activeCardID])
            #expect(try card.json()["lastFour"]?.stringValue == "7009")
            #expect(try card.json()["provider"]?.stringValue == "eu-cards")

            let missing = await runCLI(["card", "get"] + base + ["no-such-card"])
            #expect(missing.exitCode == 2)
            let error = try #require(try missing.error())
            #expect(error["code"]?.stringValue == "notFound")
            #expect(error["provider"]?.stringValue == "eu-cards")
            #expect(missing.stdout.isEmpty)

            // --program both routes the request and names the card's program.
            journal.clear()
            let created = await runCLI([
                "card", "create", "--config", path, "--program", Paysafe.virtualMCProgram, "--currency", "EUR",
                "--customer", Paysafe.euCustomer, "--type", "virtual",
            ])
            #expect(created.exitCode == 0, "\(created.stderr)")
            #expect(try created.json()["type"]?.stringValue == "virtual")
            let post = try #require(journal.entries(method: "POST", pathContains: "/cards").first)
            #expect(post.bodyText.contains(Paysafe.virtualMCProgram))

            // The CVV comes from stdin and never reaches the output.
            let activated = await runCLI(
                ["card", "activate"] + base + ["--last-four", Paysafe.issuedCardLastFour, Paysafe.issuedCardID],
                stdin: Paysafe.issuedCardCVV + "\n")
            #expect(activated.exitCode == 0, "\(activated.stderr)")
            #expect(try activated.json()["status"]?.stringValue == "active")
            #expect(!activated.stdout.contains("\"\(Paysafe.issuedCardCVV)\""))
            let noCVV = await runCLI(["card", "activate"] + base + ["--last-four", "4403", Paysafe.issuedCardID])
            #expect(noCVV.exitCode == 64)

            let programs = await runCLI(["card", "programs"] + base)
            #expect(
                try programs.json().arrayValue?.compactMap { $0["name"]?.stringValue }.contains(
                    Paysafe.virtualMCProgram) == true)
            Self.expectNoSecrets(activated, [Paysafe.issuedCardCVV + "\""])
        }
    }

    @Test(
        "card lock, unlock and cancel, list --all and token list go through the router; a cancelled card cannot be unlocked"
    )
    func lifecycle() async throws {
        try await withSimulatorConfiguration { path, running in
            let journal = try #require(running.handle("paysafe")).journal
            let base = ["--config", path, "--issuer", "paysafe-eu", "--customer", Paysafe.euCustomer]

            journal.clear()
            let locked = await runCLI(["card", "lock"] + base + ["--reason", "lost", Paysafe.activeVisaCardID])
            #expect(locked.exitCode == 0, "\(locked.stderr)")
            #expect(try locked.json()["status"]?.stringValue == "locked")
            let write = try #require(
                journal.entries().first { $0.method != "GET" && $0.path.hasSuffix(Paysafe.activeVisaCardID) })
            #expect(write.bodyText.contains("\"LOCKED\""), "\(write.bodyText)")
            #expect(write.bodyText.contains("\"lost\""), "the reason goes over as statusReason: \(write.bodyText)")
            let unlocked = await runCLI(["card", "unlock"] + base + [Paysafe.activeVisaCardID])
            #expect(try unlocked.json()["status"]?.stringValue == "active")

            let cancelled = await runCLI(["card", "cancel"] + base + ["--reason", "stolen", Paysafe.digitalCardID])
            #expect(try cancelled.json()["status"]?.stringValue == "cancelled", "\(cancelled.stderr)")
            let reopened = await runCLI(["card", "unlock"] + base + [Paysafe.digitalCardID])
            #expect(reopened.exitCode == 2)
            #expect(try reopened.error()?["code"]?.stringValue == "invalidCardState")

            let badReason = await runCLI(["card", "lock"] + base + ["--reason", "bored", Paysafe.activeVisaCardID])
            #expect(badReason.exitCode == 64)

            // --all follows every page: with one card a page, each card exactly once.
            journal.clear()
            let all = await runCLI(["card", "list"] + base + ["--limit", "1", "--all"])
            #expect(all.exitCode == 0, "\(all.stderr)")
            let ids = try all.json().arrayValue?.compactMap { $0["ref"]?["id"]?.stringValue } ?? []
            #expect(ids.count > 2 && Set(ids).count == ids.count, "\(ids)")
            #expect(journal.entries(method: "GET", pathContains: "/prepaid/cards").count == ids.count)
            let outOfRange = await runCLI(["card", "list"] + base + ["--limit", "1000"])
            #expect(outOfRange.exitCode == 64)

            let tokens = await runCLI(["token", "list"] + base + ["--card", Paysafe.tokenizedCardID])
            #expect(tokens.exitCode == 0, "\(tokens.stderr)")
            #expect(try tokens.json().arrayValue?.compactMap { $0["id"]?.stringValue } == [Paysafe.tokenizedDPANRef])
            // Paysafe's API has no wallet-token suspension: refused before anything is sent.
            journal.clear()
            let suspend = await runCLI(
                ["token", "suspend"] + base + ["--card", Paysafe.tokenizedCardID, Paysafe.tokenizedDPANRef])
            #expect(suspend.exitCode == 2)
            #expect(try suspend.error()?["code"]?.stringValue == "unsupported")
            #expect(journal.entries().isEmpty)

            // Adyen issues with the cardholder name and issuing country; the program names the brand variant.
            let adyenJournal = try #require(running.handle("adyen")).journal
            adyenJournal.clear()
            let issued = await runCLI([
                "card", "create", "--config", path, "--provider", "adyen-issuing", "--customer",
                AdyenSimulator.Seed.balanceAccountID,
                "--program", "visadebit", "--currency", "EUR", "--cardholder-name", "Ada Lovelace", "--issuing-country",
                "nl",
            ])
            #expect(issued.exitCode == 0, "\(issued.stderr)")
            #expect(try issued.json()["status"]?.stringValue == "active")
            let post = try #require(adyenJournal.entries(method: "POST", pathContains: "/paymentInstruments").first)
            #expect(post.bodyText.contains("\"issuingCountryCode\":\"NL\""), "\(post.bodyText)")

            let manifest = await runCLI(["config", "capabilities", "--config", path])
            #expect(manifest.exitCode == 0, "\(manifest.stderr)")
            let entries = try manifest.json().arrayValue ?? []
            let paysafe = try #require(entries.first { $0["kind"]?.stringValue == "paysafe" })
            let operations = paysafe["operations"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(
                operations.contains("lockCard") && operations.contains("listWalletTokens")
                    && !operations.contains("suspendWalletToken"))
            #expect(entries.allSatisfy { ($0["operations"]?.arrayValue?.count ?? 0) > 0 })
        }
    }

    @Test("provision: offers and every flow, with the bytes as Base64 and the right request on the wire")
    func provisioning() async throws {
        try await withSimulatorConfiguration { path, running in
            // Stripe: an ephemeral key pinned to the SDK's API version.
            let offer = await runCLI([
                "provision", "offer", "--config", path, "--issuer", "stripe-us", "--wallet", "apple-pay",
                StripeSimulator.Seed.activeCardID,
            ])
            #expect(offer.exitCode == 0, "\(offer.stderr)")
            #expect(try offer.json()["flow"]?.stringValue == "issuerSDKKey")
            #expect(try offer.json()["eligible"] == .bool(true))
            let key = await runCLI([
                "provision", "ephemeral-key", "--config", path, "--issuer", "stripe-us", "--api-version", "2020-08-27",
                StripeSimulator.Seed.activeCardID,
            ])
            #expect(key.exitCode == 0, "\(key.stderr)")
            #expect(try key.json()["type"]?.stringValue == "ephemeralKey")
            let stripeCall = try #require(
                running.handle("stripe")?.journal.entries(method: "POST", pathContains: "/v1/ephemeral_keys").last)
            #expect(stripeCall.header("Stripe-Version") == "2020-08-27")

            // Bridge: Apple's certificates, nonce and signature go over as given.
            let inputs = SampleInputs.applePay
            var apple = [
                "provision", "apple-pay", "--config", path, "--issuer", "bridge", "--customer",
                BridgeSimulator.Seed.customerID,
            ]
            for certificate in inputs.certificates {
                apple += ["--certificate", certificate.revealedBytes.base64EncodedString()]
            }
            apple += [
                "--nonce", inputs.nonce.revealedBytes.base64EncodedString(), "--nonce-signature",
                inputs.nonceSignature.revealedBytes.base64EncodedString(), BridgeSimulator.Seed.activeVisa,
            ]
            let payload = await runCLI(apple)
            #expect(payload.exitCode == 0, "\(payload.stderr)")
            let applePay = try payload.json()
            #expect(applePay["type"]?.stringValue == "applePay")
            for field in ["activationData", "encryptedPassData", "ephemeralPublicKey"] {
                #expect(Data(base64Encoded: applePay[field]?.stringValue ?? "")?.isEmpty == false, "\(field)")
            }
            let badNonce = await runCLI(
                Array(apple.dropLast(5)) + [
                    "--nonce", "not base64!", "--nonce-signature", "AA==", BridgeSimulator.Seed.activeVisa,
                ])
            #expect(badNonce.exitCode == 64)

            // Paysafe: Google Pay's device ids, then the confirmation of that tokenization.
            let google = await runCLI([
                "provision", "google-pay", "--config", path, "--issuer", "paysafe-eu", "--customer", Paysafe.euCustomer,
                "--device-id", "device-1", "--wallet-account-id", "account-1", Paysafe.activeCardID,
            ])
            #expect(google.exitCode == 0, "\(google.stderr)")
            #expect(try google.json()["type"]?.stringValue == "googlePay")
            let confirm = await runCLI([
                "provision", "confirm", "--config", path, "--issuer", "paysafe-eu", "--customer", Paysafe.euCustomer,
                "--wallet", "google-pay", "--device-account-reference", "DAPLMC0000CLI000000000000000001",
                Paysafe.activeCardID,
            ])
            #expect(confirm.exitCode == 0, "\(confirm.stderr)")
            #expect(try confirm.json()["confirmed"] == .bool(true))

            // Adyen: the relay starts without --sdk-output and continues with it.
            let start = await runCLI([
                "provision", "issuer-sdk", "--config", path, "--issuer", "adyen-bank", AdyenSimulator.Seed.activeVisaID,
            ])
            #expect(start.exitCode == 0, "\(start.stderr)")
            #expect(try start.json()["type"]?.stringValue == "issuerSDKInput")
            let sdkInput = try #require(try start.json()["sdkInput"]?.stringValue.flatMap { Data(base64Encoded: $0) })
            let output = SampleInputs.issuerSDKOutput(wallet: .applePay, answering: SensitiveData(sdkInput))
                .revealedBytes.base64EncodedString()
            let next = await runCLI([
                "provision", "issuer-sdk", "--config", path, "--issuer", "adyen-bank", "--sdk-output", output,
                AdyenSimulator.Seed.activeVisaID,
            ])
            #expect(next.exitCode == 0, "\(next.stderr)")
            let adyenPosts =
                running.handle("adyen")?.journal.entries(method: "POST", pathContains: "networkTokenActivationData")
                ?? []
            #expect(adyenPosts.count == 1)

            // A wallet name the CLI does not know is a usage error.
            let unknownWallet = await runCLI([
                "provision", "offer", "--config", path, "--issuer", "stripe-us", "--wallet", "tap-pay",
                StripeSimulator.Seed.activeCardID,
            ])
            #expect(unknownWallet.exitCode == 64)
            for run in [offer, key, payload, google, start, next] { Self.expectNoSecrets(run) }
        }
    }

    @Test(
        "credentials: store session, SDK result verified from stdin, kept in --credential-store, reuse session and merchant-initiated charge; consent is required"
    )
    func storedCredentials() async throws {
        let storeFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cardgateway-store-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: storeFile) }
        try await withSimulatorConfiguration { path, running in
            let session = await runCLI([
                "credentials", "session", "--config", path, "--store", "--consent", "--amount", "1050", "--currency",
                "GBP",
            ])
            #expect(session.exitCode == 0, "\(session.stderr)")
            let token = try #require(try session.json()["token"]?.stringValue)
            let result = try await running.simulators.trustPayments.sdkPayment(
                sessionJWT: token, pan: TrustPaymentsSimulator.Seed.Card.visa,
                expiryDate: TrustPaymentsSimulator.Seed.expiryDate, securityCode: "123"
            )
            let verified = await runCLI(
                ["credentials", "verify", "--config", path, "--credential-store", storeFile.path, "-"],
                stdin: result + "\n")
            #expect(verified.exitCode == 0, "\(verified.stderr)")
            let reference = try #require(try verified.json()["reference"]?.stringValue)
            #expect(!verified.stdout.contains(TrustPaymentsSimulator.Seed.Card.visa))
            let kept = try String(contentsOf: storeFile, encoding: .utf8)
            #expect(kept.contains(reference))
            #expect(
                !kept.contains(TrustPaymentsSimulator.Seed.Card.visa), "the store holds references and masked PANs only"
            )
            let permissions =
                try FileManager.default.attributesOfItem(atPath: storeFile.path)[.posixPermissions] as? NSNumber
            #expect(permissions?.intValue == 0o600, "owner-only")

            // Without the store, the next command knows nothing of the reference; with it, reuse and charge work.
            let forgotten = await runCLI([
                "credentials", "charge", "--config", path, reference, "--amount", "1050", "--currency", "GBP",
                "--reason", "unscheduled",
            ])
            #expect(forgotten.exitCode == 2)
            #expect(try forgotten.error()?["code"]?.stringValue == "notFound")
            let reuse = await runCLI([
                "credentials", "session", "--config", path, "--credential-store", storeFile.path, "--reuse", reference,
                "--amount", "1050", "--currency", "GBP",
            ])
            #expect(reuse.exitCode == 0, "\(reuse.stderr)")
            let charge = await runCLI([
                "credentials", "charge", "--config", path, "--credential-store", storeFile.path, reference, "--amount",
                "1050", "--currency", "GBP", "--reason", "unscheduled",
            ])
            #expect(charge.exitCode == 0, "\(charge.stderr)")
            #expect(try charge.json()["status"]?.stringValue == "authorised")
            #expect(try charge.json()["parentReference"]?.stringValue == reference)

            // A charge whose connection drops after it was sent: the outcome is unknown, so the JSON error says it may
            // have reached the provider and must not simply be repeated, and the CLI did not repeat it.
            let tp = try #require(running.handle("trustpayments"))
            let postsBefore = tp.journal.entries(method: "POST").count
            tp.faults.inject(FaultRule(count: 1, method: "POST", action: .dropConnection))
            let dropped = await runCLI([
                "credentials", "charge", "--config", path, "--credential-store", storeFile.path, reference, "--amount",
                "1050", "--currency", "GBP", "--reason", "unscheduled",
            ])
            #expect(dropped.exitCode == 2)
            let droppedError = try #require(try dropped.error())
            #expect(droppedError["code"]?.stringValue == "transport")
            #expect(droppedError["retryable"] == .bool(false))
            #expect(droppedError["mayHaveReachedProvider"] == .bool(true))
            #expect(droppedError["provider"]?.stringValue == "cards-on-file")
            #expect(droppedError["retryAfterSeconds"] == nil)
            #expect(tp.journal.entries(method: "POST").count == postsBefore + 1)

            let noConsent = await runCLI([
                "credentials", "session", "--config", path, "--store", "--amount", "1050", "--currency", "GBP",
            ])
            #expect(noConsent.exitCode == 2)
            #expect(try noConsent.error()?["code"]?.stringValue == "invalidRequest")
            let badReason = await runCLI([
                "credentials", "charge", "--config", path, reference, "--amount", "1", "--currency", "GBP", "--reason",
                "whenever",
            ])
            #expect(badReason.exitCode == 64)
            for run in [session, verified, reuse, charge, noConsent] { Self.expectNoSecrets(run) }
        }
    }

    @Test("webhook verify: a signed delivery prints its events; a tampered one is signatureInvalid")
    func webhooks() async throws {
        try await withSimulatorConfiguration { path, running in
            let delivery = try #require(
                try running.simulators.sampleWebhook(instance: EmbeddedSimulators.Instance.stripe))
            let headers = delivery.headers.flatMap { ["--header", "\($0.name.rawName): \($0.value)"] }
            let body = String(decoding: delivery.body, as: UTF8.self)
            let verified = await runCLI(
                ["webhook", "verify", "--config", path, "--provider", "us-issuing"] + headers, stdin: body)
            #expect(verified.exitCode == 0, "\(verified.stderr)")
            let events = try verified.json().arrayValue ?? []
            #expect(events.first?["type"]?.stringValue == "cardStatusChanged")
            #expect(events.first?["provider"]?.stringValue == "us-issuing")

            let tampered = await runCLI(
                ["webhook", "verify", "--config", path, "--provider", "us-issuing"] + headers,
                stdin: body.replacingOccurrences(of: "active", with: "canceled"))
            #expect(tampered.exitCode == 2)
            #expect(try tampered.error()?["code"]?.stringValue == "signatureInvalid")
            Self.expectNoSecrets(tampered)
        }
    }
}
