import CardGateway
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The handlers of the operations in `openapi.yaml`, behind the generated routing and decoding.
///
/// Each handler reads its typed input, makes the checks the document states but the generated decoding does not
/// (lengths, patterns, Base64), asks the directory before any provider call, and calls the library. Errors are
/// thrown (as ``APIProblem`` or ``CardGatewayError``) and answered as problems by ``RequestScopeMiddleware``.
struct ProvisioningAPI: APIProtocol {
    let server: ProvisioningServer

    var gateway: CardGateway { server.gateway }
    var directory: any CardDirectory { server.directory }

    // MARK: Open routes

    func health(_ input: Operations.Health.Input) async throws -> Operations.Health.Output {
        .ok(.init(body: .json(.init(status: .ok))))
    }

    func openAPIJSON(_ input: Operations.OpenAPIJSON.Input) async throws -> Operations.OpenAPIJSON.Output {
        .ok(.init(body: .json(OpenAPISpec.bundled.document)))
    }

    func openAPIYAML(_ input: Operations.OpenAPIYAML.Input) async throws -> Operations.OpenAPIYAML.Output {
        .ok(.init(body: .yaml(HTTPBody(OpenAPISpec.bundled.yaml))))
    }

    func metrics(_ input: Operations.Metrics.Input) async throws -> Operations.Metrics.Output {
        let text = try server.metricsText()
        try RequestScope.required().verbatimBody.set(contentType: "text/plain; version=0.0.4; charset=utf-8")
        return .ok(.init(body: .plainText(HTTPBody(text))))
    }

    // MARK: Cards

    func listCards(_ input: Operations.ListCards.Input) async throws -> Operations.ListCards.Output {
        let scope = try RequestScope.required()
        let user = try scope.authenticatedUser()
        let owned = try await directory.cards(of: user)
        let context = try scope.operationContext()
        let gateway = self.gateway
        let requestID = scope.requestID
        let cards = await boundedConcurrentMap(owned, limit: server.configuration.cardListConcurrency) {
            card -> Components.Schemas.Card in
            do {
                return WireModel.card(
                    owned: card, card: try await gateway.card(card.ref, via: card.route, context: context))
            } catch {
                // One failing provider must not hide the other cards.
                let provider = (try? gateway.resolve(card.route, operation: .card))?.name
                return WireModel.card(
                    owned: card, provider: provider, error: ProblemRendering(error, requestID: requestID).itemError)
            }
        }
        return .ok(.init(body: .json(.init(cards: cards))))
    }

    func getCard(_ input: Operations.GetCard.Input) async throws -> Operations.GetCard.Output {
        let scope = try RequestScope.required()
        let owned = try await server.ownedCard(input.path.cardId, of: try scope.authenticatedUser())
        let card = try await gateway.card(owned.ref, via: owned.route, context: try scope.operationContext())
        return .ok(.init(body: .json(WireModel.card(owned: owned, card: card))))
    }

    func changeCardStatus(_ input: Operations.ChangeCardStatus.Input) async throws -> Operations.ChangeCardStatus.Output
    {
        let scope = try RequestScope.required()
        let owned = try await server.ownedCard(input.path.cardId, of: try scope.authenticatedUser())
        guard case .json(let body) = input.body else { throw APIProblem.unsupportedMediaType() }
        guard let intent = CardStatusIntent(rawValue: body.intent.rawValue) else {
            throw APIProblem.invalidRequest(
                "The intent is not known.",
                errors: [FieldProblem(field: "intent", message: "must be lock, unlock or cancel")])
        }
        var checks = FieldChecks()
        let comment = checks.text(body.comment, "comment", maxLength: 255)
        if let comment, !Self.isRecordText(comment) {
            checks.refuse(
                "comment", "must have a character that is not white space, and no control or line-break characters")
        }
        // Adyen takes reason other only with a comment; the document asks for one with it whatever the provider.
        if body.reason == .other, body.comment == nil { checks.refuse("comment", "is required with reason other") }
        try checks.finish()
        try requireOffered(intent.operation, for: owned)
        let reason = body.reason.flatMap { CardStatusReason(rawValue: $0.rawValue) }
        let card = try await gateway.changeCardStatus(
            CardStatusRequest(card: owned.ref, intent: intent, reason: reason, comment: comment), via: owned.route,
            context: try scope.operationContext()
        )
        return .ok(.init(body: .json(WireModel.card(owned: owned, card: card))))
    }

