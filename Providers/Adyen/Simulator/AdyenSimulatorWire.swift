import Foundation

extension AdyenSimulator {
    /// `PaymentInstrument.status` words.
    static let instrumentStatuses = ["active", "inactive", "suspended", "closed"]
    /// `PaymentInstrumentUpdateRequest.statusReason` words.
    static let instrumentStatusReasons = [
        "accountClosure", "damaged", "endOfLife", "expired", "lost", "other", "stolen", "suspectedFraud",
        "transactionRule",
    ]

    /// ISO 8601 with the Amsterdam winter offset, as Adyen's examples show (`2021-01-01T01:00:00+01:00`).
    static func timestamp(_ date: Date) -> String {
        date.formatted(timestampStyle)
    }

    static let timestampStyle = Date.ISO8601FormatStyle(
        timeZoneSeparator: .colon, timeZone: TimeZone(secondsFromGMT: 3600) ?? .gmt)
}
