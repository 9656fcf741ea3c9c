@_spi(AdapterSupport) import CardGateway
@_spi(AdapterSupport) import CardGatewayTesting
import Foundation
import HTTPTypes
import Testing

@_spi(AdapterSupport) @testable import CardGatewayAdyen

/// Provider JSON built from Adyen's docs and OpenAPI examples, and helpers to build the adapter on a scripted
/// transport.
enum Fixture {
    static let baseURL = URL(string: "https://balanceplatform-api-test.adyen.com/bcl/v2")!
    static let apiKey = "AQEyhmfxTest-ApiKey-0123456789abcdef"
    /// A 32-byte HMAC key in hex, as the Customer Area shows it.
    static let hmacKeyHex = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"

    static func provider(
        _ transport: ScriptedTransport, hmacKey: String? = hmacKeyHex, retry: RetryPolicy? = nil,
        sleeps: SleepRecorder? = nil
    ) throws -> AdyenProvider {
        let http: ProviderHTTPClient
        if let retry {
            http = try ProviderHTTPClient.testing(
                instance: "adyen-eu", kind: .adyen, baseURL: baseURL, transport: transport, retry: retry, sleeps: sleeps
            )
        } else {
            http = try ProviderHTTPClient.testing(
                instance: "adyen-eu", kind: .adyen, baseURL: baseURL, transport: transport, sleeps: sleeps)
        }
        return try AdyenProvider(http: http, apiKey: Secret(apiKey), hmacKey: hmacKey.map(Secret.init))
    }

    /// A card payment instrument (OpenAPI `PaymentInstrument` with `card`).
    static func instrument(
        id: String = "PI3227C223222B5BPCMFXD2XG", status: String? = "active", statusReason: String? = nil,
        brand: String = "mc", formFactor: String = "virtual", lastFour: String = "1234",
        month: String = "08", year: String = "2029", cardholderName: String = "Sam Hopper"
    ) -> String {
        var fields: [String] = [
            "\"balanceAccountId\": \"BA32272223222B59CZ3T52DKZ\"",
            "\"description\": \"S. Hopper's Mastercard\"",
            "\"id\": \"\(id)\"",
            "\"issuingCountryCode\": \"NL\"",
            "\"paymentInstrumentGroupId\": \"PG3227C223222B5CMD3FJFKGZ\"",
            "\"type\": \"card\"",
            """
            "card": {"brand": "\(brand)", "brandVariant": "mcdebit", "cardholderName": "\(cardholderName)",
              "formFactor": "\(formFactor)", "bin": "555555", "lastFour": "\(lastFour)",
              "expiration": {"month": "\(month)", "year": "\(year)"}, "number": "************\(lastFour)",
              "authentication": {"password": "a-secret"}, "configuration": {"configurationProfileId": "CP123"}}
            """,
        ]
        if let status { fields.append("\"status\": \"\(status)\"") }
        if let statusReason { fields.append("\"statusReason\": \"\(statusReason)\"") }
        return "{" + fields.joined(separator: ",") + "}"
    }

    static let bankAccountInstrument = """
        {"balanceAccountId": "BA3227C223222B5CTBLR8BWJB", "id": "PI32272223222B5CTCGQDNQX5", "issuingCountryCode": "NL",
         "status": "active", "type": "bankAccount",
         "bankAccount": {"type": "iban", "iban": "NL20ADYB2017000035"}}
        """

    static func token(
        id: String = "NWTK00000000000000000000000001", instrument: String = "PI3227C223222B5BPCMFXD2XG",
        status: String = "active", type: String = "applePay", requestor: String? = nil,
        brandVariant: String = "mc_prepaid_mrw"
    ) -> String {
        let requestorJSON =
            requestor.map { ", \"tokenRequestor\": {\"id\": \"50110030273\", \"name\": \"\($0)\"}" } ?? ""
        return """
            {"id": "\(id)", "paymentInstrumentId": "\(instrument)", "status": "\(status)", "type": "\(type)",
             "brandVariant": "\(brandVariant)", "creationDate": "2021-01-01T01:00:00+01:00", "tokenLastFour": "0001",
             "device": {"formFactor": "mobile_phone", "osName": "ios"}\(requestorJSON)}
            """
    }

    static func tokenList(_ tokens: [String]) -> String { "{\"networkTokens\": [\(tokens.joined(separator: ","))]}" }

    static func restError(
        status: Int, errorCode: String, title: String = "Error", detail: String = "Something failed.",
        requestId: String? = nil, invalidFields: String? = nil,
        type: String = "https://docs.adyen.com/errors/general/bad-request"
    ) -> String {
        var fields = [
            "\"type\": \"\(type)\"", "\"title\": \"\(title)\"", "\"status\": \(status)", "\"detail\": \"\(detail)\"",
            "\"errorCode\": \"\(errorCode)\"",
        ]
        if let requestId { fields.append("\"requestId\": \"\(requestId)\"") }
        if let invalidFields { fields.append("\"invalidFields\": \(invalidFields)") }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A network token webhook (OpenAPI `NetworkTokenNotificationRequest`).
    static func notification(
        type: String = "balancePlatform.networkToken.created", tokenID: String = "NWTK00000000000000000000000001",
        status: String = "active", decision: String = "approved", tokenType: String = "wallet",
        walletType: String? = "applePay",
        requestor: String? = "Apple Pay", timestamp: String = "2025-03-19T10:15:30+01:00"
    ) -> Data {
        let walletJSON =
            walletType.map {
                ", \"wallet\": {\"type\": \"\($0)\", \"provisioningMethod\": \"push\", \"deviceScore\": \"4\", \"accountScore\": \"5\"}"
            } ?? ""
        let requestorJSON =
            requestor.map { ", \"tokenRequestor\": {\"id\": \"40010030273\", \"name\": \"\($0)\"}" } ?? ""
        return Data(
            """
            {"data": {"balancePlatform": "YOUR_BALANCE_PLATFORM", "decision": "\(decision)", "id": "\(tokenID)",
              "paymentInstrumentId": "PI3227C223222B5BPCMFXD2XG", "status": "\(status)", "tokenLastFour": "9876",
              "type": "\(tokenType)", "authenticationApplied": false\(walletJSON)\(requestorJSON)},
             "environment": "test", "timestamp": "\(timestamp)", "type": "\(type)"}
            """.utf8)
    }

    static func sign(_ body: Data, keyHex: String = hmacKeyHex) -> String {
        MessageAuthentication.hmacSHA256(key: ByteEncoding.decodeHex(keyHex) ?? Data(), message: body)
            .base64EncodedString()
    }

    static func delivery(_ body: Data, headers: [(String, String)]) -> WebhookDelivery {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        fields[.contentType] = "application/json"
        return WebhookDelivery(headers: fields, body: body)
    }
}