    func listWalletTokens(_ input: Operations.ListWalletTokens.Input) async throws -> Operations.ListWalletTokens.Output
    {
        let scope = try RequestScope.required()
        let owned = try await server.ownedCard(input.path.cardId, of: try scope.authenticatedUser())
        try requireOffered(.listWalletTokens, for: owned)
        let tokens = try await gateway.walletTokens(
            of: owned.ref, via: owned.route, context: try scope.operationContext())
        return .ok(.init(body: .json(.init(cardId: owned.id, tokens: WireModel.walletTokens(tokens)))))
    }

    func changeWalletTokenStatus(
        _ input: Operations.ChangeWalletTokenStatus.Input
    ) async throws -> Operations.ChangeWalletTokenStatus.Output {
        let scope = try RequestScope.required()
        let owned = try await server.ownedCard(input.path.cardId, of: try scope.authenticatedUser())
        guard case .json(let body) = input.body else { throw APIProblem.unsupportedMediaType() }
        guard let intent = WalletTokenIntent(rawValue: body.intent.rawValue) else {
            throw APIProblem.invalidRequest(
                "The intent is not known.",
                errors: [FieldProblem(field: "intent", message: "must be suspend, resume or delete")])
        }
        guard OwnedCard.isPathSafe(input.path.tokenId, maxLength: 128) else {
            throw APIProblem.invalidRequest(
                "The token id is not valid.",
                errors: [FieldProblem(field: "tokenId", message: "must match \(OwnedCard.tokenIDPattern)")]
            )
        }
        try requireOffered(.listWalletTokens, for: owned)
        try requireOffered(intent.operation, for: owned)
        let context = try scope.operationContext()
        // The token must be one of this card's, whatever the adapter checks: a user never reaches another card's
        // token by guessing its id.
        var listingContext = context
        listingContext.idempotencyKey = nil
        let tokens = try await gateway.walletTokens(of: owned.ref, via: owned.route, context: listingContext)
        guard tokens.contains(where: { $0.id == input.path.tokenId }) else { throw APIProblem.tokenNotFound }
        let reason = body.reason.flatMap { CardStatusReason(rawValue: $0.rawValue) }
        let token = try await gateway.changeWalletToken(
            WalletTokenRequest(card: owned.ref, token: input.path.tokenId, intent: intent, reason: reason),
            via: owned.route, context: context
        )
        return .ok(.init(body: .json(WireModel.walletToken(token))))
    }

    /// Text for a provider's record, as the document's pattern states it: no C0 control, U+0085, U+2028 or U+2029,
    /// and at least one character that is not white space (JavaScript's `\s`).
    static func isRecordText(_ text: String) -> Bool {
        let forbidden: (Unicode.Scalar) -> Bool = {
            $0.value < 0x20 || $0.value == 0x85 || $0.value == 0x2028 || $0.value == 0x2029
        }
        let space: (Unicode.Scalar) -> Bool = { scalar in
            switch scalar.value {
            case 0x09...0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
                return true
            default: return false
            }
        }
        return !text.unicodeScalars.contains(where: forbidden) && text.unicodeScalars.contains { !space($0) }
    }

    /// Refuses, before anything is sent, an operation the card's provider instance does not offer.
    func requireOffered(_ operation: GatewayOperation, for card: OwnedCard) throws {
        do {
            _ = try gateway.resolve(card.route, operation: operation)
        } catch let error as CardGatewayError where error.code == .unsupported {
            throw APIProblem.notOfferedForCard(operation)
        }
    }

