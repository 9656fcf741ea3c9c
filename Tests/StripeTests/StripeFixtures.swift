@_spi(AdapterSupport) import CardGateway
@_spi(AdapterSupport) import CardGatewayTesting
import Foundation
import HTTPTypes

@_spi(AdapterSupport) @testable import CardGatewayStripe

/// Stripe JSON built from the API reference (docs.stripe.com/api/issuing/cards/object, /issuing/tokens/object,
/// /ephemeral_keys), and helpers to build an adapter over a scripted transport.
enum Fixture {
    static let secretKey = "sk_test_51FixtureKeyDoNotUse0000000000"
    static let webhookSecret = "whsec_fixtureCurrentSecret0001"
    static let previousWebhookSecret = "whsec_fixturePreviousSecret0002"
    static let ephemeralSecret = "ek_test_YWNjdF8xRmdlTjZFRHelWWxwWVo5LEtLWFk0amJ2N0JOa0htU1JzEZkd2RpYkpJdnM_00z2ftxCGG"
    static let baseURL = URL(string: "https://api.stripe.com")!

    static func provider(
        _ transport: ScriptedTransport, configuration: StripeConfiguration? = nil, retry: RetryPolicy? = nil,
        sleeps: SleepRecorder? = nil
    ) throws -> StripeProvider {
        let http: ProviderHTTPClient
        if let retry {
            http = try ProviderHTTPClient.testing(
                kind: .stripe, baseURL: baseURL, transport: transport, retry: retry, sleeps: sleeps)
        } else {
            http = try ProviderHTTPClient.testing(kind: .stripe, baseURL: baseURL, transport: transport, sleeps: sleeps)
        }
        return try StripeProvider(
            configuration: configuration
                ?? StripeConfiguration(
                    secretKey: Secret(secretKey), webhookSecret: Secret(webhookSecret),
                    previousWebhookSecret: Secret(previousWebhookSecret)
                ),
            http: http, environment: "sandbox"
        )
    }

    /// An issuing card; pass JSON fragments to replace fields.
    static func card(
        id: String = "ic_1GWQp6EESaYspYZ9uSEZOcq9", status: String = "active", type: String = "virtual",
        brand: String = "Visa",
        cancellationReason: String = "null", cardholder: String? = nil,
        wallets: String =
            #"{"apple_pay":{"eligible":true,"ineligible_reason":null},"google_pay":{"eligible":true,"ineligible_reason":null},"primary_account_identifier":"V-3020112345678901234567"}"#
    ) -> String {
        let holder =
            cardholder
            ?? #"{"id":"ich_1FixtureHolder","object":"issuing.cardholder","name":"Jenny Rosen","email":"jenny@example.com","phone_number":"+18008675309","status":"active","type":"individual"}"#
        return """
            {"id":"\(id)","object":"issuing.card","brand":"\(brand)","cancellation_reason":\(cancellationReason),"cardholder":\(holder),\
            "created":1586556828,"currency":"usd","exp_month":8,"exp_year":2028,"last4":"4242","livemode":false,"metadata":{},\
            "replacement_for":null,"replacement_reason":null,"shipping":null,"spending_controls":{"allowed_categories":null},\
            "status":"\(status)","type":"\(type)","wallets":\(wallets),"some_future_field":{"nested":[1,2,3]}}
            """
    }

    static func wallets(
        apple: (Bool, String?), google: (Bool, String?), pan: String? = "V-3020112345678901234567"
    ) -> String {
        func one(_ value: (Bool, String?)) -> String {
            #"{"eligible":\#(value.0),"ineligible_reason":\#(value.1.map { "\"\($0)\"" } ?? "null")}"#
        }
        return
            #"{"apple_pay":\#(one(apple)),"google_pay":\#(one(google)),"primary_account_identifier":\#(pan.map { "\"\($0)\"" } ?? "null")}"#
    }

    static func token(
        id: String = "intok_1FixtureToken", card: String = "ic_1GWQp6EESaYspYZ9uSEZOcq9", status: String = "active",
        walletProvider: String? = "apple_pay", network: String = "visa"
    ) -> String {
        """
        {"id":"\(id)","object":"issuing.token","card":"\(card)","created":1700000000,"device_fingerprint":"fp_1",\
        "last4":"9876","livemode":false,"network":"\(network)","network_updated_at":1700000100,"status":"\(status)",\
        "wallet_provider":\(walletProvider.map { "\"\($0)\"" } ?? "null")}
        """
    }

    static func list(_ items: [String], hasMore: Bool = false, url: String = "/v1/issuing/tokens") -> String {
        #"{"object":"list","data":[\#(items.joined(separator: ","))],"has_more":\#(hasMore),"url":"\#(url)"}"#
    }

    /// Stripe's ephemeral key, with deliberately unusual spacing and key order so that any re-serialisation shows.
    static func ephemeralKey(card: String = "ic_1GWQp6EESaYspYZ9uSEZOcq9", secret: String? = ephemeralSecret) -> String
    {
        """
        {
          "id": "ephkey_1G4V6eEEs6YsaMZ2P1diLWdj",
          "object": "ephemeral_key",
          "associated_objects": [ { "id": "\(card)", "type": "issuing.card" } ],
          "created": 1586556828,
          "expires": 1586560428,
          "livemode": false,
          "secret": \(secret.map { "\"\($0)\"" } ?? "null")
        }
        """
    }

    static func error(
        type: String, code: String? = nil, message: String = "Something went wrong.", param: String? = nil,
        declineCode: String? = nil
    ) -> String {
        var fields = [#""type":"\#(type)""#, #""message":"\#(message)""#]
        if let code { fields.append(#""code":"\#(code)""#) }
        if let param { fields.append(#""param":"\#(param)""#) }
        if let declineCode { fields.append(#""decline_code":"\#(declineCode)""#) }
        fields.append(#""doc_url":"https://stripe.com/docs/error-codes""#)
        fields.append(#""request_log_url":"https://dashboard.stripe.com/test/logs/req_BodyLog123?t=1""#)
        return #"{"error":{\#(fields.joined(separator: ","))}}"#
    }

    static let cardPath = "/v1/issuing/cards/ic_1GWQp6EESaYspYZ9uSEZOcq9"
    static let cardRef = CardRef(id: "ic_1GWQp6EESaYspYZ9uSEZOcq9")
}

extension ScriptedReply {
    static func stripe(
        _ status: Int, _ json: String, requestID: String = "req_Fixture1", extra: [String: String] = [:]
    ) -> ScriptedReply {
        var headers = ["Request-Id": requestID]
        headers.merge(extra) { _, new in new }
        return .json(status, json, headers: headers)
    }
}
