import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOSSL
import ProvisioningServerApp
import SwiftASN1
import Testing
import X509

/// HTTPS with a certificate made at test time (self-signed, for 127.0.0.1), trusted by the client alone.
@Suite("Provisioning server: TLS", .timeLimit(.minutes(5)))
struct ProvisioningServerTLSTests {
    /// A self-signed certificate for 127.0.0.1 and localhost, and its key, written as PEM files in a new folder.
    static func makeCertificate() throws -> (certificate: URL, key: URL, pem: String) {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("provisioning-server test") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(3600), issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                SubjectAlternativeNames([
                    .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])), .dnsName("localhost"),
                ])
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        let pem = try certificate.serializeAsPEM().pemString
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let certificateURL = folder.appendingPathComponent("server.pem")
        let keyURL = folder.appendingPathComponent("server.key")
        try Data(pem.utf8).write(to: certificateURL)
        try Data(key.pemRepresentation.utf8).write(to: keyURL)
        return (certificateURL, keyURL, pem)
    }

    @Test(
        "--tls-certificate and --tls-key serve HTTPS; card data carries Cache-Control: no-store; plain HTTP is not served"
    )
    func servesHTTPS() async throws {
        let files = try Self.makeCertificate()
        defer { try? FileManager.default.removeItem(at: files.certificate.deletingLastPathComponent()) }
        // A short read deadline: the plain-HTTP attempt below is not a TLS handshake and waits for it.
        var configuration = ProvisioningServer.Configuration(
            storedCredentialRoute: .instance("cof"), requestReadTimeout: .seconds(2))
        configuration.tls = try ProvisioningServer.tlsConfiguration(
            certificateChainPEM: files.certificate.path, privateKeyPEM: files.key.path)
        let fixture = try Fixture(configuration: configuration)

        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(files.pem.utf8), format: .pem)])
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.tlsConfiguration = tls
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        let untrusting = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try await fixture.withLiveServer { port in
                let health = try await client.execute(
                    HTTPClientRequest(url: "https://127.0.0.1:\(port)/health"), timeout: .seconds(10))
                #expect(health.status == .ok)
                #expect(String(buffer: try await health.body.collect(upTo: 1024)) == #"{"status":"ok"}"#)

                var cards = HTTPClientRequest(url: "https://127.0.0.1:\(port)/v1/cards/\(Fixture.payloadCard)")
                cards.headers.add(name: "Authorization", value: "Bearer \(Fixture.aliceToken)")
                let card = try await client.execute(cards, timeout: .seconds(10))
                #expect(card.status == .ok)
                #expect(card.headers["Cache-Control"] == ["no-store"])
                #expect(String(buffer: try await card.body.collect(upTo: 64 * 1024)).contains(Fixture.payloadCard))

                // A client that does not trust the certificate does not get through; nor does plain HTTP.
                await #expect(throws: (any Error).self) {
                    _ = try await untrusting.execute(
                        HTTPClientRequest(url: "https://127.0.0.1:\(port)/health"), timeout: .seconds(10))
                }
                let plain = try? await untrusting.execute(
                    HTTPClientRequest(url: "http://127.0.0.1:\(port)/health"), timeout: .seconds(10))
                #expect(plain?.status != .ok, "plain HTTP was served on the TLS port")
            }
        } catch {
            try? await client.shutdown()
            try? await untrusting.shutdown()
            throw error
        }
        try await client.shutdown()
        try await untrusting.shutdown()
    }
}