    func provisioningOffer(
        _ input: Operations.ProvisioningOffer.Input
    ) async throws -> Operations.ProvisioningOffer.Output {
        let scope = try RequestScope.required()
        let owned = try await server.ownedCard(input.path.cardId, of: try scope.authenticatedUser())
        let wallet = try WireModel.wallet(input.query.wallet)
        // The headers are checked whether or not a provider is asked, so a malformed one is refused either way.
        let context = try scope.operationContext()
        guard owned.wallets.contains(wallet) else {
            return .ok(.init(body: .json(WireModel.notOffered(cardID: owned.id, requested: input.query.wallet))))
        }
        let offer = try await gateway.provisioningOffer(
            for: owned.ref, wallet: wallet, via: owned.route, context: context)
        return .ok(.init(body: .json(WireModel.offer(cardID: owned.id, requested: input.query.wallet, offer: offer))))
    }

    func provision(_ input: Operations.Provision.Input) async throws -> Operations.Provision.Output {
        let scope = try RequestScope.required()
        let owned = try await server.ownedCard(input.path.cardId, of: try scope.authenticatedUser())
        let wallet = try WireModel.wallet(input.path.wallet)
        try Self.requireOffered(wallet, by: owned)
        let flow = try provisioningFlow(of: owned, wallet: wallet)
        guard case .json(let body) = input.body else { throw APIProblem.unsupportedMediaType() }
        let provisioningInput = try ProvisioningWire.input(from: body, flow: flow, wallet: wallet)
        let device = try ProvisioningWire.device(from: body)
        let context = try scope.operationContext()
        let response = try await gateway.provision(
            ProvisioningRequest(
                card: owned.ref, wallet: wallet, input: provisioningInput, deviceType: device.type,
                appVersion: device.appVersion),
            via: owned.route, context: context
        )
        if let key = response.ephemeralKey {
            // The app's issuer SDK reads the provider's JSON itself: it goes out byte for byte, not re-encoded.
            scope.verbatimBody.set(key.rawJSON.revealedBytes)
        }
        return .ok(.init(body: .json(try ProvisioningWire.response(response))))
    }

    func confirmProvisioning(
        _ input: Operations.ConfirmProvisioning.Input
    ) async throws -> Operations.ConfirmProvisioning.Output {
        let scope = try RequestScope.required()
        let user = try scope.authenticatedUser()
        let owned = try await server.ownedCard(input.path.cardId, of: user)
        let wallet = try WireModel.wallet(input.path.wallet)
        try Self.requireOffered(wallet, by: owned)
        guard case .json(let body) = input.body else { throw APIProblem.unsupportedMediaType() }
        var checks = FieldChecks()
        let reference = checks.text(body.deviceAccountReference, "deviceAccountReference", maxLength: 256)
        let walletID = checks.text(body.walletId, "walletId", maxLength: 256)
        try checks.finish()
        guard let reference else { throw APIProblem.invalidRequest("deviceAccountReference is required.") }
        let confirmation = ProvisioningConfirmation(
            card: owned.ref, wallet: wallet, deviceAccountReference: reference, walletID: walletID)
        try await gateway.confirmProvisioning(confirmation, via: owned.route, context: try scope.operationContext())
        await server.walletExtensionCache.invalidate(userID: user.id)
        return .noContent(.init())
    }

    /// The flow the card's provider instance uses for `wallet`, decided from its descriptor without calling it.
    func provisioningFlow(of card: OwnedCard, wallet: Wallet) throws -> ProvisioningFlow {
        var target = card.route
        if case .key(var key) = target, key.wallet == nil {
            key.wallet = wallet
            target = .key(key)
        }
        let instance = try gateway.resolve(target, operation: .provision)
        guard let flow = instance.descriptor.provisioningFlows[wallet] else {
            throw CardGatewayError(
                .unsupported, "\(instance.name) does not provision cards to \(wallet)", provider: instance.name,
                providerKind: instance.kind)
        }
        return flow
    }

    static func requireOffered(_ wallet: Wallet, by card: OwnedCard) throws {
        guard card.wallets.contains(wallet) else {
            throw APIProblem(
                status: .conflict, type: "cardNotEligible", title: "Card not eligible",
                detail: "The app does not offer this card in \(wallet).", code: .cardNotEligible
            )
        }
    }

