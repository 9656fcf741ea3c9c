@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes
import Logging

/// A small adapter for the contract suite's own tests: a made-up issuer with a JSON API, so the suite is
/// proven on an adapter whose every line is known, and broken on purpose to show the suite notices.
struct ReferenceProvider: CardListing, CardIssuance, CardActivation, CardStatusControl, CardPrograms,
    WalletProvisioning, WebhookVerifying
{
    /// Ways to break the adapter on purpose.
    struct Defects: Sendable, OptionSet {
        let rawValue: Int
        /// Logs the API key.
        static let logsSecret = Defects(rawValue: 1)
        /// Maps every error to providerUnavailable.
        static let flattensErrors = Defects(rawValue: 2)
        /// Accepts any webhook signature.
        static let trustsWebhooks = Defects(rawValue: 4)
        /// Sends invalid create requests instead of refusing them.
        static let skipsValidation = Defects(rawValue: 8)
        /// Logs the CVV of an activation.
        static let logsCVV = Defects(rawValue: 16)
    }

    static let kind = ProviderKind("reference")
    static let descriptor = ProviderDescriptor(
        kind: kind,
        capabilities: [
            .cardLookup, .cardListing, .cardIssuance, .cardActivation, .cardLocking, .cardCancellation, .cardPrograms,
            .walletProvisioning, .webhooks,
        ],
        provisioningFlows: [.applePay: .issuerSDKRelay, .googlePay: .issuerSDKRelay]
    )

    static func factory(defects: Defects = []) -> ProviderFactory {
        ProviderFactory(
            kind: kind, descriptor: descriptor,
            environments: ["sandbox": URL(string: "https://reference.invalid/api")!],
            credentials: [CredentialSpec("apiKey"), CredentialSpec("webhookSecret")]
        ) { setup in
            ReferenceProvider(
                http: setup.http, apiKey: try setup.credential("apiKey"),
                webhookSecret: try setup.credential("webhookSecret"), logger: setup.logger, defects: defects)
        }
    }

    let http: ProviderHTTPClient
    let apiKey: Secret
    let webhookSecret: Secret
    let logger: Logger
    let defects: Defects

    var descriptor: ProviderDescriptor { Self.descriptor }

    struct WireCard: Decodable {
        var id: String
        var customer: String
        var status: String
        var type: String
        var last4: String
        var program: String?
        var currency: String?
    }

    func send(
        _ method: HTTPRequest.Method, _ path: String, query: [(name: String, value: String)] = [],
        json: [String: Any]? = nil, context: OperationContext
    ) async throws -> Data {
        var headers: HTTPFields = [.authorization: "Bearer \(apiKey.revealedValue)"]
        var body: Data?
        if let json {
            body = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
            headers[.contentType] = "application/json"
        }
        if defects.contains(.logsSecret) { context.logger.info("calling with key \(apiKey.revealedValue)") }
        context.logger.debug("reference call", metadata: ["path": .string(path)])
        let request = ProviderRequest(method, path, query: query, headers: headers, body: body, operation: "reference")
        let response = try await http.send(request, context: context)
        guard response.isSuccess else { throw mapError(response).answering(request) }
        return response.body
    }

    func mapError(_ response: ProviderResponse) -> CardGatewayError {
        let json = try? JSONValue.parse(response.body)
        let code = json?["error"]?["code"]?.stringValue
        let message = json?["error"]?["message"]?.stringValue ?? "the reference issuer answered \(response.status)"
        if defects.contains(.flattensErrors) {
            return CardGatewayError(.providerUnavailable, message, httpStatus: response.status)
        }
        let mapped: CardGatewayError.Code
        switch (response.status, code) {
        case (_, "invalid_state"): mapped = .invalidCardState
        case (400, _), (422, _): mapped = .invalidRequest
        case (401, _): mapped = .authenticationFailed
        case (403, _): mapped = .permissionDenied
        case (404, _): mapped = .notFound
        case (409, _): mapped = .conflict
        case (429, _): mapped = .rateLimited
        default: mapped = response.status >= 500 ? .providerUnavailable : .invalidResponse
        }
        let rule = HTTPStatusTable.rule(for: response.status)
        return CardGatewayError(
            mapped, message, providerCode: code, httpStatus: response.status, requestID: response.header("Request-Id"),
            isRetryable: rule.isRetryable, mayHaveReachedProvider: rule.mayHaveReachedProvider,
            retryAfter: response.retryAfter
        )
    }

    func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do { return try JSONDecoder().decode(type, from: data) } catch {
            throw CardGatewayError.invalidResponse("the reference issuer's answer could not be read")
        }
    }

    func card(from wire: WireCard) -> Card {
        let status: CardStatus =
            ["ACTIVE": .active, "ISSUED": .inactive, "LOCKED": .locked, "CANCELLED": .cancelled][wire.status]
            ?? .unknown
        return Card(
            ref: CardRef(id: wire.id, customer: wire.customer), status: status, providerStatus: wire.status,
            type: wire.type == "VIRTUAL" ? .virtual : .physical,
            scheme: .visa, lastFour: wire.last4, program: wire.program, currency: wire.currency)
    }

    func card(_ ref: CardRef, context: OperationContext) async throws -> Card {
        card(
            from: try decode(
                WireCard.self, try await send(.get, "/cards/\(URLEncoding.pathSegment(ref.id))", context: context)))
    }

    func listCards(_ query: CardQuery, context: OperationContext) async throws -> CardPage {
        struct Page: Decodable { var cards: [WireCard]; var total: Int }
        if let limit = query.limit, !(1...100).contains(limit) {
            throw CardGatewayError.invalidRequest("limit must be from 1 to 100", field: "limit")
        }
        var items: [(name: String, value: String)] = [("offset", String(query.offset))]
        if let limit = query.limit { items.append(("limit", String(limit))) }
        if !query.statuses.isEmpty {
            items.append(
                (
                    "status",
                    query.statuses.map {
                        $0 == .active ? "ACTIVE" : $0 == .locked ? "LOCKED" : $0 == .inactive ? "ISSUED" : "CANCELLED"
                    }.joined(separator: ",")
                ))
        }
        let page = try decode(
            Page.self,
            try await send(
                .get, "/customers/\(URLEncoding.pathSegment(query.customer ?? ""))/cards", query: items,
                context: context))
        return CardPage(cards: page.cards.map(card(from:)), total: page.total, limit: query.limit, offset: query.offset)
    }

    func createCard(_ request: CreateCardRequest, context: OperationContext) async throws -> Card {
        if !defects.contains(.skipsValidation) {
            var problems = ValidationProblems()
            problems.require(!request.customer.isEmpty, "customer", "is required")
            problems.require(!request.program.isEmpty, "program", "is required")
            problems.require(Money.isCurrencyCode(request.currency), "currency", "must be ISO 4217 alpha-3")
            try problems.throwIfAny()
        }
        let body: [String: Any] = [
            "program": request.program, "currency": request.currency,
            "type": request.type == .virtual ? "VIRTUAL" : "PHYSICAL",
        ]
        return card(
            from: try decode(
                WireCard.self,
                try await send(
                    .post, "/customers/\(URLEncoding.pathSegment(request.customer))/cards", json: body, context: context
                )))
    }

    func activateCard(_ request: ActivateCardRequest, context: OperationContext) async throws -> Card {
        let body = ["last4": request.lastFour, "cvv": request.cvv.revealedValue]
        if defects.contains(.logsCVV) { context.logger.debug("activating with cvv=\(request.cvv.revealedValue)") }
        return card(
            from: try decode(
                WireCard.self,
                try await send(
                    .post, "/cards/\(URLEncoding.pathSegment(request.card.id))/activate", json: body, context: context))
        )
    }

    func changeStatus(_ change: CardStatusRequest, context: OperationContext) async throws -> Card {
        let wire = ["lock": "LOCKED", "unlock": "ACTIVE", "cancel": "CANCELLED"][change.intent.rawValue] ?? "ACTIVE"
        return card(
            from: try decode(
                WireCard.self,
                try await send(
                    .post, "/cards/\(URLEncoding.pathSegment(change.card.id))/status", json: ["status": wire],
                    context: context)))
    }

    func programs(customer: String?, context: OperationContext) async throws -> [CardProgram] {
        struct Program: Decodable { var name: String; var allowed: Int }
        return try decode([Program].self, try await send(.get, "/programs", context: context))
            .map {
                CardProgram(
                    name: $0.name, type: .virtual, scheme: .visa, currencies: ["EUR"], allowableCards: $0.allowed)
            }
    }

    func offer(for card: CardRef, wallet: Wallet, context: OperationContext) async throws -> ProvisioningOffer {
        let current = try await self.card(card, context: context)
        let eligible = current.status == .active
        return ProvisioningOffer(
            card: current.ref, wallet: wallet, eligible: eligible,
            ineligibleReason: eligible ? nil : .cardNotActive(current.providerStatus),
            flow: .issuerSDKRelay, lastFour: current.lastFour, network: current.scheme)
    }

    func provision(_ request: ProvisioningRequest, context: OperationContext) async throws -> ProvisioningResponse {
        guard request.input.kind == .issuerSDK else {
            throw CardGatewayError.invalidRequest("the reference issuer relays its SDK", field: "input")
        }
        let output = request.input.issuerSDKOutput
        let body: [String: Any] = output.map { ["sdkOutput": $0.revealedBytes.base64EncodedString()] } ?? [:]
        struct Answer: Decodable { var sdkInput: String }
        let answer = try decode(
            Answer.self,
            try await send(
                .post, "/cards/\(URLEncoding.pathSegment(request.card.id))/provisioning", json: body, context: context))
        guard let bytes = ByteEncoding.decodeBase64(answer.sdkInput) else {
            throw CardGatewayError.invalidResponse("sdkInput is not Base64")
        }
        return .issuerSDKInput(SensitiveData(bytes))
    }

    func confirm(_ confirmation: ProvisioningConfirmation, context: OperationContext) async throws {}

    func verify(_ delivery: WebhookDelivery, now: Date) throws -> [GatewayEvent] {
        guard let header = delivery.headers[HTTPField.Name("X-Reference-Signature")!] else {
            throw CardGatewayError.signatureInvalid("the signature header is missing")
        }
        let parts = Dictionary(
            header.split(separator: ",").compactMap { pair -> (String, String)? in
                let kv = pair.split(separator: "=", maxSplits: 1)
                return kv.count == 2 ? (String(kv[0]), String(kv[1])) : nil
            }, uniquingKeysWith: { first, _ in first })
        guard let timestamp = parts["t"].flatMap(TimeInterval.init),
            let signature = parts["v1"].flatMap(ByteEncoding.decodeHex)
        else {
            throw CardGatewayError.signatureInvalid("the signature header is malformed")
        }
        if !defects.contains(.trustsWebhooks) {
            let message = Data("\(parts["t"]!).".utf8) + delivery.body
            guard
                MessageAuthentication.verifyHMACSHA256(
                    signature: signature, key: Data(webhookSecret.revealedValue.utf8), message: message)
            else {
                throw CardGatewayError.signatureInvalid("the signature does not match")
            }
            guard abs(now.timeIntervalSince1970 - timestamp) <= 300 else {
                throw CardGatewayError.signatureInvalid("the delivery is older than 300 seconds")
            }
        }
        struct Event: Decodable { var id: String; var card: String; var customer: String; var status: String }
        let event = try decode(Event.self, delivery.body)
        let status: CardStatus = event.status == "LOCKED" ? .locked : event.status == "ACTIVE" ? .active : .unknown
        return [
            GatewayEvent(
                id: event.id, providerKind: Self.kind, occurredAt: Date(timeIntervalSince1970: timestamp),
                providerType: "card.status",
                event: .cardStatusChanged(
                    CardStatusChange(
                        card: CardRef(id: event.card, customer: event.customer), oldStatus: nil, newStatus: status,
                        providerOldStatus: nil, providerNewStatus: event.status)))
        ]
    }
}
