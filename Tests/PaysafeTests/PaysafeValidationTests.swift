import CardGateway
import CardGatewayPaysafe
import CardGatewayTesting
import Foundation
import Testing
import SharedTestSupport

/// Every validation rule refuses the request before anything is sent (not even a token request).
@Suite("Paysafe validation", .timeLimit(.minutes(5)))
struct PaysafeValidationTests {
    static let address = DeliveryAddress(
        address1: "Tsarigradsko Shose 73", city: "Sofia", countryCode: "BG", postalCode: "1000")
    static let usAddress = DeliveryAddress(
        address1: "1 Main Street", city: "New York", countryCode: "US", state: "NY", postalCode: "10001")

    static func virtual(_ change: (inout CreateCardRequest) -> Void = { _ in }) -> CreateCardRequest {
        var request = CreateCardRequest(
            customer: Fixture.customer, type: .virtual, program: "SKRILL-VIRTUAL-MC-EEA", currency: "EUR")
        change(&request)
        return request
    }

    static func physical(_ change: (inout CreateCardRequest) -> Void = { _ in }) -> CreateCardRequest {
        var request = CreateCardRequest(
            customer: Fixture.customer, type: .physical, program: "SKRILL-PHYSICAL-MC-EEA", currency: "EUR",
            deliveryAddress: address
        )
        change(&request)
        return request
    }

    static func usPhysical(_ change: (inout CreateCardRequest) -> Void = { _ in }) -> CreateCardRequest {
        var request = CreateCardRequest(
            customer: "cust-us-1", type: .physical, program: "US-PHYSICAL-VISA", currency: "USD",
            deliveryAddress: usAddress,
            termsAndConditionsAccepted: true, eDisclosureAccepted: true
        )
        change(&request)
        return request
    }

    /// Runs `body` against a harness that must send nothing, and returns the field names refused.
    static func refusedFields(
        region: PaysafeRegion = .row, _ body: (PaysafeProvider) async throws -> Void
    ) async throws -> [String] {
        let harness = try Harness.make(region: region) { _ in .json(200, Fixture.cardJSON()) }
        let error = await gatewayError { try await body(harness.provider) }
        #expect(harness.transport.requestCount == 0, "nothing may be sent")
        #expect(error?.code == .invalidRequest)
        return error?.fieldErrors.map(\.field) ?? []
    }

