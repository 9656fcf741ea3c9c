import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import Foundation

// Card details and PIN (CardDetailsAndPIN.md): the contract every adapter declaring a reveal purpose is held to.
//
// For each purpose the descriptor declares: the descriptor names a flow for it and the adapter conforms to
// `CardReveal`; an offer through the gateway names that flow and asks for exactly `flow.inputs(for:)`; a session
// request missing a required input (or carrying one the flow does not take) is refused before any request; two
// sessions make two provider requests (a session is never replayed); and neither a session's description nor an
// error's carries the values the front end supplied or the material the provider answered.

extension ContractFixtures {
    /// What the card reveal scenarios need (``ContractFixtures/reveal``).
    public struct Reveal: Sendable {
        /// A card of the simulator that offers every declared purpose.
        public var card: CardRef
        /// A card the provider does not know (a session for it must fail without echoing the front end's values);
        /// nil to skip that check.
        public var missing: CardRef?
        /// The session request the front end would make from `offer`: made the way the provider's front-end library
        /// makes it (a nonce, an AES key encrypted with the offered public key…). Called once per session, so each
        /// request may carry fresh values.
        public var request: @Sendable (RevealOffer, SimulatorHandle) async throws -> RevealSessionRequest

        public init(
            card: CardRef, missing: CardRef? = nil,
            request: @escaping @Sendable (RevealOffer, SimulatorHandle) async throws -> RevealSessionRequest
        ) {
            self.card = card
            self.missing = missing
            self.request = request
        }
    }
}

extension ContractRun {
    /// A gateway with the subject's one instance (named like ``makeProvider(timeout:)``'s), routed to by name.
    func makeRevealGateway() throws -> (CardGateway, RouteTarget) {
        var registry = ProviderRegistry()
        registry.register(subject.factory)
        let name = "contract-\(subject.name)"
        let instance = ProviderInstanceConfiguration(
            name: name, kind: subject.factory.kind, environment: nil, baseURL: handle.baseURL,
            credentials: subject.credentials,
            options: subject.options, timeout: ContractRun.requestTimeout, retry: .none
        )
        let gateway = try CardGateway(
            configuration: GatewayConfiguration(providers: [name: instance], routes: []), registry: registry,
            logger: capture.logger(label: "contract.gateway"), credentialStore: subject.credentialStore
        )
        return (gateway, .instance(name))
    }

    /// The values the front end supplied and the provider answered, remembered for the final redaction scenario.
    func revealSecrets(_ request: RevealSessionRequest, _ session: RevealSession? = nil) -> [String] {
        var values = [request.clientNonce, request.encryptedKey, request.encryptedPINBlock, request.pinToken].compactMap
        { $0?.revealedValue }
        if let material = session?.material {
            values += [
                material.ephemeralKeySecret, material.encryptedData, material.encryptedPINBlock, material.pinToken,
                material.clientAccessToken,
                material.secureLink,
            ].compactMap { $0?.revealedValue }
        }
        let secrets = values.filter { $0.count >= 6 }
        derivedNeedles.withLock { $0 += secrets }
        return secrets
    }

    /// `request` without `input`.
    static func removing(_ input: RevealInput, from request: RevealSessionRequest) -> RevealSessionRequest {
        var request = request
        if input == .clientNonce { request.clientNonce = nil }
        if input == .encryptedKey { request.encryptedKey = nil }
        if input == .encryptedPINBlock { request.encryptedPINBlock = nil }
        if input == .pinToken { request.pinToken = nil }
        return request
    }

    /// `request` with `input` set to a value the flow does not take.
    static func adding(_ input: RevealInput, to request: RevealSessionRequest) -> RevealSessionRequest {
        var request = request
        let value = Secret("contract-extra-\(input.rawValue)-value")
        if input == .clientNonce { request.clientNonce = value }
        if input == .encryptedKey { request.encryptedKey = value }
        if input == .encryptedPINBlock { request.encryptedPINBlock = value }
        if input == .pinToken { request.pinToken = value }
        return request
    }

