import CardGateway
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ProvisioningServerApp
import Testing

/// The server is generated from `Examples/ProvisioningServer/App/openapi.yaml`: what it serves as its document, the
/// docs/SERVER.md's endpoint table and its answers outside the generated routes (405, 413, 415) are checked against it.
@Suite("Provisioning server: the OpenAPI document, 405, 413, 415", .timeLimit(.minutes(5)))
struct ProvisioningServerOpenAPITests {
    static let sourceRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let specURL = sourceRoot.appendingPathComponent("Examples/ProvisioningServer/App/openapi.yaml")

    @Test(
        "GET /openapi.yaml is byte for byte the file the code was generated from; GET /openapi.json is the same document"
    )
    func servesTheGeneratingDocument() async throws {
        let fixture = try Fixture()
        let source = try Data(contentsOf: Self.specURL)
        try await fixture.withClient { client in
            let yaml = try await client.send(.get, "/openapi.yaml", token: nil)
            #expect(yaml.status == 200)
            #expect(yaml.contentType == "application/yaml")
            #expect(yaml.body == source)
            #expect(ProvisioningServer.openAPIYAML == source)

            let json = try await client.send(.get, "/openapi.json", token: nil)
            #expect(json.status == 200)
            #expect(json.body == ProvisioningServer.openAPIDocument)
            let document = try json.json()
            // Spot checks that the JSON is the YAML: values that YAML could have read as other types stay strings.
            #expect(document["openapi"] == .string("3.1.0"))
            #expect(document["info"]?["version"]?.stringValue?.isEmpty == false)
            #expect(
                document["paths"]?["/v1/cards/{cardId}/provisioning/{wallet}"]?["post"]?["requestBody"]?["content"]?[
                    "application/json"]?["examples"]?["key"]?["value"]?["apiVersion"] == .string("2020-08-27"))
            #expect(
                document["components"]?["schemas"]?["Amount"]?["properties"]?["minorUnits"]?["minimum"] == .number(1))
        }
    }

    @Test("docs/SERVER.md's endpoint table lists exactly the document's operations, with their authentication")
    func readmeTableMatchesTheDocument() throws {
        let readme = try String(contentsOf: Self.sourceRoot.appendingPathComponent("docs/SERVER.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "# The provisioning server"))
        var rows: [String: String] = [:]
        for line in readme[section.upperBound...].split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4 else { continue }
            // `GET /v1/cards/{cardId}/provisioning/offer?wallet=applePay`, `GET /v1/wallet-extension[?refresh=true]`
            var endpoint = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            if let query = endpoint.firstIndex(where: { $0 == "?" || $0 == "[" }) {
                endpoint = String(endpoint[..<query])
            }
            rows[endpoint] = cells[2]
        }
        let endpoints = try Fixture().server.endpoints
        #expect(Set(rows.keys) == Set(endpoints.map(\.description)), "docs/SERVER.md's table and openapi.yaml differ")
        for endpoint in endpoints {
            let auth = rows[endpoint.description]
            if endpoint.requiresAuthentication {
                #expect(auth == "bearer", "\(endpoint): \(auth ?? "missing")")
            } else {
                #expect(auth != "bearer", "\(endpoint): \(auth ?? "missing")")
            }
        }
    }

    @Test("a known path with a method it does not serve answers 405 with Allow, as a problem; an unknown path 404")
    func methodNotAllowed() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let cases: [(HTTPRequest.Method, String, String)] = [
                (.delete, "/v1/cards", "GET"),
                (.post, "/health", "GET"),
                (.put, "/v1/cards/\(Fixture.payloadCard)", "GET"),
                (.get, "/v1/cards/\(Fixture.payloadCard)/provisioning/applePay", "POST"),
                (.post, "/v1/cards/\(Fixture.payloadCard)/provisioning/offer", "GET"),
                (.get, "/webhooks/relay", "POST"),
                (.patch, "/v1/credentials", "GET"),
            ]
            for (method, uri, allow) in cases {
                let reply = try await client.send(method, uri, json: "{}")
                #expect(reply.status == 405, "\(method) \(uri)")
                #expect(reply.header("Allow") == allow, "\(method) \(uri)")
                let problem = try reply.problem()
                #expect(problem["code"] == .string("invalidRequest"))
                #expect(problem["retryable"] == .bool(false))
                #expect(problem["mayHaveReachedProvider"] == .bool(false))
            }
            #expect(try await client.send(.delete, "/v1/nothing-here").status == 404)
        }
        #expect(fixture.backend.totalCalls == 0)
    }

    @Test("a body declared as anything but JSON answers 415, before any provider call")
    func unsupportedMediaType() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let requests: [String] = [
                "/v1/cards/\(Fixture.relayCard)/provisioning/applePay",
                "/v1/cards/\(Fixture.payloadCard)/provisioning/googlePay/confirm",
                "/v1/credentials/session",
                "/v1/credentials/result",
            ]
            for uri in requests {
                let reply = try await client.send(.post, uri, json: "{}", headers: ["Content-Type": "application/xml"])
                #expect(reply.status == 415, "\(uri)")
                let problem = try reply.problem()
                #expect(problem["errors"]?.arrayValue?.first?["field"] == .string("Content-Type"))
            }
        }
        #expect(fixture.backend.totalCalls == 0)
    }

    @Test("a body over the limit answers 413, for the API and for webhooks, without reaching a handler")
    func contentTooLarge() async throws {
        let fixture = try Fixture(
            configuration: .init(
                storedCredentialRoute: .instance("cof"), maxRequestBodyBytes: 1024, maxWebhookBodyBytes: 2048))
        try await fixture.withClient { client in
            let big = #"{"sdkOutput":""# + String(repeating: "A", count: 1200) + #""}"#
            let reply = try await client.send(.post, "/v1/cards/\(Fixture.relayCard)/provisioning/applePay", json: big)
            #expect(reply.status == 413)
            #expect(try reply.problem()["type"] == .string("urn:cardgateway:problem:contentTooLarge"))
            let small = try await client.send(
                .post, "/v1/cards/\(Fixture.relayCard)/provisioning/applePay", json: #"{"sdkOutput":"AQID"}"#)
            #expect(small.status == 200)

            let webhook = try await client.sendRaw(
                .post, "/webhooks/relay", body: Data(repeating: 0x41, count: 4096),
                headers: ["Content-Type": "application/json"])
            #expect(webhook.status == 413)
            _ = try webhook.problem()
        }
        #expect(fixture.backend.count("provision") == 1)
    }

    @Test("what the property-based tester found: each refusal the server makes is now stated in the document")
    func refusalsAreDocumented() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let document = try await client.send(.get, "/openapi.json", token: nil).json()
            let schemas = try #require(document["components"]?["schemas"])
            // Empty strings: refused, and the document says minLength 1.
            let emptyStrings: [(uri: String, body: String, schema: String, field: String)] = [
                (
                    "/v1/cards/\(Fixture.payloadCard)/provisioning/googlePay",
                    #"{"clientDeviceId":"","clientWalletAccountId":"w"}"#, "GooglePayRequest", "clientDeviceId"
                ),
                (
                    "/v1/cards/\(Fixture.payloadCard)/provisioning/googlePay",
                    #"{"clientDeviceId":"d","clientWalletAccountId":""}"#, "GooglePayRequest", "clientWalletAccountId"
                ),
                (
                    "/v1/cards/\(Fixture.payloadCard)/provisioning/googlePay/confirm",
                    #"{"deviceAccountReference":""}"#, "ConfirmRequest", "deviceAccountReference"
                ),
                (
                    "/v1/cards/\(Fixture.keyCard)/provisioning/applePay", #"{"apiVersion":""}"#, "KeyRequest",
                    "apiVersion"
                ),
                ("/v1/credentials/result", #"{"jwt":""}"#, "ResultRequest", "jwt"),
                (
                    "/v1/credentials/session",
                    #"{"intent":"reuse","reference":"","amount":{"minorUnits":1,"currency":"GBP"}}"#,
                    "ReuseSessionRequest", "reference"
                ),
            ]
            for (uri, body, schema, field) in emptyStrings {
                let reply = try await client.send(.post, uri, json: body)
                #expect(reply.status == 400, "\(uri) \(body)")
                #expect(
                    schemas[schema]?["properties"]?[field]?["minLength"] == .number(1),
                    "\(schema).\(field) must state minLength 1")
            }
            // consent with intent reuse: refused, and the document's reuse shape has no consent and no other fields.
            let reuseWithConsent =
                #"{"intent":"reuse","reference":"r","consent":{"recordedAt":"2025-01-31T12:00:00Z","evidence":"x"},"amount":{"minorUnits":1,"currency":"GBP"}}"#
            let reply = try await client.send(.post, "/v1/credentials/session", json: reuseWithConsent)
            #expect(reply.status == 400)
            #expect(try reply.problem()["errors"]?.arrayValue?.first?["field"] == .string("consent"))
            #expect(schemas["ReuseSessionRequest"]?["additionalProperties"] == .bool(false))
            #expect(schemas["ReuseSessionRequest"]?["properties"]?["consent"] == nil)
            #expect(schemas["SessionRequest"]?["discriminator"]?["propertyName"] == .string("intent"))
        }
        #expect(fixture.backend.totalCalls == 0)
    }
}
