import AsyncHTTPClient
import CardGatewaySimulation
import Foundation
import HTTPTypes
import Testing

@Suite("The simulated card network: authorization requests sent under the provider's deadline", .timeLimit(.minutes(1)))
struct SimulatedNetworkTests {
    @Test("an answer within the deadline comes back whole: status, headers and body, with what was sent on the wire")
    func answered() async throws {
        try await withSimulator(EchoSimulator()) { endpoint in
            var headers = HTTPFields()
            headers[HTTPField.Name("x-echo")!] = "signed-by-network"
            headers[.contentType] = "application/json"
            let reply = await SimulatedNetwork.send(
                Data(#"{"amount":1250}"#.utf8), headers: headers, to: endpoint.at("/echo"), deadline: .seconds(10))
            guard case .answered(let status, _, let body) = reply.outcome else {
                Issue.record("expected an answer, got \(reply.outcome)")
                return
            }
            #expect(status == 200)
            let echoed = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            #expect(echoed?["bodyText"] as? String == #"{"amount":1250}"#)
            #expect(echoed?["echoHeader"] as? String == "signed-by-network")
            #expect(echoed?["method"] as? String == "POST")
        }
    }

    @Test("no answer within the deadline is a timeout, and the network stops waiting at the deadline")
    func timedOut() async throws {
        let endpoint = EchoSimulator()
        try await withSimulator(endpoint) { handle in
            // The endpoint holds this request until the test releases it, after the network has given up.
            let reply = await SimulatedNetwork.send(
                Data(#"{"name":"hold"}"#.utf8), headers: [.contentType: "application/json"], to: handle.at("/items"),
                deadline: .milliseconds(150))
            endpoint.gate.release()
            #expect(reply.outcome == .timedOut)
            #expect(reply.elapsed >= .milliseconds(150))
        }
    }

    @Test("a refused connection gets no answer: the provider's fallback follows, as for a timeout")
    func refused() async throws {
        // A port that was just free: nothing listens there. AsyncHTTPClient tries to connect again until the
        // deadline, so the outcome is a failure or a timeout, never an answer.
        let url = try await withSimulator(EchoSimulator()) { $0.at("/echo") }
        let reply = await SimulatedNetwork.send(Data(), headers: [:], to: url, deadline: .milliseconds(300))
        switch reply.outcome {
        case .failed, .timedOut: break
        case .answered(let status, _, _): Issue.record("a refused connection answered \(status)")
        }
    }

    @Test("the control path: a bad order is 400 with the reason; a simulator that does not play authorizations is 404")
    func controlPath() async throws {
        try await withSimulator(EchoSimulator()) { sim in
            try await withClient { client in
                let path = sim.root(SimulatorControlPath.authorizations)
                let bad = try await send(
                    client, .POST, path,
                    body: #"{"url":"http://10.0.0.1/x","card":"c","amount":0,"currency":"usd","merchant":{}}"#)
                #expect(bad.status == 400)
                #expect(bad.text.contains("url must be https://, or http:// on loopback"))
                #expect(bad.text.contains("amount must be a positive number"))
                #expect(bad.text.contains("currency must be ISO 4217"))
                let good = #"{"url":"http://127.0.0.1:9/x","card":"c","amount":5,"currency":"USD","merchant":{}}"#
                let none = try await send(client, .POST, path, body: good)
                #expect(none.status == 404 && none.text.contains("does not play real-time authorization"))
                #expect(try await send(client, .GET, path).status == 405)
            }
        }
    }
}