    static let createCases: [(String, PaysafeRegion, CreateCardRequest, String)] = [
        ("customer blank", .row, virtual { $0.customer = " " }, "customer"),
        ("program missing", .row, virtual { $0.program = "" }, "program"),
        ("currency missing", .row, virtual { $0.currency = "" }, "currency"),
        ("currency two letters", .row, virtual { $0.currency = "EU" }, "currency"),
        ("currency lower case", .row, virtual { $0.currency = "eur" }, "currency"),
        ("currency digits", .row, virtual { $0.currency = "978" }, "currency"),
        ("PIN three digits", .row, virtual { $0.pin = Secret("123") }, "pin"),
        ("PIN five digits", .row, virtual { $0.pin = Secret("12345") }, "pin"),
        ("PIN letters", .row, virtual { $0.pin = Secret("12a4") }, "pin"),
        ("PIN for a US customer", .us, usPhysical { $0.pin = Secret("1234") }, "pin"),
        ("mobile without plus", .row, virtual { $0.mobile = "359888333333" }, "mobile"),
        ("mobile with two spaces", .row, virtual { $0.mobile = "+1 123 456789" }, "mobile"),
        ("mobile too long after the space", .row, virtual { $0.mobile = "+1 12345678901234567" }, "mobile"),
        ("mobile with letters", .row, virtual { $0.mobile = "+1 12345abc" }, "mobile"),
        ("mobile only a plus and one digit", .row, virtual { $0.mobile = "+1" }, "mobile"),
        ("externalId over 40", .row, virtual { $0.externalID = String(repeating: "x", count: 41) }, "externalID"),
        ("virtual with an address", .row, virtual { $0.deliveryAddress = address }, "deliveryAddress"),
        ("physical without an address", .row, physical { $0.deliveryAddress = nil }, "deliveryAddress"),
        ("unknown type", .row, virtual { $0.type = .unknown }, "type"),
        ("address1 too short", .row, physical { $0.deliveryAddress?.address1 = "abc" }, "deliveryAddress.address1"),
        (
            "address1 too long", .row, physical { $0.deliveryAddress?.address1 = String(repeating: "a", count: 41) },
            "deliveryAddress.address1"
        ),
        (
            "address2 too long", .row, physical { $0.deliveryAddress?.address2 = String(repeating: "a", count: 31) },
            "deliveryAddress.address2"
        ),
        (
            "address3 too long", .row, physical { $0.deliveryAddress?.address3 = String(repeating: "a", count: 31) },
            "deliveryAddress.address3"
        ),
        ("city missing", .row, physical { $0.deliveryAddress?.city = "" }, "deliveryAddress.city"),
        (
            "city too long", .row, physical { $0.deliveryAddress?.city = String(repeating: "a", count: 31) },
            "deliveryAddress.city"
        ),
        ("city with digits", .row, physical { $0.deliveryAddress?.city = "Sofia 1" }, "deliveryAddress.city"),
        ("city with a comma", .row, physical { $0.deliveryAddress?.city = "Sofia, BG" }, "deliveryAddress.city"),
        (
            "country three letters", .row, physical { $0.deliveryAddress?.countryCode = "BGR" },
            "deliveryAddress.countryCode"
        ),
        (
            "country lower case", .row, physical { $0.deliveryAddress?.countryCode = "bg" },
            "deliveryAddress.countryCode"
        ),
        ("state too long", .row, physical { $0.deliveryAddress?.state = "ABCD" }, "deliveryAddress.state"),
        ("state missing for US", .us, usPhysical { $0.deliveryAddress?.state = nil }, "deliveryAddress.state"),
        ("US state of one letter", .us, usPhysical { $0.deliveryAddress?.state = "N" }, "deliveryAddress.state"),
        ("US state in lower case", .us, usPhysical { $0.deliveryAddress?.state = "ny" }, "deliveryAddress.state"),
        ("postal code missing", .row, physical { $0.deliveryAddress?.postalCode = "" }, "deliveryAddress.postalCode"),
        (
            "EU postal code over 16", .row,
            physical { $0.deliveryAddress?.postalCode = String(repeating: "1", count: 17) },
            "deliveryAddress.postalCode"
        ),
        (
            "US postal code with other characters", .us, usPhysical { $0.deliveryAddress?.postalCode = "10001#2" },
            "deliveryAddress.postalCode"
        ),
        ("US without terms", .us, usPhysical { $0.termsAndConditionsAccepted = nil }, "termsAndConditionsAccepted"),
        ("US without e-disclosure", .us, usPhysical { $0.eDisclosureAccepted = nil }, "eDisclosureAccepted"),
    ]

    @Test("create card rules", arguments: createCases)
    func create(_ name: String, _ region: PaysafeRegion, _ request: CreateCardRequest, _ field: String) async throws {
        let fields = try await Self.refusedFields(region: region) { provider in
            _ = try await provider.createCard(request, context: OperationContext())
        }
        #expect(fields.contains(field), "\(name): refused \(fields)")
    }

    @Test(
        "valid requests pass the same rules",
        arguments: [
            (
                PaysafeRegion.row,
                virtual {
                    $0.mobile = "+1 123456789"; $0.pin = Secret("1234");
                    $0.externalID = String(repeating: "x", count: 40)
                }
            ),
            (.row, virtual { $0.mobile = "+359888333333" }),
            (
                .row,
                physical {
                    $0.deliveryAddress?.city = "St. Jean-de-Luz";
                    $0.deliveryAddress?.postalCode = String(repeating: "1", count: 16)
                }
            ),
            (.row, physical { $0.deliveryAddress?.city = "Łódź" }),
            (.us, usPhysical { $0.deliveryAddress?.postalCode = "10001-1234" }),
            (.us, usPhysical { $0.termsAndConditionsAccepted = false }),
        ])
    func validCreate(_ region: PaysafeRegion, _ request: CreateCardRequest) async throws {
        let harness = try Harness.make(region: region) { _ in .json(201, Fixture.cardJSON()) }
        _ = try await harness.provider.createCard(request, context: OperationContext())
        #expect(harness.businessRequests.count == 1)
    }

