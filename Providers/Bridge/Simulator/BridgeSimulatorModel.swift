import Foundation

/// A card account as the simulator keeps it.
public struct BridgeSimulatorCardAccount: Sendable, Equatable {
    /// One freeze on the account (`CardFreeze`).
    public struct Freeze: Sendable, Equatable {
        /// `developer` or `customer`.
        public var initiator: String
        /// `lost_or_stolen`, `suspicious_activity`, `planned_inactivity`, `suspected_fraud` or `other`.
        public var reason: String
        public var reasonDetail: String?
        public var startingAt: Date
        public var endingAt: Date?
        public var createdAt: Date

        public init(
            initiator: String, reason: String, reasonDetail: String? = nil, startingAt: Date, endingAt: Date? = nil,
            createdAt: Date
        ) {
            self.initiator = initiator
            self.reason = reason
            self.reasonDetail = reasonDetail
            self.startingAt = startingAt
            self.endingAt = endingAt
            self.createdAt = createdAt
        }
    }

    /// The card account id (schema `Id`).
    public var id: String
    /// The owning customer's id.
    public var customerID: String
    /// `client_reference_id`.
    public var clientReferenceID: String
    /// `active`, `pending`, `inactive` or `frozen`.
    public var status: String
    /// `status_reason`, when set.
    public var statusReason: String?
    /// `cardholder_name`.
    public var firstName: String
    public var middleName: String?
    public var lastName: String
    /// The full card number (a Luhn-valid test number); never sent by the API, only inside encrypted payloads.
    public var pan: String
    /// `"MM/YY"`.
    public var expiry: String
    /// Active freezes, at most one per initiator.
    public var freezes: [Freeze]
    /// The available balance, as Bridge writes amounts (a decimal string).
    public var availableBalance: String
    /// The balance currency (`usdc`).
    public var currency: String

    public init(
        id: String, customerID: String, clientReferenceID: String, status: String, statusReason: String? = nil,
        firstName: String, middleName: String? = nil, lastName: String, pan: String, expiry: String,
        freezes: [Freeze] = [], availableBalance: String = "250.00", currency: String = "usdc"
    ) {
        self.id = id
        self.customerID = customerID
        self.clientReferenceID = clientReferenceID
        self.status = status
        self.statusReason = statusReason
        self.firstName = firstName
        self.middleName = middleName
        self.lastName = lastName
        self.pan = pan
        self.expiry = expiry
        self.freezes = freezes
        self.availableBalance = availableBalance
        self.currency = currency
    }

    /// The first eight digits, as `card_details.bin`.
    public var bin: String { String(pan.prefix(8)) }
    /// `card_details.last_4`.
    public var last4: String { String(pan.suffix(4)) }
}

/// A customer as the simulator keeps it.
public struct BridgeSimulatorCustomer: Sendable, Equatable {
    public var id: String
    public var firstName: String
    public var lastName: String

    public init(id: String, firstName: String, lastName: String) {
        self.id = id
        self.firstName = firstName
        self.lastName = lastName
    }
}
