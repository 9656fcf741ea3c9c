import CardGateway
import Foundation
import Testing

/// Issue 37, "A public API that can grow": the statuses and kinds are structs with static members (a new member
/// breaks no caller's `switch`), their JSON is what the enums wrote, and the payload types are read through typed
/// accessors.
@Suite("A public API that can grow", .timeLimit(.minutes(5)))
struct GrowableAPITests {
    private struct Row: Codable, Equatable {
        var card: CardStatus
        var token: WalletTokenStatus
        var type: CardType
        var charge: ChargeStatus
        var method: PaymentMethodKind
        var reason: MerchantInitiatedReason
    }

    @Test("the raw values are the enums' own, so JSON, ledger rows and configuration stay byte for byte the same")
    func rawValuesUnchanged() throws {
        #expect(
            CardStatus.allCases.map(\.rawValue) == [
                "active", "inactive", "digital", "pending", "locked", "suspended", "cancelled", "expired", "rejected",
                "unknown",
            ])
        #expect(
            WalletTokenStatus.allCases.map(\.rawValue) == ["requested", "active", "suspended", "deleted", "unknown"])
        #expect(CardType.allCases.map(\.rawValue) == ["physical", "virtual", "unknown"])
        #expect(ChargeStatus.allCases.map(\.rawValue) == ["authorised", "settled", "suspended"])
        #expect(PaymentMethodKind.allCases.map(\.rawValue) == ["card", "applePay", "googlePay"])
        #expect(MerchantInitiatedReason.allCases.map(\.rawValue) == ["unscheduled", "reauthorisation", "delayed"])

        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let row = Row(
            card: .locked, token: .requested, type: .virtual, charge: .settled, method: .applePay, reason: .delayed)
        let json = String(decoding: try encoder.encode(row), as: UTF8.self)
        #expect(
            json
                == #"{"card":"locked","charge":"settled","method":"applePay","reason":"delayed","token":"requested","type":"virtual"}"#
        )
        #expect(try JSONDecoder().decode(Row.self, from: Data(json.utf8)) == row)
        #expect("\(CardStatus.locked)" == "locked" && CardStatus(rawValue: "locked") == .locked)
    }

    @Test(
        "a status written by a newer version is kept on decoding and written back unchanged; init?(rawValue:) refuses it"
    )
    func unknownStatusesKept() throws {
        let json = Data(
            #"{"card":"frozen","token":"paused","type":"metal","charge":"refunded","method":"card","reason":"delayed"}"#
                .utf8)
        let row = try JSONDecoder().decode(Row.self, from: json)
        #expect(row.card.rawValue == "frozen" && !row.card.isKnown && row.card != .unknown)
        #expect(row.token.rawValue == "paused" && !row.token.isKnown)
        #expect(row.type.rawValue == "metal" && !row.type.isKnown)
        #expect(row.charge.rawValue == "refunded" && !row.charge.isKnown)
        #expect(CardStatus.active.isKnown && ChargeStatus.settled.isKnown)
        #expect(CardStatus(rawValue: "frozen") == nil && ChargeStatus(rawValue: "refunded") == nil)

        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let again = String(decoding: try encoder.encode(row), as: UTF8.self)
        #expect(
            again
                == #"{"card":"frozen","charge":"refunded","method":"card","reason":"delayed","token":"paused","type":"metal"}"#
        )
        // A switch needs its default, and an unknown word takes it.
        let word: String =
            switch row.card {
            case .active: "active"
            default: "other"
            }
        #expect(word == "other")
    }

    @Test("inputs refuse a method or reason this version cannot act on")
    func unknownInputsRefused() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(PaymentMethodKind.self, from: Data(#""sepaDebit""#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(MerchantInitiatedReason.self, from: Data(#""instalment""#.utf8))
        }
    }

    @Test("provisioning inputs and answers: static constructors, a kind, and one typed accessor that answers")
    func provisioningShapes() {
        let apple = ApplePayProvisioningInput(
            certificates: [Data([1]), Data([2])], nonce: Data([3]), nonceSignature: Data([4]))
        let inputs: [ProvisioningInput] = [
            .applePay(apple), .googlePay(GooglePayProvisioningInput(clientDeviceID: "d", clientWalletAccountID: "w")),
            .samsungPay(SamsungPayProvisioningInput(deviceID: "d", walletUserID: "u")), .issuerSDK(output: nil),
            .issuerSDK(output: SensitiveData(Data([9]))), .issuerSDKKey(apiVersion: "2020-08-27"),
        ]
        #expect(inputs.map(\.kind) == [.applePay, .googlePay, .samsungPay, .issuerSDK, .issuerSDK, .issuerSDKKey])
        #expect(inputs.map(\.wallet) == [.applePay, .googlePay, .samsungPay, nil, nil, nil])
        #expect(
            inputs.map(\.flow) == [
                .encryptedPayload, .encryptedPayload, .encryptedPayload, .issuerSDKRelay, .issuerSDKRelay,
                .issuerSDKKey,
            ])
        #expect(inputs[0].applePay == apple && inputs[0].googlePay == nil && inputs[0].issuerSDKOutput == nil)
        #expect(inputs[1].googlePay?.clientWalletAccountID == "w" && inputs[1].applePay == nil)
        #expect(inputs[2].samsungPay?.walletUserID == "u")
        #expect(inputs[3].issuerSDKOutput == nil && inputs[4].issuerSDKOutput == SensitiveData(Data([9])))
        #expect(inputs[5].issuerSDKAPIVersion == "2020-08-27" && inputs[4].issuerSDKAPIVersion == nil)
        #expect(inputs[3] != inputs[4] && inputs[0] == .applePay(apple))
        #expect(
            inputs.map(\.description) == [
                "ApplePayProvisioningInput(certificates: 2, <redacted>)", "googlePay(<device ids>)",
                "samsungPay(<device ids>)",
                "issuerSDK(start)", "issuerSDK(<redacted>)", "issuerSDKKey(apiVersion: 2020-08-27)",
            ])

        let key = EphemeralKey(
            id: "ephkey_1", rawJSON: SensitiveData(Data("{}".utf8)), created: nil,
            expires: Date(timeIntervalSince1970: 0), apiVersion: "v")
        let responses: [ProvisioningResponse] = [.issuerSDKInput(SensitiveData(Data([7]))), .ephemeralKey(key)]
        #expect(responses.map(\.kind) == [.issuerSDKInput, .ephemeralKey])
        #expect(responses[0].issuerSDKInput == SensitiveData(Data([7])) && responses[0].ephemeralKey == nil)
        #expect(responses[1].ephemeralKey == key && responses[1].applePay == nil && responses[1].issuerSDKInput == nil)
    }

    @Test("events, client-session intents and charge initiators: a name or kind, and typed accessors")
    func eventsIntentsInitiators() {
        let change = CardStatusChange(
            card: CardRef(id: "c1"), oldStatus: .active, newStatus: .locked, providerOldStatus: "ACTIVE",
            providerNewStatus: "LOCKED")
        let token = WalletTokenEvent(
            card: CardRef(id: "c1"),
            token: WalletToken(id: "t1", wallet: .applePay, status: .active, providerStatus: "ACTIVE"))
        let tokens = WalletTokensChange(
            card: CardRef(id: "c1", customer: "u1"), status: .suspended, providerAction: "TOKEN_FROZEN",
            providerResult: "SUCCESS")
        let events: [GatewayEvent.Kind] = [
            .cardStatusChanged(change), .walletTokenCreated(token), .walletTokenUpdated(token),
            .walletTokensChanged(tokens),
        ]
        #expect(
            events.map(\.name.rawValue) == [
                "cardStatusChanged", "walletTokenCreated", "walletTokenUpdated", "walletTokensChanged",
            ])
        #expect(GatewayEvent.Kind.Name(rawValue: "walletTokensChanged") == .walletTokensChanged)
        #expect(
            events[3].walletTokensChanged == tokens && events[3].walletToken == nil
                && events[0].walletTokensChanged == nil)
        #expect(events[0].cardStatusChanged == change && events[0].walletToken == nil)
        #expect(
            events[1].walletTokenCreated == token && events[1].walletTokenUpdated == nil
                && events[1].walletToken == token)
        #expect(
            events[2].walletTokenUpdated == token && events[2].walletToken == token && events[2].credentialStored == nil
        )

        let consent = CardholderConsent(recordedAt: Date(timeIntervalSince1970: 0), evidence: "terms v1")
        let store = ClientSessionRequest.Intent.store(consent: consent)
        let reuse = ClientSessionRequest.Intent.reuse(reference: "1-2-3")
        #expect(store.kind == .store && store.consent == consent && store.reference == nil)
        #expect(reuse.kind == .reuse && reuse.reference == "1-2-3" && reuse.consent == nil)
        #expect(ClientSessionRequest.Intent.store(consent: nil).consent == nil && store != .store(consent: nil))

        let merchant = ChargeInitiator.merchant(.reauthorisation)
        #expect(merchant.kind == .merchant && merchant.merchantReason == .reauthorisation)
        #expect(ChargeInitiator.customer.kind == .customer && ChargeInitiator.customer.merchantReason == nil)
        #expect(merchant != .merchant(.delayed) && merchant == .merchant(.reauthorisation))
    }

    /// Every member of `type`: read back by name, described by its name, written to JSON as its quoted name; an unknown
    /// name is refused by `init?(rawValue:)`.
    private func checkNames<Name: GrowableName>(_ type: Name.Type, json: Bool = true) throws {
        #expect(!Name.allCases.isEmpty)
        #expect(Set(Name.allCases.map(\.rawValue)).count == Name.allCases.count, "\(Name.self)")
        for member in Name.allCases {
            #expect(Name(rawValue: member.rawValue) == member, "\(Name.self).\(member)")
            #expect(member.description == member.rawValue, "\(Name.self).\(member)")
            if json, let encodable = member as? any Encodable {
                let text = String(decoding: try JSONEncoder().encode(encodable), as: UTF8.self)
                #expect(text == "\"\(member.rawValue)\"", "\(Name.self).\(member)")
            }
        }
        #expect(Name(rawValue: "no-such-name") == nil, "\(Name.self)")
    }

    @Test("every GrowableName: a known name reads back, describes and encodes as itself; an unknown one is refused")
    func growableNames() throws {
        try checkNames(CardStatus.self)
        try checkNames(CardType.self)
        try checkNames(CardScheme.self)
        try checkNames(WalletTokenStatus.self)
        try checkNames(ChargeStatus.self)
        try checkNames(PaymentMethodKind.self)
        try checkNames(RevealPurpose.self)
        try checkNames(RevealFlow.self)
        try checkNames(RevealInput.self)
        try checkNames(CardStatusIntent.self)
        try checkNames(CardStatusReason.self)
        try checkNames(WalletTokenIntent.self)
        try checkNames(Capability.self)
        try checkNames(Wallet.self)
        try checkNames(ProvisioningFlow.self)
        try checkNames(GatewayEvent.Kind.Name.self)
        try checkNames(ProvisioningInput.Kind.self)
        try checkNames(ProvisioningResponse.Kind.self)
        try checkNames(ClientSessionRequest.Intent.Kind.self)
        try checkNames(ChargeInitiator.Kind.self)
        try checkNames(MerchantInitiatedReason.self)
        try checkNames(ProvisioningDeviceType.self)
        try checkNames(GatewayOperation.self)
    }
}
