import CardGatewaySimulation
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// A stand-in for Adyen's Balance Platform Configuration API v2 (`/bcl/v2`), for the calls card push
/// provisioning uses: payment instruments, the network token activation-data exchange, network tokens, and
/// signed `balancePlatform.networkToken.*` webhooks. Responses follow Adyen's OpenAPI field names and types;
/// errors are Adyen's `RestServiceError`.
///
/// Seed data, keys and the error codes this simulator chooses are listed in `Providers/Adyen/README.md` and in
/// ``Seed`` and ``Credentials``.
public struct AdyenSimulator: ProviderSimulator {
    /// A role an API credential may have.
    public enum Role: String, Sendable, CaseIterable {
        /// Read payment instruments.
        case paymentInstruments
        /// "Bank Issuing PaymentInstrument Network Token Activation Data role": both activation-data endpoints.
        case networkTokenActivationData
        /// Read and patch network tokens.
        case networkTokens
        /// "Bank Issuing PAN Reveal Webservice role": `GET /publicKey` and `POST /paymentInstruments/reveal`.
        case panReveal
        /// "Bank Issuing PIN Reveal Webservice role": `POST /pins/reveal`.
        case pinReveal
        /// "Bank Issuing PIN Change Webservice role": `POST /pins/change`.
        case pinChange
    }

    /// The credentials the simulator accepts.
    public struct Credentials: Sendable {
        /// API keys (`X-API-Key`) and their roles.
        public var apiKeys: [String: Set<Role>]
        /// A web-service user for HTTP Basic auth (the OpenAPI's `BasicAuth`), with every role.
        public var webServiceUser: String
        /// The web-service user's password.
        public var webServicePassword: String
        /// The webhook endpoint's HMAC key in hex, as the Customer Area shows it.
        public var hmacKeyHex: String

        /// Credentials with the given keys and roles.
        public init(
            apiKeys: [String: Set<Role>], webServiceUser: String, webServicePassword: String, hmacKeyHex: String
        ) {
            self.apiKeys = apiKeys
            self.webServiceUser = webServiceUser
            self.webServicePassword = webServicePassword
            self.hmacKeyHex = hmacKeyHex
        }

        /// Has every role.
        public static let apiKey = "AQE1simulator-adyen-api-key-with-every-role-0001"
        /// Has every role except the activation-data role: activation data answers 403 `00_403`.
        public static let apiKeyWithoutActivationRole = "AQE1simulator-adyen-api-key-without-activation-data-role-0002"
        /// The default web-service user (HTTP Basic), with every role.
        public static let webServiceUser = "ws_123456@BalancePlatform.SimulatedBalancePlatform"
        /// The default web-service user's password.
        public static let webServicePassword = "simulator-web-service-password"
        /// 32 bytes in hex.
        public static let hmacKeyHex = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"

        /// The two documented keys, the web-service user and the HMAC key above.
        public static let `default` = Credentials(
            apiKeys: [apiKey: Set(Role.allCases), apiKeyWithoutActivationRole: [.paymentInstruments, .networkTokens]],
            webServiceUser: webServiceUser, webServicePassword: webServicePassword, hmacKeyHex: hmacKeyHex
        )
    }

    /// `"adyen"`.
    public var kindName: String { "adyen" }
    /// `"/bcl/v2"`, as in Adyen's base URLs.
    public var basePath: String { "/bcl/v2" }
    /// The simulation clock (token creation dates, webhook timestamps).
    public var clock: SimulationClock? { simulationClock }
    /// The encrypted session key, the token and the encrypted card data are masked in the journal (PIN blocks and
    /// card numbers are masked by the kit already).
    public var sensitiveBodyFields: Set<String> { ["encryptedKey", "token", "encryptedData"] }
    /// The API key, Basic credentials and webhook signatures are masked in the journal.
    public var sensitiveHeaderNames: Set<String> { ["x-api-key", "authorization", "hmacsignature"] }

    /// The clock creation dates and webhook timestamps are taken from.
    public let simulationClock: SimulationClock
    /// The credentials the simulator accepts.
    public let credentials: Credentials
    /// The relayed authorisation webhook's configuration: the Basic credentials it sends and the fallback
    /// (AdyenSimulatorAuthorizations.swift).
    public let relayedAuthorisation: RelayedAuthorisationSettings
    let state: AdyenSimulatorState
    /// The RSA key pairs, PINs and used tokens of card details and PIN (AdyenSimulatorCardReveal.swift).
    let revealState: AdyenSimulatorRevealState

    /// - Parameters:
    ///   - clock: the simulation clock (default: the real time, settable through the control path).
    ///   - credentials: the keys and HMAC key the simulator accepts; `.default` documents them.
    ///   - relayedAuthorisation: the relayed authorisation webhook's credentials and fallback; `.default` documents
    ///     them.
    public init(
        clock: SimulationClock = SimulationClock(), credentials: Credentials = .default,
        relayedAuthorisation: RelayedAuthorisationSettings = .default
    ) {
        self.simulationClock = clock
        self.credentials = credentials
        self.relayedAuthorisation = relayedAuthorisation
        self.state = AdyenSimulatorState(clock: clock)
        self.revealState = AdyenSimulatorRevealState(clock: clock)
    }

