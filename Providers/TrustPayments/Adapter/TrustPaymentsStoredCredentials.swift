@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes
import Logging

/// The stored-credentials capability: client sessions for the mobile SDK, result verification and
/// merchant-initiated charges.
extension TrustPaymentsProvider {
    // MARK: Client sessions

    /// Mints the JWT for the Trust Payments mobile SDK.
    ///
    /// - Store (`.store(consent:)`): `requesttypedescriptions` `ACCOUNTCHECK`, then `THREEDQUERY` when
    ///   `authenticate`, then `AUTH` when `authorise`; `credentialsonfile` 1. Refused unless the cardholder's
    ///   consent is recorded. An account check alone (neither `authenticate` nor `authorise`) may be for 0.
    /// - Reuse (`.reuse(reference:)`): `THREEDQUERY`, `AUTH` with `parenttransactionreference` and
    ///   `credentialsonfile` 2. The reference must be in the credential store; the session says how many digits
    ///   of security code the app collects (4 for American Express, 3 otherwise).
    ///
    /// Amount, currency, site and everything else the shopper must not change are in the signed payload.
    public func clientSession(_ request: ClientSessionRequest, context: OperationContext) async throws -> ClientSession
    {
        switch request.paymentMethod {
        case .card: break
        case .applePay:
            throw unsupported(
                "Trust Payments documents that Apple Pay does not support tokenization by transaction reference, so no stored-credential session is made for paymentMethod applePay"
            )
        case .googlePay:
            throw unsupported(
                "Trust Payments does not document stored-credential tokenization for Google Pay, so no stored-credential session is made for paymentMethod googlePay"
            )
        default:
            throw unsupported(
                "this adapter makes no stored-credential session for paymentMethod \(request.paymentMethod)")
        }

        var problems = ValidationProblems()
        let zeroValueCheck: Bool
        if request.intent.kind == .store {
            zeroValueCheck = !request.authorise && !request.authenticate
            if let consent = request.intent.consent {
                problems.require(
                    !consent.evidence.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "consent.evidence",
                    "must say how the cardholder agreed to keep the card on file"
                )
                problems.require(
                    consent.recordedAt <= setup.now().addingTimeInterval(TrustPaymentsAPI.allowedFutureSkew),
                    "consent.recordedAt",
                    "must not be in the future"
                )
            } else {
                problems.add(
                    "consent",
                    "the cardholder's consent to store the card must be recorded (Visa and Mastercard require it before credentialsonfile 1)"
                )
            }
        } else if let reference = request.intent.reference {
            zeroValueCheck = false
            validateReference(reference, field: "intent.reference", into: &problems)
        } else {
            throw unsupported("this adapter makes no client session for the intent \(request.intent.kind)")
        }
        validateAmount(request.amount, allowZero: zeroValueCheck, into: &problems)
        validateOrderReference(request.orderReference, into: &problems)
        try problems.throwIfAny()

        var requestTypes: [String]
        var credentialsOnFile: String
        var parent: String?
        var securityCodeLength: Int?
        if let reference = request.intent.reference {
            let stored = try await storedCredential(reference)
            requestTypes = [TrustPaymentsAPI.RequestType.threeDQuery, TrustPaymentsAPI.RequestType.auth]
            credentialsOnFile = TrustPaymentsAPI.credentialsOnFileReuse
            parent = reference
            securityCodeLength = Self.isAmex(stored) ? 4 : 3
        } else {
            requestTypes = [TrustPaymentsAPI.RequestType.accountCheck]
            if request.authenticate { requestTypes.append(TrustPaymentsAPI.RequestType.threeDQuery) }
            if request.authorise { requestTypes.append(TrustPaymentsAPI.RequestType.auth) }
            credentialsOnFile = TrustPaymentsAPI.credentialsOnFileStore
        }

        let issuedAt = Int64(setup.now().timeIntervalSince1970.rounded(.down))
        let claims = SessionClaims(
            iss: jwtUsername.revealedValue, iat: issuedAt,
            payload: SessionPayload(
                accounttypedescription: TrustPaymentsAPI.accountTypeECOM, sitereference: siteReference,
                currencyiso3a: request.amount.currency, baseamount: String(request.amount.minorUnits),
                requesttypedescriptions: requestTypes, credentialsonfile: credentialsOnFile,
                parenttransactionreference: parent, orderreference: request.orderReference
            )
        )
        let token: String
        do {
            token = try await HS256JWT.sign(claims, secret: jwtSecret)
        } catch {
            // Not expected (the claims are strings and HMAC takes any key); the error is not passed on, as it might
            // quote what was being signed.
            throw CardGatewayError(
                .invalidConfiguration, "the client session JWT could not be signed with the configured JWT secret",
                provider: setup.instance, providerKind: .trustpayments
            )
        }
        context.logger.debug(
            "trustpayments client session minted",
            metadata: [
                "provider": .string(setup.instance), "requesttypes": .string(requestTypes.joined(separator: ",")),
                "credentialsonfile": .string(credentialsOnFile),
            ])
        let issued = Date(timeIntervalSince1970: TimeInterval(issuedAt))
        return ClientSession(
            token: Secret(token), issuedAt: issued,
            expires: issued.addingTimeInterval(TrustPaymentsAPI.sessionLifetime),
            securityCodeLength: securityCodeLength
        )
    }

