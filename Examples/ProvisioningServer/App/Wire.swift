import CardGateway
import Foundation

/// The library's values as the generated wire types of `openapi.yaml`: public card ids, never the provider's id,
/// customer or BIN; Base64 for bytes.
enum WireModel {
    static func wallet(_ wallet: Components.Schemas.Wallet) throws -> Wallet {
        guard let value = Wallet(parsing: wallet.rawValue) else {
            throw APIProblem.invalidRequest(
                "Unknown wallet.", errors: [FieldProblem(field: "wallet", message: "is not a wallet this server knows")]
            )
        }
        return value
    }

    static func wallet(_ wallet: Wallet) -> Components.Schemas.Wallet? {
        Components.Schemas.Wallet(rawValue: wallet.rawValue)
    }

    static func flow(_ flow: ProvisioningFlow?) -> Components.Schemas.Flow? {
        flow.flatMap { Components.Schemas.Flow(rawValue: $0.rawValue) }
    }

    static func network(_ scheme: CardScheme?) -> Components.Schemas.Network? { scheme?.rawValue }

    static func expiry(_ expiry: CardExpiry?) -> Components.Schemas.Expiry? {
        expiry.map { .init(month: $0.month, year: $0.year) }
    }

    static func reason(_ reason: IneligibilityReason?) -> Components.Schemas.IneligibleReason? {
        reason.map { .init(code: $0.code, message: $0.message) }
    }

    static func itemError(_ error: ItemError?) -> Components.Schemas.ItemError? {
        error.map { .init(_type: $0.type, title: $0.title, status: $0.status, code: $0.code, retryable: $0.retryable) }
    }

    /// The tokens the app can name in `POST /v1/cards/{cardId}/tokens/{tokenId}/status`: a token whose provider id
    /// breaks the document's `tokenId` pattern (``OwnedCard/tokenIDPattern``) is left out, so that every id the server
    /// answers is one it accepts back (the document states the pattern on `WalletToken.id` too).
    static func walletTokens(_ tokens: [WalletToken]) -> [Components.Schemas.WalletToken] {
        tokens.filter { OwnedCard.isPathSafe($0.id, maxLength: 128) }.map(walletToken)
    }

    static func walletToken(_ token: WalletToken) -> Components.Schemas.WalletToken {
        .init(
            id: token.id, wallet: token.wallet.flatMap(wallet),
            status: Components.Schemas.WalletTokenStatus(rawValue: token.status.rawValue) ?? .unknown,
            providerStatus: token.providerStatus, deviceAccountReference: token.deviceAccountReference,
            walletId: token.walletID,
            lastFour: token.lastFour, network: network(token.network), created: token.created
        )
    }

    static func card(owned: OwnedCard, card: Card) -> Components.Schemas.Card {
        .init(
            id: owned.id, displayName: owned.displayName, provider: card.provider,
            wallets: owned.wallets.compactMap(wallet),
            status: Components.Schemas.CardStatus(rawValue: card.status.rawValue), providerStatus: card.providerStatus,
            statusReason: card.statusReason, _type: Components.Schemas.CardType(rawValue: card.type.rawValue),
            network: network(card.scheme),
            lastFour: card.lastFour, expiry: expiry(card.expiry), cardholderName: card.cardholderName,
            currency: card.currency,
            program: card.program, walletTokens: walletTokens(card.walletTokens),
            availableActions: card.availableActions.map(\.rawValue)
        )
    }

    /// A card whose provider failed: its public facts and the error, no details.
    static func card(owned: OwnedCard, provider: String?, error: ItemError) -> Components.Schemas.Card {
        .init(
            id: owned.id, displayName: owned.displayName, provider: provider, wallets: owned.wallets.compactMap(wallet),
            error: itemError(error))
    }

    /// The offer for `requested`, the wallet the app asked about (one the document names).
    static func offer(
        cardID: String, requested: Components.Schemas.Wallet, offer: ProvisioningOffer
    ) -> Components.Schemas.Offer {
        .init(
            cardId: cardID, wallet: requested, provider: offer.provider, eligible: offer.eligible,
            ineligibleReason: reason(offer.ineligibleReason), flow: flow(offer.flow),
            cardholderName: offer.cardholderName,
            lastFour: offer.lastFour, network: network(offer.network),
            primaryAccountIdentifier: offer.primaryAccountIdentifier,
            expiry: expiry(offer.expiry), existingTokens: walletTokens(offer.existingTokens)
        )
    }

    /// The answer for a wallet the app does not offer for this card (no provider is asked).
    static func notOffered(cardID: String, requested: Components.Schemas.Wallet) -> Components.Schemas.Offer {
        .init(
            cardId: cardID, wallet: requested, eligible: false,
            ineligibleReason: .init(
                code: "walletNotOffered", message: "the app does not offer this card in \(requested.rawValue)"),
            existingTokens: []
        )
    }

    static func storedCredential(_ credential: StoredCredential) -> Components.Schemas.StoredCredential {
        .init(
            reference: credential.reference, provider: credential.provider, maskedPAN: credential.maskedPAN,
            brand: credential.brand,
            scheme: credential.scheme.rawValue, created: credential.created
        )
    }

