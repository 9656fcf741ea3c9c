import CoreMetrics
import Foundation

// Webhooks: a delivery verified for the instance it was sent to.
extension CardGateway {
    /// Verifies a webhook for the named instance (webhooks arrive per provider endpoint, not per card).
    public func verifyWebhook(
        _ delivery: WebhookDelivery, instance name: String, now: Date = Date()
    ) throws -> [GatewayEvent] {
        let instance = try resolve(.instance(name), operation: .webhook)
        guard let verifier = instance.provider as? any WebhookVerifying else {
            throw CardGatewayError(
                .unsupported, "\(name) does not verify webhooks", provider: name, providerKind: instance.kind)
        }
        var outcome = "accepted"
        defer {
            Counter(
                label: GatewayObservability.Names.webhooks,
                dimensions: [
                    (GatewayObservability.Dimensions.kind, instance.kind.name),
                    (GatewayObservability.Dimensions.instance, name),
                    (GatewayObservability.Dimensions.outcome, outcome),
                ],
                factory: observability.metrics
            ).increment()
        }
        do {
            return try verifier.verify(delivery, now: now).map { event in
                var event = event
                event.provider = name
                return event
            }
        } catch let error as CardGatewayError {
            outcome = error.code.rawValue
            throw error.attributed(to: name, kind: instance.kind)
        } catch {
            outcome = CardGatewayError.Code.signatureInvalid.rawValue
            throw CardGatewayError(
                .signatureInvalid, "the \(instance.kind) webhook could not be verified (\(type(of: error)))",
                provider: name, providerKind: instance.kind
            )
        }
    }
}
