import Foundation

extension AdyenSimulator {
    /// `PaymentInstrument.status` words.
    static let instrumentStatuses = ["active", "inactive", "suspended", "closed"]
    /// `PaymentInstrumentUpdateRequest.statusReason` words.
    static let instrumentStatusReasons = [
        "accountClosure", "damaged", "endOfLife", "expired", "lost", "other", "stolen", "suspectedFraud",
        "transactionRule",
    ]

    /// The zone the simulator writes its date-times in: Amsterdam's winter offset, as Adyen's examples show
    /// (`2021-01-01T01:00:00+01:00`).
    static let timeZone = TimeZone(secondsFromGMT: 3600) ?? .gmt
}
