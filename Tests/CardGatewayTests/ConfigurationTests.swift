import CardGateway
import Foundation
import Testing

@Suite("Configuration loading", .timeLimit(.minutes(5)))
struct ConfigurationTests {
    @Test("a valid document loads with secrets resolved, base URLs chosen and timeouts set")
    func loadsValidDocument() throws {
        let configuration = try TestFactories.load(TestFactories.validDocument)
        #expect(configuration.providers.count == 3)
        let eu = try #require(configuration.providers["eu-cards"])
        #expect(eu.kind == TestFactories.issuerKind)
        #expect(eu.baseURL.absoluteString == "https://sandbox.alpha.example/v1")
        #expect(eu.credentials["apiKey"]?.revealedValue == "alpha-secret-key-123")
        #expect(eu.timeout == .seconds(5))
        #expect(eu.options["region"] == .string("EU"))
        let us = try #require(configuration.providers["us-cards"])
        #expect(us.baseURL.absoluteString == "http://127.0.0.1:9999/v1")
        #expect(us.credentials["apiKey"]?.revealedValue == "us-literal-key-789")
        #expect(us.timeout == .seconds(30))
        #expect(configuration.routes.count == 5)
        #expect(
            configuration.routes[2].when.bins == [
                BINRange(low: "44000000", high: "44009999"), BINRange(low: "510510", high: "510510"),
            ])
    }

    @Test("malformed JSON and a non-object document are reported at $")
    func malformedJSON() {
        #expect(
            TestFactories.problems("{not json") == [
                ConfigurationProblem(path: "$", message: "the document is not valid JSON")
            ])
        let problems = TestFactories.problems("[1,2]")
        #expect(problems.count == 1)
        #expect(problems.first?.path == "$")
        #expect(problems.first?.message.contains("an array") == true)
    }

    @Test("every problem is reported at once, each with its JSON path")
    func reportsEveryProblem() {
        let document = """
            {
              "providers": {
                "a": { "kind": "alpha", "environment": "staging", "credentials": { "apiKey": "env:UNSET_VAR", "token": "literal:x" },
                       "options": { "region": "MARS", "colour": "red", "verbose": "yes" }, "timeoutSeconds": -1, "extra": 1 },
                "b": { "kind": "gamma", "credentials": {} },
                "c": { "kind": "beta", "environment": "sandbox", "credentials": { "username": "BETA_USER" } }
              },
              "routes": [
                { "when": { "bin": ["4400-4401", "44000000-4400999", "4400abcd", "12345678901234"] }, "use": "a" },
                { "when": { "wallet": "apple-wallet", "operation": "teleport", "planet": "x" }, "use": "nobody" },
                { "when": { "operation": "provision" }, "use": "c" },
                { "when": { "country": "Germany", "currency": "euro" }, "use": "a" },
                { "use": 3 }
              ],
              "version": 2
            }
            """
        let problems = TestFactories.problems(document)
        let byPath = Dictionary(grouping: problems, by: \.path).mapValues { $0.map(\.message) }
        func has(_ path: String, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(
                byPath[path]?.contains { $0.contains(fragment) } == true,
                "\(path) should say \(fragment); got \(byPath[path] ?? [])", sourceLocation: sourceLocation)
        }
        has("version", "unknown key")
        has("providers.a.environment", "unknown environment \"staging\"")
        has("providers.a.credentials.apiKey", "environment variable UNSET_VAR is not set")
        has("providers.a.credentials.token", "unknown credential")
        has("providers.a.options.region", "must be one of EU, US")
        has("providers.a.options.colour", "unknown option")
        has("providers.a.options.verbose", "must be true or false")
        has("providers.a.timeoutSeconds", "from 0.001")
        has("providers.a.extra", "unknown key")
        has("providers.b.kind", "unknown provider kind \"gamma\"")
        has("providers.c.credentials.username", "must be a secret reference")
        has("providers.c.credentials.password", "is required")
        has("providers.c.options", "is required")
        has("routes[0].when.bin[0]", "6 to 11 digits")
        has("routes[0].when.bin[1]", "same number of digits")
        has("routes[0].when.bin[2]", "only digits")
        has("routes[0].when.bin[3]", "6 to 11 digits")
        has("routes[1].when.wallet", "unknown wallet \"apple-wallet\"")
        has("routes[1].when.operation", "unknown operation \"teleport\"")
        has("routes[1].when.planet", "unknown route dimension")
        has("routes[1].use", "names no provider instance \"nobody\"")
        has("routes[2].when.operation", "cannot serve provision")
        has("routes[3].when.country", "ISO 3166-1 alpha-2")
        has("routes[4].use", "must be the name of a provider instance")
        #expect(problems.count >= 24)
    }

    @Test("country and currency codes are checked")
    func countryAndCurrency() {
        let document = """
            { "providers": { "a": { "kind": "alpha", "environment": "sandbox", "credentials": { "apiKey": "literal:k" } } },
              "routes": [ { "when": { "currency": ["EUR", "eur"] }, "use": "a" } ] }
            """
        let problems = TestFactories.problems(document)
        #expect(
            problems == [
                ConfigurationProblem(
                    path: "routes[0].when.currency[1]",
                    message: "\"eur\" is not an ISO 4217 alpha-3 currency code such as EUR")
            ])
    }

    @Test("overlapping BIN ranges that send the same cards to different instances are refused")
    func overlappingRanges() {
        let document = """
            { "providers": { "a": { "kind": "alpha", "environment": "sandbox", "credentials": { "apiKey": "literal:k" } },
                             "b": { "kind": "alpha", "environment": "live", "credentials": { "apiKey": "literal:k" } } },
              "routes": [ { "when": { "bin": "44000000-44009999" }, "use": "a" },
                          { "when": { "bin": "440050" }, "use": "b" },
                          { "when": { "bin": "44000000-44000099" }, "use": "a" },
                          { "when": { "bin": "44000500-44000599", "tenant": "t1" }, "use": "b" },
                          { "when": { "bin": "45000000-45009999", "tenant": "t1" }, "use": "a" },
                          { "when": { "bin": "45000000-45009999", "tenant": "t2" }, "use": "b" } ] }
            """
        let problems = TestFactories.problems(document)
        #expect(problems.map(\.path) == ["routes[1].when.bin", "routes[3].when.bin"])
        #expect(problems.first?.message.contains("overlaps 44000000 to 44009999 of routes[0]") == true)

        // A route that fails to load before them does not shift the indexes the overlap names.
        let shifted = document.replacingOccurrences(
            of: #""routes": [ "#, with: #""routes": [ { "when": { "issuer": "x" }, "use": "missing" }, "#)
        let shiftedProblems = TestFactories.problems(shifted).filter { $0.path.hasSuffix(".when.bin") }
        #expect(shiftedProblems.map(\.path) == ["routes[2].when.bin", "routes[4].when.bin"])
        #expect(shiftedProblems.first?.message.contains("overlaps 44000000 to 44009999 of routes[1]") == true)
    }

    @Test("a card number typed in as a BIN never reaches an error, a message or a description")
    func panAsBINIsNotEchoed() {
        let pan = "4111111111111111"
        let document = """
            { "providers": { "a": { "kind": "alpha", "environment": "sandbox", "credentials": { "apiKey": "literal:k" } } },
              "routes": [ { "when": { "bin": "\(pan)" }, "use": "a" }, { "when": { "bin": "411111-\(pan)" }, "use": "a" } ] }
            """
        do {
            _ = try TestFactories.load(document)
            Issue.record("expected problems")
        } catch let error as CardGatewayError {
            #expect(error.configurationProblems.map(\.path) == ["routes[0].when.bin", "routes[1].when.bin"])
            #expect(!error.description.contains(pan))
            #expect(!error.configurationProblems.contains { $0.message.contains(pan) })
            #expect(!ConfigurationError(problems: error.configurationProblems).description.contains(pan))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("plain http is refused except to loopback")
    func httpRefused() {
        func document(_ url: String) -> String {
            """
            { "providers": { "a": { "kind": "alpha", "baseURL": "\(url)", "credentials": { "apiKey": "literal:k" } } }, "routes": [] }
            """
        }
        #expect(TestFactories.problems(document("http://127.0.0.1:8080/v1")).isEmpty)
        #expect(TestFactories.problems(document("http://localhost:8080")).isEmpty)
        #expect(TestFactories.problems(document("http://[::1]:8080")).isEmpty)
        #expect(TestFactories.problems(document("https://api.example.com/v1")).isEmpty)
        let refused = TestFactories.problems(document("http://api.example.com/v1"))
        #expect(refused.map(\.path) == ["providers.a.baseURL"])
        #expect(refused.first?.message.contains("plain http:// is refused") == true)
        #expect(TestFactories.problems(document("ftp://127.0.0.1/x")).first?.message.contains("not supported") == true)
        #expect(TestFactories.problems(document("not a url")).first?.path == "providers.a.baseURL")
    }

    @Test("wrong types are named with the field")
    func wrongTypes() {
        let document = """
            { "providers": { "a": { "kind": 5, "credentials": [] }, "b": "alpha" }, "routes": { } }
            """
        let problems = TestFactories.problems(document)
        #expect(
            problems.contains(ConfigurationProblem(path: "providers.a.kind", message: "must be a string, not a number"))
        )
        #expect(problems.contains { $0.path == "providers.b" && $0.message.contains("not a string") })
        #expect(problems.contains { $0.path == "routes" && $0.message.contains("not an object") })
    }

    @Test("empty and absurd values are refused, never defaulted")
    func absurdValues() {
        let document = """
            { "providers": { "a": { "kind": "alpha", "environment": "sandbox", "credentials": { "apiKey": "literal:" },
                                    "timeoutSeconds": 100000, "maxAttempts": 0 } },
              "routes": [ { "when": { "program": [] }, "use": "a" }, { "when": { "issuer": "" }, "use": "a" } ] }
            """
        let paths = TestFactories.problems(document).map(\.path)
        #expect(paths.contains("providers.a.credentials.apiKey"))
        #expect(paths.contains("providers.a.timeoutSeconds"))
        #expect(paths.contains("providers.a.maxAttempts"))
        #expect(paths.contains("routes[0].when.program"))
        #expect(paths.contains("routes[1].when.issuer"))

        let tiny = document.replacingOccurrences(of: "100000", with: "0.0004")
        #expect(
            TestFactories.problems(tiny).map(\.path).contains("providers.a.timeoutSeconds"),
            "a timeout that rounds to nothing is refused")
    }

    @Test("file: secrets are read relative to the configuration file and trimmed")
    func fileSecrets() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cg-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("file-secret-value\n".utf8).write(to: directory.appendingPathComponent("alpha.key"))
        let document = """
            { "providers": { "a": { "kind": "alpha", "environment": "sandbox", "credentials": { "apiKey": "file:alpha.key" } },
                             "b": { "kind": "alpha", "environment": "sandbox", "credentials": { "apiKey": "file:/nonexistent/key" } } }, "routes": [] }
            """
        let url = directory.appendingPathComponent("gateway.json")
        try Data(document.utf8).write(to: url)
        do {
            _ = try GatewayConfiguration.load(
                contentsOf: url, registry: TestFactories.registry, secrets: SecretResolver(environment: [:]))
            Issue.record("a missing file must be reported")
        } catch let error as CardGatewayError {
            #expect(
                error.configurationProblems == [
                    ConfigurationProblem(
                        path: "providers.b.credentials.apiKey", message: "file /nonexistent/key cannot be read")
                ])
        }
        let good = document.replacingOccurrences(of: "file:/nonexistent/key", with: "file:alpha.key")
        try Data(good.utf8).write(to: url)
        let configuration = try GatewayConfiguration.load(
            contentsOf: url, registry: TestFactories.registry, secrets: SecretResolver(environment: [:]))
        #expect(configuration.providers["a"]?.credentials["apiKey"]?.revealedValue == "file-secret-value")
    }

    @Test(
        "file: secrets lose trailing LF, CRLF and CR line ends, and nothing else",
        arguments: [
            ("key\n", "key"), ("key\r\n", "key"), ("key\r\n\r\n", "key"), ("key\r", "key"), ("k e y \n", "k e y "),
            ("key", "key"),
            ("\u{00E9}t\u{00E9}\r\n", "\u{00E9}t\u{00E9}"),
        ])
    func fileSecretLineEnds(content: String, expected: String) throws {
        let resolver = SecretResolver(environment: [:], readFile: { _ in Data(content.utf8) })
        let secret = try resolver.resolve(.file("/run/secrets/k")).get()
        #expect(secret.revealedValue == expected)
        #expect(secret.revealedValue.unicodeScalars.count == expected.unicodeScalars.count)
        let empty = SecretResolver(environment: [:], readFile: { _ in Data("\r\n".utf8) })
        guard case .failure(let failure) = empty.resolve(.file("/run/secrets/k")) else {
            Issue.record("an empty file must fail"); return
        }
        #expect(failure.message.contains("empty"))
    }

    @Test("configuration errors convert to invalidConfiguration gateway errors without secrets")
    func errorConversion() {
        let document = """
            { "providers": { "a": { "kind": "alpha", "environment": "sandbox", "credentials": { "apiKey": "literal:super-secret-literal" }, "options": { "region": "XX" } } }, "routes": [] }
            """
        do {
            _ = try TestFactories.load(document)
            Issue.record("expected a problem")
        } catch let gatewayError as CardGatewayError {
            #expect(gatewayError.code == .invalidConfiguration)
            #expect(gatewayError.fieldErrors.map(\.field) == ["providers.a.options.region"])
            #expect(gatewayError.message.contains("providers.a.options.region"), "the message names the field")
            #expect(!gatewayError.description.contains("super-secret-literal"))
            #expect(
                !ConfigurationError(problems: gatewayError.configurationProblems).description.contains(
                    "super-secret-literal"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
