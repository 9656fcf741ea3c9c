import BridgeSimulator
import CardGatewaySimulation
import Crypto
import Foundation
import Testing
import _CryptoExtras

/// The simulator signs webhooks exactly as Bridge publishes, checked without the adapter: Bridge's verification
/// procedure (apidocs.bridge.xyz, "Webhook event signature verification": `X-Webhook-Signature: t=<ms>,v0=<Base64>`,
/// an RSA signature with SHA-256 over the SHA-256 digest of `"<t>.<raw body>"`, under the endpoint's public key),
/// written here on its own, first accepts Bridge's published test vector, then the simulator's deliveries.
@Suite("Bridge simulator: webhook signatures as Bridge publishes them", .timeLimit(.minutes(5)))
struct BridgeSimulatorSignatureTests {
    typealias Vector = BridgeWebhookTests.PublishedVector

    /// Bridge's procedure: split the header, decode the `v0` signature strictly, verify it over the digest.
    static func verifies(header: String, body: Data, publicKeyPEM: String) throws -> Bool {
        var timestamp: String?
        var signatures: [Data] = []
        for item in header.split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = String(pair[1]) }
            if pair[0] == "v0", let data = Data(base64Encoded: String(pair[1])) { signatures.append(data) }
        }
        guard let timestamp, Int64(timestamp) != nil, !signatures.isEmpty else { return false }
        var signed = Data("\(timestamp).".utf8)
        signed.append(body)
        let digest = Data(SHA256.hash(data: signed))
        let key = try _RSA.Signing.PublicKey(pemRepresentation: publicKeyPEM)
        return signatures.contains {
            key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: $0), for: digest, padding: .insecurePKCS1v1_5)
        }
    }

    @Test("the procedure accepts Bridge's published vector and refuses it over another body")
    func procedureMatchesThePublishedVector() throws {
        #expect(try Self.verifies(header: Vector.header, body: Vector.body, publicKeyPEM: Vector.publicKey))
        #expect(
            !(try Self.verifies(
                header: Vector.header, body: Data(#"{"message":"Hello World?"}"#.utf8), publicKeyPEM: Vector.publicKey))
        )
    }

    @Test("every delivery the simulator signs passes Bridge's procedure; a forged one and a changed body do not")
    func simulatorDeliveriesPassTheProcedure() throws {
        let simulator = BridgeSimulator(clock: SimulationClock(fixed: BridgeLive.start))
        let key = simulator.webhookPublicKeyPEM
        for account in [BridgeSimulator.Seed.activeVisa, BridgeSimulator.Seed.frozenByCustomer] {
            let delivery = try #require(try simulator.signedCardAccountWebhook(cardAccountID: account))
            let header = try #require(delivery.headers.first { $0.0 == "X-Webhook-Signature" }?.1)
            // `t` is the signing time in milliseconds (Bridge's header), here the simulator clock's.
            #expect(header.hasPrefix("t=\(Int64(BridgeLive.start.timeIntervalSince1970 * 1000)),v0="))
            #expect(try Self.verifies(header: header, body: delivery.body, publicKeyPEM: key))
            var changed = delivery.body
            changed.append(0x20)
            #expect(!(try Self.verifies(header: header, body: changed, publicKeyPEM: key)))
        }
        let forged = try simulator.forgedWebhook(body: Data(#"{"event_id":"x"}"#.utf8))
        let forgedHeader = try #require(forged.headers.first { $0.0 == "X-Webhook-Signature" }?.1)
        #expect(!(try Self.verifies(header: forgedHeader, body: forged.body, publicKeyPEM: key)))
    }
}