    @Test("every problem is reported at once")
    func allProblems() async throws {
        let request = Self.physical {
            $0.currency = "eu"
            $0.pin = Secret("1")
            $0.deliveryAddress?.countryCode = "Bulgaria"
        }
        let fields = try await Self.refusedFields { provider in
            _ = try await provider.createCard(request, context: OperationContext())
        }
        #expect(Set(fields) == ["currency", "pin", "deliveryAddress.countryCode"])
    }

    @Test("a refused PIN never appears in the error")
    func pinNotEchoed() async throws {
        let harness = try Harness.make { _ in nil }
        let error = await gatewayError {
            _ = try await harness.provider.createCard(
                Self.virtual { $0.pin = Secret("98765") }, context: OperationContext())
        }
        #expect(error?.description.contains("98765") == false)
    }

    static let activateCases: [(ActivateCardRequest, String)] = [
        (ActivateCardRequest(card: CardRef(id: Fixture.cardID), lastFour: "7009", cvv: Secret("123")), "card.customer"),
        (
            ActivateCardRequest(
                card: CardRef(id: "", customer: Fixture.customer), lastFour: "7009", cvv: Secret("123")), "card.id"
        ),
        (ActivateCardRequest(card: Fixture.ref, lastFour: "700", cvv: Secret("123")), "lastFour"),
        (ActivateCardRequest(card: Fixture.ref, lastFour: "70091", cvv: Secret("123")), "lastFour"),
        (ActivateCardRequest(card: Fixture.ref, lastFour: "70a9", cvv: Secret("123")), "lastFour"),
        (ActivateCardRequest(card: Fixture.ref, lastFour: "7009", cvv: Secret("12")), "cvv"),
        (ActivateCardRequest(card: Fixture.ref, lastFour: "7009", cvv: Secret("1234")), "cvv"),
        (ActivateCardRequest(card: Fixture.ref, lastFour: "7009", cvv: Secret("12x")), "cvv"),
    ]

    @Test("activate rules", arguments: activateCases)
    func activate(_ request: ActivateCardRequest, _ field: String) async throws {
        let fields = try await Self.refusedFields { provider in
            _ = try await provider.activateCard(request, context: OperationContext())
        }
        #expect(fields.contains(field), "refused \(fields)")
    }

    static let updateCases: [(UpdateCardRequest, String)] = [
        (UpdateCardRequest(card: CardRef(id: Fixture.cardID), change: .status(.locked, reason: nil)), "card.customer"),
        (
            UpdateCardRequest(card: Fixture.ref, change: .status(.locked, reason: String(repeating: "r", count: 201))),
            "statusReason"
        ),
        (UpdateCardRequest(card: Fixture.ref, change: .status(.locked, reason: "  ")), "statusReason"),
    ]

    @Test("update rules", arguments: updateCases)
    func update(_ request: UpdateCardRequest, _ field: String) async throws {
        let fields = try await Self.refusedFields { provider in
            _ = try await provider.updateCard(request, context: OperationContext())
        }
        #expect(fields.contains(field), "refused \(fields)")
    }

    @Test(
        "update to a status no update reaches is refused without sending",
        arguments: [CardStatus.inactive, .digital, .pending, .suspended, .expired, .rejected, .unknown])
    func unreachableTarget(_ status: CardStatus) async throws {
        let harness = try Harness.make { _ in .json(200, Fixture.cardJSON()) }
        let error = await gatewayError {
            _ = try await harness.provider.updateCard(
                UpdateCardRequest(card: Fixture.ref, change: .status(status, reason: nil)), context: OperationContext())
        }
        #expect(error?.code == .invalidCardState)
        #expect(harness.transport.requestCount == 0)
    }