    /// The stored credential a reuse session or a charge names, from the credential store; refused, with nothing
    /// sent, when the store does not hold it or it belongs to another provider instance.
    func storedCredential(
        _ reference: String, field: String = "intent.reference"
    ) async throws -> StoredCredential {
        guard let stored = try await setup.credentialStore.credential(reference: reference) else {
            throw CardGatewayError(
                .notFound, "no stored credential has this reference in the credential store", provider: setup.instance,
                providerKind: .trustpayments, fieldErrors: [.init(field: field, message: "not in the credential store")]
            )
        }
        if let owner = stored.provider, owner != setup.instance {
            throw CardGatewayError(
                .invalidRequest, "the stored credential belongs to provider instance \(owner), not \(setup.instance)",
                provider: setup.instance, providerKind: .trustpayments,
                fieldErrors: [.init(field: field, message: "belongs to another provider instance")]
            )
        }
        return stored
    }

    // MARK: Result verification

    /// Verifies the response JWT the SDK produced (or the JavaScript library posted as form field `jwt`).
    ///
    /// The HS256 signature is checked in constant time with the JWT secret (any other `alg`, `none` included, is
    /// refused), then `iat` must be no older than `jwtMaxAgeSeconds` nor more than 60 s ahead. Trust Payments'
    /// published responses carry only `iat` and `payload`, so a token without `aud` is accepted; one whose `aud` is
    /// present and names anyone but the JWT username is refused. A JWT this gateway minted itself (a client session:
    /// the app holds it and it is signed with the same secret) never passes as a result: it carries our JWT username
    /// as `iss`, which no response does. Any failure is `signatureInvalid` and no field is read before. Then every element of
    /// `payload.response` is checked: an `errorcode` other than `0`, or `settlestatus` 3 (cancelled), is a
    /// normalised decline or error carrying the provider's code. A success becomes a ``StoredCredential`` whose
    /// reference is the ACCOUNTCHECK's (or else the AUTH's) `transactionreference`, verbatim; it is saved in the
    /// credential store (keeping the customer of an earlier save of the same reference).
    public func verifyResult(_ token: Secret, context: OperationContext) async throws -> StoredCredential {
        let now = setup.now()
        let claims: [String: JSONValue]
        do {
            claims = try await HS256JWT.verify(token.revealedValue, secret: jwtSecret)
        } catch {
            throw signatureInvalid(error.reason)
        }
        if let audience = claims["aud"], !audienceMatches(audience) {
            throw signatureInvalid("the token's aud names someone other than the configured JWT username")
        }
        if claims["iss"]?.stringValue == jwtUsername.revealedValue {
            throw signatureInvalid(
                "the token is a request JWT minted with this site's credentials (a client session), not a Trust Payments response"
            )
        }
        guard let issuedAt = claims["iat"]?.numberValue, issuedAt.isFinite else {
            throw signatureInvalid("the token has no numeric iat")
        }
        let age = now.timeIntervalSince1970 - issuedAt
        if age > jwtMaxAge {
            throw signatureInvalid(
                "the token was issued \(Self.wholeSeconds(age)) s ago, more than the \(Int(jwtMaxAge)) s accepted")
        }
        if -age > TrustPaymentsAPI.allowedFutureSkew {
            throw signatureInvalid("the token's iat is \(Self.wholeSeconds(-age)) s in the future")
        }
        if let expiry = claims["exp"]?.numberValue, now.timeIntervalSince1970 >= expiry {
            throw signatureInvalid("the token has expired")
        }

        // Only now is anything in the payload trusted.
        guard let payload = claims["payload"]?.objectValue else {
            throw invalidResponse("the response JWT has no payload object", requestID: nil)
        }
        let requestID = payload["requestreference"]?.stringValue
        guard let elements = responseElements(payload), !elements.isEmpty else {
            throw invalidResponse("the response JWT's payload has no response elements", requestID: requestID)
        }
        try checkEveryElement(elements, requestID: requestID, httpStatus: nil)

        let types = elements.map { $0.requestType?.uppercased() }
        guard
            let index = types.firstIndex(of: TrustPaymentsAPI.RequestType.accountCheck)
                ?? types.firstIndex(of: TrustPaymentsAPI.RequestType.auth)
        else {
            throw invalidResponse(
                "the response has no ACCOUNTCHECK or AUTH element, so no card was checked", requestID: requestID)
        }
        let element = elements[index]
        // Trust Payments documents that Apple Pay cannot be tokenized as a credential on file; its results carry
        // walletsource APPLEPAY, and such a reference must never become a parent for later charges.
        if elements.contains(where: { $0.string("walletsource")?.uppercased() == "APPLEPAY" }) {
            throw CardGatewayError(
                .unsupported,
                "the result is for an Apple Pay payment, which Trust Payments does not support as a credential on file",
                provider: setup.instance, providerKind: .trustpayments, requestID: requestID
            )
        }
        guard let reference = element.transactionReference else {
            throw invalidResponse("the \(types[index] ?? "") element has no transactionreference", requestID: requestID)
        }
        guard let maskedPAN = element.maskedPAN ?? elements.lazy.compactMap(\.maskedPAN).first else {
            throw invalidResponse("the response names no maskedpan", requestID: requestID)
        }
        // A result whose request did not flag the card as stored (credentialsonfile 0 or absent in a result that
        // says which) cannot be used as a parent later.
        // The nested request JWT is read only when it too verifies with the JWT secret: nothing unsigned is trusted.
        var nested: [String: JSONValue]?
        if let requestJWT = payload["jwt"]?.stringValue {
            nested = (try? await HS256JWT.verify(requestJWT, secret: jwtSecret))?["payload"]?.objectValue
        }
        // A result for another site (a token minted for another integration that shares the secret) is refused.
        let sites =
            elements.compactMap { $0.string("sitereference") }
            + [nested?["sitereference"]?.stringValue].compactMap { $0 }
        if let other = sites.first(where: { $0 != siteReference }) {
            throw signatureInvalid(
                "the result is for site \(SafeText.scrub(other, maxLength: 40)), not the configured site reference")
        }
        let credentialsOnFile = element.credentialsOnFile ?? nested?["credentialsonfile"]?.stringValue
        if let credentialsOnFile, credentialsOnFile != TrustPaymentsAPI.credentialsOnFileStore,
            credentialsOnFile != TrustPaymentsAPI.credentialsOnFileReuse
        {
            throw CardGatewayError(
                .invalidRequest,
                "the result is for a transaction that did not keep the card on file (credentialsonfile \(SafeText.scrub(credentialsOnFile, maxLength: 4)))",
                provider: setup.instance, providerKind: .trustpayments, requestID: requestID
            )
        }

        let brand = element.paymentType ?? elements.lazy.compactMap(\.paymentType).first
        let existing = try await setup.credentialStore.credential(reference: reference)
        let credential = StoredCredential(
            reference: reference, provider: setup.instance, maskedPAN: maskedPAN, brand: brand,
            scheme: Self.scheme(forPaymentType: brand), customer: existing?.customer, created: existing?.created ?? now
        )
        try await setup.credentialStore.save(credential)
        context.logger.debug(
            "trustpayments result verified",
            metadata: [
                "provider": .string(setup.instance), "transactionreference": .string(reference),
                "requesttype": .string(types[index] ?? ""),
            ])
        return credential
    }

