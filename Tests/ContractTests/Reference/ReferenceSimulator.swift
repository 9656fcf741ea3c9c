import CardGatewaySimulation
import Crypto
import Foundation
import Hummingbird

/// The reference issuer's simulator: cards under customers, a status table, and an SDK relay.
struct ReferenceSimulator: ProviderSimulator {
    static let apiKey = "ref_key_7f3a9c"
    static let webhookSecret = "ref_whsec_51d0"
    static let customer = "cust-1"
    static let activeCard = "card-active"
    static let issuedCard = "card-issued"
    static let lockedCard = "card-locked"
    static let cancelledCard = "card-cancelled"
    /// An active card the contract suite cancels.
    static let spareCard = "card-spare"
    static let issuedCVV = "321"

    struct StoredCard: Sendable {
        var id: String
        var customer: String
        var status: String
        var type: String
        var last4: String
        var program: String?
        var currency: String?
        var cvv: String

        var json: [String: Any] {
            var object: [String: Any] = [
                "id": id, "customer": customer, "status": status, "type": type, "last4": last4,
            ]
            if let program { object["program"] = program }
            if let currency { object["currency"] = currency }
            return object
        }
    }

    static var seed: [(String, StoredCard)] {
        [
            (
                activeCard,
                StoredCard(
                    id: activeCard, customer: customer, status: "ACTIVE", type: "VIRTUAL", last4: "4242", cvv: "111")
            ),
            (
                issuedCard,
                StoredCard(
                    id: issuedCard, customer: customer, status: "ISSUED", type: "PHYSICAL", last4: "5151",
                    cvv: issuedCVV)
            ),
            (
                lockedCard,
                StoredCard(
                    id: lockedCard, customer: customer, status: "LOCKED", type: "VIRTUAL", last4: "6161", cvv: "222")
            ),
            (
                cancelledCard,
                StoredCard(
                    id: cancelledCard, customer: customer, status: "CANCELLED", type: "VIRTUAL", last4: "7171",
                    cvv: "333")
            ),
            (
                spareCard,
                StoredCard(
                    id: spareCard, customer: customer, status: "ACTIVE", type: "VIRTUAL", last4: "8181", cvv: "444")
            ),
        ]
    }

    let kindName = "reference"
    let basePath = "/api"
    let cards = SimulatorStore<String, StoredCard>(ReferenceSimulator.seed)
    let relayRounds = SimulatorStore<String, Int>()
    let ids = DeterministicIDs(seed: 7)

    func reset() async {
        cards.reset(to: Self.seed)
        relayRounds.reset(to: [])
        ids.reset()
    }

    func faultResponse(status: Int, message: String) -> SimulatedResponse {
        .json(status, ["error": ["code": status == 404 ? "not_found" : "error_\(status)", "message": message]])
    }

    func error(_ status: Int, _ code: String, _ message: String) -> Response {
        SimulatedResponse.json(status, ["error": ["code": code, "message": message]]).hummingbirdResponse
    }

    func authorised(_ request: Request) -> Bool {
        SimulatorHTTP.bearerToken(request.headers[.authorization]) == Self.apiKey
    }

