import CardGatewaySimulation
import Foundation
import HTTPTypes
import Hummingbird

extension TrustPaymentsSimulator {
    // MARK: Webservices JSON

    func handleWebservices(authorization: String?, requestReferenceHeader: String?, body: Data) -> SimulatedResponse {
        guard
            SimulatorHTTP.basicCredentialsMatch(
                authorization, user: credentials.webservicesUsername, password: credentials.webservicesPassword)
        else {
            return faultResponse(status: 401, message: "Authorization Required")
        }
        guard let envelope = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            return webservicesEnvelope(
                requestReference: requestReferenceHeader,
                elements: [gateway.errorElement("10205", data: ["invalid json"])])
        }
        let requests = envelope["request"] as? [Any]
        let firstReference = (requests?.first as? [String: Any])?["requestreference"] as? String
        let requestReference = requestReferenceHeader ?? firstReference
        guard envelope["alias"] as? String == credentials.webservicesUsername else {
            return webservicesEnvelope(
                requestReference: requestReference, elements: [gateway.errorElement("30000", data: ["alias"])])
        }
        guard envelope["version"] as? String == "1.00" else {
            return webservicesEnvelope(
                requestReference: requestReference, elements: [gateway.errorElement("30007", data: ["version"])])
        }
        guard let requests, !requests.isEmpty, let objects = requests as? [[String: Any]] else {
            return webservicesEnvelope(
                requestReference: requestReference, elements: [gateway.errorElement("60025", data: ["request"])])
        }
        let elements = objects.flatMap {
            gateway.process(
                $0, allowedSites: Set(credentials.siteReferences), operatorName: credentials.webservicesUsername)
        }
        return webservicesEnvelope(requestReference: requestReference, elements: elements)
    }

    private func webservicesEnvelope(requestReference: String?, elements: [[String: Any]]) -> SimulatedResponse {
        .json(
            200,
            [
                "requestreference": requestReference ?? gateway.gatewayRequestReference(), "version": "1.00",
                "response": elements,
                "secrand": gateway.secrand(),
            ] as [String: Any])
    }

    // MARK: Mobile SDK JWT

    /// `/jwt/`: one code path for the HTTP route and ``sdkPayment(sessionJWT:pan:expiryDate:securityCode:)``.
    func handleJWT(body: Data) async -> SimulatedResponse {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            return webservicesEnvelope(
                requestReference: nil, elements: [gateway.errorElement("10205", data: ["invalid json"])])
        }
        guard let alias = object["alias"] as? String, ConstantTime.equals(alias.utf8, credentials.jwtUsername.utf8)
        else {
            return faultResponse(status: 401, message: "Authorization Required")
        }
        guard object["version"] as? String == "1.00" else {
            return await signedResponse(
                alias: alias, elements: [gateway.errorElement("30007", data: ["version"])], requestJWT: nil)
        }
        guard let token = object["jwt"] as? String,
            let claims = await TrustPaymentsSimulatorJWT.verify(token, secret: credentials.jwtSecret),
            claims["iss"] as? String == alias, let payload = claims["payload"] as? [String: Any]
        else {
            return await signedResponse(
                alias: alias, elements: [gateway.errorElement("30000", data: ["jwt"])], requestJWT: nil)
        }
        // The payment must be made within 15 minutes of the session's iat (Trust Payments' legacy docs; the error
        // code for a late or iat-less token is not documented, so the JWT field error is used).
        let issuedAt = (claims["iat"] as? NSNumber)?.doubleValue
        let age = issuedAt.map { gateway.clock.now().timeIntervalSince1970 - $0 }
        guard let age, age <= Self.sessionLifetime, age >= -60 else {
            return await signedResponse(
                alias: alias, elements: [gateway.errorElement("30000", data: ["jwt"])], requestJWT: nil)
        }
        var fields = payload
        let cardFields = ((object["request"] as? [Any])?.first as? [String: Any]) ?? [:]
        for name in ["pan", "securitycode", "expirydate"] {
            if let value = cardFields[name] { fields[name] = value }
        }
        if fields["requesttypedescriptions"] == nil, let types = cardFields["requesttypedescriptions"] {
            fields["requesttypedescriptions"] = types
        }
        let elements = gateway.process(fields, allowedSites: Set(credentials.siteReferences), operatorName: alias)

        // The request JWT, re-signed, now naming the last successful transaction as parent.
        var nextPayload = payload
        if let last = elements.last(where: { $0["errorcode"] as? String == "0" })?["transactionreference"] as? String {
            nextPayload["parenttransactionreference"] = last
        }
        let now = Int(gateway.clock.now().timeIntervalSince1970)
        let resigned = await TrustPaymentsSimulatorJWT.signHS256(
            claims: ["iss": alias, "iat": now, "payload": nextPayload], secret: credentials.jwtSecret)
        return await signedResponse(alias: alias, elements: elements, requestJWT: resigned)
    }

    private func signedResponse(
        alias: String, elements: [[String: Any]], requestJWT: String?
    ) async -> SimulatedResponse {
        var payload: [String: Any] = [
            "requestreference": gateway.gatewayRequestReference(), "version": "1.00", "response": elements,
            "secrand": gateway.secrand(),
        ]
        if let requestJWT { payload["jwt"] = requestJWT }
        var claims: [String: Any] = ["iat": Int(gateway.clock.now().timeIntervalSince1970), "payload": payload]
        if credentials.audienceInResults { claims["aud"] = alias }
        guard let token = await TrustPaymentsSimulatorJWT.signHS256(claims: claims, secret: credentials.jwtSecret)
        else {
            return faultResponse(status: 500, message: "the simulator could not sign its response")
        }
        return .json(200, ["jwt": token])
    }

    /// Plays the mobile SDK in process, for the demo and tests: sends `sessionJWT` and the card fields through
    /// exactly the code `/jwt/` runs and returns the response JWT. An empty `pan` or `expiryDate` is left out (a
    /// reuse session inherits the card from its parent).
    public func sdkPayment(
        sessionJWT: String, pan: String, expiryDate: String, securityCode: String
    ) async throws -> String {
        let claims = TrustPaymentsSimulatorJWT.claims(sessionJWT)
        let alias = claims?["iss"] as? String ?? ""
        var card: [String: Any] = [:]
        if let types = (claims?["payload"] as? [String: Any])?["requesttypedescriptions"] {
            card["requesttypedescriptions"] = types
        }
        if !pan.isEmpty { card["pan"] = pan }
        if !expiryDate.isEmpty { card["expirydate"] = expiryDate }
        if !securityCode.isEmpty { card["securitycode"] = securityCode }
        let body: [String: Any] = [
            "alias": alias, "jwt": sessionJWT, "version": "1.00",
            "versioninfo": "Swift::CardGateway::TrustPaymentsSimulator::SDK",
            "request": [card],
        ]
        let response = await handleJWT(body: (try? JSONSerialization.data(withJSONObject: body)) ?? Data())
        guard response.status == 200,
            let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any],
            let token = object["jwt"] as? String
        else {
            throw SDKPaymentError(
                status: response.status,
                message: response.status == 401
                    ? "the session JWT's iss is not the simulator's JWT user"
                    : "the gateway answered without a response JWT")
        }
        return token
    }
}