    /// Seconds for a message, clamped so that any finite `iat` formats: `Int(_:)` traps past `Int.max`, and a
    /// token's `iat` is the sender's number (found by fuzzing: `{"iat":1e300}` crashed the process).
    static func wholeSeconds(_ seconds: Double) -> Int {
        Int(max(min(seconds, 1e15), -1e15))
    }

    func audienceMatches(_ value: JSONValue) -> Bool {
        let expected = jwtUsername.revealedValue
        switch value {
        case .string(let audience): return audience == expected
        case .array(let audiences): return audiences.contains(.string(expected))
        default: return false
        }
    }

    // MARK: Charges

    /// Takes a merchant-initiated payment against a stored credential: an AUTH with `parenttransactionreference`,
    /// `credentialsonfile` 2 and `initiationreason` (A re-authorisation, C unscheduled, D delayed), POSTed to
    /// `/json/` with HTTP Basic auth. The response's `requestreference` must be the one sent, and every element of
    /// its `response` is checked. The charge is never repeated once it may have reached the gateway.
    ///
    /// A customer-initiated charge is refused: the shopper must be present in the SDK, through a reuse client
    /// session. A re-authorisation needs a parent that was an AUTH; the credential store does not record the
    /// parent's request type, so the gateway's refusal (20033) is what tells.
    public func charge(_ request: ChargeRequest, context: OperationContext) async throws -> ChargeResult {
        var problems = ValidationProblems()
        var reason: MerchantInitiatedReasonCode?
        if let merchantReason = request.initiator.merchantReason {
            reason = MerchantInitiatedReasonCode(merchantReason)
            if reason == nil {
                problems.add(
                    "initiator", "Trust Payments has no code for the merchant-initiated reason \(merchantReason)")
            }
        } else if request.initiator.kind != .customer {
            problems.add(
                "initiator", "this adapter charges for a merchant, not for the initiator \(request.initiator.kind)")
        } else {
            problems.add(
                "initiator",
                "a customer-initiated payment with a stored card needs the shopper in the Trust Payments SDK: mint a reuse client session instead"
            )
        }
        validateReference(request.reference, field: "reference", into: &problems)
        validateAmount(request.amount, allowZero: false, into: &problems)
        validateOrderReference(request.orderReference, into: &problems)
        try problems.throwIfAny()
        guard let reason else {
            throw CardGatewayError.invalidRequest("initiator must be merchant", field: "initiator")
        }
        // Only a credential this instance verified (or that the deployment imported into its store) is charged.
        _ = try await storedCredential(request.reference, field: "reference")

        let requestReference = makeRequestReference()
        let envelope = WebservicesEnvelope(
            alias: webservicesUsername.revealedValue, version: TrustPaymentsAPI.version,
            request: [
                MerchantInitiatedAuthRequest(
                    requesttypedescriptions: [TrustPaymentsAPI.RequestType.auth],
                    accounttypedescription: TrustPaymentsAPI.accountTypeECOM, sitereference: siteReference,
                    parenttransactionreference: request.reference, baseamount: String(request.amount.minorUnits),
                    currencyiso3a: request.amount.currency, credentialsonfile: TrustPaymentsAPI.credentialsOnFileReuse,
                    initiationreason: TrustPaymentsAPI.initiationReason(reason), requestreference: requestReference,
                    versioninfo: TrustPaymentsAPI.versionInfo, orderreference: request.orderReference
                )
            ],
            libraryversion: TrustPaymentsAPI.libraryVersion
        )
        let body: Data
        do {
            body = try TrustPaymentsAPI.bodyEncoder.encode(envelope)
        } catch {
            throw CardGatewayError(
                .invalidRequest, "the charge could not be written as Webservices JSON", provider: setup.instance,
                providerKind: .trustpayments
            )
        }
        var headers = HTTPFields()
        headers[.contentType] = TrustPaymentsAPI.contentType
        headers[.accept] = TrustPaymentsAPI.accept
        if let name = HTTPField.Name(TrustPaymentsAPI.requestReferenceHeader) { headers[name] = requestReference }

        context.logger.debug(
            "trustpayments charge",
            metadata: [
                "provider": .string(setup.instance), "requestreference": .string(requestReference),
                "initiationreason": .string(reason.rawValue),
            ])
        let response = try await http.send(
            ProviderRequest(
                .post, TrustPaymentsAPI.jsonPath, headers: headers, body: body,
                repeatability: .never, operation: "charge"
            ),
            context: context
        )
        guard response.status == 200 else {
            throw TrustPaymentsErrors.httpError(
                status: response.status, instance: setup.instance, retryAfter: response.retryAfter)
        }
        guard let answer = try? JSONDecoder().decode(WebservicesAnswer.self, from: response.body) else {
            throw invalidResponse(
                "the Webservices response is not a JSON object", requestID: nil, httpStatus: response.status)
        }
        let answeredReference = answer.requestreference
        guard answeredReference == requestReference else {
            // The official client refuses such a response too (its code 9): it may answer another request.
            throw invalidResponse(
                "the response's requestreference is not the one sent, so it may answer another request; check the transaction in MyST before charging again",
                requestID: answeredReference, httpStatus: response.status)
        }
        guard let elements = answer.response, !elements.isEmpty else {
            throw invalidResponse(
                "the Webservices response has no response elements", requestID: requestReference,
                httpStatus: response.status)
        }
        try checkEveryElement(elements, requestID: requestReference, httpStatus: response.status)
        let element =
            elements.first { $0.requestType?.uppercased() == TrustPaymentsAPI.RequestType.auth }
            ?? (elements.count == 1 ? elements[0] : nil)
        guard let element else {
            throw invalidResponse(
                "the Webservices response has no AUTH element", requestID: requestReference, httpStatus: response.status
            )
        }
        guard let transactionReference = element.transactionReference else {
            throw invalidResponse(
                "the AUTH element has no transactionreference", requestID: requestReference, httpStatus: response.status
            )
        }
        guard let settleStatus = element.settleStatus else {
            throw invalidResponse(
                "the AUTH element has no settlestatus", requestID: requestReference, httpStatus: response.status)
        }
        guard let status = Self.chargeStatus(settleStatus: settleStatus) else {
            throw invalidResponse(
                "the AUTH element has an undocumented settlestatus \(SafeText.scrub(settleStatus, maxLength: 8)); check the transaction in MyST",
                requestID: requestReference, httpStatus: response.status)
        }
        // The gateway echoes what it authorised. Anything other than what was asked for is not a success to
        // report: the caller must look at the transaction (named in the message) before doing anything else.
        let reportedMinor = element.baseAmount.map { Int64($0) }
        let reportedCurrency = element.currency?.uppercased()
        if (element.baseAmount != nil && reportedMinor != request.amount.minorUnits)
            || (reportedCurrency != nil && reportedCurrency != request.amount.currency.uppercased())
        {
            let shown =
                "\(SafeText.scrub(element.baseAmount ?? "?", maxLength: 16)) \(SafeText.scrub(element.currency ?? "?", maxLength: 3))"
            throw invalidResponse(
                "Trust Payments reports \(shown), not the \(request.amount.minorUnits) \(request.amount.currency) asked for, on transaction \(SafeText.scrub(transactionReference, maxLength: 25)); check it in MyST before doing anything else",
                requestID: requestReference, httpStatus: response.status
            )
        }
        return ChargeResult(
            transactionReference: transactionReference, parentReference: request.reference, status: status,
            amount: request.amount,
            authCode: element.authCode.flatMap { $0.isEmpty ? nil : $0 }, providerStatus: settleStatus
        )
    }

