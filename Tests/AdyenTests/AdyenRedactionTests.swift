import CardGateway
import CardGatewayTesting
import Foundation
import Testing

@testable import CardGatewayAdyen

@Suite("Adyen redaction (scripted)", .timeLimit(.minutes(5)))
struct AdyenRedactionTests {
    @Test("a relay, errors and webhooks at trace level leak no key, blob or card data into logs or errors")
    func noLeaks() async throws {
        let sdkInput = Data((0..<48).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        let sdkOutput = Data((0..<48).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 5) })
        let pan = "5555444433331111"
        let invalidFields =
            "[{\"name\": \"sdkOutput\", \"value\": \"\(sdkOutput.base64EncodedString())\", \"message\": \"bad \(pan)\"}]"
        let transport = ScriptedTransport([
            .json(200, "{\"sdkInput\": \"\(sdkInput.base64EncodedString())\"}"),
            .json(200, "{\"sdkInput\": \"\(sdkInput.base64EncodedString())\"}"),
            .json(
                422,
                Fixture.restError(
                    status: 422, errorCode: "30_001",
                    detail: "Invalid sdkOutput \(sdkOutput.base64EncodedString()) for \(pan)",
                    invalidFields: invalidFields)),
            .json(200, "{\"sdkInput\": \"%%%\(pan)\"}"),
            .json(401, Fixture.restError(status: 401, errorCode: "00_401", detail: "Key \(Fixture.apiKey) invalid")),
        ])
        let capture = LogCapture()
        let context = OperationContext(logger: capture.logger(level: .trace))
        let provider = try Fixture.provider(transport)
        var descriptions: [String] = []

        let first = try await provider.provision(
            ProvisioningRequest(card: CardRef(id: "PI1"), wallet: .applePay, input: .issuerSDK(output: nil)),
            context: context)
        descriptions.append(first.description)
        descriptions.append(String(describing: first))
        descriptions.append(String(reflecting: first))
        let request = ProvisioningRequest(
            card: CardRef(id: "PI1"), wallet: .applePay, input: .issuerSDK(output: SensitiveData(sdkOutput)))
        descriptions.append(request.description)
        let second = try await provider.provision(request, context: context)
        descriptions.append(second.description)
        for _ in 0..<3 {
            do {
                _ = try await provider.provision(request, context: context)
            } catch {
                descriptions.append(String(describing: error))
                descriptions.append(String(reflecting: error))
            }
        }
        let body = Fixture.notification()
        do {
            _ = try provider.verify(
                Fixture.delivery(body, headers: [("HmacSignature", Fixture.sign(body, keyHex: "AB"))]), now: Date())
        } catch {
            descriptions.append(String(describing: error))
        }

        #expect(transport.requestCount == 5)
        #expect(!capture.all.isEmpty)
        let needles = [
            Fixture.apiKey, Fixture.hmacKeyHex, sdkInput.base64EncodedString(), sdkOutput.base64EncodedString(), pan,
            String(sdkOutput.base64EncodedString().prefix(24)), String(sdkInput.base64EncodedString().prefix(24)),
            Fixture.sign(body),
        ]
        #expect(capture.leaks(of: needles).isEmpty)
        let joined = descriptions.joined(separator: "\n")
        for needle in needles { #expect(!joined.contains(needle), "leaked in a description: \(needle.prefix(6))…") }
        #expect(String(describing: provider).contains(Fixture.apiKey) == false)
        #expect(String(reflecting: provider).contains(Fixture.hmacKeyHex) == false)
    }
}