    // MARK: Wallet extension

    func walletExtension(_ input: Operations.WalletExtension.Input) async throws -> Operations.WalletExtension.Output {
        let scope = try RequestScope.required()
        let user = try scope.authenticatedUser()
        let bundle = try await server.walletExtensionBundle(
            for: user, refresh: input.query.refresh ?? false, context: try scope.operationContext())
        return .ok(.init(body: .json(bundle)))
    }

    func walletExtensionStatus(
        _ input: Operations.WalletExtensionStatus.Input
    ) async throws -> Operations.WalletExtensionStatus.Output {
        let scope = try RequestScope.required()
        return .ok(.init(body: .json(await server.walletExtensionStatus(for: try scope.authenticatedUser()))))
    }

    // MARK: Stored credentials

    func credentialSession(
        _ input: Operations.CredentialSession.Input
    ) async throws -> Operations.CredentialSession.Output {
        let scope = try RequestScope.required()
        let user = try scope.authenticatedUser()
        let route = try storedCredentialRoute()
        guard case .json(let body) = input.body else { throw APIProblem.unsupportedMediaType() }
        let request = try CredentialWire.sessionRequest(from: body, customer: user.id)
        if let reference = request.intent.reference {
            guard try await directory.credential(reference: reference, of: user) != nil else {
                throw APIProblem.notFound("No stored credential with this reference belongs to the authenticated user.")
            }
        }
        let session = try await gateway.clientSession(request, via: route, context: try scope.operationContext())
        return .ok(
            .init(
                body: .json(
                    .init(
                        token: session.token.revealedValue, securityCodeLength: session.securityCodeLength,
                        expiresAt: session.expires
                    ))))
    }

    func credentialResult(_ input: Operations.CredentialResult.Input) async throws -> Operations.CredentialResult.Output
    {
        let scope = try RequestScope.required()
        let user = try scope.authenticatedUser()
        let route = try storedCredentialRoute()
        guard case .json(let body) = input.body else { throw APIProblem.unsupportedMediaType() }
        var checks = FieldChecks()
        let jwt = checks.text(body.jwt, "jwt", maxLength: 16 * 1024)
        try checks.finish()
        guard let jwt else { throw APIProblem.invalidRequest("jwt is required.") }
        let credential: StoredCredential
        do {
            credential = try await gateway.verifyResult(
                Secret(jwt), customer: user.id, via: route, context: try scope.operationContext())
        } catch let error as CardGatewayError where error.code == .signatureInvalid {
            // The SDK's result JWT, not a webhook: the problem names it as such.
            throw APIProblem(
                status: .badRequest, type: "signatureInvalid", title: "Invalid result token",
                detail:
                    "The result JWT's signature is missing or wrong, or the token is stale or was not issued for this site.",
                code: .signatureInvalid, errors: [FieldProblem(field: "jwt", message: "does not verify")]
            )
        }
        try await directory.recordCredential(credential, for: user)
        return .ok(.init(body: .json(WireModel.storedCredential(credential))))
    }

    func listCredentials(_ input: Operations.ListCredentials.Input) async throws -> Operations.ListCredentials.Output {
        let scope = try RequestScope.required()
        let credentials = try await directory.credentials(of: try scope.authenticatedUser())
        return .ok(.init(body: .json(.init(credentials: credentials.map(WireModel.storedCredential)))))
    }

    /// Where stored-credential operations go; 501 when the server has none configured.
    func storedCredentialRoute() throws -> RouteTarget {
        guard let route = server.configuration.storedCredentialRoute else {
            throw APIProblem.unsupported("This server is not configured for stored credentials.")
        }
        return route
    }

    // MARK: Webhooks