    func validateAmount(_ amount: Money, allowZero: Bool, into problems: inout ValidationProblems) {
        if allowZero && amount.minorUnits == 0 {
            problems.require(
                Money.isCurrencyCode(amount.currency), "amount.currency", "must be an ISO 4217 alpha-3 code such as GBP"
            )
            return
        }
        for problem in amount.problems(field: "amount") {
            let field = problem.hasPrefix("amount.currency") ? "amount.currency" : "amount"
            problems.add(field, problem)
        }
    }

    func validateReference(_ reference: String, field: String, into problems: inout ValidationProblems) {
        // The shared id rules first (they name the problem); then the narrower shape of a transaction reference.
        let before = problems.errors.count
        ProviderIDs.check(
            reference, field: field, what: "a Trust Payments transaction reference",
            maxLength: TrustPaymentsAPI.transactionReferenceMaxLength, into: &problems)
        guard problems.errors.count == before else { return }
        let allowed = reference.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte == UInt8(ascii: "-")
        }
        problems.require(
            !reference.isEmpty && reference.utf8.count <= TrustPaymentsAPI.transactionReferenceMaxLength && allowed,
            field,
            "must be a Trust Payments transaction reference (letters, digits and hyphens, at most 25), such as 2-9-4617572"
        )
    }

    func validateOrderReference(_ orderReference: String?, into problems: inout ValidationProblems) {
        guard let orderReference else { return }
        problems.require(
            !orderReference.trimmingCharacters(in: .whitespaces).isEmpty
                && !orderReference.contains(where: { $0.isNewline || $0.asciiValue.map { $0 < 0x20 } == true }),
            "orderReference", "must be non-empty text without control characters"
        )
    }
}