    func registerRoutes(on router: Router<SimulatorContext>) {
        let transitions: [String: Set<String>] = [
            "ACTIVE": ["LOCKED", "CANCELLED"], "LOCKED": ["ACTIVE", "CANCELLED"], "ISSUED": ["CANCELLED"],
        ]
        router.get("/api/cards/:id") { request, context -> Response in
            guard authorised(request) else { return error(401, "unauthorised", "bad key") }
            guard let card = cards.get(context.parameters.get("id") ?? "") else {
                return error(404, "not_found", "no such card")
            }
            return SimulatedResponse.json(200, card.json).hummingbirdResponse
        }
        router.get("/api/customers/:customer/cards") { request, context -> Response in
            guard authorised(request) else { return error(401, "unauthorised", "bad key") }
            let query = Dictionary(
                SimulatorHTTP.queryItems(request.uri.query).map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }
            )
            let statuses = query["status"].map { Set($0.split(separator: ",").map(String.init)) }
            let all = cards.all().filter {
                $0.customer == context.parameters.get("customer") && (statuses?.contains($0.status) ?? true)
            }
            let offset = Int(query["offset"] ?? "0") ?? 0
            let limit = Int(query["limit"] ?? "50") ?? 50
            let page = Array(all.dropFirst(offset).prefix(limit))
            return SimulatedResponse.json(200, ["cards": page.map(\.json), "total": all.count]).hummingbirdResponse
        }
        router.post("/api/customers/:customer/cards") { request, context -> Response in
            guard authorised(request) else { return error(401, "unauthorised", "bad key") }
            guard let body = try? JSONSerialization.jsonObject(with: context.requestBody) as? [String: Any],
                let program = body["program"] as? String, !program.isEmpty, let currency = body["currency"] as? String,
                currency.count == 3
            else { return error(400, "invalid_request", "program and currency are required") }
            let id = ids.next(prefix: "card-", length: 12)
            let card = StoredCard(
                id: id, customer: context.parameters.get("customer") ?? "", status: "ACTIVE",
                type: (body["type"] as? String) ?? "VIRTUAL", last4: String(ids.nextInt(in: 1000...9999)),
                program: program, currency: currency, cvv: "000")
            cards.put(id, card)
            return SimulatedResponse.json(201, card.json).hummingbirdResponse
        }
        router.post("/api/cards/:id/activate") { request, context -> Response in
            guard authorised(request) else { return error(401, "unauthorised", "bad key") }
            let id = context.parameters.get("id") ?? ""
            guard let card = cards.get(id) else { return error(404, "not_found", "no such card") }
            let body = (try? JSONSerialization.jsonObject(with: context.requestBody) as? [String: String]) ?? [:]
            guard card.status == "ISSUED" else {
                return error(422, "invalid_state", "only issued cards can be activated")
            }
            guard body["last4"] == card.last4, body["cvv"] == card.cvv else {
                return error(400, "invalid_request", "activation data does not match")
            }
            let updated = cards.update(id) { $0.status = "ACTIVE" }!
            return SimulatedResponse.json(200, updated.json).hummingbirdResponse
        }
        router.post("/api/cards/:id/status") { request, context -> Response in
            guard authorised(request) else { return error(401, "unauthorised", "bad key") }
            let id = context.parameters.get("id") ?? ""
            guard let card = cards.get(id) else { return error(404, "not_found", "no such card") }
            let target =
                ((try? JSONSerialization.jsonObject(with: context.requestBody) as? [String: String]) ?? [:])["status"]
                ?? ""
            guard transitions[card.status]?.contains(target) == true else {
                return error(409, "invalid_state", "cannot go from \(card.status) to \(target)")
            }
            let updated = cards.update(id) { $0.status = target }!
            return SimulatedResponse.json(200, updated.json).hummingbirdResponse
        }
        router.get("/api/programs") { request, _ -> Response in
            guard authorised(request) else { return error(401, "unauthorised", "bad key") }
            return SimulatedResponse.json(200, [["name": "REF-VIRTUAL-EUR", "allowed": 3]]).hummingbirdResponse
        }
        router.post("/api/cards/:id/provisioning") { request, context -> Response in
            guard authorised(request) else { return error(401, "unauthorised", "bad key") }
            let id = context.parameters.get("id") ?? ""
            guard cards.get(id)?.status == "ACTIVE" else {
                return error(422, "invalid_state", "only active cards can be provisioned")
            }
            let body = (try? JSONSerialization.jsonObject(with: context.requestBody) as? [String: String]) ?? [:]
            let round = relayRounds.get(id) ?? 0
            if let output = body["sdkOutput"] {
                guard round > 0 else { return error(422, "invalid_request", "start the exchange first") }
                guard Data(base64Encoded: output) != nil else {
                    return error(422, "invalid_request", "sdkOutput is not Base64")
                }
            }
            relayRounds.put(id, round + 1)
            let input = Data(SHA256.hash(data: Data("\(id)-\(round)".utf8)))
            return SimulatedResponse.json(200, ["sdkInput": input.base64EncodedString()]).hummingbirdResponse
        }
    }

    /// A status event as the reference issuer would send it.
    static func signedWebhook(
        secret: String = webhookSecret, timestamp: Date, tamper: Bool = false
    ) -> (header: String, body: Data) {
        let body = Data(#"{"card":"card-active","customer":"cust-1","id":"evt_1","status":"LOCKED"}"#.utf8)
        let t = String(Int(timestamp.timeIntervalSince1970))
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(t).".utf8) + body, using: SymmetricKey(data: Data(secret.utf8)))
        let hex = mac.map { String(format: "%02x", $0) }.joined()
        return (
            "t=\(t),v1=\(hex)",
            tamper
                ? Data(String(decoding: body, as: UTF8.self).replacingOccurrences(of: "LOCKED", with: "ACTIVE").utf8)
                : body
        )
    }
}