    @Test(
        "update refused by the transition table after reading the card",
        arguments: [
            ("ACTIVE", CardStatus.active), ("LOCKED", .locked), ("CANCELLED", .active), ("CANCELLED", .locked),
            ("ISSUED", .active),
            ("SUSPENDED", .active), ("EXPIRED", .cancelled), ("PENDING", .cancelled), ("REJECTED", .locked),
            ("APPLIED", .active),
        ])
    func forbiddenTransition(_ from: String, _ to: CardStatus) async throws {
        let harness = try Harness.make { request in
            request.method == "GET" ? .json(200, Fixture.cardJSON(status: from)) : .json(200, Fixture.cardJSON())
        }
        let error = await gatewayError {
            _ = try await harness.provider.updateCard(
                UpdateCardRequest(card: Fixture.ref, change: .status(to, reason: nil)), context: OperationContext())
        }
        #expect(error?.code == .invalidCardState)
        #expect(harness.businessRequests.map(\.method) == ["GET"], "only the card was read")
    }

    @Test(
        "list rules",
        arguments: [
            (CardQuery(), "customer"),
            (CardQuery(customer: Fixture.customer, types: [.unknown]), "types"),
            (CardQuery(customer: Fixture.customer, statuses: [.unknown]), "statuses"),
            (CardQuery(customer: Fixture.customer, limit: 0), "limit"),
            (CardQuery(customer: Fixture.customer, offset: -1), "offset"),
        ])
    func list(_ query: CardQuery, _ field: String) async throws {
        let fields = try await Self.refusedFields { provider in
            _ = try await provider.listCards(query, context: OperationContext())
        }
        #expect(fields.contains(field), "refused \(fields)")
    }

