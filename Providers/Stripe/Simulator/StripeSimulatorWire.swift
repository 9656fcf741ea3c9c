import Foundation

/// Stripe's JSON for each object, with the field names and types of Stripe's API reference (stripe-python 16.1.0).
extension StripeSimulator {
    func render(card: StripeSimulatorCard, livemode: Bool) -> StripeSimulatorJSON {
        let holder: StripeSimulatorJSON =
            cardholders.get(card.cardholderID).map { render(cardholder: $0, livemode: livemode) }
            ?? .string(card.cardholderID)
        func wallet(_ eligibility: StripeSimulatorWalletEligibility) -> StripeSimulatorJSON {
            ["eligible": .bool(eligibility.eligible), "ineligible_reason": .optional(eligibility.ineligibleReason)]
        }
        return .object([
            ("id", .string(card.id)),
            ("object", "issuing.card"),
            ("brand", .string(card.brand)),
            ("cancellation_reason", .optional(card.cancellationReason)),
            ("cardholder", holder),
            ("created", .int(card.created)),
            ("currency", .string(card.currency)),
            ("exp_month", .int(card.expMonth)),
            ("exp_year", .int(card.expYear)),
            ("last4", .string(card.last4)),
            ("latest_fraud_warning", nil),
            ("lifecycle_controls", nil),
            ("livemode", .bool(livemode)),
            ("metadata", .object(card.metadata.map { ($0.0, .string($0.1)) })),
            ("personalization_design", .optional(card.personalizationDesign)),
            ("replaced_by", nil),
            ("replacement_for", nil),
            ("replacement_reason", nil),
            ("second_line", nil),
            ("shipping", nil),
            ("spending_controls", Self.spendingControls),
            ("status", .string(card.status)),
            ("type", .string(card.type)),
            (
                "wallets",
                [
                    "apple_pay": wallet(card.applePay),
                    "google_pay": wallet(card.googlePay),
                    "primary_account_identifier": .optional(card.primaryAccountIdentifier),
                ]
            ),
        ])
    }

    func render(cardholder: StripeSimulatorCardholder, livemode: Bool) -> StripeSimulatorJSON {
        .object([
            ("id", .string(cardholder.id)),
            ("object", "issuing.cardholder"),
            (
                "billing",
                [
                    "address": [
                        "city": "San Francisco", "country": "US", "line1": "510 Townsend St", "line2": nil,
                        "postal_code": "94103", "state": "CA",
                    ]
                ]
            ),
            ("company", nil),
            ("created", .int(cardholder.created)),
            ("email", .optional(cardholder.email)),
            ("individual", nil),
            ("livemode", .bool(livemode)),
            ("metadata", [:]),
            ("name", .string(cardholder.name)),
            ("phone_number", .optional(cardholder.phoneNumber)),
            ("preferred_locales", []),
            ("requirements", ["disabled_reason": nil, "past_due": []]),
            ("spending_controls", Self.spendingControls),
            ("status", "active"),
            ("type", "individual"),
        ])
    }

