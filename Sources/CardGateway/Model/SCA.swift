import Foundation

/// A strong-customer-authentication challenge the provider raised (Paysafe).
public struct SCAChallenge: Sendable, Codable, Equatable {
    public struct Verification: Sendable, Codable, Equatable {
        public var method: String
        public var channel: String?
        /// Where the code goes, as the provider masks it.
        public var target: String?

        public init(method: String, channel: String?, target: String?) {
            self.method = method
            self.channel = channel
            self.target = target
        }
    }

    public var eventID: String
    public var walletOperationID: String
    public var mode: String
    public var verifications: [Verification]
    public var created: Date?
    public var expires: Date?

    public init(
        eventID: String, walletOperationID: String, mode: String, verifications: [Verification], created: Date?,
        expires: Date?
    ) {
        self.eventID = eventID
        self.walletOperationID = walletOperationID
        self.mode = mode
        self.verifications = verifications
        self.created = created
        self.expires = expires
    }

    /// What to send with the repeated operation once the challenge is solved.
    public var authorization: SCAAuthorization {
        SCAAuthorization(eventID: eventID, walletOperationID: walletOperationID)
    }
}

/// Proof that a challenge was solved, sent with the repeated operation.
public struct SCAAuthorization: Sendable, Codable, Equatable {
    public var eventID: String
    public var walletOperationID: String

    public init(eventID: String, walletOperationID: String) {
        self.eventID = eventID
        self.walletOperationID = walletOperationID
    }
}