    /// Back to the documented seed: instruments, tokens, exchanges, idempotency keys and generated ids.
    public func reset() async {
        state.reset()
        revealState.reset()
    }

    // MARK: Routes

    /// Registers `POST /paymentInstruments`, `GET`/`PATCH /paymentInstruments/{id}`, `GET /balanceAccounts/{id}/paymentInstruments`,
    /// `GET`/`POST …/networkTokenActivationData`,
    /// `GET …/networkTokens`, `GET`/`PATCH /networkTokens/{networkTokenId}`, and card details and PIN (`GET /publicKey`,
    /// `POST /paymentInstruments/reveal`, `POST /pins/reveal`, `POST /pins/change`), all below `/bcl/v2`.
    public func registerRoutes(on router: Router<SimulatorContext>) {
        let base = basePath
        router.post("\(base)/paymentInstruments") { request, context in
            await self.handleWithBody(request, context) { body in
                try self.postPaymentInstrument(request, context, body: body)
            }
        }
        router.get("\(base)/paymentInstruments/:id") { request, context in
            await self.handle(request, context) { try self.getPaymentInstrument(request, context) }
        }
        router.patch("\(base)/paymentInstruments/:id") { request, context in
            await self.handleWithBody(request, context) { body in
                try self.patchPaymentInstrument(request, context, body: body)
            }
        }
        router.get("\(base)/balanceAccounts/:id/paymentInstruments") { request, context in
            await self.handle(request, context) { try self.listPaymentInstruments(request, context) }
        }
        router.get("\(base)/paymentInstruments/:id/networkTokenActivationData") { request, context in
            await self.handle(request, context) { try self.getActivationData(request, context) }
        }
        router.post("\(base)/paymentInstruments/:id/networkTokenActivationData") { request, context in
            await self.handleWithBody(request, context) { body in
                try self.postActivationData(request, context, body: body)
            }
        }
        router.get("\(base)/paymentInstruments/:id/networkTokens") { request, context in
            await self.handle(request, context) { try self.listNetworkTokens(request, context) }
        }
        router.get("\(base)/networkTokens/:networkTokenId") { request, context in
            await self.handle(request, context) { try self.getNetworkToken(request, context) }
        }
        router.patch("\(base)/networkTokens/:networkTokenId") { request, context in
            await self.handleWithBody(request, context) { body in
                try self.patchNetworkToken(request, context, body: body)
            }
        }
        // Card details and PIN (handlers in AdyenSimulatorCardReveal.swift).
        router.get("\(base)/publicKey") { request, context in
            await self.handleWithBody(request, context) { _ in try self.getPublicKey(request) }
        }
        router.post("\(base)/paymentInstruments/reveal") { request, context in
            await self.handleWithBody(request, context) { body in try self.revealCardDetails(request, body: body) }
        }
        router.post("\(base)/pins/reveal") { request, context in
            await self.handleWithBody(request, context) { body in try self.revealPIN(request, body: body) }
        }
        router.post("\(base)/pins/change") { request, context in
            await self.handleWithBody(request, context) { body in try self.changePIN(request, body: body) }
        }
    }

    /// Adyen's `RestServiceError` for an injected fault, an unknown route or a handler error.
    public func faultResponse(status: Int, message: String) -> SimulatedResponse {
        restError(
            status: status, errorCode: AdyenSimulatorErrors.genericCode(status),
            title: AdyenSimulatorErrors.title(status), detail: message)
    }

    // MARK: Helpers

    /// Checks `X-API-Key` (or Basic auth) and the role; throws Adyen's 401 or 403.
    func authorize(_ request: Request, role: Role) throws {
        let roles: Set<Role>
        if let key = request.headers[HTTPField.Name("X-API-Key")!] {
            guard let found = credentials.apiKeys.first(where: { ConstantTime.equals($0.key.utf8, key.utf8) }) else {
                throw unauthorized()
            }
            roles = found.value
        } else if let authorization = request.headers[.authorization] {
            guard
                SimulatorHTTP.basicCredentialsMatch(
                    authorization, user: credentials.webServiceUser, password: credentials.webServicePassword)
            else {
                throw unauthorized()
            }
            roles = Set(Role.allCases)
        } else {
            throw unauthorized()
        }
        guard roles.contains(role) else {
            throw failure(403, "00_403", "Forbidden", "Not the right permission to access this service.")
        }
    }

    private func unauthorized() -> AdyenSimulatorFailure {
        failure(401, "00_401", "Unauthorized", "Not authorized to access this service.")
    }

}