/// The gateway's processing of one request element.
extension TrustPaymentsSimulatorGateway {
    // MARK: Processing

    static let supportedRequestTypes: Set<String> = ["ACCOUNTCHECK", "THREEDQUERY", "AUTH"]
    static let supportedAccountTypes: Set<String> = ["ECOM", "MOTO", "RECUR"]

    /// An element for an error that stopped a request before any transaction was made.
    func errorElement(_ code: String, data: [String], requestType: String = "ERROR") -> [String: Any] {
        [
            "errorcode": code, "errormessage": TrustPaymentsSimulatorErrors.message(code), "errordata": data,
            "requesttypedescription": requestType, "transactionstartedtimestamp": timestamp(),
        ]
    }

    /// `transactionstartedtimestamp`: UTC, a space between date and time, no zone (`2024-01-31 23:59:59`).
    func timestamp() -> String {
        SimulatorDateTime.formatWithoutZone(clock.now(), separator: " ")
    }

    /// Processes one request (one element of the envelope's `request`, or a JWT payload with the SDK's card
    /// fields) and returns its response elements: one per request type, stopping at the first that fails.
    func process(_ request: [String: Any], allowedSites: Set<String>, operatorName: String) -> [[String: Any]] {
        // Request types.
        var types: [String] = []
        if let list = request["requesttypedescriptions"] as? [Any] {
            types = list.compactMap { $0 as? String }
            if types.count != list.count { types = [] }
        } else if let single = request["requesttypedescription"] as? String {
            types = [single]
        }
        guard !types.isEmpty else { return [errorElement("60018", data: ["None"])] }
        if let unsupported = types.first(where: { !Self.supportedRequestTypes.contains($0) }) {
            return [errorElement("60018", data: [unsupported])]
        }

        // Site.
        var invalid: [String] = []
        func text(_ name: String) -> String? {
            guard let value = request[name] else { return nil }
            guard let string = value as? String else {
                invalid.append(name)
                return nil
            }
            return string.isEmpty ? nil : string
        }
        guard let site = text("sitereference") else { return [errorElement("30000", data: ["sitereference"])] }
        guard knownSites.contains(site) else { return [errorElement("30001", data: ["sitereference"])] }
        guard allowedSites.contains(site) else { return [errorElement("30006", data: ["sitereference"])] }

        // Fields.
        let accountType = text("accounttypedescription")
        if accountType.map({ !Self.supportedAccountTypes.contains($0) }) ?? true {
            invalid.append("accounttypedescription")
        }
        let currency = text("currencyiso3a")
        if currency.map({ $0.utf8.count != 3 || !$0.allSatisfy { $0.isASCII && $0.isUppercase } }) ?? true {
            invalid.append("currencyiso3a")
        }
        var amount: Int64?
        if let base = text("baseamount") {
            if base.allSatisfy(\.isASCII), base.allSatisfy(\.isNumber), let value = Int64(base) {
                amount = value
            } else {
                invalid.append("baseamount")
            }
        } else if let main = text("mainamount") {
            let parts = main.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count == 2, parts[1].count == 2, let units = Int64(parts[0]), let cents = Int64(parts[1]),
                units >= 0
            {
                amount = units * 100 + cents
            } else {
                invalid.append("mainamount")
            }
        } else {
            invalid.append("baseamount")
        }
        if let amount, amount == 0, types.contains(where: { $0 != "ACCOUNTCHECK" }) { invalid.append("baseamount") }
        let credentialsOnFile = text("credentialsonfile")
        if let credentialsOnFile, !["0", "1", "2"].contains(credentialsOnFile) { invalid.append("credentialsonfile") }
        let initiationReason = text("initiationreason")
        if let initiationReason, !["A", "C", "D"].contains(initiationReason) || credentialsOnFile != "2" {
            invalid.append("initiationreason")
        }
        let parentReference = text("parenttransactionreference")
        let orderReference = text("orderreference")
        let securityCode = text("securitycode")
        if let securityCode, !(securityCode.allSatisfy { $0.isASCII && $0.isNumber }) { invalid.append("securitycode") }

        // The card: from the parent, or from the request.
        var card: TrustPaymentsSimulatorCard?
        var parentHoldsStoredCard = false
        let pan = text("pan")
        // Without a parent the card must be in the request (credentialsonfile 2 without a parent is 20004 below).
        if pan == nil, parentReference == nil, credentialsOnFile != "2" {
            invalid.append("pan")
        }
        if let pan {
            let digits = pan.filter { $0 != " " }
            let type = TrustPaymentsSimulatorCard.paymentType(forPAN: digits)
            if !(12...19).contains(digits.count) || !digits.allSatisfy({ $0.isASCII && $0.isNumber })
                || !TrustPaymentsSimulatorCard.luhnValid(digits) || type == nil
            {
                invalid.append("pan")
            } else if let given = text("paymenttypedescription"), given.uppercased() != type {
                invalid.append("paymenttypedescription")
            }
            var expiry = text("expirydate")
            if expiry == nil, let month = text("expirymonth"), let year = text("expiryyear") {
                expiry = "\(month)/\(year)"
            }
            if let expiry, isValidExpiry(expiry) {
                if let type, !invalid.contains("pan") {
                    card = TrustPaymentsSimulatorCard(
                        pan: digits, expiryDate: normalisedExpiry(expiry), paymentType: type)
                }
            } else {
                invalid.append("expirydate")
            }
            if let securityCode, let type, securityCode.count != (type == "AMEX" ? 4 : 3) {
                invalid.append("securitycode")
            }
            if securityCode == nil, accountType == "ECOM", credentialsOnFile != "2" { invalid.append("securitycode") }
        }
        if !invalid.isEmpty {
            var seen = Set<String>()
            return [errorElement("30000", data: invalid.filter { seen.insert($0).inserted })]
        }

        if credentialsOnFile == "2" && parentReference == nil {
            return [errorElement("20004", data: ["parenttransactionreference"], requestType: types[0])]
        }
        if let parentReference {
            guard let parent = transactions.get(parentReference), parent.siteReference == site else {
                return [errorElement("20004", data: ["parenttransactionreference"], requestType: types[0])]
            }
            if credentialsOnFile == "2" {
                let usable = parent.errorCode == "0" && parent.settleStatus != "3" && parent.holdsStoredCard
                let rightType = initiationReason != "A" || parent.requestType == "AUTH"
                guard usable, rightType else {
                    return [errorElement("20033", data: ["parenttransactionreference"], requestType: types[0])]
                }
            }
            guard let parentCard = parent.card else {
                return [errorElement("20033", data: ["parenttransactionreference"], requestType: types[0])]
            }
            if card == nil {
                card = parentCard
                if let securityCode, securityCode.count != parentCard.securityCodeLength {
                    return [errorElement("30000", data: ["securitycode"])]
                }
            }
            parentHoldsStoredCard = parent.holdsStoredCard
        }
        guard let card, let amount, let currency, let accountType else {
            return [errorElement("60025", data: ["request"])]
        }

        // The chain: each type is a transaction; a later one's parent is the earlier one.
        var elements: [[String: Any]] = []
        var previous = parentReference
        let behaviour = TrustPaymentsSimulatorCardBehaviour.forCard(card.pan)
        for type in types {
            var errorCode: String
            var settleStatus: String?
            switch type {
            case "THREEDQUERY":
                errorCode = behaviour.threeDQueryErrorCode
                settleStatus = nil
            default:
                errorCode = behaviour.errorCode
                settleStatus = errorCode == "0" ? behaviour.settleStatus : "3"
                if type == "AUTH", errorCode == "0", let forced = TrustPaymentsSimulatorCardBehaviour.forAmount(amount)
                {
                    errorCode = forced.errorCode
                    settleStatus = forced.settleStatus
                }
            }
            let succeeded = errorCode == "0" && settleStatus != "3"
            let stored = succeeded && (credentialsOnFile == "1" || (credentialsOnFile == "2" && parentHoldsStoredCard))
            let reference = nextReference()
            transactions.put(
                reference,
                TrustPaymentsSimulatorTransaction(
                    reference: reference, siteReference: site, requestType: type, errorCode: errorCode,
                    settleStatus: settleStatus,
                    credentialsOnFile: credentialsOnFile, holdsStoredCard: stored, card: card,
                    baseAmount: String(amount), currency: currency,
                    parent: previous, initiationReason: initiationReason
                ))

            var element: [String: Any] = [
                "transactionreference": reference, "requesttypedescription": type, "errorcode": errorCode,
                "errormessage": TrustPaymentsSimulatorErrors.message(errorCode), "errordata": [String](),
                "maskedpan": card.maskedPAN,
                "paymenttypedescription": card.paymentType, "accounttypedescription": accountType,
                "baseamount": String(amount),
                "currencyiso3a": currency, "sitereference": site, "transactionstartedtimestamp": timestamp(),
                "livestatus": "0",
                "operatorname": operatorName, "dccenabled": "0", "issuercountryiso2a": "GB",
                "merchantname": "CardGateway simulated merchant",
            ]
            if let settleStatus { element["settlestatus"] = settleStatus }
            if let previous { element["parenttransactionreference"] = previous }
            if let credentialsOnFile { element["credentialsonfile"] = credentialsOnFile }
            if let initiationReason { element["initiationreason"] = initiationReason }
            if let orderReference { element["orderreference"] = orderReference }
            if let requestReference = request["requestreference"] as? String {
                element["requestreference"] = requestReference
            }
            switch type {
            case "THREEDQUERY":
                element["enrolled"] = "Y"
                element["status"] = errorCode == "0" ? "Y" : "N"
                element["threedversion"] = "2.2.0"
                if errorCode == "0" { element["eci"] = "05" }
            default:
                element["acquirerresponsecode"] = errorCode == "0" ? "00" : "05"
                element["authcode"] = errorCode == "0" ? "TEST\(reference.suffix(2))" : "DECLINED"
                if securityCode != nil { element["securityresponsesecuritycode"] = "2" }
            }
            elements.append(element)
            if errorCode != "0" { break }
            previous = reference
        }
        return elements
    }

    private func isValidExpiry(_ text: String) -> Bool {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let month = Int(parts[0]), let rawYear = Int(parts[1]), (1...12).contains(month),
            parts[1].count == 4 || parts[1].count == 2
        else { return false }
        let year = rawYear < 100 ? 2000 + rawYear : rawYear
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let now = calendar.dateComponents([.year, .month], from: clock.now())
        guard let currentYear = now.year, let currentMonth = now.month else { return false }
        return year > currentYear || (year == currentYear && month >= currentMonth)
    }

    private func normalisedExpiry(_ text: String) -> String {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let month = Int(parts[0]), let year = Int(parts[1]) else { return text }
        return String(format: "%02d/%04d", month, year < 100 ? 2000 + year : year)
    }
}