    /// Verifies the delivery over its raw bytes and headers before anything else; 204 when authentic, 401 when its
    /// signature does not authenticate the sender, 400 when an authentic delivery cannot be read, 404 for an
    /// instance that does not take webhooks.
    func webhook(_ input: Operations.Webhook.Input) async throws -> Operations.Webhook.Output {
        let scope = try RequestScope.required()
        guard let instance = gateway.instance(named: input.path.instance),
            instance.descriptor.capabilities.contains(.webhooks)
        else {
            throw APIProblem.notFound("No provider instance of this name takes webhooks.")
        }
        let bytes: Data
        switch input.body {
        case .any(let body):
            bytes = try await Data(collecting: body, upTo: server.configuration.maxWebhookBodyBytes)
        }
        let delivery = WebhookDelivery(headers: scope.request.headerFields, body: bytes)
        let events = try gateway.verifyWebhook(delivery, instance: instance.name, now: server.now())
        for event in events {
            await server.invalidateWalletExtension(for: event)
            await server.onEvent(event)
        }
        return .noContent(.init())
    }
}

extension ProvisioningAPI {
    // MARK: Real-time authorizations

    /// A provider's real-time authorization request: authenticated by the adapter over the raw bytes and headers
    /// (401, no decider asked, when it is not authentic), decided by the gateway within the instance's budget, and
    /// answered with the provider's status, headers and body byte for byte. 404 for an instance that does not
    /// answer real-time authorizations, 400 for an authentic request that cannot be read.
    func authorize(_ input: Operations.Authorize.Input) async throws -> Operations.Authorize.Output {
        let scope = try RequestScope.required()
        guard let instance = gateway.instance(named: input.path.instance),
            instance.descriptor.capabilities.contains(.authorizations)
        else {
            throw APIProblem.notFound("No provider instance of this name answers real-time authorizations.")
        }
        let bytes: Data
        switch input.body {
        case .any(let body):
            bytes = try await Data(collecting: body, upTo: server.configuration.maxWebhookBodyBytes)
        }
        let delivery = WebhookDelivery(headers: scope.request.headerFields, body: bytes)
        // The gateway sets the deadline (the instance's budget) and the ledger's key itself.
        let outcome = try await gateway.respondToAuthorization(
            delivery, instance: instance.name, decider: server.configuration.authorizationDecider,
            now: server.now(), context: OperationContext(logger: scope.logger, requestID: scope.requestID))
        let answer = outcome.answer
        var headers = answer.headers
        // The provider reads the body as JSON (each adapter's answer is); said when the adapter did not say it.
        if headers[.contentType] == nil, !answer.body.isEmpty { headers[.contentType] = "application/json" }
        headers[.contentLength] = nil
        // The generated code sends no body or headers for a status it does not model: both go out verbatim.
        scope.verbatimBody.set(answer.body)
        scope.verbatimBody.set(headers: headers)
        return .undocumented(statusCode: Int(answer.status.code), OpenAPIRuntime.UndocumentedPayload())
    }
}

extension ProvisioningServer {
    /// Drops the cached wallet-extension bundles an event makes stale.
    func invalidateWalletExtension(for event: GatewayEvent) async {
        if let change = event.event.cardStatusChanged {
            await walletExtensionCache.invalidate(cardID: change.card.id, provider: event.provider)
        } else if let tokenEvent = event.event.walletToken {
            await walletExtensionCache.invalidate(cardID: tokenEvent.card.id, provider: event.provider)
        } else if let tokens = event.event.walletTokensChanged {
            await walletExtensionCache.invalidate(cardID: tokens.card.id, provider: event.provider)
        }
    }
}

/// Maps `items` through `transform`, at most `limit` at a time, keeping the order of `items`.
func boundedConcurrentMap<Item: Sendable, Result: Sendable>(
    _ items: [Item], limit: Int, _ transform: @escaping @Sendable (Item) async -> Result
) async -> [Result] {
    await withTaskGroup(of: (Int, Result).self) { group in
        var results = [Result?](repeating: nil, count: items.count)
        var next = 0
        func startNext() {
            let index = next
            next += 1
            group.addTask { (index, await transform(items[index])) }
        }
        while next < min(max(1, limit), items.count) { startNext() }
        while let (index, result) = await group.next() {
            results[index] = result
            if next < items.count { startNext() }
        }
        return results.compactMap { $0 }
    }
}