    @Test("card, programs and secure details need the customer")
    func customerRequired() async throws {
        #expect(
            try await Self.refusedFields {
                _ = try await $0.card(CardRef(id: Fixture.cardID), context: OperationContext())
            } == ["card.customer"])
        #expect(
            try await Self.refusedFields { _ = try await $0.programs(customer: nil, context: OperationContext()) } == [
                "customer"
            ])
        #expect(
            try await Self.refusedFields {
                _ = try await $0.secureDetailsAccess(for: CardRef(id: Fixture.cardID), context: OperationContext())
            } == ["card.customer"])
        #expect(
            try await Self.refusedFields {
                _ = try await $0.offer(for: CardRef(id: Fixture.cardID), wallet: .applePay, context: OperationContext())
            } == ["card.customer"])
    }

    static let cert = Data([0x30, 0x82])

    @Test(
        "provisioning rules",
        arguments: [
            (
                ProvisioningRequest(
                    card: Fixture.ref, wallet: .applePay,
                    input: .applePay(.init(certificates: [cert], nonce: cert, nonceSignature: cert))),
                "input.certificates"
            ),
            (
                ProvisioningRequest(
                    card: Fixture.ref, wallet: .applePay,
                    input: .applePay(.init(certificates: [cert, cert, cert], nonce: cert, nonceSignature: cert))),
                "input.certificates"
            ),
            (
                ProvisioningRequest(
                    card: Fixture.ref, wallet: .applePay,
                    input: .applePay(.init(certificates: [Data(), cert], nonce: cert, nonceSignature: cert))),
                "input.certificates[0]"
            ),
            (
                ProvisioningRequest(
                    card: Fixture.ref, wallet: .applePay,
                    input: .applePay(.init(certificates: [cert, Data()], nonce: cert, nonceSignature: cert))),
                "input.certificates[1]"
            ),
            (
                ProvisioningRequest(
                    card: Fixture.ref, wallet: .applePay,
                    input: .applePay(.init(certificates: [cert, cert], nonce: Data(), nonceSignature: cert))),
                "input.nonce"
            ),
            (
                ProvisioningRequest(
                    card: Fixture.ref, wallet: .applePay,
                    input: .applePay(.init(certificates: [cert, cert], nonce: cert, nonceSignature: Data()))),
                "input.nonceSignature"
            ),
            (
                ProvisioningRequest(
                    card: Fixture.ref, wallet: .applePay,
                    input: .googlePay(.init(clientDeviceID: "d", clientWalletAccountID: "w"))), "input"
            ),
            (ProvisioningRequest(card: Fixture.ref, wallet: .googlePay, input: .issuerSDK(output: nil)), "input"),
            (
                ProvisioningRequest(
                    card: Fixture.ref, wallet: .samsungPay,
                    input: .googlePay(.init(clientDeviceID: "d", clientWalletAccountID: "w"))), "wallet"
            ),
            (
                ProvisioningRequest(
                    card: CardRef(id: Fixture.cardID), wallet: .googlePay,
                    input: .googlePay(.init(clientDeviceID: "d", clientWalletAccountID: "w"))), "card.customer"
            ),
        ])
    func provision(_ request: ProvisioningRequest, _ field: String) async throws {
        let fields = try await Self.refusedFields { provider in
            _ = try await provider.provision(request, context: OperationContext())
        }
        #expect(fields.contains(field), "refused \(fields)")
    }

    @Test(
        "Google Pay ids are required for a Visa card (read first, nothing written)",
        arguments: [("", "acct", "input.clientDeviceID"), ("dev", " ", "input.clientWalletAccountID")])
    func googleVisa(_ device: String, _ account: String, _ field: String) async throws {
        let harness = try Harness.make { _ in .json(200, Fixture.cardJSON(scheme: "VISA")) }
        let request = ProvisioningRequest(
            card: Fixture.ref, wallet: .googlePay,
            input: .googlePay(.init(clientDeviceID: device, clientWalletAccountID: account)))
        let error = await gatewayError {
            _ = try await harness.provider.provision(request, context: OperationContext())
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.fieldErrors.map(\.field) == [field])
        #expect(harness.businessRequests.map(\.method) == ["GET"])
        #expect(harness.businessRequests.first?.pathWithoutQuery == Fixture.cardPath)
    }

    @Test("Google Pay ids may be left out for a Mastercard card")
    func googleMastercard() async throws {
        let harness = try Harness.make { request in
            request.method == "GET"
                ? .json(200, Fixture.cardJSON(scheme: "MC"))
                : .json(
                    201,
                    #"{"opaquePaymentCard":"AQID","cardNetwork":"CARD_NETWORK_MASTERCARD","tokenProvider":"TOKEN_PROVIDER_MASTERCARD"}"#
                )
        }
        let request = ProvisioningRequest(
            card: Fixture.ref, wallet: .googlePay,
            input: .googlePay(.init(clientDeviceID: "", clientWalletAccountID: "")))
        _ = try await harness.provider.provision(request, context: OperationContext())
        #expect(harness.businessRequests.map(\.method) == ["GET", "POST"])
        let body = try #require(harness.businessRequests.last?.jsonObject)
        #expect(body["clientDeviceId"] == nil)
        #expect(body["clientWalletAccountId"] == nil)
        #expect(body["walletType"] as? String == "GOOGLE_PAY")
    }

    @Test(
        "confirm rules",
        arguments: [
            (
                ProvisioningConfirmation(card: Fixture.ref, wallet: .applePay, deviceAccountReference: " "),
                "deviceAccountReference"
            ),
            (
                ProvisioningConfirmation(
                    card: CardRef(id: Fixture.cardID), wallet: .applePay, deviceAccountReference: "D"), "card.customer"
            ),
            (ProvisioningConfirmation(card: Fixture.ref, wallet: .samsungPay, deviceAccountReference: "D"), "wallet"),
        ])
    func confirm(_ confirmation: ProvisioningConfirmation, _ field: String) async throws {
        let fields = try await Self.refusedFields { provider in
            try await provider.confirm(confirmation, context: OperationContext())
        }
        #expect(fields.contains(field), "refused \(fields)")
    }

    @Test("SCA attempt rules")
    func scaAttempt() async throws {
        let fields = try await Self.refusedFields { provider in
            _ = try await provider.submitSCAAttempt(
                eventID: "", walletOperationID: " ", method: "", channel: "", context: OperationContext())
        }
        #expect(Set(fields) == ["eventID", "walletOperationID", "method", "channel"])
    }
}