    static func base64(_ data: SensitiveData) -> String { ByteEncoding.base64(data.revealedBytes) }
}

/// The request and response bodies of `POST /v1/cards/{cardId}/provisioning/{wallet}`, one shape per flow.
enum ProvisioningWire {
    /// The input the card's flow expects. The document's `oneOf` has already told the four shapes apart; a shape
    /// of another flow is a conflict with the card (409, naming the fields), and the limits the generated decoding
    /// does not check are checked here (400).
    static func input(
        from body: Components.Schemas.ProvisioningRequest, flow: ProvisioningFlow, wallet: Wallet
    ) throws -> ProvisioningInput {
        var checks = FieldChecks()
        switch (flow, wallet, body) {
        case (.encryptedPayload, .applePay, .ApplePayRequest(let request)):
            if request.certificates.isEmpty || request.certificates.count > 10 {
                checks.refuse("certificates", "must hold 1 to 10 items")
            }
            var certificates: [Data] = []
            for (index, text) in request.certificates.enumerated() {
                if let bytes = checks.base64(text, "certificates[\(index)]", maxBytes: 16 * 1024) {
                    certificates.append(bytes)
                }
            }
            let nonce = checks.base64(request.nonce, "nonce", maxBytes: 1024)
            let signature = checks.base64(request.nonceSignature, "nonceSignature", maxBytes: 4096)
            try checks.finish()
            guard let nonce, let signature else {
                throw APIProblem.invalidRequest("The Apple Pay provisioning body is incomplete.")
            }
            return .applePay(
                ApplePayProvisioningInput(certificates: certificates, nonce: nonce, nonceSignature: signature))

        case (.encryptedPayload, .googlePay, .GooglePayRequest(let request)):
            let deviceID = checks.text(request.clientDeviceId, "clientDeviceId", maxLength: 256)
            let accountID = checks.text(request.clientWalletAccountId, "clientWalletAccountId", maxLength: 256)
            try checks.finish()
            guard let deviceID, let accountID else {
                throw APIProblem.invalidRequest("The Google Pay provisioning body is incomplete.")
            }
            return .googlePay(GooglePayProvisioningInput(clientDeviceID: deviceID, clientWalletAccountID: accountID))

        case (.encryptedPayload, .samsungPay, .SamsungPayRequest(let request)):
            let deviceID = checks.text(request.deviceId, "deviceId", maxLength: 256)
            let userID = checks.text(request.walletUserId, "walletUserId", maxLength: 256)
            try checks.finish()
            guard let deviceID, let userID else {
                throw APIProblem.invalidRequest("The Samsung Pay provisioning body is incomplete.")
            }
            return .samsungPay(SamsungPayProvisioningInput(deviceID: deviceID, walletUserID: userID))

        case (.encryptedPayload, .applePay, _), (.encryptedPayload, .googlePay, _), (.encryptedPayload, .samsungPay, _):
            let expected: String
            switch wallet {
            case .applePay: expected = "certificates, nonce and nonceSignature"
            case .samsungPay: expected = "deviceId and walletUserId"
            default: expected = "clientDeviceId and clientWalletAccountId"
            }
            throw wrongShape(body, expected: expected)

        case (.encryptedPayload, _, _):
            throw APIProblem.unsupported("The server has no request shape for \(wallet) by the encrypted-payload flow.")

        case (.issuerSDKRelay, _, .RelayRequest(let request)):
            // 262,128 Base64 characters: the most that fits in a 256 KiB body beside `{"sdkOutput":""}`.
            let output = checks.base64(request.sdkOutput, "sdkOutput", maxBytes: 196_596)
            try checks.finish()
            return .issuerSDK(output: output.map(SensitiveData.init))

        case (.issuerSDKRelay, _, _):
            throw wrongShape(body, expected: "sdkOutput, or nothing to start")

        case (.issuerSDKKey, _, .KeyRequest(let request)):
            let version = checks.token(request.apiVersion, "apiVersion", maxLength: 64, example: "2020-08-27")
            try checks.finish()
            guard let version else { throw APIProblem.invalidRequest("apiVersion is required.") }
            return .issuerSDKKey(apiVersion: version)

        case (.issuerSDKKey, _, _):
            throw wrongShape(body, expected: "apiVersion")

        default:
            throw APIProblem.unsupported("The server has no request shape for the \(flow) flow.")
        }
    }

    /// The device kind and app version a wallet body carries, for the provisioning request.
    static func device(
        from body: Components.Schemas.ProvisioningRequest
    ) throws -> (type: ProvisioningDeviceType?, appVersion: String?) {
        let type: Components.Schemas.DeviceType?
        let appVersion: String?
        switch body {
        case .ApplePayRequest(let request): (type, appVersion) = (request.deviceType, request.appVersion)
        case .GooglePayRequest(let request): (type, appVersion) = (request.deviceType, request.appVersion)
        case .SamsungPayRequest(let request): (type, appVersion) = (request.deviceType, request.appVersion)
        case .RelayRequest, .KeyRequest: return (nil, nil)
        }
        var checks = FieldChecks()
        let version = checks.text(appVersion, "appVersion", maxLength: 50)
        try checks.finish()
        guard let type else { return (nil, version) }
        guard let kind = ProvisioningDeviceType(rawValue: type.rawValue) else {
            throw APIProblem.invalidRequest("deviceType \(type.rawValue) is not known.")
        }
        return (kind, version)
    }