    func render(token: StripeSimulatorToken, livemode: Bool, expand: Set<String>) -> StripeSimulatorJSON {
        var card: StripeSimulatorJSON = .string(token.cardID)
        if expand.contains("card"), let expanded = cards.get(token.cardID) {
            card = render(card: expanded, livemode: livemode)
        }
        var members: [(String, StripeSimulatorJSON)] = [
            ("id", .string(token.id)),
            ("object", "issuing.token"),
            ("card", card),
            ("created", .int(token.created)),
            ("device_fingerprint", .optional(token.deviceFingerprint)),
            ("last4", .string(token.last4)),
            ("livemode", .bool(livemode)),
            ("network", .string(token.network)),
            ("network_updated_at", .int(token.networkUpdatedAt)),
            ("status", .string(token.status)),
            ("wallet_provider", .optional(token.walletProvider)),
        ]
        // network_data: only when expanded, and only within 24 hours of the token's creation.
        if expand.contains("network_data"), Int64(simulationClock.now().timeIntervalSince1970) - token.created < 86_400
        {
            // Stripe's per-network hash (stripe-python issuing/_token.py NetworkData.Visa / .Mastercard): Visa has
            // `token_risk_score` and `token_decision_recommendation`, Mastercard `token_requestor_name` instead.
            let requestor = Self.tokenRequestor(network: token.network, wallet: token.walletProvider)
            let reference: StripeSimulatorJSON
            if token.network == "mastercard" {
                reference = [
                    "card_reference_id": .string("ref_" + token.id), "token_reference_id": .string("tref_" + token.id),
                    "token_requestor_id": .string(requestor.id), "token_requestor_name": .optional(requestor.name),
                ]
            } else {
                reference = [
                    "card_reference_id": .string("ref_" + token.id), "token_decision_recommendation": "approve",
                    "token_reference_id": .string("tref_" + token.id),
                    "token_requestor_id": .string(requestor.id), "token_risk_score": "00",
                ]
            }
            members.append(
                (
                    "network_data",
                    .object([
                        (
                            "device",
                            [
                                "device_fingerprint": .optional(token.deviceFingerprint), "ip_address": nil,
                                "location": nil, "name": "Simulated device", "phone_number": nil,
                                "type": .string(token.deviceType),
                            ]
                        ),
                        ("type", .string(token.network)),
                        (token.network, reference),
                        (
                            "wallet_provider",
                            [
                                "account_id": nil, "account_trust_score": 4, "card_number_source": "app",
                                "cardholder_address": nil,
                                "cardholder_name": nil, "device_trust_score": 4, "hashed_account_email_address": nil,
                                "reason_codes": [],
                                "suggested_decision": "approve", "suggested_decision_version": "1",
                            ]
                        ),
                    ])
                ))
        }
        return .object(members)
    }

    /// The token requestor id of a wallet on a network (the wallets' published TRIDs: Visa Apple Pay 40010030273,
    /// Google Pay 40010075001, Samsung Pay 40010043095; Mastercard Apple Pay 50110030273, Google Pay 50120834693,
    /// Samsung Pay 50139059239), and for Mastercard the requestor's name (the simulator's own wording: Stripe passes on
    /// what Mastercard sends).
    static func tokenRequestor(network: String, wallet: String?) -> (id: String, name: String?) {
        let mastercard = network == "mastercard"
        switch wallet {
        case "google_pay"?: return (mastercard ? "50120834693" : "40010075001", mastercard ? "GOOGLE_PAY" : nil)
        case "samsung_pay"?: return (mastercard ? "50139059239" : "40010043095", mastercard ? "SAMSUNG_PAY" : nil)
        default: return (mastercard ? "50110030273" : "40010030273", mastercard ? "APPLE_PAY" : nil)
        }
    }

    func render(key: StripeSimulatorEphemeralKey, includeSecret: Bool) -> StripeSimulatorJSON {
        var members: [(String, StripeSimulatorJSON)] = [
            ("id", .string(key.id)),
            ("object", "ephemeral_key"),
            ("associated_objects", [["id": .string(key.cardID), "type": "issuing.card"]]),
            ("created", .int(key.created)),
            ("expires", .int(key.expires)),
            ("livemode", .bool(key.livemode)),
        ]
        if includeSecret { members.append(("secret", .string(key.secret))) }
        return .object(members)
    }

    /// `spending_controls` as Stripe's own example objects show them (stripe/openapi fixtures3): every list
    /// present, card presences null when unrestricted.
    static let spendingControls: StripeSimulatorJSON = [
        "allowed_card_presences": nil, "allowed_categories": nil, "allowed_merchant_countries": nil,
        "blocked_card_presences": nil,
        "blocked_categories": nil, "blocked_merchant_countries": nil, "spending_limits": [],
        "spending_limits_currency": nil,
    ]
}
