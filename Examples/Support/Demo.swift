import CardGateway
import CardGatewaySimulation
import Foundation
import Logging

/// The main job: every capability of every provider, through the router, against the embedded simulators.
///
/// No credentials and no network beyond loopback: the rooms' simulators listen on ephemeral 127.0.0.1 ports for
/// the duration of the run. A step that fails is reported and the run goes on; the report says whether all passed.
public enum Demo: Sendable {
    /// Runs the demo.
    /// - Parameters:
    ///   - logger: the gateway's logger (it never logs secrets or card data); silent by default.
    ///   - beforeSteps: runs once the simulators listen, before the first step (tests inject faults here).
    ///   - progress: called when a step starts (`nil` result) and when it ends.
    ///   - makeGateway: builds the gateway over the running simulators (tests give it other stores).
    public static func run(
        logger: Logger = OperationContext.noopLogger,
        beforeSteps: @Sendable (RunningSimulators) async throws -> Void = { _ in },
        progress: @escaping @Sendable (_ name: String, _ result: DemoStepResult?) -> Void = { _, _ in },
        makeGateway: @Sendable (RunningSimulators, Logger) throws -> CardGateway = { running, logger in
            try running.gateway(logger: logger)
        }
    ) async throws -> DemoReport {
        let simulators = EmbeddedSimulators()
        return try await simulators.run { running in
            try await beforeSteps(running)
            var recorder = DemoRecorder(progress: progress)
            let gateway: CardGateway
            do {
                gateway = try makeGateway(running, logger)
            } catch {
                await recorder.step("configuration: load and validate", "-") { throw error }
                return recorder.report
            }
            await recorder.step("configuration: load and validate", "-") {
                "\(gateway.instances.count) provider instances, \(gateway.configuration.routes.count) routes"
            }
            await DemoSteps(gateway: gateway, simulators: simulators, running: running).run(&recorder)
            return recorder.report
        }
    }
}

/// The steps: the routing, each room's own, then card reveal, authorizations and webhooks across the rooms.
extension DemoSteps {
    func run(_ recorder: inout DemoRecorder) async {
        await routing(&recorder)
        for room in simulators.rooms {
            await room.demo(self, &recorder)
        }
        await cardReveal(&recorder)
        await authorizations(&recorder)
        await webhooks(&recorder)
    }

    /// The route a key takes and why: each room's ``ExampleRoom/demoRoutes``.
    func routing(_ recorder: inout DemoRecorder) async {
        let keys = simulators.rooms.flatMap { room in type(of: room).demoRoutes.map { ($0, type(of: room).instance) } }
        for (key, expected) in keys {
            await recorder.step(
                "routing: \(key.operation?.rawValue ?? "any") by \(key.issuer.map { "issuer \($0)" } ?? key.program.map { "program \($0)" } ?? "-")",
                expected
            ) {
                let explanation = gateway.explain(key)
                guard let match = explanation.match else { throw DemoExpectationFailure(message: "no route matched") }
                try expect(match.instance == expected, "routed to \(match.instance), expected \(expected)")
                return "routes[\(match.routeIndex)] matched; \(match.routeIndex) earlier route(s) skipped"
            }
        }
    }

    // MARK: Webhooks

    func webhooks(_ recorder: inout DemoRecorder) async {
        for room in simulators.rooms {
            let name = type(of: room).instance
            let delivery: WebhookDelivery?
            do {
                delivery = try simulators.sampleWebhook(instance: name)
            } catch {
                await recorder.step("webhook: verify a signed delivery", name) { throw error }
                continue
            }
            guard let delivery else {
                recorder.skip("webhook: verify a signed delivery", name, because: type(of: room).noWebhookReason)
                continue
            }
            await recorder.step("webhook: verify a signed delivery", name) {
                let events = try gateway.verifyWebhook(delivery, instance: name)
                try expect(!events.isEmpty, "no events")
                var tampered = delivery
                tampered.body.append(contentsOf: Array(" ".utf8))
                do {
                    _ = try gateway.verifyWebhook(tampered, instance: name)
                    throw DemoExpectationFailure(message: "a tampered body was accepted")
                } catch let error as CardGatewayError where error.code == .signatureInvalid {}
                return events.map { describe($0) }.joined(separator: "; ") + "; a tampered copy is refused"
            }
        }
    }
}