    /// A well-formed body of another flow than the card's: 409, naming the fields that do not belong.
    static func wrongShape(_ body: Components.Schemas.ProvisioningRequest, expected: String) -> APIProblem {
        let fields: [String]
        switch body {
        case .ApplePayRequest: fields = ["certificates", "nonce", "nonceSignature"]
        case .GooglePayRequest: fields = ["clientDeviceId", "clientWalletAccountId"]
        case .SamsungPayRequest: fields = ["deviceId", "walletUserId"]
        case .RelayRequest(let request): fields = request.sdkOutput == nil ? ["body"] : ["sdkOutput"]
        case .KeyRequest: fields = ["apiVersion"]
        }
        return APIProblem(
            status: .conflict, type: "wrongProvisioningShape", title: "Body of another provisioning flow",
            detail: "This card's provider provisions by another flow; send \(expected).", code: .invalidRequest,
            errors: fields.map {
                FieldProblem(field: $0, message: "is not a field of this card's provisioning flow; send \(expected)")
            }
        )
    }

    /// The provider's answer: Base64 payloads, or the ephemeral key (whose bytes the handler also keeps, to send
    /// them unchanged).
    static func response(_ response: ProvisioningResponse) throws -> Components.Schemas.ProvisioningResponse {
        if let payload = response.applePay {
            return .ApplePayResponse(
                .init(
                    activationData: WireModel.base64(payload.activationData),
                    encryptedPassData: WireModel.base64(payload.encryptedPassData),
                    ephemeralPublicKey: WireModel.base64(payload.ephemeralPublicKey)
                ))
        } else if let payload = response.googlePay {
            return .GooglePayResponse(
                .init(
                    opaquePaymentCard: WireModel.base64(payload.opaquePaymentCard),
                    network: WireModel.network(payload.network),
                    tokenProvider: payload.tokenProvider, displayName: payload.displayName, lastFour: payload.lastFour
                ))
        } else if let payload = response.samsungPay {
            return .SamsungPayResponse(
                .init(
                    extraProvisionPayload: WireModel.base64(payload.extraProvisionPayload),
                    network: WireModel.network(payload.network),
                    cardType: payload.cardType, tokenProvider: payload.tokenProvider, displayName: payload.displayName,
                    lastFour: payload.lastFour
                ))
        } else if let input = response.issuerSDKInput {
            return .RelayResponse(.init(sdkInput: WireModel.base64(input)))
        } else if let key = response.ephemeralKey {
            let decoded = try JSONDecoder().decode(
                Components.Schemas.EphemeralKey.self, from: key.rawJSON.revealedBytes)
            return .EphemeralKey(decoded)
        } else {
            throw APIProblem.unsupported("The server has no response shape for a \(response.kind) answer.")
        }
    }
}

/// `POST /v1/credentials/session`: the body's two shapes, told apart by `intent`.
enum CredentialWire {
    static func sessionRequest(
        from body: Components.Schemas.SessionRequest, customer: String
    ) throws -> ClientSessionRequest {
        var checks = FieldChecks()
        let intent: ClientSessionRequest.Intent?
        let amount: Components.Schemas.Amount
        let paymentMethod: Components.Schemas.PaymentMethod?
        let orderReference: String?
        switch body {
        case .store(let request):
            let evidence = checks.text(request.consent.evidence, "consent.evidence", maxLength: 500)
            intent = evidence.map {
                .store(consent: CardholderConsent(recordedAt: request.consent.recordedAt, evidence: $0))
            }
            (amount, paymentMethod, orderReference) = (request.amount, request.paymentMethod, request.orderReference)
        case .reuse(let request):
            intent = checks.text(request.reference, "reference", maxLength: 128).map { .reuse(reference: $0) }
            (amount, paymentMethod, orderReference) = (request.amount, request.paymentMethod, request.orderReference)
        }
        if amount.minorUnits < 1 || amount.minorUnits > 8_999_999_999_999_999 {
            checks.refuse("amount.minorUnits", "must be a positive number of minor units")
        }
        if !Money.isCurrencyCode(amount.currency) {
            checks.refuse("amount.currency", "must be an ISO 4217 alpha-3 code such as GBP")
        }
        let reference = checks.text(orderReference, "orderReference", maxLength: 64)
        try checks.finish()
        guard let intent else { throw APIProblem.invalidRequest("The session request is incomplete.") }
        let method = paymentMethod.flatMap { PaymentMethodKind(rawValue: $0.rawValue) } ?? .card
        return ClientSessionRequest(
            intent: intent, amount: Money(minorUnits: amount.minorUnits, currency: amount.currency),
            paymentMethod: method,
            customer: customer, orderReference: reference
        )
    }
}