    func runCardReveal(_ provider: any CardProvider, _ scenario: ScenarioRunner) async {
        let declared = RevealPurpose.allCases.filter { descriptor.capabilities.contains($0.capability) }
        await scenario("cardReveal: descriptor", nil) { checks in
            for purpose in RevealPurpose.allCases {
                let capability = descriptor.capabilities.contains(purpose.capability)
                let flow = descriptor.revealFlows[purpose]
                checks.expect(
                    capability == (flow != nil),
                    "\(purpose): capability \(purpose.capability) declared: \(capability), flow declared: \(flow.map(\.rawValue) ?? "none")"
                )
            }
            checks.expect(
                declared.isEmpty || provider is any CardReveal,
                "the descriptor declares \(declared.map(\.rawValue)) but the adapter does not conform to CardReveal")
        }
        guard !declared.isEmpty else { return }
        guard let fixture = subject.fixtures.reveal else {
            for purpose in declared {
                await missing(
                    .capability(purpose.capability), "\(purpose.capability): reveal", "no reveal fixture given",
                    scenario)
            }
            return
        }
        let gateway: CardGateway
        let target: RouteTarget
        do {
            (gateway, target) = try makeRevealGateway()
        } catch {
            await scenario("cardReveal: gateway", nil) { checks in
                checks.fail("the gateway could not be built: \(String(describing: error))")
            }
            return
        }

        for purpose in declared {
            guard let flow = descriptor.revealFlows[purpose] else { continue }
            let prefix = "\(purpose.capability)"

            await scenario("\(prefix): the offer through the gateway names the flow and its inputs", nil) { checks in
                let offer = try await gateway.revealOffer(
                    for: fixture.card, purpose: purpose, via: target, context: context)
                checks.expect(offer.purpose == purpose, "the offer is for \(offer.purpose)")
                checks.expect(offer.flow == flow, "the offer's flow is \(offer.flow), the descriptor says \(flow)")
                checks.expect(
                    offer.requires == flow.inputs(for: purpose),
                    "the offer requires \(offer.requires.map(\.rawValue)), the flow needs \(flow.inputs(for: purpose).map(\.rawValue))"
                )
                checks.expect(
                    offer.provider == "contract-\(subject.name)", "the offer names provider \(offer.provider ?? "nil")")
                checks.expect(offer.card.id == fixture.card.id, "the offer is for card \(offer.card.id)")
                if flow == .encryptedSessionKey {
                    checks.expect(
                        !(offer.publicKey?.value.isEmpty ?? true),
                        "an encrypted session key offer carries no public key")
                }
            }

            await scenario(
                "\(prefix): a request missing an input, or with one the flow does not take, is refused before any request",
                nil
            ) { checks in
                let offer = try await gateway.revealOffer(
                    for: fixture.card, purpose: purpose, via: target, context: context)
                let valid = try await fixture.request(offer, handle)
                _ = revealSecrets(valid)
                let needed = flow.inputs(for: purpose)
                var wrong = needed.map { ("without \($0)", Self.removing($0, from: valid)) }
                if let extra = RevealInput.allCases.first(where: { !needed.contains($0) }) {
                    wrong.append(("with \(extra)", Self.adding(extra, to: valid)))
                }
                wrong.append(
                    (
                        "for an empty card id",
                        {
                            var request = valid; request.card = CardRef(id: ""); return request
                        }()
                    ))
                for (name, request) in wrong {
                    let before = handle.journal.count
                    do {
                        _ = try await gateway.revealSession(request, via: target, context: context)
                        checks.fail("a session request \(name) was accepted")
                    } catch let error as CardGatewayError {
                        record(error)
                        checks.expect(
                            error.code == .invalidRequest,
                            "a session request \(name) failed with \(error.code), not invalidRequest")
                    }
                    checks.expect(handle.journal.count == before, "a session request \(name) reached the provider")
                }
            }

            await scenario("\(prefix): a repeat makes a new session (two sessions, two provider requests)", nil) {
                checks in
                var descriptions: [String] = []
                var secrets: [String] = []
                for round in 1...2 {
                    let offer = try await gateway.revealOffer(
                        for: fixture.card, purpose: purpose, via: target, context: context)
                    let request = try await fixture.request(offer, handle)
                    let before = handle.journal.count
                    let session = try await gateway.revealSession(request, via: target, context: context)
                    checks.expect(handle.journal.count > before, "session \(round) made no provider request")
                    checks.expect(
                        session.purpose == purpose && session.flow == flow,
                        "session \(round) is \(session.purpose) by \(session.flow)")
                    checks.expect(
                        session.provider == "contract-\(subject.name)",
                        "session \(round) names provider \(session.provider ?? "nil")")
                    secrets += revealSecrets(request, session)
                    descriptions += [
                        session.description, String(reflecting: session), session.material.description,
                        request.description, String(reflecting: request),
                    ]
                }
                for secret in secrets where descriptions.contains(where: { $0.contains(secret) }) {
                    checks.fail("a session's or request's description carries a secret value \(mask(secret))")
                }
            }

            if let missingCard = fixture.missing {
                await scenario("\(prefix): a refused session's error carries none of the front end's values", nil) {
                    checks in
                    let offer = try await gateway.revealOffer(
                        for: fixture.card, purpose: purpose, via: target, context: context)
                    var request = try await fixture.request(offer, handle)
                    request.card = missingCard
                    let secrets = revealSecrets(request)
                    do {
                        _ = try await gateway.revealSession(request, via: target, context: context)
                        checks.fail("a session for an unknown card succeeded")
                    } catch let error as CardGatewayError {
                        record(error)
                        let text =
                            [String(describing: error), String(reflecting: error), error.message]
                            + error.fieldErrors.map(\.message)
                        for secret in secrets where text.contains(where: { $0.contains(secret) }) {
                            checks.fail("the error carries a value the front end supplied \(mask(secret))")
                        }
                    }
                }
            }
        }
    }
}
