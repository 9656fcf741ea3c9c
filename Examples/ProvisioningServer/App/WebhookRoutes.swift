import CardGateway
import Foundation
import Hummingbird

extension ProvisioningServer {
    /// `POST /webhooks/{instance}`: verifies the delivery over its raw bytes and headers before anything else;
    /// 204 when authentic, 400 when not, 404 for an instance that does not take webhooks.
    func webhook(_ scope: RequestScope) async throws -> Response {
        guard let name = scope.parameters.get("instance"), let instance = gateway.instance(named: name),
            instance.descriptor.capabilities.contains(.webhooks)
        else {
            throw APIProblem.notFound("No provider instance of this name takes webhooks.")
        }
        let delivery = WebhookDelivery(headers: scope.request.headers, body: try await scope.rawBody())
        let events = try gateway.verifyWebhook(delivery, instance: instance.name, now: now())
        for event in events {
            await invalidateWalletExtension(for: event)
            await onEvent(event)
        }
        return JSONOutput.noContent()
    }

    /// Drops the cached wallet-extension bundles an event makes stale.
    func invalidateWalletExtension(for event: GatewayEvent) async {
        switch event.event {
        case .cardStatusChanged(let change):
            await walletExtensionCache.invalidate(cardID: change.card.id, provider: event.provider)
        case .walletTokenCreated(let tokenEvent), .walletTokenUpdated(let tokenEvent):
            await walletExtensionCache.invalidate(cardID: tokenEvent.card.id, provider: event.provider)
        case .credentialStored:
            break
        }
    }
}
